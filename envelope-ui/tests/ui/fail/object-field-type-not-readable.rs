use envelope_core::{Object, tool};

struct Point {
    x: u32,
}

/// A field of a user type.
#[derive(Object)]
struct Shape {
    /// Where it is.
    at: Point,
    /// Its name.
    name: String,
}

/// An object parameter.
#[tool]
fn area(shape: Shape) -> u32 {
    shape.at.x
}

fn main() {}
