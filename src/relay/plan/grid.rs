//! Per tick and GPU, the NVLink chunks out and in so far, over a tick
//! range that grows at both ends (a first hop may need a tick before the
//! first NIC tick, a last hop one after the last).

/// NVLink use per (tick, GPU); ticks are signed, row = tick + offset.
pub(crate) struct Grid {
    n: usize,
    offset: i64,
    rows: usize,
    out: Vec<u32>,
    inn: Vec<u32>,
    rho: u32,
}

impl Grid {
    /// A grid of ticks `0..ticks` for `n` GPUs with NVLink capacity `rho`.
    pub fn new(n: usize, ticks: usize, rho: u32) -> Grid {
        let rows = ticks + 2;
        Grid {
            n,
            offset: 1,
            rows,
            out: vec![0; rows * n],
            inn: vec![0; rows * n],
            rho,
        }
    }

    /// Makes `tick` a row of the grid (growing it at either end).
    fn ensure(&mut self, tick: i64) -> usize {
        if tick + self.offset < 0 {
            let extra = ((-(tick + self.offset)) as usize).max(self.rows);
            let pad = vec![0u32; extra * self.n];
            self.out.splice(0..0, pad.iter().copied());
            self.inn.splice(0..0, pad);
            self.rows += extra;
            self.offset += extra as i64;
        }
        let row = (tick + self.offset) as usize;
        if row >= self.rows {
            let extra = (row + 1 - self.rows).max(self.rows);
            self.rows += extra;
            self.out.resize(self.rows * self.n, 0);
            self.inn.resize(self.rows * self.n, 0);
        }
        row
    }

    /// Whether `from -> to` has room in `tick` (outside the grid: yes).
    pub fn fits(&self, tick: i64, from: u32, to: u32) -> bool {
        let row = tick + self.offset;
        if row < 0 || row as usize >= self.rows {
            return true;
        }
        let base = row as usize * self.n;
        self.out[base + from as usize] < self.rho && self.inn[base + to as usize] < self.rho
    }

    /// Takes room for `from -> to` in `tick`.
    pub fn take(&mut self, tick: i64, from: u32, to: u32) {
        let base = self.ensure(tick) * self.n;
        self.out[base + from as usize] += 1;
        self.inn[base + to as usize] += 1;
    }

    /// The latest tick `<= at` where `from -> to` has room.
    pub fn latest_fit(&self, at: i64, from: u32, to: u32) -> i64 {
        let mut t = at;
        while !self.fits(t, from, to) {
            t -= 1;
        }
        t
    }

    /// The earliest tick `>= at` where `from -> to` has room.
    pub fn earliest_fit(&self, at: i64, from: u32, to: u32) -> i64 {
        let mut t = at;
        while !self.fits(t, from, to) {
            t += 1;
        }
        t
    }
}
