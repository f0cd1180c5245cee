//! The load a schedule puts on the cluster: per tick (utilisation) and per
//! slot (which slot idles, which is the bottleneck), in bins for charts.
//!
//! Only transfers a tick can really hold are counted: within a tick,
//! transfers are taken in file order and one is counted when its slots
//! still have a free port for it (STRICT1: sends plus receives of a slot
//! <= its ports; READ1_WRITE1: sends <= ports and receives <= ports).
//! A transfer that conflicts with earlier ones in its tick, names a slot
//! outside the instance or is malformed is not load but an error (the
//! validator reports it), so utilisation never passes 100 %.

use crate::instance::{Instance, Model};
use serde::Serialize;

/// How many tick bins a chart gets at most.
pub const MAX_BUCKETS: usize = 200;

/// How many slot rows the per-slot view gets at most (more slots are
/// grouped into rows of consecutive slots).
pub const MAX_SLOT_ROWS: usize = 128;

/// How many slots [`SlotLoad`] names as busiest and idlest.
pub const NAMED_SLOTS: usize = 5;

/// Counted transfers per tick against the most one tick can hold, binned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Utilisation {
    /// The most transfers a tick can hold: floor(ports/2) for STRICT1,
    /// ports for READ1_WRITE1 (each slot sends once and receives once per port).
    pub capacity_per_tick: u64,
    /// Ticks per bucket (the last bucket may hold fewer).
    pub ticks_per_bucket: u64,
    /// Mean utilisation (0..=1) of each bucket, in tick order.
    pub buckets: Vec<f64>,
    /// Mean utilisation over the whole schedule (counted transfers only).
    pub mean: f64,
    /// Transfers in the file (chunks), counted or not.
    pub transfers: u64,
    /// Transfers not counted: over a slot's ports in their tick (a
    /// conflict), a slot outside the instance, or malformed.
    pub not_counted: u64,
}

/// One row of the per-slot view: a slot, or consecutive slots.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotRow {
    pub first_slot: u32,
    pub last_slot: u32,
    /// Busy fraction (0..=1) of the row's port capacity in each tick bin.
    pub bins: Vec<f64>,
    /// Busy fraction over the whole schedule.
    pub busy: f64,
}

/// One slot's busy fraction over the whole schedule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlotBusy {
    pub slot: u32,
    /// Port-uses of the slot over the most it could have (0..=1).
    pub busy: f64,
}

/// Which slots work and which idle: a slot x tick heat map in bins, and
/// the busiest (the bottleneck: a slot busy in every tick bounds the
/// schedule) and idlest slots.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotLoad {
    /// Slots per row (1 when every slot has its own row).
    pub slots_per_row: u32,
    /// Ticks per column (the utilisation buckets').
    pub ticks_per_bin: u64,
    pub rows: Vec<SlotRow>,
    /// Busiest slots first (at most [`NAMED_SLOTS`]).
    pub busiest: Vec<SlotBusy>,
    /// Idlest slots first (at most [`NAMED_SLOTS`]).
    pub idlest: Vec<SlotBusy>,
}

/// Accumulates a schedule's ticks into [`Utilisation`] and [`SlotLoad`].
pub struct LoadCounter<'a> {
    inst: &'a Instance,
    per_bucket: u64,
    /// Counted transfers and ticks per bucket.
    sums: Vec<u64>,
    sizes: Vec<u64>,
    tick: u64,
    transfers: u64,
    not_counted: u64,
    /// Port-uses per slot over the whole schedule.
    slot_uses: Vec<u64>,
    slots_per_row: u32,
    /// Port-uses per (row, bucket), row-major.
    grid: Vec<u64>,
    /// This tick's sends and receives per slot, and the slots touched.
    sends: Vec<u32>,
    recvs: Vec<u32>,
    touched: Vec<u32>,
}

impl<'a> LoadCounter<'a> {
    /// A counter for a schedule of about `ticks` ticks (more are kept).
    pub fn new(inst: &'a Instance, ticks: u64) -> LoadCounter<'a> {
        let per_bucket = ticks.div_ceil(MAX_BUCKETS as u64).max(1);
        let n = ticks.div_ceil(per_bucket) as usize;
        let slots = inst.slots as usize;
        let slots_per_row = (slots.div_ceil(MAX_SLOT_ROWS)).max(1) as u32;
        let rows = slots.div_ceil(slots_per_row as usize);
        LoadCounter {
            inst,
            per_bucket,
            sums: vec![0; n],
            sizes: vec![0; n],
            tick: 0,
            transfers: 0,
            not_counted: 0,
            slot_uses: vec![0; slots],
            slots_per_row,
            grid: vec![0; rows * n],
            sends: vec![0; slots],
            recvs: vec![0; slots],
            touched: Vec::new(),
        }
    }

    /// Whether the transfer `src -> dst` still fits this tick; takes its
    /// ports when it does.
    fn take(&mut self, src: i128, dst: i128) -> bool {
        let n = self.inst.slots as i128;
        if !(0..n).contains(&src) || !(0..n).contains(&dst) || src == dst {
            return false;
        }
        let (s, d) = (src as usize, dst as usize);
        let (ps, pd) = (self.inst.port(s), self.inst.port(d));
        let fits = match self.inst.model {
            Model::Strict1 => {
                self.sends[s] + self.recvs[s] < ps && self.sends[d] + self.recvs[d] < pd
            }
            Model::Read1Write1 => self.sends[s] < ps && self.recvs[d] < pd,
        };
        if fits {
            for v in [s, d] {
                if self.sends[v] + self.recvs[v] == 0 {
                    self.touched.push(v as u32);
                }
            }
            self.sends[s] += 1;
            self.recvs[d] += 1;
        }
        fits
    }

    /// `repeat` consecutive ticks, each holding the transfers `chunks`
    /// (`None` for a malformed one), in file order.
    pub fn ticks(&mut self, chunks: impl Iterator<Item = Option<(i128, i128)>>, repeat: u64) {
        let (mut all, mut counted) = (0u64, 0u64);
        for c in chunks {
            all += 1;
            if c.is_some_and(|(s, d)| self.take(s, d)) {
                counted += 1;
            }
        }
        self.transfers += all * repeat;
        self.not_counted += (all - counted) * repeat;
        let touched = std::mem::take(&mut self.touched);
        for &v in &touched {
            let v = v as usize;
            let uses = (self.sends[v] + self.recvs[v]) as u64;
            self.slot_uses[v] += uses * repeat;
        }
        let mut left = repeat;
        while left > 0 {
            let b = (self.tick / self.per_bucket) as usize;
            if b >= self.sums.len() {
                // More ticks than announced: grow rather than lose them.
                self.grow();
                continue;
            }
            let room = (b as u64 + 1) * self.per_bucket - self.tick;
            let take = room.min(left);
            self.sums[b] += counted * take;
            self.sizes[b] += take;
            let nb = self.sums.len();
            for &v in &touched {
                let v = v as usize;
                let row = v / self.slots_per_row as usize;
                self.grid[row * nb + b] += (self.sends[v] + self.recvs[v]) as u64 * take;
            }
            self.tick += take;
            left -= take;
        }
        for &v in &touched {
            self.sends[v as usize] = 0;
            self.recvs[v as usize] = 0;
        }
        self.touched = touched;
        self.touched.clear();
    }

    /// One more bucket (the grid keeps its rows).
    fn grow(&mut self) {
        let nb = self.sums.len();
        let rows = self.grid.len().checked_div(nb).unwrap_or(0);
        let mut grid = vec![0; rows * (nb + 1)];
        for r in 0..rows {
            grid[r * (nb + 1)..r * (nb + 1) + nb].copy_from_slice(&self.grid[r * nb..(r + 1) * nb]);
        }
        self.grid = grid;
        self.sums.push(0);
        self.sizes.push(0);
    }

    /// `run` empty ticks.
    pub fn empty(&mut self, run: u64) {
        self.ticks(std::iter::empty(), run);
    }

    /// The most port-uses slot `v` has in one tick: its ports, twice under
    /// READ1_WRITE1 (a send side and a receive side).
    fn slot_capacity(&self, v: usize) -> u64 {
        let p = self.inst.port(v) as u64;
        match self.inst.model {
            Model::Strict1 => p,
            Model::Read1Write1 => 2 * p,
        }
    }

    pub fn finish(self) -> (Utilisation, SlotLoad) {
        let capacity = super::capacity_per_tick(self.inst);
        let cap = capacity.max(1) as f64;
        let kept: Vec<usize> = (0..self.sums.len())
            .filter(|&b| self.sizes[b] > 0)
            .collect();
        let buckets = kept
            .iter()
            .map(|&b| self.sums[b] as f64 / (self.sizes[b] as f64 * cap))
            .collect();
        let counted = self.transfers - self.not_counted;
        let ticks = self.tick;
        let util = Utilisation {
            capacity_per_tick: capacity,
            ticks_per_bucket: self.per_bucket,
            buckets,
            mean: if ticks == 0 {
                0.0
            } else {
                counted as f64 / (ticks as f64 * cap)
            },
            transfers: self.transfers,
            not_counted: self.not_counted,
        };
        let slots = self.inst.slots as usize;
        let per_row = self.slots_per_row as usize;
        let nb = self.sums.len();
        let rows = (0..slots.div_ceil(per_row))
            .map(|r| {
                let (first, last) = (r * per_row, ((r + 1) * per_row).min(slots) - 1);
                let row_cap: u64 = (first..=last).map(|v| self.slot_capacity(v)).sum();
                let bins = kept
                    .iter()
                    .map(|&b| {
                        let room = (row_cap * self.sizes[b]).max(1);
                        self.grid[r * nb + b] as f64 / room as f64
                    })
                    .collect();
                let used: u64 = self.slot_uses[first..=last].iter().sum();
                SlotRow {
                    first_slot: first as u32,
                    last_slot: last as u32,
                    bins,
                    busy: used as f64 / (row_cap * ticks).max(1) as f64,
                }
            })
            .collect();
        let mut by_busy: Vec<SlotBusy> = (0..slots)
            .map(|v| SlotBusy {
                slot: v as u32,
                busy: self.slot_uses[v] as f64 / (self.slot_capacity(v) * ticks).max(1) as f64,
            })
            .collect();
        // Busiest first; equal loads by slot id, so the output is stable.
        by_busy.sort_by(|a, b| b.busy.total_cmp(&a.busy).then(a.slot.cmp(&b.slot)));
        let busiest = by_busy.iter().take(NAMED_SLOTS).copied().collect();
        let idlest = by_busy.iter().rev().take(NAMED_SLOTS).copied().collect();
        let load = SlotLoad {
            slots_per_row: self.slots_per_row,
            ticks_per_bin: self.per_bucket,
            rows,
            busiest,
            idlest,
        };
        (util, load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};

    fn inst(model: Model) -> Instance {
        let demands = vec![
            Demand {
                src: 0,
                dst: 1,
                bits: 2048,
            },
            Demand {
                src: 2,
                dst: 3,
                bits: 1024,
            },
        ];
        Instance::new(model, 4, 1024, demands, &Limits::default()).unwrap()
    }

    /// A conflicting transfer (slot 0 twice in one STRICT1 tick) and one to
    /// a slot outside the instance are not load.
    #[test]
    fn conflicts_and_unknown_slots_are_not_counted() {
        let i = inst(Model::Strict1);
        let mut c = LoadCounter::new(&i, 2);
        c.ticks([Some((0, 1)), Some((0, 1)), Some((2, 3))].into_iter(), 1);
        c.ticks([Some((0, 1)), Some((0, 9)), None].into_iter(), 1);
        let (u, l) = c.finish();
        assert_eq!((u.transfers, u.not_counted), (6, 3));
        // Capacity 2 per tick: 2 then 1 counted.
        assert_eq!(u.buckets, vec![1.0, 0.5]);
        assert_eq!(u.mean, 0.75);
        // Slots 0 and 1 busy in both ticks, 2 and 3 in one.
        assert_eq!(l.busiest[0], SlotBusy { slot: 0, busy: 1.0 });
        assert_eq!(l.idlest[0], SlotBusy { slot: 3, busy: 0.5 });
        assert_eq!(l.rows.len(), 4);
        assert_eq!(l.rows[2].bins, vec![1.0, 0.0]);
    }

    /// Under READ1_WRITE1 a slot may send and receive in one tick; a
    /// repeated round counts once per tick.
    #[test]
    fn read1_write1_and_repeats() {
        let i = inst(Model::Read1Write1);
        let mut c = LoadCounter::new(&i, 4);
        c.ticks([Some((0, 1)), Some((1, 0))].into_iter(), 3);
        c.empty(1);
        let (u, l) = c.finish();
        assert_eq!((u.transfers, u.not_counted), (6, 0));
        assert_eq!(u.mean, 6.0 / 16.0);
        assert_eq!(l.busiest[0].busy, 0.75);
        assert_eq!(l.idlest[0], SlotBusy { slot: 3, busy: 0.0 });
    }

    /// 450 ticks -> 3 ticks per bucket, 150 buckets; runs spread over them.
    #[test]
    fn runs_spread_over_buckets_and_more_ticks_than_announced_are_kept() {
        let i = inst(Model::Read1Write1);
        let mut c = LoadCounter::new(&i, 450);
        c.ticks([Some((0, 1)), Some((2, 3))].into_iter(), 300);
        c.ticks([Some((0, 1))].into_iter(), 150);
        let (u, l) = c.finish();
        assert_eq!(u.ticks_per_bucket, 3);
        assert_eq!(u.buckets.len(), 150);
        assert_eq!((u.buckets[0], u.buckets[149]), (0.5, 0.25));
        assert_eq!(u.transfers, 750);
        assert_eq!(l.rows[0].bins.len(), 150);
        let i = inst(Model::Strict1);
        let mut c = LoadCounter::new(&i, 1);
        c.ticks([Some((0, 1))].into_iter(), 3);
        let (u, l) = c.finish();
        assert_eq!(u.buckets, vec![0.5, 0.5, 0.5]);
        assert_eq!(l.rows[1].bins, vec![1.0, 1.0, 1.0]);
    }
}
