//! Per-rank point-to-point operations with byte offsets.
//!
//! Buffer layout (doc/formats.md, "p2p"): rank `r`'s send buffer holds its
//! outgoing demands concatenated in order of destination, its receive
//! buffer its incoming demands in order of source; every demand takes
//! `ceil(bits / 8)` bytes. Chunk `k` of a demand with bandwidth `bw` (a
//! multiple of 8) starts `k * bw / 8` bytes into the demand and is its bits
//! rounded up to whole bytes, so the chunks tile the demand exactly.
//!
//! Within a tick the operations keep the order of the tick's chunks, so the
//! k-th send from r to p and the k-th receive at p from r are the same chunk
//! (what NCCL group calls and `batch_isend_irecv` pair up).

use crate::instance::Instance;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};

/// Why a schedule cannot be lowered to byte operations.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("demand {demand} has a bandwidth of {bw} bits per tick, not a whole number of bytes (byte offsets need a multiple of 8)")]
    BwNotBytes { demand: usize, bw: u64 },
    #[error("the schedule names demand {demand}, which the instance does not have")]
    UnknownDemand { demand: usize },
    #[error("the schedule sends demand {demand} ({src} -> {dst}) more than its {chunks} chunks")]
    OverCovered {
        demand: usize,
        src: u32,
        dst: u32,
        chunks: u64,
    },
    #[error(
        "the schedule sends {sent} of the {chunks} chunks of demand {demand} ({src} -> {dst})"
    )]
    UnderCovered {
        demand: usize,
        src: u32,
        dst: u32,
        sent: u64,
        chunks: u64,
    },
    #[error("rank {rank} is not a slot of the instance ({slots} slots)")]
    NoSuchRank { rank: u32, slots: u32 },
}

/// Where every demand lives in its sender's and its receiver's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    send_offset: Vec<u64>,
    recv_offset: Vec<u64>,
    send_bytes: Vec<u64>,
    recv_bytes: Vec<u64>,
}

/// Bytes a demand of `bits` takes in a buffer.
pub fn demand_bytes(bits: u64) -> u64 {
    bits.div_ceil(8)
}

impl Layout {
    /// The layout of `inst`'s buffers in bytes; refuses a bandwidth that
    /// is not a whole number of bytes.
    pub fn new(inst: &Instance) -> Result<Layout, LowerError> {
        for i in 0..inst.demands().len() {
            let bw = inst.demand_bw(i);
            if bw % 8 != 0 {
                return Err(LowerError::BwNotBytes { demand: i, bw });
            }
        }
        Ok(Self::with_sizes(inst, |i| {
            demand_bytes(inst.demands()[i].bits)
        }))
    }

    /// The same layout counted in chunks (a demand takes its chunk count):
    /// MSCCL's buffers, where every chunk has one size. Offsets and sizes
    /// of this layout are chunk numbers, not bytes.
    pub fn in_chunks(inst: &Instance) -> Layout {
        Self::with_sizes(inst, |i| inst.chunks(i))
    }

    /// One definition of the order: demands of a sender in order of
    /// destination, of a receiver in order of source, each `size(i)` long.
    fn with_sizes(inst: &Instance, size: impl Fn(usize) -> u64) -> Layout {
        let n = inst.slots as usize;
        let demands = inst.demands();
        let mut send_bytes = vec![0u64; n];
        let mut recv_bytes = vec![0u64; n];
        let mut send_offset = Vec::with_capacity(demands.len());
        // Demands are sorted by (src, dst): in order of destination per sender.
        for (i, d) in demands.iter().enumerate() {
            send_offset.push(send_bytes[d.src as usize]);
            send_bytes[d.src as usize] += size(i);
        }
        // In order of source per receiver: visit demands sorted by (dst, src).
        let mut by_dst: Vec<u32> = (0..demands.len() as u32).collect();
        by_dst.sort_by_key(|&i| {
            let d = demands[i as usize];
            (d.dst, d.src)
        });
        let mut recv_offset = vec![0u64; demands.len()];
        for &i in &by_dst {
            let d = demands[i as usize];
            recv_offset[i as usize] = recv_bytes[d.dst as usize];
            recv_bytes[d.dst as usize] += size(i as usize);
        }
        Layout {
            send_offset,
            recv_offset,
            send_bytes,
            recv_bytes,
        }
    }

    /// Byte offset of demand `i` in its sender's send buffer.
    pub fn send_offset(&self, i: usize) -> u64 {
        self.send_offset[i]
    }

    /// Byte offset of demand `i` in its receiver's receive buffer.
    pub fn recv_offset(&self, i: usize) -> u64 {
        self.recv_offset[i]
    }

    /// Size of slot `s`'s send buffer in bytes.
    pub fn send_buffer_bytes(&self, s: u32) -> u64 {
        self.send_bytes[s as usize]
    }

    /// Size of slot `s`'s receive buffer in bytes.
    pub fn recv_buffer_bytes(&self, s: u32) -> u64 {
        self.recv_bytes[s as usize]
    }
}

/// One chunk of one demand, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteChunk {
    /// Index into [`Instance::demands`].
    pub demand: u32,
    /// Chunk number within the demand (0-based).
    pub chunk: u64,
    pub src: u32,
    pub dst: u32,
    /// Byte offset in `src`'s send buffer.
    pub src_offset: u64,
    /// Byte offset in `dst`'s receive buffer.
    pub dst_offset: u64,
    pub bytes: u64,
}

/// Streams a schedule's ticks as byte chunks (one buffer for the current
/// tick; memory bounded by demands, not ticks). A schedule with classes
/// is laid out first ([`Schedule::flat`]).
pub struct ByteTicks<'a> {
    inst: &'a Instance,
    schedule: std::borrow::Cow<'a, Schedule>,
    layout: &'a Layout,
    sent: Vec<u64>,
    round: usize,
    done_in_round: u64,
    buf: Vec<ByteChunk>,
}

impl<'a> ByteTicks<'a> {
    pub fn new(inst: &'a Instance, schedule: &'a Schedule, layout: &'a Layout) -> Self {
        ByteTicks {
            inst,
            schedule: schedule.flat(),
            layout,
            sent: vec![0; inst.demands().len()],
            round: 0,
            done_in_round: 0,
            buf: Vec::new(),
        }
    }

    /// The next tick's chunks, `Ok(None)` at the end, or the first chunk
    /// that is not a chunk of its demand. At the end, a demand left
    /// incomplete is an error too: a lowered program moves every byte
    /// exactly once.
    pub fn next_tick(&mut self) -> Result<Option<&[ByteChunk]>, LowerError> {
        while self.round < self.schedule.rounds.len()
            && self.done_in_round >= self.schedule.rounds[self.round].repeat
        {
            self.round += 1;
            self.done_in_round = 0;
        }
        let Some(round) = self.schedule.rounds.get(self.round) else {
            self.check_complete()?;
            return Ok(None);
        };
        self.done_in_round += 1;
        self.buf.clear();
        let demands = self.inst.demands();
        for &di in &round.demands {
            let i = di as usize;
            let d = demands
                .get(i)
                .ok_or(LowerError::UnknownDemand { demand: i })?;
            let k = self.sent[i];
            let chunks = self.inst.chunks(i);
            if k >= chunks {
                return Err(LowerError::OverCovered {
                    demand: i,
                    src: d.src,
                    dst: d.dst,
                    chunks,
                });
            }
            self.sent[i] += 1;
            let start = k * (self.inst.demand_bw(i) / 8);
            self.buf.push(ByteChunk {
                demand: di,
                chunk: k,
                src: d.src,
                dst: d.dst,
                src_offset: self.layout.send_offset(i) + start,
                dst_offset: self.layout.recv_offset(i) + start,
                bytes: demand_bytes(self.inst.chunk_len(i, k)),
            });
        }
        Ok(Some(&self.buf))
    }

    fn check_complete(&self) -> Result<(), LowerError> {
        for (i, d) in self.inst.demands().iter().enumerate() {
            let chunks = self.inst.chunks(i);
            if self.sent[i] != chunks {
                return Err(LowerError::UnderCovered {
                    demand: i,
                    src: d.src,
                    dst: d.dst,
                    sent: self.sent[i],
                    chunks,
                });
            }
        }
        Ok(())
    }
}

/// Send or receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Send,
    Recv,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Send => "send",
            OpKind::Recv => "recv",
        }
    }
}

/// One operation of one rank in one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankOp {
    pub op: OpKind,
    /// The other rank.
    pub peer: u32,
    /// Byte offset in this rank's send buffer (send) or receive buffer (recv).
    pub offset: u64,
    pub bytes: u64,
    /// Index of the demand (into [`Instance::demands`]).
    pub demand: u32,
}

/// Every rank's program: `programs[r][t]` is rank r's operations in tick t
/// (empty ticks included, so every list has exactly `ticks` entries).
pub fn lower_all(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
) -> Result<Vec<Vec<Vec<RankOp>>>, LowerError> {
    let mut programs: Vec<Vec<Vec<RankOp>>> = vec![Vec::new(); inst.slots as usize];
    lower_into(inst, schedule, layout, |r| Some(r as usize), &mut programs)?;
    Ok(programs)
}

/// One rank's program (see [`lower_all`]).
pub fn lower_rank(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
    rank: u32,
) -> Result<Vec<Vec<RankOp>>, LowerError> {
    if rank >= inst.slots {
        return Err(LowerError::NoSuchRank {
            rank,
            slots: inst.slots,
        });
    }
    let mut programs = vec![Vec::new()];
    lower_into(
        inst,
        schedule,
        layout,
        |r| (r == rank).then_some(0),
        &mut programs,
    )?;
    Ok(programs.pop().unwrap_or_default())
}

/// Walks the ticks once; `slot_of(rank)` says where a rank's program is
/// kept (`None`: not kept).
fn lower_into(
    inst: &Instance,
    schedule: &Schedule,
    layout: &Layout,
    slot_of: impl Fn(u32) -> Option<usize>,
    programs: &mut [Vec<Vec<RankOp>>],
) -> Result<(), LowerError> {
    let mut ticks = ByteTicks::new(inst, schedule, layout);
    while let Some(tick) = ticks.next_tick()? {
        for p in programs.iter_mut() {
            p.push(Vec::new());
        }
        for c in tick {
            if let Some(s) = slot_of(c.src) {
                programs[s].last_mut().expect("pushed above").push(RankOp {
                    op: OpKind::Send,
                    peer: c.dst,
                    offset: c.src_offset,
                    bytes: c.bytes,
                    demand: c.demand,
                });
            }
            if let Some(s) = slot_of(c.dst) {
                programs[s].last_mut().expect("pushed above").push(RankOp {
                    op: OpKind::Recv,
                    peer: c.src,
                    offset: c.dst_offset,
                    bytes: c.bytes,
                    demand: c.demand,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    fn instance(bw: u64, demands: &[(u32, u32, u64)]) -> Instance {
        instance_on(3, bw, demands)
    }

    /// A READ1_WRITE1 instance of `slots` slots (the lowering tests' one).
    pub(in crate::lower) fn instance_on(
        slots: u32,
        bw: u64,
        demands: &[(u32, u32, u64)],
    ) -> Instance {
        Instance::new(
            Model::Read1Write1,
            slots,
            bw,
            demands
                .iter()
                .map(|&(src, dst, bits)| Demand { src, dst, bits }),
            &Limits::default(),
        )
        .unwrap()
    }

    #[test]
    fn buffers_follow_the_documented_layout() {
        // Demands sorted (0,1) (0,2) (1,0) (2,0) (2,1).
        let inst = instance(
            16,
            &[(2, 1, 9), (0, 2, 17), (0, 1, 8), (1, 0, 24), (2, 0, 1)],
        );
        let l = Layout::new(&inst).unwrap();
        // Send buffer of 0: to 1 (1 byte) then to 2 (3 bytes).
        assert_eq!((l.send_offset(0), l.send_offset(1)), (0, 1));
        assert_eq!(l.send_buffer_bytes(0), 4);
        // Receive buffer of 0: from 1 (3 bytes) then from 2 (1 byte).
        assert_eq!((l.recv_offset(2), l.recv_offset(3)), (0, 3));
        assert_eq!(l.recv_buffer_bytes(0), 4);
        // Receive buffer of 1: from 0 (1 byte), from 2 (2 bytes).
        assert_eq!((l.recv_offset(0), l.recv_offset(4)), (0, 1));
        assert_eq!(l.recv_buffer_bytes(1), 3);
    }

    #[test]
    fn chunks_tile_each_demand_and_sends_pair_with_receives() {
        let inst = instance(16, &[(0, 1, 40), (1, 2, 7), (2, 0, 16)]);
        let mut s = Schedule::new();
        s.push(1, vec![0, 1, 2]);
        s.push(2, vec![0]);
        let l = Layout::new(&inst).unwrap();
        let all = lower_all(&inst, &s, &l).unwrap();
        assert!(all.iter().all(|p| p.len() == 3));
        // Demand 0: 40 bits = 5 bytes at 2 bytes a chunk: 2 + 2 + 1.
        let sends: Vec<(u64, u64)> = all[0]
            .iter()
            .flatten()
            .filter(|o| o.op == OpKind::Send)
            .map(|o| (o.offset, o.bytes))
            .collect();
        assert_eq!(sends, vec![(0, 2), (2, 2), (4, 1)]);
        for (t0, t1) in all[0].iter().zip(&all[1]) {
            let sent: Vec<_> = t0.iter().filter(|o| o.op == OpKind::Send).collect();
            let recv: Vec<_> = t1
                .iter()
                .filter(|o| o.op == OpKind::Recv && o.peer == 0)
                .collect();
            assert_eq!(sent.len(), recv.len());
            for (a, b) in sent.iter().zip(&recv) {
                assert_eq!((a.bytes, a.demand), (b.bytes, b.demand));
            }
        }
        assert_eq!(lower_rank(&inst, &s, &l, 1).unwrap(), all[1]);
    }

    #[test]
    fn refuses_what_does_not_move_every_byte_once() {
        let inst = instance(16, &[(0, 1, 40)]);
        let l = Layout::new(&inst).unwrap();
        let mut short = Schedule::new();
        short.push(2, vec![0]);
        assert!(matches!(
            lower_all(&inst, &short, &l),
            Err(LowerError::UnderCovered {
                sent: 2,
                chunks: 3,
                ..
            })
        ));
        let mut long = Schedule::new();
        long.push(4, vec![0]);
        assert!(matches!(
            lower_all(&inst, &long, &l),
            Err(LowerError::OverCovered { chunks: 3, .. })
        ));
        assert!(matches!(
            Layout::new(&instance(12, &[(0, 1, 40)])),
            Err(LowerError::BwNotBytes { bw: 12, .. })
        ));
        assert!(matches!(
            lower_rank(&inst, &short, &l, 9),
            Err(LowerError::NoSuchRank { rank: 9, .. })
        ));
    }
}
