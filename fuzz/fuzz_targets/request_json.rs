//! The JSON request model (see `properties::request_json`).
#![no_main]

#[path = "../properties.rs"]
#[allow(dead_code)] // each target uses one of the properties
mod properties;

libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::request_json(data));
