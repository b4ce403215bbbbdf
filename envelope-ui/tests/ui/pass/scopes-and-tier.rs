use envelope_core::{Toolbox, spec::Tier, tool};

/// Deletes every note of the tenant.
#[tool(destructive, tier = 4, scopes = ["notes:admin", "internal"])]
fn purge_notes() -> bool {
    true
}

fn main() {
    let tool = purge_notes::tool();
    assert_eq!(tool.tier(), Tier::T4);
    assert_eq!(tool.scopes(), ["notes:admin", "internal"]);
    let _ = Toolbox::new().with(tool);
}
