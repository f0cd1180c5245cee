//! A second placement of the hops that wait on nothing but NVLink room,
//! for plans outside their target where NVLink is slow (rho 1-2, a hot
//! GPU): the NIC hops and the first hops stay where `super::sweep` put
//! them; per node, tick by tick from the plan's first, the last hops
//! (each from the tick after its NIC hop) and the intra-node chunks are
//! placed again, each tick's NVLink room going first to the (sender,
//! receiver) pair whose busier port has the most of these hops left.
//!
//! Why: `super::sweep` gives a last hop the first tick with room after its
//! NIC hop, in the NIC layer's order, and `super::intra` then fits the
//! intra-node chunks into what is left. Where a hot GPU's NVLink receive
//! port must be busy every tick of the bound (rho 1: half its chunks
//! arrive over NVLink), that order leaves it idle in ticks where its
//! senders' ports were taken by hops of idler GPUs, and its intra-node
//! chunks land past the NIC layer (the Rust generator's 64 ranks, hot x4,
//! sigma 1.2, seed 0, rho 1: 114 idle ticks at GPU 37's port; the plan
//! 776 ticks against the bound 662, 684 after this pass). Serving the port
//! with the most work left first is what keeps the busiest ports busy
//! (as a König colouring serves the vertices of the largest degree).
//!
//! Nodes are independent here (an NVLink hop stays in its node), so they
//! are placed one by one, each only from its own hops: the plan is the
//! same on any number of threads.

use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::{Hop, RelayRun, RelaySchedule};

/// One hop to place again: the chunk (its run and its index in the run),
/// which of the chunk's hops, and the first tick it may take.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Movable {
    release: u64,
    run: u32,
    step: u64,
    hop: u8,
}

/// `s` with its last hops and intra-node chunks placed again (module
/// docs), its ticks counted from its first hop; `None` where `s` ends
/// with its last NIC hop's chunk (its last hop, if it has one, in the
/// tick after): the hops that stay end there, so no placement of the
/// others can be shorter. The NIC and first hops keep their ticks, so
/// every route's order holds by construction; the caller keeps whichever
/// plan is shorter, and the plan is validated as any other before it is
/// returned.
pub(super) fn repack(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> Option<RelaySchedule> {
    let nic_end = s
        .runs
        .iter()
        .filter_map(|r| {
            let k = nic_hop(tt, r)?;
            Some(r.hops()[k].tick + r.count - 1 + (k + 1 < r.hops().len()) as u64)
        })
        .max();
    if nic_end.is_some_and(|e| e + 1 >= s.ticks) {
        return None;
    }
    let g = tt.gpus_per_node as usize;
    let nodes = tt.nodes(inst.slots) as usize;
    let ticks = s.ticks as usize;
    let cap = tt.nvlink_speedup;
    // Per node: the first hops that stay, as runs `(tick, sender,
    // receiver, chunks)`, and the hops to place again, by (sender,
    // receiver) pair.
    let mut kept: Vec<Vec<(u64, usize, usize, u64)>> = vec![Vec::new(); nodes];
    let mut movable: Vec<Vec<Vec<Movable>>> = vec![vec![Vec::new(); g * g]; nodes];
    // Per node, the last tick of the hops to place again (where they are).
    let mut ends = vec![0u64; nodes];
    for (ri, r) in s.runs.iter().enumerate() {
        let hops = r.hops();
        let nic = nic_hop(tt, r);
        for (x, h) in hops.iter().enumerate() {
            let node = tt.node(h.from);
            if node != tt.node(h.to) {
                continue;
            }
            let (o, i) = ((h.from as usize) % g, (h.to as usize) % g);
            let b = node as usize;
            match nic {
                Some(k) if x < k => kept[b].push((h.tick, o, i, r.count)),
                _ => {
                    ends[b] = ends[b].max(h.tick + r.count - 1);
                    let release = nic.map_or(0, |k| hops[k].tick + 1);
                    movable[b][o * g + i].extend((0..r.count).map(|step| Movable {
                        release: release + step,
                        run: ri as u32,
                        step,
                        hop: x as u8,
                    }));
                }
            }
        }
    }
    // New ticks of every chunk's hops, three a chunk from each run's
    // offset (only the moved hops are read from here).
    let mut offset = Vec::with_capacity(s.runs.len() + 1);
    offset.push(0usize);
    for r in &s.runs {
        offset.push(offset.last().copied().unwrap_or(0) + 3 * r.count as usize);
    }
    let mut moved = vec![0u64; offset.last().copied().unwrap_or(0)];
    // The nodes that end last first, one at a time, until the rest end
    // before the plan does now: a node placed again that does not end
    // sooner keeps its hops, and the plan then cannot get shorter.
    let mut order: Vec<usize> = (0..nodes).collect();
    order.sort_unstable_by_key(|&b| (std::cmp::Reverse(ends[b]), b));
    let mut again = vec![false; nodes];
    let mut end = nic_end.unwrap_or(0);
    let (mut kept_out, mut kept_in) = (vec![0u32; ticks * g], vec![0u32; ticks * g]);
    for b in order {
        if ends[b] <= end {
            break;
        }
        // The room its staying hops take per (tick, GPU).
        kept_out.fill(0);
        kept_in.fill(0);
        for &(tick, o, i, count) in &kept[b] {
            for t in tick..tick + count {
                kept_out[t as usize * g + o] += 1;
                kept_in[t as usize * g + i] += 1;
            }
        }
        let placed = place_node(g, cap, &kept_out, &kept_in, &mut movable[b]);
        let last = placed.iter().map(|p| p.1).max().unwrap_or(0);
        if last >= ends[b] {
            return None;
        }
        for (m, t) in placed {
            moved[offset[m.run as usize] + 3 * m.step as usize + m.hop as usize] = t;
        }
        again[b] = true;
        end = end.max(last);
    }
    Some(rebuild(s, tt, &again, &offset, &moved))
}

/// Which of a run's hops crosses nodes (its NIC hop), if one does.
fn nic_hop(tt: TwoTier, r: &RelayRun) -> Option<usize> {
    r.hops()
        .iter()
        .position(|h| tt.node(h.from) != tt.node(h.to))
}

/// One node's movable hops placed tick by tick from tick 0 (module docs),
/// `kept_*` the room its staying hops take (`ticks x G`, GPU by GPU
/// within a tick; past the plan's ticks nothing is kept). Returns each
/// hop with its tick.
fn place_node(
    g: usize,
    cap: u32,
    kept_out: &[u32],
    kept_in: &[u32],
    pairs: &mut [Vec<Movable>],
) -> Vec<(Movable, u64)> {
    let (mut left_out, mut left_in) = (vec![0u64; g], vec![0u64; g]);
    for (p, hops) in pairs.iter_mut().enumerate() {
        hops.sort_unstable();
        left_out[p / g] += hops.len() as u64;
        left_in[p % g] += hops.len() as u64;
    }
    let mut next = vec![0usize; g * g];
    let mut left: u64 = left_out.iter().sum();
    let mut placed = Vec::with_capacity(left as usize);
    let (mut room_out, mut room_in) = (vec![0u32; g], vec![0u32; g]);
    let mut ports: Vec<(u64, usize)> = Vec::with_capacity(2 * g);
    let mut t = 0usize;
    while left > 0 {
        for x in 0..g {
            let kept = |k: &[u32]| k.get(t * g + x).copied().unwrap_or(0);
            room_out[x] = cap.saturating_sub(kept(kept_out));
            room_in[x] = cap.saturating_sub(kept(kept_in));
        }
        // The ports by hops left at the tick's start, most first; each
        // in turn, while it has room, sends to (or receives from) the
        // partner with room, a hop ready and the most hops left. So the
        // pair whose busier port has the most hops left goes first, then
        // the one with the most on both.
        ports.clear();
        ports.extend(
            (0..g)
                .filter(|&x| left_out[x] > 0)
                .map(|x| (left_out[x], x)),
        );
        ports.extend(
            (0..g)
                .filter(|&x| left_in[x] > 0)
                .map(|x| (left_in[x], g + x)),
        );
        ports.sort_unstable_by_key(|&(left, x)| (std::cmp::Reverse(left), x));
        for &(_, x) in &ports {
            let sends = x < g;
            let pair = |y: usize| if sends { x * g + y } else { y * g + (x - g) };
            loop {
                let room = if sends { room_out[x] } else { room_in[x - g] };
                if room == 0 {
                    break;
                }
                let best = (0..g)
                    .filter(|&y| {
                        let p = pair(y);
                        (if sends { room_in[y] } else { room_out[y] }) > 0
                            && pairs[p].get(next[p]).is_some_and(|m| m.release <= t as u64)
                    })
                    .max_by_key(|&y| {
                        let left = if sends { left_in[y] } else { left_out[y] };
                        (left, std::cmp::Reverse(y))
                    });
                let Some(y) = best else { break };
                let p = pair(y);
                let (o, i) = (p / g, p % g);
                placed.push((pairs[p][next[p]], t as u64));
                next[p] += 1;
                room_out[o] -= 1;
                room_in[i] -= 1;
                left_out[o] -= 1;
                left_in[i] -= 1;
                left -= 1;
            }
        }
        t += 1;
    }
    placed
}

/// The runs of `s` with the moved hops of the nodes placed `again` at
/// their ticks in `moved` (chunk `step` of run `r` at `offset[r] + 3
/// step`, a slot a hop; every other hop keeps its tick), cut where a
/// chunk no longer follows the one before by one tick on every hop, and
/// the ticks counted from the first hop.
fn rebuild(
    s: &RelaySchedule,
    tt: TwoTier,
    again: &[bool],
    offset: &[usize],
    moved: &[u64],
) -> RelaySchedule {
    // Per run, which hops moved: those after its NIC hop, or its one hop
    // where it has none, in a node placed again.
    let moves = |r: &RelayRun| -> [bool; 3] {
        let hops = r.hops();
        let nic = nic_hop(tt, r);
        std::array::from_fn(|x| {
            x < hops.len() && nic.is_none_or(|k| x > k) && again[tt.node(hops[x].from) as usize]
        })
    };
    let tick = |r: usize, run: &RelayRun, m: &[bool; 3], step: u64, x: usize| {
        if m[x] {
            moved[offset[r] + 3 * step as usize + x]
        } else {
            run.hops()[x].tick + step
        }
    };
    let mut first = u64::MAX;
    for (ri, r) in s.runs.iter().enumerate() {
        let m = moves(r);
        for step in 0..r.count {
            for x in 0..r.hops().len() {
                first = first.min(tick(ri, r, &m, step, x));
            }
        }
    }
    let mut runs = Vec::with_capacity(s.runs.len());
    let mut last = 0u64;
    for (ri, r) in s.runs.iter().enumerate() {
        let (len, m) = (r.hops().len(), moves(r));
        let mut hops = [Hop::default(); 3];
        hops[..len].copy_from_slice(r.hops());
        let mut open: Option<RelayRun> = None;
        for step in 0..r.count {
            for (x, h) in hops[..len].iter_mut().enumerate() {
                h.tick = tick(ri, r, &m, step, x) - first;
                last = last.max(h.tick);
            }
            if let Some(run) = open.as_mut() {
                let follows = run
                    .hops()
                    .iter()
                    .zip(&hops[..len])
                    .all(|(a, b)| a.tick + run.count == b.tick);
                if follows {
                    run.count += 1;
                    continue;
                }
                runs.push(*run);
            }
            open = RelayRun::first_of(r.demand, r.chunk + step, 1, hops, len);
        }
        runs.extend(open);
    }
    RelaySchedule {
        ticks: if runs.is_empty() { 0 } else { last + 1 },
        runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    fn run(demand: u32, chunk: u64, count: u64, hops: &[(u64, u32, u32)]) -> RelayRun {
        let hops: Vec<Hop> = hops
            .iter()
            .map(|&(tick, from, to)| Hop { tick, from, to })
            .collect();
        RelayRun::new(demand, chunk, count, &hops).unwrap()
    }

    #[test]
    fn idle_nvlink_ticks_are_filled_and_nic_hops_keep_their_ticks() {
        // Two nodes of 2 GPUs, rho 1. GPU 2 receives 2 chunks from GPU 0
        // relayed through GPU 3 (NIC hops in ticks 0 and 1, last hops
        // from tick 1 on) and 2 from GPU 3 itself: 4 hops over the NVLink
        // pair 3 -> 2. With the intra-node chunks past the relayed ones
        // (ticks 3, 4) tick 0 is idle there: 5 ticks; placed again, the
        // intra-node chunks take ticks 0 and 1 and the last hops 2 and 3.
        let demands = [(0u32, 2u32, 2u64), (3, 2, 2)].map(|(src, dst, c)| Demand {
            src,
            dst,
            bits: 64 * c,
        });
        let inst = Instance::new(Model::Read1Write1, 4, 64, demands, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: 2,
            nvlink_speedup: 1,
        };
        let s = RelaySchedule {
            ticks: 5,
            runs: vec![
                run(0, 0, 2, &[(0, 0, 3), (1, 3, 2)]),
                run(1, 0, 2, &[(3, 3, 2)]),
            ],
        };
        let r = repack(&inst, tt, &s).expect("intra-node chunks end the plan");
        assert_eq!(r.ticks, 4);
        crate::relay::check::validate_relay(&inst, tt, &r).unwrap();
        // The NIC hops keep their ticks.
        let nic: Vec<_> = r
            .runs
            .iter()
            .filter(|r| r.demand == 0)
            .flat_map(|r| r.chunks().map(|c| c.1[0].tick).collect::<Vec<_>>())
            .collect();
        assert_eq!(nic, vec![0, 1]);
    }
}
