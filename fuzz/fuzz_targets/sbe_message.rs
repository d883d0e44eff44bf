//! cargo-fuzz target: `codec::fuzzing::sbe_message` (see its documentation for the input layout).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    codec::fuzzing::sbe_message(data);
});
