//! Chunk-level edge colouring with a fixed palette (heuristic local search).
//!
//! Every chunk (one copy of a multi-edge) gets a colour in `0..target`.
//! First-fit first; then each uncoloured chunk `{u, v}` is placed by
//! (1) a colour free at both ends, (2) a Kempe-chain flip: with `a` free at
//! `u` and `b` free at `v`, the `a/b` path starting at `v` is swapped unless
//! it ends at `u`, freeing `a` at `v`, (3) otherwise a kick: take a colour
//! free at one end and evict the chunk holding it at the other end (the
//! hill-climbing move of Dinitz-Stinson for one-factorisations); (4) now and
//! then, and always when a lone defect is trapped on an `a/b` parity, a random
//! colour is forced on the chunk, evicting up to two chunks.
//! Per move O(target) worst case for the free-colour scan (usually O(1)) plus
//! O(n) for a chain. A deterministic xorshift drives the random choices, and
//! a move budget (not a clock) bounds the search, so the result is reproducible.
//! Chunks still uncoloured when the budget runs out get extra colours
//! (first fit), so the result is always a valid colouring.

const NONE: u32 = u32::MAX;

/// Result of [`colour_chunks`].
pub struct KempeResult {
    /// Colour of every chunk.
    pub colour: Vec<u32>,
    /// Number of colours used (`max colour + 1`); `<= target` iff the search succeeded.
    pub colours: u32,
    /// Moves spent.
    pub moves: u64,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, k: usize) -> usize {
        (self.next() % k as u64) as usize
    }
}

/// Palette state: which chunk holds colour `c` at vertex `v`, plus free lists.
struct Palette {
    t: usize,
    slot: Vec<u32>,
    free: Vec<Vec<u32>>,
    pos: Vec<u32>,
}

impl Palette {
    fn new(n: usize, t: usize) -> Self {
        Palette {
            t,
            slot: vec![NONE; n * t],
            free: (0..n).map(|_| (0..t as u32).collect()).collect(),
            pos: (0..n).flat_map(|_| 0..t as u32).collect(),
        }
    }
    fn holder(&self, v: u32, c: u32) -> u32 {
        self.slot[v as usize * self.t + c as usize]
    }
    fn is_free(&self, v: u32, c: u32) -> bool {
        self.holder(v, c) == NONE
    }
    fn take(&mut self, v: u32, c: u32, chunk: u32) {
        let i = v as usize * self.t + c as usize;
        debug_assert_eq!(self.slot[i], NONE);
        self.slot[i] = chunk;
        let fl = &mut self.free[v as usize];
        let p = self.pos[i] as usize;
        let last = *fl.last().expect("free list not empty");
        fl[p] = last;
        self.pos[v as usize * self.t + last as usize] = p as u32;
        fl.pop();
    }
    fn release(&mut self, v: u32, c: u32) {
        let i = v as usize * self.t + c as usize;
        self.slot[i] = NONE;
        let fl = &mut self.free[v as usize];
        self.pos[i] = fl.len() as u32;
        fl.push(c);
    }
}

struct Search<'a> {
    chunks: &'a [(u32, u32)],
    colour: Vec<u32>,
    pal: Palette,
    rng: Rng,
}

impl Search<'_> {
    fn assign(&mut self, x: u32, c: u32) {
        let (u, v) = self.chunks[x as usize];
        self.pal.take(u, c, x);
        self.pal.take(v, c, x);
        self.colour[x as usize] = c;
    }
    fn unassign(&mut self, x: u32) {
        let c = self.colour[x as usize];
        let (u, v) = self.chunks[x as usize];
        self.pal.release(u, c);
        self.pal.release(v, c);
        self.colour[x as usize] = NONE;
    }
    fn common_free(&mut self, u: u32, v: u32) -> Option<u32> {
        let (s, o) = if self.pal.free[u as usize].len() <= self.pal.free[v as usize].len() {
            (u, v)
        } else {
            (v, u)
        };
        let fl = &self.pal.free[s as usize];
        if fl.is_empty() {
            return None;
        }
        let k = fl.len();
        let start = self.rng.below(k);
        (0..k)
            .map(|i| fl[(start + i) % k])
            .find(|&c| self.pal.is_free(o, c))
    }
    /// Swaps `a`/`b` along the path starting at `v` (which misses `b`) unless it ends at `u`.
    fn kempe(&mut self, u: u32, v: u32, a: u32, b: u32) -> bool {
        let mut path = Vec::new();
        let (mut w, mut c) = (v, a);
        loop {
            let x = self.pal.holder(w, c);
            if x == NONE {
                break;
            }
            path.push(x);
            let (p, q) = self.chunks[x as usize];
            w = if p == w { q } else { p };
            c = if c == a { b } else { a };
        }
        if w == u {
            return false;
        }
        let cols: Vec<u32> = path.iter().map(|&x| self.colour[x as usize]).collect();
        for &x in &path {
            self.unassign(x);
        }
        for (&x, &c) in path.iter().zip(&cols) {
            self.assign(x, if c == a { b } else { a });
        }
        true
    }
    fn random_free(&mut self, v: u32) -> Option<u32> {
        let k = self.pal.free[v as usize].len();
        (k > 0).then(|| self.pal.free[v as usize][self.rng.below(k)])
    }
    /// Places chunk `x`, pushing the chunks it evicted onto `out`. `alone` says no
    /// other chunk is uncoloured: then, if both ends miss exactly one colour (`a` at
    /// `u`, `b` at `v`), every other vertex is saturated, the `a/b` chain must end at
    /// `u`, and plain kicks only walk the defect along `a/b` paths forever (a parity
    /// trap), so a random colour is forced instead, evicting up to two chunks.
    fn place(&mut self, x: u32, alone: bool, out: &mut Vec<u32>) {
        let (u, v) = self.chunks[x as usize];
        if let Some(c) = self.common_free(u, v) {
            self.assign(x, c);
            return;
        }
        let (Some(a), Some(b)) = (self.random_free(u), self.random_free(v)) else {
            return; // cannot happen when target >= max degree
        };
        let tight =
            alone && self.pal.free[u as usize].len() == 1 && self.pal.free[v as usize].len() == 1;
        if tight || self.rng.below(16) == 0 {
            let c = self.rng.below(self.pal.t) as u32;
            for w in [u, v] {
                let y = self.pal.holder(w, c);
                if y != NONE {
                    self.unassign(y);
                    out.push(y);
                }
            }
            self.assign(x, c);
            return;
        }
        let (s, o, a, b) = if self.rng.next() & 1 == 0 {
            (u, v, a, b)
        } else {
            (v, u, b, a)
        };
        if self.kempe(s, o, a, b) {
            self.assign(x, a);
            return;
        }
        // Kick: colour `a` is free at `s`; evict its holder at `o`.
        let y = self.pal.holder(o, a);
        self.unassign(y);
        self.assign(x, a);
        out.push(y);
    }
}

/// Colours `chunks` (pairs of vertices `< n`) with `target` colours if the search
/// finds a way within `max_moves`, else with as few extra colours as first fit gives.
/// `target` is raised to the largest chunk degree if lower.
pub fn colour_chunks(
    n: usize,
    chunks: &[(u32, u32)],
    target: u32,
    max_moves: u64,
    seed: u64,
) -> KempeResult {
    colour_chunks_from(n, chunks, target, &[], max_moves, seed)
}

/// [`colour_chunks`] starting from a partial colouring: `initial[x]` is the
/// colour chunk `x` starts with (`u32::MAX`: none; an empty slice: none at
/// all). Initial colours are taken in chunk order and one that is out of the
/// palette or already taken at an end is dropped, so any input is safe; the
/// search may recolour every chunk.
pub fn colour_chunks_from(
    n: usize,
    chunks: &[(u32, u32)],
    target: u32,
    initial: &[u32],
    max_moves: u64,
    seed: u64,
) -> KempeResult {
    let mut deg = vec![0u32; n];
    for &(a, b) in chunks {
        deg[a as usize] += 1;
        deg[b as usize] += 1;
    }
    let t = target.max(deg.iter().copied().max().unwrap_or(0)).max(1) as usize;
    let mut s = Search {
        chunks,
        colour: vec![NONE; chunks.len()],
        pal: Palette::new(n, t),
        rng: Rng(seed | 1),
    };
    for (x, &c) in initial.iter().enumerate() {
        let (a, b) = chunks[x];
        if (c as usize) < t && s.pal.is_free(a, c) && s.pal.is_free(b, c) {
            s.assign(x as u32, c);
        }
    }
    // First fit, hardest chunks (largest degree sum) first.
    let mut order: Vec<u32> = (0..chunks.len() as u32)
        .filter(|&x| s.colour[x as usize] == NONE)
        .collect();
    order.sort_by_key(|&x| {
        let (a, b) = chunks[x as usize];
        (std::cmp::Reverse(deg[a as usize] + deg[b as usize]), x)
    });
    let mut queue = std::collections::VecDeque::new();
    for &x in &order {
        let (a, b) = chunks[x as usize];
        match (0..t as u32).find(|&c| s.pal.is_free(a, c) && s.pal.is_free(b, c)) {
            Some(c) => s.assign(x, c),
            None => queue.push_back(x),
        }
    }
    let mut moves = 0u64;
    let mut evicted = Vec::new();
    while moves < max_moves {
        let Some(x) = queue.pop_front() else { break };
        moves += 1;
        s.place(x, queue.is_empty(), &mut evicted);
        queue.extend(evicted.drain(..));
    }
    // Extra colours for whatever is left (valid but above target).
    let mut extra: Vec<Vec<bool>> = Vec::new();
    for x in queue {
        let (a, b) = chunks[x as usize];
        let c = match extra
            .iter()
            .position(|cl| !cl[a as usize] && !cl[b as usize])
        {
            Some(c) => c,
            None => {
                extra.push(vec![false; n]);
                extra.len() - 1
            }
        };
        extra[c][a as usize] = true;
        extra[c][b as usize] = true;
        s.colour[x as usize] = (t + c) as u32;
    }
    let colours = s.colour.iter().map(|&c| c + 1).max().unwrap_or(0);
    KempeResult {
        colour: s.colour,
        colours,
        moves,
    }
}
