//! `gaps`: the command line and HTTP face of the Gaps engine.
//!
//! [`service::api::router`] builds the HTTP application; [`cli::main`] is the binary.
//!
//! Invariant: this crate never searches itself; it parses requests, calls
//! `gaps_engine`, and formats results in the public JSON shapes (docs/notation.md, docs/http.md).

#![deny(unsafe_code)]

pub mod cli;
pub mod machine;
pub mod odds;
pub mod played;
pub mod report;
pub mod request;
pub mod service;
pub mod spill;
