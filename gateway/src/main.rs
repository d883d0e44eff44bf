//! The gateway binary (entry point written by the lead).
fn main() {}
