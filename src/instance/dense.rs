//! Traffic matrices: an `n x n` row-major matrix of bits (entry `[i][j]`
//! from slot i to slot j, zero diagonal, zero = no demand) straight into an
//! [`Instance`], without a demand list in between (the planner's input,
//! DESIGN.md §13: rows are already in `(src, dst)` order, so no sort).

use super::{Demand, InputError, Instance, Limits, Model, Ports};

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
    let cells = n as usize * n as usize;
    if bytes.len() != cells * 8 {
        return Err(InputError::field(
            "matrix",
            format!(
                "expected {n} x {n} entries of 8 bytes ({} bytes), got {} bytes",
                cells * 8,
                bytes.len()
            ),
        ));
    }
    let entry = |i: usize| i64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    instance_from_cells(model, n, bw, entry)
}

/// [`instance_from_matrix_le`] over entries already in memory.
pub fn instance_from_matrix(
    model: Model,
    n: u32,
    bw: u64,
    matrix: &[i64],
) -> Result<Instance, InputError> {
    if matrix.len() != n as usize * n as usize {
        return Err(InputError::field(
            "matrix",
            format!("expected {n} x {n} entries, got {}", matrix.len()),
        ));
    }
    instance_from_cells(model, n, bw, |i| matrix[i])
}

fn instance_from_cells(
    model: Model,
    n: u32,
    bw: u64,
    entry: impl Fn(usize) -> i64,
) -> Result<Instance, InputError> {
    let ports = Instance::check_frame(n, bw, Ports::default(), &Limits::default())?;
    let nu = n as usize;
    let mut demands = Vec::with_capacity(nu * nu.saturating_sub(1));
    for src in 0..nu {
        for dst in 0..nu {
            let bits = entry(src * nu + dst);
            if bits < 0 {
                return Err(InputError::field(
                    &format!("matrix[{src}][{dst}]"),
                    format!("bits must be >= 0, got {bits}"),
                ));
            }
            if bits == 0 {
                continue;
            }
            if src == dst {
                return Err(InputError::field(
                    &format!("matrix[{src}][{src}]"),
                    format!("src_slot equals dst_slot ({src}); the diagonal must be 0"),
                ));
            }
            demands.push(Demand {
                src: src as u32,
                dst: dst as u32,
                bits: bits as u64,
            });
        }
    }
    Instance::from_merged(model, n, bw, demands, None, ports)
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
}
