//! Move play and solution replay (see `properties::replay`).
#![no_main]

#[path = "../properties.rs"]
#[allow(dead_code)] // each target uses one of the properties
mod properties;

libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::replay(data));
