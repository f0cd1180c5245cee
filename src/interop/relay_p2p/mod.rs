//! `tickopt-relay-p2p-v1`: a relay schedule as per-rank programs with
//! the forwarding steps (what `tickopt export --to p2p-json` writes for a
//! relay schedule; doc/formats.md, "Relay program").
//!
//! ```json
//! {"format": "tickopt-relay-p2p-v1", "model": "READ1_WRITE1", "slots": 4,
//!  "gpus_per_node": 2, "nvlink_speedup": 1, "copy_bw_bits_per_tick": 64,
//!  "ticks": 2, "demands": [{"src_slot": 0, "dst_slot": 3, "bits_total": 64}, ...],
//!  "ranks": [
//!   {"rank": 0, "input_bytes": 8, "output_bytes": 0, "stage_bytes": 0, "ops": [
//!     {"tick": 0, "op": "send", "peer": 2, "buffer": "input", "offset": 0, "bytes": 8}]},
//!   ...
//!   {"rank": 2, "input_bytes": 0, "output_bytes": 0, "stage_bytes": 8, "ops": [
//!     {"tick": 0, "op": "recv", "peer": 0, "buffer": "stage", "offset": 0, "bytes": 8},
//!     {"tick": 1, "op": "send", "peer": 3, "buffer": "stage", "offset": 0, "bytes": 8}]},
//!   ...]}
//! ```
//!
//! The operations are [`crate::relay::program`]'s (its module docs give
//! the buffer layout and the order); this module writes them out. The
//! reference executor ([`execute`], `exec.rs`) runs a program read back
//! from its text, sharing no code with the program builder: an export is
//! executed before it is written.

mod exec;

pub use exec::{execute, ExecError, Executed};

use super::p2p_json::{demands_of, P2pDemand};
use super::InteropError;
use crate::instance::{Instance, Model};
use crate::relay::program::{relay_program, Buffer, OpKind, RelayOp};
use crate::relay::{RelaySchedule, TwoTier};
use serde::{Deserialize, Serialize};

/// The format tag.
pub const FORMAT: &str = "tickopt-relay-p2p-v1";

/// Most operations an export writes (two per hop; each is a line of
/// about 80 bytes): a larger schedule is refused with a message rather
/// than filling memory.
pub const MAX_OPS: u64 = 1 << 27;

/// A whole relay program (module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayP2pProgram {
    pub format: String,
    pub model: Model,
    pub slots: u32,
    pub gpus_per_node: u32,
    pub nvlink_speedup: u32,
    pub copy_bw_bits_per_tick: u64,
    pub ticks: u64,
    pub demands: Vec<P2pDemand>,
    pub ranks: Vec<RelayRank>,
}

/// One rank's buffer sizes (bytes) and operations in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayRank {
    pub rank: u32,
    pub input_bytes: u64,
    pub output_bytes: u64,
    pub stage_bytes: u64,
    pub ops: Vec<RelayStep>,
}

/// One operation as written: in tick `tick`, send `bytes` bytes at
/// `offset` of `buffer` to `peer`, or receive them from `peer` there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayStep {
    pub tick: u64,
    pub op: Op,
    pub peer: u32,
    pub buffer: Buf,
    pub offset: u64,
    pub bytes: u64,
}

/// `send` or `recv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Send,
    Recv,
}

/// `input`, `output` or `stage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Buf {
    Input,
    Output,
    Stage,
}

impl Buf {
    pub fn as_str(self) -> &'static str {
        match self {
            Buf::Input => "input",
            Buf::Output => "output",
            Buf::Stage => "stage",
        }
    }
}

impl From<RelayOp> for RelayStep {
    fn from(o: RelayOp) -> RelayStep {
        RelayStep {
            tick: o.tick,
            op: match o.op {
                OpKind::Send => Op::Send,
                OpKind::Recv => Op::Recv,
            },
            peer: o.peer,
            buffer: match o.buffer {
                Buffer::Input => Buf::Input,
                Buffer::Output => Buf::Output,
                Buffer::Stage => Buf::Stage,
            },
            offset: o.offset,
            bytes: o.bytes,
        }
    }
}

/// The program of `s`, a relay schedule of `inst` on `tt` that has passed
/// the relay validator.
pub fn export(
    inst: &Instance,
    tt: TwoTier,
    s: &RelaySchedule,
) -> Result<RelayP2pProgram, InteropError> {
    let hops: u64 = s
        .runs
        .iter()
        .map(|r| (r.hops().len() as u64).saturating_mul(r.count))
        .fold(0, u64::saturating_add);
    if hops.saturating_mul(2) > MAX_OPS {
        return Err(InteropError::Invalid(format!(
            "a relay program of {hops} hops has {} operations, over the {MAX_OPS} the exporter writes",
            hops.saturating_mul(2)
        )));
    }
    let p = relay_program(inst, s)?;
    let ranks = p
        .ops
        .into_iter()
        .enumerate()
        .map(|(r, ops)| RelayRank {
            rank: r as u32,
            input_bytes: p.input_bytes[r],
            output_bytes: p.output_bytes[r],
            stage_bytes: p.stage_bytes[r],
            ops: ops.into_iter().map(RelayStep::from).collect(),
        })
        .collect();
    Ok(RelayP2pProgram {
        format: FORMAT.into(),
        model: inst.model,
        slots: inst.slots,
        gpus_per_node: tt.gpus_per_node,
        nvlink_speedup: tt.nvlink_speedup,
        copy_bw_bits_per_tick: inst.bw,
        ticks: s.ticks,
        demands: demands_of(inst),
        ranks,
    })
}

impl RelayP2pProgram {
    /// The program as JSON text: one demand, one rank header and one
    /// operation per line (readable and diffable; any JSON reader takes it).
    pub fn to_json_text(&self) -> Result<String, serde_json::Error> {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = write!(
            s,
            "{{\"format\":{},\"model\":{},\"slots\":{},\"gpus_per_node\":{},\"nvlink_speedup\":{},\"copy_bw_bits_per_tick\":{},\"ticks\":{}",
            serde_json::to_string(&self.format)?,
            serde_json::to_string(&self.model)?,
            self.slots,
            self.gpus_per_node,
            self.nvlink_speedup,
            self.copy_bw_bits_per_tick,
            self.ticks
        );
        s.push_str(",\n\"demands\":[");
        for (i, d) in self.demands.iter().enumerate() {
            s.push_str(if i == 0 { "\n" } else { ",\n" });
            s.push_str(&serde_json::to_string(d)?);
        }
        s.push_str("],\n\"ranks\":[");
        for (r, rank) in self.ranks.iter().enumerate() {
            let _ = write!(
                s,
                "{}{{\"rank\":{},\"input_bytes\":{},\"output_bytes\":{},\"stage_bytes\":{},\"ops\":[",
                if r == 0 { "\n" } else { ",\n" },
                rank.rank,
                rank.input_bytes,
                rank.output_bytes,
                rank.stage_bytes
            );
            for (i, op) in rank.ops.iter().enumerate() {
                s.push_str(if i == 0 { "\n" } else { ",\n" });
                s.push_str(&serde_json::to_string(op)?);
            }
            s.push_str("]}");
        }
        s.push_str("]}\n");
        Ok(s)
    }
}
