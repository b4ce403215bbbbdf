use envelope_core::Choice;

/// A misspelt `rename_all`.
#[derive(Choice)]
#[choice(rename_all = "snakecase")]
enum Group {
    QueryHash,
    Database,
}

fn main() {}
