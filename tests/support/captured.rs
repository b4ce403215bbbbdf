//! What a `tracing_subscriber::fmt` subscriber writes, kept for a test to read.

use std::sync::{Arc, Mutex};

/// Collects what a `tracing_subscriber::fmt` subscriber writes
/// (`fmt().with_writer(move || captured.clone())`).
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
