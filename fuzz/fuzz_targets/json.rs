#![no_main]
//! Fuzz target `json`: the body (and its invariants) is
//! `pi_session_tools::fuzzing::json`, which `cargo test` also replays.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pi_session_tools::fuzzing::json(data));
