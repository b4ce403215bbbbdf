use envelope_core::tool;

struct Point {
    x: u32,
}

/// A parameter of a user type.
#[tool]
fn norm(p: Point) -> u32 {
    p.x
}

fn main() {}
