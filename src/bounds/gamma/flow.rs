//! Max-flow (Dinic on u64/u128 capacities), Gusfield Gomory–Hu trees and
//! the union-find that lets the odd-cut search skip flows.

/// Gusfield's Gomory–Hu tree (cut-tree version, arbitrary minimum cuts):
/// returns `(parent, weight)` with node 0 as the root (`parent[0]` is
/// meaningless); for every `i > 0` the tree edge `(i, parent[i])` has weight
/// `weight[i]`, and the vertex sets on its two sides form a minimum cut
/// between `i` and `parent[i]` of that value.
///
/// `theta` enables a shortcut that skips most flows whose answer is a
/// singleton: node pairs whose maximum flow reached `theta` are kept in
/// union-find classes (local edge connectivity is transitive: `λ(u,w) >=
/// min(λ(u,v), λ(v,w))`). If `s` has total capacity `<= theta` and is in the
/// class of its current parent — directly, or after a cheap flow to a
/// neighbour in that class — then `λ(s, parent) = cap({s})` and `{s}` is a
/// minimum cut, with no flow to a possibly distant parent (a parent that is
/// itself adjacent is flowed to directly). Nodes are processed in BFS order
/// (node 0 left out of the search), so a processed neighbour is usually at
/// hand.
pub(super) fn gusfield<C: Cap>(
    net: &mut FlowNet<C>,
    theta: Option<u128>,
) -> (Vec<usize>, Vec<u128>, bool) {
    let nn = net.node_count();
    const ROOT: usize = usize::MAX;
    let mut par = vec![0usize; nn];
    let mut fl = vec![0u128; nn];
    if nn < 2 {
        return (par, fl, true);
    }
    par[0] = ROOT;
    let order = net.bfs_order();
    let mut uf = UnionFind::new(nn);
    for s in order {
        if net.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return (par, fl, false);
        }
        let t = par[s];
        let cap_s = net.node_cap[s].widen();
        if let Some(th) = theta.filter(|&th| cap_s <= th) {
            let target = uf.find(t);
            let mut known = uf.find(s) == target;
            // A flow to a parent joined to s by an arc holding a good share
            // of s's singleton cut is local: no probe. A thin arc is not
            // (typically the hub's, node 0, at a slot with a small slack:
            // the flow then gathers lambda from slacks all along a long
            // cycle, a Dinic phase per hop), so probe a neighbour already
            // known to be connected to t at lambda instead.
            let local = net
                .arc_capacity(s, t)
                .is_some_and(|c| c.widen().saturating_mul(LOCAL_SHARE) >= cap_s);
            if !known && !local {
                let probe = net.neighbours(s).find(|&y| y != t && uf.find(y) == target);
                if let Some(y) = probe {
                    if net.max_flow(s, y).widen() >= th {
                        uf.union(s, y);
                        known = true;
                    }
                }
            }
            if known {
                // {s} is a minimum s-t cut: nothing is re-hung, and par[t]
                // (never s) is not on s's side.
                fl[s] = cap_s;
                continue;
            }
        }
        let f = net.max_flow(s, t).widen();
        if theta.is_some_and(|th| f >= th) {
            uf.union(s, t);
        }
        fl[s] = f;
        for (i, pi) in par.iter_mut().enumerate() {
            if i != s && *pi == t && net.source_side(i) {
                *pi = s;
            }
        }
        let pt = par[t];
        if pt != ROOT && net.source_side(pt) {
            par[s] = pt;
            par[t] = s;
            fl[s] = fl[t];
            fl[t] = f;
        }
    }
    par[0] = 0;
    (par, fl, true)
}

/// Disjoint sets with path halving and union by size.
pub(super) struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub(super) fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub(super) fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] as usize != v {
            let g = self.parent[self.parent[v] as usize];
            self.parent[v] = g;
            v = g as usize;
        }
        v
    }

    pub(super) fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a as u32;
        self.size[a] += self.size[b];
    }
}

/// Undirected flow network (each edge = two opposite arcs of equal capacity)
/// with Dinic's algorithm; reusable for many source/sink pairs.
///
/// Two savings matter for Gusfield's `n - 1` flows: only the arcs a flow
/// touched are restored before the next one, and a flow stops as soon as it
/// saturates the source's (or the sink's) singleton cut, which is then a
/// minimum cut — no final search of the whole residual network is needed.
///
/// Hand-written rather than `petgraph::algo::dinics`: that function builds
/// its level graph and flow vector afresh on every call, works on directed
/// graphs (an undirected edge would need two edges and a residual search of
/// our own for the cut side), and has neither the early stop nor the
/// partial reset, which together make most of Gusfield's flows cost
/// `O(degree)` instead of `O(m)`.
pub(super) struct FlowNet<C> {
    start: Vec<usize>,
    /// Arcs grouped by tail (`start`), residual capacities included.
    arcs: Vec<Arc<C>>,
    /// Initial capacities, for restoring between flows.
    cap0: Vec<C>,
    /// Total capacity at each node (its singleton cut).
    pub(super) node_cap: Vec<C>,
    /// Arcs whose residual capacity differs from `cap0`.
    dirty: Vec<u32>,
    level: Vec<u32>,
    iter: Vec<usize>,
    queue: Vec<u32>,
    path: Vec<u32>,
    side: Side,
    /// When set and passed, [`gusfield`] stops between flows and reports an
    /// incomplete tree.
    pub(super) deadline: Option<std::time::Instant>,
}

/// How the source side of the last minimum cut is represented.
#[derive(Clone, Copy)]
enum Side {
    /// Nodes with a level (reachable in the residual network).
    Levels,
    /// Exactly the source.
    Source(usize),
    /// Everything but the sink.
    AllBut(usize),
}

/// One arc: head, index of the opposite arc, residual capacity (kept
/// together: one cache line per arc visit on large graphs).
#[derive(Clone, Copy, Default)]
pub(super) struct Arc<C> {
    to: u32,
    rev: u32,
    cap: C,
}

pub(super) const UNSEEN: u32 = u32::MAX;

/// An arc holding at least 1/LOCAL_SHARE of a slot's singleton cut makes a
/// flow along it local (see [`gusfield`]).
const LOCAL_SHARE: u128 = 64;

/// Plain Dinic phases before a max-flow switches to capacity scaling.
const PLAIN_PHASES: u32 = 8;

/// Capacity type of [`FlowNet`]: `u64` when the values provably fit, else
/// `u128`.
pub(super) trait Cap:
    Copy + Ord + Default + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
{
    const MAX: Self;
    /// Narrowing; the caller guarantees that `x` fits.
    fn narrow(x: u128) -> Self;
    fn widen(self) -> u128;
}

impl Cap for u64 {
    const MAX: Self = u64::MAX;
    fn narrow(x: u128) -> Self {
        debug_assert!(x <= u128::from(u64::MAX));
        x as u64
    }
    fn widen(self) -> u128 {
        u128::from(self)
    }
}

impl Cap for u128 {
    const MAX: Self = u128::MAX;
    fn narrow(x: u128) -> Self {
        x
    }
    fn widen(self) -> u128 {
        self
    }
}

impl<C: Cap> FlowNet<C> {
    pub(super) fn new(nn: usize, edges: &[(u32, u32, u128)]) -> Self {
        let start = csr_offsets(nn, edges);
        let mut fill = start.clone();
        let mut arcs = vec![Arc::default(); start[nn]];
        let mut node_cap = vec![C::default(); nn];
        for &(a, b, c) in edges {
            let c = C::narrow(c);
            let (x, y) = (fill[a as usize], fill[b as usize]);
            fill[a as usize] += 1;
            fill[b as usize] += 1;
            arcs[x] = Arc {
                to: b,
                rev: y as u32,
                cap: c,
            };
            arcs[y] = Arc {
                to: a,
                rev: x as u32,
                cap: c,
            };
            node_cap[a as usize] = node_cap[a as usize] + c;
            node_cap[b as usize] = node_cap[b as usize] + c;
        }
        FlowNet {
            start,
            cap0: arcs.iter().map(|a| a.cap).collect(),
            arcs,
            node_cap,
            dirty: Vec::new(),
            level: vec![UNSEEN; nn],
            iter: vec![0; nn],
            queue: Vec::with_capacity(nn),
            path: Vec::new(),
            side: Side::Levels,
            deadline: None,
        }
    }

    pub(super) fn node_count(&self) -> usize {
        self.level.len()
    }

    /// Capacity of the arc `v -> w` before any flow, if there is one.
    pub(super) fn arc_capacity(&self, v: usize, w: usize) -> Option<C> {
        (self.start[v]..self.start[v + 1])
            .find(|&a| self.arcs[a].to as usize == w)
            .map(|a| self.cap0[a])
    }

    /// Neighbours of `v` (one entry per arc).
    pub(super) fn neighbours(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        self.arcs[self.start[v]..self.start[v + 1]]
            .iter()
            .map(|a| a.to as usize)
    }

    /// Nodes `1..n` in BFS order over arcs avoiding node 0, one component
    /// after another.
    pub(super) fn bfs_order(&self) -> Vec<usize> {
        let nn = self.node_count();
        let mut seen = vec![false; nn];
        seen[0] = true;
        let mut order = Vec::with_capacity(nn - 1);
        for root in 1..nn {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            let mut i = order.len();
            order.push(root);
            while i < order.len() {
                let v = order[i];
                i += 1;
                for a in self.start[v]..self.start[v + 1] {
                    let u = self.arcs[a].to as usize;
                    if !seen[u] {
                        seen[u] = true;
                        order.push(u);
                    }
                }
            }
        }
        order
    }

    /// After [`FlowNet::max_flow`]: whether `v` is on the source side of the
    /// minimum cut it found.
    pub(super) fn source_side(&self, v: usize) -> bool {
        match self.side {
            Side::Levels => self.level[v] != UNSEEN,
            Side::Source(s) => v == s,
            Side::AllBut(t) => v != t,
        }
    }

    /// Maximum flow value from `s` to `t` (`s != t`), starting from zero
    /// flow; also records a minimum cut (see [`FlowNet::source_side`]).
    pub(super) fn max_flow(&mut self, s: usize, t: usize) -> C {
        for &a in &self.dirty {
            self.arcs[a as usize].cap = self.cap0[a as usize];
        }
        self.dirty.clear();
        let bound = self.node_cap[s].min(self.node_cap[t]);
        let mut flow = C::default();
        // Plain Dinic first (most of Gusfield's flows stop within a phase or
        // two); after PLAIN_PHASES phases, capacity scaling (Ahuja and Orlin
        // 1991): only arcs with residual >= `scale`, halving it to 1. On long
        // heavy cycles whose slots have small slacks to the hub, plain Dinic
        // takes a phase per hop; scaling sends the heavy flow first.
        let mut phases = 0u32;
        let mut scale = 1u128;
        loop {
            if flow == bound {
                self.side = if bound == self.node_cap[s] {
                    Side::Source(s)
                } else {
                    Side::AllBut(t)
                };
                return flow;
            }
            if phases == PLAIN_PHASES {
                let left = (bound - flow).widen();
                scale = 1u128 << (127 - left.leading_zeros());
            }
            phases = phases.saturating_add(1);
            if !self.bfs_at(s, t, C::narrow(scale)) {
                if scale == 1 {
                    self.side = Side::Levels;
                    return flow;
                }
                scale /= 2;
                continue;
            }
            flow = flow + self.blocking_flow_at(s, t, bound - flow, C::narrow(scale));
        }
    }

    /// BFS levels in the residual network over the arcs with residual
    /// capacity at least `min`; stops as soon as `t` is labelled. With `min`
    /// = 1 and `t` unreachable, the labelled nodes are exactly the source
    /// side of a minimum cut.
    fn bfs_at(&mut self, s: usize, t: usize, min: C) -> bool {
        self.level.fill(UNSEEN);
        self.queue.clear();
        self.level[s] = 0;
        self.queue.push(s as u32);
        let mut head = 0;
        while head < self.queue.len() {
            let u = self.queue[head] as usize;
            head += 1;
            let next = self.level[u] + 1;
            for a in self.start[u]..self.start[u + 1] {
                let arc = self.arcs[a];
                let v = arc.to as usize;
                if arc.cap >= min && self.level[v] == UNSEEN {
                    self.level[v] = next;
                    if v == t {
                        return true;
                    }
                    self.queue.push(v as u32);
                }
            }
        }
        false
    }

    /// A blocking flow in the level graph over the arcs with residual at
    /// least `min`, or less once `limit` is reached (iterative DFS with
    /// current-arc pointers).
    fn blocking_flow_at(&mut self, s: usize, t: usize, limit: C, min: C) -> C {
        let nn = self.level.len();
        self.iter.copy_from_slice(&self.start[..nn]);
        self.path.clear();
        let zero = C::default();
        let mut total = zero;
        let mut u = s;
        loop {
            if u == t {
                let f = self
                    .path
                    .iter()
                    .map(|&a| self.arcs[a as usize].cap)
                    .fold(C::MAX, Ord::min)
                    .min(limit - total);
                let mut cut_at = self.path.len();
                for (i, &a) in self.path.iter().enumerate() {
                    let a = a as usize;
                    let r = self.arcs[a].rev as usize;
                    self.arcs[a].cap = self.arcs[a].cap - f;
                    self.arcs[r].cap = self.arcs[r].cap + f;
                    self.dirty.push(a as u32);
                    self.dirty.push(r as u32);
                    if self.arcs[a].cap < min && cut_at == self.path.len() {
                        cut_at = i;
                    }
                }
                total = total + f;
                if total == limit {
                    return total;
                }
                // Resume from the tail of the first saturated arc.
                u = if cut_at == 0 {
                    s
                } else {
                    self.arcs[self.path[cut_at - 1] as usize].to as usize
                };
                self.path.truncate(cut_at);
                continue;
            }
            let end = self.start[u + 1];
            let want = self.level[u] + 1;
            let mut advanced = false;
            while self.iter[u] < end {
                let a = self.iter[u];
                let arc = self.arcs[a];
                let v = arc.to as usize;
                if arc.cap >= min && self.level[v] == want {
                    self.path.push(a as u32);
                    u = v;
                    advanced = true;
                    break;
                }
                self.iter[u] += 1;
            }
            if !advanced {
                if u == s {
                    break;
                }
                // Dead end: never enter u again in this phase.
                self.level[u] = UNSEEN;
                let a = self.path.pop().unwrap_or(0) as usize;
                u = self.arcs[self.arcs[a].rev as usize].to as usize;
                self.iter[u] += 1;
            }
        }
        total
    }
}

/// Offsets of a compressed adjacency (CSR) holding both directions of
/// every edge: vertex `v`'s entries are `start[v]..start[v + 1]`.
fn csr_offsets(n: usize, edges: &[(u32, u32, u128)]) -> Vec<usize> {
    let mut start = vec![0usize; n + 1];
    for &(a, b, _) in edges {
        start[a as usize + 1] += 1;
        start[b as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    start
}
