//! SIGINT, SIGTERM and SIGHUP during a batch of rewrites: the first one
//! is only remembered, so that the files in hand are finished or rolled
//! back and the batch stops before the next file; a second one ends the
//! process at once (`_exit(128 + signal)`), which is safe too, as every
//! file is at each moment its complete old or complete new version.

use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal received (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Take SIGINT, SIGTERM and SIGHUP from now on (a no-op where there are no
/// such signals).
pub fn install() {
    #[cfg(unix)]
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `on_signal` only does what a handler may (an atomic
        // exchange, `_exit`); the sigaction is fully initialised.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    if RECEIVED
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(128 + sig) }
    }
}

/// The signal that asked the batch to stop, if one did.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// A signal's name, as a shell says it (`SIGINT`).
pub fn name(sig: i32) -> String {
    #[cfg(unix)]
    {
        match sig {
            libc::SIGINT => return "SIGINT".into(),
            libc::SIGTERM => return "SIGTERM".into(),
            libc::SIGHUP => return "SIGHUP".into(),
            _ => {}
        }
    }
    format!("signal {sig}")
}
