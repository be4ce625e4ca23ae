//! How many generated cases a property test runs: `PROPTEST_CASES` when set
//! (`PROPTEST_CASES=100000` for a long run), else the test's own default.

pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
