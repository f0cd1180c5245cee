//! What an MSCCL program does, as tickopt sees it: its transfers (who
//! sends how many chunks to whom), the tick of each by dependency levels,
//! and where every chunk ends up.
//!
//! The k-th sending step from a to b on channel c pairs with the k-th
//! receiving step at b from a on channel c (same `cnt`). A step starts when
//! the previous step of its threadblock and the step it depends on
//! (`depid`/`deps`) have finished; a transfer takes the tick
//! `max(start of the send, start of the receive)` and finishes at the end
//! of it; a relay (`rcs`) sends on at the earliest one tick after its
//! receive; `cpy` and `nop` take no tick. So the ticks are the program run
//! as soon as its dependencies allow: the as-soon-as-possible levels. A
//! program that can never finish (a send that waits for its own receive)
//! is refused with a stuck step named.

use super::{Buf, Program, StepKind};
use crate::instance::{Demand, Instance, Limits, Model, Ports};
use crate::interop::InteropError;
use std::collections::{BTreeMap, HashMap};

/// One step's transfer: `chunks` chunks from `src` to `dst` in `tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub tick: u64,
    pub src: u32,
    pub dst: u32,
    pub chunks: u32,
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
    /// What the executor would object to but tickopt can read (missing
    /// `minBytes`/`maxBytes`/`outofplace`, more than 64 steps in a
    /// threadblock).
    pub notes: Vec<String>,
    /// For every gpu, its output buffer: where each chunk came from
    /// (gpu, offset in its input buffer), `None` if never written.
    outputs: Vec<Vec<Option<Origin>>>,
}

/// A chunk's identity: (gpu, offset in its input buffer).
type Origin = (u32, u64);

/// Per sub-tick of a level being split: (sends, receives) per slot, pairs.
type SubTick = (HashMap<u64, (u32, u32)>, Vec<(u64, u64)>);

/// Steps a default MSCCL build runs per threadblock (`MSCCL_MAX_NUM_STEPS`).
pub const RUNTIME_MAX_STEPS: usize = 64;

struct Flat<'a> {
    p: &'a Program,
    /// Global step id of (gpu, tb, 0).
    base: Vec<Vec<usize>>,
    /// (gpu, tb, step) of every global id.
    of: Vec<(usize, usize, usize)>,
}

impl Flat<'_> {
    fn step(&self, id: usize) -> &super::Step {
        let (g, t, k) = self.of[id];
        &self.p.gpus[g].tbs[t].steps[k]
    }
    fn place(&self, id: usize) -> String {
        let (g, t, k) = self.of[id];
        let st = self.step(id);
        format!(
            "line {}, column {}: gpu {}, tb {}, step {k}",
            st.at.0, st.at.1, self.p.gpus[g].id, self.p.gpus[g].tbs[t].id
        )
    }
}

enum Event {
    Move {
        from: (u32, Buf, u64),
        to: (u32, Buf, u64),
        cnt: u32,
    },
}

/// Runs `p` as tickopt sees it (see the module docs).
pub fn import(p: &Program) -> Result<Imported, InteropError> {
    let mut base = Vec::new();
    let mut of = Vec::new();
    for (g, gpu) in p.gpus.iter().enumerate() {
        let mut b = Vec::new();
        for (t, tb) in gpu.tbs.iter().enumerate() {
            b.push(of.len());
            of.extend((0..tb.steps.len()).map(|k| (g, t, k)));
        }
        base.push(b);
    }
    let f = Flat { p, base, of };
    let n = f.of.len();
    // Pair sending steps with receiving steps, connection by connection.
    let mut partner = vec![usize::MAX; n]; // send part -> recv step, recv part -> send step
    let mut partner_of_recv = vec![usize::MAX; n];
    let mut recv_lists: HashMap<(u32, u32, u32), Vec<usize>> = HashMap::new();
    for (g, gpu) in p.gpus.iter().enumerate() {
        for (t, tb) in gpu.tbs.iter().enumerate() {
            if tb.recv >= 0 {
                let ids = (0..tb.steps.len())
                    .filter(|&k| tb.steps[k].kind.receives())
                    .map(|k| f.base[g][t] + k)
                    .collect();
                recv_lists.insert((tb.recv as u32, gpu.id, tb.chan), ids);
            }
        }
    }
    for (g, gpu) in p.gpus.iter().enumerate() {
        for (t, tb) in gpu.tbs.iter().enumerate() {
            if tb.send < 0 {
                continue;
            }
            let sends: Vec<usize> = (0..tb.steps.len())
                .filter(|&k| tb.steps[k].kind.sends())
                .map(|k| f.base[g][t] + k)
                .collect();
            let key = (gpu.id, tb.send as u32, tb.chan);
            let recvs = recv_lists.remove(&key).unwrap_or_default();
            for (j, &s) in sends.iter().enumerate() {
                let Some(&r) = recvs.get(j) else {
                    return Err(InteropError::Invalid(format!(
                        "{}: send {j} from {} to {} on channel {} has no receive (gpu {} receives {} times from {} on that channel)",
                        f.place(s), gpu.id, tb.send, tb.chan, tb.send, recvs.len(), gpu.id
                    )));
                };
                if f.step(s).cnt != f.step(r).cnt {
                    return Err(InteropError::Invalid(format!(
                        "{}: sends {} chunks, but the receive it pairs with ({}) takes {}",
                        f.place(s),
                        f.step(s).cnt,
                        f.place(r),
                        f.step(r).cnt
                    )));
                }
                partner[s] = r;
                partner_of_recv[r] = s;
            }
            if let Some(&r) = recvs.get(sends.len()) {
                return Err(InteropError::Invalid(format!(
                    "{}: receive {} from {} has no send (gpu {} sends {} times to {} on channel {})",
                    f.place(r), sends.len(), gpu.id, gpu.id, sends.len(), tb.send, tb.chan
                )));
            }
        }
    }
    if let Some(r) = recv_lists.values().flatten().min() {
        let (g, t, _) = f.of[*r];
        return Err(InteropError::Invalid(format!(
            "{}: receives from {}, which has no threadblock sending to gpu {} on channel {}",
            f.place(*r),
            p.gpus[g].tbs[t].recv,
            p.gpus[g].id,
            p.gpus[g].tbs[t].chan
        )));
    }
    // Levels: advance every threadblock as far as its dependencies allow.
    let mut done: Vec<Option<u64>> = vec![None; n]; // finish time of each step
    let mut recv_tick: Vec<Option<u64>> = vec![None; n];
    let mut send_tick: Vec<Option<u64>> = vec![None; n];
    let tbs: Vec<(usize, usize)> = p
        .gpus
        .iter()
        .enumerate()
        .flat_map(|(g, gpu)| (0..gpu.tbs.len()).map(move |t| (g, t)))
        .collect();
    let mut cursor = vec![0usize; tbs.len()];
    let tb_index: Vec<Vec<usize>> = {
        let mut v = vec![Vec::new(); p.gpus.len()];
        for (i, &(g, _)) in tbs.iter().enumerate() {
            v[g].push(i);
        }
        v
    };
    let start_of = |id: usize, done: &[Option<u64>]| -> Option<u64> {
        let (g, t, k) = f.of[id];
        let prev = if k == 0 {
            Some(0)
        } else {
            done[f.base[g][t] + k - 1]
        };
        let dep = match f.step(id).dep {
            Some((depid, deps)) => done[f.base[g][depid as usize] + deps as usize],
            None => Some(0),
        };
        Some(prev?.max(dep?))
    };
    let mut events = Vec::new();
    let mut transfers = Vec::new();
    let mut copies = 0u64;
    loop {
        let mut progress = false;
        for (ti, &(g, t)) in tbs.iter().enumerate() {
            let tb = &p.gpus[g].tbs[t];
            while cursor[ti] < tb.steps.len() {
                let id = f.base[g][t] + cursor[ti];
                let Some(start) = start_of(id, &done) else {
                    break;
                };
                let st = f.step(id);
                if st.kind.receives() && recv_tick[id].is_none() {
                    let u = partner_of_recv[id];
                    let (ug, ut, uk) = f.of[u];
                    let u_ti = tb_index[ug][ut];
                    // The sender must be at that step with its inputs ready.
                    if cursor[u_ti] != uk {
                        break;
                    }
                    let Some(u_start) = start_of(u, &done) else {
                        break;
                    };
                    let ready = match f.step(u).kind {
                        StepKind::RecvCopySend => match recv_tick[u] {
                            Some(rt) => u_start.max(rt + 1),
                            None => break,
                        },
                        _ => u_start,
                    };
                    let tick = start.max(ready);
                    recv_tick[id] = Some(tick);
                    send_tick[u] = Some(tick);
                    let us = f.step(u);
                    let from = match us.kind {
                        StepKind::RecvCopySend => (us.dstbuf, us.dstoff),
                        _ => (us.srcbuf, us.srcoff),
                    };
                    let (src, dst) = (p.gpus[ug].id, p.gpus[g].id);
                    events.push(Event::Move {
                        from: (src, from.0, from.1 as u64),
                        to: (dst, st.dstbuf, st.dstoff as u64),
                        cnt: st.cnt,
                    });
                    transfers.push(Transfer {
                        tick,
                        src,
                        dst,
                        chunks: st.cnt,
                    });
                    progress = true;
                }
                let end = match st.kind {
                    StepKind::Send | StepKind::RecvCopySend => match send_tick[id] {
                        Some(t) => t + 1,
                        None => break, // waits for its receiver
                    },
                    StepKind::Recv => recv_tick[id].expect("set above") + 1,
                    StepKind::Copy => {
                        copies += 1;
                        let gid = p.gpus[g].id;
                        events.push(Event::Move {
                            from: (gid, st.srcbuf, st.srcoff as u64),
                            to: (gid, st.dstbuf, st.dstoff as u64),
                            cnt: st.cnt,
                        });
                        start
                    }
                    StepKind::Nop => start,
                };
                done[id] = Some(end);
                cursor[ti] += 1;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    if let Some(ti) =
        (0..tbs.len()).find(|&ti| cursor[ti] < p.gpus[tbs[ti].0].tbs[tbs[ti].1].steps.len())
    {
        let (g, t) = tbs[ti];
        let id = f.base[g][t] + cursor[ti];
        return Err(InteropError::Invalid(format!(
            "{}: the program cannot finish: this step waits forever (a cycle of dependencies and send/receive pairs)",
            f.place(id)
        )));
    }
    transfers.sort_by_key(|t| t.tick); // stable: pairing order within a tick
    let ticks = transfers.iter().map(|t| t.tick + 1).max().unwrap_or(0);
    // Where every chunk ends up, replaying moves in the order they happened.
    let mut bufs: HashMap<(u32, Buf), Vec<Option<Origin>>> = HashMap::new();
    for gpu in &p.gpus {
        bufs.insert(
            (gpu.id, Buf::Input),
            (0..gpu.i_chunks).map(|o| Some((gpu.id, o))).collect(),
        );
        bufs.insert((gpu.id, Buf::Output), vec![None; gpu.o_chunks as usize]);
        bufs.insert((gpu.id, Buf::Scratch), vec![None; gpu.s_chunks as usize]);
    }
    for Event::Move { from, to, cnt } in &events {
        for j in 0..*cnt as u64 {
            let v = bufs
                .get(&(from.0, from.1))
                .and_then(|b| b.get((from.2 + j) as usize))
                .copied()
                .flatten();
            if let Some(slot) = bufs
                .get_mut(&(to.0, to.1))
                .and_then(|b| b.get_mut((to.2 + j) as usize))
            {
                *slot = v;
            }
        }
    }
    let outputs = p
        .gpus
        .iter()
        .map(|g| bufs.remove(&(g.id, Buf::Output)).unwrap_or_default())
        .collect();
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
    Ok(Imported {
        ngpus: p.gpus.len() as u32,
        transfers,
        ticks,
        copies,
        notes,
        outputs,
    })
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

    /// The transfer instance: one demand per pair, `chunks x bw` bits.
    pub fn instance(
        &self,
        model: Model,
        bw: u64,
        ports: Option<u32>,
    ) -> Result<Instance, InteropError> {
        let demands: Vec<(Demand, Option<u64>)> = self
            .chunk_counts()
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
            &Limits::default(),
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
    /// in its input buffer), or `None` if nothing was written there.
    pub fn output_origin(&self, gpu: u32, off: u64) -> Option<(u32, u64)> {
        self.outputs
            .get(gpu as usize)?
            .get(off as usize)
            .copied()
            .flatten()
    }
}
