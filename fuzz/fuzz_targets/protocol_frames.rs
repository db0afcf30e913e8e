//! `cargo fuzz run --features libfuzzer protocol_frames`: see [`mpinetsim_fuzz::protocol_frames`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::protocol_frames(data));
