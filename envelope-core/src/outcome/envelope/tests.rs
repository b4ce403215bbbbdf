use super::*;

#[test]
fn an_answer_is_written_as_serialized_and_read_as_a_value() {
    let answer = vec![("orders", 1290_u64, 0.5_f64), ("\"q\"", 1, f64::NAN)];
    let env = Envelope::ok_serialized(&answer).unwrap();
    let expect = serde_json::json!([["orders", 1290, 0.5], ["\"q\"", 1, null]]);
    assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":[["orders",1290,0.5],["\"q\"",1,null]]}"#);
    assert_eq!(env.to_json(), Envelope::ok(expect.clone()).to_json());
    // Written straight, the bytes its `Serialize` writes; with a warning too.
    assert_eq!(env.to_json(), serde_json::to_string(&env).unwrap());
    let warned = env.clone().with_warning("stale \"cache\"");
    assert_eq!(warned.to_json(), serde_json::to_string(&warned).unwrap());
    let traced = warned.clone().with_provenance(serde_json::json!({"call_id": "c1", "at": [1, 2]}));
    assert_eq!(traced.to_json(), serde_json::to_string(&traced).unwrap());
    assert!(traced.to_json().ends_with(r#""warning":"stale \"cache\"","provenance":{"call_id":"c1","at":[1,2]}}"#));
    assert!(warned.to_json().ends_with(r#","warning":"stale \"cache\""}"#), "{}", warned.to_json());
    assert_eq!(env.data(), Some(&expect));
    assert_eq!(env.to_value(), Envelope::ok(expect.clone()).to_value());
    assert_eq!(env, Envelope::ok(expect));
    // The text written with the answer is given as it is, borrowed or moved; with a warning
    // or in another wire format it is written anew, the same bytes as `to_json`.
    assert!(matches!(env.json(), std::borrow::Cow::Borrowed(_)));
    assert_eq!(env.json(), env.to_json());
    assert_eq!(env.clone().into_json(), env.to_json());
    assert!(matches!(warned.json(), std::borrow::Cow::Owned(_)));
    assert_eq!(warned.json(), warned.to_json());
    assert_eq!(warned.clone().into_json(), warned.to_json());
    let flagged = env.clone().with_wire_format(WireFormat::SuccessFlag);
    assert!(flagged.to_json().contains(r#"["orders",1290,0.5]"#), "{}", flagged.to_json());
    assert_eq!(flagged.json(), flagged.to_json());
    assert_eq!(flagged.clone().into_json(), flagged.to_json());
    let refused = Envelope::from(crate::Fault::backend("the store"));
    assert_eq!(refused.clone().into_json(), refused.to_json());
    assert_eq!(refused.to_json(), serde_json::to_string(&refused).unwrap());
}

#[test]
fn an_answer_of_any_shape_is_written_as_serde_json_writes_it() {
    // Strings that need escapes, numbers past 64 bits' doubles, nesting, empty containers.
    let answers = [
        serde_json::json!("line\nbreak \"quoted\" \u{1} \u{2028}"),
        serde_json::json!({"a": {"b": [1, -2, 3.5e300, null, true]}, "": {}, "c": []}),
        serde_json::json!(u64::MAX),
        serde_json::json!(i64::MIN),
        serde_json::json!(null),
    ];
    for answer in answers {
        let env = Envelope::ok_serialized(&answer).unwrap();
        let expect = format!(r#"{{"status":"ok","success":true,"data":{}}}"#, serde_json::to_string(&answer).unwrap());
        assert_eq!(env.to_json(), expect);
        assert_eq!(serde_json::to_string(&env).unwrap(), expect);
        assert_eq!(env.data(), Some(&answer));
        assert_eq!(env.into_json(), expect);
    }
}

#[test]
fn a_warned_answer_is_unwrapped() {
    let env = Envelope::ok_serialized(&Warned::new(vec![1, 2], "stale by 5 minutes")).unwrap();
    assert_eq!(env.to_json(), r#"{"status":"ok","success":true,"data":[1,2],"warning":"stale by 5 minutes"}"#);
    let keys: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
    assert!(Envelope::ok_serialized(&keys).is_err());
}
