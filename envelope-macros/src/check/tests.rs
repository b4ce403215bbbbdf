use syn::Type;

use super::check;
use super::range::check_range;
use super::value_rules::check_rules;
use crate::model::{Format, LengthUnit};
use crate::rules::ByTrait;
use crate::ty::kind_of;

/// `check_range` on what `#[validate(...)]` parses to, for a parameter of type `ty`: the
/// bounds, or every error message.
fn range_of(attr: syn::Attribute, ty: Type) -> Result<String, Vec<String>> {
    let mut errors = crate::diag::Error::accumulator();
    let mut attrs = vec![attr];
    let (v, _) = crate::attr::take_validate(&mut attrs, &mut errors);
    let bounds = v.range.as_ref().and_then(|r| check_range(r, kind_of(&ty), &mut errors));
    match errors.finish() {
        Ok(()) => Ok(format!("{:?}", bounds.expect("bounds when there is no error"))),
        Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
    }
}

/// Parse and check of `#[tool(args)]` on `item`, in process: every error message.
fn tool_errors(args: proc_macro2::TokenStream, item: syn::ItemFn) -> Vec<String> {
    let mut errors = crate::diag::Error::accumulator();
    let raw = crate::attr::parse(args, item, false, &mut errors);
    check(&raw, &mut errors);
    errors.finish().err().map(|e| e.into_iter().map(|e| e.to_string()).collect()).unwrap_or_default()
}

#[test]
fn three_mistakes_in_one_tool_are_three_errors_in_order() {
    let errors = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Reports.
            fn report(
                #[validate(rnage = 1..=720)] hours_back: u32,
                #[validate(range = 1..=120)] query: String,
                #[validate(range = 1..=100, default = 500)] top: u32,
            ) -> u32 { 0 }
        },
    );
    assert_eq!(
        errors,
        [
            "unknown rule `rnage`; did you mean `range`?",
            "`range` applies to integer and float parameters, and this one is a string; for a length write `length = 1..=120`",
            "the default 500 is outside this parameter's `range`: a caller who leaves it out would get a value the tool refuses",
        ]
    );
}

#[test]
fn rules_across_parameters_are_checked_against_the_tool() {
    let errors = tool_errors(
        quote::quote!(rename_all = "camelcase"),
        syn::parse_quote! {
            /// Pages.
            fn page(
                #[validate(requires = "page_sise", excludes = "cursor")] cursor: Option<String>,
                page_size: Option<u32>,
            ) -> bool { true }
        },
    );
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].ends_with("did you mean `camelCase`?"), "{errors:?}");
    assert_eq!(
        errors[1],
        "`page_sise` is not a parameter of this tool (parameters: cursor, page_size); did you mean `page_size`?"
    );
    assert_eq!(errors[2], "a parameter cannot require or exclude itself: name another parameter");
    let fine = tool_errors(
        quote::quote!(read_only),
        syn::parse_quote! {
            /// Pages.
            fn page(#[validate(requires = "page_size")] cursor: Option<String>, page_size: Option<u32>) -> bool { true }
        },
    );
    assert!(fine.is_empty(), "{fine:?}");
}

#[test]
fn named_bounds_become_the_same_model_as_a_rust_range() {
    let named = range_of(syn::parse_quote!(#[validate(range(min = 1, max = 720))]), syn::parse_quote!(u32));
    let rust = range_of(syn::parse_quote!(#[validate(range = 1..=720)]), syn::parse_quote!(u32));
    assert_eq!(named, rust);
    assert_eq!(named, Ok("(Incl(Int(1)), Incl(Int(720)))".to_owned()));
    assert_eq!(
        range_of(syn::parse_quote!(#[validate(range(exclusive_min = 0.0, max = 1))]), syn::parse_quote!(f64)),
        Ok("(Excl(Float(0.0)), Incl(Float(1.0)))".to_owned())
    );
    assert_eq!(
        range_of(syn::parse_quote!(#[validate(range(exclusive_max = 10))]), syn::parse_quote!(i64)),
        Ok("(Unbounded, Excl(Int(10)))".to_owned())
    );
}

#[test]
fn every_mistake_in_one_range_is_reported() {
    let errors = range_of(
        syn::parse_quote!(#[validate(range(min = 0, exclusive_min = 1, max = 5, exclusive_max = 6))]),
        syn::parse_quote!(u32),
    )
    .unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("give one lower bound"), "{errors:?}");
    assert!(errors[1].starts_with("give one upper bound"), "{errors:?}");
    let errors = range_of(
        syn::parse_quote!(#[validate(range(maximum = 1, exclusiveMinimum = 0, max = 2, max = 3))]),
        syn::parse_quote!(u32),
    )
    .unwrap_err();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].contains("unknown `range` key `maximum`; did you mean `max`?"), "{errors:?}");
    assert!(errors[1].contains("unknown `range` key `exclusiveMinimum`; did you mean `exclusive_min`?"), "{errors:?}");
    assert!(errors[2].contains("`max` is given twice"), "{errors:?}");
}

/// `check_rules` on `#[validate(...)]` for a value of type `ty`: the checked `multiple_of`
/// and the types left to a trait bound, or every error message.
fn multiple_of(attr: syn::Attribute, ty: Type) -> Result<(Option<String>, Vec<&'static str>), Vec<String>> {
    let mut errors = crate::diag::Error::accumulator();
    let mut attrs = vec![attr];
    let (v, _) = crate::attr::take_validate(&mut attrs, &mut errors);
    let rules = check_rules(&v, &ty, &mut errors);
    match errors.finish() {
        Ok(()) => Ok((
            rules.multiple_of.map(|m| format!("{:?}", m.value)),
            rules.by_trait.iter().map(|b| if b.bound == ByTrait::Numeric { b.rule } else { "?" }).collect(),
        )),
        Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
    }
}

#[test]
fn multiple_of_is_a_step_above_zero_of_the_type() {
    assert_eq!(
        multiple_of(syn::parse_quote!(#[validate(multiple_of = 5)]), syn::parse_quote!(u32)),
        Ok((Some("Int(5)".to_owned()), vec![]))
    );
    assert_eq!(
        multiple_of(syn::parse_quote!(#[validate(multiple_of = 2)]), syn::parse_quote!(f64)),
        Ok((Some("Float(2.0)".to_owned()), vec![]))
    );
    let zero = multiple_of(syn::parse_quote!(#[validate(multiple_of = 0)]), syn::parse_quote!(u8)).unwrap_err();
    assert_eq!(zero, ["`multiple_of = 0` gives no step to count by: write a number above 0, like `multiple_of = 5`"]);
    let fraction = multiple_of(syn::parse_quote!(#[validate(multiple_of = 0.5)]), syn::parse_quote!(i64)).unwrap_err();
    assert!(fraction[0].starts_with("0.5 is not a whole number"), "{fraction:?}");
    let text = multiple_of(syn::parse_quote!(#[validate(multiple_of = "5")]), syn::parse_quote!(u8)).unwrap_err();
    assert_eq!(text, ["`multiple_of` is a number above 0, like `multiple_of = 5`"]);
    let string = multiple_of(syn::parse_quote!(#[validate(multiple_of = 5)]), syn::parse_quote!(String)).unwrap_err();
    assert!(string[0].starts_with("`multiple_of` applies to integer and float parameters"), "{string:?}");
}

#[test]
fn a_type_the_macro_cannot_name_is_left_to_a_trait_bound_at_the_rule() {
    assert_eq!(
        multiple_of(syn::parse_quote!(#[validate(range = 1..=720, multiple_of = 5)]), syn::parse_quote!(Hours)),
        Ok((Some("Int(5)".to_owned()), vec!["range", "multiple_of"]))
    );
}

/// `check_rules` on `#[validate(...)]` for a value of type `ty`: each rule left to a trait, as
/// `rule: Trait`, or every error message.
fn left_to(attr: syn::Attribute, ty: Type) -> Result<Vec<String>, Vec<String>> {
    let mut errors = crate::diag::Error::accumulator();
    let mut attrs = vec![attr];
    let (v, _) = crate::attr::take_validate(&mut attrs, &mut errors);
    let rules = check_rules(&v, &ty, &mut errors);
    let mut out: Vec<String> = rules.by_trait.iter().map(|b| format!("{}: {:?}", b.rule, b.bound)).collect();
    if let Some(items) = &rules.items {
        out.extend(
            items
                .by_trait
                .iter()
                .map(|b| format!("each {}: {:?} of {}", b.rule, b.bound, quote::ToTokens::to_token_stream(&b.ty))),
        );
    }
    match errors.finish() {
        Ok(()) => Ok(out),
        Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
    }
}

#[test]
fn the_string_and_array_rules_of_a_type_the_macro_cannot_name_are_left_to_traits() {
    let email = left_to(
        syn::parse_quote!(#[validate(length = ..=254, pattern = "@", format = "email", choices = ["a@b.c"])]),
        syn::parse_quote!(Email),
    );
    assert_eq!(
        email,
        Ok(vec![
            "choices: Textual".to_owned(),
            "length: Measured".to_owned(),
            "pattern: Textual".to_owned(),
            "format: Textual".to_owned(),
        ])
    );
    assert_eq!(
        left_to(syn::parse_quote!(#[validate(byte_length = 1..=9)]), syn::parse_quote!(Code)),
        Ok(vec!["byte_length: Textual".to_owned()])
    );
    // The items of a type the macro cannot name are its `Sequence` impl's item type.
    let tags = left_to(syn::parse_quote!(#[validate(length = 1..=3, each(length = 1..=20))]), syn::parse_quote!(Tags))
        .unwrap();
    assert_eq!(tags[..1], ["length: Measured"]);
    assert!(tags[1].starts_with("each length: Measured of < Tags as :: envelope_core :: "), "{tags:?}");
    assert!(tags[1].ends_with(":: Sequence > :: Item"), "{tags:?}");
    // Without a bound on the items, `each` itself holds the `Sequence` bound.
    let flagged = left_to(syn::parse_quote!(#[validate(each(fix = "Send tags."))]), syn::parse_quote!(Tags));
    assert_eq!(flagged, Ok(vec!["each: Sequence".to_owned()]));
    // Integer choices have no trait to decide them: still refused by the macro.
    assert_eq!(
        left_to(syn::parse_quote!(#[validate(choices = [1, 2])]), syn::parse_quote!(Hours)),
        Err(vec!["`choices` applies to string and integer parameters, and this one is this type".to_owned()])
    );
}

#[test]
fn formats_and_units_are_typed() {
    assert_eq!(Format::from_name("date-time"), Some(Format::DateTime));
    assert_eq!(Format::from_name("datetime"), None);
    assert!(Format::ALL.iter().all(|f| Format::from_name(f.name()) == Some(*f)));
    assert_eq!(LengthUnit::AsTheTypeReads.variant(), "Characters");
    assert_eq!(LengthUnit::Items.variant(), "Items");
}

#[test]
fn a_range_that_holds_nothing_of_the_type_is_refused() {
    let holds_nothing = |attr: syn::Attribute, ty: Type| range_of(attr, ty).unwrap_err().join("\n");
    assert!(
        holds_nothing(syn::parse_quote!(#[validate(range(exclusive_min = 9, max = 9))]), syn::parse_quote!(u8))
            .contains("holds no whole number")
    );
    assert!(
        holds_nothing(syn::parse_quote!(#[validate(range(exclusive_max = 0))]), syn::parse_quote!(u8))
            .contains("leaves no value a `u8` holds")
    );
    assert!(
        holds_nothing(syn::parse_quote!(#[validate(range(min = 2.5, exclusive_max = 2.5))]), syn::parse_quote!(f32))
            .contains("holds no number")
    );
    // Floats lie between any two different bounds, however close.
    assert!(
        range_of(
            syn::parse_quote!(#[validate(range(exclusive_min = 1.0, exclusive_max = 1.0000001))]),
            syn::parse_quote!(f64)
        )
        .is_ok()
    );
}

#[test]
fn mcp_tool_names_are_1_to_128_characters_of_sep_986() {
    use super::mcp_tool_name;
    assert_eq!(mcp_tool_name("db.query-v2_x"), None);
    assert_eq!(mcp_tool_name(&"x".repeat(128)), None);
    assert_eq!(mcp_tool_name(&"x".repeat(129)).as_deref(), Some("it has 129 characters"));
    assert_eq!(mcp_tool_name("").as_deref(), Some("it is empty"));
    assert_eq!(mcp_tool_name("get weather").as_deref(), Some("' ' is not one of its characters"));
    assert_eq!(mcp_tool_name("météo").as_deref(), Some("'é' is not one of its characters"));
    assert_eq!(mcp_tool_name("a:b").as_deref(), Some("':' is not one of its characters"));
}

#[test]
fn a_tool_without_a_description_is_one_error_saying_what_to_write() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn weather(city: String) -> String { city }
    };
    assert_eq!(
        tool_errors(quote::quote!(), item.clone()),
        [
            "this tool has no description, and the model reads one to choose it: write a doc comment above the function (`/// Reads the weather of a city.`), or `#[tool(description = \"Reads the weather of a city.\")]`"
        ]
    );
    assert!(tool_errors(quote::quote!(description = "Reads the weather of a city."), item).is_empty());
}

#[test]
fn a_required_value_the_other_parameter_never_takes_is_refused_at_the_literal() {
    let errors = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Reports.
            fn report(
                #[validate(requires(count = 500, state = "HOURLY"))] a: Option<String>,
                #[validate(requires(step = 20, code = "ABCDE", when = "deep"))] b: Option<String>,
                #[validate(requires(small = -1, ratio = 0.0))] c: Option<String>,
                #[validate(range = 1..=100)] count: Option<u32>,
                #[validate(choices = ["ALL", "HOURLY_ALL"])] state: Option<String>,
                #[validate(multiple_of = 15)] step: Option<u32>,
                #[validate(length = 2..=4)] code: Option<String>,
                small: Option<u8>,
                #[validate(range(exclusive_min = 0.0, max = 1.0))] ratio: Option<f64>,
            ) -> bool { true }
        },
    );
    assert_eq!(
        errors,
        [
            "`count` accepts 1..=100 (its `range`): requiring 500 would refuse every call that sends `a`; require a value in that range",
            "`state` accepts \"ALL\", \"HOURLY_ALL\" (its `choices`): requiring \"HOURLY\" would refuse every call that sends `a`; require one of them",
            "`step` accepts multiples of 15 (its `multiple_of`): requiring 20 would refuse every call where `b` is \"deep\"; require a multiple of 15",
            "`code` accepts 2 to 4 characters (its `length`): requiring \"ABCDE\" (5 characters) would refuse every call where `b` is \"deep\"; require a value of that length",
            "`small` accepts 0 to 255 (it is a `u8`): requiring -1 would refuse every call that sends `c`; require a value in that range",
            "`ratio` accepts above 0.0 and up to 1.0 (its `range`): requiring 0.0 would refuse every call that sends `c`; require a value in that range",
        ]
    );
}

#[test]
fn a_when_the_parameter_never_takes_is_refused_at_the_literal() {
    let errors = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Reports.
            fn report(
                #[validate(range = 1..=720, requires(other, when = 900))] hours: Option<u32>,
                #[validate(choices = [10, 20], requires(other, when = 30))] size: Option<u32>,
                #[validate(byte_length = ..=4, requires(other, when = "héllo"))] tag: Option<String>,
                other: Option<u32>,
            ) -> bool { true }
        },
    );
    assert_eq!(
        errors,
        [
            "`hours` accepts 1..=720 (its `range`): with `when` 900 this rule would never apply; make `when` a value in that range",
            "`size` accepts 10, 20 (its `choices`): with `when` 30 this rule would never apply; make `when` one of them",
            "`tag` accepts at most 4 bytes (its `byte_length`): with `when` \"héllo\" (6 bytes) this rule would never apply; make `when` a value of that length",
        ]
    );
}

#[test]
fn values_the_rules_accept_compile_and_a_secret_is_never_quoted() {
    // The range's ends, a float step within rounding, a case-only difference under
    // `ignore_case` (a cross-field rule compares without case).
    let fine = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Reports.
            fn report(
                #[validate(range = 1..=100, requires(ratio = 0.3, state = "hourly_all", when = 100))] count: Option<u32>,
                #[validate(multiple_of = 0.1, requires(count = 1))] ratio: Option<f64>,
                #[validate(choices = ["ALL", "HOURLY_ALL"], ignore_case, requires(count = 1, when = "all"))] state: Option<String>,
            ) -> bool { true }
        },
    );
    assert!(fine.is_empty(), "{fine:?}");
    // A default is given to the function as written: there a case-only difference is refused.
    let default = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Reports.
            fn report(#[validate(choices = ["ALL"], ignore_case, default = "all")] state: String) -> bool { true }
        },
    );
    assert_eq!(default, ["the default \"all\" is not one of the `choices`"]);
    // Requiring a value of a secret is its own error, once; the value is not quoted.
    let secret = tool_errors(
        quote::quote!(),
        syn::parse_quote! {
            /// Logs in.
            fn login(
                #[validate(requires(pin = "12345"))] mode: Option<String>,
                #[validate(secret, length = ..=4)] pin: Option<String>,
            ) -> bool { true }
        },
    );
    assert_eq!(secret.len(), 1, "{secret:?}");
    assert!(secret[0].starts_with("`pin` is `secret`"), "{secret:?}");
    assert!(!secret[0].contains("12345"), "{secret:?}");
}
