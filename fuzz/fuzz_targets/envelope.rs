//! `cargo fuzz run --features libfuzzer envelope`: see [`mpinetsim_fuzz::envelope`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::envelope(data));
