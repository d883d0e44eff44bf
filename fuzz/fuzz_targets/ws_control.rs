//! cargo-fuzz target: `gateway::fuzzing::ws_control` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gateway::fuzzing::ws_control(data);
});
