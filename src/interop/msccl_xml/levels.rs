//! What an MSCCL program does, as tickopt sees it: its transfers (who
//! sends how many chunks to whom), the tick of each by dependency levels,
//! and where every chunk ends up.
//!
//! Three steps: [`super::pairing`] pairs the k-th sending step from a to b
//! on channel c with the k-th receiving step at b from a on channel c (same
//! `cnt`); [`super::run`] runs the program as the executor does (receives
//! wait, sends are buffered per connection when they must be) and places
//! every transfer in its dependency level; here the moves are replayed to
//! learn where every chunk ends up, which gives the two instances a
//! program stands for ([`Demands`]): its hops, and the collective it
//! implements (every chunk from where it starts to where it ends up).

use super::pairing::{pair, Flat};
pub use super::run::Transfer;
use super::run::{buffer_depth, run, Move};
use super::{Buf, Program};
use crate::instance::{Demand, Instance, Limits, Model, Ports};
use crate::interop::InteropError;
use std::collections::{BTreeMap, HashMap};

/// Which instance a program stands for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Demands {
    /// Every transfer is a demand of its pair (a relay counts once per
    /// hop): the instance the program's ticks are a schedule of.
    #[default]
    Hops,
    /// The collective the program implements: one chunk from the gpu where
    /// it starts (the buffer place a step first reads it from) to every
    /// gpu whose output buffer holds it at the end. Chunks that stay on
    /// their gpu are no demand.
    EndToEnd,
}

/// An imported program (see the module docs).
#[derive(Clone, Debug)]
pub struct Imported {
    pub ngpus: u32,
    /// In order of tick (and within a tick, of pairing).
    pub transfers: Vec<Transfer>,
    /// Ticks of the levels (0 for a program without transfers).
    pub ticks: u64,
    /// Local copies (`cpy` steps): no tick, no transfer.
    pub copies: u64,
    /// Sends written into their connection's buffer before their receive
    /// was reached (see [`super::run`]).
    pub buffered: u64,
    /// What the executor would object to but tickopt can read (missing
    /// `minBytes`/`maxBytes`/`outofplace`, more than 64 steps in a
    /// threadblock), and how the program was run (buffered sends).
    pub notes: Vec<String>,
    /// For every gpu, its output buffer at the end: where each chunk
    /// started (a place that held it before the program wrote there).
    outputs: Vec<Vec<Origin>>,
}

/// A chunk's identity: the place (gpu, buffer, offset) it started in.
type Origin = (u32, Buf, u64);

/// Per sub-tick of a level being split: (sends, receives) per slot, pairs.
type SubTick = (HashMap<u64, (u32, u32)>, Vec<(u64, u64)>);

/// Steps a default MSCCL build runs per threadblock (`MSCCL_MAX_NUM_STEPS`).
pub const RUNTIME_MAX_STEPS: usize = 64;

/// Runs `p` as tickopt sees it (see the module docs).
pub fn import(p: &Program) -> Result<Imported, InteropError> {
    let f = Flat::new(p);
    let pairs = pair(&f)?;
    let depth = buffer_depth(&p.proto);
    let trace = run(&f, &pairs, depth)?;
    let mut transfers = trace.transfers;
    transfers.sort_by_key(|t| t.tick); // stable: pairing order within a tick
    let ticks = transfers.iter().map(|t| t.tick + 1).max().unwrap_or(0);
    let mut notes = runtime_notes(p);
    if trace.buffered > 0 {
        notes.push(format!(
            "{} send(s) go before their receive is reached: the executor writes them into the connection's buffer ({depth} chunks under proto {:?}) and goes on",
            trace.buffered, p.proto
        ));
    }
    Ok(Imported {
        ngpus: p.gpus.len() as u32,
        transfers,
        ticks,
        copies: trace.copies,
        buffered: trace.buffered,
        notes,
        outputs: replay(p, &trace.moves),
    })
}

/// Every gpu's output buffer after `moves`, replayed in order from buffers
/// that hold their own places.
fn replay(p: &Program, moves: &[Move]) -> Vec<Vec<Origin>> {
    let mut bufs: HashMap<(u32, Buf), Vec<Origin>> = HashMap::new();
    for gpu in &p.gpus {
        for (b, n) in [
            (Buf::Input, gpu.i_chunks),
            (Buf::Output, gpu.o_chunks),
            (Buf::Scratch, gpu.s_chunks),
        ] {
            bufs.insert((gpu.id, b), (0..n).map(|o| (gpu.id, b, o)).collect());
        }
    }
    for m in moves {
        for j in 0..m.cnt as u64 {
            let v = bufs
                .get(&(m.from.0, m.from.1))
                .and_then(|b| b.get((m.from.2 + j) as usize))
                .copied();
            let slot = bufs
                .get_mut(&(m.to.0, m.to.1))
                .and_then(|b| b.get_mut((m.to.2 + j) as usize));
            if let (Some(v), Some(slot)) = (v, slot) {
                *slot = v;
            }
        }
    }
    p.gpus
        .iter()
        .map(|g| bufs.remove(&(g.id, Buf::Output)).unwrap_or_default())
        .collect()
}

/// What the executor would say of the file that tickopt can still read.
fn runtime_notes(p: &Program) -> Vec<String> {
    let mut notes = Vec::new();
    for (key, v, why) in [
        ("minBytes", p.min_bytes.is_some(), " (Azure/msccl#26)"),
        ("maxBytes", p.max_bytes.is_some(), " (Azure/msccl#26)"),
        ("outofplace", p.outofplace.is_some(), ""),
    ] {
        if !v {
            notes.push(format!(
                "<algo> has no {key}: the MSCCL executor's parser refuses the file{why}"
            ));
        }
    }
    if !matches!(p.proto.as_str(), "Simple" | "LL" | "LL128") {
        notes.push(format!(
            "proto {:?}: the MSCCL executor knows Simple, LL and LL128 (run here with Simple's buffer depth)",
            p.proto
        ));
    }
    if let Some((g, tb)) = p
        .gpus
        .iter()
        .flat_map(|g| g.tbs.iter().map(move |t| (g.id, t)))
        .max_by_key(|(_, t)| t.steps.len())
        .filter(|(_, t)| t.steps.len() > RUNTIME_MAX_STEPS)
    {
        notes.push(format!(
            "gpu {g}, tb {} has {} steps: a default MSCCL build runs at most {RUNTIME_MAX_STEPS} per threadblock (MSCCL_MAX_NUM_STEPS)",
            tb.id,
            tb.steps.len()
        ));
    }
    notes
}

impl Imported {
    /// Chunks sent from a to b, for every pair that sends any.
    pub fn chunk_counts(&self) -> BTreeMap<(u32, u32), u64> {
        let mut m = BTreeMap::new();
        for t in &self.transfers {
            *m.entry((t.src, t.dst)).or_insert(0) += t.chunks as u64;
        }
        m
    }

    /// Chunks that start on gpu a and end up in gpu b's output buffer, for
    /// every pair a != b with any ([`Demands::EndToEnd`]).
    pub fn end_to_end_counts(&self) -> BTreeMap<(u32, u32), u64> {
        let mut m = BTreeMap::new();
        for (dst, out) in self.outputs.iter().enumerate() {
            for &(src, _, _) in out {
                if src != dst as u32 {
                    *m.entry((src, dst as u32)).or_insert(0) += 1;
                }
            }
        }
        m
    }

    /// The chunk counts of `demands`.
    pub fn counts(&self, demands: Demands) -> BTreeMap<(u32, u32), u64> {
        match demands {
            Demands::Hops => self.chunk_counts(),
            Demands::EndToEnd => self.end_to_end_counts(),
        }
    }

    /// The instance of `demands`: one demand per pair, `chunks x bw` bits,
    /// within `limits` (slots, demands).
    pub fn instance(
        &self,
        demands: Demands,
        model: Model,
        bw: u64,
        ports: Option<u32>,
        limits: &Limits,
    ) -> Result<Instance, InteropError> {
        let demands: Vec<(Demand, Option<u64>)> = self
            .counts(demands)
            .into_iter()
            .map(|((src, dst), c)| {
                c.checked_mul(bw)
                    .map(|bits| (Demand { src, dst, bits }, None))
                    .ok_or_else(|| {
                        InteropError::Invalid(format!(
                            "{c} chunks of {bw} bits from {src} to {dst} overflow"
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Instance::new_multiport(
            model,
            self.ngpus,
            bw,
            demands,
            Ports::Uniform(ports.unwrap_or(1)),
            limits,
        )?)
    }

    /// The ticks as written: every chunk of every transfer as a pair.
    pub fn levels(&self) -> Vec<Vec<(u64, u64)>> {
        let mut ticks = vec![Vec::new(); self.ticks as usize];
        for t in &self.transfers {
            for _ in 0..t.chunks {
                ticks[t.tick as usize].push((t.src as u64, t.dst as u64));
            }
        }
        ticks
    }

    /// The levels with each one split into ticks that fit `inst`'s model
    /// and ports (first fit, in order; a level that fits stays one tick).
    pub fn serialized(&self, inst: &Instance) -> Vec<Vec<(u64, u64)>> {
        let mut out = Vec::new();
        for level in self.levels() {
            // Per sub-tick: (sends, receives) of each slot used so far.
            let mut subs: Vec<SubTick> = Vec::new();
            for (a, b) in level {
                let fits = |used: &HashMap<u64, (u32, u32)>| {
                    let (sa, ra) = used.get(&a).copied().unwrap_or((0, 0));
                    let (sb, rb) = used.get(&b).copied().unwrap_or((0, 0));
                    let (pa, pb) = (inst.port(a as usize), inst.port(b as usize));
                    match inst.model {
                        Model::Strict1 => sa + ra < pa && sb + rb < pb,
                        Model::Read1Write1 => sa < pa && rb < pb,
                    }
                };
                let i = match subs.iter().position(|(u, _)| fits(u)) {
                    Some(i) => i,
                    None => {
                        subs.push(Default::default());
                        subs.len() - 1
                    }
                };
                let (used, pairs) = &mut subs[i];
                used.entry(a).or_default().0 += 1;
                used.entry(b).or_default().1 += 1;
                pairs.push((a, b));
            }
            out.extend(subs.into_iter().map(|(_, p)| p));
        }
        out
    }

    /// Where chunk `off` of `gpu`'s output buffer came from: (gpu, offset
    /// in its input buffer), or `None` if it holds no input chunk.
    pub fn output_origin(&self, gpu: u32, off: u64) -> Option<(u32, u64)> {
        match *self.outputs.get(gpu as usize)?.get(off as usize)? {
            (g, Buf::Input, o) => Some((g, o)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Imported, InteropError> {
        import(&super::super::parse(text)?)
    }

    #[test]
    fn a_ring_that_sends_first_runs_in_three_levels_with_every_send_buffered() {
        let ring = load(include_str!(
            "../../../tests/data/msccl_allgather_ring_4.xml"
        ))
        .unwrap();
        assert_eq!(ring.ticks, 3);
        assert_eq!(ring.buffered, 12);
        let ticks: Vec<u64> = ring.transfers.iter().map(|t| t.tick).collect();
        assert_eq!(ticks, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(ring.chunk_counts().len(), 4);
        assert_eq!(ring.end_to_end_counts().len(), 12);
        assert!(ring.end_to_end_counts().values().all(|&c| c == 1));
    }

    #[test]
    fn a_relay_counts_its_hops_and_its_collective() {
        let relay = load(include_str!(
            "../../../tests/data/msccl_alltoall_2x4_relay.xml"
        ))
        .unwrap();
        let hops: u64 = relay.chunk_counts().values().sum();
        let e2e = relay.end_to_end_counts();
        assert_eq!((relay.chunk_counts().len(), hops), (32, 80));
        assert_eq!(e2e.len(), 56);
        for a in 0..8u32 {
            for b in (0..8u32).filter(|&b| b != a) {
                assert_eq!(e2e.get(&(a, b)), Some(&1), "{a} -> {b}");
                // gpu b's output holds a's chunk for b at offset a.
                assert_eq!(relay.output_origin(b, a as u64), Some((a, b as u64)));
            }
        }
    }

    /// The instance is built within the caller's limits (the CLI's
    /// `--max-slots`/`--max-demands`), not the defaults.
    #[test]
    fn the_instance_keeps_the_limits_it_is_given() {
        let ring = load(include_str!(
            "../../../tests/data/msccl_allgather_ring_4.xml"
        ))
        .unwrap();
        let at = |max_slots, max_demands| {
            let limits = Limits {
                max_slots,
                max_demands,
            };
            ring.instance(Demands::EndToEnd, Model::Strict1, 8, None, &limits)
        };
        assert_eq!(at(4, 12).unwrap().demands().len(), 12);
        let e = at(4, 11).unwrap_err().to_string();
        assert!(e.contains("limit of 11 demand rows (--max-demands)"), "{e}");
        let e = at(3, 12).unwrap_err().to_string();
        assert!(e.contains("limit of 3 slots (--max-slots)"), "{e}");
    }

    #[test]
    fn the_buffer_depth_depends_on_the_protocol() {
        let text = include_str!("../../../tests/data/msccl_overflow_2.xml");
        let e = load(text).unwrap_err().to_string();
        assert!(
            e.contains("does not fit the connection's buffer (2 chunks"),
            "{e}"
        );
        let ll = load(&text.replace("proto=\"Simple\"", "proto=\"LL128\"")).unwrap();
        assert_eq!((ll.ticks, ll.buffered), (1, 2));
        let e = load(include_str!("../../../tests/data/msccl_cycle_2.xml")).unwrap_err();
        assert!(e.to_string().contains("waits forever"), "{e}");
    }
}
