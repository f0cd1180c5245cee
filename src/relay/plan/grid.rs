//! Per tick and GPU, the NVLink chunks out and in so far, over a tick
//! range that grows at both ends (a first hop may need a tick before the
//! first NIC tick, a last hop one after the last). One byte a count: the
//! planner's capacity is `min(rho, 255)` (more room than that per tick is
//! never needed by a plan that keeps every hop within a tick of its NIC
//! hop unless G > 255; a smaller capacity only makes the plan cautious).

/// NVLink use per (tick, GPU); ticks are signed, row = tick + offset.
pub(crate) struct Grid {
    n: usize,
    offset: i64,
    rows: usize,
    out: Vec<u8>,
    inn: Vec<u8>,
    cap: u8,
}

impl Grid {
    /// A grid of ticks `-2..ticks + 2` for `n` GPUs with NVLink capacity
    /// `rho` (clamped to 255).
    pub fn new(n: usize, ticks: usize, rho: u32) -> Grid {
        let rows = ticks + 4;
        Grid {
            n,
            offset: 2,
            rows,
            out: vec![0; rows * n],
            inn: vec![0; rows * n],
            cap: rho.min(255) as u8,
        }
    }

    /// Makes `tick` a row of the grid (growing it at either end).
    #[inline]
    fn ensure(&mut self, tick: i64) -> usize {
        let row = tick + self.offset;
        if row >= 0 && (row as usize) < self.rows {
            return row as usize;
        }
        self.grow(tick)
    }

    /// [`Grid::ensure`] for a tick outside the grid.
    #[cold]
    fn grow(&mut self, tick: i64) -> usize {
        if tick + self.offset < 0 {
            let extra = ((-(tick + self.offset)) as usize).max(self.rows / 8 + 2);
            let pad = vec![0u8; extra * self.n];
            self.out.splice(0..0, pad.iter().copied());
            self.inn.splice(0..0, pad);
            self.rows += extra;
            self.offset += extra as i64;
        }
        let row = (tick + self.offset) as usize;
        if row >= self.rows {
            let extra = (row + 1 - self.rows).max(self.rows / 8 + 2);
            self.rows += extra;
            self.out.resize(self.rows * self.n, 0);
            self.inn.resize(self.rows * self.n, 0);
        }
        row
    }

    /// Whether `from -> to` has room in `tick` (outside the grid: yes).
    #[inline]
    pub fn fits(&self, tick: i64, from: u32, to: u32) -> bool {
        let row = tick + self.offset;
        if row < 0 || row as usize >= self.rows {
            return true;
        }
        let base = row as usize * self.n;
        self.out[base + from as usize] < self.cap && self.inn[base + to as usize] < self.cap
    }

    /// Whether GPU `x` can still send over NVLink in `tick`.
    pub fn out_free(&self, tick: i64, x: u32) -> bool {
        let row = tick + self.offset;
        row < 0
            || row as usize >= self.rows
            || self.out[row as usize * self.n + x as usize] < self.cap
    }

    /// Whether GPU `x` can still receive over NVLink in `tick`.
    pub fn in_free(&self, tick: i64, x: u32) -> bool {
        let row = tick + self.offset;
        row < 0
            || row as usize >= self.rows
            || self.inn[row as usize * self.n + x as usize] < self.cap
    }

    /// Takes room for `from -> to` in `tick`.
    #[inline]
    pub fn take(&mut self, tick: i64, from: u32, to: u32) {
        let base = self.ensure(tick) * self.n;
        self.out[base + from as usize] += 1;
        self.inn[base + to as usize] += 1;
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
