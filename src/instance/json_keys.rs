//! Unknown keys in an instance JSON: a typo of a known key is refused, any
//! other unknown key is a warning.
//!
//! copyspace-guard files may carry extra metadata, so unknown keys cannot
//! simply be errors; but `"port": 2` or a per-demand `"bw"` silently
//! ignored gives a wrong instance that solves without complaint. A key
//! close to a known one (edit distance, or one of its `_`-separated word
//! runs: `copy_bw`, `bw`) is taken for a typo and refused with a "did you
//! mean"; the rest are returned as warnings for the caller to show.

use super::InputError;
use serde_json::{Map, Value};

/// The keys of an instance object. `gpus_per_node` and `nvlink_speedup`
/// describe the two-tier machine of a relay plan (issue 52); the instance
/// reader accepts them and the relay command reads them
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
}
