//! A bounded slice of the fuzzer for every test run: 5,000 inputs from each of three seeds (the test profile reads about 1,000 a second).
//! The long run is `cargo run --release -p envelope-fuzz -- 10_000_000`.

#[test]
fn no_promise_broken_on_a_slice() {
    for seed in [1, 2, 3] {
        let report = envelope_fuzz::run(5_000, seed).unwrap_or_else(|failure| panic!("seed {seed}: {failure}"));
        assert_eq!(report.inputs, 5_000);
        // Every kind of input was fed and every kind of answer seen, so the slice tests something.
        assert_eq!(report.by_kind.len(), 4, "{report}");
        for status in ["ok", "invalid", "unknown tool"] {
            assert!(report.by_status.get(status).copied().unwrap_or(0) > 0, "no {status:?} answer: {report}");
        }
    }
}
