//! Strict JSON reading, which every tickopt JSON reader goes through
//! ([`parse_json_value`], [`StrictValue`], [`StrictIgnore`]): a duplicate
//! key in any object is refused with its line and key (JSON leaves its
//! meaning open, and two readers that keep different copies reach opposite
//! verdicts on the same file), and a leading UTF-8 byte-order mark is
//! skipped. Also the integer values every reader takes
//! ([`value_as_uint`]). The instance readers ([`super::json_input`] and
//! its fast path [`super::json_fast`]) and the schedule readers share it;
//! it imports neither.

use super::InputError;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;

/// The UTF-8 byte-order mark some editors put at the start of a file.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// Prefix of the message of a duplicate-key error, to recognise it.
const DUPLICATE_KEY: &str = "duplicate key ";

pub(crate) fn duplicate_key<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("{DUPLICATE_KEY}{key:?}"))
}

/// A [`serde_json::Value`] whose objects are refused when a key repeats.
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictValueVisitor).map(StrictValue)
    }
}

struct StrictValueVisitor;

impl<'de> Visitor<'de> for StrictValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(duplicate_key(&key));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Skips any JSON value (like [`serde::de::IgnoredAny`]), refusing
/// duplicate keys in its objects; keeps only the keys of open objects.
pub struct StrictIgnore;

impl<'de> Deserialize<'de> for StrictIgnore {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictIgnoreVisitor)
    }
}

struct StrictIgnoreVisitor;

impl<'de> Visitor<'de> for StrictIgnoreVisitor {
    type Value = StrictIgnore;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_i64<E>(self, _: i64) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_u64<E>(self, _: u64) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_f64<E>(self, _: f64) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_str<E>(self, _: &str) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_unit<E>(self) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_none<E>(self) -> Result<StrictIgnore, E> {
        Ok(StrictIgnore)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<StrictIgnore, D::Error> {
        StrictIgnore::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictIgnore, A::Error> {
        while seq.next_element::<StrictIgnore>()?.is_some() {}
        Ok(StrictIgnore)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictIgnore, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(duplicate_key(&key));
            }
            seen.insert(key);
            map.next_value::<StrictIgnore>()?;
        }
        Ok(StrictIgnore)
    }
}

/// A serde_json error as an [`InputError`]: `what` leads the message; a
/// duplicate key becomes a refusal naming the key as the field, with its
/// line.
pub(crate) fn json_error(e: &serde_json::Error, what: &str) -> InputError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&suffix).unwrap_or(&full);
    let err = match msg.strip_prefix(DUPLICATE_KEY) {
        Some(key) => InputError::field(
            key.trim_matches('"'),
            format!(
                "duplicate key {key} at column {} (readers disagree on which copy counts, so tickopt refuses it)",
                e.column()
            ),
        ),
        None => InputError::new(format!("{what}: {full}")),
    };
    if e.line() > 0 {
        err.at_line(e.line() as u64)
    } else {
        err
    }
}

/// Parses a JSON document (a leading UTF-8 byte-order mark skipped),
/// refusing duplicate keys anywhere in it. Errors carry the line.
pub fn parse_json_value(bytes: &[u8]) -> Result<Value, InputError> {
    serde_json::from_slice::<StrictValue>(strip_bom(bytes))
        .map(|v| v.0)
        .map_err(|e| json_error(&e, "invalid JSON"))
}

/// A JSON value as a non-negative integer, or an error naming `path`.
pub(crate) fn value_as_uint(v: &Value, path: &str) -> Result<u64, InputError> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(u)
            } else if n.as_i64().is_some() {
                Err(InputError::field(
                    path,
                    format!(
                        "{n} is negative; expected an integer >= {}",
                        super::csv_cells::least_value(path)
                    ),
                ))
            } else {
                Err(InputError::field(
                    path,
                    format!("{n} is not an integer within 0..=2^64-1"),
                ))
            }
        }
        other => Err(InputError::field(
            path,
            format!("expected an integer, got {}", type_name(other)),
        )),
    }
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A JSON object text from (key, value) pairs, keys possibly repeated.
    fn object(pairs: &[(String, i64)], nested: bool) -> String {
        let body: Vec<String> = pairs
            .iter()
            .map(|(k, v)| {
                if nested {
                    format!("\n{k:?}: [{{\"v\": {v}}}, null, true, 1.5, \"s\"]")
                } else {
                    format!("\n{k:?}: {v}")
                }
            })
            .collect();
        format!("{{{}\n}}", body.join(","))
    }

    proptest! {
        /// Without repeated keys the strict reader reads what serde_json
        /// reads; with one, it refuses the first repeat, naming its key and
        /// line (one pair per line, the object opening on line 1).
        #[test]
        fn strict_reading_matches_serde_json_or_names_the_repeat(
            pairs in proptest::collection::vec(("[a-d]{1,2}", any::<i64>()), 0..8),
            nested in any::<bool>(),
            bom in any::<bool>(),
        ) {
            let text = object(&pairs, nested);
            let bytes = if bom { [UTF8_BOM, text.as_bytes()].concat() } else { text.clone().into_bytes() };
            let first_repeat = pairs
                .iter()
                .enumerate()
                .find(|(i, (k, _))| pairs[..*i].iter().any(|(k2, _)| k2 == k));
            match (parse_json_value(&bytes), first_repeat) {
                (Ok(v), None) => {
                    let expect: Value = serde_json::from_str(&text).unwrap();
                    prop_assert_eq!(v, expect);
                }
                (Err(e), Some((i, (k, _)))) => {
                    prop_assert_eq!(e.field.as_deref(), Some(k.as_str()));
                    prop_assert_eq!(e.line, Some(i as u64 + 2));
                }
                (r, rep) => prop_assert!(false, "{:?} for repeat {:?}", r, rep),
            }
        }
    }

    #[test]
    fn duplicates_deep_inside_ignored_values_are_refused_too() {
        let text = br#"{"a": [1, {"b": {"c": 1, "c": 2}}]}"#;
        let mut de = serde_json::Deserializer::from_slice(text);
        let e = StrictIgnore::deserialize(&mut de).err().unwrap();
        assert!(json_error(&e, "x")
            .to_string()
            .contains("duplicate key \"c\""));
        let ok = br#"{"a": [1, {"b": {"c": 1, "d": 2}}], "c": 3}"#;
        let mut de = serde_json::Deserializer::from_slice(ok);
        assert!(StrictIgnore::deserialize(&mut de).is_ok());
    }
}
