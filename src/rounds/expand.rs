//! Lazy expansion of a compact schedule into per-tick chunks.

use super::Schedule;
use crate::instance::Instance;
use std::borrow::Cow;

/// One transfer in one tick, in copyspace-guard's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    pub src_slot: u32,
    pub dst_slot: u32,
    pub len_bits: u64,
}

/// Streams the ticks of a compact schedule, one `&[Chunk]` at a time.
///
/// Memory: one counter per demand plus one tick buffer. A demand whose
/// chunks run out (the schedule over-covers it) yields chunks of `bw` bits
/// (its bandwidth) beyond its total, so the validator still sees and reports the excess.
/// A schedule with classes is laid out first ([`Schedule::flat`]).
pub struct Expansion<'a> {
    inst: &'a Instance,
    schedule: Cow<'a, Schedule>,
    sent: Vec<u64>,
    round: usize,
    done_in_round: u64,
    buf: Vec<Chunk>,
}

impl<'a> Expansion<'a> {
    pub fn new(inst: &'a Instance, schedule: &'a Schedule) -> Self {
        Expansion {
            inst,
            schedule: schedule.flat(),
            sent: vec![0; inst.demands().len()],
            round: 0,
            done_in_round: 0,
            buf: Vec::new(),
        }
    }

    /// The next tick's chunks, or `None` at the end.
    pub fn next_tick(&mut self) -> Option<&[Chunk]> {
        while self.round < self.schedule.rounds.len()
            && self.done_in_round >= self.schedule.rounds[self.round].repeat
        {
            self.round += 1;
            self.done_in_round = 0;
        }
        let round = self.schedule.rounds.get(self.round)?;
        self.done_in_round += 1;
        self.buf.clear();
        let demands = self.inst.demands();
        for &di in &round.demands {
            let i = di as usize;
            let Some(d) = demands.get(i) else { continue };
            let k = self.sent[i];
            let len = if k < self.inst.chunks(i) {
                self.inst.chunk_len(i, k)
            } else {
                self.inst.demand_bw(i)
            };
            self.sent[i] += 1;
            self.buf.push(Chunk {
                src_slot: d.src,
                dst_slot: d.dst,
                len_bits: len,
            });
        }
        Some(&self.buf)
    }

    /// Calls `f` on every tick in order; stops at the first error.
    pub fn try_for_each<E>(
        mut self,
        mut f: impl FnMut(u64, &[Chunk]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut t = 0u64;
        while let Some(tick) = self.next_tick() {
            f(t, tick)?;
            t += 1;
        }
        Ok(())
    }
}
