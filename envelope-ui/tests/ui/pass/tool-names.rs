//! Tool names MCP allows (SEP-986): dots and dashes in `name = "..."`, and 128 characters.

use envelope_core::{Toolbox, tool};

/// Queries the database.
#[tool(name = "db.query-v2")]
fn db_query(n: u32) -> u32 {
    n
}

/// The longest name MCP allows.
#[tool]
fn report_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(n: u32) -> u32 {
    n
}

fn main() {
    let toolbox = Toolbox::new().with(db_query::tool()).with(report_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx::tool());
    assert!(toolbox.get("db.query-v2").is_some());
    assert_eq!(toolbox.tools()[1].name().len(), 128);
}
