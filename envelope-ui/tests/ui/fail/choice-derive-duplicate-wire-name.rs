use envelope_core::Choice;

/// Two variants spelt alike on the wire.
#[derive(Choice)]
#[choice(rename_all = "snake_case")]
enum Group {
    QueryHash,
    #[choice(rename = "query_hash")]
    Hash,
}

fn main() {}
