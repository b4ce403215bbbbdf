//! Holds `benches/`: envelope's speed against plain serde, measured in one run
//! (`cargo bench -j2 -p envelope-bench`). See `benches/reading.rs`.
