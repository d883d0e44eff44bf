//! cargo-fuzz target: `gateway::fuzzing::fixp_session` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gateway::fuzzing::fixp_session(data);
});
