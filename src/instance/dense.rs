//! Traffic matrices: an `n x n` row-major matrix of bits (entry `[i][j]`
//! from slot i to slot j, zero diagonal, zero = no demand) straight into an
//! [`Instance`], without a demand list in between (the planner's input,
//! DESIGN.md §13: rows are already in `(src, dst)` order, so no sort).

use super::{chunks_of, Demand, InputError, Instance, Limits, Model, Ports};

/// The instance of a traffic matrix given as little-endian signed 64-bit
/// integers (numpy's `int64` bytes), `n * n * 8` bytes. Errors name the
/// entry (`matrix[i][j]`): a negative entry, a non-zero diagonal, a wrong
/// length.
pub fn instance_from_matrix_le(
    model: Model,
    n: u32,
    bw: u64,
    bytes: &[u8],
) -> Result<Instance, InputError> {
    instance_from_cells(model, n, bw, Cells::LeBytes(bytes))
}

/// [`instance_from_matrix_le`] over entries already in memory.
pub fn instance_from_matrix(
    model: Model,
    n: u32,
    bw: u64,
    matrix: &[i64],
) -> Result<Instance, InputError> {
    instance_from_cells(model, n, bw, Cells::Ints(matrix))
}

/// A traffic matrix's entries as given: little-endian `int64` bytes
/// (numpy's) or integers in memory, row-major.
#[derive(Clone, Copy, Debug)]
pub enum Cells<'a> {
    LeBytes(&'a [u8]),
    Ints(&'a [i64]),
}

impl Cells<'_> {
    /// Entries given (bytes / 8 for bytes, rounded down).
    pub fn len(&self) -> usize {
        match self {
            Cells::LeBytes(b) => b.len() / 8,
            Cells::Ints(m) => m.len(),
        }
    }

    /// Whether no entry is given.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks there are `n * n` entries (and whole ones), naming what came.
    pub fn check_len(&self, n: u32) -> Result<(), InputError> {
        let cells = n as usize * n as usize;
        match self {
            Cells::LeBytes(b) if b.len() != cells * 8 => Err(InputError::field(
                "matrix",
                format!(
                    "expected {n} x {n} entries of 8 bytes ({} bytes), got {} bytes",
                    cells * 8,
                    b.len()
                ),
            )),
            Cells::Ints(m) if m.len() != cells => Err(InputError::field(
                "matrix",
                format!("expected {n} x {n} entries, got {}", m.len()),
            )),
            _ => Ok(()),
        }
    }

    /// The entries as integers.
    pub fn to_vec(&self) -> Vec<i64> {
        match self {
            Cells::LeBytes(b) => b.chunks_exact(8).map(le_entry).collect(),
            Cells::Ints(m) => m.to_vec(),
        }
    }

    /// The entries where these cells differ from `kept` (same length),
    /// as `(cell, entry)` in cell order; `kept` is updated to them.
    pub fn changes_from(&self, kept: &mut [i64]) -> Vec<(usize, i64)> {
        let mut changes = Vec::new();
        // Blocks of 8 entries compare at memory speed; only a block that
        // differs is walked.
        const BLOCK: usize = 8;
        let mut diff = |base: usize, old: &mut [i64], new: &mut dyn Iterator<Item = i64>| {
            for (j, (o, e)) in old.iter_mut().zip(new).enumerate() {
                if *o != e {
                    *o = e;
                    changes.push((base + j, e));
                }
            }
        };
        match self {
            Cells::LeBytes(b) => {
                for (blk, (old, new)) in kept.chunks_mut(BLOCK).zip(b.chunks(BLOCK * 8)).enumerate()
                {
                    let same = old
                        .iter()
                        .zip(new.chunks_exact(8))
                        .fold(true, |same, (&o, e)| same & (o == le_entry(e)));
                    if !same {
                        let mut it = new.chunks_exact(8).map(le_entry);
                        diff(blk * BLOCK, old, &mut it);
                    }
                }
            }
            Cells::Ints(m) => {
                for (blk, (old, new)) in kept.chunks_mut(BLOCK).zip(m.chunks(BLOCK)).enumerate() {
                    if old != new {
                        diff(blk * BLOCK, old, &mut new.iter().copied());
                    }
                }
            }
        }
        changes
    }
}

/// The instance of a traffic matrix given as [`Cells`] (errors as
/// [`instance_from_matrix_le`]'s).
pub fn instance_from_cells(
    model: Model,
    n: u32,
    bw: u64,
    cells: Cells,
) -> Result<Instance, InputError> {
    cells.check_len(n)?;
    let ports = Instance::check_frame(n, bw, Ports::default(), &Limits::default())?;
    let nu = n as usize;
    let mut demands = Vec::with_capacity(nu * nu.saturating_sub(1));
    for src in 0..nu {
        let row = src * nu..(src + 1) * nu;
        let bad = match cells {
            Cells::LeBytes(b) => row_demands(
                &mut demands,
                src,
                b[row.start * 8..row.end * 8].chunks_exact(8).map(le_entry),
            ),
            Cells::Ints(m) => row_demands(&mut demands, src, m[row].iter().copied()),
        };
        if let Some((dst, bits)) = bad {
            return Err(if bits < 0 {
                InputError::field(
                    &format!("matrix[{src}][{dst}]"),
                    format!("bits must be >= 0, got {bits}"),
                )
            } else {
                InputError::field(
                    &format!("matrix[{src}][{src}]"),
                    format!("src_slot equals dst_slot ({src}); the diagonal must be 0"),
                )
            });
        }
    }
    Instance::from_merged(model, n, bw, demands, None, ports)
}

/// An entry of little-endian bytes.
fn le_entry(e: &[u8]) -> i64 {
    i64::from_le_bytes(e.try_into().expect("8 bytes"))
}

/// Appends row `src`'s demands; the first entry refused (negative, or on
/// the diagonal and not zero) as `(dst, entry)` instead.
fn row_demands(
    demands: &mut Vec<Demand>,
    src: usize,
    row: impl Iterator<Item = i64>,
) -> Option<(usize, i64)> {
    for (dst, bits) in row.enumerate() {
        if bits > 0 && dst != src {
            demands.push(Demand {
                src: src as u32,
                dst: dst as u32,
                bits: bits as u64,
            });
        } else if bits != 0 {
            return Some((dst, bits));
        }
    }
    None
}

impl Instance {
    /// Sets the bits of existing demands, `(demand index, bits)` with
    /// `bits > 0`, in order (a demand listed twice ends with its last
    /// bits), keeping every invariant (chunk counts and their totals
    /// follow); for instances where every demand uses `bw` (a matrix's).
    /// On an error the instance is unchanged.
    pub fn set_bits(&mut self, changes: &[(usize, u64)]) -> Result<(), InputError> {
        if self.demand_bw.is_some() {
            return Err(InputError::field(
                "demands",
                "set_bits needs one bandwidth for every demand",
            ));
        }
        for &(i, bits) in changes {
            let Some(d) = self.demands.get(i) else {
                return Err(InputError::field("demands", format!("no demand {i}")));
            };
            if bits == 0 {
                return Err(InputError::field(
                    &format!("matrix[{}][{}]", d.src, d.dst),
                    "set_bits keeps demands: bits must be > 0",
                ));
            }
        }
        // Applied in order with the total in u128 (no step overflows);
        // undone when the final total does not fit in u64.
        let mut total = u128::from(self.total_chunks);
        let mut undo = Vec::with_capacity(changes.len());
        for &(i, bits) in changes {
            undo.push((i, self.demands[i].bits));
            total = total - u128::from(self.chunks[i]) + u128::from(self.set_demand_bits(i, bits));
        }
        match u64::try_from(total) {
            Ok(total) => {
                self.total_chunks = total;
                Ok(())
            }
            Err(_) => {
                for &(i, bits) in undo.iter().rev() {
                    self.set_demand_bits(i, bits);
                }
                Err(InputError::field(
                    "demands",
                    "total number of chunks overflows u64",
                ))
            }
        }
    }

    /// Sets demand `i`'s bits, its chunk count and the total bits (not
    /// the total chunks); returns its chunk count.
    fn set_demand_bits(&mut self, i: usize, bits: u64) -> u64 {
        self.total_bits = self.total_bits - u128::from(self.demands[i].bits) + u128::from(bits);
        self.demands[i].bits = bits;
        self.chunks[i] = chunks_of(bits, self.bw);
        self.chunks[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_gives_its_demands_in_order_and_bad_entries_are_named() {
        let m = [0, 5, 0, 7, 0, 1, 2, 3, 0];
        let inst = instance_from_matrix(Model::Strict1, 3, 4, &m).unwrap();
        let pairs: Vec<_> = inst
            .demands()
            .iter()
            .map(|d| (d.src, d.dst, d.bits))
            .collect();
        assert_eq!(
            pairs,
            [(0, 1, 5), (1, 0, 7), (1, 2, 1), (2, 0, 2), (2, 1, 3)]
        );
        assert_eq!(inst.chunk_counts(), &[2, 2, 1, 1, 1]);
        let le: Vec<u8> = m.iter().flat_map(|v: &i64| v.to_le_bytes()).collect();
        assert_eq!(
            instance_from_matrix_le(Model::Strict1, 3, 4, &le).unwrap(),
            inst
        );

        let err = instance_from_matrix(Model::Strict1, 3, 4, &[0, 1, 0, 0, 2, 0, 0, 0, 0]);
        assert!(err.unwrap_err().to_string().contains("matrix[1][1]"));
        let err = instance_from_matrix(Model::Strict1, 2, 4, &[0, -1, 0, 0]);
        assert!(err.unwrap_err().to_string().contains("matrix[0][1]"));
        let err = instance_from_matrix_le(Model::Strict1, 2, 4, &[0; 8]);
        assert!(err.unwrap_err().to_string().contains("expected 2 x 2"));
    }

    #[test]
    fn changed_entries_are_found_and_set_bits_keeps_the_invariants() {
        let old: Vec<i64> = (0..40).map(|i| if i % 7 == 0 { 0 } else { i }).collect();
        let mut new = old.clone();
        for (i, v) in [(1, 9), (17, 0), (18, 3), (39, 100)] {
            new[i] = v;
        }
        let le: Vec<u8> = new.iter().flat_map(|v| v.to_le_bytes()).collect();
        for cells in [Cells::Ints(&new), Cells::LeBytes(&le)] {
            let mut kept = old.clone();
            assert_eq!(
                cells.changes_from(&mut kept),
                [(1, 9), (17, 0), (18, 3), (39, 100)]
            );
            assert_eq!(kept, new);
            assert_eq!(cells.to_vec(), new);
        }
        let m = [0, 5, 0, 7, 0, 1, 2, 3, 0];
        let mut inst = instance_from_matrix(Model::Strict1, 3, 4, &m).unwrap();
        inst.set_bits(&[(0, 9), (4, 4)]).unwrap();
        let expect = instance_from_matrix(Model::Strict1, 3, 4, &[0, 9, 0, 7, 0, 1, 2, 4, 0]);
        assert_eq!(inst, expect.unwrap());
        assert_eq!(inst.total_bits(), 9 + 7 + 1 + 2 + 4);
        let before = inst.clone();
        let err = inst.set_bits(&[(1, 3), (2, 0)]).unwrap_err();
        assert!(err.to_string().contains("matrix[1][2]"), "{err}");
        assert!(inst.set_bits(&[(5, 3)]).is_err());
        assert_eq!(inst, before, "unchanged after an error");
        // A demand listed twice ends with its last bits.
        inst.set_bits(&[(0, 40), (0, 8)]).unwrap();
        assert_eq!(inst.chunks(0), 2);
        assert_eq!(inst.total_chunks(), 2 + 2 + 1 + 1 + 1);
        // A total past u64 is refused and undone.
        let mut one = instance_from_matrix(Model::Strict1, 2, 1, &[0, 5, 6, 0]).unwrap();
        let before = one.clone();
        let err = one.set_bits(&[(0, u64::MAX), (1, u64::MAX)]).unwrap_err();
        assert!(err.to_string().contains("overflows"), "{err}");
        assert_eq!(one, before);
    }
}
