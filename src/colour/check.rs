//! Independent validator for a [`Colouring`]: every round a matching, exact
//! coverage of every edge, `ticks` equal to the sum of repeats. O(rounds * n + E).

use super::types::{ColourInput, Colouring};

/// Checks `c` against `input`; `Err` names the first violation.
pub fn check(input: &ColourInput, c: &Colouring) -> Result<(), String> {
    let total = check_rounds(input.n, input.edges, &c.rounds)?;
    if total != c.ticks as u128 {
        return Err(format!("ticks {} but repeats sum to {total}", c.ticks));
    }
    Ok(())
}

/// Checks that `rounds` are matchings covering every edge exactly `m_e` times;
/// returns the sum of repeats.
pub fn check_rounds(
    n: usize,
    edges: &[(u32, u32, u64)],
    rounds: &[(u64, Vec<u32>)],
) -> Result<u128, String> {
    let mut covered = vec![0u128; edges.len()];
    let mut seen = vec![usize::MAX; n];
    let mut total: u128 = 0;
    for (r, (rep, es)) in rounds.iter().enumerate() {
        if *rep == 0 {
            return Err(format!("round {r} has repeat 0"));
        }
        if es.is_empty() {
            return Err(format!("round {r} is empty"));
        }
        total += *rep as u128;
        for &e in es {
            let Some(&(a, b, _)) = edges.get(e as usize) else {
                return Err(format!("round {r} names edge {e}, out of range"));
            };
            for v in [a as usize, b as usize] {
                if v >= n {
                    return Err(format!("edge {e} has vertex {v} >= n"));
                }
                if seen[v] == r {
                    return Err(format!("round {r} is not a matching: vertex {v} twice"));
                }
                seen[v] = r;
            }
            covered[e as usize] += *rep as u128;
        }
    }
    for (e, &(_, _, me)) in edges.iter().enumerate() {
        if covered[e] != me as u128 {
            return Err(format!("edge {e} covered {} times, needs {me}", covered[e]));
        }
    }
    Ok(total)
}
