//! Runs a program as dependency levels, with the executor's buffered sends.
//!
//! A step starts when the previous step of its threadblock and the step it
//! depends on (`depid`/`deps`) are done. A transfer takes the first tick in
//! which its data is ready at the sender (a relay's one tick after its own
//! receive) and the receiver has reached its receive: both ends then take
//! part in that tick, and both steps are done at its end. That is the
//! rendezvous a tick schedule describes, and every program that finishes
//! that way keeps exactly those levels.
//!
//! The executor does not make a send wait for its receive: a send writes
//! into the connection's buffer and its threadblock goes on (only
//! receives wait). So a send whose receive cannot be reached before the
//! sender goes on (a ring where every gpu sends, then receives) is
//! *buffered*: written in the first tick its data is ready and the buffer
//! has room, its step done at the end of that tick; the receive later
//! takes it without a tick of its own (done at the earliest one tick after
//! the write). The buffer holds [`buffer_depth`] chunks per connection; a
//! chunk stays in it until its receive is done. A program is refused only
//! when no step can move: a cycle of dependencies and receives, or a send
//! that the buffer cannot take and no receive can drain.
//!
//! `cpy` and `nop` take no tick.

use super::pairing::{Flat, Pairing};
use super::{Buf, StepKind};
use crate::interop::InteropError;

/// One step's transfer: `chunks` chunks from `src` to `dst` in `tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub tick: u64,
    pub src: u32,
    pub dst: u32,
    pub chunks: u32,
}

/// Slots of one connection's buffer in NCCL and msccl-executor-nccl
/// (`NCCL_STEPS`, src/include/device.h).
pub const NCCL_STEPS: u64 = 8;

/// NCCL steps one MSCCL chunk takes at most under the Simple protocol
/// (`MSCCL_CHUNKSTEPS` = `NCCL_STEPS/2`, src/include/msccl/msccl_struct.h:
/// the Simple kernel moves a chunk in two slices of `NCCL_STEPS/4` steps).
pub const MSCCL_CHUNKSTEPS: u64 = NCCL_STEPS / 2;

/// Chunks a connection's buffer holds for sure, at any message size: under
/// `Simple`, `NCCL_STEPS / MSCCL_CHUNKSTEPS` = 2 (a chunk of full size takes
/// 4 of the 8 steps); under `LL` and `LL128` a chunk takes one step, so 8.
/// An unknown protocol gets Simple's (the smaller).
pub fn buffer_depth(proto: &str) -> u64 {
    match proto {
        "LL" | "LL128" => NCCL_STEPS,
        _ => NCCL_STEPS / MSCCL_CHUNKSTEPS,
    }
}

/// A chunk range moved from one buffer place to another (a transfer or a
/// `cpy`), in the order the runner met them.
pub(super) struct Move {
    pub from: (u32, Buf, u64),
    pub to: (u32, Buf, u64),
    pub cnt: u32,
}

/// What a run produced.
pub(super) struct Trace {
    /// In the order they were met (the caller sorts by tick).
    pub transfers: Vec<Transfer>,
    pub moves: Vec<Move>,
    /// `cpy` steps run.
    pub copies: u64,
    /// Sends that were buffered (the rest met their receive in their tick).
    pub buffered: u64,
}

/// Whether a send fits its connection's buffer.
enum Room {
    /// From this tick on.
    At(u64),
    /// Only once a receive that has not run yet drains the buffer.
    Later,
    /// Never: the send is larger than the buffer.
    Never,
}

struct Runner<'a> {
    f: &'a Flat<'a>,
    pairs: &'a Pairing,
    depth: u64,
    /// (gpu index, tb index) of every threadblock.
    tbs: Vec<(usize, usize)>,
    /// Index in `tbs` of (gpu index, tb index).
    tb_index: Vec<Vec<usize>>,
    /// Next step of every threadblock.
    cursor: Vec<usize>,
    /// End of every step that is done.
    done: Vec<Option<u64>>,
    /// End of the receive part of a receiving step.
    recv_done: Vec<Option<u64>>,
    /// Tick of the transfer of a sending step.
    send_tick: Vec<Option<u64>>,
    /// Whether a sending step was buffered.
    buffered: Vec<bool>,
    trace: Trace,
}

/// Runs a paired program (see the module docs).
pub(super) fn run(f: &Flat, pairs: &Pairing, depth: u64) -> Result<Trace, InteropError> {
    let mut r = Runner::new(f, pairs, depth);
    loop {
        let mut progress = false;
        for ti in 0..r.tbs.len() {
            progress |= r.advance(ti);
        }
        if !progress && !r.buffer_stuck_sends() {
            break;
        }
    }
    match (0..r.tbs.len()).find(|&ti| r.next_step(ti).is_some()) {
        Some(_) => Err(r.stuck()),
        None => Ok(r.trace),
    }
}

impl<'a> Runner<'a> {
    fn new(f: &'a Flat<'a>, pairs: &'a Pairing, depth: u64) -> Self {
        let mut tbs = Vec::new();
        let mut tb_index = Vec::with_capacity(f.p.gpus.len());
        for (g, gpu) in f.p.gpus.iter().enumerate() {
            tb_index.push((0..gpu.tbs.len()).map(|t| tbs.len() + t).collect());
            tbs.extend((0..gpu.tbs.len()).map(|t| (g, t)));
        }
        let n = f.len();
        Runner {
            f,
            pairs,
            depth,
            cursor: vec![0; tbs.len()],
            tbs,
            tb_index,
            done: vec![None; n],
            recv_done: vec![None; n],
            send_tick: vec![None; n],
            buffered: vec![false; n],
            trace: Trace {
                transfers: Vec::new(),
                moves: Vec::new(),
                copies: 0,
                buffered: 0,
            },
        }
    }

    /// The global id of threadblock `ti`'s next step, if it has one left.
    fn next_step(&self, ti: usize) -> Option<usize> {
        let (g, t) = self.tbs[ti];
        let len = self.f.p.gpus[g].tbs[t].steps.len();
        (self.cursor[ti] < len).then(|| self.f.base[g][t] + self.cursor[ti])
    }

    /// When step `id` can start, if its predecessors are done.
    fn start_of(&self, id: usize) -> Option<u64> {
        let (g, _, k) = self.f.of[id];
        let prev = if k == 0 { Some(0) } else { self.done[id - 1] };
        let dep = match self.f.step(id).dep {
            Some((depid, deps)) => self.done[self.f.base[g][depid as usize] + deps as usize],
            None => Some(0),
        };
        Some(prev?.max(dep?))
    }

    /// When the data of sending step `u` is ready, if `u` is its
    /// threadblock's next step and its inputs are there.
    fn send_ready(&self, u: usize) -> Option<u64> {
        let (g, t, k) = self.f.of[u];
        if self.cursor[self.tb_index[g][t]] != k {
            return None;
        }
        let start = self.start_of(u)?;
        match self.f.step(u).kind {
            StepKind::RecvCopySend => Some(start.max(self.recv_done[u]?)),
            _ => Some(start),
        }
    }

    /// Runs threadblock `ti` as far as it goes; whether it moved.
    fn advance(&mut self, ti: usize) -> bool {
        let mut progress = false;
        while let Some(id) = self.next_step(ti) {
            let Some(start) = self.start_of(id) else {
                break;
            };
            if self.f.step(id).kind.receives() && self.recv_done[id].is_none() {
                if !self.receive(id, start) {
                    break;
                }
                progress = true;
            }
            let Some(end) = self.end_of(id, start) else {
                break; // a send that waits for its receive (or for room)
            };
            self.done[id] = Some(end);
            self.cursor[ti] += 1;
            progress = true;
        }
        progress
    }

    /// The receive part of step `id` (started at `start`): takes buffered
    /// data, or meets its send in a tick; false while the send is not there.
    fn receive(&mut self, id: usize, start: u64) -> bool {
        let u = self.pairs.send_of[id];
        if let Some(written) = self.send_tick[u] {
            self.recv_done[id] = Some(start.max(written + 1));
            return true;
        }
        let Some(ready) = self.send_ready(u) else {
            return false;
        };
        let tick = start.max(ready);
        self.transfer(u, tick);
        self.recv_done[id] = Some(tick + 1);
        true
    }

    /// End of step `id` once its transfers are placed, or `None` while it
    /// waits.
    fn end_of(&mut self, id: usize, start: u64) -> Option<u64> {
        let st = self.f.step(id);
        match st.kind {
            StepKind::Send | StepKind::RecvCopySend => self.send_tick[id].map(|t| t + 1),
            StepKind::Recv => self.recv_done[id],
            StepKind::Copy => {
                let g = self.f.gpu(id);
                self.trace.copies += 1;
                self.trace.moves.push(Move {
                    from: (g, st.srcbuf, st.srcoff as u64),
                    to: (g, st.dstbuf, st.dstoff as u64),
                    cnt: st.cnt,
                });
                Some(start)
            }
            StepKind::Nop => Some(start),
        }
    }

    /// Places the transfer of sending step `u` in `tick`.
    fn transfer(&mut self, u: usize, tick: u64) {
        let r = self.pairs.recv_of[u];
        let (us, rs) = (self.f.step(u), self.f.step(r));
        let from = match us.kind {
            StepKind::RecvCopySend => (us.dstbuf, us.dstoff),
            _ => (us.srcbuf, us.srcoff),
        };
        let (src, dst) = (self.f.gpu(u), self.f.gpu(r));
        self.send_tick[u] = Some(tick);
        self.trace.moves.push(Move {
            from: (src, from.0, from.1 as u64),
            to: (dst, rs.dstbuf, rs.dstoff as u64),
            cnt: us.cnt,
        });
        self.trace.transfers.push(Transfer {
            tick,
            src,
            dst,
            chunks: us.cnt,
        });
    }

    /// Buffers every send that waits for a receive it cannot meet yet and
    /// fits its connection's buffer; whether there was one.
    fn buffer_stuck_sends(&mut self) -> bool {
        let mut writes = Vec::new();
        for ti in 0..self.tbs.len() {
            let Some(id) = self.next_step(ti) else {
                continue;
            };
            if !self.f.step(id).kind.sends() || self.send_tick[id].is_some() {
                continue;
            }
            if let Some(ready) = self.send_ready(id) {
                if let Room::At(tick) = self.room(id, ready) {
                    writes.push((id, tick));
                }
            }
        }
        for &(id, tick) in &writes {
            self.transfer(id, tick);
            self.buffered[id] = true;
            self.trace.buffered += 1;
        }
        !writes.is_empty()
    }

    /// Whether sending step `id`, ready at `ready`, fits its connection's
    /// buffer: the chunks of earlier buffered sends stay there until their
    /// receives are done (receives drain in order).
    fn room(&self, id: usize, ready: u64) -> Room {
        let cnt = self.f.step(id).cnt as u64;
        if cnt > self.depth {
            return Room::Never;
        }
        let c = self.pairs.conn_of[id];
        // (when it leaves the buffer, None = not known yet; chunks)
        let held: Vec<(Option<u64>, u64)> = self.pairs.sends[c]
            .iter()
            .take_while(|&&j| j != id)
            .filter(|&&j| self.buffered[j])
            .map(|&j| {
                (
                    self.recv_done[self.pairs.recv_of[j]],
                    self.f.step(j).cnt as u64,
                )
            })
            .filter(|&(gone, _)| !matches!(gone, Some(t) if t <= ready))
            .collect();
        let mut used: u64 = held.iter().map(|h| h.1).sum();
        if used + cnt <= self.depth {
            return Room::At(ready);
        }
        for (gone, chunks) in held {
            used -= chunks;
            if used + cnt <= self.depth {
                return gone.map_or(Room::Later, Room::At);
            }
        }
        Room::Later
    }

    /// Why the run stopped: a send the buffer cannot take, or a cycle.
    fn stuck(&self) -> InteropError {
        let stuck: Vec<usize> = (0..self.tbs.len())
            .filter_map(|ti| self.next_step(ti))
            .collect();
        for &id in &stuck {
            let st = self.f.step(id);
            let Some(ready) = self.send_ready(id).filter(|_| st.kind.sends()) else {
                continue;
            };
            if matches!(self.room(id, ready), Room::At(_)) {
                continue;
            }
            let conn = self.pairs.conns[self.pairs.conn_of[id]];
            return InteropError::Invalid(format!(
                "{}: the program cannot finish: this send of {} chunk(s) to gpu {} on channel {} does not fit the connection's buffer ({} chunks under proto {:?}) and no receive can drain it",
                self.f.place(id),
                st.cnt,
                conn.dst,
                conn.chan,
                self.depth,
                self.f.p.proto
            ));
        }
        InteropError::Invalid(format!(
            "{}: the program cannot finish: this step waits forever (a cycle of dependencies and receives: every step in it waits for another one of it)",
            self.f.place(stuck[0])
        ))
    }
}
