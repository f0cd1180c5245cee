//! The per-rank relay program a runner executes (doc/python.md, "Relay
//! programs").
//!
//! Buffers, in bytes: rank r's `input` holds its outgoing demands in order
//! of destination and its `output` its incoming demands in order of
//! source (torch's `all_to_all_single` layout, `ceil(bits/8)` bytes a
//! demand); `stage` is r's staging area, one region per chunk passing
//! through r (`stage_bytes(r)` in all). Chunk k of a demand is bytes
//! `[k*bw/8, ...)` of it, as in `lower::p2p`.
//!
//! Each hop is a send at its sender (from `input` on the first hop, else
//! from `stage`) and a receive at its receiver (into `output` on the last
//! hop, else into `stage`). A rank's operations are in tick order, sends
//! before receives within a tick, and between one pair of ranks in the
//! same order at both ends (tick, then the chunk's position in the
//! schedule, a run's chunks in order): the k-th send from r to p is the
//! k-th receive at p from r.
//! A forward's receive is in an earlier tick than its send, so it comes
//! first in the list. Executed per rank in list order with sends that do
//! not wait for their receiver (buffered or posted non-blocking), no rank
//! waits on a receive whose send comes after an unfinished receive: the
//! program cannot deadlock.

use super::schedule::RelaySchedule;
use crate::instance::Instance;

/// Send or receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpKind {
    Send,
    Recv,
}

/// Which buffer of the rank an operation reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    Input,
    Output,
    Stage,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Send => "send",
            OpKind::Recv => "recv",
        }
    }
}

impl Buffer {
    pub fn as_str(self) -> &'static str {
        match self {
            Buffer::Input => "input",
            Buffer::Output => "output",
            Buffer::Stage => "stage",
        }
    }
}

/// One operation: send `bytes` bytes at `offset` of `buffer` to `peer`, or
/// receive them from `peer` there; `tick` is the hop's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayOp {
    pub op: OpKind,
    pub peer: u32,
    pub buffer: Buffer,
    pub offset: u64,
    pub bytes: u64,
    pub tick: u64,
}

/// Every rank's operations and buffer sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayProgram {
    pub ops: Vec<Vec<RelayOp>>,
    pub input_bytes: Vec<u64>,
    pub output_bytes: Vec<u64>,
    pub stage_bytes: Vec<u64>,
}

/// Why a schedule has no byte program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    #[error("demand {demand} has a bandwidth of {bw} bits per tick, not a whole number of bytes (byte offsets need a multiple of 8)")]
    BwNotBytes { demand: usize, bw: u64 },
}

/// The program of `s` (a valid schedule of `inst`: see the module docs).
pub fn relay_program(inst: &Instance, s: &RelaySchedule) -> Result<RelayProgram, ProgramError> {
    let n = inst.slots as usize;
    let demands = inst.demands();
    let mut input_bytes = vec![0u64; n];
    let mut output_bytes = vec![0u64; n];
    let mut in_off = Vec::with_capacity(demands.len());
    let mut out_off = Vec::with_capacity(demands.len());
    for (d, dem) in demands.iter().enumerate() {
        let bw = inst.demand_bw(d);
        if bw % 8 != 0 {
            return Err(ProgramError::BwNotBytes { demand: d, bw });
        }
        let bytes = dem.bits.div_ceil(8);
        in_off.push(input_bytes[dem.src as usize]);
        input_bytes[dem.src as usize] += bytes;
        out_off.push(output_bytes[dem.dst as usize]);
        output_bytes[dem.dst as usize] += bytes;
    }
    let mut stage_bytes = vec![0u64; n];
    // (tick, kind, peer, position) keys and ops per rank.
    type OpKey = (u64, OpKind, u32, usize);
    let mut ops: Vec<Vec<(OpKey, RelayOp)>> = vec![Vec::new(); n];
    let chunks = s.runs.iter().flat_map(|r| {
        r.chunks()
            .map(move |(chunk, hops, len)| (r.demand as usize, chunk, hops, len))
    });
    for (pos, (d, chunk, hops, len)) in chunks.enumerate() {
        let start = chunk * (inst.demand_bw(d) / 8);
        let bytes = inst.chunk_len(d, chunk).div_ceil(8);
        let hops = &hops[..len];
        let mut from = (Buffer::Input, in_off[d] + start);
        for (h, hop) in hops.iter().enumerate() {
            let to = if h + 1 == hops.len() {
                (Buffer::Output, out_off[d] + start)
            } else {
                let at = stage_bytes[hop.to as usize];
                stage_bytes[hop.to as usize] += bytes;
                (Buffer::Stage, at)
            };
            let op = |op, peer, (buffer, offset): (Buffer, u64)| RelayOp {
                op,
                peer,
                buffer,
                offset,
                bytes,
                tick: hop.tick,
            };
            ops[hop.from as usize].push((
                (hop.tick, OpKind::Send, hop.to, pos),
                op(OpKind::Send, hop.to, from),
            ));
            ops[hop.to as usize].push((
                (hop.tick, OpKind::Recv, hop.from, pos),
                op(OpKind::Recv, hop.from, to),
            ));
            from = to;
        }
    }
    let ops = ops
        .into_iter()
        .map(|mut v| {
            v.sort_unstable_by_key(|e| e.0);
            v.into_iter().map(|e| e.1).collect()
        })
        .collect();
    Ok(RelayProgram {
        ops,
        input_bytes,
        output_bytes,
        stage_bytes,
    })
}
