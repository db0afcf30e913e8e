//! `cargo fuzz run --features libfuzzer network_toml`: see [`mpinetsim_fuzz::network_toml`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::network_toml(data));
