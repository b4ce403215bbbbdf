use envelope_core::ToolError;

#[derive(ToolError)]
struct LookupError {
    message: String,
}

fn main() {}
