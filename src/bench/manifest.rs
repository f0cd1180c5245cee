//! Instance-set manifests: `manifest.json` beside the instance files.
//!
//! ```json
//! {"version": 1, "set": "demo", "description": "...",
//!  "instances": [{"file": "ring_n8_m1_s0.csv", "name": "ring_n8_m1_s0",
//!    "family": "ring", "parameters": {"n": 8, "mult": 1, "seed": 0},
//!    "bw": 1024, "slots": 8, "models": ["STRICT1", "READ1_WRITE1"],
//!    "known_optimum": {"STRICT1": 2, "READ1_WRITE1": 1},
//!    "known_optimum_reason": {"STRICT1": "...", "READ1_WRITE1": "..."}}]}
//! ```
//!
//! A directory without a manifest is a set too ([`Manifest::from_directory`]):
//! every `*.csv` and `*.json` file in it, each at its own bw (a CSV's
//! recorded `# copy_bw_bits_per_tick=N`, else `--bw` as the fallback).
//!
//! Reading is per entry: one malformed entry is an error naming it while
//! the other entries still load ([`Manifest::load`]). `known_optimum` is
//! given only where a theorem proves it without a solver
//! ([`crate::gen::known_optimum`]).

use crate::instance::Model;
use crate::schedule::writers::write_atomically;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name of a manifest inside a set directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// One instance of a set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Path of the instance file, relative to the manifest's directory.
    pub file: String,
    /// Name in reports (default: the file name without extension).
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub family: String,
    #[serde(default)]
    pub parameters: serde_json::Map<String, Value>,
    /// Bits per chunk (needed for a demands CSV; an instance JSON has its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bw: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    /// Models to run (default: both).
    #[serde(default = "all_models")]
    pub models: Vec<Model>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_optimum: BTreeMap<Model, u64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_optimum_reason: BTreeMap<Model, String>,
}

fn all_models() -> Vec<Model> {
    Model::ALL.to_vec()
}

/// A manifest entry that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadEntry {
    /// `instances[3]` or the entry's `file` when it has one.
    pub label: String,
    pub message: String,
}

/// A loaded manifest: good entries and bad ones, in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub path: PathBuf,
    pub set: String,
    pub description: String,
    pub entries: Vec<Result<ManifestEntry, BadEntry>>,
}

/// A manifest that cannot be read at all.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ManifestError {
    pub path: String,
    pub message: String,
}

impl Manifest {
    /// Directory the entries' files are relative to.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Reads `path` (a `manifest.json`, or a directory holding one).
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let path = if path.is_dir() {
            path.join(MANIFEST_FILE)
        } else {
            path.to_path_buf()
        };
        let fail = |m: String| ManifestError {
            path: path.display().to_string(),
            message: m,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let root: Value = crate::instance::json_strict::parse_json_value(text.as_bytes())
            .map_err(|e| fail(format!("invalid JSON: {e}")))?;
        let obj = root
            .as_object()
            .ok_or_else(|| fail("a manifest must be a JSON object".into()))?;
        let list = obj
            .get("instances")
            .and_then(Value::as_array)
            .ok_or_else(|| fail("missing \"instances\" array".into()))?;
        let default_set = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "set".into());
        let set = obj
            .get("set")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or(default_set);
        let description = obj
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let entries = list
            .iter()
            .enumerate()
            .map(|(i, v)| parse_entry(i, v))
            .collect();
        Ok(Manifest {
            path,
            set,
            description,
            entries,
        })
    }
}

impl Manifest {
    /// A manifest for a directory that has none: one entry per `*.csv` and
    /// `*.json` file directly in `dir` (sorted by name), both models, no
    /// `bw` of its own: each file gives its own (a CSV's
    /// `# copy_bw_bits_per_tick=N` line, an instance JSON's field), and
    /// `bw` (`--bw`) is only the fallback for CSVs that record none;
    /// without it such a CSV is an error here. The family is the file
    /// name up to `_n<digits>` (`tickopt gen`'s naming), else the name.
    pub fn from_directory(dir: &Path, bw: Option<u64>) -> Result<Manifest, ManifestError> {
        let fail = |m: String| ManifestError {
            path: dir.display().to_string(),
            message: m,
        };
        let read = std::fs::read_dir(dir).map_err(|e| fail(format!("cannot read: {e}")))?;
        let mut files = Vec::new();
        for e in read {
            let e = e.map_err(|e| fail(format!("cannot read: {e}")))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
            if is_file && (name.ends_with(".csv") || name.ends_with(".json")) {
                files.push(name);
            }
        }
        files.sort();
        if files.is_empty() {
            return Err(fail(format!(
                "no {MANIFEST_FILE} and no instance files (*.csv, *.json)"
            )));
        }
        if bw == Some(0) {
            return Err(fail("--bw must be > 0".into()));
        }
        if bw.is_none() {
            for csv in files.iter().filter(|f| f.ends_with(".csv")) {
                let head = read_head(&dir.join(csv))
                    .map_err(|e| fail(format!("{csv}: cannot read: {e}")))?;
                match crate::instance::recorded_bw(&head) {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        return Err(fail(format!(
                            "no {MANIFEST_FILE}, and {csv} records no bw (no `# {}=N` line): \
                             give --bw BITS for the demands CSVs that record none",
                            crate::instance::BW_COMMENT_KEY
                        )))
                    }
                    Err(e) => return Err(fail(format!("{csv}: {e}"))),
                }
            }
        }
        let entries = files
            .into_iter()
            .map(|file| {
                let name = Path::new(&file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| file.clone());
                Ok(ManifestEntry {
                    family: family_of_name(&name),
                    bw: None,
                    name,
                    file,
                    parameters: Default::default(),
                    slots: None,
                    models: all_models(),
                    known_optimum: Default::default(),
                    known_optimum_reason: Default::default(),
                })
            })
            .collect();
        let set = dir
            .canonicalize()
            .ok()
            .as_deref()
            .unwrap_or(dir)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "set".into());
        Ok(Manifest {
            path: dir.join(MANIFEST_FILE),
            set,
            description: format!("{} without a manifest", dir.display()),
            entries,
        })
    }
}

/// The first 64 KiB of a file: enough for the comment lines before a
/// demands CSV's header, without reading a large file whole.
fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(64 * 1024)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// `alltoall_n16_m1000_s0` -> `alltoall`; a name without `_n<digit>` is its
/// own family.
fn family_of_name(name: &str) -> String {
    let b = name.as_bytes();
    for i in 0..b.len().saturating_sub(2) {
        if b[i] == b'_' && b[i + 1] == b'n' && b[i + 2].is_ascii_digit() && i > 0 {
            return name[..i].to_string();
        }
    }
    name.to_string()
}

fn parse_entry(i: usize, v: &Value) -> Result<ManifestEntry, BadEntry> {
    let label = v
        .get("file")
        .and_then(Value::as_str)
        .map(|f| format!("instances[{i}] ({f})"))
        .unwrap_or_else(|| format!("instances[{i}]"));
    let bad = |m: String| BadEntry {
        label: label.clone(),
        message: m,
    };
    let mut e: ManifestEntry =
        serde_json::from_value(v.clone()).map_err(|err| bad(format!("bad entry: {err}")))?;
    if e.file.is_empty() {
        return Err(bad("\"file\" is empty".into()));
    }
    if e.models.is_empty() {
        return Err(bad("\"models\" is empty".into()));
    }
    if e.bw == Some(0) {
        return Err(bad("\"bw\" must be > 0".into()));
    }
    if e.name.is_empty() {
        e.name = Path::new(&e.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| e.file.clone());
    }
    Ok(e)
}

/// Adds `entry` to the manifest at `path` (replacing any entry with the
/// same `file`), creating the manifest if needed; entries stay sorted by
/// file name. The file is rewritten atomically.
pub fn upsert_entry(path: &Path, set: &str, entry: ManifestEntry) -> Result<(), ManifestError> {
    let fail = |m: String| ManifestError {
        path: path.display().to_string(),
        message: m,
    };
    let mut root = if path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let v: Value = crate::instance::json_strict::parse_json_value(text.as_bytes())
            .map_err(|e| fail(format!("invalid JSON: {e}")))?;
        match v {
            Value::Object(m) => m,
            _ => return Err(fail("a manifest must be a JSON object".into())),
        }
    } else {
        let mut m = serde_json::Map::new();
        m.insert("version".into(), Value::from(1));
        m.insert("set".into(), Value::from(set));
        m
    };
    let mut list: Vec<Value> = match root.remove("instances") {
        Some(Value::Array(a)) => a,
        None => Vec::new(),
        Some(_) => return Err(fail("\"instances\" must be an array".into())),
    };
    list.retain(|v| v.get("file").and_then(Value::as_str) != Some(entry.file.as_str()));
    list.push(serde_json::to_value(&entry).map_err(|e| fail(e.to_string()))?);
    list.sort_by(|a, b| {
        let f = |v: &Value| {
            v.get("file")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        f(a).cmp(&f(b))
    });
    root.insert("instances".into(), Value::Array(list));
    let text =
        serde_json::to_string_pretty(&Value::Object(root)).map_err(|e| fail(e.to_string()))?;
    write_atomically(path, |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
    .map_err(|e| fail(format!("cannot write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_from_generated_names() {
        assert_eq!(family_of_name("alltoall_n16_m1000_s0"), "alltoall");
        assert_eq!(family_of_name("bidir_ring_n8_m1_s0"), "bidir_ring");
        assert_eq!(family_of_name("custom"), "custom");
        assert_eq!(family_of_name("_n3"), "_n3");
    }
}
