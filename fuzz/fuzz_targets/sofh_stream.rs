//! cargo-fuzz target: `codec::fuzzing::sofh_stream` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    codec::fuzzing::sofh_stream(data);
});
