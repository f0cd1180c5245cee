//! The dataflow form of a plan: the flat arrays the device modes' kernels
//! consume, and a CPU emulation that executes exactly those arrays.
//!
//! This module owns the device algorithm's logic, without any CUDA (it
//! builds and is tested everywhere; `cuda/kernels.cu` is its device twin,
//! and the two must change together):
//!
//! - [`Flow::new`] turns a checked [`Plan`] into per-transfer arrays
//!   (arena offsets of source and destination, bytes, tick, and the index
//!   of the previous transfer on the sender's port and on the receiver's
//!   port, [`NONE`] for the first) and per-queue lists of transfers. A
//!   *port* is a slot's send lane or receive lane under the plan's model
//!   (DESIGN.md §14): READ1_WRITE1 gives every slot separate send and
//!   receive ports, STRICT1 one port for both; a slot with `k` ports has
//!   `k` lanes per side, the `j`-th transfer of a tick on a side using lane
//!   `j`. A *queue* is one sender port's sequence in tick order; when
//!   there are more sender ports than workers, queues are folded
//!   (port `q` into queue `q mod queues`), each keeping global order.
//! - **Dataflow**: a transfer may start as soon as its sender's previous
//!   send and its receiver's previous receive are done; nothing waits for
//!   a tick boundary. Each queue is walked in order by `blocks_per_queue`
//!   workers, each copying its own piece ([`piece`]) of every transfer and
//!   then adding one to the transfer's completion counter (release); a
//!   dependency is met when its counter reaches `blocks_per_queue`
//!   (acquire). Dependencies point to earlier transfers only, and each
//!   queue is in increasing order, so the lowest unfinished transfer can
//!   always run: no deadlock, as long as every worker is running (on the
//!   GPU: a cooperative launch, which guarantees it or fails).
//! - **Barrier**: every worker copies a share of tick `t`'s transfers, then
//!   all wait at a grid-wide barrier before tick `t+1` (the device form of
//!   the host replay's tick barrier, to measure what dataflow saves).
//!
//! [`emulate`] runs both on host threads over one arena, recording when
//! each transfer started and finished, and [`Trace::check`] confirms no
//! transfer started before its dependencies finished. A plan's transfers
//! touch pairwise disjoint bytes (every byte of every region is moved
//! exactly once, send and receive regions never overlap), so any order is
//! correct for the data; the dependencies are the model's port order,
//! which is what the trace checks and what the device modes time.

use super::plan::{Plan, PlanKind};
use crate::instance::Model;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// "No previous transfer on this port".
pub const NONE: u32 = u32::MAX;

/// Pieces of a transfer split over several workers start on this boundary
/// (the kernels copy 16-byte words where source and destination allow).
pub const PIECE_ALIGN: u64 = 16;

/// Why a plan has no dataflow form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The device modes run on one device (one arena).
    #[error("the device modes run on one device; this plan spreads slots over {0}")]
    SeveralDevices(u32),
    /// Transfer indices are 32-bit on the device.
    #[error("the plan has {0} transfers; the device modes index at most {max}", max = NONE - 1)]
    TooManyTransfers(usize),
    #[error("invalid flow options: {0}")]
    Options(String),
}

/// The dataflow arrays of one checked plan (see the module docs). Only a
/// [`Plan`] makes one, so every offset lies inside the arena and no two
/// transfers touch the same bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    src: Vec<u64>,
    dst: Vec<u64>,
    len: Vec<u64>,
    tick: Vec<u32>,
    prev_send: Vec<u32>,
    prev_recv: Vec<u32>,
    tick_start: Vec<u32>,
    queue_start: Vec<u32>,
    queue_items: Vec<u32>,
    sender_ports: u32,
    arena_bytes: u64,
}

impl Flow {
    /// The dataflow form of `plan` with at most `max_queues` queues (>= 1).
    /// Transfers are numbered in plan order (tick by tick, in each tick's
    /// order). An unscheduled plan (all at once) has no dependencies and a
    /// queue per transfer. O(C) for C transfers, plus the ports.
    pub fn new(plan: &Plan, max_queues: usize) -> Result<Flow, FlowError> {
        if max_queues == 0 {
            return Err(FlowError::Options("at least one queue is needed".into()));
        }
        let layout = plan.layout();
        if layout.devices != 1 {
            return Err(FlowError::SeveralDevices(layout.devices));
        }
        let n = plan.copies();
        if n >= NONE as usize {
            return Err(FlowError::TooManyTransfers(n));
        }
        // Port index of (slot, lane): base[slot] + lane, per side.
        let mut base = Vec::with_capacity(layout.ports.len() + 1);
        base.push(0usize);
        for &p in &layout.ports {
            base.push(base.last().unwrap() + p.max(1) as usize);
        }
        let nports = *base.last().unwrap();
        let model = match plan.kind() {
            PlanKind::Scheduled(m) => Some(m),
            PlanKind::Unscheduled => None,
        };
        let shared = model == Some(Model::Strict1);
        let mut last_send = vec![NONE; nports];
        let mut last_recv = vec![NONE; nports];
        // Lanes taken in the current tick, per slot and side.
        let mut used_send = vec![0u32; layout.ports.len()];
        let mut used_recv = vec![0u32; layout.ports.len()];
        let mut f = Flow {
            src: Vec::with_capacity(n),
            dst: Vec::with_capacity(n),
            len: Vec::with_capacity(n),
            tick: Vec::with_capacity(n),
            prev_send: Vec::with_capacity(n),
            prev_recv: Vec::with_capacity(n),
            tick_start: Vec::with_capacity(plan.ticks().len() + 1),
            queue_start: Vec::new(),
            queue_items: Vec::with_capacity(n),
            sender_ports: 0,
            arena_bytes: layout.device_bytes[0],
        };
        // Queue (before folding) of each transfer: its sender port.
        let mut port_of = Vec::with_capacity(n);
        for (t, tick) in plan.ticks().iter().enumerate() {
            f.tick_start.push(f.src.len() as u32);
            for c in tick {
                let i = f.src.len() as u32;
                f.src.push(layout.arena_offset(c.src_slot, c.src_offset));
                f.dst.push(layout.arena_offset(c.dst_slot, c.dst_offset));
                f.len.push(c.len);
                f.tick.push(t as u32);
                if model.is_none() {
                    f.prev_send.push(NONE);
                    f.prev_recv.push(NONE);
                    port_of.push(i as usize);
                    continue;
                }
                let (s, d) = (c.src_slot as usize, c.dst_slot as usize);
                let ps = base[s] + lane(&mut used_send, &mut used_recv, s, true, shared, &base);
                let pr = base[d] + lane(&mut used_send, &mut used_recv, d, false, shared, &base);
                // STRICT1 shares one port per lane between both sides.
                let recv_side = if shared {
                    &mut last_send
                } else {
                    &mut last_recv
                };
                f.prev_recv.push(recv_side[pr]);
                recv_side[pr] = i;
                f.prev_send.push(last_send[ps]);
                last_send[ps] = i;
                port_of.push(ps);
            }
            for c in tick {
                used_send[c.src_slot as usize] = 0;
                used_recv[c.src_slot as usize] = 0;
                used_send[c.dst_slot as usize] = 0;
                used_recv[c.dst_slot as usize] = 0;
            }
        }
        f.tick_start.push(f.src.len() as u32);
        // Compact the sender ports in use, then fold them into queues.
        let mut id = vec![NONE; port_of.iter().map(|&p| p + 1).max().unwrap_or(0)];
        let mut next = 0u32;
        for &p in &port_of {
            if id[p] == NONE {
                id[p] = next;
                next += 1;
            }
        }
        f.sender_ports = next;
        let queues = (next as usize).clamp(1, max_queues);
        let mut count = vec![0u32; queues + 1];
        for &p in &port_of {
            count[id[p] as usize % queues + 1] += 1;
        }
        for q in 0..queues {
            count[q + 1] += count[q];
        }
        f.queue_start = count.clone();
        f.queue_items = vec![0; n];
        for (i, &p) in port_of.iter().enumerate() {
            let q = id[p] as usize % queues;
            f.queue_items[count[q] as usize] = i as u32;
            count[q] += 1;
        }
        Ok(f)
    }

    /// Number of transfers.
    pub fn transfers(&self) -> usize {
        self.src.len()
    }
    /// Number of ticks.
    pub fn ticks(&self) -> usize {
        self.tick_start.len() - 1
    }
    /// Number of queues (sender ports, folded to at most `max_queues`).
    pub fn queues(&self) -> usize {
        self.queue_start.len() - 1
    }
    /// Sender ports in use before folding.
    pub fn sender_ports(&self) -> u32 {
        self.sender_ports
    }
    /// Bytes of the arena the offsets index.
    pub fn arena_bytes(&self) -> u64 {
        self.arena_bytes
    }
    /// Arena offset of each transfer's source bytes.
    pub fn src(&self) -> &[u64] {
        &self.src
    }
    /// Arena offset of each transfer's destination bytes.
    pub fn dst(&self) -> &[u64] {
        &self.dst
    }
    /// Bytes of each transfer.
    pub fn len(&self) -> &[u64] {
        &self.len
    }
    /// Whether the plan has no transfer.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }
    /// Tick of each transfer.
    pub fn tick(&self) -> &[u32] {
        &self.tick
    }
    /// Previous transfer on each transfer's sender port ([`NONE`]: first).
    pub fn prev_send(&self) -> &[u32] {
        &self.prev_send
    }
    /// Previous transfer on each transfer's receiver port ([`NONE`]: first).
    pub fn prev_recv(&self) -> &[u32] {
        &self.prev_recv
    }
    /// Transfers of tick `t` are `tick_start[t]..tick_start[t+1]`.
    pub fn tick_start(&self) -> &[u32] {
        &self.tick_start
    }
    /// Queue `q` is `queue_items[queue_start[q]..queue_start[q+1]]`.
    pub fn queue_start(&self) -> &[u32] {
        &self.queue_start
    }
    /// Transfer indices of every queue, each queue in increasing order.
    pub fn queue_items(&self) -> &[u32] {
        &self.queue_items
    }
}

/// The next free lane of `slot` on its sending (`send`) or receiving side
/// in the current tick; STRICT1 (`shared`) counts both sides together.
fn lane(
    used_send: &mut [u32],
    used_recv: &mut [u32],
    slot: usize,
    send: bool,
    shared: bool,
    base: &[usize],
) -> usize {
    let ports = base[slot + 1] - base[slot];
    let k = if shared {
        used_send[slot] + used_recv[slot]
    } else if send {
        used_send[slot]
    } else {
        used_recv[slot]
    };
    if send {
        used_send[slot] += 1;
    } else {
        used_recv[slot] += 1;
    }
    // A checked plan keeps k < ports; fold defensively all the same.
    k as usize % ports
}

/// Byte range `[start, end)` of piece `k` of `parts` of a `len`-byte
/// transfer: equal shares rounded up to [`PIECE_ALIGN`], the last piece
/// shorter, trailing pieces empty when the transfer is small. The kernels
/// compute the same split.
pub fn piece(len: u64, parts: u64, k: u64) -> (u64, u64) {
    let share = len.div_ceil(parts.max(1)).next_multiple_of(PIECE_ALIGN);
    let start = (k * share).min(len);
    (start, (start + share).min(len))
}

/// How the workers of a device mode synchronise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// Each transfer waits for its sender's and receiver's previous transfers.
    Dataflow,
    /// All workers meet at a barrier after every tick.
    Barrier,
}

/// When each transfer started and finished in an emulated run, as values
/// of one global event counter (a total order of the workers' events).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub started: Vec<u64>,
    pub finished: Vec<u64>,
}

impl Trace {
    /// Every transfer ran, and none started before both its dependencies
    /// finished; `Err` names the first that did.
    pub fn check(&self, flow: &Flow) -> Result<(), String> {
        for i in 0..flow.transfers() {
            if self.finished[i] == 0 {
                return Err(format!("transfer {i} never finished"));
            }
            for (what, d) in [("send", flow.prev_send[i]), ("receive", flow.prev_recv[i])] {
                if d != NONE && self.started[i] <= self.finished[d as usize] {
                    return Err(format!(
                        "transfer {i} (tick {}) started before the previous {what} on its port, transfer {d} (tick {}), finished",
                        flow.tick[i], flow.tick[d as usize]
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The arena as shared between the emulation's workers.
struct Arena(*mut u8);

impl Arena {
    fn ptr(&self) -> *mut u8 {
        self.0
    }
}
// SAFETY: workers write pairwise disjoint byte ranges (a checked plan's
// transfers never share a byte) and read only send regions, which no
// transfer writes.
unsafe impl std::marker::Sync for Arena {}

/// Executes `flow` on `arena` (its device's bytes) with host threads, one
/// per worker, exactly as the kernels do (see the module docs): dataflow,
/// `queues * blocks_per_queue` workers, worker `w` on queue
/// `w / blocks_per_queue` copying piece `w % blocks_per_queue` of each
/// transfer; or barrier, the same number of workers sharing each tick.
///
/// Panics if `arena` is not the flow's arena size or `blocks_per_queue`
/// is 0.
pub fn emulate(flow: &Flow, arena: &mut [u8], sync: Sync, blocks_per_queue: usize) -> Trace {
    assert_eq!(arena.len() as u64, flow.arena_bytes, "arena size");
    assert!(blocks_per_queue >= 1);
    let n = flow.transfers();
    let workers = flow.queues() * blocks_per_queue;
    let done: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let started: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(u64::MAX)).collect();
    let finished: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let clock = AtomicU64::new(1);
    let barrier = std::sync::Barrier::new(workers);
    let base = Arena(arena.as_mut_ptr());
    let copy = |i: usize, parts: u64, k: u64| {
        started[i].fetch_min(clock.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
        let (a, b) = piece(flow.len[i], parts, k);
        if b > a {
            // SAFETY: see `Arena`; the plan check keeps every range inside
            // the arena, whose size was asserted above.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    base.ptr().add((flow.src[i] + a) as usize),
                    base.ptr().add((flow.dst[i] + a) as usize),
                    (b - a) as usize,
                );
            }
        }
    };
    let finish = |i: usize| {
        finished[i].fetch_max(clock.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
        done[i].fetch_add(1, Ordering::Release);
    };
    let wait = |d: u32, target: u32| {
        if d == NONE {
            return;
        }
        while done[d as usize].load(Ordering::Acquire) < target {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
    };
    std::thread::scope(|s| {
        for w in 0..workers {
            let (copy, finish, wait, barrier) = (&copy, &finish, &wait, &barrier);
            s.spawn(move || match sync {
                Sync::Dataflow => {
                    let (q, k) = (w / blocks_per_queue, w % blocks_per_queue);
                    let items = &flow.queue_items
                        [flow.queue_start[q] as usize..flow.queue_start[q + 1] as usize];
                    for &i in items {
                        let i = i as usize;
                        wait(flow.prev_send[i], blocks_per_queue as u32);
                        wait(flow.prev_recv[i], blocks_per_queue as u32);
                        copy(i, blocks_per_queue as u64, k as u64);
                        finish(i);
                    }
                }
                Sync::Barrier => {
                    for t in 0..flow.ticks() {
                        let (a, b) = (flow.tick_start[t] as usize, flow.tick_start[t + 1] as usize);
                        let (units, parts) = barrier_units(b - a, workers);
                        let mut u = w;
                        while u < units {
                            let i = a + u / parts;
                            copy(i, parts as u64, (u % parts) as u64);
                            finish(i);
                            u += workers;
                        }
                        barrier.wait();
                    }
                }
            });
        }
    });
    Trace {
        started: started.into_iter().map(AtomicU64::into_inner).collect(),
        finished: finished.into_iter().map(AtomicU64::into_inner).collect(),
    }
}

/// Work units of a barrier tick of `n` transfers over `workers` workers:
/// each transfer in `parts = max(1, workers / n)` pieces; returns
/// `(n * parts, parts)`. The barrier kernel splits the same way.
pub fn barrier_units(n: usize, workers: usize) -> (usize, usize) {
    let parts = workers.checked_div(n).unwrap_or(1).max(1);
    (n * parts, parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::data::{initial_arenas, verify};
    use crate::instance::{Demand, Instance, Limits};

    fn inst(model: Model) -> Instance {
        let d = |src, dst, bits| Demand { src, dst, bits };
        Instance::new(
            model,
            4,
            800,
            [
                d(0, 1, 4000),
                d(1, 2, 2400),
                d(2, 3, 808),
                d(3, 0, 8000),
                d(0, 2, 1600),
                d(2, 1, 7),
            ],
            &Limits::default(),
        )
        .unwrap()
    }

    #[test]
    fn pieces_tile_a_transfer() {
        for len in [0u64, 1, 15, 16, 17, 100, 4096, 4097] {
            for parts in 1..6 {
                let mut at = 0;
                for k in 0..parts {
                    let (a, b) = piece(len, parts, k);
                    assert_eq!(a, at, "len {len} parts {parts}");
                    assert!(b >= a && (a % PIECE_ALIGN == 0 || a == len));
                    at = b;
                }
                assert_eq!(at, len);
            }
        }
    }

    #[test]
    fn dependencies_follow_each_port_and_emulation_moves_every_byte() {
        for model in [Model::Read1Write1, Model::Strict1] {
            let i = inst(model);
            let s = crate::solve::greedy::greedy_schedule(&i);
            let plan = Plan::from_schedule(&i, &s, 1, 1).unwrap();
            for max_queues in [1, 2, 64] {
                let f = Flow::new(&plan, max_queues).unwrap();
                assert_eq!(f.transfers(), plan.copies());
                assert!(f.queues() <= max_queues);
                for q in 0..f.queues() {
                    let items = &f.queue_items()
                        [f.queue_start()[q] as usize..f.queue_start()[q + 1] as usize];
                    assert!(items.windows(2).all(|w| w[0] < w[1]));
                }
                for sync in [Sync::Dataflow, Sync::Barrier] {
                    for bpq in [1, 3] {
                        let mut arenas = initial_arenas(plan.layout());
                        let trace = emulate(&f, &mut arenas[0], sync, bpq);
                        trace.check(&f).unwrap();
                        let v = verify(plan.layout(), &arenas);
                        assert!(v.passed, "{model} {sync:?} {bpq}: {:?}", v.faults);
                    }
                }
            }
        }
    }

    #[test]
    fn several_devices_are_refused() {
        let i = inst(Model::Read1Write1);
        let s = crate::solve::greedy::greedy_schedule(&i);
        let plan = Plan::from_schedule(&i, &s, 1, 2).unwrap();
        assert_eq!(Flow::new(&plan, 4), Err(FlowError::SeveralDevices(2)));
        let plan = Plan::from_schedule(&i, &s, 1, 1).unwrap();
        assert!(matches!(Flow::new(&plan, 0), Err(FlowError::Options(_))));
    }
}
