//! Instance JSON v0 (copyspace-guard): reading and writing.
//!
//! `{"version":0,"model":..,"slots":N,"copy_bw_bits_per_tick":B,
//! "demands":[{"src_slot","dst_slot","bits_total"}],"id"?,"notes"?}`; extra
//! top-level keys are allowed. Syntax errors name line and column; value
//! errors name the JSON path (`demands[3].bits_total`).
//!
//! Every tickopt JSON reader, this one included, reads strictly through
//! [`super::json_strict`] (duplicate keys refused, a byte-order mark
//! skipped).
//!
//! Documents in the common form (the demands plain objects of unsigned
//! integers) are read by [`super::json_fast`] without building the tree;
//! every other document, and every one it refuses, by the strict reader
//! here. Both hand their values to one function that checks them in one
//! order, so a document gets the same instance, warnings or refusal
//! whichever reader read it.
//!
//! Multi-port extension (DESIGN.md §11): an optional top-level `"ports"`
//! (an integer, or an array of `slots` integers >= 1) and an optional
//! per-demand `"copy_bw_bits_per_tick"`. Without them a document is exactly
//! copyspace-guard v0, and the writer emits them only when they say
//! something (ports not all 1, a demand's bandwidth not the instance's).

use super::error::require_utf8;
use super::json_fast::ScannedDemand;
use super::json_strict::{json_error, strip_bom, type_name, value_as_uint, StrictValue};
use super::{CostModel, Demand, InputError, Instance, Limits, Model, Ports, RecordedMachine};
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

/// Parses an instance JSON document, applying `overrides`.
pub fn parse_instance_json(
    bytes: &[u8],
    overrides: &Overrides,
    limits: &Limits,
) -> Result<Instance, InputError> {
    parse_instance_json_warned(bytes, overrides, limits, &mut Vec::new())
}

/// [`parse_instance_json`], pushing the unknown keys that are not likely
/// typos to `warnings` (a likely typo is an error: see
/// [`close_key`](super::close_key)).
///
/// A document in the common form goes through the fast reader
/// ([`super::json_fast`]); any other, and every document it refuses, through
/// the strict reader, which gives every error message.
pub fn parse_instance_json_warned(
    bytes: &[u8],
    overrides: &Overrides,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<Instance, InputError> {
    parse_instance_json_with(bytes, overrides, limits, warnings, true).map(|(inst, _)| inst)
}

/// [`parse_instance_json_warned`], with the two-tier machine the document
/// records (its keys `"gpus_per_node"` and `"nvlink_speedup"`, checked);
/// `fast`: whether to try the fast reader first (tests compare the two
/// readers).
pub(super) fn parse_instance_json_with(
    bytes: &[u8],
    overrides: &Overrides,
    limits: &Limits,
    warnings: &mut Vec<String>,
    fast: bool,
) -> Result<(Instance, RecordedMachine), InputError> {
    let text = require_utf8(strip_bom(bytes))?;
    if text.trim().is_empty() {
        return Err(InputError::new("empty file: expected an instance JSON object").at_line(1));
    }
    if fast {
        if let Some(scanned) = super::json_fast::scan(text) {
            let demands = DemandList::Scanned(scanned.demands);
            return instance_from(&scanned.top, demands, overrides, limits, warnings);
        }
    }
    let root: Value = serde_json::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|e| json_error(&e, "invalid JSON"))?;
    let obj = root
        .as_object()
        .ok_or_else(|| InputError::new("instance must be a JSON object"))?;
    instance_from(
        obj,
        DemandList::Tree(obj.get("demands")),
        overrides,
        limits,
        warnings,
    )
}

/// The `"demands"` of a document, as one of the two readers holds them.
enum DemandList<'a> {
    /// The strict reader's value (`None`: no such key).
    Tree(Option<&'a Value>),
    /// The fast reader's demands, every value already an unsigned integer
    /// of the right width and every bandwidth above 0.
    Scanned(Vec<ScannedDemand>),
}

/// The instance the root object `obj` describes (`obj`'s own `"demands"`
/// are ignored: `demands` stands for them) and the machine it records.
/// Checks run in a fixed order, the same for both readers, so a document
/// gets the same refusal from either.
fn instance_from(
    obj: &Map<String, Value>,
    demands: DemandList,
    overrides: &Overrides,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<(Instance, RecordedMachine), InputError> {
    super::json_keys::check_keys(obj, &super::json_keys::INSTANCE_KEYS, "", warnings)?;
    let (model, bw, slots) = header_fields(obj, overrides, limits)?;
    let count = match &demands {
        DemandList::Tree(None) => return Err(InputError::field("demands", "missing")),
        DemandList::Tree(Some(Value::Array(arr))) => arr.len(),
        DemandList::Tree(Some(other)) => {
            return Err(InputError::field(
                "demands",
                format!("expected an array, got {}", type_name(other)),
            ))
        }
        DemandList::Scanned(list) => list.len(),
    };
    if count as u64 > limits.max_demands {
        return Err(InputError::field(
            "demands",
            format!("{count} demands exceed {}", limits.demands_limit()),
        ));
    }
    let ports = match (overrides.ports, obj.get("ports")) {
        (Some(0), _) => return Err(InputError::field("--ports", "ports must be >= 1, got 0")),
        (Some(k), _) => Ports::Uniform(k),
        (None, Some(v)) => Ports::from_json(v, slots as u32)?,
        (None, None) => Ports::default(),
    };
    let mut inst = match demands {
        DemandList::Tree(arr) => {
            let arr = arr.and_then(Value::as_array).expect("checked above");
            let demands = tree_demands(arr, slots, warnings)?;
            Instance::new_multiport(model, slots as u32, bw, demands, ports, limits)?
        }
        DemandList::Scanned(list) => {
            // The bounds first, for every demand, as the strict loop does.
            let out = list
                .iter()
                .position(|d| u64::from(d.src) >= slots || u64::from(d.dst) >= slots);
            if let Some(i) = out {
                let d = list[i];
                return Err(InputError::field(
                    &format!("demands[{i}]"),
                    format!(
                        "slot out of bounds: {}->{} with slots={slots}",
                        d.src, d.dst
                    ),
                ));
            }
            let demands = list.into_iter().map(|d| {
                let demand = Demand {
                    src: d.src,
                    dst: d.dst,
                    bits: d.bits,
                };
                (demand, d.bw())
            });
            Instance::new_multiport(model, slots as u32, bw, demands, ports, limits)?
        }
    };
    inst.id = obj.get("id").and_then(Value::as_str).map(str::to_string);
    inst.notes = obj.get("notes").and_then(Value::as_str).map(str::to_string);
    inst.cost = match obj.get("cost") {
        None => None,
        Some(v) => Some(cost_model(v, warnings)?),
    };
    let machine = super::json_keys::recorded_machine(obj)?;
    Ok((inst, machine))
}

/// The instance's version (0), model, bandwidth and slot count (the
/// overrides first), each checked, in this order.
fn header_fields(
    obj: &Map<String, Value>,
    overrides: &Overrides,
    limits: &Limits,
) -> Result<(Model, u64, u64), InputError> {
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
    if slots == 0 {
        return Err(InputError::field("slots", "slots must be > 0, got 0"));
    }
    if slots > limits.max_slots as u64 {
        return Err(InputError::field(
            "slots",
            format!("{slots} slots exceed {}", limits.slots_limit()),
        ));
    }
    Ok((model, bw, slots))
}

/// The demands of the strict reader's array, each checked (keys, types,
/// slots below `slots`); errors name the demand's path.
fn tree_demands(
    arr: &[Value],
    slots: u64,
    warnings: &mut Vec<String>,
) -> Result<Vec<(Demand, Option<u64>)>, InputError> {
    let mut demands = Vec::with_capacity(arr.len());
    for (i, d) in arr.iter().enumerate() {
        let path = format!("demands[{i}]");
        let o = d.as_object().ok_or_else(|| {
            InputError::field(&path, format!("expected an object, got {}", type_name(d)))
        })?;
        super::json_keys::check_keys(o, &super::json_keys::DEMAND_KEYS, &path, warnings)?;
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
    Ok(demands)
}

/// The `"cost"` object: `{"alpha_us": A, "link_gbps": G}` (both required).
fn cost_model(v: &Value, warnings: &mut Vec<String>) -> Result<CostModel, InputError> {
    let o = v.as_object().ok_or_else(|| {
        InputError::field("cost", format!("expected an object, got {}", type_name(v)))
    })?;
    super::json_keys::check_keys(o, &super::json_keys::COST_KEYS, "cost", warnings)?;
    let number = |key: &str| -> Result<f64, InputError> {
        let path = format!("cost.{key}");
        match o.get(key) {
            Some(Value::Number(n)) => n
                .as_f64()
                .ok_or_else(|| InputError::field(&path, format!("{n} is not a number"))),
            Some(other) => Err(InputError::field(
                &path,
                format!("expected a number, got {}", type_name(other)),
            )),
            None => Err(InputError::field(&path, "missing")),
        }
    };
    let (alpha, gbps) = (number("alpha_us")?, number("link_gbps")?);
    CostModel::new(alpha, gbps).map_err(|e| InputError::field("cost", e.to_string()))
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
    if let Some(c) = &inst.cost {
        v["cost"] = json!(c);
    }
    v
}
