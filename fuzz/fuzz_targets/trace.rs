//! `cargo fuzz run --features libfuzzer trace`: see [`mpinetsim_fuzz::trace`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::trace(data));
