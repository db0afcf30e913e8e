//! `cargo fuzz run --features libfuzzer network_string`: see [`mpinetsim_fuzz::network_string`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::network_string(data));
