//! The call's context: keys of callers, call ids, cancellation, progress and log rates.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};

use super::live::Sink;
use super::messages::{MAX_LOG_BYTES, Progress};
use super::*;

/// A future dropped unfinished under `cancel_first` finds its call cancelled as it drops;
/// one that finished leaves its call as it was.
#[cfg(feature = "http")]
#[test]
fn cancel_first_cancels_before_the_future_drops() {
    struct SeesOnDrop(super::Context, std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for SeesOnDrop {
        fn drop(&mut self) {
            self.1.store(self.0.is_cancelled(), std::sync::atomic::Ordering::SeqCst);
        }
    }
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cx = super::Context::anonymous();
    let held = SeesOnDrop(cx.clone(), std::sync::Arc::clone(&seen));
    let pending = cx.cancel_first(async move {
        let _held = held;
        std::future::pending::<()>().await;
    });
    drop(pending);
    assert!(seen.load(std::sync::atomic::Ordering::SeqCst), "the body's drop saw its call not cancelled");

    let cx = super::Context::anonymous();
    let mut finished = Box::pin(cx.cancel_first(std::future::ready(7)));
    let polled = finished.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
    assert_eq!(polled, std::task::Poll::Ready(7));
    drop(finished);
    assert!(!cx.is_cancelled());
}

#[test]
fn call_ids_differ_and_keep_their_shape() {
    let a = Context::anonymous();
    let b = Context::anonymous();
    assert_ne!(a.call_id(), b.call_id());
    assert!(a.call_id()[5..].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
}

/// A call given back is a new call when its memory is reused: its own id, not cancelled;
/// a call something still holds is not reused at all.
#[test]
fn a_recycled_call_is_a_new_call() {
    let first = Context::anonymous_local();
    let first_id = first.call_id().to_owned();
    let first_at = Arc::as_ptr(&first.inner);
    first.cancel();
    first.recycle();
    let second = Context::anonymous_local();
    assert_eq!(Arc::as_ptr(&second.inner), first_at, "the memory is reused");
    assert_ne!(second.call_id(), first_id);
    assert!(!second.is_cancelled());
    let kept = second.clone();
    second.recycle();
    let third = Context::anonymous_local();
    assert_ne!(Arc::as_ptr(&third.inner), Arc::as_ptr(&kept.inner), "a kept call is not reused");
    assert_eq!(kept.call_id(), kept.clone().call_id());
}

#[test]
fn debug_counts_claims_without_showing_them() {
    let mut claims = Map::new();
    claims.insert("email".into(), Value::from("alice@example.com"));
    let c = Caller::new("alice").with_claims(claims);
    let shown = format!("{c:?}");
    assert!(!shown.contains("example.com"), "{shown}");
    assert!(shown.contains("claims: 1"), "{shown}");
}

/// A sink that keeps what it is sent.
#[derive(Default)]
struct Kept {
    progress: Mutex<Vec<f64>>,
    logs: Mutex<Vec<(LogLevel, String)>>,
}

impl Sink for Kept {
    fn progress(&self, note: Progress) {
        self.progress.lock().unwrap().push(note.done);
    }
    fn log_level(&self) -> Option<LogLevel> {
        Some(LogLevel::Info)
    }
    fn log(&self, level: LogLevel, message: String) {
        self.logs.lock().unwrap().push((level, message));
    }
}

#[test]
fn progress_increases_within_its_rate_and_the_last_held_is_flushed() {
    let kept = Arc::new(Kept::default());
    let cx = Context::anonymous().with_sink(Arc::clone(&kept) as Arc<dyn Sink>);
    cx.progress(1, 10);
    cx.progress(1, 10);
    cx.progress(f64::NAN, 10.0);
    cx.progress(2, 10);
    cx.progress(3, 10);
    assert_eq!(*kept.progress.lock().unwrap(), [1.0]);
    cx.flush();
    assert_eq!(*kept.progress.lock().unwrap(), [1.0, 3.0]);
    cx.progress(10, 10);
    assert_eq!(*kept.progress.lock().unwrap(), [1.0, 3.0, 10.0], "the last goes out at once");
}

#[test]
fn logs_below_the_level_are_not_sent_and_long_ones_are_cut() {
    let kept = Arc::new(Kept::default());
    let cx = Context::anonymous().with_sink(Arc::clone(&kept) as Arc<dyn Sink>);
    cx.debug("hidden");
    cx.info("shown");
    cx.error("é".repeat(5000));
    let logs = kept.logs.lock().unwrap();
    assert_eq!(logs.len(), 2);
    assert_eq!(logs[0], (LogLevel::Info, "shown".to_owned()));
    assert!(logs[1].1.len() <= MAX_LOG_BYTES && logs[1].1.ends_with('…'), "{}", logs[1].1.len());
}

#[test]
fn a_context_changed_while_a_clone_is_held_is_still_one_call() {
    let first = Context::anonymous();
    let held = first.clone();
    let changed = first.with_surface("internal").with_protocol_version("2026-07-28");
    assert_eq!(changed.surface(), "internal");
    assert_eq!(held.surface(), "local");
    assert_eq!(changed.call_id(), held.call_id());
    assert!(!held.is_cancelled());
    changed.cancel();
    assert!(held.is_cancelled(), "the clone made before the change sees the cancellation");
    let again = held.clone().with_call_id("call_given");
    assert!(again.is_cancelled(), "a change of a changed context keeps the first call's state");
}

#[test]
fn cancelled_wakes_its_waiter_and_a_deadline_cancels_by_the_clock() {
    let cx = Context::anonymous();
    let waiting = std::thread::spawn({
        let cx = cx.clone();
        move || {
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            rt.block_on(cx.cancelled());
        }
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!cx.is_cancelled());
    cx.cancel();
    waiting.join().unwrap();
    let timed = Context::anonymous();
    timed.time_out_in(30);
    assert!(!timed.is_cancelled());
    std::thread::sleep(Duration::from_millis(40));
    assert!(timed.is_cancelled() && timed.timed_out());
}

#[test]
fn keys_of_callers() {
    assert_eq!(Caller::new("a").key(), "sub:a");
    assert_eq!(Caller::anonymous().with_tenant("t").key(), "tenant:t");
    assert_eq!(Caller::new("a").with_scopes(["x", "x", "y"]).scopes(), ["x", "y"]);
}

#[test]
fn two_different_callers_never_share_a_key() {
    let callers = [
        Caller::new("a@b"),
        Caller::new("a").with_tenant("b"),
        Caller::new("a@b").with_tenant("c"),
        Caller::new("a").with_tenant("b@c"),
        Caller::new("a%40b"),
        Caller::new("anonymous"),
        Caller::new(""),
        Caller::new("").with_tenant(""),
        Caller::anonymous(),
        Caller::anonymous().with_tenant(""),
        Caller::anonymous().with_tenant("b"),
        Caller::new("tenant:b"),
    ];
    let keys: Vec<String> = callers.iter().map(Caller::key).collect();
    for (i, key) in keys.iter().enumerate() {
        for (j, other) in keys.iter().enumerate().skip(i + 1) {
            assert_ne!(key, other, "{:?} and {:?}", callers[i], callers[j]);
        }
    }
    assert_eq!(Caller::new("alice").with_tenant("acme").key(), "sub:alice@acme");
    assert_eq!(Caller::new("a@b").key(), "sub:a%40b");
}

/// A tenant a header named is the caller's space (`key`), never a caller of its own for limits
/// and quotas (`quota_key`): a subject counts as itself, an anonymous caller as `anonymous`.
#[test]
fn a_header_tenant_changes_the_space_not_the_quota_key() {
    let bob = Caller::new("bob");
    for tenant in ["acme", "globex"] {
        let named = bob.clone().with_header_tenant(tenant);
        assert_eq!(named.key(), format!("sub:bob@{tenant}"));
        assert_eq!(named.quota_key(), "sub:bob");
        let anonymous = Caller::anonymous().with_header_tenant(tenant);
        assert_eq!(anonymous.key(), format!("tenant:{tenant}"));
        assert_eq!(anonymous.quota_key(), ANONYMOUS);
    }
    let verified = Caller::new("bob").with_tenant("acme");
    assert_eq!(verified.quota_key(), "sub:bob@acme");
    assert_eq!(verified.clone().with_header_tenant("acme").with_tenant("acme").quota_key(), "sub:bob@acme");
}

/// Every address of one IPv6 /64 counts as one peer; an IPv4-mapped address as its IPv4 one.
#[test]
fn an_ipv6_peer_counts_as_its_64() {
    use std::net::IpAddr;
    let counted = |ip: &str| super::caller::counted_address(ip.parse::<IpAddr>().unwrap()).to_string();
    assert_eq!(counted("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
    assert_eq!(counted("2001:db8:1:2::1"), "2001:db8:1:2::");
    assert_eq!(counted("2001:db8:1:3::1"), "2001:db8:1:3::");
    assert_eq!(counted("::ffff:192.0.2.7"), "192.0.2.7");
    assert_eq!(counted("192.0.2.7"), "192.0.2.7");
    let key = |ip: &str| super::Caller::anonymous().with_peer(ip.parse().unwrap()).quota_key();
    assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
    assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
}
