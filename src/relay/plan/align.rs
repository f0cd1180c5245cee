//! Which chunks each rail carries, where NVLink is slow (rho < G / 2, a
//! GPU's NVLink port tight, or the bound above the node bound).
//!
//! A rail's segment of a node pair is a consecutive part of the pair's
//! sequence (`super::hops`), as long as the rail's share (`super::rails`).
//! Cut in source order, a hot GPU's chunks spread over every rail, and
//! each one off the GPU's own rail crosses its NVLink port: where NVLink
//! carries few chunks a tick those hops set the plan's length. Here each
//! pair's sequence is reordered, demands cut into pieces, so that rail
//! `k`'s part holds first the chunks that need no NVLink hop on it (GPU
//! `k` to GPU `k`), then those of one side's GPU `k`, then of the other
//! side's, then the rest: which side first is chosen per pair and rail,
//! the GPU whose NVLink port is under more pressure (`super::pressure`,
//! its load under the even split). A hot GPU's own NIC so carries its
//! chunks as far as its share goes, and only the rest crosses NVLink.
//! Within a rail's part, chunks whose NVLink hop lands on a tight port
//! go first where they only add to its load early (a last hop into it, a
//! first hop into it as the relay), last where a first hop leaves it: the
//! port is busy from the plan's start and drained before its end.
//! `by_rails` keeps the rails' shares, so every NIC still carries the node
//! bound at most; where NVLink binds (the bound above the node bound),
//! `loaded_rails` chooses the shares too, every chunk's rail in the same
//! order but within the room left on the ports it uses, a GPU's NVLink
//! room kept for its own chunks as far as its own NIC cannot carry them,
//! and `by_rails` then follows those routes.

use super::item::Item;
use super::rails::RailLoads;
use crate::instance::Instance;
use crate::relay::model::TwoTier;

/// `seq` and `pair_start` (as `super::hops` builds them: pair `p`'s
/// demands at `seq[pair_start[p]..pair_start[p + 1]]`) reordered and cut
/// so that the rails' consecutive shares of each pair (`rails`, in rail
/// order) take the chunks the module docs say. `pressure` per GPU as
/// [`super::pressure::Pressure`] has it (empty where `routes` are given),
/// a port tight from `tight` on.
pub(crate) fn by_rails(
    seq: &[Item],
    pair_start: &[usize],
    rails: &RailLoads,
    routes: Option<&Routes>,
    pressure: &[u64],
    tight: u64,
) -> (Vec<Item>, Vec<usize>) {
    let pairs = pair_start.len() - 1;
    let g = rails.len();
    let mut caps = vec![0u64; pairs * g];
    for (k, rail) in rails.iter().enumerate() {
        for &(p, c) in rail {
            caps[p as usize * g + k] = c;
        }
    }
    let mut out: Vec<Item> = Vec::with_capacity(seq.len() * 2);
    let mut starts = Vec::with_capacity(pairs + 1);
    let mut left: Vec<u64> = Vec::new();
    let mut at: Vec<usize> = Vec::new(); // a pair's item of each (source, destination) GPU
    let mut pieces: Vec<Vec<Item>> = vec![Vec::new(); g];
    let mut keyed: Vec<(u64, u64, Item)> = Vec::new();
    let mut to_first: Vec<bool> = Vec::with_capacity(g); // per rail: the destination's GPU under more pressure
    for p in 0..pairs {
        starts.push(out.len());
        let items = &seq[pair_start[p]..pair_start[p + 1]];
        let room = &mut caps[p * g..(p + 1) * g];
        left.clear();
        left.extend(items.iter().map(|i| i.chunks));
        if let Some(routes) = routes {
            // The routes chosen with the NVLink ports in view (loaded_rails).
            at.clear();
            at.resize(g * g, usize::MAX);
            for (x, it) in items.iter().enumerate() {
                at[it.src_local as usize * g + it.dst_local as usize] = x;
            }
            for &(k, i, j, n) in &routes[p] {
                let x = at[i as usize * g + j as usize];
                let mut room_n = n;
                take(
                    &items[x],
                    &mut left[x],
                    &mut room_n,
                    &mut pieces[k as usize],
                );
                room[k as usize] -= n;
            }
        } else if let Some(first) = items.first() {
            // Per rail, which side's GPU takes its own chunks first: the
            // one whose NVLink port is under more pressure.
            let (sa, sb) = (first.src - first.src_local, first.dst - first.dst_local);
            to_first.clear();
            to_first.extend((0..g).map(|k| pressure[sb as usize + k] >= pressure[sa as usize + k]));
            for phase in 0..3u8 {
                for (x, item) in items.iter().enumerate() {
                    if left[x] == 0 {
                        continue;
                    }
                    let (i, j) = (item.src_local as usize, item.dst_local as usize);
                    for k in [i, j] {
                        if own_rail(phase, i, j, to_first[k]) == Some(k) {
                            take(item, &mut left[x], &mut room[k], &mut pieces[k]);
                        }
                    }
                }
            }
            for (x, item) in items.iter().enumerate() {
                for k in 0..g {
                    if left[x] == 0 {
                        break;
                    }
                    take(item, &mut left[x], &mut room[k], &mut pieces[k]);
                }
            }
        }
        debug_assert!(left.iter().all(|&l| l == 0) && room.iter().all(|&r| r == 0));
        for (k, rail) in pieces.iter_mut().enumerate() {
            // Chunks with a last hop to a tight GPU first (its NVLink port
            // busy from the start, drained before the end), with a first
            // hop from one last; within those classes as `edge` says, then
            // in demand order, a demand's pieces in chunk order, joined
            // where they continue each other (one run, not several).
            let hot = |r: u32| pressure.get(r as usize).is_some_and(|&p| p >= tight);
            let class = |i: &Item| {
                let relay = i.src - i.src_local + k as u32;
                let (first_hop, last_hop) = (i.src_local as usize != k, i.dst_local as usize != k);
                if last_hop && hot(i.dst) || first_hop && hot(relay) {
                    0u8
                } else if first_hop && hot(i.src) {
                    2
                } else {
                    1
                }
            };
            // Then chunks without a first hop (the rail's own GPU's) first,
            // those without a last hop last: the NIC layer starts with
            // chunks whose first hops need no earlier tick and ends with
            // chunks whose last hops need no later one.
            let edge = |i: &Item| match (i.src_local as usize != k, i.dst_local as usize != k) {
                (false, _) => 0u8,
                (true, true) => 1,
                (true, false) => 2,
            };
            // Each piece's key computed once (not at every comparison).
            keyed.clear();
            keyed.extend(rail.drain(..).map(|i| {
                let key = (class(&i) as u64) << 34 | (edge(&i) as u64) << 32 | i.demand as u64;
                (key, i.first, i)
            }));
            keyed.sort_unstable_by_key(|&(key, first, _)| (key, first));
            let from = out.len();
            for &(_, _, piece) in &keyed {
                let joins = out.len() > from && {
                    let last = &out[out.len() - 1];
                    last.demand == piece.demand && last.first + last.chunks == piece.first
                };
                if joins {
                    let last = out.len() - 1;
                    out[last].chunks += piece.chunks;
                } else {
                    out.push(piece);
                }
            }
        }
    }
    starts.push(out.len());
    (out, starts)
}

/// The rail a chunk from GPU `i` to GPU `j` (indices in their nodes)
/// takes in `phase` (module docs): 0, its own rail where `i == j`; 1, the
/// busier side's GPU's (`j` where receivers are busier, else `i`); 2, the
/// other side's.
fn own_rail(phase: u8, i: usize, j: usize, to_first: bool) -> Option<usize> {
    match phase {
        0 => (i == j).then_some(i),
        1 => Some(if to_first { j } else { i }),
        _ => Some(if to_first { i } else { j }),
    }
}

/// Moves up to `room` of `left` chunks of `item` (its next ones) onto a
/// rail's pieces.
fn take(item: &Item, left: &mut u64, room: &mut u64, pieces: &mut Vec<Item>) {
    let n = (*left).min(*room);
    if n == 0 {
        return;
    }
    let done = item.chunks - *left;
    pieces.push(Item {
        first: item.first + done,
        chunks: n,
        ..*item
    });
    *left -= n;
    *room -= n;
}

/// Per node pair, its chunks' rails: `(rail, source GPU, destination GPU
/// (indices in their nodes), chunks)`.
pub(crate) type Routes = Vec<Vec<(u32, u32, u32, u64)>>;

/// The rails of every chunk where the plan's bound `target` is above the
/// node bound (NVLink binds): a NIC may then carry up to `target` chunks,
/// more than its node's average, and each GPU's NVLink port `rho x target`
/// each way less its intra-node chunks. Chunks go to rails in the order
/// of the module docs, for all pairs at once (each phase over every pair
/// before the next), each within the room left on every port it uses (the
/// two NICs, and the NVLink ports of its first and last hop; a relay's
/// NVLink port less what its own chunks still need there: those beyond
/// `target` its own NIC cannot carry); the rest to the rail with the most
/// room counted in ticks (a NIC's room times rho), then the most NIC
/// room (past every limit, the least overfull: the plan then runs
/// longer, and an NVLink port past its limit by rho chunks costs a tick
/// where a NIC's costs rho). `pairs` as `super::node_pairs` lists them.
pub(crate) fn loaded_rails(
    inst: &Instance,
    tt: TwoTier,
    pairs: &[(u32, u32, u64)],
    target: u64,
) -> (RailLoads, Routes) {
    let g = tt.gpus_per_node as usize;
    let nodes = tt.nodes(inst.slots) as usize;
    let n = inst.slots as usize;
    let pair_of = |a: u32, b: u32| {
        pairs
            .binary_search_by_key(&(a, b), |p| (p.0, p.1))
            .expect("every inter-node demand's pair is listed")
    };
    let link = (tt.nvlink_speedup as u64).saturating_mul(target) as i64;
    let rho = tt.nvlink_speedup as i64;
    let mut ports = Ports {
        g,
        nic_out: vec![target as i64; nodes * g],
        nic_in: vec![target as i64; nodes * g],
        nv_out: vec![link; n],
        nv_in: vec![link; n],
        own_out: vec![0; n],
        own_in: vec![0; n],
    };
    // Per pair, the G x G chunks (source GPU, destination GPU in the nodes).
    let mut left = vec![0u64; pairs.len() * g * g];
    let (mut sends, mut receives) = (vec![0u64; n], vec![0u64; n]);
    for (d, dem) in inst.demands().iter().enumerate() {
        let (a, b) = (tt.node(dem.src), tt.node(dem.dst));
        let c = inst.chunks(d);
        if a == b {
            ports.nv_out[dem.src as usize] -= c as i64;
            ports.nv_in[dem.dst as usize] -= c as i64;
            continue;
        }
        let (i, j) = ((dem.src as usize) % g, (dem.dst as usize) % g);
        left[pair_of(a, b) * g * g + i * g + j] += c;
        sends[dem.src as usize] += c;
        receives[dem.dst as usize] += c;
    }
    for r in 0..n {
        ports.own_out[r] = sends[r].saturating_sub(target) as i64;
        ports.own_in[r] = receives[r].saturating_sub(target) as i64;
    }
    let to_first = receives.iter().max() >= sends.iter().max();
    let mut routes: Routes = vec![Vec::new(); pairs.len()];
    let mut share = vec![0u64; pairs.len() * g];
    let mut place = |ports: &mut Ports, p: usize, i: usize, j: usize, k: usize, c: u64| {
        if c > 0 {
            ports.take(pairs[p], i, j, k, c);
            share[p * g + k] += c;
            routes[p].push((k as u32, i as u32, j as u32, c));
        }
    };
    for phase in 0..3 {
        for p in 0..pairs.len() {
            for i in 0..g {
                for j in 0..g {
                    let Some(k) = own_rail(phase, i, j, to_first) else {
                        continue;
                    };
                    let cell = &mut left[p * g * g + i * g + j];
                    let c = (*cell).min(ports.room(pairs[p], i, j, k).max(0) as u64);
                    *cell -= c;
                    place(&mut ports, p, i, j, k, c);
                }
            }
        }
    }
    for (p, &pair) in pairs.iter().enumerate() {
        for i in 0..g {
            for j in 0..g {
                let cell = p * g * g + i * g + j;
                while left[cell] > 0 {
                    // The rail with the most room on every port the chunk
                    // uses (the first of equals); past every limit, the
                    // least overfull.
                    let k = (0..g)
                        .max_by_key(|&k| {
                            (
                                ports.room_ticks(pair, i, j, k, rho),
                                ports.nic_room(pair, k),
                                std::cmp::Reverse(k),
                            )
                        })
                        .expect("G >= 1");
                    let room = ports.room(pair, i, j, k);
                    let c = if room > 0 {
                        left[cell].min(room as u64)
                    } else {
                        left[cell]
                    };
                    left[cell] -= c;
                    place(&mut ports, p, i, j, k, c);
                }
            }
        }
    }
    (super::rails::from_dense(&share, g, pairs.len()), routes)
}

/// Room left on each port: NICs by (node, rail), NVLink ports by GPU;
/// and per GPU, the NVLink hops its own chunks still need at least (those
/// its own NIC cannot carry within the target), which relayed chunks of
/// other GPUs may not take.
struct Ports {
    g: usize,
    nic_out: Vec<i64>,
    nic_in: Vec<i64>,
    nv_out: Vec<i64>,
    nv_in: Vec<i64>,
    own_out: Vec<i64>,
    own_in: Vec<i64>,
}

/// A port a chunk uses on its route: a NIC, or an NVLink port used for
/// the chunk's own GPU (its source's first hop, its destination's last)
/// or as a relay (the NIC's GPU, receiving a first hop or sending a last).
#[derive(Clone, Copy)]
enum Use {
    NicOut(usize),
    NicIn(usize),
    OwnOut(usize),
    OwnIn(usize),
    RelayIn(usize),
    RelayOut(usize),
    None,
}

impl Ports {
    /// The ports a chunk of `(a, i) -> (b, j)` on rail `k` uses.
    fn uses(&self, (a, b, _): (u32, u32, u64), i: usize, j: usize, k: usize) -> [Use; 6] {
        let (a, b, g) = (a as usize, b as usize, self.g);
        let (first, last) = (i != k, j != k);
        let hop = |on: bool, u: Use| if on { u } else { Use::None };
        [
            Use::NicOut(a * g + k),
            Use::NicIn(b * g + k),
            hop(first, Use::OwnOut(a * g + i)),
            hop(first, Use::RelayIn(a * g + k)),
            hop(last, Use::RelayOut(b * g + k)),
            hop(last, Use::OwnIn(b * g + j)),
        ]
    }

    /// Room on one port (a relay's NVLink port less what its own chunks
    /// still need), NICs' times `nic_scale`.
    fn room_on(&self, u: Use, nic_scale: i64) -> i64 {
        match u {
            Use::NicOut(x) => self.nic_out[x].saturating_mul(nic_scale),
            Use::NicIn(x) => self.nic_in[x].saturating_mul(nic_scale),
            Use::OwnOut(x) => self.nv_out[x],
            Use::OwnIn(x) => self.nv_in[x],
            Use::RelayIn(x) => self.nv_in[x] - self.own_in[x],
            Use::RelayOut(x) => self.nv_out[x] - self.own_out[x],
            Use::None => i64::MAX,
        }
    }

    /// Room for chunks of `(a, i) -> (b, j)` on rail `k`: the least on the
    /// ports they use.
    fn room(&self, pair: (u32, u32, u64), i: usize, j: usize, k: usize) -> i64 {
        self.room_ticks(pair, i, j, k, 1)
    }

    /// The room of [`Ports::room`] in NVLink chunks: a NIC's room times
    /// `rho` (a tick of a NIC carries one chunk, of NVLink `rho`), so
    /// ports past their limit compare by the ticks they add.
    fn room_ticks(&self, pair: (u32, u32, u64), i: usize, j: usize, k: usize, rho: i64) -> i64 {
        self.uses(pair, i, j, k)
            .iter()
            .map(|&u| self.room_on(u, rho))
            .min()
            .unwrap_or(i64::MAX)
    }

    /// The room on rail `k`'s two NICs for pair `(a, b)`.
    fn nic_room(&self, (a, b, _): (u32, u32, u64), k: usize) -> i64 {
        let g = self.g;
        self.nic_out[a as usize * g + k].min(self.nic_in[b as usize * g + k])
    }

    /// Takes `c` chunks of `(a, i) -> (b, j)` on rail `k`; a chunk of a
    /// GPU off its own NIC takes one of the hops its GPU still needs.
    fn take(&mut self, pair: (u32, u32, u64), i: usize, j: usize, k: usize, c: u64) {
        let c = c as i64;
        for u in self.uses(pair, i, j, k) {
            match u {
                Use::NicOut(x) => self.nic_out[x] -= c,
                Use::NicIn(x) => self.nic_in[x] -= c,
                Use::OwnOut(x) => {
                    self.nv_out[x] -= c;
                    self.own_out[x] = (self.own_out[x] - c).max(0);
                }
                Use::OwnIn(x) => {
                    self.nv_in[x] -= c;
                    self.own_in[x] = (self.own_in[x] - c).max(0);
                }
                Use::RelayIn(x) => self.nv_in[x] -= c,
                Use::RelayOut(x) => self.nv_out[x] -= c,
                Use::None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    fn item(demand: u32, src: u32, dst: u32, g: u32, chunks: u64) -> Item {
        Item {
            demand,
            src,
            dst,
            src_local: src % g,
            dst_local: dst % g,
            first: 0,
            chunks,
        }
    }

    #[test]
    fn each_rail_keeps_its_share_and_takes_its_own_gpus_chunks_first() {
        // One pair (node 0 -> node 1), G = 4: GPU 4+2 receives the most.
        let g = 4;
        let seq = vec![
            item(0, 0, 5, g, 3),
            item(1, 0, 6, g, 5),
            item(2, 1, 6, g, 6),
            item(3, 2, 6, g, 2),
            item(4, 3, 7, g, 4),
        ];
        let rails: RailLoads = vec![vec![(0, 5)], vec![(0, 5)], vec![(0, 5)], vec![(0, 5)]];
        // The receiving node's NVLink ports under more pressure.
        let pressure = [0, 0, 0, 0, 1, 1, 1, 1];
        let (out, starts) = by_rails(&seq, &[0, seq.len()], &rails, None, &pressure, u64::MAX);
        assert_eq!(starts, vec![0, out.len()]);
        // Cut in rail order by the shares, as the placement does.
        let (mut rail, mut filled) = (0usize, 0u64);
        let mut per_rail = vec![Vec::new(); 4];
        let mut chunks = std::collections::BTreeMap::new();
        for piece in &out {
            let mut left = piece.chunks;
            let mut first = piece.first;
            while left > 0 {
                let n = left.min(5 - filled);
                per_rail[rail].push((piece.demand, piece.dst_local, n));
                for c in first..first + n {
                    assert!(
                        chunks.insert((piece.demand, c), rail).is_none(),
                        "a chunk twice"
                    );
                }
                (left, first, filled) = (left - n, first + n, filled + n);
                if filled == 5 {
                    (rail, filled) = (rail + 1, 0);
                }
            }
        }
        assert_eq!(chunks.len(), 20, "every chunk once");
        // Receivers are the busier side: rail 2 carries GPU 6's chunks
        // (13 of them, 5 fit), rail 1 GPU 5's, rail 3 GPU 7's.
        assert!(per_rail[2].iter().all(|&(_, d, _)| d == 2), "{per_rail:?}");
        assert!(per_rail[1].iter().any(|&(d, _, _)| d == 0), "{per_rail:?}");
        assert!(per_rail[3].iter().any(|&(d, _, _)| d == 4), "{per_rail:?}");
    }

    #[test]
    fn a_tight_ports_last_hops_come_first_on_a_rail_and_its_first_hops_last() {
        // One pair (node 0 -> node 1), G = 4, one rail of 8. GPU 6 (node 1,
        // index 2) is tight: on rail 0 its chunks (a last hop into it) go
        // first; GPU 1 (node 0, index 1) is tight too: its chunks (a first
        // hop out of it) go last; the rest in demand order between.
        let g = 4;
        let seq = vec![
            item(0, 0, 4, g, 1),
            item(1, 1, 5, g, 2),
            item(2, 2, 6, g, 3),
            item(3, 3, 7, g, 2),
        ];
        let rails: RailLoads = vec![vec![(0, 8)], vec![], vec![], vec![]];
        let pressure = [0, 9, 0, 0, 0, 0, 9, 0];
        let (out, _) = by_rails(&seq, &[0, seq.len()], &rails, None, &pressure, 9);
        let order: Vec<u32> = out.iter().map(|i| i.demand).collect();
        assert_eq!(order, vec![2, 0, 3, 1]);
    }

    #[test]
    fn loaded_rails_keep_a_saturated_gpus_nvlink_for_its_own_chunks() {
        // Nodes of 2, rho 1. GPU 0 receives 10 chunks from each GPU of
        // node 1 and 2 from GPU 1: at the target 11 its own NIC carries 11
        // and its NVLink port the other 9 plus the 2 intra-node ones, full.
        // GPU 1's 10 chunks out must then leave on its own NIC: relayed
        // through GPU 0 they would take the room GPU 0's own chunks need.
        let demands: Vec<Demand> = [
            (2u32, 0u32, 10u64),
            (3, 0, 10),
            (1, 0, 2),
            (1, 2, 5),
            (1, 3, 5),
        ]
        .iter()
        .map(|&(src, dst, c)| Demand {
            src,
            dst,
            bits: 64 * c,
        })
        .collect();
        let inst = Instance::new(Model::Read1Write1, 4, 64, demands, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: 2,
            nvlink_speedup: 1,
        };
        let pairs = vec![(0u32, 1u32, 10u64), (1, 0, 20)];
        let (_, routes) = loaded_rails(&inst, tt, &pairs, 11);
        // Node 0 -> 1: nothing on rail 0 (GPU 0's NIC).
        assert!(routes[0].iter().all(|r| r.0 == 1), "{:?}", routes[0]);
        // GPU 0's NVLink receive side: 2 intra-node chunks and the last
        // hops of its chunks off rail 0, within rho x 11.
        let last_hops: u64 = routes[1].iter().filter(|r| r.0 != 0).map(|r| r.3).sum();
        assert!(2 + last_hops <= 11, "{:?}", routes[1]);
        assert_eq!(routes[1].iter().map(|r| r.3).sum::<u64>(), 20);
    }

    #[test]
    fn loaded_rails_let_a_hot_gpus_own_nic_carry_up_to_the_bound() {
        // Nodes of 4; GPU 2 of node 0 receives 12 chunks from each GPU of
        // node 1, others 1: node bound ceil(52 / 4) = 13; with a bound of
        // 24 (NVLink binding) rail 2 takes 24 of GPU 2's 48 chunks.
        let g = 4;
        let mut demands = Vec::new();
        for s in 4..8u32 {
            for d in 0..4u32 {
                let chunks = if d == 2 { 12 } else { 1 };
                demands.push(Demand {
                    src: s,
                    dst: d,
                    bits: 64 * chunks,
                });
            }
        }
        let inst = Instance::new(Model::Read1Write1, 8, 64, demands, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: g,
            nvlink_speedup: 1,
        };
        let pairs = vec![(1u32, 0u32, 60u64)];
        let (rails, routes) = loaded_rails(&inst, tt, &pairs, 24);
        assert_eq!(routes[0].iter().map(|r| r.3).sum::<u64>(), 60);
        let per_rail: Vec<u64> = rails.iter().map(|r| r.iter().map(|x| x.1).sum()).collect();
        assert_eq!(per_rail.iter().sum::<u64>(), 60);
        assert!(per_rail.iter().all(|&c| c <= 24), "{per_rail:?}");
        assert_eq!(per_rail[2], 24, "{per_rail:?}");
    }
}
