use envelope_core::{Object, tool};

/// Required values that no value read without a problem could equal: every call that sends
/// the parameter carrying the rule would be refused.
#[tool]
fn report(
    #[validate(requires(count = 500))] a: Option<String>,
    #[validate(requires(data_state = "HOURLY"))] b: Option<String>,
    #[validate(requires(level = 3, when = "deep"))] c: Option<String>,
    #[validate(requires(minutes = 20))] d: Option<String>,
    #[validate(requires(code = "ABCDE", tag = "héllo"))] e: Option<String>,
    #[validate(requires(small = 300))] f: Option<String>,
    #[validate(range = 1..=100)] count: Option<u32>,
    #[validate(choices = ["ALL", "HOURLY_ALL"])] data_state: Option<String>,
    #[validate(choices = [1, 2, 4])] level: Option<u32>,
    #[validate(multiple_of = 15)] minutes: Option<u32>,
    #[validate(length = 2..=4)] code: Option<String>,
    #[validate(byte_length = ..=5)] tag: Option<String>,
    small: Option<u8>,
) -> bool {
    let _ = (a, b, c, d, e, f, count, data_state, level, minutes, code, tag, small);
    true
}

/// An `Object`'s fields are checked the same way.
#[derive(Object)]
struct Window {
    #[validate(requires(hours = 0))]
    since: Option<String>,
    #[validate(range = 1..=720)]
    hours: Option<u32>,
}

fn main() {}
