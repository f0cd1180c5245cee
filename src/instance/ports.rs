//! Ports per slot and per-demand bandwidth (DESIGN.md §11).
//!
//! This module owns the multi-port part of the data model: [`Ports`] (how
//! many transfers a slot may take part in per tick: NICs, rails, queues) and
//! the rules that read and check it. With every slot at one port and one
//! bandwidth for all demands, an instance is copyspace-guard v0 exactly; the
//! rest of the crate asks [`Instance::is_single_port`] and
//! [`Instance::has_demand_bw`] before taking a multi-port path.
//!
//! [`Instance::is_single_port`]: super::Instance::is_single_port
//! [`Instance::has_demand_bw`]: super::Instance::has_demand_bw

use super::InputError;
use serde::{Deserialize, Serialize};

/// Ports of every slot: one number for all slots, or one per slot.
///
/// STRICT1: slot `v` takes part in at most `ports(v)` transfers per tick;
/// READ1_WRITE1: at most `ports(v)` sends and `ports(v)` receives.
/// Serialises as in instance JSON: an integer, or an array of integers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Ports {
    /// The same number for every slot.
    Uniform(u32),
    /// One number per slot (length = slots).
    PerSlot(Vec<u32>),
}

impl Default for Ports {
    fn default() -> Self {
        Ports::Uniform(1)
    }
}

impl Ports {
    /// Ports of slot `v`.
    pub fn get(&self, v: usize) -> u32 {
        match self {
            Ports::Uniform(p) => *p,
            Ports::PerSlot(ps) => ps[v],
        }
    }

    /// Whether every slot has exactly one port (the copyspace-guard model).
    pub fn all_one(&self) -> bool {
        match self {
            Ports::Uniform(p) => *p == 1,
            Ports::PerSlot(ps) => ps.iter().all(|&p| p == 1),
        }
    }

    /// The number every slot has, when one number is given for all (an
    /// instance's ports are normalised: a per-slot list of equal entries
    /// is `Uniform`).
    pub fn uniform(&self) -> Option<u32> {
        match self {
            Ports::Uniform(p) => Some(*p),
            Ports::PerSlot(_) => None,
        }
    }

    /// Whether every slot has an even number of ports.
    pub fn all_even(&self) -> bool {
        match self {
            Ports::Uniform(p) => p % 2 == 0,
            Ports::PerSlot(ps) => ps.iter().all(|&p| p % 2 == 0),
        }
    }

    /// The largest number of ports of any slot.
    pub fn max(&self) -> u32 {
        match self {
            Ports::Uniform(p) => *p,
            Ports::PerSlot(ps) => ps.iter().copied().max().unwrap_or(1),
        }
    }

    /// Sum of the ports of all `slots` slots.
    pub fn total(&self, slots: u32) -> u64 {
        match self {
            Ports::Uniform(p) => *p as u64 * slots as u64,
            Ports::PerSlot(ps) => ps.iter().map(|&p| p as u64).sum(),
        }
    }

    /// The simplest equal form: a per-slot list whose entries are all equal
    /// becomes `Uniform` (so equality and output do not depend on spelling).
    pub(crate) fn normalised(self) -> Ports {
        match self {
            Ports::PerSlot(ps) if !ps.is_empty() && ps.iter().all(|&p| p == ps[0]) => {
                Ports::Uniform(ps[0])
            }
            p => p,
        }
    }

    /// Checks `ports >= 1` everywhere and a per-slot list of length `slots`.
    /// `field` names the input field in errors (`ports`, `--ports`).
    pub fn check(&self, slots: u32, field: &str) -> Result<(), InputError> {
        match self {
            Ports::Uniform(0) => Err(InputError::field(field, "ports must be >= 1, got 0")),
            Ports::Uniform(_) => Ok(()),
            Ports::PerSlot(ps) => {
                if ps.len() as u64 != slots as u64 {
                    return Err(InputError::field(
                        field,
                        format!(
                            "a ports array needs one entry per slot: {} entries for {slots} slots",
                            ps.len()
                        ),
                    ));
                }
                match ps.iter().position(|&p| p == 0) {
                    Some(i) => Err(InputError::field(
                        &format!("{field}[{i}]"),
                        "ports must be >= 1, got 0",
                    )),
                    None => Ok(()),
                }
            }
        }
    }

    /// Reads the JSON value of `"ports"`: an integer, or an array of integers.
    pub(crate) fn from_json(v: &serde_json::Value, slots: u32) -> Result<Ports, InputError> {
        let as_port = |v: &serde_json::Value, path: &str| -> Result<u32, InputError> {
            let n = super::json_strict::value_as_uint(v, path)?;
            u32::try_from(n)
                .map_err(|_| InputError::field(path, format!("{n} ports is more than 2^32-1")))
        };
        let ports = match v {
            serde_json::Value::Array(a) => Ports::PerSlot(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| as_port(x, &format!("ports[{i}]")))
                    .collect::<Result<_, _>>()?,
            ),
            other => Ports::Uniform(as_port(other, "ports")?),
        };
        ports.check(slots, "ports")?;
        Ok(ports.normalised())
    }
}
