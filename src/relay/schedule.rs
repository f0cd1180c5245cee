//! A relay schedule: every chunk's route as one to three hops, each with
//! its tick. What a hop uses follows from its ends: the same node is an
//! NVLink hop, different nodes a NIC hop (`super::model`).

use serde::{Deserialize, Serialize};

/// One hop of a chunk: from GPU `from` to GPU `to` in tick `tick`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    pub tick: u64,
    pub from: u32,
    pub to: u32,
}

/// Chunk `chunk` of demand `demand` (an index into the instance's
/// demands) and its hops in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayChunk {
    pub demand: u32,
    pub chunk: u64,
    len: u8,
    hops: [Hop; 3],
}

impl RelayChunk {
    /// A chunk with the given hops. `None` when there are none or more
    /// than three (no route of the model has more).
    pub fn new(demand: u32, chunk: u64, hops: &[Hop]) -> Option<RelayChunk> {
        if hops.is_empty() || hops.len() > 3 {
            return None;
        }
        let mut h = [Hop::default(); 3];
        h[..hops.len()].copy_from_slice(hops);
        Some(RelayChunk {
            demand,
            chunk,
            len: hops.len() as u8,
            hops: h,
        })
    }

    /// The hops, first to last.
    pub fn hops(&self) -> &[Hop] {
        &self.hops[..self.len as usize]
    }

    /// Mutable hops (tests doctor schedules with it; the planner shifts ticks).
    pub fn hops_mut(&mut self) -> &mut [Hop] {
        &mut self.hops[..self.len as usize]
    }
}

/// The chunks of a relay plan and its length in ticks (every hop's tick is
/// below `ticks`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelaySchedule {
    pub ticks: u64,
    pub chunks: Vec<RelayChunk>,
}

/// The JSON form of one chunk: `{"demand", "chunk", "hops": [[tick, from, to], ...]}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChunkJson {
    demand: u32,
    chunk: u64,
    hops: Vec<(u64, u32, u32)>,
}

/// The JSON form of a schedule (doc/formats.md, "Relay schedule").
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScheduleJson {
    version: u32,
    kind: String,
    ticks: u64,
    chunks: Vec<ChunkJson>,
}

/// The `kind` field of a relay schedule file.
pub const KIND: &str = "relay_schedule";

impl RelaySchedule {
    /// The schedule as JSON (deterministic: chunks in stored order).
    pub fn to_json(&self) -> serde_json::Value {
        let doc = ScheduleJson {
            version: 0,
            kind: KIND.to_string(),
            ticks: self.ticks,
            chunks: self
                .chunks
                .iter()
                .map(|c| ChunkJson {
                    demand: c.demand,
                    chunk: c.chunk,
                    hops: c.hops().iter().map(|h| (h.tick, h.from, h.to)).collect(),
                })
                .collect(),
        };
        serde_json::to_value(doc).expect("plain data serialises")
    }

    /// Reads a schedule written by [`RelaySchedule::to_json`]; errors name
    /// the field or the chunk.
    pub fn from_json(v: serde_json::Value) -> Result<RelaySchedule, String> {
        let doc: ScheduleJson = serde_json::from_value(v).map_err(|e| e.to_string())?;
        if doc.kind != KIND || doc.version != 0 {
            return Err(format!(
                "kind {:?} version {}: expected kind {KIND:?} version 0",
                doc.kind, doc.version
            ));
        }
        let mut chunks = Vec::with_capacity(doc.chunks.len());
        for (i, c) in doc.chunks.into_iter().enumerate() {
            let hops: Vec<Hop> = c
                .hops
                .iter()
                .map(|&(tick, from, to)| Hop { tick, from, to })
                .collect();
            let chunk = RelayChunk::new(c.demand, c.chunk, &hops).ok_or_else(|| {
                format!("chunks[{i}].hops: expected 1 to 3 hops, got {}", hops.len())
            })?;
            chunks.push(chunk);
        }
        Ok(RelaySchedule {
            ticks: doc.ticks,
            chunks,
        })
    }
}
