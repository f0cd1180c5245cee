//! Graph families: Erdos–Renyi, cliques, and snarks (cubic graphs that are
//! not 3-edge-colourable: the smallest hard cases for STRICT1).

use super::rng::SplitMix64;
use super::{Builder, Family};

/// The Petersen graph: outer 5-cycle, spokes, inner pentagram.
pub(crate) fn petersen_edges() -> Vec<(u32, u32)> {
    let mut e = Vec::with_capacity(15);
    for i in 0..5 {
        e.push((i, (i + 1) % 5));
        e.push((i, i + 5));
        e.push((5 + i, 5 + (i + 2) % 5));
    }
    e
}

/// The Blanuša snark as the dot product of two Petersen graphs (Isaacs):
/// from copy A remove the independent edges `0-1` and `7-9`; from copy B
/// remove the adjacent vertices `x = 0`, `y = 1`; join `0` and `1` of A to
/// the two other neighbours of `x`, and `7` and `9` to those of `y`. The dot
/// product of two snarks is a snark; 18 vertices, 27 edges.
pub(crate) fn blanusa_edges() -> Vec<(u32, u32)> {
    let p = petersen_edges();
    let (cut_ab, cut_cd) = ((0u32, 1u32), (7u32, 9u32));
    let mut edges: Vec<(u32, u32)> = p
        .iter()
        .copied()
        .filter(|&e| e != cut_ab && e != cut_cd && (e.1, e.0) != cut_cd)
        .collect();
    // Copy B: vertices 10..20 minus x = 10, y = 11; relabel 12..20 -> 10..18.
    let (x, y) = (0u32, 1u32);
    let relabel = |v: u32| 10 + v - 2;
    let mut x_nb = Vec::new();
    let mut y_nb = Vec::new();
    for &(u, v) in &p {
        let (u_in, v_in) = (u == x || u == y, v == x || v == y);
        match (u_in, v_in) {
            (false, false) => edges.push((relabel(u), relabel(v))),
            (true, true) => {}
            (true, false) => (if u == x { &mut x_nb } else { &mut y_nb }).push(relabel(v)),
            (false, true) => (if v == x { &mut x_nb } else { &mut y_nb }).push(relabel(u)),
        }
    }
    debug_assert!(x_nb.len() == 2 && y_nb.len() == 2);
    edges.push((cut_ab.0, x_nb[0]));
    edges.push((cut_ab.1, x_nb[1]));
    edges.push((cut_cd.0, y_nb[0]));
    edges.push((cut_cd.1, y_nb[1]));
    edges
}

/// Flower snark J_k: centres `a_i`, with `b_i` on a k-cycle and `c_i`,
/// `d_i` on one 2k-cycle `c_0..c_{k-1} d_0..d_{k-1}`.
pub(crate) fn flower_edges(k: u32) -> Vec<(u32, u32)> {
    let (a, b, c, d) = (|i| i, |i| k + i, |i| 2 * k + i, |i| 3 * k + i);
    let mut e = Vec::with_capacity(6 * k as usize);
    for i in 0..k {
        let j = (i + 1) % k;
        e.push((a(i), b(i)));
        e.push((a(i), c(i)));
        e.push((a(i), d(i)));
        e.push((b(i), b(j)));
        if i + 1 < k {
            e.push((c(i), c(j)));
            e.push((d(i), d(j)));
        } else {
            e.push((c(i), d(0)));
            e.push((d(i), c(0)));
        }
    }
    e
}

/// A demand's size as a generator draws it.
enum Size {
    Chunks(u64),
    Bits(u64),
}

/// Erdos–Renyi on `n` slots: each pair `u < v` is joined with probability
/// `p`, with the size `draw` returns, in a random direction (size drawn
/// before direction: the order the generated files have always had).
fn erdos_renyi(
    b: &mut Builder,
    n: u32,
    p: f64,
    seed: u64,
    mut draw: impl FnMut(&mut SplitMix64) -> Size,
) -> Result<(), String> {
    if n < 2 {
        return Err(format!("n must be >= 2, got {n}"));
    }
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("p must be in [0, 1], got {p}"));
    }
    b.slots(n as u64)?;
    let mut rng = SplitMix64::new(seed, 3);
    for u in 0..n {
        for v in u + 1..n {
            if rng.unit() < p {
                let size = draw(&mut rng);
                let (src, dst) = if rng.next_u64() & 1 == 0 {
                    (u, v)
                } else {
                    (v, u)
                };
                match size {
                    Size::Chunks(c) => b.chunks(src, dst, c),
                    Size::Bits(bits) => b.bits(src, dst, bits),
                }
            }
        }
    }
    Ok(())
}

/// Builds a graph family into `b`.
pub(super) fn build(family: &Family, seed: u64, b: &mut Builder) -> Result<(), String> {
    let simple = |b: &mut Builder, n: u64, edges: Vec<(u32, u32)>| -> Result<(), String> {
        b.slots(n)?;
        for (u, v) in edges {
            b.chunks(u, v, 1);
        }
        Ok(())
    };
    match *family {
        Family::Random { n, p, max_chunks } => {
            if max_chunks == 0 {
                return Err("max_chunks must be >= 1".into());
            }
            erdos_renyi(b, n, p, seed, |rng| Size::Chunks(1 + rng.below(max_chunks)))?;
        }
        Family::RandomSized {
            n,
            p,
            min_bits,
            max_bits,
        } => {
            if min_bits == 0 || min_bits > max_bits {
                return Err(format!(
                    "sizes must satisfy 1 <= min_bits <= max_bits, got {min_bits}..{max_bits}"
                ));
            }
            let span = max_bits - min_bits;
            erdos_renyi(b, n, p, seed, |rng| {
                let extra = if span == u64::MAX {
                    rng.next_u64()
                } else {
                    rng.below(span + 1)
                };
                Size::Bits(min_bits + extra)
            })?;
        }
        Family::Clique { n } => {
            if n < 2 {
                return Err(format!("n must be >= 2, got {n}"));
            }
            b.slots(n as u64)?;
            // Orient u -> v when v is within the next floor(n/2) slots
            // cyclically: a regular tournament for odd n.
            for u in 0..n {
                for v in u + 1..n {
                    let d = v - u;
                    if d <= n - d {
                        b.chunks(u, v, 1);
                    } else {
                        b.chunks(v, u, 1);
                    }
                }
            }
        }
        Family::Petersen => simple(b, 10, petersen_edges())?,
        Family::Blanusa => simple(b, 18, blanusa_edges())?,
        Family::FlowerSnark { k } => {
            if k < 3 {
                return Err(format!("k must be >= 3, got {k}"));
            }
            simple(b, 4 * k as u64, flower_edges(k))?
        }
        _ => unreachable!("not a graph family"),
    }
    Ok(())
}
