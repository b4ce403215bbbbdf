//! Where the servers run sync tool bodies: a pool of threads of envelope's own, beside the async
//! runtime, so a slow body never holds up a runtime worker (and the requests waiting on it).
//!
//! A body is handed to the thread that went idle last (its slot filled, the thread unparked:
//! one futex wake, no lock held across it); a new thread starts only when every thread of the
//! pool is busy, up to [`MAX_THREADS`]; past that bound, bodies wait in a queue the threads take
//! from in order, up to [`MAX_QUEUED`]; past that, a body is dropped unrun, and its call is
//! answered `BACKEND_ERROR` (the sender of its answer dropped with it). So the bodies a process
//! holds are bounded even when their calls no longer are: a call cancelled
//! (`notifications/cancelled`) or timed out (`timeout_ms`) frees its server's place in flight
//! while its sync body runs on, which nothing can stop. A thread idle for [`KEEP_ALIVE`] ends. So the pool holds as many threads as
//! bodies ran at once lately (a server bounds that by its requests in flight: 128 for
//! `http::serve` by default), never one per call.
//!
//! Why not tokio's blocking pool (`spawn_blocking`): it wakes its threads with a condition
//! variable signalled under its lock, so the woken thread often blocks again on that lock, and
//! it counts a thread idle until it has woken, so under steady load it starts threads while
//! others are about to be free (26 to 30 threads at 16 connections in `plain_http`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The most threads the pool runs at once; past it bodies wait their turn. tokio's blocking
/// pool's default bound is the same.
pub(crate) const MAX_THREADS: usize = 512;

/// The most bodies that wait for a thread once all [`MAX_THREADS`] are busy; a body past it is
/// dropped unrun (its call answered `BACKEND_ERROR`). Each one waiting holds its arguments.
pub(crate) const MAX_QUEUED: usize = 64;

/// How long an idle thread waits for a body before it ends (20 ms in this crate's unit tests,
/// so threads end while bodies are handed to them).
pub(crate) const KEEP_ALIVE: Duration = if cfg!(test) { Duration::from_millis(20) } else { Duration::from_secs(10) };

type Job = Box<dyn FnOnce() + Send>;

/// The pool.
struct Pool {
    state: Mutex<State>,
    /// [`MAX_THREADS`] and [`MAX_QUEUED`] (smaller in a unit test's own pool).
    max_threads: usize,
    max_queued: usize,
}

struct State {
    /// Idle threads, the one idle the shortest last.
    idle: Vec<Arc<Slot>>,
    /// Threads running, idle or not.
    threads: usize,
    /// Bodies waiting for a thread, when all [`MAX_THREADS`] are busy.
    queue: VecDeque<Job>,
}

/// An idle thread's mailbox.
struct Slot {
    job: Mutex<Option<Job>>,
    thread: Thread,
}

static POOL: Pool = Pool::new(MAX_THREADS, MAX_QUEUED);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A job never runs under these locks, so no panic can poison them; tolerate it anyway.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job` on a thread of the pool, at once when a thread is idle or one can start, else
/// once one is free; dropped unrun when [`MAX_QUEUED`] bodies already wait. A panic inside
/// `job` ends `job` only.
pub(crate) fn run(job: impl FnOnce() + Send + 'static) {
    POOL.run(Box::new(job));
}

impl Pool {
    const fn new(max_threads: usize, max_queued: usize) -> Self {
        Pool {
            state: Mutex::new(State { idle: Vec::new(), threads: 0, queue: VecDeque::new() }),
            max_threads,
            max_queued,
        }
    }

    /// Queues `job` for the next free thread, or drops it (after the lock) when the queue is full.
    fn enqueue(&self, mut state: MutexGuard<'_, State>, job: Job) {
        if state.queue.len() < self.max_queued {
            state.queue.push_back(job);
        } else {
            drop(state);
            drop(job);
        }
    }

    fn run(&'static self, job: Job) {
        let mut state = lock(&self.state);
        if let Some(slot) = state.idle.pop() {
            drop(state);
            *lock(&slot.job) = Some(job);
            slot.thread.unpark();
            return;
        }
        if state.threads >= self.max_threads {
            self.enqueue(state, job);
            return;
        }
        state.threads += 1;
        drop(state);
        // The job moves into the thread only once it started: a failed start gives it back.
        let handed = Arc::new(Mutex::new(Some(job)));
        let mine = Arc::clone(&handed);
        let started = std::thread::Builder::new().name("envelope-body".into()).spawn(move || {
            let first = lock(&mine).take();
            drop(mine);
            self.work(first);
        });
        if started.is_err() {
            let mut state = lock(&self.state);
            state.threads -= 1;
            // Out of threads: wait for a running one (or run on the next start).
            if let Some(job) = lock(&handed).take() {
                if state.threads == 0 {
                    drop(state);
                    // No thread at all: run it here rather than never.
                    run_caught(job);
                } else {
                    self.enqueue(state, job);
                }
            }
        }
    }

    fn work(&'static self, mut job: Option<Job>) {
        let slot = Arc::new(Slot { job: Mutex::new(None), thread: std::thread::current() });
        loop {
            if let Some(job) = job.take() {
                run_caught(job);
            }
            let mut state = lock(&self.state);
            if let Some(next) = state.queue.pop_front() {
                job = Some(next);
                continue;
            }
            state.idle.push(Arc::clone(&slot));
            drop(state);
            let Some(next) = self.wait(&slot) else { return };
            job = Some(next);
        }
    }

    /// Waits in the idle list for a job; `None` once idle for [`KEEP_ALIVE`] (the thread then
    /// ends, out of the list).
    fn wait(&self, slot: &Arc<Slot>) -> Option<Job> {
        let deadline = Instant::now() + KEEP_ALIVE;
        loop {
            if let Some(job) = lock(&slot.job).take() {
                return Some(job);
            }
            let now = Instant::now();
            if now < deadline {
                std::thread::park_timeout(deadline - now);
                continue;
            }
            // Under test, the moment between timing out and leaving the idle list is widened,
            // so a body handed to this thread meanwhile is likely (`a_thread_timing_out_...`).
            #[cfg(test)]
            std::thread::sleep(Duration::from_micros(300));
            let mut state = lock(&self.state);
            match state.idle.iter().position(|s| Arc::ptr_eq(s, slot)) {
                Some(i) => {
                    state.idle.remove(i);
                    state.threads -= 1;
                    return None;
                }
                // Taken off the list: a job is on its way.
                None => {
                    drop(state);
                    std::thread::park();
                }
            }
        }
    }
}

fn run_caught(job: Job) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_slow_body_holds_up_no_other() {
        let (tx, rx) = mpsc::channel();
        let slow = tx.clone();
        super::run(move || {
            std::thread::sleep(Duration::from_millis(500));
            let _ = slow.send("slow");
        });
        for _ in 0..50 {
            let quick = tx.clone();
            super::run(move || {
                let _ = quick.send("quick");
            });
            assert_eq!(rx.recv_timeout(Duration::from_millis(400)), Ok("quick"));
        }
        assert_eq!(rx.recv_timeout(Duration::from_secs(2)), Ok("slow"));
    }

    /// Bodies handed out from several threads at once, in bursts spaced around [`KEEP_ALIVE`],
    /// so idle threads time out while bodies are being handed to them: every body runs, once.
    #[test]
    fn no_body_is_lost_while_threads_come_and_go() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::{Arc, Barrier};
        use std::time::Instant;
        const SUBMITTERS: usize = 4;
        const BODIES: usize = 1500;
        let ran = Arc::new(AtomicUsize::new(0));
        let barrier = Arc::new(Barrier::new(SUBMITTERS));
        let submitters: Vec<_> = (0..SUBMITTERS)
            .map(|s| {
                let (ran, barrier) = (Arc::clone(&ran), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    for i in 0..BODIES {
                        if i % 30 == 0 {
                            // 0 to 28 ms: before, at and past the keep-alive of the threads idle.
                            std::thread::sleep(Duration::from_millis(((i / 30 + s) % 5) as u64 * 7));
                        }
                        let ran = Arc::clone(&ran);
                        super::run(move || {
                            if i % 7 == 0 {
                                std::thread::sleep(Duration::from_micros(200));
                            }
                            ran.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                })
            })
            .collect();
        for submitter in submitters {
            submitter.join().unwrap();
        }
        let started = Instant::now();
        while ran.load(Ordering::Relaxed) < SUBMITTERS * BODIES && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(ran.load(Ordering::Relaxed), SUBMITTERS * BODIES, "bodies lost");
        // None runs twice either.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ran.load(Ordering::Relaxed), SUBMITTERS * BODIES);
    }

    /// A body handed to a thread just as its keep-alive ends (the thread past its deadline,
    /// not yet out of the idle list) runs: the thread waits for it instead of ending.
    #[test]
    fn a_thread_timing_out_still_runs_the_body_handed_to_it() {
        let (tx, rx) = mpsc::channel();
        let mut last = 0;
        for attempt in 0..60u64 {
            let done = tx.clone();
            super::run(move || {
                let _ = done.send(attempt);
            });
            last = rx.recv_timeout(Duration::from_secs(2)).unwrap_or(u64::MAX);
            assert_eq!(last, attempt, "a body was lost");
            // The thread is idle now; hand it the next body 0 to 590 µs past its keep-alive.
            std::thread::sleep(super::KEEP_ALIVE + Duration::from_micros(attempt % 30 * 20));
        }
        assert_eq!(last, 59);
    }

    #[test]
    fn a_panicking_body_ends_only_itself() {
        let (tx, rx) = mpsc::channel();
        super::run(|| panic!("a body panicked"));
        super::run(move || {
            let _ = tx.send(1);
        });
        assert_eq!(rx.recv_timeout(Duration::from_secs(2)), Ok(1));
    }

    #[test]
    fn past_the_queue_a_body_is_dropped_unrun_and_its_answer_with_it() {
        // A pool of its own: 2 threads, 2 bodies waiting.
        let pool: &'static super::Pool = Box::leak(Box::new(super::Pool::new(2, 2)));
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = std::sync::Arc::new(std::sync::Mutex::new(gate_rx));
        let (ran_tx, ran_rx) = mpsc::channel();
        for n in 0..4 {
            let (gate, ran) = (std::sync::Arc::clone(&gate), ran_tx.clone());
            pool.run(Box::new(move || {
                let _ = gate.lock().unwrap().recv_timeout(Duration::from_secs(5));
                let _ = ran.send(n);
            }));
        }
        // The fifth finds both threads busy and both places in the queue taken.
        let (answer_tx, answer_rx) = mpsc::channel::<&str>();
        pool.run(Box::new(move || {
            let _ = answer_tx.send("ran");
        }));
        assert_eq!(answer_rx.recv_timeout(Duration::from_secs(1)), Err(mpsc::RecvTimeoutError::Disconnected));
        drop(gate_tx);
        let mut ran: Vec<i32> = (0..4).map(|_| ran_rx.recv_timeout(Duration::from_secs(5)).unwrap()).collect();
        ran.sort_unstable();
        assert_eq!(ran, [0, 1, 2, 3]);
    }
}
