//! The `demo` binary (written by the lead).
fn main() {}
