//! Perfect matchings of regular bipartite graphs, for the odd-degree steps
//! of the Euler-split colouring: truncated random walks (Goel, Kapralov and
//! Khanna 2010, "Perfect matchings in O(n log n) time in regular bipartite
//! graphs") from a greedy start, finished by Hopcroft–Karp (1973) when the
//! walks run out of budget, so the worst case stays O(E sqrt n).
//!
//! The graph is given in compressed rows: left vertex `u` owns positions
//! `start[u] .. start[u + 1]`, and `right[p]` is the right end at position
//! `p`. Parallel edges may repeat a right end. Deterministic: the walks use
//! a fixed seed and ties go to the lowest position.

use super::NONE;

/// Default of [`Matcher::walk_budget_factor`].
pub(super) const WALK_BUDGET_FACTOR: u64 = 8;

/// Scratch space of the matching, reused across calls.
pub(super) struct Matcher {
    n: usize,
    /// Row starts (`n + 1` entries); the caller fills them.
    pub(super) start: Vec<u32>,
    /// Position matched at each left vertex, after [`Matcher::perfect_matching`].
    pub(super) match_l: Vec<u32>,
    /// Left vertex matched at each right vertex.
    match_r: Vec<u32>,
    dist: Vec<u32>,
    it: Vec<u32>,
    queue: Vec<u32>,
    stack: Vec<u32>,
    /// Random walks: position chosen at each step, place of each left
    /// vertex on the walk (`NONE` if absent).
    chosen: Vec<u32>,
    stamp: Vec<u32>,
    /// Random-walk steps allowed per vertex and edge before Hopcroft–Karp
    /// takes over (tests set 0 to run it alone).
    pub(super) walk_budget_factor: u64,
}

impl Matcher {
    pub(super) fn new(n: usize) -> Self {
        Matcher {
            n,
            start: Vec::with_capacity(n + 1),
            match_l: vec![NONE; n],
            match_r: vec![NONE; n],
            dist: vec![0; n],
            it: vec![0; n],
            queue: Vec::with_capacity(n),
            stack: Vec::new(),
            chosen: Vec::new(),
            stamp: vec![NONE; n],
            walk_budget_factor: WALK_BUDGET_FACTOR,
        }
    }

    /// Sets the rows to `d` consecutive positions per left vertex.
    pub(super) fn set_uniform_rows(&mut self, d: u32) {
        self.start.clear();
        self.start.extend((0..=self.n as u32).map(|u| u * d));
    }

    /// A perfect matching of the regular bipartite graph in `self.start` /
    /// `right`: leaves in `match_l[u]` the position matched at left vertex
    /// `u`. A regular bipartite multigraph has one (Hall), so every left
    /// vertex ends matched.
    pub(super) fn perfect_matching(&mut self, right: &[u32]) {
        let n = self.n;
        self.match_l.fill(NONE);
        self.match_r.fill(NONE);
        // Greedy start.
        let mut free = 0;
        for u in 0..n {
            for p in self.start[u]..self.start[u + 1] {
                let r = right[p as usize] as usize;
                if self.match_r[r] == NONE {
                    self.match_r[r] = u as u32;
                    self.match_l[u] = p;
                    break;
                }
            }
            if self.match_l[u] == NONE {
                free += 1;
            }
        }
        if free > 0 {
            free = self.random_walks(right, free);
        }
        while free > 0 {
            free -= self.hopcroft_karp_phase(right);
        }
    }

    /// One Hopcroft–Karp phase: BFS layers from the free left vertices,
    /// then layered augmenting paths by an explicit-stack DFS. Returns the
    /// number of augmentations (at least one while a vertex is free).
    fn hopcroft_karp_phase(&mut self, right: &[u32]) -> usize {
        let n = self.n;
        self.queue.clear();
        for u in 0..n {
            if self.match_l[u] == NONE {
                self.dist[u] = 0;
                self.queue.push(u as u32);
            } else {
                self.dist[u] = NONE;
            }
        }
        // Stops after the first layer that reaches a free right vertex
        // (`limit`): the DFS below then follows shortest paths only.
        let mut head = 0;
        let mut limit = NONE;
        while head < self.queue.len() {
            let u = self.queue[head] as usize;
            head += 1;
            if self.dist[u] >= limit {
                break;
            }
            for p in self.start[u]..self.start[u + 1] {
                let w = self.match_r[right[p as usize] as usize];
                if w == NONE {
                    limit = self.dist[u] + 1;
                } else if self.dist[w as usize] == NONE {
                    self.dist[w as usize] = self.dist[u] + 1;
                    self.queue.push(w);
                }
            }
        }
        assert!(
            limit != NONE,
            "a regular bipartite multigraph has a perfect matching"
        );
        self.it.copy_from_slice(&self.start[..n]);
        let mut augmented = 0;
        for root in 0..n {
            if self.match_l[root] != NONE {
                continue;
            }
            self.stack.clear();
            self.stack.push(root as u32);
            while let Some(&u) = self.stack.last() {
                let u = u as usize;
                if self.it[u] == self.start[u + 1] {
                    self.dist[u] = NONE;
                    self.stack.pop();
                    continue;
                }
                let w = self.match_r[right[self.it[u] as usize] as usize];
                if w == NONE {
                    // Flip the path root -> ... -> u -> r.
                    for &x in &self.stack {
                        let p = self.it[x as usize];
                        self.match_l[x as usize] = p;
                        self.match_r[right[p as usize] as usize] = x;
                    }
                    augmented += 1;
                    break;
                }
                if self.dist[w as usize] == self.dist[u] + 1 && self.dist[w as usize] < limit {
                    self.stack.push(w);
                } else {
                    self.it[u] += 1;
                }
            }
        }
        augmented
    }

    /// Augments the matching by truncated random walks: from a free left
    /// vertex, follow a random unmatched edge to its right end, then that
    /// vertex's matched edge back to the left, until a free right vertex is
    /// reached; cycles are cut off the path as they close. In a regular
    /// graph with `k` free vertices a walk takes O(n / k) expected steps,
    /// so the walks cost O(n log n) in all. Walks stop after a total step
    /// budget of a few times the graph's size (then Hopcroft–Karp finishes);
    /// returns the number of left vertices still free.
    fn random_walks(&mut self, right: &[u32], mut free: usize) -> usize {
        let n = self.n;
        let mut budget = self.walk_budget_factor * (n + right.len()) as u64;
        let mut rng =
            0x9e37_79b9_7f4a_7c15u64 ^ (right.len() as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let mut next = move || {
            // xorshift64*
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        self.stamp.fill(NONE);
        for root in 0..n {
            if self.match_l[root] != NONE {
                continue;
            }
            self.stack.clear();
            self.chosen.clear();
            self.stack.push(root as u32);
            self.stamp[root] = 0;
            loop {
                if budget == 0 {
                    for &x in &self.stack {
                        self.stamp[x as usize] = NONE;
                    }
                    return free;
                }
                budget -= 1;
                let u = *self.stack.last().expect("the walk is never empty") as usize;
                let (lo, hi) = (self.start[u], self.start[u + 1]);
                let p = loop {
                    let p = lo + (((next() >> 32) * (hi - lo) as u64) >> 32) as u32;
                    if p != self.match_l[u] {
                        break p;
                    }
                };
                self.chosen.push(p);
                let w = self.match_r[right[p as usize] as usize];
                if w == NONE {
                    for (i, &x) in self.stack.iter().enumerate() {
                        let p = self.chosen[i];
                        self.match_l[x as usize] = p;
                        self.match_r[right[p as usize] as usize] = x;
                        self.stamp[x as usize] = NONE;
                    }
                    free -= 1;
                    break;
                }
                let at = self.stamp[w as usize];
                if at == NONE {
                    self.stamp[w as usize] = self.stack.len() as u32;
                    self.stack.push(w);
                } else {
                    // A cycle closed at `w`: cut it off, walk on from `w`.
                    for &x in &self.stack[at as usize + 1..] {
                        self.stamp[x as usize] = NONE;
                    }
                    self.stack.truncate(at as usize + 1);
                    self.chosen.truncate(at as usize);
                }
            }
        }
        free
    }
}
