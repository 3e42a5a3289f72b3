//! Running a function over many items on every core (plain scoped
//! threads taking items in turn), the results in item order: how the store
//! reads and stats many files at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The most threads [`parallel_map`] runs (0: one per core).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Run [`parallel_map`] on at most `n` threads from now on (a tool's `-j`;
/// 0: one per core, the default).
pub fn set_threads(n: usize) {
    THREADS.store(n, Ordering::Relaxed);
}

/// The threads a parallel task takes: [`set_threads`]' number, else one
/// per core.
pub fn threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// `f` over `items` on every core (plain threads): exactly one result per
/// item, in item order (a panic in `f` is the caller's, as in a loop).
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads().clamp(1, 64).min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(&f).collect();
    }
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    mine.push((i, f(&items[i])));
                }
                if let Ok(mut o) = out.lock() {
                    o.extend(mine);
                }
            });
        }
    });
    let mut v = out.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}
