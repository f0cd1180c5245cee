//! Uneven rail shares for tight GPUs: where a GPU's NVLink port is tight
//! (`super::pressure`), its own NIC should carry as many of its own
//! inter-node chunks as it can and as few relayed ones, but the even split
//! gives its rail `c/G` of each node pair, whatever part of the pair is
//! the GPU's.
//!
//! For a hot destination `(b,j)` (a hot source `(a,i)` likewise, with the
//! destinations' NICs), in its node's pairs `(a,b)`, three kinds of move,
//! each within the room every NIC has below the bound (so the NIC layer
//! keeps its length) and onto rails and far NICs whose GPUs are not
//! tight:
//!
//! 1. a pair with more chunks for `(b,j)` than its share on rail `j`
//!    moves some from another rail `k` to rail `j` (NICs `(b,j)` and
//!    `(a,j)` carry more, `(b,k)` and `(a,k)` less);
//! 2. a pair with fewer moves the rest of its rail-`j` share to another
//!    rail (those chunks would cross `(b,j)`'s NVLink port as relays);
//! 3. two pairs trade: `(a,b)` (short on rail `j`) takes rail-`j` share
//!    from `(a',b)` (more than it needs there) and gives it rail-`k`
//!    share, so node `b`'s NICs carry what they did.
//!
//! `super::align::by_rails` then gives rail `j`'s share to `(b,j)`'s
//! chunks first. Measured on the Rust generator's hot columns (`cargo run
//! --release --example relay_gap`: 240 plans at 64 and 256 ranks): 3
//! plans outside 2% + 2 of the bound with the even split, none with these
//! shares (doc/performance.md "Relays at sigma 1.6").

use super::pressure::Pressure;
use super::rails::RailLoads;
use crate::instance::Instance;
use crate::relay::model::TwoTier;

/// Rail shares per pair and rail, dense: `share[p * g + k]`, and the
/// NICs' loads by (node, rail).
struct Shares {
    g: usize,
    share: Vec<u64>,
    nic_out: Vec<u64>,
    nic_in: Vec<u64>,
}

/// One side of the moves: the tight GPU's end of its node's pairs
/// (`Dst`: pairs into its node, the other ends their sources).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Src,
    Dst,
}

/// `rails` with shares moved towards the tight GPUs (most pressure
/// first), each NIC within `bound` (or its load now, if above).
pub(crate) fn favour_tight(
    inst: &Instance,
    tt: TwoTier,
    pairs: &[(u32, u32, u64)],
    rails: &RailLoads,
    pressure: &Pressure,
    bound: u64,
) -> RailLoads {
    let g = tt.gpus_per_node as usize;
    let nodes = tt.nodes(inst.slots) as usize;
    let mut s = Shares {
        g,
        share: vec![0; pairs.len() * g],
        nic_out: vec![0; nodes * g],
        nic_in: vec![0; nodes * g],
    };
    for (k, rail) in rails.iter().enumerate() {
        for &(p, c) in rail {
            let (a, b, _) = pairs[p as usize];
            s.share[p as usize * g + k] = c;
            s.nic_out[a as usize * g + k] += c;
            s.nic_in[b as usize * g + k] += c;
        }
    }
    let cap = s
        .nic_out
        .iter()
        .chain(&s.nic_in)
        .copied()
        .max()
        .unwrap_or(0)
        .max(bound);
    // Per pair, the chunks of each source GPU and each destination GPU.
    let mut pair_of = vec![u32::MAX; nodes * nodes];
    for (p, &(a, b, _)) in pairs.iter().enumerate() {
        pair_of[a as usize * nodes + b as usize] = p as u32;
    }
    let (mut from, mut to) = (vec![0u64; pairs.len() * g], vec![0u64; pairs.len() * g]);
    for (d, dem) in inst.demands().iter().enumerate() {
        let (a, b) = (tt.node(dem.src) as usize, tt.node(dem.dst) as usize);
        if a != b {
            let p = pair_of[a * nodes + b] as usize;
            from[p * g + (dem.src as usize % g)] += inst.chunks(d);
            to[p * g + (dem.dst as usize % g)] += inst.chunks(d);
        }
    }
    let mut hot: Vec<u32> = (0..inst.slots).filter(|&r| pressure.tight(r)).collect();
    hot.sort_by_key(|&r| (std::cmp::Reverse(pressure.per_gpu[r as usize]), r));
    for &r in &hot {
        let (node, j) = (tt.node(r) as usize, r as usize % g);
        for side in [Side::Dst, Side::Src] {
            // The node's pairs on that side: into it (Dst) or out of it.
            let group: Vec<usize> = (0..nodes)
                .filter(|&o| o != node)
                .map(|o| match side {
                    Side::Dst => pair_of[o * nodes + node],
                    Side::Src => pair_of[node * nodes + o],
                })
                .filter(|&p| p != u32::MAX)
                .map(|p| p as usize)
                .collect();
            let own = match side {
                Side::Dst => &to,
                Side::Src => &from,
            };
            favour(&mut s, pairs, &group, own, j, side, cap, |node, k| {
                !pressure.tight(tt.rank(node as u32, k as u32))
            });
        }
    }
    super::rails::from_dense(&s.share, g, pairs.len())
}

/// Moves shares within `group` (pairs sharing the tight GPU's node
/// `node`, on `side`) so that rail `j` carries as much of each pair's
/// chunks for GPU `j` (`own[p * g + j]`) and as little else as the NICs'
/// room below `cap` allows (the module docs' three moves), onto rails and
/// far NICs whose GPU `free(node, rail)` allows.
#[allow(clippy::too_many_arguments)]
fn favour(
    s: &mut Shares,
    pairs: &[(u32, u32, u64)],
    group: &[usize],
    own: &[u64],
    j: usize,
    side: Side,
    cap: u64,
    free: impl Fn(usize, usize) -> bool,
) {
    let g = s.g;
    let Some(&first) = group.first() else {
        return;
    };
    let node = near_far(pairs, side, first).0;
    let short = |s: &Shares, p: usize| own[p * g + j].saturating_sub(s.share[p * g + j]);
    let spare = |s: &Shares, q: usize| s.share[q * g + j].saturating_sub(own[q * g + j]);
    let free = &free;
    let others = |far: usize| (0..g).filter(move |&k| k != j && free(node, k) && free(far, k));
    // 1. Pair p moves x from rail k to rail j alone, within the room the
    // tight GPU's own NIC has.
    for &p in group {
        let fp = near_far(pairs, side, p).1;
        if !free(fp, j) {
            continue;
        }
        for k in (0..g).filter(|&k| k != j && free(node, k)) {
            let room = s.room(side, (node, fp), j, cap);
            let x = short(s, p).min(s.share[p * g + k]).min(room);
            s.shift(side, p, (node, fp), (k, j), x);
        }
    }
    // 2. Pairs whose rail j carries more than the GPU's own chunks move the
    // rest to another rail with room (they would cross its NVLink port as
    // relays).
    for &q in group {
        let fq = near_far(pairs, side, q).1;
        for k in others(fq) {
            let x = spare(s, q).min(s.room(side, (node, fq), k, cap));
            s.shift(side, q, (node, fq), (j, k), x);
        }
    }
    // 3. Trades: p takes rail-j share from q and gives it rail-k share (the
    // tight node's NICs carry what they did; the far NICs (p, j) and
    // (q, k) carry x more).
    for &p in group {
        let fp = near_far(pairs, side, p).1;
        if !free(fp, j) {
            continue;
        }
        for &q in group {
            if short(s, p) == 0 {
                break;
            }
            let fq = near_far(pairs, side, q).1;
            if q == p || spare(s, q) == 0 {
                continue;
            }
            for k in others(fq) {
                let far_nic = s.nics(side).1;
                let room = cap
                    .saturating_sub(far_nic[fp * g + j])
                    .min(cap.saturating_sub(far_nic[fq * g + k]));
                let x = short(s, p)
                    .min(spare(s, q))
                    .min(s.share[p * g + k])
                    .min(room);
                s.shift(side, p, (node, fp), (k, j), x);
                s.shift(side, q, (node, fq), (j, k), x);
            }
        }
    }
}

/// The tight GPU's node and the far node of pair `p` on `side`.
fn near_far(pairs: &[(u32, u32, u64)], side: Side, p: usize) -> (usize, usize) {
    let (a, b, _) = pairs[p];
    match side {
        Side::Dst => (b as usize, a as usize),
        Side::Src => (a as usize, b as usize),
    }
}

impl Shares {
    /// The NICs' loads at the tight GPU's end of the pairs on `side` and
    /// at their far end: for pairs into its node (`Dst`) the receiving
    /// NICs there and the sources' sending ones, else the other way round.
    fn nics(&self, side: Side) -> (&[u64], &[u64]) {
        match side {
            Side::Dst => (&self.nic_in, &self.nic_out),
            Side::Src => (&self.nic_out, &self.nic_in),
        }
    }

    /// [`Shares::nics`], to change.
    fn nics_mut(&mut self, side: Side) -> (&mut [u64], &mut [u64]) {
        match side {
            Side::Dst => (&mut self.nic_in, &mut self.nic_out),
            Side::Src => (&mut self.nic_out, &mut self.nic_in),
        }
    }

    /// Room below `cap` on rail `rail` at both ends (`near`, `far` nodes).
    fn room(&self, side: Side, (near, far): (usize, usize), rail: usize, cap: u64) -> u64 {
        let g = self.g;
        let (near_nic, far_nic) = self.nics(side);
        cap.saturating_sub(near_nic[near * g + rail])
            .min(cap.saturating_sub(far_nic[far * g + rail]))
    }

    /// Moves `x` of pair `p`'s share from rail `from` to rail `to`, with
    /// the loads of its NICs at both ends (`near`, `far` nodes).
    fn shift(
        &mut self,
        side: Side,
        p: usize,
        (near, far): (usize, usize),
        (from, to): (usize, usize),
        x: u64,
    ) {
        if x == 0 {
            return;
        }
        let g = self.g;
        self.share[p * g + from] -= x;
        self.share[p * g + to] += x;
        let (near_nic, far_nic) = self.nics_mut(side);
        near_nic[near * g + from] -= x;
        near_nic[near * g + to] += x;
        far_nic[far * g + from] -= x;
        far_nic[far * g + to] += x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_hot_columns;
    use crate::instance::Model;

    /// Every NIC's load over the rails (sending, receiving) and every
    /// pair's total.
    fn loads_of(
        rails: &RailLoads,
        pairs: &[(u32, u32, u64)],
        nodes: usize,
    ) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let g = rails.len();
        let (mut out, mut inn) = (vec![0u64; nodes * g], vec![0u64; nodes * g]);
        let mut total = vec![0u64; pairs.len()];
        for (k, rail) in rails.iter().enumerate() {
            for &(p, c) in rail {
                let (a, b, _) = pairs[p as usize];
                out[a as usize * g + k] += c;
                inn[b as usize * g + k] += c;
                total[p as usize] += c;
            }
        }
        (out, inn, total)
    }

    #[test]
    fn shares_keep_every_pair_and_every_nic_within_the_even_splits_bound() {
        // Hot columns of several sizes, skews and seeds at rho 1-4, G 4
        // and 8: wherever a port is tight, the moved shares keep each
        // pair's chunks and each NIC within the bound the even split had.
        let mut tight_seen = 0;
        for (n, g) in [(32u32, 4u32), (64, 8), (128, 8)] {
            for (sigma, hot_factor, seed) in [(0.8, 4u64, 1u64), (1.2, 6, 2), (1.6, 6, 3)] {
                let inst = test_hot_columns(Model::Read1Write1, n, 4, (sigma, hot_factor), seed);
                for rho in 1..=4u32.min(g - 1) {
                    let tt = TwoTier {
                        gpus_per_node: g,
                        nvlink_speedup: rho,
                    };
                    let nodes = tt.nodes(n) as usize;
                    let pairs = super::super::node_pairs(&inst, tt).unwrap();
                    let even = super::super::rails::split_rails(nodes as u32, g, &pairs).unwrap();
                    let (out, inn, _) = loads_of(&even, &pairs, nodes);
                    let bound = out.iter().chain(&inn).copied().max().unwrap();
                    let loads = crate::relay::bounds::Loads::of(&inst, tt).unwrap();
                    let pressure = Pressure::of(tt, &loads, bound).unwrap();
                    if !pressure.any_tight() {
                        continue;
                    }
                    tight_seen += 1;
                    let moved = favour_tight(&inst, tt, &pairs, &even, &pressure, bound);
                    let (out, inn, total) = loads_of(&moved, &pairs, nodes);
                    let at = format!("n {n} g {g} sigma {sigma} rho {rho}");
                    assert!(
                        out.iter().chain(&inn).all(|&l| l <= bound),
                        "{at}: a NIC past {bound}"
                    );
                    for (p, &(_, _, c)) in pairs.iter().enumerate() {
                        assert_eq!(total[p], c, "{at}: pair {p}");
                    }
                }
            }
        }
        assert!(tight_seen >= 5, "only {tight_seen} cases with a tight port");
    }

    #[test]
    fn a_tight_gpus_rail_carries_its_own_chunks_and_no_nic_passes_the_bound() {
        // The Rust generator's 64 ranks, x6, sigma 1.6, seed 0 at rho 4:
        // GPU 37's own NIC carried 366 of its 1,464 chunks with the even
        // split (the bound 428), and the plan took 455 ticks.
        let inst = test_hot_columns(Model::Read1Write1, 64, 4, (1.6, 6), 0);
        let tt = TwoTier {
            gpus_per_node: 8,
            nvlink_speedup: 4,
        };
        let pairs = super::super::node_pairs(&inst, tt).unwrap();
        let even = super::super::rails::split_rails(8, 8, &pairs).unwrap();
        let bound = 428;
        let loads = crate::relay::bounds::Loads::of(&inst, tt).unwrap();
        let pressure = Pressure::of(tt, &loads, bound).unwrap();
        assert!(pressure.tight(37));
        let favoured = favour_tight(&inst, tt, &pairs, &even, &pressure, bound);
        let (out, inn, total) = loads_of(&favoured, &pairs, 8);
        // Rail 5 of the pairs into node 4: GPU 37's own NIC.
        let mut to_37_rail = vec![0u64; pairs.len()];
        for &(p, c) in &favoured[5] {
            if pairs[p as usize].1 == 4 {
                to_37_rail[p as usize] = c;
            }
        }
        assert!(
            out.iter().chain(&inn).all(|&l| l <= bound),
            "a NIC past the bound"
        );
        for (p, &(_, _, c)) in pairs.iter().enumerate() {
            assert_eq!(total[p], c, "pair {p} keeps its chunks");
        }
        // GPU 37 (node 4, index 5): its rail carries up to the bound of its
        // own chunks (with the even split, 366).
        let mut own = vec![0u64; pairs.len()];
        for (d, dem) in inst.demands().iter().enumerate() {
            if dem.dst == 37 && dem.src / 8 != 4 {
                let p = pairs
                    .binary_search_by_key(&(dem.src / 8, 4), |p| (p.0, p.1))
                    .unwrap();
                own[p] += inst.chunks(d);
            }
        }
        let covered: u64 = (0..pairs.len()).map(|p| to_37_rail[p].min(own[p])).sum();
        assert_eq!(covered, bound);
    }
}
