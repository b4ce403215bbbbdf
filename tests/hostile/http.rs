//! See the crate documentation ([`super`]).
