//! `cargo fuzz run --features libfuzzer fault_spec`: see [`mpinetsim_fuzz::fault_spec`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::fault_spec(data));
