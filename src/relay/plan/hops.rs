//! The NVLink hops around the NIC layer: which GPU pair's chunk each NIC
//! transfer carries, and the ticks of its NVLink hops.
//!
//! NIC ticks go in order. A transfer on rail `k` from node `a` to node `b`
//! in tick `t` takes a chunk of a GPU pair `(a,i) -> (b,j)`: the pair
//! whose first hop `(a,i) -> (a,k)` fits in tick `t-1` and whose last hop
//! `(b,k) -> (b,j)` fits in `t+1` (no hop when `i = k`, resp. `j = k`),
//! and among those the one whose source and destination GPUs have the
//! most inter-node chunks left to place (the busiest GPUs' NVLink ports
//! are the scarce ones: serving them first spreads their chunks over the
//! ticks rather than piling them up at the end).
//! When none fits both, the best one's hops move to the latest earlier
//! (first hop) or earliest later (last hop) tick with room: the plan then
//! grows past `NIC ticks + 2`. With rho >= G every pair fits (a GPU's
//! NVLink carries at most G - 1 first hops and one last hop per tick), so
//! the plan is the NIC layer plus two ticks. Intra-node chunks then take
//! the earliest ticks with room on their one NVLink hop.

use super::grid::Grid;
use super::nic::NicSlot;
use crate::instance::Instance;
use crate::relay::model::TwoTier;

/// GPUs per node up to which the per-GPU answers of a NIC transfer are
/// kept in arrays on the stack (larger nodes compute them per pair).
const MAX_LOCAL: usize = 16;

/// A chunk's hops in signed ticks (shifted to 0 at the end).
pub(crate) type Placed = (u32, u64, [(i64, u32, u32); 3], u8);

/// A GPU pair's chunks still to place.
struct Entry {
    i: u32,
    j: u32,
    demand: u32,
    next: u64,
    left: u64,
}

impl Entry {
    fn demand_src(&self, inst: &Instance) -> u32 {
        inst.demands()[self.demand as usize].src
    }
    fn demand_dst(&self, inst: &Instance) -> u32 {
        inst.demands()[self.demand as usize].dst
    }
}

/// Inter-node chunks still to place, per source and per destination GPU,
/// and per source GPU and destination node (`own[x * nodes + b]`).
struct Left {
    out: Vec<u64>,
    inn: Vec<u64>,
    own: Vec<u64>,
    nodes: usize,
}

/// Places every chunk of `inst`: the inter-node ones on the NIC
/// transfers `nic` (per tick), the intra-node ones after. Chunks in
/// placement order.
pub(crate) fn place(inst: &Instance, tt: TwoTier, nic: &[Vec<NicSlot>]) -> Vec<Placed> {
    let nodes = tt.nodes(inst.slots) as usize;
    let mut pools: Vec<Vec<Entry>> = (0..nodes * nodes).map(|_| Vec::new()).collect();
    let mut intra = Vec::new();
    for (d, dem) in inst.demands().iter().enumerate() {
        let (a, b) = (tt.node(dem.src), tt.node(dem.dst));
        if a == b {
            intra.push(d);
            continue;
        }
        let g = tt.gpus_per_node;
        pools[a as usize * nodes + b as usize].push(Entry {
            i: dem.src % g,
            j: dem.dst % g,
            demand: d as u32,
            next: 0,
            left: inst.chunks(d),
        });
    }
    let mut left = Left {
        out: vec![0; inst.slots as usize],
        inn: vec![0; inst.slots as usize],
        own: vec![0; inst.slots as usize * nodes],
        nodes,
    };
    for pool in &pools {
        for en in pool {
            let (src, dst) = (en.demand_src(inst), en.demand_dst(inst));
            left.out[src as usize] += en.left;
            left.inn[dst as usize] += en.left;
            left.own[src as usize * nodes + tt.node(dst) as usize] += en.left;
        }
    }
    let n = inst.slots as usize;
    let mut nic_sends = vec![u32::MAX; nic.len() * n];
    for (t, slots) in nic.iter().enumerate() {
        for s in slots {
            nic_sends[t * n + tt.rank(s.a, s.rail) as usize] = s.b;
        }
    }
    let mut grid = Grid::new(n, nic.len(), tt.nvlink_speedup, nic_sends);
    let mut placed = Vec::with_capacity(inst.total_chunks() as usize);
    for (t, slots) in nic.iter().enumerate() {
        for s in slots {
            placed.push(take_one(tt, &mut grid, &mut left, t as i64, s, &mut pools));
        }
    }
    place_intra(inst, &mut grid, &intra, &mut placed);
    placed
}

/// Chooses the pair for NIC transfer `s` in tick `t` and places its hops.
fn take_one(
    tt: TwoTier,
    grid: &mut Grid,
    left: &mut Left,
    t: i64,
    s: &NicSlot,
    pools: &mut [Vec<Entry>],
) -> Placed {
    let nodes = left.nodes;
    let (sender, receiver) = (tt.rank(s.a, s.rail), tt.rank(s.b, s.rail));
    // Does GPU x's NIC send in tick `at` need a first hop into x (no
    // chunk of x's own left for that node)?
    let own = &left.own;
    let needs_first = |x: u32, at: i64| {
        grid.nic_send(at, x)
            .is_some_and(|dest| own[x as usize * nodes + dest as usize] == 0)
    };
    // Per local GPU of the two nodes: does its hop fit, how busy is it.
    let g = tt.gpus_per_node as usize;
    let mut first = [(false, 0u64); MAX_LOCAL];
    let mut last = [(false, 0u64); MAX_LOCAL];
    let first_of = |i: usize| {
        let src = tt.rank(s.a, i as u32);
        (
            i as u32 == s.rail || grid.fits(t - 1, src, sender),
            left.out[src as usize],
        )
    };
    let last_of = |j: usize| {
        let dst = tt.rank(s.b, j as u32);
        (
            j as u32 == s.rail || grid.fits_last(t + 1, receiver, dst, left.out[dst as usize] == 0),
            left.inn[dst as usize],
        )
    };
    if g <= MAX_LOCAL {
        for i in 0..g {
            first[i] = first_of(i);
            last[i] = last_of(i);
        }
    }
    let mut best = (0usize, (0u8, 0u64));
    for (e, en) in pools[s.a as usize * nodes + s.b as usize]
        .iter()
        .enumerate()
    {
        let ((first_ok, out), (last_ok, inn)) = if g <= MAX_LOCAL {
            (first[en.i as usize], last[en.j as usize])
        } else {
            (first_of(en.i as usize), last_of(en.j as usize))
        };
        let score = (first_ok as u8 + last_ok as u8, out + inn);
        if e == 0 || score > best.1 {
            best = (e, score);
        }
    }
    let keep = needs_first(
        tt.rank(s.b, pools[s.a as usize * nodes + s.b as usize][best.0].j),
        t + 2,
    );
    let pool = &mut pools[s.a as usize * nodes + s.b as usize];
    let en = &mut pool[best.0];
    let (src, dst) = (tt.rank(s.a, en.i), tt.rank(s.b, en.j));
    let mut hops = [(0i64, 0u32, 0u32); 3];
    let mut len = 0usize;
    if en.i != s.rail {
        let at = grid.latest_fit(t - 1, src, sender);
        grid.take(at, src, sender);
        hops[len] = (at, src, sender);
        len += 1;
    }
    hops[len] = (t, sender, receiver);
    len += 1;
    if en.j != s.rail {
        let at = grid.earliest_last(t + 1, receiver, dst, keep);
        grid.take(at, receiver, dst);
        hops[len] = (at, receiver, dst);
        len += 1;
    }
    let out = (en.demand, en.next, hops, len as u8);
    left.out[src as usize] -= 1;
    left.inn[dst as usize] -= 1;
    left.own[src as usize * nodes + s.b as usize] -= 1;
    en.next += 1;
    en.left -= 1;
    if en.left == 0 {
        pool.remove(best.0);
    }
    out
}

/// Intra-node chunks, each at the earliest tick from the plan's first
/// with room on its NVLink hop. A cursor per GPU side (the first tick
/// whose port is not yet full from the intra-node chunks' point of view)
/// spares rescanning full ticks.
fn place_intra(inst: &Instance, grid: &mut Grid, intra: &[usize], placed: &mut Vec<Placed>) {
    let start = placed
        .iter()
        .flat_map(|p| p.2[..p.3 as usize].iter().map(|h| h.0))
        .min()
        .unwrap_or(0);
    let n = inst.slots as usize;
    let (mut from_out, mut from_in) = (vec![start; n], vec![start; n]);
    for &d in intra {
        let dem = inst.demands()[d];
        let (s, t) = (dem.src as usize, dem.dst as usize);
        for c in 0..inst.chunks(d) {
            let at = grid.earliest_fit(from_out[s].max(from_in[t]), dem.src, dem.dst);
            grid.take(at, dem.src, dem.dst);
            while !grid.out_free(from_out[s], dem.src) {
                from_out[s] += 1;
            }
            while !grid.in_free(from_in[t], dem.dst) {
                from_in[t] += 1;
            }
            let mut hops = [(0i64, 0u32, 0u32); 3];
            hops[0] = (at, dem.src, dem.dst);
            placed.push((d as u32, c, hops, 1));
        }
    }
}
