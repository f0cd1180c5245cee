//! The Euler split on regular subgraphs laid out flat, one position per
//! chunk (parallel copies spelled out), which is where the colouring spends
//! its time once the multiplicities are small (about log2 Delta levels,
//! each touching every chunk).
//!
//! A `d`-regular subgraph is stored by left vertex: vertex `u` owns
//! positions `u * d .. (u + 1) * d` of two parallel arrays, the right ends
//! and the caller's edge ids (8 bytes a chunk, against 16 for a weighted
//! entry). Every position is a single copy of the split ([`super::trails`]),
//! and the halves keep the layout, each left vertex giving `d / 2`
//! positions to each, in order.

use super::{emit, Splitter, NONE};

/// A `d`-regular bipartite multigraph, one position per chunk, `d`
/// positions per left vertex.
pub(super) struct Flat {
    d: u32,
    /// Right end at each position.
    right: Vec<u32>,
    /// Edge id at each position (`NONE` for a dummy edge).
    id: Vec<u32>,
}

impl Splitter {
    /// Colours the `g.d`-regular graph `g` with `g.d` colours, each
    /// emitted `factor` times.
    pub(super) fn colour_flat(
        &mut self,
        mut g: Flat,
        factor: u64,
        rounds: &mut Vec<(u64, Vec<u32>)>,
    ) {
        if g.d == 0 {
            return self.give_flat(g);
        }
        if g.d == 1 {
            emit(rounds, factor, &g.id);
            return self.give_flat(g);
        }
        if g.d % 2 == 1 {
            self.peel_matching(&mut g, factor, rounds);
        }
        let (g1, g2) = self.split_flat(g);
        let entries = g1.right.len() + g2.right.len();
        self.colour_halves(g1, g2, entries, rounds, |s, g, out| {
            s.colour_flat(g, factor, out)
        });
    }

    /// Odd degree: emits a perfect matching as one colour and removes it,
    /// keeping the layout (`d - 1` positions per left vertex).
    fn peel_matching(&mut self, g: &mut Flat, factor: u64, rounds: &mut Vec<(u64, Vec<u32>)>) {
        let d = g.d as usize;
        self.matcher.set_uniform_rows(g.d);
        self.matcher.perfect_matching(&g.right);
        for (u, &p) in self.matcher.match_l.iter().enumerate() {
            self.slot_round[u] = g.id[p as usize];
        }
        emit(rounds, factor, &self.slot_round);
        let mut w = 0;
        for (u, &skip) in self.matcher.match_l.iter().enumerate() {
            for p in u * d..(u + 1) * d {
                if p != skip as usize {
                    g.right[w] = g.right[p];
                    g.id[w] = g.id[p];
                    w += 1;
                }
            }
        }
        g.right.truncate(w);
        g.id.truncate(w);
        g.d -= 1;
    }

    /// Euler split of `g` (`d` even) into two `d / 2`-regular halves:
    /// every position is a single copy here. The second half is compacted
    /// into `g`'s own arrays (position `i` is written after positions `2i`
    /// and `2i + 1` are read), so only the first needs fresh memory.
    fn split_flat(&mut self, mut g: Flat) -> (Flat, Flat) {
        let len = g.right.len();
        self.pair_by_right(g.right.iter().copied());
        self.walk_trails();
        let mut g1 = self.take_flat(g.d / 2, len / 2);
        // Pairs `(2i, 2i + 1)` send one position to each half.
        for i in 0..len / 2 {
            let (a, b) = (2 * i, 2 * i + 1);
            let (first, second) = if self.second_half(a) { (b, a) } else { (a, b) };
            g1.right.push(g.right[first]);
            g1.id.push(g.id[first]);
            (g.right[i], g.id[i]) = (g.right[second], g.id[second]);
        }
        g.right.truncate(len / 2);
        g.id.truncate(len / 2);
        g.d /= 2;
        (g1, g)
    }

    /// An empty flat graph of degree `d` with room for `len` positions.
    fn take_flat(&mut self, d: u32, len: usize) -> Flat {
        // The roomiest array of the pool: a smaller one would grow, and a
        // grown array is fresh memory (page faults) where a pooled one was
        // already touched.
        let mut take = || {
            let roomiest = (0..self.pool_u32.len()).max_by_key(|&i| self.pool_u32[i].capacity());
            let mut v = roomiest.map_or_else(Vec::new, |i| self.pool_u32.swap_remove(i));
            v.clear();
            v.reserve(len);
            v
        };
        Flat {
            d,
            right: take(),
            id: take(),
        }
    }

    /// Returns a flat graph's arrays to the pool.
    fn give_flat(&mut self, g: Flat) {
        self.pool_u32.push(g.right);
        self.pool_u32.push(g.id);
    }

    /// The flat layout of the `d`-regular entries `g`, an entry of
    /// multiplicity `m` spelled out as `m` positions (parallel edges are
    /// allowed here), by left vertex (stable: entry order within a vertex).
    pub(super) fn lay_out_flat(&mut self, g: &[super::Entry], d: u32) -> Flat {
        let len = self.n * d as usize;
        let mut s = self.take_flat(d, len);
        s.right.resize(len, NONE);
        s.id.resize(len, NONE);
        self.fill.clear();
        self.fill.extend((0..self.n as u32).map(|u| u * d));
        for e in g {
            let p = &mut self.fill[e.l as usize];
            let (from, to) = (*p as usize, (*p + e.mult) as usize);
            s.right[from..to].fill(e.r);
            s.id[from..to].fill(e.id);
            *p += e.mult;
        }
        s
    }
}
