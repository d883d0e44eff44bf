//! cargo-fuzz target: `gateway::fuzzing::rest_envelope` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gateway::fuzzing::rest_envelope(data);
});
