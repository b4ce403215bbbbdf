//! The guard of writes that run once: what a confirm tool or a keyed tool goes through before
//! its body runs, and the store its state waits in.

// Confirmation (`confirm_action`) and idempotency keys.
pub mod confirm;
// The seal of a pending action id, the key of an idempotency record, randomness.
mod seal;
// The key-value store shared by every replica: memory, or Redis.
pub mod store;
