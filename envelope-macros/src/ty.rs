//! What a Rust parameter type is to the rules: its [`Kind`], read from the type as written
//! (the macro sees tokens, not resolved types), and the other questions asked of a type as
//! written (`Option<T>`'s `T`, a `Vec`'s item, a `Result`'s error). Shared by the rule table
//! (`rules`), the checks (`check`) and the expansion (`expand`); it depends on none of them.

use syn::{GenericArgument, PathArguments, Type};

/// The JSON shape a Rust parameter type reads as.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Int { min: i128, max: i128, name: &'static str },
    Float,
    Bool,
    Str,
    Array,
    Other,
}

impl Kind {
    pub fn words(self) -> &'static str {
        match self {
            Kind::Int { .. } => "an integer",
            Kind::Float => "a float",
            Kind::Bool => "a bool",
            Kind::Str => "a string",
            Kind::Array => "a Vec",
            Kind::Other => "this type",
        }
    }
}

/// `Option<T>` → `Some(T)`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    let prefix: Vec<String> = tp.path.segments.iter().rev().skip(1).map(|s| s.ident.to_string()).collect();
    let std_path = prefix.is_empty()
        || (prefix.len() == 2 && prefix[0] == "option" && (prefix[1] == "std" || prefix[1] == "core"));
    if seg.ident != "Option" || !std_path || tp.qself.is_some() {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    match args.args.first()? {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// What `ty` reads as, by the last segment of its path (`std::string::String` is a string).
pub fn kind_of(ty: &Type) -> Kind {
    let Type::Path(tp) = ty else { return Kind::Other };
    let Some(seg) = tp.path.segments.last() else { return Kind::Other };
    let name = seg.ident.to_string();
    macro_rules! int {
        ($($t:ident),*) => {
            match name.as_str() {
                $(stringify!($t) => return Kind::Int { min: $t::MIN as i128, max: $t::MAX as i128, name: stringify!($t) },)*
                _ => {}
            }
        };
    }
    int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, usize);
    if name == "u128" {
        return Kind::Int { min: 0, max: i128::MAX, name: "u128" };
    }
    match name.as_str() {
        "f32" | "f64" => Kind::Float,
        "bool" => Kind::Bool,
        "String" => Kind::Str,
        "Vec" => Kind::Array,
        _ => Kind::Other,
    }
}

/// The `Vec<T>` item type.
pub fn vec_item(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    match args.args.first()? {
        GenericArgument::Type(t) if seg.ident == "Vec" => Some(option_inner(t).unwrap_or(t)),
        _ => None,
    }
}

/// What `each(...)` applies to in `ty`: a `Vec<T>`'s item, or the value `T` of a map with
/// `String` keys (`BTreeMap<String, T>`, `HashMap<String, T>`, any hasher); `Option` taken off
/// the item as [`vec_item`] does.
pub fn each_item(ty: &Type) -> Option<&Type> {
    if let Some(item) = vec_item(ty) {
        return Some(item);
    }
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    if seg.ident != "BTreeMap" && seg.ident != "HashMap" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let (key, value) = (types.next()?, types.next()?);
    is_named(key, "String").then(|| option_inner(value).unwrap_or(value))
}

/// `E` of `Result<T, E>`.
pub fn result_error(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let seg = tp.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)
}

/// Whether `ty`'s path ends in `name` (`String`, `std::string::String`).
pub fn is_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == name))
}

/// Whether `ty` is `Box<dyn Trait>`.
pub fn is_boxed_dyn(ty: &Type) -> bool {
    let Type::Path(tp) = ty else { return false };
    let Some(seg) = tp.path.segments.last() else { return false };
    if seg.ident != "Box" {
        return false;
    }
    matches!(&seg.arguments, PathArguments::AngleBracketed(a) if a.args.iter().any(|g| matches!(g, GenericArgument::Type(Type::TraitObject(_)))))
}
