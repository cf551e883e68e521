//! The notation parser (see `properties::notation`).
#![no_main]

#[path = "../properties.rs"]
#[allow(dead_code)] // each target uses one of the properties
mod properties;

libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::notation(data));
