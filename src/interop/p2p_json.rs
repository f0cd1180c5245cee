//! `tickopt-p2p-v1`: per-rank point-to-point programs.
//!
//! ```json
//! {"format": "tickopt-p2p-v1", "model": "STRICT1", "slots": 2,
//!  "copy_bw_bits_per_tick": 64, "ticks": 2,
//!  "demands": [{"src_slot": 0, "dst_slot": 1, "bits_total": 100}],
//!  "ranks": [
//!   {"rank": 0, "send_buffer_bytes": 13, "recv_buffer_bytes": 0, "ticks": [
//!     [{"op": "send", "peer": 1, "offset": 0, "bytes": 8, "demand": 0}],
//!     [{"op": "send", "peer": 1, "offset": 8, "bytes": 5, "demand": 0}]]},
//!   {"rank": 1, ...}]}
//! ```
//!
//! Layout ([`crate::lower::p2p`]): a rank's send buffer holds its outgoing
//! demands in order of destination, its receive buffer its incoming ones in
//! order of source, each `ceil(bits/8)` bytes. Every rank has exactly
//! `ticks` lists; within a tick the k-th send from r to p pairs with the
//! k-th receive at p from r.
//!
//! [`import`] trusts nothing but the demands: it recomputes the layout,
//! pairs every send with its receive (same demand, same bytes, same
//! position in the demand), checks that the sends tile every demand's bytes
//! exactly once, and rebuilds the expanded schedule (a chunk's bits are
//! its bytes' bits, the demand's last chunk its remainder) for the
//! validator.

use super::InteropError;
use crate::instance::{Demand, Instance, Limits, Model, Ports};
use crate::lower::p2p::{demand_bytes, lower_all, Layout, OpKind, RankOp};
use crate::schedule::Schedule;
use crate::validate::{RawChunk, Report, TickValidator};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The format tag.
pub const FORMAT: &str = "tickopt-p2p-v1";

/// A whole p2p program (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct P2pProgram {
    pub format: String,
    pub model: Model,
    pub slots: u32,
    pub copy_bw_bits_per_tick: u64,
    pub ticks: u64,
    /// Ports per slot (DESIGN.md §11), when not one each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Ports>,
    pub demands: Vec<P2pDemand>,
    pub ranks: Vec<RankProgram>,
}

/// A demand, with its own bandwidth where it has one (two-tier fabrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct P2pDemand {
    pub src_slot: u32,
    pub dst_slot: u32,
    pub bits_total: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bw: Option<u64>,
}

/// The demands of `inst` as a program lists them (the relay program's too).
pub(crate) fn demands_of(inst: &Instance) -> Vec<P2pDemand> {
    inst.demands()
        .iter()
        .enumerate()
        .map(|(i, d)| P2pDemand {
            src_slot: d.src,
            dst_slot: d.dst,
            bits_total: d.bits,
            bw: (inst.demand_bw(i) != inst.bw).then(|| inst.demand_bw(i)),
        })
        .collect()
}

/// One rank's buffers and operations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankProgram {
    pub rank: u32,
    pub send_buffer_bytes: u64,
    pub recv_buffer_bytes: u64,
    /// One list per tick (empty ticks included).
    pub ticks: Vec<Vec<RankOp>>,
}

/// Lowers a (validated) schedule of `inst` to every rank's program.
pub fn export(inst: &Instance, schedule: &Schedule) -> Result<P2pProgram, InteropError> {
    let ticks = schedule.ticks();
    let lists = ticks.saturating_mul(inst.slots as u64);
    if lists > MAX_TICK_LISTS {
        return Err(InteropError::Invalid(format!(
            "a p2p-json program of {ticks} ticks x {} ranks = {lists} tick lists is over the {MAX_TICK_LISTS} the exporter writes",
            inst.slots
        )));
    }
    let layout = Layout::new(inst)?;
    let programs = lower_all(inst, schedule, &layout)?;
    let ranks = programs
        .into_iter()
        .enumerate()
        .map(|(r, mut t)| {
            t.resize(ticks as usize, Vec::new());
            RankProgram {
                rank: r as u32,
                send_buffer_bytes: layout.send_buffer_bytes(r as u32),
                recv_buffer_bytes: layout.recv_buffer_bytes(r as u32),
                ticks: t,
            }
        })
        .collect();
    Ok(P2pProgram {
        format: FORMAT.into(),
        model: inst.model,
        slots: inst.slots,
        copy_bw_bits_per_tick: inst.bw,
        ticks,
        ports: (!inst.is_single_port()).then(|| inst.ports().clone()),
        demands: demands_of(inst),
        ranks,
    })
}

impl P2pProgram {
    /// The program as JSON text: one demand, and one tick of one rank, per
    /// line (readable and diffable; any JSON reader takes it).
    pub fn to_json_text(&self) -> Result<String, serde_json::Error> {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = write!(
            s,
            "{{\"format\":{},\"model\":{},\"slots\":{},\"copy_bw_bits_per_tick\":{},\"ticks\":{}",
            serde_json::to_string(&self.format)?,
            serde_json::to_string(&self.model)?,
            self.slots,
            self.copy_bw_bits_per_tick,
            self.ticks
        );
        if let Some(ports) = &self.ports {
            let _ = write!(s, ",\"ports\":{}", serde_json::to_string(ports)?);
        }
        s.push_str(",\n\"demands\":[");
        for (i, d) in self.demands.iter().enumerate() {
            s.push_str(if i == 0 { "\n" } else { ",\n" });
            s.push_str(&serde_json::to_string(d)?);
        }
        s.push_str("],\n\"ranks\":[");
        for (r, rp) in self.ranks.iter().enumerate() {
            let _ = write!(
                s,
                "{}{{\"rank\":{},\"send_buffer_bytes\":{},\"recv_buffer_bytes\":{},\"ticks\":[",
                if r == 0 { "\n" } else { ",\n" },
                rp.rank,
                rp.send_buffer_bytes,
                rp.recv_buffer_bytes
            );
            for (t, ops) in rp.ticks.iter().enumerate() {
                s.push_str(if t == 0 { "\n" } else { ",\n" });
                s.push_str(&serde_json::to_string(ops)?);
            }
            s.push_str("]}");
        }
        s.push_str("]}\n");
        Ok(s)
    }
}

/// An imported program: its instance and its expanded ticks.
pub struct Imported {
    pub instance: Instance,
    pub ticks: Vec<Vec<RawChunk>>,
}

impl Imported {
    /// The validator's report of the imported ticks against `inst` (the
    /// program's own instance, or the one an export was made from).
    pub fn validate(&self, inst: &Instance) -> Report {
        let mut v = TickValidator::new(inst);
        for t in &self.ticks {
            v.push_tick(t);
        }
        v.finish()
    }
}

/// Most tick lists (ticks x ranks) an export writes: each is at least a
/// few bytes even when empty, so a schedule of 10^9 ticks is refused with
/// a message rather than filling memory.
pub const MAX_TICK_LISTS: u64 = 1 << 28;

fn bad(msg: String) -> InteropError {
    InteropError::Invalid(msg)
}

/// Reads a program back (see the module docs for what is checked); its
/// instance is built under `limits` (slots, demands). The steps: the
/// program's instance, its ranks' headers, each tick's operations paired
/// into chunks, then every demand's bytes sent exactly once.
pub fn import(p: &P2pProgram, limits: &Limits) -> Result<Imported, InteropError> {
    let inst = program_instance(p, limits)?;
    let layout = Layout::new(&inst)?;
    let n_ticks = check_rank_headers(p, &layout)?;
    let demands = inst.demands();
    // Bytes of each demand sent, as (position in the demand, bytes).
    let mut pieces: Vec<Vec<(u64, u64)>> = vec![Vec::new(); demands.len()];
    let mut ticks = Vec::with_capacity(n_ticks);
    for t in 0..n_ticks {
        let mut chunks = Vec::new();
        for r in 0..p.ranks.len() {
            import_rank_tick(p, r, t, demands, &layout, &mut pieces, &mut chunks)?;
        }
        check_receives_paired(p, t)?;
        ticks.push(chunks);
    }
    check_pieces(demands, &mut pieces)?;
    Ok(Imported {
        instance: inst,
        ticks,
    })
}

/// The program's instance (under `limits`): its format named, its demands
/// merged and sorted as tickopt writes them.
fn program_instance(p: &P2pProgram, limits: &Limits) -> Result<Instance, InteropError> {
    if p.format != FORMAT {
        return Err(bad(format!(
            "format is {:?}, expected {FORMAT:?}",
            p.format
        )));
    }
    let inst = Instance::new_multiport(
        p.model,
        p.slots,
        p.copy_bw_bits_per_tick,
        p.demands.iter().map(|d| {
            (
                Demand {
                    src: d.src_slot,
                    dst: d.dst_slot,
                    bits: d.bits_total,
                },
                d.bw,
            )
        }),
        p.ports.clone().unwrap_or_default(),
        limits,
    )?;
    if demands_of(&inst) != p.demands {
        return Err(bad(
            "demands must be merged and sorted by (src_slot, dst_slot), as tickopt writes them"
                .into(),
        ));
    }
    Ok(inst)
}

/// One rank program per slot, in rank order, each with one tick list per
/// tick and the buffer sizes `layout` gives. Returns the tick count.
fn check_rank_headers(p: &P2pProgram, layout: &Layout) -> Result<usize, InteropError> {
    if p.ranks.len() != p.slots as usize {
        return Err(bad(format!(
            "{} rank programs for {} slots",
            p.ranks.len(),
            p.slots
        )));
    }
    let n_ticks = usize::try_from(p.ticks).map_err(|_| bad("ticks too large".into()))?;
    for (r, rp) in p.ranks.iter().enumerate() {
        let r32 = r as u32;
        if rp.rank != r32 {
            return Err(bad(format!("ranks[{r}].rank is {}, expected {r}", rp.rank)));
        }
        if rp.ticks.len() != n_ticks {
            return Err(bad(format!(
                "rank {r} has {} tick lists, the program has {} ticks",
                rp.ticks.len(),
                p.ticks
            )));
        }
        for (what, got, want) in [
            (
                "send_buffer_bytes",
                rp.send_buffer_bytes,
                layout.send_buffer_bytes(r32),
            ),
            (
                "recv_buffer_bytes",
                rp.recv_buffer_bytes,
                layout.recv_buffer_bytes(r32),
            ),
        ] {
            if got != want {
                return Err(bad(format!(
                    "rank {r}: {what} is {got}, the layout gives {want}"
                )));
            }
        }
    }
    Ok(n_ticks)
}

/// Rank `r`'s operations in tick `t`: each names a demand of its own with
/// the right peer; each send lies inside its demand and pairs with the
/// next receive from `r` at the peer (same demand, bytes and position).
/// Each send becomes a chunk of `chunks` and a piece of `pieces`.
fn import_rank_tick(
    p: &P2pProgram,
    r: usize,
    t: usize,
    demands: &[Demand],
    layout: &Layout,
    pieces: &mut [Vec<(u64, u64)>],
    chunks: &mut Vec<RawChunk>,
) -> Result<(), InteropError> {
    let rp = &p.ranks[r];
    // Receives at every peer from r, in order, to pair with r's sends.
    let mut pos_at_peer: HashMap<u32, usize> = HashMap::new();
    for (k, op) in rp.ticks[t].iter().enumerate() {
        let here = || format!("rank {r}, tick {t}, operation {k}");
        let d = demands
            .get(op.demand as usize)
            .ok_or_else(|| bad(format!("{}: demand {} does not exist", here(), op.demand)))?;
        let (mine, theirs) = match op.op {
            OpKind::Send => (d.src, d.dst),
            OpKind::Recv => (d.dst, d.src),
        };
        if mine != r as u32 || theirs != op.peer {
            return Err(bad(format!(
                "{}: {} with peer {} names demand {} ({} -> {})",
                here(),
                op.op.as_str(),
                op.peer,
                op.demand,
                d.src,
                d.dst
            )));
        }
        if op.op == OpKind::Recv {
            continue;
        }
        let i = op.demand as usize;
        let pos = op
            .offset
            .checked_sub(layout.send_offset(i))
            .filter(|&x| op.bytes > 0 && x + op.bytes <= demand_bytes(d.bits))
            .ok_or_else(|| {
                bad(format!(
                    "{}: send of {} bytes at offset {} is outside demand {} (bytes {}..{} of the send buffer)",
                    here(),
                    op.bytes,
                    op.offset,
                    i,
                    layout.send_offset(i),
                    layout.send_offset(i) + demand_bytes(d.bits)
                ))
            })?;
        // The matching receive: the next receive from r at the peer.
        let peer_ops = &p
            .ranks
            .get(op.peer as usize)
            .ok_or_else(|| bad(format!("{}: peer {} has no program", here(), op.peer)))?
            .ticks[t];
        let start = pos_at_peer.entry(op.peer).or_insert(0);
        let found = peer_ops[*start..]
            .iter()
            .position(|o| o.op == OpKind::Recv && o.peer == r as u32)
            .map(|j| j + *start);
        let j = found.ok_or_else(|| {
            bad(format!(
                "{}: send to {} has no matching receive at rank {} in tick {t}",
                here(),
                op.peer,
                op.peer
            ))
        })?;
        *start = j + 1;
        let recv = &peer_ops[j];
        if recv.demand != op.demand
            || recv.bytes != op.bytes
            || recv.offset.checked_sub(layout.recv_offset(i)) != Some(pos)
        {
            return Err(bad(format!(
                "{}: send (demand {}, {} bytes at byte {pos} of the demand) pairs with rank {}'s receive {j} (demand {}, {} bytes at receive offset {}), which differs",
                here(),
                op.demand,
                op.bytes,
                op.peer,
                recv.demand,
                recv.bytes,
                recv.offset
            )));
        }
        pieces[i].push((pos, op.bytes));
        let end_bits = ((pos + op.bytes) * 8).min(d.bits);
        chunks.push(RawChunk::Chunk {
            src: d.src as i128,
            dst: d.dst as i128,
            len: (end_bits - pos * 8) as i128,
        });
    }
    Ok(())
}

/// Every demand's bytes sent exactly once: its pieces, sorted, tile
/// 0..its byte count (the first gap or overlap is named).
fn check_pieces(demands: &[Demand], pieces: &mut [Vec<(u64, u64)>]) -> Result<(), InteropError> {
    for (i, ps) in pieces.iter_mut().enumerate() {
        ps.sort_unstable();
        let mut next = 0u64;
        for &(pos, len) in ps.iter() {
            if pos != next {
                let d = &demands[i];
                return Err(bad(format!(
                    "demand {i} ({} -> {}): bytes {}..{} are {}",
                    d.src,
                    d.dst,
                    next.min(pos),
                    next.max(pos),
                    if pos > next {
                        "never sent"
                    } else {
                        "sent twice"
                    }
                )));
            }
            next = pos + len;
        }
        let total = demand_bytes(demands[i].bits);
        if next != total {
            return Err(bad(format!(
                "demand {i}: {next} of its {total} bytes are sent"
            )));
        }
    }
    Ok(())
}

/// Every receive of tick `t` was paired with a send: per rank, as many
/// receives as sends to it (the first rank that differs is named). One
/// pass over the tick's operations.
fn check_receives_paired(p: &P2pProgram, t: usize) -> Result<(), InteropError> {
    // (receives at r, sends to r) for every rank that has either.
    let mut counts: HashMap<u32, (usize, usize)> = HashMap::new();
    for (r, rp) in p.ranks.iter().enumerate() {
        for o in &rp.ticks[t] {
            match o.op {
                OpKind::Recv => counts.entry(r as u32).or_default().0 += 1,
                OpKind::Send => counts.entry(o.peer).or_default().1 += 1,
            }
        }
    }
    match counts.into_iter().filter(|(_, (a, b))| a != b).min() {
        Some((r, (recvs, sends))) => Err(bad(format!(
            "rank {r}, tick {t}: {recvs} receives but {sends} sends to it"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_too_long_to_write_is_refused_before_lowering() {
        let ticks = MAX_TICK_LISTS / 2 + 1;
        let inst = Instance::new(
            Model::Strict1,
            2,
            8,
            [Demand {
                src: 0,
                dst: 1,
                bits: ticks * 8,
            }],
            &Limits::default(),
        )
        .unwrap();
        let mut s = Schedule::new();
        s.push(ticks, vec![0]);
        match export(&inst, &s) {
            Err(InteropError::Invalid(m)) => assert!(m.contains("tick lists"), "{m}"),
            other => panic!("expected a refusal, got {:?}", other.map(|p| p.ticks)),
        }
    }
}
