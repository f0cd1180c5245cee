//! Unknown keys in an instance JSON: a typo of a known key is refused, any
//! other unknown key is a warning.
//!
//! copyspace-guard files may carry extra metadata, so unknown keys cannot
//! simply be errors; but `"port": 2` or a per-demand `"bw"` silently
//! ignored gives a wrong instance that solves without complaint. A key
//! close to a known one (edit distance, or one of its `_`-separated word
//! runs: `copy_bw`, `bw`) is taken for a typo and refused with a "did you
//! mean"; the rest are returned as warnings for the caller to show.

use super::csv_meta::{RecordedMachine, RecordedValue, GPUS_PER_NODE_KEY, NVLINK_SPEEDUP_KEY};
use super::InputError;
use serde_json::{Map, Value};

/// The keys of an instance object. `gpus_per_node` and `nvlink_speedup`
/// describe the two-tier machine of a relay plan (issue 52); the instance
/// reader checks them and returns them with the instance
/// ([`recorded_machine`]), where the relay commands find them
/// (`cli::relay_cmd`).
pub const INSTANCE_KEYS: [&str; 11] = [
    "version",
    "model",
    "slots",
    "copy_bw_bits_per_tick",
    "demands",
    "ports",
    "id",
    "notes",
    "cost",
    "gpus_per_node",
    "nvlink_speedup",
];

/// The keys of the `"cost"` object (doc/design.md §12).
pub const COST_KEYS: [&str; 2] = ["alpha_us", "link_gbps"];

/// The keys of a demand object.
pub const DEMAND_KEYS: [&str; 4] = [
    "src_slot",
    "dst_slot",
    "bits_total",
    "copy_bw_bits_per_tick",
];

/// The two-tier machine an instance object records in its keys
/// `"gpus_per_node"` and `"nvlink_speedup"`: each, where present, an
/// integer from 1 to `u32::MAX`, else an error naming the key and the
/// value.
pub fn recorded_machine(obj: &Map<String, Value>) -> Result<RecordedMachine, InputError> {
    let read = |key: &str| -> Result<Option<RecordedValue>, InputError> {
        let Some(v) = obj.get(key) else {
            return Ok(None);
        };
        let value = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                InputError::new(format!(
                    "\"{key}\" is {v}: expected an integer from 1 to {}",
                    u32::MAX
                ))
            })?;
        Ok(Some(RecordedValue { value, line: None }))
    };
    Ok(RecordedMachine {
        gpus_per_node: read(GPUS_PER_NODE_KEY)?,
        nvlink_speedup: read(NVLINK_SPEEDUP_KEY)?,
    })
}

/// The known key `unknown` is probably a typo of, if any.
pub fn close_key<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let u = unknown.trim().to_ascii_lowercase();
    if u.is_empty() {
        return None;
    }
    // A known key's run of whole words (`copy_bw`, `bw`, `bits`, `src`).
    let words = |k: &str| -> bool {
        let parts: Vec<&str> = k.split('_').collect();
        (0..parts.len()).any(|i| (i + 1..=parts.len()).any(|j| parts[i..j].join("_") == u))
    };
    let by_words = known.iter().find(|k| words(k));
    if let Some(k) = by_words {
        return Some(k);
    }
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&u, k), *k))
        .filter(|&(d, k)| d >= 1 && d <= (k.len() / 4).max(1))
        .min()
        .map(|(_, k)| k)
}

/// Checks `obj`'s keys against `known` (`path`: the object's place in the
/// file, "" for the root). A likely typo is an error; other unknown keys
/// are pushed to `warnings`.
pub fn check_keys(
    obj: &Map<String, Value>,
    known: &[&str],
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<(), InputError> {
    for key in obj.keys() {
        if known.contains(&key.as_str()) {
            continue;
        }
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match close_key(key, known) {
            Some(k) => {
                return Err(InputError::field(
                    &at,
                    format!("unknown key {key:?}: did you mean `{k}`?"),
                ))
            }
            None => warnings.push(format!("unknown key {at:?} ignored")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_close_metadata_is_not() {
        assert_eq!(close_key("port", &INSTANCE_KEYS), Some("ports"));
        assert_eq!(
            close_key("copy_bw", &INSTANCE_KEYS),
            Some("copy_bw_bits_per_tick")
        );
        assert_eq!(close_key("slot", &INSTANCE_KEYS), Some("slots"));
        assert_eq!(close_key("bw", &DEMAND_KEYS), Some("copy_bw_bits_per_tick"));
        assert_eq!(close_key("src", &DEMAND_KEYS), Some("src_slot"));
        assert_eq!(close_key("bits_totl", &DEMAND_KEYS), Some("bits_total"));
        assert_eq!(close_key("alpha", &COST_KEYS), Some("alpha_us"));
        assert_eq!(close_key("link_gbs", &COST_KEYS), Some("link_gbps"));
        assert_eq!(close_key("costs", &INSTANCE_KEYS), Some("cost"));
        for meta in ["description", "created_by", "generator", "name", "tags"] {
            assert_eq!(close_key(meta, &INSTANCE_KEYS), None, "{meta}");
        }
    }

    #[test]
    fn the_machine_keys_are_read_and_checked() {
        let obj = |text: &str| -> Map<String, Value> { serde_json::from_str(text).unwrap() };
        let m = recorded_machine(&obj(r#"{"gpus_per_node": 8, "nvlink_speedup": 4}"#)).unwrap();
        assert_eq!(m.gpus_per_node.map(|r| (r.value, r.line)), Some((8, None)));
        assert_eq!(m.nvlink_speedup.map(|r| (r.value, r.line)), Some((4, None)));
        let none = recorded_machine(&obj(r#"{"notes": "gpus_per_node=8"}"#)).unwrap();
        assert_eq!(none, RecordedMachine::default());
        let max = recorded_machine(&obj(r#"{"gpus_per_node": 4294967295}"#)).unwrap();
        assert_eq!(max.gpus_per_node.map(|r| r.value), Some(u32::MAX));
        for (text, said) in [
            (r#"{"nvlink_speedup": 0}"#, r#""nvlink_speedup" is 0"#),
            (r#"{"gpus_per_node": -2}"#, r#""gpus_per_node" is -2"#),
            (r#"{"gpus_per_node": 2.5}"#, r#""gpus_per_node" is 2.5"#),
            (r#"{"gpus_per_node": "8"}"#, r#""gpus_per_node" is "8""#),
            (r#"{"nvlink_speedup": null}"#, r#""nvlink_speedup" is null"#),
            (
                r#"{"nvlink_speedup": 4294967296}"#,
                r#""nvlink_speedup" is 4294967296"#,
            ),
        ] {
            let e = recorded_machine(&obj(text)).unwrap_err().to_string();
            assert!(
                e.starts_with(said) && e.ends_with("expected an integer from 1 to 4294967295"),
                "{text}: {e}"
            );
        }
    }
}
