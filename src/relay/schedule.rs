//! A relay schedule: every chunk's route as one to three hops, each with
//! its tick, stored as runs. A run is consecutive chunks of one demand on
//! one route whose hops move one tick per chunk: chunk `chunk + s` of the
//! run takes every hop `s` ticks after chunk `chunk` does. A pipelined
//! plan sends most of a demand that way, so a schedule holds about one run
//! per demand, not one entry per chunk (DESIGN.md §13: work with pairs and
//! rounds, not chunks). What a hop uses follows from its ends: the same
//! node is an NVLink hop, different nodes a NIC hop (`super::model`).

use serde::{Deserialize, Serialize};

/// One hop of a chunk: from GPU `from` to GPU `to` in tick `tick`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    pub tick: u64,
    pub from: u32,
    pub to: u32,
}

/// Chunks `chunk .. chunk + count` of demand `demand` (an index into the
/// instance's demands): the first chunk's hops in order, each later chunk
/// one tick after the one before on every hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayRun {
    pub demand: u32,
    pub chunk: u64,
    pub count: u64,
    len: u8,
    hops: [Hop; 3],
}

impl RelayRun {
    /// A run with the given hops (its first chunk's). `None` when there
    /// are none or more than three (no route of the model has more), or
    /// the run is empty.
    pub fn new(demand: u32, chunk: u64, count: u64, hops: &[Hop]) -> Option<RelayRun> {
        if hops.is_empty() || hops.len() > 3 || count == 0 {
            return None;
        }
        let mut h = [Hop::default(); 3];
        h[..hops.len()].copy_from_slice(hops);
        RelayRun::first_of(demand, chunk, count, h, hops.len())
    }

    /// [`RelayRun::new`] with the hops as the first `len` of `hops` (the
    /// rest ignored): a planner's hops in a fixed array, copied as one
    /// value rather than as a slice of unknown length.
    #[inline]
    pub fn first_of(
        demand: u32,
        chunk: u64,
        count: u64,
        mut hops: [Hop; 3],
        len: usize,
    ) -> Option<RelayRun> {
        if len == 0 || len > 3 || count == 0 {
            return None;
        }
        for h in &mut hops[len..] {
            *h = Hop::default();
        }
        Some(RelayRun {
            demand,
            chunk,
            count,
            len: len as u8,
            hops,
        })
    }

    /// The first chunk's hops, first to last.
    pub fn hops(&self) -> &[Hop] {
        &self.hops[..self.len as usize]
    }

    /// Mutable hops (tests doctor schedules with it).
    pub fn hops_mut(&mut self) -> &mut [Hop] {
        &mut self.hops[..self.len as usize]
    }

    /// The run's chunks one by one: `(chunk, hops)` with the hops of that
    /// chunk (ticks saturate at `u64::MAX`; a valid run never gets there).
    pub fn chunks(&self) -> impl Iterator<Item = (u64, [Hop; 3], usize)> + '_ {
        (0..self.count).map(move |s| {
            let mut h = self.hops;
            for hop in &mut h[..self.len as usize] {
                hop.tick = hop.tick.saturating_add(s);
            }
            (self.chunk.saturating_add(s), h, self.len as usize)
        })
    }
}

/// The runs of a relay plan and its length in ticks (every hop's tick is
/// below `ticks`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelaySchedule {
    pub ticks: u64,
    pub runs: Vec<RelayRun>,
}

impl RelaySchedule {
    /// Chunks in all (the runs' counts, saturating).
    pub fn chunk_count(&self) -> u64 {
        self.runs
            .iter()
            .fold(0u64, |a, r| a.saturating_add(r.count))
    }
}

/// The JSON form of one run: `{"demand", "chunk", "hops": [[tick, from,
/// to], ...]}` and `"count"` when the run has more than one chunk.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunJson {
    demand: u32,
    chunk: u64,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    count: u64,
    hops: Vec<(u64, u32, u32)>,
}

fn one() -> u64 {
    1
}

fn is_one(c: &u64) -> bool {
    *c == 1
}

/// The JSON form of a schedule (doc/formats.md, "Relay schedule").
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScheduleJson {
    version: u32,
    kind: String,
    ticks: u64,
    chunks: Vec<RunJson>,
}

/// The `kind` field of a relay schedule file.
pub const KIND: &str = "relay_schedule";

impl RelaySchedule {
    /// The schedule as JSON (deterministic: runs in stored order).
    pub fn to_json(&self) -> serde_json::Value {
        let doc = ScheduleJson {
            version: 0,
            kind: KIND.to_string(),
            ticks: self.ticks,
            chunks: self
                .runs
                .iter()
                .map(|c| RunJson {
                    demand: c.demand,
                    chunk: c.chunk,
                    count: c.count,
                    hops: c.hops().iter().map(|h| (h.tick, h.from, h.to)).collect(),
                })
                .collect(),
        };
        serde_json::to_value(doc).expect("plain data serialises")
    }

    /// Reads a schedule written by [`RelaySchedule::to_json`]; errors name
    /// the field or the entry.
    pub fn from_json(v: serde_json::Value) -> Result<RelaySchedule, String> {
        let doc: ScheduleJson = serde_json::from_value(v).map_err(|e| e.to_string())?;
        if doc.kind != KIND || doc.version != 0 {
            return Err(format!(
                "kind {:?} version {}: expected kind {KIND:?} version 0",
                doc.kind, doc.version
            ));
        }
        let mut runs = Vec::with_capacity(doc.chunks.len());
        for (i, c) in doc.chunks.into_iter().enumerate() {
            let hops: Vec<Hop> = c
                .hops
                .iter()
                .map(|&(tick, from, to)| Hop { tick, from, to })
                .collect();
            if c.count == 0 {
                return Err(format!(
                    "chunks[{i}].count: 0 (a run has at least one chunk)"
                ));
            }
            let run = RelayRun::new(c.demand, c.chunk, c.count, &hops).ok_or_else(|| {
                format!("chunks[{i}].hops: expected 1 to 3 hops, got {}", hops.len())
            })?;
            runs.push(run);
        }
        Ok(RelaySchedule {
            ticks: doc.ticks,
            runs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_expands_one_tick_per_chunk_and_round_trips_through_json() {
        let hops = [
            Hop {
                tick: 2,
                from: 0,
                to: 1,
            },
            Hop {
                tick: 3,
                from: 1,
                to: 5,
            },
        ];
        let run = RelayRun::new(7, 4, 3, &hops).unwrap();
        let got: Vec<(u64, Vec<u64>)> = run
            .chunks()
            .map(|(c, h, len)| (c, h[..len].iter().map(|x| x.tick).collect()))
            .collect();
        assert_eq!(got, vec![(4, vec![2, 3]), (5, vec![3, 4]), (6, vec![4, 5])]);
        let single = RelayRun::new(1, 0, 1, &hops[..1]).unwrap();
        let s = RelaySchedule {
            ticks: 9,
            runs: vec![run, single],
        };
        let json = s.to_json();
        assert!(json["chunks"][1].get("count").is_none(), "{json}");
        assert_eq!(RelaySchedule::from_json(json).unwrap(), s);
        assert!(RelayRun::new(1, 0, 0, &hops).is_none());
    }
}
