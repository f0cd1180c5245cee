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
    /// Per NIC tick (from 0) and GPU: the node its NIC sends to then
    /// (`u32::MAX`: none).
    nic_sends: Vec<u32>,
}

impl Grid {
    /// A grid of ticks `0..ticks` for `n` GPUs with NVLink capacity `rho`;
    /// `nic_sends[t * n + x]` is the node GPU x's NIC sends to in tick t
    /// (`u32::MAX`: none).
    pub fn new(n: usize, ticks: usize, rho: u32, nic_sends: Vec<u32>) -> Grid {
        let rows = ticks + 2;
        Grid {
            n,
            offset: 1,
            rows,
            out: vec![0; rows * n],
            inn: vec![0; rows * n],
            rho,
            nic_sends,
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

    /// The node GPU `x`'s NIC sends to in `tick`, if it sends.
    pub fn nic_send(&self, tick: i64, x: u32) -> Option<u32> {
        let at = usize::try_from(tick).ok()? * self.n + x as usize;
        self.nic_sends.get(at).copied().filter(|&b| b != u32::MAX)
    }

    /// Whether a last hop `from -> to` has room in `tick`: as [`Grid::fits`],
    /// but with `keep` one NVLink receive of `to` stays free (rho >= 2)
    /// for the first hop of `to`'s NIC send in the next tick, which is
    /// placed later (last hops of tick t are placed before first hops of
    /// tick t + 2, which share tick t + 1). The caller passes `keep` when
    /// that send will need a first hop (`to` has no chunk of its own left
    /// for that node).
    pub fn fits_last(&self, tick: i64, from: u32, to: u32, keep: bool) -> bool {
        let row = tick + self.offset;
        if row < 0 || row as usize >= self.rows {
            return true;
        }
        let base = row as usize * self.n;
        let keep = u32::from(keep && self.rho >= 2);
        self.out[base + from as usize] < self.rho && self.inn[base + to as usize] + keep < self.rho
    }

    /// The earliest tick `>= at` where a last hop `from -> to` has room.
    pub fn earliest_last(&self, at: i64, from: u32, to: u32, keep: bool) -> i64 {
        let mut t = at;
        while !self.fits_last(t, from, to, keep) {
            t += 1;
        }
        t
    }

    /// Whether GPU `x` can still send over NVLink in `tick`.
    pub fn out_free(&self, tick: i64, x: u32) -> bool {
        let row = tick + self.offset;
        row < 0
            || row as usize >= self.rows
            || self.out[row as usize * self.n + x as usize] < self.rho
    }

    /// Whether GPU `x` can still receive over NVLink in `tick`.
    pub fn in_free(&self, tick: i64, x: u32) -> bool {
        let row = tick + self.offset;
        row < 0
            || row as usize >= self.rows
            || self.inn[row as usize * self.n + x as usize] < self.rho
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
