//! The memory store: bounds per kind and per caller, expiry, compare-and-set, the rate limiter.

use std::future::Future;
use std::time::Duration;

use super::memory::{PURGE_BUDGET, STORE_FULL_RETRY};
use super::*;

fn block<T>(f: impl Future<Output = T>) -> T {
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the memory store answers at once"),
    }
}

const MIN: Duration = Duration::from_secs(60);

fn pending(caller: &str) -> Admission<'_> {
    Admission { kind: Kind::PendingAction, caller }
}

#[test]
fn a_full_kind_refuses_new_records_and_keeps_every_live_one() {
    let s = MemoryStore::new(3, MIN)
        .with_limits(Limits::uniform(3).with_pending_actions(Capacity { total: 3, per_caller: 2 }));
    assert!(block(s.admit("a", "a", MIN, pending("eve"))).unwrap());
    assert!(block(s.admit("b", "b", MIN, pending("eve"))).unwrap());
    let refused = block(s.admit("c", "c", MIN, pending("eve"))).unwrap_err();
    let full = refused.as_full().unwrap();
    assert_eq!((full.kind, full.scope, full.bound), (Kind::PendingAction, Scope::Caller, 2));
    assert!(full.retry_after > Duration::from_secs(59) && full.retry_after <= MIN, "{full:?}");
    // Another caller has a share of its own, up to the bound in all.
    assert!(block(s.admit("d", "d", MIN, pending("bob"))).unwrap());
    let full = block(s.admit("e", "e", MIN, pending("ann"))).unwrap_err();
    assert_eq!(full.as_full().unwrap().scope, Scope::Store);
    assert_eq!(
        full.to_string(),
        format!(
            "store full: 3 pending actions in all, the bound; room for this caller in {} ms",
            full.as_full().unwrap().retry_after.as_millis()
        )
    );
    // Holding none, ann is told to try again in a second, not when another's record
    // expires; bob, full in all too, when his own oldest record does.
    assert_eq!(full.as_full().unwrap().retry_after, STORE_FULL_RETRY);
    let bob = block(s.admit("f", "f", MIN, Admission { kind: Kind::PendingAction, caller: "bob" })).unwrap_err();
    assert_eq!(bob.as_full().unwrap().scope, Scope::Store);
    assert!(bob.as_full().unwrap().retry_after > Duration::from_secs(59), "{bob:?}");
    // Another kind is counted apart.
    let key = Admission { kind: Kind::IdempotencyRecord, caller: "eve" };
    assert!(block(s.admit("k", "k", MIN, key)).unwrap());
    for k in ["a", "b", "d", "k"] {
        assert_eq!(block(s.get(k)).unwrap().as_deref(), Some(k));
    }
    // A removed record frees its place.
    block(s.remove("a")).unwrap();
    assert!(block(s.admit("c", "c", MIN, pending("eve"))).unwrap());
}

/// The rate limiter's keys are bounded with the other keys, yet never refuse a caller
/// within its limit: past the bound, the limit nearest its end is forgotten.
#[test]
fn the_rate_limiter_never_refuses_a_caller_within_its_limit() {
    let s = MemoryStore::new(3, MIN);
    let limit = crate::spec::rate::RateLimit::per_hour(1);
    for caller in ["a", "b", "c", "d", "e"] {
        assert_eq!(block(s.rate(caller, limit)).unwrap(), RateCheck::Allowed, "{caller}");
    }
    assert_eq!(s.len(), 3);
    // The latest callers' limits are in force.
    assert!(matches!(block(s.rate("e", limit)).unwrap(), RateCheck::Limited { .. }));
    assert!(matches!(block(s.rate("d", limit)).unwrap(), RateCheck::Limited { .. }));
    // An other key is never forgotten for a limit.
    let s = MemoryStore::new(2, MIN);
    block(s.put("kept", "v", MIN)).unwrap();
    for caller in ["a", "b", "c"] {
        assert_eq!(block(s.rate(caller, limit)).unwrap(), RateCheck::Allowed, "{caller}");
    }
    assert_eq!(block(s.get("kept")).unwrap().as_deref(), Some("v"));
}

#[test]
fn an_expired_record_frees_its_place() {
    let s = MemoryStore::new(1, MIN);
    assert!(block(s.admit("k", "1", Duration::from_millis(1), pending("eve"))).unwrap());
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(block(s.get("k")).unwrap(), None);
    assert!(block(s.admit("k", "2", Duration::from_secs(5), pending("eve"))).unwrap());
    assert!(!block(s.admit("k", "3", Duration::from_secs(5), pending("eve"))).unwrap());
    assert_eq!(block(s.get("k")).unwrap().as_deref(), Some("2"));
    assert_eq!(s.len(), 1);
}

#[test]
fn max_age_caps_a_longer_time_to_live() {
    let s = MemoryStore::new(10, Duration::from_millis(1));
    block(s.put("k", "1", Duration::from_secs(3600))).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(block(s.get("k")).unwrap(), None);
}

#[test]
fn keys_written_without_admission_have_a_bound_of_their_own() {
    let s = MemoryStore::new(2, MIN);
    assert!(block(s.put_new("x", "1", MIN)).unwrap());
    block(s.put("y", "2", MIN)).unwrap();
    let full = block(s.put("z", "3", MIN)).unwrap_err();
    assert_eq!(full.as_full().unwrap().kind, Kind::Other);
    // Rewriting a key is no new record.
    block(s.put("y", "2b", MIN)).unwrap();
    assert!(block(s.admit("p", "p", MIN, pending("eve"))).unwrap());
    assert_eq!(block(s.get("y")).unwrap().as_deref(), Some("2b"));
}

#[test]
fn replace_if_compares_the_whole_value_and_keeps_the_count() {
    let s = MemoryStore::new(1, MIN);
    assert!(block(s.admit("k", "running:1", MIN, pending("eve"))).unwrap());
    assert!(!block(s.replace_if("k", "running:2", Some("done"), MIN)).unwrap());
    assert!(block(s.replace_if("k", "running:1", Some("running:1"), MIN * 2)).unwrap());
    assert!(block(s.replace_if("k", "running:1", Some("done"), MIN)).unwrap());
    assert_eq!(block(s.get("k")).unwrap().as_deref(), Some("done"));
    // Still counted against eve: her bound of 1 is reached.
    assert!(block(s.admit("j", "j", MIN, pending("eve"))).is_err());
    assert!(block(s.replace_if("k", "done", None, MIN)).unwrap());
    assert_eq!(block(s.get("k")).unwrap(), None);
    assert!(!block(s.replace_if("k", "done", None, MIN)).unwrap());
    assert!(block(s.admit("j", "j", MIN, pending("eve"))).unwrap());
}

#[test]
fn a_write_drops_a_few_expired_entries_and_a_bound_drops_them_all() {
    let s = MemoryStore::new(2_000, MIN)
        .with_limits(Limits::uniform(2_000).with_pending_actions(Capacity { total: 2_000, per_caller: 1_000 }));
    for i in 0..1_000 {
        assert!(block(s.admit(&format!("k{i}"), "v", Duration::from_millis(300), pending("eve"))).unwrap());
    }
    assert_eq!(s.len(), 1_000);
    std::thread::sleep(Duration::from_millis(350));
    assert!(block(s.admit("x", "v", MIN, pending("bob"))).unwrap());
    assert_eq!(s.len(), 1_001 - PURGE_BUDGET);
    // Expired, a key is absent to every operation, purged or not.
    assert_eq!(block(s.get("k999")).unwrap(), None);
    assert!(!block(s.replace_if("k999", "v", None, MIN)).unwrap());
    assert!(block(s.admit("k999", "w", MIN, pending("eve"))).unwrap());
    // At the bound, the expired entries are dropped before anything is refused.
    for i in 0..998 {
        assert!(block(s.admit(&format!("n{i}"), "v", MIN, pending("eve"))).unwrap(), "{i}");
    }
    assert_eq!(s.len(), 1_000);
    assert!(block(s.admit("last", "v", MIN, pending("eve"))).unwrap());
    let full = block(s.admit("over", "v", MIN, pending("eve"))).unwrap_err();
    assert_eq!(full.as_full().unwrap().scope, Scope::Caller);
    assert_eq!(s.len(), 1_001);
}

#[test]
fn ten_thousand_refusals_cost_no_memory() {
    let s = MemoryStore::new(10, MIN);
    for i in 0..10_000 {
        let _ = block(s.admit(&format!("k{i}"), "v", MIN, pending("eve")));
    }
    assert_eq!(s.len(), 10);
    assert_eq!(block(s.get("k0")).unwrap().as_deref(), Some("v"));
}

fn keyed(caller: &str) -> Admission<'_> {
    Admission { kind: Kind::IdempotencyRecord, caller }
}

/// A recorded idempotency record, as the guard writes it.
const DONE: &str = r#"{"at":1,"envelope":{},"fingerprint":"f","state":"done"}"#;
/// A running call's claim, as the guard writes it.
const RUNNING: &str = r#"{"claim":"c","fingerprint":"f","state":"running"}"#;

/// Full in all, a newcomer takes the place of the oldest settled record of the largest holder
/// when that holder holds more than the newcomer; never a running claim's, never a pending
/// action's, never when no holder holds more.
#[test]
fn at_the_bound_in_all_a_newcomer_displaces_a_larger_holders_settled_record() {
    let per = Capacity { total: 4, per_caller: 3 };
    let s = MemoryStore::new(10, MIN).with_limits(Limits::uniform(10).with_idempotency_records(per));
    // eve holds 3 (a running claim first, then two settled), bob 1.
    assert!(block(s.admit("eve-1", RUNNING, MIN, keyed("eve"))).unwrap());
    assert!(block(s.admit("eve-2", DONE, 2 * MIN, keyed("eve"))).unwrap());
    assert!(block(s.admit("eve-3", DONE, 3 * MIN, keyed("eve"))).unwrap());
    assert!(block(s.admit("bob-1", DONE, MIN, keyed("bob"))).unwrap());
    // ann, holding none: eve's oldest settled record makes room (not her running claim).
    assert!(block(s.admit("ann-1", DONE, MIN, keyed("ann"))).unwrap());
    assert_eq!(block(s.get("eve-2")).unwrap(), None);
    assert_eq!(block(s.get("eve-1")).unwrap().as_deref(), Some(RUNNING));
    assert_eq!(block(s.get("bob-1")).unwrap().as_deref(), Some(DONE));
    // carl: eve holds 2 > 0, her settled eve-3 goes.
    assert!(block(s.admit("carl-1", DONE, MIN, keyed("carl"))).unwrap());
    assert_eq!(block(s.get("eve-3")).unwrap(), None);
    // bob, holding 1 as the largest holders do: refused, told when his own record expires.
    let bob = block(s.admit("bob-2", DONE, MIN, keyed("bob"))).unwrap_err();
    assert_eq!(bob.as_full().unwrap().scope, Scope::Store);
    assert!(bob.as_full().unwrap().retry_after > Duration::from_secs(59), "{bob:?}");
    // eve holds only a running claim: when her 1 is the largest holding looked at, a newcomer
    // holding none is refused, told 1 s (no settled record of hers to take the place of).
    let s2 = MemoryStore::new(10, MIN)
        .with_limits(Limits::uniform(10).with_idempotency_records(Capacity { total: 1, per_caller: 1 }));
    assert!(block(s2.admit("eve-1", RUNNING, MIN, keyed("eve"))).unwrap());
    let full = block(s2.admit("dan-1", DONE, MIN, keyed("dan"))).unwrap_err();
    assert_eq!(full.as_full().unwrap().retry_after, STORE_FULL_RETRY);
    assert_eq!(block(s2.get("eve-1")).unwrap().as_deref(), Some(RUNNING));
    assert_eq!(s.len(), 4);

    // Pending actions are never displaced.
    let s = MemoryStore::new(2, MIN)
        .with_limits(Limits::uniform(2).with_pending_actions(Capacity { total: 2, per_caller: 2 }));
    assert!(block(s.admit("a", DONE, MIN, pending("eve"))).unwrap());
    assert!(block(s.admit("b", DONE, MIN, pending("eve"))).unwrap());
    let full = block(s.admit("c", DONE, MIN, pending("ann"))).unwrap_err();
    assert_eq!(full.as_full().unwrap().scope, Scope::Store);
    assert_eq!(s.len(), 2);
}

/// 10 000 callers holding one settled record each, the store full in all: the next caller's
/// record is admitted, and the store holds no more than its bound.
#[test]
fn ten_thousand_single_holders_leave_room_for_the_next() {
    let s = MemoryStore::default();
    for i in 0..10_000 {
        let caller = format!("sub:caller-{i}");
        assert!(block(s.admit(&format!("k{i}"), DONE, MIN, keyed(&caller))).unwrap());
    }
    assert!(block(s.admit("next", DONE, MIN, keyed("sub:next"))).unwrap());
    assert_eq!(block(s.get("next")).unwrap().as_deref(), Some(DONE));
    assert_eq!(s.len(), 10_000);
}

/// Task records have bounds of their own: a store full of them refuses the next, naming them,
/// and still counts a newcomer's calls against its rate limit.
#[test]
fn task_records_fill_no_other_kinds_bound() {
    let s = MemoryStore::new(2, MIN);
    let task = |caller| Admission { kind: Kind::Task, caller };
    assert!(block(s.admit("t1", "{}", MIN, task("peer:a"))).unwrap());
    assert!(block(s.admit("t2", "{}", MIN, task("peer:b"))).unwrap());
    let refused = block(s.admit("t3", "{}", MIN, task("peer:c"))).unwrap_err();
    let full = refused.as_full().unwrap();
    assert_eq!((full.kind, full.scope, full.bound), (Kind::Task, Scope::Store, 2));
    assert_eq!(refused.to_string(), "store full: 2 task records in all, the bound; room for this caller in 1000 ms");
    let limit = crate::spec::rate::RateLimit::per_hour(1);
    assert_eq!(block(s.rate("envelope:rate:*:peer:c", limit)).unwrap(), RateCheck::Allowed);
    assert_eq!(s.len(), 3);
}
