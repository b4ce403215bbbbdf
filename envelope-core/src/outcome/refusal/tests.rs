use super::*;

fn problems() -> Vec<Problem> {
    let odd = "a \"quoted\" \\ word\nwith\ttabs \u{1} \u{1f} \u{7f} é ✓ 😀";
    vec![
        Problem::new("hours_back", Rejected::Shown("0".into()), "is out of range")
            .with_accepted("a whole number from 1 to 720")
            .with_fix("Send a value from 1 to 720."),
        Problem::new("group_by", Rejected::Shown("\"databse\"".into()), "is not an accepted value")
            .with_accepted("one of \"query_hash\", \"database\"")
            .with_fix("Send \"database\".")
            .with_suggestion(Some("database")),
        Problem::new("tags", Rejected::Hidden, "is too long").with_accepted(odd).with_fix(odd).at("tags[1]".into()),
        Problem::new(odd, Rejected::Shown(odd.into()), odd).with_accepted("").with_fix("").with_suggestion(Some(odd)),
        Problem::new("q", Rejected::Missing, "is missing").with_accepted("a string").with_fix("Add \"q\"."),
    ]
}

/// The typed hints write what the map of strings wrote, and are measured as it was.
#[test]
fn typed_hints_write_and_measure_as_the_map_did() {
    for p in problems() {
        let map = Value::Object(p.hints());
        assert_eq!(serde_json::to_string(&ProblemHints(&p)).unwrap(), map.to_string());
        assert_eq!(p.hints_text_len(), budget::text_json_len(&map), "{p:?}");
        let mut s = String::from("x");
        p.write_sentence(&mut s);
        assert_eq!(s, format!("x{}", p.sentence()));
    }
    let all = problems();
    let mut reference = all[0].hints();
    let others: Vec<Value> = all[1..].iter().map(|p| Value::Object(p.hints())).collect();
    reference.insert("others".into(), Value::Array(others));
    reference.insert("retry_after_ms".into(), Value::from(1500u64));
    let mut typed = Hints::Problems { problems: all, retry_after_ms: None };
    typed.set_retry_after_ms(1500);
    assert_eq!(serde_json::to_string(&typed).unwrap(), Value::Object(reference.clone()).to_string());
    assert_eq!(typed, Hints::Recorded(Value::Object(reference)));
    assert_eq!(typed.retry_after_ms(), Some(1500));
    assert_eq!(typed.parameter(), Some(Value::from("hours_back")));
}

/// A refusal's envelope written straight (`to_json`) is byte for byte what its `Serialize`
/// writes through serde_json: every key, escape, prefix, delay, warning and provenance.
#[test]
fn a_refusal_is_written_straight_as_serde_json_writes_it() {
    use crate::outcome::envelope::Envelope;
    let all = problems();
    let mut envelopes = Vec::new();
    for n in 0..=all.len() {
        let refusal = Refusal::from_problems(all[..n].to_vec());
        envelopes.push(Envelope::from(refusal.clone()));
        envelopes.push(Envelope::from(refusal.clone()).with_code_prefix(Some("AC\"ME_")));
        envelopes.push(Envelope::from(refusal.clone().with_retry_after(std::time::Duration::from_millis(1500))));
        envelopes.push(
            Envelope::from(refusal.with_code(codes::RATE_LIMITED))
                .with_retry_after_ms(7)
                .with_warning("stale \"cache\"\n")
                .with_provenance(serde_json::json!({"call_id": "call_1", "tier": null})),
        );
    }
    // Each problem alone (its parts escaped once for the message and the hints), and
    // with the hints of another (the message then escaped whole).
    for (i, p) in all.iter().enumerate() {
        let alone = Envelope::from(Refusal::from_problems(vec![p.clone()]));
        let mut other = alone.clone();
        other.set_hints(Hints::Problems { problems: vec![all[(i + 1) % all.len()].clone()], retry_after_ms: None });
        envelopes.extend([alone, other]);
    }
    let mut bare = Envelope::from(Refusal::from_problems(Vec::new()));
    bare.set_hints(Hints::Problems { problems: Vec::new(), retry_after_ms: Some(3) });
    envelopes.push(bare);
    let recorded = serde_json::json!({"status": "invalid", "error_code": "VALIDATION_ERROR",
        "message": "q: is missing", "hints": {"parameter": "q", "z": [1, "\u{1}"]}});
    envelopes.extend(Envelope::from_recorded(&recorded, &[codes::VALIDATION_ERROR]));
    assert_eq!(envelopes.len(), 4 * (all.len() + 1) + 2 * all.len() + 2);
    let mut unwritten = 0;
    for env in envelopes {
        // First with the message unwritten where the problems are obviously within the budget
        // (written from their parts), then written (`Serialize` asks for it; a lone problem's
        // is then checked part by part).
        let straight = env.to_json();
        unwritten += usize::from(env.message_unwritten());
        let serialized = serde_json::to_string(&env).unwrap();
        assert!(!env.message_unwritten());
        assert_eq!(straight, serialized, "{env:?}");
        assert_eq!(env.to_json(), serialized, "{env:?}");
    }
    // Unwritten: a refusal with no problem (one of its own: the arguments could not be
    // read), the first problem alone and the first two together (a line each, as A's
    // refusal), each plain, prefixed, and with a code and a delay in the hints (not with the
    // retry's words); and alone, the three problems whose texts hold no control character
    // (the other two are counted).
    assert_eq!(unwritten, 3 + 3 + 3 + 3, "{unwritten}");
}

/// `rendered` as it was before problems obviously within the budget went uncounted: every
/// problem's exact cost. The reference the bound is held to.
fn rendered_reference(refusal: Refusal) -> (String, Vec<Problem>) {
    const BUDGET: usize = 1600;
    let mut problems = refusal.problems;
    let mut message = String::new();
    let (mut used, mut kept) = (0, 0);
    while kept < problems.len() {
        let start = message.len();
        if kept > 0 {
            message.push('\n');
        }
        let at = message.len();
        problems[kept].write_sentence(&mut message);
        let mut cost = budget::json_len(&message[at..]) + problems[kept].hints_text_len();
        if cost > BUDGET && kept == 0 {
            let fitted = problems[0].fitted(|p| budget::json_len(&p.sentence()) + p.hints_text_len() <= BUDGET);
            message.truncate(at);
            fitted.write_sentence(&mut message);
            cost = budget::json_len(&message[at..]) + fitted.hints_text_len();
            problems[0] = fitted;
        }
        if used + cost > BUDGET && kept > 0 {
            message.truncate(start);
            break;
        }
        used += cost;
        kept += 1;
    }
    if kept < problems.len() {
        let summary = summary_of(&problems[kept..]);
        problems.truncate(kept);
        if kept > 0 {
            message.push('\n');
        }
        summary.write_sentence(&mut message);
        problems.push(summary);
    }
    (message, problems)
}

/// The bound of a problem's hints is never below their exact length, and the refusal keeps
/// the same problems and writes the same message as when every cost was counted: over
/// problems of every size (quotes, control characters, paths, suggestions), in sets that
/// cross the budget at every place.
#[test]
fn problems_within_the_budget_by_a_bound_are_the_ones_counted_exactly() {
    let texts = ["x", "a \"b\" c", "line\nbreak", "\\\\", "é✓", "plain words of some length here", "\u{1}"];
    let seed = std::cell::Cell::new(0x2545_F491_4F6C_DD1Du64);
    let next = |n: usize| {
        let mut x = seed.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        seed.set(x);
        (x % n as u64) as usize
    };
    let text = |reps: usize| texts[next(texts.len())].repeat(1 + next(reps));
    for round in 0..400 {
        let mut all = Vec::new();
        for _ in 0..1 + next(12) {
            let rejected = match next(3) {
                0 => Rejected::Shown(text(4)),
                1 => Rejected::Hidden,
                _ => Rejected::Missing,
            };
            let mut p = Problem::new(text(3), rejected, text(8)).with_accepted(text(30)).with_fix(text(20));
            if next(2) == 0 {
                p = p.with_suggestion(Some(text(3)));
            }
            if next(3) == 0 {
                let path = format!("{}[{}]", p.0.parameter, next(9));
                p = p.at(path);
            }
            let (q, c) = budget::quotes_and_controls(p.sentence().as_bytes());
            if let Some(bound) = p.hints_text_len_bound(q, c) {
                assert!(bound >= p.hints_text_len(), "{p:?}");
            }
            // The worst case a lone problem is kept by, uncounted, is never below the count.
            assert!(p.sentence_len_bound() >= p.sentence().len(), "{p:?}");
            let exact = budget::json_len(&p.sentence()) + p.hints_text_len();
            let worst = 2 + 6 * p.sentence_len_bound() + p.hints_text_len_with(|t| 4 + 7 * t.len());
            assert!(worst >= exact, "{p:?}");
            if !p.has_control() {
                let worst = 2 + 2 * p.sentence_len_bound() + p.hints_text_len_with(|t| 4 + 4 * t.len());
                assert!(worst >= exact, "{p:?}");
            }
            all.push(p);
        }
        let refusal = Refusal { code: codes::VALIDATION_ERROR, problems: all, retry_after: None };
        let (message, hints) = refusal.clone().rendered();
        let message = message.unwrap_or_else(|| hints.sentences());
        let (reference, kept) = rendered_reference(refusal);
        assert_eq!(message, reference, "round {round}");
        assert_eq!(hints, Hints::Problems { problems: kept, retry_after_ms: None }, "round {round}");
    }
    // A lone problem whose texts grow, in bytes that escape to one, two, six and seven:
    // through the budget's edge, kept whole or cut as when counted exactly.
    for unit in ["a", "\"", "\n", "\u{1}"] {
        for n in (0..700).step_by(3) {
            let p = Problem::new("p", Rejected::Shown(unit.repeat(n / 4)), "is wrong")
                .with_accepted(unit.repeat(n))
                .with_fix(unit.repeat(n / 2));
            let refusal = Refusal { code: codes::VALIDATION_ERROR, problems: vec![p], retry_after: None };
            let (message, hints) = refusal.clone().rendered();
            let message = message.unwrap_or_else(|| hints.sentences());
            let (reference, kept) = rendered_reference(refusal);
            assert_eq!(message, reference, "{unit:?} x {n}");
            assert_eq!(hints, Hints::Problems { problems: kept, retry_after_ms: None }, "{unit:?} x {n}");
        }
    }
}

/// Problems carried by others (a nested object's) come out as one list in reading order: each
/// problem, then those it carries, at any depth; the usual nesting (one problem carrying flat
/// others) without a new list or a reallocation.
#[test]
fn carried_problems_come_out_flat_in_order() {
    let named = |name: &'static str| Problem::new(name, Rejected::Missing, "is missing");
    let carrying = |name: &'static str, also: Vec<Problem>| {
        let mut p = named(name);
        p.0.also = also;
        p
    };
    let names = |r: &Refusal| r.problems.iter().map(|p| p.0.parameter.to_string()).collect::<Vec<_>>();

    // One carrying flat others: its list, with room for it, is the refusal's.
    let mut also = Vec::with_capacity(3);
    also.extend([named("b"), named("c")]);
    let r = Refusal::from_problems(vec![carrying("a", also)]);
    assert_eq!(names(&r), ["a", "b", "c"]);
    assert_eq!(r.problems.capacity(), 3);
    assert!(r.problems.iter().all(|p| p.0.also.is_empty()));

    // Deeper, and more than one at the top: every problem once, each before those it carries.
    let deep = vec![
        carrying("a", vec![carrying("b", vec![named("c")]), named("d")]),
        named("e"),
        carrying("f", vec![named("g")]),
    ];
    let r = Refusal::from_problems(deep);
    assert_eq!(names(&r), ["a", "b", "c", "d", "e", "f", "g"]);
    assert_eq!(r.problems.capacity(), 7);
    assert!(r.problems.iter().all(|p| p.0.also.is_empty()));

    // Flat already: kept as it is.
    let r = Refusal::from_problems(vec![named("a"), named("b")]);
    assert_eq!(names(&r), ["a", "b"]);
}
