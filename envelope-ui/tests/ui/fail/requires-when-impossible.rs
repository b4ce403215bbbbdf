use envelope_core::tool;

/// `when` values the parameter carrying the rule never takes: the rule would never apply.
#[tool]
fn report(
    #[validate(range = 1..=720, requires(other = 1, when = 900))] hours: Option<u32>,
    #[validate(choices = ["query", "hour"], requires(other = 1, when = "day"))] dimension: Option<String>,
    #[validate(choices = [10, 20], requires(other = 1, when = 30))] size: Option<u32>,
    #[validate(multiple_of = 0.25, requires(other = 1, when = 0.3))] ratio: Option<f64>,
    #[validate(length = 3.., requires(other = 1, when = "ab"))] name: Option<String>,
    other: Option<u32>,
) -> bool {
    let _ = (hours, dimension, size, ratio, name, other);
    true
}

fn main() {}
