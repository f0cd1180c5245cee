//! Instance JSON v0 (copyspace-guard): reading and writing.
//!
//! `{"version":0,"model":..,"slots":N,"copy_bw_bits_per_tick":B,
//! "demands":[{"src_slot","dst_slot","bits_total"}],"id"?,"notes"?}`; extra
//! top-level keys are allowed. Syntax errors name line and column; value
//! errors name the JSON path (`demands[3].bits_total`).
//!
//! Multi-port extension (DESIGN.md §11): an optional top-level `"ports"`
//! (an integer, or an array of `slots` integers >= 1) and an optional
//! per-demand `"copy_bw_bits_per_tick"`. Without them a document is exactly
//! copyspace-guard v0, and the writer emits them only when they say
//! something (ports not all 1, a demand's bandwidth not the instance's).

use super::error::require_utf8;
use super::{Demand, InputError, Instance, Limits, Model, Ports};
use serde_json::{json, Map, Value};

/// Values given on the command line that replace the instance's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub model: Option<Model>,
    pub bw: Option<u64>,
    pub slots: Option<u32>,
    /// Ports of every slot (`--ports K`), replacing the instance's `"ports"`.
    pub ports: Option<u32>,
}

fn get_uint(obj: &Map<String, Value>, key: &str, path: &str) -> Result<u64, InputError> {
    let v = obj
        .get(key)
        .ok_or_else(|| InputError::field(path, "missing"))?;
    value_as_uint(v, path)
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
                    format!("{n} is negative; expected an integer >= 0"),
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

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses an instance JSON document, applying `overrides`.
pub fn parse_instance_json(
    bytes: &[u8],
    overrides: &Overrides,
    limits: &Limits,
) -> Result<Instance, InputError> {
    let text = require_utf8(bytes)?;
    if text.trim().is_empty() {
        return Err(InputError::new("empty file: expected an instance JSON object").at_line(1));
    }
    let root: Value = serde_json::from_str(text)
        .map_err(|e| InputError::new(format!("invalid JSON: {e}")).at_line(e.line() as u64))?;
    let obj = root
        .as_object()
        .ok_or_else(|| InputError::new("instance must be a JSON object"))?;
    match obj.get("version") {
        Some(v) if v.as_u64() == Some(0) => {}
        Some(v) => {
            return Err(InputError::field(
                "version",
                format!("instance.version must be 0, got {v}"),
            ))
        }
        None => {
            return Err(InputError::field(
                "version",
                "missing (instance.version must be 0)",
            ))
        }
    }
    let model = match overrides.model {
        Some(m) => m,
        None => match obj.get("model") {
            Some(Value::String(s)) => s
                .parse::<Model>()
                .map_err(|e| InputError::field("model", e.to_string()))?,
            Some(v) => {
                return Err(InputError::field(
                    "model",
                    format!("expected a string, got {}", type_name(v)),
                ))
            }
            None => {
                return Err(InputError::field(
                    "model",
                    "missing (STRICT1 or READ1_WRITE1)",
                ))
            }
        },
    };
    let bw = match overrides.bw {
        Some(b) => b,
        None => get_uint(obj, "copy_bw_bits_per_tick", "copy_bw_bits_per_tick")?,
    };
    if bw == 0 {
        return Err(InputError::field(
            "copy_bw_bits_per_tick",
            "bandwidth per tick must be > 0",
        ));
    }
    let slots = match overrides.slots {
        Some(s) => s as u64,
        None => get_uint(obj, "slots", "slots")?,
    };
    if slots == 0 || slots > limits.max_slots as u64 {
        return Err(InputError::field(
            "slots",
            format!("slots must be in 1..={}, got {slots}", limits.max_slots),
        ));
    }
    let demands_v = obj
        .get("demands")
        .ok_or_else(|| InputError::field("demands", "missing"))?;
    let arr = demands_v.as_array().ok_or_else(|| {
        InputError::field(
            "demands",
            format!("expected an array, got {}", type_name(demands_v)),
        )
    })?;
    if arr.len() as u64 > limits.max_demands {
        return Err(InputError::field(
            "demands",
            format!(
                "{} demands exceed the limit of {}",
                arr.len(),
                limits.max_demands
            ),
        ));
    }
    let ports = match (overrides.ports, obj.get("ports")) {
        (Some(0), _) => return Err(InputError::field("--ports", "ports must be >= 1, got 0")),
        (Some(k), _) => Ports::Uniform(k),
        (None, Some(v)) => Ports::from_json(v, slots as u32)?,
        (None, None) => Ports::default(),
    };
    let mut demands = Vec::with_capacity(arr.len());
    for (i, d) in arr.iter().enumerate() {
        let path = format!("demands[{i}]");
        let o = d.as_object().ok_or_else(|| {
            InputError::field(&path, format!("expected an object, got {}", type_name(d)))
        })?;
        let src = get_uint(o, "src_slot", &format!("{path}.src_slot"))?;
        let dst = get_uint(o, "dst_slot", &format!("{path}.dst_slot"))?;
        let bits = get_uint(o, "bits_total", &format!("{path}.bits_total"))?;
        if src >= slots || dst >= slots {
            return Err(InputError::field(
                &path,
                format!("slot out of bounds: {src}->{dst} with slots={slots}"),
            ));
        }
        let dbw = match o.get("copy_bw_bits_per_tick") {
            None => None,
            Some(v) => {
                let path = format!("{path}.copy_bw_bits_per_tick");
                let b = value_as_uint(v, &path)?;
                if b == 0 {
                    return Err(InputError::field(&path, "bandwidth per tick must be > 0"));
                }
                Some(b)
            }
        };
        demands.push((
            Demand {
                src: src as u32,
                dst: dst as u32,
                bits,
            },
            dbw,
        ));
    }
    let mut inst = Instance::new_multiport(model, slots as u32, bw, demands, ports, limits)?;
    inst.id = obj.get("id").and_then(Value::as_str).map(str::to_string);
    inst.notes = obj.get("notes").and_then(Value::as_str).map(str::to_string);
    Ok(inst)
}

/// The instance as copyspace-guard instance JSON v0.
pub fn instance_to_json(inst: &Instance) -> Value {
    let mut v = json!({
        "version": 0,
        "model": inst.model.as_str(),
        "slots": inst.slots,
        "copy_bw_bits_per_tick": inst.bw,
        "demands": inst.demands(),
    });
    if !inst.ports().all_one() {
        v["ports"] = json!(inst.ports());
    }
    if inst.has_demand_bw() {
        for (i, d) in v["demands"]
            .as_array_mut()
            .expect("demands serialise as an array")
            .iter_mut()
            .enumerate()
        {
            if inst.demand_bw(i) != inst.bw {
                d["copy_bw_bits_per_tick"] = json!(inst.demand_bw(i));
            }
        }
    }
    if let Some(id) = &inst.id {
        v["id"] = json!(id);
    }
    if let Some(n) = &inst.notes {
        v["notes"] = json!(n);
    }
    v
}
