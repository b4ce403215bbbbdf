use envelope_core::tool;

/// A tool with a foreign ABI.
#[tool]
extern "C" fn pick(n: u32) -> u32 {
    n
}

fn main() {}
