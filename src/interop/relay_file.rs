//! Relay schedule files (doc/formats.md, "Relay schedule") among the
//! schedule files tickopt reads: recognising one by its top-level
//! `"kind": "relay_schedule"`, and reading it.
//!
//! Recognising reads the top level of a JSON object key by key and stops
//! at the first key that decides: `kind` (its value), a `ticks` array or a
//! key a relay schedule does not have (`format`, `model`, `rounds`...: a
//! direct schedule). A CSV, a compact or a copyspace-guard schedule is
//! decided within its first bytes; only a relay schedule, whose writer
//! puts `chunks` before `kind`, is read through.

use crate::instance::json_strict::parse_json_value;
use crate::instance::InputError;
use crate::relay::schedule::KIND;
use crate::relay::RelaySchedule;
use crate::schedule::readers::{io_err, sniff};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Whether the file at `path` is a relay schedule (module docs). A file
/// that is not JSON, or not an object, is not one (its own reader words
/// what is wrong with it).
pub fn is_relay_schedule_file(path: &Path) -> Result<bool, InputError> {
    if sniff(path)? != Some(b'{') {
        return Ok(false);
    }
    let file = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    if reader
        .fill_buf()
        .map_err(|e| io_err(path, e))?
        .starts_with(b"\xEF\xBB\xBF")
    {
        reader.consume(3);
    }
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut found = None;
    // The probe stops with an error once a key decides; `found` says what.
    let _ = de::Deserializer::deserialize_map(&mut de, Probe { found: &mut found });
    Ok(found == Some(true))
}

/// Reads a relay schedule file (strict JSON: repeated keys refused);
/// errors name the file and the field or chunk.
pub fn read_relay_schedule_file(path: &Path) -> Result<RelaySchedule, InputError> {
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    let value = parse_json_value(&bytes).map_err(|e| e.in_file(path.display().to_string()))?;
    RelaySchedule::from_json(value).map_err(|e| {
        InputError::new(format!("relay schedule: {e}")).in_file(path.display().to_string())
    })
}

/// The error a probe stops with once it has decided.
const DECIDED: &str = "decided";

/// Reads top-level keys until one decides (module docs).
struct Probe<'a> {
    found: &'a mut Option<bool>,
}

impl<'de> Visitor<'de> for Probe<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "kind" => {
                    let kind: serde_json::Value = map.next_value()?;
                    *self.found = Some(kind.as_str() == Some(KIND));
                    return Err(de::Error::custom(DECIDED));
                }
                "ticks" => map.next_value_seed(NotAnArray {
                    found: &mut *self.found,
                })?,
                "version" | "chunks" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    *self.found = Some(false);
                    return Err(de::Error::custom(DECIDED));
                }
            }
        }
        *self.found = Some(false);
        Ok(())
    }
}

/// A `ticks` value: a number goes on; an array decides "direct schedule"
/// at its first bracket, without reading it.
struct NotAnArray<'a> {
    found: &'a mut Option<bool>,
}

impl<'de> DeserializeSeed<'de> for NotAnArray<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NotAnArray<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tick count")
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        *self.found = Some(false);
        Err(de::Error::custom(DECIDED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(text: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        std::fs::write(&p, text).unwrap();
        is_relay_schedule_file(&p).unwrap()
    }

    #[test]
    fn relay_schedules_are_told_from_direct_ones_by_their_kind() {
        let relay = r#"{"chunks":[{"demand":0,"chunk":0,"hops":[[0,0,1]]}],"kind":"relay_schedule","ticks":1,"version":0}"#;
        assert!(probe(relay));
        assert!(probe(&format!("\u{feff}{relay}")));
        assert!(probe(
            r#"{"version":0,"kind":"relay_schedule","ticks":1,"chunks":[]}"#
        ));
        assert!(!probe(
            r#"{"version":0,"kind":"other","ticks":1,"chunks":[]}"#
        ));
        assert!(!probe(
            r#"{"version":0,"model":"STRICT1","ticks":[[[0,1,8]]]}"#
        ));
        assert!(!probe(r#"{"ticks":[[[0,1,8]]],"kind":"relay_schedule"}"#));
        assert!(!probe(
            r#"{"format":"tickopt-compact-v1","model":"STRICT1","rounds":[]}"#
        ));
        assert!(!probe("tick,src_slot,dst_slot,len_bits\n0,0,1,8\n"));
        assert!(!probe("{not json"));
    }
}
