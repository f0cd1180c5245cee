//! Skewed traffic sizes for the MoE families: log-normal sizes with hot
//! experts.
//!
//! A demand's bits are `mean_bits * exp(sigma * z - sigma^2 / 2)`, `z`
//! standard normal (Box–Muller over [`SplitMix64`]), so the mean stays
//! `mean_bits` whatever the shape; demands into one of the `hot` hot-expert
//! slots (a seeded choice) are `hot_factor` times larger. Sizes are rounded
//! to whole bits, at least one.

use super::rng::SplitMix64;
use crate::instance::Demand;

/// Stream ids, so that the hot-expert choice and the sizes of one seed do
/// not shift each other.
const HOT_STREAM: u64 = 0x4057;
const SIZE_STREAM: u64 = 0x5153;

/// Parameters of the skewed sizes.
#[derive(Clone, Copy, Debug)]
pub struct Skew {
    pub mean_bits: f64,
    pub sigma: f64,
    pub hot: u32,
    pub hot_factor: u64,
}

impl Skew {
    /// The hot-expert slots among `0..n`, ascending.
    pub fn hot_slots(&self, n: u32, seed: u64) -> Vec<u32> {
        let mut all: Vec<u32> = (0..n).collect();
        SplitMix64::new(seed, HOT_STREAM).shuffle(&mut all);
        let mut hot = all[..self.hot.min(n) as usize].to_vec();
        hot.sort_unstable();
        hot
    }

    /// Every ordered pair of distinct slots of `0..n` (source-major), with
    /// skewed sizes. Deterministic for `seed`.
    pub fn all_to_all(&self, n: u32, seed: u64) -> Result<Vec<Demand>, String> {
        let mut is_hot = vec![false; n as usize];
        for h in self.hot_slots(n, seed) {
            is_hot[h as usize] = true;
        }
        let mut rng = SplitMix64::new(seed, SIZE_STREAM);
        let mut out = Vec::with_capacity(n as usize * (n as usize - 1));
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                let factor = if is_hot[dst as usize] {
                    self.hot_factor as f64
                } else {
                    1.0
                };
                let bits = (self.mean_bits * factor * self.log_normal(&mut rng)).round();
                if bits.is_nan() || bits >= u64::MAX as f64 {
                    return Err(format!(
                        "a demand of {bits:e} bits does not fit u64: lower mult, bw or hot_factor"
                    ));
                }
                out.push(Demand {
                    src,
                    dst,
                    bits: (bits as u64).max(1),
                });
            }
        }
        Ok(out)
    }

    /// `exp(sigma * z - sigma^2 / 2)` for a standard normal `z` (mean 1).
    fn log_normal(&self, rng: &mut SplitMix64) -> f64 {
        // Box–Muller; 1 - unit() is in (0, 1], so the log is finite.
        let (u1, u2) = (1.0 - rng.unit(), rng.unit());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        (self.sigma * z - self.sigma * self.sigma / 2.0).exp()
    }
}

/// A skewed MoE all-to-all of `n` slots under `model` for the solvers'
/// tests: bandwidth 64, mean `k` chunks, sigma 1.2, 1/16 hot slots x4.
#[cfg(test)]
pub(crate) fn test_instance(
    model: crate::instance::Model,
    n: u32,
    k: u64,
    seed: u64,
) -> crate::instance::Instance {
    test_hot_columns(model, n, k, (1.2, 4), seed)
}

/// [`test_instance`] with the log-normal sigma and the hot slots' factor
/// given: `(sigma, hot_factor)`.
#[cfg(test)]
pub(crate) fn test_hot_columns(
    model: crate::instance::Model,
    n: u32,
    k: u64,
    (sigma, hot_factor): (f64, u64),
    seed: u64,
) -> crate::instance::Instance {
    let skew = Skew {
        mean_bits: (64 * k) as f64,
        sigma,
        hot: (n / 16).max(1),
        hot_factor,
    };
    let demands = skew.all_to_all(n, seed).expect("valid skew");
    crate::instance::Instance::new(model, n, 64, demands, &Default::default()).expect("valid")
}

/// The demands of an `n x n` matrix whose off-diagonal entries, row by
/// row, are `cells` (bits; zero entries and cells past the matrix left
/// out), for the solvers' property tests.
#[cfg(test)]
pub(crate) fn test_matrix_demands(n: u32, cells: &[u64]) -> Vec<Demand> {
    (0..n)
        .flat_map(|u| (0..n).map(move |v| (u, v)))
        .filter(|&(u, v)| u != v)
        .zip(cells)
        .filter(|(_, &c)| c > 0)
        .map(|((src, dst), &bits)| Demand { src, dst, bits })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_is_kept_and_hot_experts_receive_more() {
        let skew = Skew {
            mean_bits: 1000.0,
            sigma: 1.0,
            hot: 4,
            hot_factor: 8,
        };
        let d = skew.all_to_all(64, 3).unwrap();
        assert_eq!(d.len(), 64 * 63);
        let hot = skew.hot_slots(64, 3);
        assert_eq!(hot.len(), 4);
        let mean = |pick: &dyn Fn(&Demand) -> bool| {
            let v: Vec<f64> = d
                .iter()
                .filter(|x| pick(x))
                .map(|x| x.bits as f64)
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        let cold = mean(&|x| !hot.contains(&x.dst));
        let warm = mean(&|x| hot.contains(&x.dst));
        assert!((cold - 1000.0).abs() < 60.0, "cold mean {cold}");
        assert!((warm / cold - 8.0).abs() < 1.2, "hot/cold {}", warm / cold);
        // Skewed: sizes spread over more than an order of magnitude.
        let (lo, hi) = d
            .iter()
            .filter(|x| !hot.contains(&x.dst))
            .fold((u64::MAX, 0), |(lo, hi), x| {
                (lo.min(x.bits), hi.max(x.bits))
            });
        assert!(hi > 20 * lo, "sizes {lo}..{hi}");
    }

    #[test]
    fn sigma_zero_gives_equal_sizes() {
        let skew = Skew {
            mean_bits: 512.0,
            sigma: 0.0,
            hot: 0,
            hot_factor: 1,
        };
        assert!(skew.all_to_all(8, 1).unwrap().iter().all(|x| x.bits == 512));
    }
}
