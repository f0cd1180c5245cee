//! Per tick and GPU, the NVLink chunks out and in so far, over a tick
//! range that grows at both ends (a first hop may need a tick before the
//! first NIC tick, a last hop one after the last). One byte a count: the
//! planner's capacity is `min(rho, 255)` (more room than that per tick is
//! never needed by a plan that keeps every hop within a tick of its NIC
//! hop unless G > 255; a smaller capacity only makes the plan cautious).
//!
//! Stored GPU by GPU (a GPU's ticks side by side): a NIC interval's hops
//! walk one GPU pair's consecutive ticks, so they touch consecutive bytes
//! rather than one cache line a tick.
//!
//! The grid keeps the first and last tick it took room in (the plan's
//! NVLink hops' span), and adds another grid's counts into its own
//! ([`Grid::absorb`]: the halves of a layer swept apart, `super::sweep`).

/// NVLink use per (GPU, tick); ticks are signed, column = tick + offset.
pub(crate) struct Grid {
    n: usize,
    offset: i64,
    rows: usize,
    out: Vec<u8>,
    inn: Vec<u8>,
    cap: u8,
    /// The first and last tick with room taken (`lo > hi`: none).
    lo: i64,
    hi: i64,
}

impl Grid {
    /// A grid of ticks `-2..ticks + 2` for `n` GPUs with NVLink capacity
    /// `rho` (clamped to 255).
    pub fn new(n: usize, ticks: usize, rho: u32) -> Grid {
        Grid::over(n, 0..ticks as i64, rho)
    }

    /// A grid of ticks `ticks.start - 2 .. ticks.end + 2` (it grows past
    /// them where a hop needs it).
    pub fn over(n: usize, ticks: std::ops::Range<i64>, rho: u32) -> Grid {
        let rows = (ticks.end - ticks.start).max(0) as usize + 4;
        Grid {
            n,
            offset: 2 - ticks.start,
            rows,
            out: vec![0; rows * n],
            inn: vec![0; rows * n],
            cap: rho.min(255) as u8,
            lo: i64::MAX,
            hi: i64::MIN,
        }
    }

    /// The first and last tick with room taken, `None` before any.
    pub fn used(&self) -> Option<(i64, i64)> {
        (self.lo <= self.hi).then_some((self.lo, self.hi))
    }

    /// Notes ticks `from ..= to` as used.
    #[inline]
    fn note(&mut self, from: i64, to: i64) {
        self.lo = self.lo.min(from);
        self.hi = self.hi.max(to);
    }

    /// Adds `other`'s counts (a grid for the same GPUs and capacity) to
    /// this one's, growing it to `other`'s used ticks, where that keeps
    /// every port within the capacity in every tick; else leaves this
    /// grid as it was and says no. Only the ticks both grids used can
    /// overload, so only those are checked before adding.
    pub fn absorb(&mut self, other: &Grid) -> bool {
        let Some((lo, hi)) = other.used() else {
            return true;
        };
        debug_assert!(self.n == other.n && self.cap == other.cap);
        if let Some((mine_lo, mine_hi)) = self.used() {
            let (from, to) = (lo.max(mine_lo), hi.min(mine_hi));
            if from <= to && self.overloads(other, from, to) {
                return false;
            }
        }
        self.ensure(lo);
        self.ensure(hi);
        self.note(lo, hi);
        let len = (hi - lo + 1) as usize;
        let (mine, theirs) = ((lo + self.offset) as usize, (lo + other.offset) as usize);
        for (to, from) in [(&mut self.out, &other.out), (&mut self.inn, &other.inn)] {
            for g in 0..self.n {
                let dst = &mut to[g * self.rows + mine..][..len];
                let src = &from[g * other.rows + theirs..][..len];
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d += s;
                }
            }
        }
        true
    }

    /// Whether this grid's counts and `other`'s add up past the capacity
    /// anywhere in ticks `from ..= to` (both grids cover them).
    fn overloads(&self, other: &Grid, from: i64, to: i64) -> bool {
        let len = (to - from + 1) as usize;
        let (mine, theirs) = (
            (from + self.offset) as usize,
            (from + other.offset) as usize,
        );
        [(&self.out, &other.out), (&self.inn, &other.inn)]
            .iter()
            .any(|(a, b)| {
                (0..self.n).any(|g| {
                    let x = &a[g * self.rows + mine..][..len];
                    let y = &b[g * other.rows + theirs..][..len];
                    x.iter()
                        .zip(y)
                        .any(|(&p, &q)| p as u16 + q as u16 > self.cap as u16)
                })
            })
    }

    /// The index of (`gpu`, `tick`), `None` outside the grid.
    #[inline]
    fn at(&self, tick: i64, gpu: u32) -> Option<usize> {
        let row = tick + self.offset;
        (row >= 0 && (row as usize) < self.rows).then(|| gpu as usize * self.rows + row as usize)
    }

    /// Makes `tick` a column of the grid (growing it at either end).
    #[inline]
    fn ensure(&mut self, tick: i64) {
        let row = tick + self.offset;
        if row < 0 || row as usize >= self.rows {
            self.grow(tick);
        }
    }

    /// [`Grid::ensure`] for a tick outside the grid: every GPU's ticks are
    /// copied into longer ones (rare: a hop moved past the NIC layer).
    #[cold]
    fn grow(&mut self, tick: i64) {
        let row = tick + self.offset;
        let front = if row < 0 {
            ((-row) as usize).max(self.rows / 8 + 2)
        } else {
            0
        };
        let back = if row >= self.rows as i64 {
            (row as usize + 1 - self.rows).max(self.rows / 8 + 2)
        } else {
            0
        };
        let rows = self.rows + front + back;
        for v in [&mut self.out, &mut self.inn] {
            let mut grown = vec![0u8; rows * self.n];
            for (g, old) in v.chunks_exact(self.rows).enumerate() {
                grown[g * rows + front..g * rows + front + self.rows].copy_from_slice(old);
            }
            *v = grown;
        }
        self.rows = rows;
        self.offset += front as i64;
    }

    /// Whether `from -> to` has room in `tick` (outside the grid: yes).
    #[inline]
    pub fn fits(&self, tick: i64, from: u32, to: u32) -> bool {
        match (self.at(tick, from), self.at(tick, to)) {
            (Some(f), Some(t)) => self.out[f] < self.cap && self.inn[t] < self.cap,
            _ => true,
        }
    }

    /// Whether GPU `x` can still send over NVLink in `tick`.
    pub fn out_free(&self, tick: i64, x: u32) -> bool {
        self.at(tick, x).is_none_or(|i| self.out[i] < self.cap)
    }

    /// Whether GPU `x` can still receive over NVLink in `tick`.
    pub fn in_free(&self, tick: i64, x: u32) -> bool {
        self.at(tick, x).is_none_or(|i| self.inn[i] < self.cap)
    }

    /// Takes room for `from -> to` in `tick`.
    #[inline]
    pub fn take(&mut self, tick: i64, from: u32, to: u32) {
        self.ensure(tick);
        let (f, t) = (
            self.at(tick, from).expect("ensured"),
            self.at(tick, to).expect("ensured"),
        );
        self.out[f] += 1;
        self.inn[t] += 1;
        self.note(tick, tick);
    }

    /// How many of the ticks `tick .. tick + len`, from the first, have
    /// room for `from -> to` (counting stops at the grid's end).
    #[inline]
    pub fn fit_prefix(&self, tick: i64, len: usize, from: u32, to: u32) -> usize {
        let row = tick + self.offset;
        if row < 0 || row as usize >= self.rows {
            return 0;
        }
        let row = row as usize;
        let n = len.min(self.rows - row);
        let out = &self.out[from as usize * self.rows + row..][..n];
        let inn = &self.inn[to as usize * self.rows + row..][..n];
        out.iter()
            .zip(inn)
            .take_while(|&(&o, &i)| o < self.cap && i < self.cap)
            .count()
    }

    /// Takes room for `from -> to` in ticks `tick .. tick + n`, which
    /// [`Grid::fit_prefix`] found free.
    #[inline]
    pub fn take_prefix(&mut self, tick: i64, n: usize, from: u32, to: u32) {
        let row = (tick + self.offset) as usize;
        let rows = self.rows;
        for x in &mut self.out[from as usize * rows + row..][..n] {
            *x += 1;
        }
        for x in &mut self.inn[to as usize * rows + row..][..n] {
            *x += 1;
        }
        if n > 0 {
            self.note(tick, tick + n as i64 - 1);
        }
    }

    /// The latest tick `<= at` where `from -> to` has room.
    #[inline]
    pub fn latest_fit(&self, at: i64, from: u32, to: u32) -> i64 {
        let mut t = at;
        while !self.fits(t, from, to) {
            t -= 1;
        }
        t
    }

    /// The earliest tick `>= at` where `from -> to` has room.
    #[inline]
    pub fn earliest_fit(&self, at: i64, from: u32, to: u32) -> i64 {
        let mut t = at;
        while !self.fits(t, from, to) {
            t += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_survive_growing_at_both_ends() {
        let mut g = Grid::new(3, 4, 1);
        g.take(0, 0, 1);
        assert!(!g.fits(0, 0, 2) && !g.fits(0, 2, 1) && g.fits(0, 1, 0));
        g.take(-9, 2, 0);
        g.take(30, 1, 2);
        assert!(!g.fits(0, 0, 2), "tick 0 kept after growing");
        assert!(!g.out_free(-9, 2) && !g.in_free(-9, 0) && g.out_free(-9, 0));
        assert!(!g.out_free(30, 1) && !g.in_free(30, 2));
        assert_eq!(g.latest_fit(0, 0, 2), -1);
        assert_eq!(g.earliest_fit(30, 1, 0), 31);
    }

    #[test]
    fn a_prefix_fits_up_to_the_first_full_tick_and_is_taken_at_once() {
        let mut g = Grid::new(3, 8, 2);
        g.take(3, 2, 1);
        g.take(3, 0, 1);
        // 1 receives twice in tick 3: full there.
        assert_eq!(g.fit_prefix(0, 6, 0, 1), 3);
        assert_eq!(
            g.fit_prefix(4, 20, 0, 1),
            6,
            "stops at the grid's end (tick 9)"
        );
        assert_eq!(g.fit_prefix(-9, 4, 0, 1), 0, "outside the grid: none");
        g.take_prefix(0, 3, 0, 1);
        g.take_prefix(0, 3, 0, 2);
        assert!(!g.out_free(0, 0) && !g.out_free(2, 0) && g.out_free(3, 0));
        assert!(g.in_free(0, 1) && g.in_free(0, 2) && !g.in_free(3, 1));
    }

    #[test]
    fn absorbing_adds_the_counts_and_refuses_an_overloaded_port() {
        let mut a = Grid::new(2, 10, 2);
        a.take_prefix(3, 4, 0, 1);
        let mut b = Grid::over(2, 12..20, 2);
        b.take(14, 1, 0);
        b.take(-5, 0, 1);
        assert_eq!(b.used(), Some((-5, 14)));
        assert!(a.absorb(&b));
        assert_eq!(a.used(), Some((-5, 14)));
        assert!(a.fits(3, 0, 1) && a.fits(-5, 0, 1) && a.fits(14, 1, 0));
        a.take(-5, 0, 1);
        assert!(!a.fits(-5, 0, 1), "tick -5 held one from b, now two");
        let mut c = Grid::new(2, 10, 2);
        c.take(4, 0, 1);
        c.take(4, 0, 1);
        assert!(!c.fits(4, 0, 1));
        assert!(!a.absorb(&c), "GPU 0 sends three in tick 4, more than 2");
        assert!(
            a.fits(4, 0, 1) && a.used() == Some((-5, 14)),
            "a refused grid adds nothing"
        );
    }
}
