#![no_main]
//! Fuzz target `migrate`: the body (and its invariants) is
//! `pi_session_tools::fuzzing::migrate`, which `cargo test` also replays.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pi_session_tools::fuzzing::migrate(data));
