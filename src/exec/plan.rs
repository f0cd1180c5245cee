//! Execution plans: which bytes move where in each tick, checked before
//! anything runs.
//!
//! A [`Layout`] maps slots to buffers: every slot owns one buffer (on one
//! device) holding a *send region* for each demand it sources and a
//! *receive region* for each demand it sinks. A [`Plan`] is the list of
//! ticks, each a list of [`Transfer`]s (byte copies) between those buffers.
//!
//! A `Plan` can only be obtained through [`Plan::from_parts`] (or the
//! builders that call it), which checks it: every copy reads a range of one
//! demand's send region and writes the same range of that demand's receive
//! region; within a tick no two ranges overlap (so concurrent copies cannot
//! race) and, for a scheduled plan, the resource model holds; over the
//! whole plan every byte of every demand is moved exactly once. Executors
//! therefore never run a schedule that does not move every byte exactly once.

use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use serde::Serialize;

/// Byte offsets of regions are aligned to this (the CUDA allocation
/// granularity for coalesced copies).
pub const REGION_ALIGN: u64 = 256;

/// The largest number of copies a plan may hold (memory is per copy).
pub const MAX_PLAN_COPIES: u64 = 50_000_000;

/// Where one demand's bytes live.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    pub src_slot: u32,
    pub dst_slot: u32,
    /// Offset of the send region in the source slot's buffer.
    pub src_offset: u64,
    /// Offset of the receive region in the destination slot's buffer.
    pub dst_offset: u64,
    /// Bytes of the demand after scaling: `ceil(bits / scale_bits / 8)`.
    pub bytes: u64,
}

/// Slot-to-buffer mapping of an instance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Bits of the instance per byte-eighth: a demand of `b` bits occupies
    /// `ceil(b / scale_bits / 8)` bytes.
    pub scale_bits: u64,
    /// Number of devices the slots are spread over (slot `s` on `s % devices`).
    pub devices: u32,
    /// One entry per demand, indexed like [`Instance::demands`].
    pub regions: Vec<Region>,
    /// Size of each slot's buffer in bytes.
    pub slot_bytes: Vec<u64>,
    /// Offset of each slot's buffer in its device's arena.
    pub slot_base: Vec<u64>,
    /// Arena size of each device in bytes.
    pub device_bytes: Vec<u64>,
    /// Ports of each slot (DESIGN.md §11): how many copies it may run in
    /// one tick under the model. Left out of reports when all are 1.
    #[serde(skip_serializing_if = "all_one")]
    pub ports: Vec<u32>,
}

fn all_one(ports: &[u32]) -> bool {
    ports.iter().all(|&p| p == 1)
}

impl Layout {
    /// Lays out `inst`'s slots: slot `s` holds its send regions (demands
    /// from `s`, in demand order), then its receive regions (demands into
    /// `s`, in demand order), each aligned to [`REGION_ALIGN`]; slot `s`
    /// lives on device `s % devices`, slots of a device one after another.
    pub fn new(inst: &Instance, scale_bits: u64, devices: u32) -> Result<Layout, PlanError> {
        if scale_bits == 0 {
            return Err(PlanError::Options("scale_bits must be >= 1".into()));
        }
        if devices == 0 {
            return Err(PlanError::Options("at least one device is needed".into()));
        }
        let n = inst.slots as usize;
        let mut fill = vec![0u64; n];
        let mut regions: Vec<Region> = inst
            .demands()
            .iter()
            .map(|d| Region {
                src_slot: d.src,
                dst_slot: d.dst,
                src_offset: 0,
                dst_offset: 0,
                bytes: scaled_bytes(d.bits, scale_bits),
            })
            .collect();
        let overflow = || PlanError::TooLarge("the buffers exceed 2^64 bytes".into());
        for r in regions.iter_mut() {
            let f = &mut fill[r.src_slot as usize];
            r.src_offset = *f;
            *f = align(f.checked_add(r.bytes).ok_or_else(overflow)?).ok_or_else(overflow)?;
        }
        for r in regions.iter_mut() {
            let f = &mut fill[r.dst_slot as usize];
            r.dst_offset = *f;
            *f = align(f.checked_add(r.bytes).ok_or_else(overflow)?).ok_or_else(overflow)?;
        }
        let mut device_bytes = vec![0u64; devices as usize];
        let mut slot_base = vec![0u64; n];
        for s in 0..n {
            let d = s % devices as usize;
            slot_base[s] = device_bytes[d];
            device_bytes[d] = device_bytes[d].checked_add(fill[s]).ok_or_else(overflow)?;
        }
        Ok(Layout {
            scale_bits,
            devices,
            regions,
            slot_bytes: fill,
            slot_base,
            device_bytes,
            ports: (0..n).map(|v| inst.port(v)).collect(),
        })
    }

    /// Device index (into the executor's device list) of `slot`.
    pub fn device_of(&self, slot: u32) -> usize {
        slot as usize % self.devices as usize
    }

    /// Offset of `slot`'s byte `offset` in its device's arena.
    pub fn arena_offset(&self, slot: u32, offset: u64) -> u64 {
        self.slot_base[slot as usize] + offset
    }

    /// Total bytes over all regions (what a full replay moves).
    pub fn payload_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.bytes).sum()
    }

    /// Total buffer bytes over all devices (payload, both sides, plus padding).
    pub fn total_bytes(&self) -> u64 {
        self.device_bytes.iter().sum()
    }

    /// Byte range `[start, end)`, relative to demand `i`'s region, of bit
    /// range `[b0, b1)` of that demand.
    fn byte_range(&self, b0: u64, b1: u64) -> (u64, u64) {
        (
            scaled_bytes(b0, self.scale_bits),
            scaled_bytes(b1, self.scale_bits),
        )
    }
}

/// `ceil(bits / scale / 8)`, without overflow.
pub fn scaled_bytes(bits: u64, scale_bits: u64) -> u64 {
    (bits as u128).div_ceil(scale_bits as u128 * 8) as u64
}

fn align(x: u64) -> Option<u64> {
    x.checked_next_multiple_of(REGION_ALIGN)
}

/// One transfer of one tick: `len` bytes from `src_slot`'s buffer at
/// `src_offset` to `dst_slot`'s buffer at `dst_offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Transfer {
    pub src_slot: u32,
    pub dst_slot: u32,
    pub src_offset: u64,
    pub dst_offset: u64,
    pub len: u64,
}

/// How the plan was made, which decides what `Plan::check` requires of a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanKind {
    /// Ticks of a schedule: each tick must respect the model.
    Scheduled(Model),
    /// Every transfer at once, no model (the baseline without a schedule).
    Unscheduled,
}

/// A checked execution plan (see the module docs for what is checked).
#[derive(Clone, Debug)]
pub struct Plan {
    kind: PlanKind,
    layout: Layout,
    ticks: Vec<Vec<Transfer>>,
}

/// Why a plan (or the schedule it came from) cannot be executed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("invalid execution options: {0}")]
    Options(String),
    #[error("{0}; use --scale-bits to shrink the buffers")]
    TooLarge(String),
    #[error("schedule refers to demand index {index}, but the instance has {demands} demands (round {round})")]
    UnknownDemand {
        round: usize,
        index: u32,
        demands: usize,
    },
    #[error("schedule sends {sent} chunks of demand {src}->{dst}, which has {expected}: it does not move every byte exactly once")]
    ChunkCount {
        src: u32,
        dst: u32,
        sent: u64,
        expected: u64,
    },
    #[error("tick {tick}, copy {copy}: {what}")]
    BadTransfer {
        tick: usize,
        copy: usize,
        what: String,
    },
    #[error("tick {tick}: {what}")]
    BadTick { tick: usize, what: String },
    #[error("demand {src}->{dst}: bytes {start}..{end} of its {bytes}-byte region are {what}")]
    Coverage {
        src: u32,
        dst: u32,
        start: u64,
        end: u64,
        bytes: u64,
        what: &'static str,
    },
}

impl Plan {
    /// The plan of a compact schedule: tick by tick, each chunk of a demand
    /// copies its byte range (chunk `k` covers bits `[k bw, min((k+1) bw,
    /// bits))`, scaled). The schedule must send each demand exactly its
    /// chunk count, and the result must pass [`Plan::from_parts`]'s checks.
    pub fn from_schedule(
        inst: &Instance,
        schedule: &Schedule,
        scale_bits: u64,
        devices: u32,
    ) -> Result<Plan, PlanError> {
        let layout = Layout::new(inst, scale_bits, devices)?;
        // Classes laid over their members: a plan copies every transfer.
        let schedule = &*schedule.flat();
        let copies: u64 = schedule
            .rounds
            .iter()
            .map(|r| r.repeat.saturating_mul(r.demands.len() as u64))
            .fold(0u64, u64::saturating_add);
        if copies.max(schedule.ticks()) > MAX_PLAN_COPIES {
            return Err(PlanError::TooLarge(format!(
                "the schedule has {copies} transfers in {} ticks; the executor plans at most {MAX_PLAN_COPIES}",
                schedule.ticks()
            )));
        }
        let demands = inst.demands();
        let mut sent = vec![0u64; demands.len()];
        let mut ticks = Vec::with_capacity(schedule.ticks() as usize);
        for (ri, round) in schedule.rounds.iter().enumerate() {
            for &di in &round.demands {
                if di as usize >= demands.len() {
                    return Err(PlanError::UnknownDemand {
                        round: ri,
                        index: di,
                        demands: demands.len(),
                    });
                }
            }
            for _ in 0..round.repeat {
                let tick = round
                    .demands
                    .iter()
                    .map(|&di| {
                        let i = di as usize;
                        let k = sent[i];
                        sent[i] += 1;
                        let d = &demands[i];
                        let bw = inst.demand_bw(i);
                        let b0 = k.saturating_mul(bw);
                        // A chunk beyond the demand keeps a bw-sized range past
                        // its end, so the checks can name it.
                        let b1 = match b0 < d.bits {
                            true => (b0 + bw).min(d.bits),
                            false => b0.saturating_add(bw),
                        };
                        let (s, e) = layout.byte_range(b0, b1);
                        let r = &layout.regions[i];
                        Transfer {
                            src_slot: d.src,
                            dst_slot: d.dst,
                            src_offset: r.src_offset + s,
                            dst_offset: r.dst_offset + s,
                            len: e - s,
                        }
                    })
                    .collect();
                ticks.push(tick);
            }
        }
        for (i, d) in demands.iter().enumerate() {
            if sent[i] != inst.chunks(i) {
                return Err(PlanError::ChunkCount {
                    src: d.src,
                    dst: d.dst,
                    sent: sent[i],
                    expected: inst.chunks(i),
                });
            }
        }
        Plan::from_parts(PlanKind::Scheduled(inst.model), layout, ticks)
    }

    /// The baseline without a schedule: one tick in which every demand's
    /// whole region is copied at once.
    pub fn all_at_once(inst: &Instance, scale_bits: u64, devices: u32) -> Result<Plan, PlanError> {
        let layout = Layout::new(inst, scale_bits, devices)?;
        let tick = layout
            .regions
            .iter()
            .map(|r| Transfer {
                src_slot: r.src_slot,
                dst_slot: r.dst_slot,
                src_offset: r.src_offset,
                dst_offset: r.dst_offset,
                len: r.bytes,
            })
            .collect();
        Plan::from_parts(PlanKind::Unscheduled, layout, vec![tick])
    }

    /// Checks and wraps a plan. Errors name the tick and copy at fault.
    ///
    /// Checks, in O(C log C) for C copies: (1) each copy reads inside one
    /// send region of its source slot and writes the same relative range of
    /// that demand's receive region in its destination slot; (2) within a
    /// tick no two byte ranges (read or written) of a buffer overlap, and a
    /// [`PlanKind::Scheduled`] tick respects its model; (3) over all ticks
    /// each demand's copies tile its region exactly: no byte missing, none
    /// twice.
    pub fn from_parts(
        kind: PlanKind,
        layout: Layout,
        ticks: Vec<Vec<Transfer>>,
    ) -> Result<Plan, PlanError> {
        let plan = Plan {
            kind,
            layout,
            ticks,
        };
        plan.check()?;
        Ok(plan)
    }

    /// A plan without the checks, for tests of the executors' own data
    /// verification.
    #[cfg(test)]
    pub(crate) fn unchecked(kind: PlanKind, layout: Layout, ticks: Vec<Vec<Transfer>>) -> Plan {
        Plan {
            kind,
            layout,
            ticks,
        }
    }

    /// Every copy reads inside one demand's send region and writes the
    /// same bytes of its receive region; no two copies of a tick touch the
    /// same bytes; a scheduled plan keeps its model in every tick; every
    /// region is moved exactly once.
    fn check(&self) -> Result<(), PlanError> {
        let l = &self.layout;
        let slots = l.slot_bytes.len();
        // Regions by (src_slot, src_offset) to find the demand of a read.
        let mut by_src: Vec<(u32, u64, usize)> = l
            .regions
            .iter()
            .enumerate()
            .map(|(i, r)| (r.src_slot, r.src_offset, i))
            .collect();
        by_src.sort_unstable();
        let mut pieces: Vec<Vec<(u64, u64)>> = vec![Vec::new(); l.regions.len()];
        let mut ranges: Vec<(u32, u64, u64)> = Vec::new();
        let mut sends = vec![0u32; slots];
        let mut recvs = vec![0u32; slots];
        for (t, tick) in self.ticks.iter().enumerate() {
            ranges.clear();
            for (j, c) in tick.iter().enumerate() {
                let (i, rel) =
                    self.region_of(&by_src, c)
                        .map_err(|what| PlanError::BadTransfer {
                            tick: t,
                            copy: j,
                            what,
                        })?;
                if c.len > 0 {
                    pieces[i].push((rel, rel + c.len));
                    ranges.push((c.src_slot, c.src_offset, c.src_offset + c.len));
                    ranges.push((c.dst_slot, c.dst_offset, c.dst_offset + c.len));
                }
            }
            check_overlaps(t, &mut ranges)?;
            if let PlanKind::Scheduled(model) = self.kind {
                check_model(t, tick, model, &l.ports, &mut sends, &mut recvs)?;
            }
        }
        check_coverage(&l.regions, &mut pieces)
    }

    /// The region copy `c` reads from (`by_src`: regions by source slot
    /// and offset) and the offset inside it, once its slots are in range,
    /// its bytes inside the region and its write at the same bytes of the
    /// region's receive side; `Err` says what is wrong.
    fn region_of(
        &self,
        by_src: &[(u32, u64, usize)],
        c: &Transfer,
    ) -> Result<(usize, u64), String> {
        let l = &self.layout;
        let slots = l.slot_bytes.len();
        if c.src_slot as usize >= slots || c.dst_slot as usize >= slots {
            return Err(format!(
                "slot {}->{} out of range ({slots} slots)",
                c.src_slot, c.dst_slot
            ));
        }
        let pos = by_src.partition_point(|&(s, off, _)| (s, off) <= (c.src_slot, c.src_offset));
        let found = pos
            .checked_sub(1)
            .map(|p| by_src[p])
            .filter(|&(s, _, _)| s == c.src_slot);
        let Some((_, _, i)) = found else {
            return Err(format!(
                "reads slot {} at byte {}, which is in no send region",
                c.src_slot, c.src_offset
            ));
        };
        let r = &l.regions[i];
        let rel = c.src_offset - r.src_offset;
        if rel.checked_add(c.len).is_none_or(|end| end > r.bytes) {
            return Err(format!(
                "reads bytes {}..{} of demand {}->{}, whose region has {} bytes",
                rel,
                rel.saturating_add(c.len),
                r.src_slot,
                r.dst_slot,
                r.bytes
            ));
        }
        if c.dst_slot != r.dst_slot || c.dst_offset != r.dst_offset + rel {
            return Err(format!(
                "reads bytes {}..{} of demand {}->{} but writes slot {} at byte {} instead of slot {} at byte {}",
                rel,
                rel + c.len,
                r.src_slot,
                r.dst_slot,
                c.dst_slot,
                c.dst_offset,
                r.dst_slot,
                r.dst_offset + rel
            ));
        }
        Ok((i, rel))
    }

    pub fn kind(&self) -> PlanKind {
        self.kind
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The ticks, in order; each tick's copies may run concurrently.
    pub fn ticks(&self) -> &[Vec<Transfer>] {
        &self.ticks
    }

    /// Takes the plan apart (for tools that transform plans; put it back
    /// together with [`Plan::from_parts`], which checks it again).
    pub fn into_parts(self) -> (PlanKind, Layout, Vec<Vec<Transfer>>) {
        (self.kind, self.layout, self.ticks)
    }

    /// Number of copies over all ticks.
    pub fn copies(&self) -> usize {
        self.ticks.iter().map(Vec::len).sum()
    }

    /// Bytes the plan moves (equals the layout's payload for a checked plan).
    pub fn bytes(&self) -> u64 {
        self.ticks.iter().flatten().map(|c| c.len).sum()
    }
}

/// No two copies of tick `t` touch the same bytes of a slot (`ranges`:
/// (slot, start, end) of every read and write, sorted here).
fn check_overlaps(t: usize, ranges: &mut [(u32, u64, u64)]) -> Result<(), PlanError> {
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[0].0 == w[1].0 && w[1].1 < w[0].2 {
            return Err(PlanError::BadTick {
                tick: t,
                what: format!(
                    "two copies touch bytes {}..{} of slot {} at once",
                    w[1].1,
                    w[0].2.min(w[1].2),
                    w[0].0
                ),
            });
        }
    }
    Ok(())
}

/// Tick `t` keeps `model` with the slots' `ports` (a slot with k ports
/// runs up to k copies, per side for READ1_WRITE1); the first slot that
/// breaks it is named. `sends`/`recvs` are zeroed scratch counts per slot,
/// left zeroed.
fn check_model(
    t: usize,
    tick: &[Transfer],
    model: Model,
    ports: &[u32],
    sends: &mut [u32],
    recvs: &mut [u32],
) -> Result<(), PlanError> {
    for c in tick {
        sends[c.src_slot as usize] += 1;
        recvs[c.dst_slot as usize] += 1;
    }
    let mut fault = None;
    for c in tick {
        for s in [c.src_slot, c.dst_slot] {
            let (a, b) = (sends[s as usize], recvs[s as usize]);
            let p = ports.get(s as usize).copied().unwrap_or(1);
            let broken = match model {
                Model::Strict1 => a + b > p,
                Model::Read1Write1 => a > p || b > p,
            };
            if broken && fault.is_none() {
                fault = Some((s, a, b, p));
            }
        }
    }
    for c in tick {
        sends[c.src_slot as usize] = 0;
        recvs[c.dst_slot as usize] = 0;
    }
    if let Some((s, a, b, p)) = fault {
        let ports = match p {
            1 => String::new(),
            p => format!(" with {p} ports"),
        };
        return Err(PlanError::BadTick {
            tick: t,
            what: format!(
                "slot {s} sends {a} and receives {b} times, which {model} forbids{ports}"
            ),
        });
    }
    Ok(())
}

/// Every region's bytes moved exactly once: its pieces (start, end),
/// sorted here, tile 0..its size.
fn check_coverage(regions: &[Region], pieces: &mut [Vec<(u64, u64)>]) -> Result<(), PlanError> {
    for (i, p) in pieces.iter_mut().enumerate() {
        let r = &regions[i];
        p.sort_unstable();
        let mut at = 0u64;
        let cov = |start, end, what| PlanError::Coverage {
            src: r.src_slot,
            dst: r.dst_slot,
            start,
            end,
            bytes: r.bytes,
            what,
        };
        for &(s, e) in p.iter() {
            if s < at {
                return Err(cov(s, at.min(e), "moved more than once"));
            }
            if s > at {
                return Err(cov(at, s, "never moved"));
            }
            at = e;
        }
        if at < r.bytes {
            return Err(cov(at, r.bytes, "never moved"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};

    fn inst(model: Model) -> Instance {
        let d = |src, dst, bits| Demand { src, dst, bits };
        Instance::new(
            model,
            3,
            100,
            [d(0, 1, 250), d(1, 2, 100), d(2, 0, 8), d(1, 0, 1)],
            &Limits::default(),
        )
        .unwrap()
    }

    #[test]
    fn layout_regions_are_aligned_and_disjoint() {
        let i = inst(Model::Read1Write1);
        let l = Layout::new(&i, 1, 1).unwrap();
        assert_eq!(
            l.regions.iter().map(|r| r.bytes).collect::<Vec<_>>(),
            vec![32, 1, 13, 1]
        );
        for r in &l.regions {
            assert_eq!(r.src_offset % REGION_ALIGN, 0);
            assert_eq!(r.dst_offset % REGION_ALIGN, 0);
        }
        // Slot 0 sends 0->1, receives 1->0 and 2->0; slot 1 sends 1->0 and
        // 1->2, then receives 0->1; slot 2 sends 2->0 and receives 1->2.
        assert_eq!(l.regions[0].dst_offset, 2 * REGION_ALIGN);
        assert_eq!(
            l.slot_bytes,
            vec![3 * REGION_ALIGN, 3 * REGION_ALIGN, 2 * REGION_ALIGN]
        );
        assert_eq!(l.slot_base, vec![0, 3 * REGION_ALIGN, 6 * REGION_ALIGN]);
    }

    #[test]
    fn chunks_tile_each_region_even_when_scaled_to_nothing() {
        let i = inst(Model::Read1Write1);
        let s = crate::solve::greedy::greedy_schedule(&i);
        for scale in [1, 3, 7, 1000] {
            let p = Plan::from_schedule(&i, &s, scale, 1).unwrap();
            assert_eq!(p.bytes(), p.layout().payload_bytes());
        }
    }

    #[test]
    fn missing_and_extra_chunks_are_refused() {
        let i = inst(Model::Read1Write1);
        let mut s = crate::solve::greedy::greedy_schedule(&i);
        s.rounds[0].repeat += 1;
        assert!(matches!(
            Plan::from_schedule(&i, &s, 1, 1),
            Err(PlanError::ChunkCount { .. } | PlanError::BadTick { .. })
        ));
        let mut s = crate::solve::greedy::greedy_schedule(&i);
        s.rounds.pop();
        assert!(matches!(
            Plan::from_schedule(&i, &s, 1, 1),
            Err(PlanError::ChunkCount { .. })
        ));
    }
}
