//! Benchmark harnesses; see bench/README.md.
