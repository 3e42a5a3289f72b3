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

/// How far the threads of [`parallel_in_order`] may run ahead of the
/// results taken: the results held at once.
const AHEAD: usize = 64;

/// `f` over `items` on every core, each result given to `take` on the
/// calling thread in item order as soon as it and those before it are
/// done: at most [`AHEAD`] results are held at once (a run over 10 000
/// sessions does not keep what it found in every one of them). `take`
/// returning an error stops the run: the threads take no new item, and
/// the error is returned.
pub fn parallel_in_order<T: Sync, R: Send, E>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    mut take: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    use std::collections::VecDeque;
    use std::sync::Condvar;
    let threads = threads().clamp(1, 64).min(items.len().max(1));
    if threads <= 1 {
        return items.iter().try_for_each(|x| take(f(x)));
    }
    /// The results not yet taken, from `first`; `stop` when the taker failed.
    struct State<R> {
        first: usize,
        done: VecDeque<Option<R>>,
        stop: bool,
    }
    let state = Mutex::new(State {
        first: 0,
        done: VecDeque::new(),
        stop: false,
    });
    // `ready`: a result came (for the taker); `room`: one was taken (for
    // the threads waiting to run ahead).
    let (ready, room) = (Condvar::new(), Condvar::new());
    let next = AtomicUsize::new(0);
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                {
                    let mut s = lock();
                    while !s.stop && i >= s.first + AHEAD {
                        s = room.wait(s).unwrap_or_else(|e| e.into_inner());
                    }
                    if s.stop {
                        break;
                    }
                }
                let r = f(&items[i]);
                let mut s = lock();
                let k = i - s.first;
                if s.done.len() <= k {
                    s.done.resize_with(k + 1, || None);
                }
                s.done[k] = Some(r);
                ready.notify_one();
            });
        }
        let mut result = Ok(());
        for _ in 0..items.len() {
            let r = {
                let mut s = lock();
                loop {
                    if let Some(r) = s.done.front_mut().and_then(Option::take) {
                        s.done.pop_front();
                        s.first += 1;
                        break r;
                    }
                    s = ready.wait(s).unwrap_or_else(|e| e.into_inner());
                }
            };
            room.notify_all();
            if let Err(e) = take(r) {
                result = Err(e);
                lock().stop = true;
                room.notify_all();
                break;
            }
        }
        result
    })
}
