use envelope_core::tool;

/// An alias of a number is that number: `format` does not apply to it.
type Day = u32;

/// Schedules a day.
#[tool]
fn schedule(#[validate(format = "date")] day: Day) -> u32 {
    day
}

fn main() {}
