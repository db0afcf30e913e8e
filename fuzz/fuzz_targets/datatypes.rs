//! `cargo fuzz run --features libfuzzer datatypes`: see [`mpinetsim_fuzz::datatypes`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mpinetsim_fuzz::datatypes(data));
