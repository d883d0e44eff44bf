//! cargo-fuzz target: `codec::fuzzing::json_frames` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    codec::fuzzing::json_frames(data);
});
