//! MoE traffic as it shifts from step to step (issue 51): one step of a
//! sequence, the shapes of `tickopt.workloads` (python/tickopt/workloads.py)
//! drawn from this crate's own seeded generator.
//!
//! Every shape starts from log-normal sizes (mean `mean_bits`, `sigma`;
//! [`Skew`]), a fresh draw per step, then:
//!
//! - [`Shape::HotExpert`]: one destination (an expert's rank, `seed mod n`)
//!   `hot_x` times larger;
//! - [`Shape::HotRank`]: one rank (`seed mod n`) sends and receives
//!   `hot_x` times more (its row and column);
//! - [`Shape::Rotating`]: `HotRank` whose hot rank moves every step
//!   (`(seed + step) mod n`);
//! - [`Shape::Burst`]: every `burst_every`-th step (`step mod burst_every
//!   == burst_every - 1`) every demand `burst_x` times larger.
//!
//! The same (shape, parameters, n, seed, step) gives the same demands.

use super::skew::Skew;
use crate::instance::Demand;
use serde::{Deserialize, Serialize};

/// How the traffic shifts between steps (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    HotExpert,
    HotRank,
    Rotating,
    Burst,
}

impl std::str::FromStr for Shape {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Shape::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .ok_or_else(|| {
                format!("unknown shape {s:?} (expected hot_expert, hot_rank, rotating or burst)")
            })
    }
}

impl Shape {
    pub const ALL: [Shape; 4] = [
        Shape::HotExpert,
        Shape::HotRank,
        Shape::Rotating,
        Shape::Burst,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Shape::HotExpert => "hot_expert",
            Shape::HotRank => "hot_rank",
            Shape::Rotating => "rotating",
            Shape::Burst => "burst",
        }
    }
}

/// One step of a shifting MoE all-to-all (module docs).
#[derive(Clone, Copy, Debug)]
pub struct MoeShift {
    pub shape: Shape,
    pub step: u64,
    pub mean_bits: f64,
    pub sigma: f64,
    pub hot_x: u64,
    pub burst_every: u64,
    pub burst_x: u64,
}

impl MoeShift {
    /// The hot rank of this step among `0..n` (None for `Burst`).
    pub fn hot_rank(&self, n: u32, seed: u64) -> Option<u32> {
        let n = u64::from(n.max(1));
        match self.shape {
            Shape::HotExpert | Shape::HotRank => Some((seed % n) as u32),
            Shape::Rotating => Some((seed.wrapping_add(self.step) % n) as u32),
            Shape::Burst => None,
        }
    }

    /// Whether this step is a burst step (`Burst` only).
    pub fn is_burst(&self) -> bool {
        self.shape == Shape::Burst
            && self.burst_every > 0
            && self.step % self.burst_every == self.burst_every - 1
    }

    /// Every ordered pair of distinct slots of `0..n` (source-major) with
    /// this step's sizes.
    pub fn all_to_all(&self, n: u32, seed: u64) -> Result<Vec<Demand>, String> {
        if self.hot_x == 0 || self.burst_x == 0 {
            return Err("hot_x and burst_x must be >= 1".into());
        }
        let base = Skew {
            mean_bits: self.mean_bits,
            sigma: self.sigma,
            hot: 0,
            hot_factor: 1,
        };
        // Each step its own draw: the step mixed into the seed (odd
        // multiplier, so distinct steps give distinct seeds).
        let step_seed = seed ^ self.step.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut demands = base.all_to_all(n, step_seed)?;
        let hot = self.hot_rank(n, seed);
        let burst = if self.is_burst() { self.burst_x } else { 1 };
        for d in &mut demands {
            let hot_here = match (self.shape, hot) {
                (Shape::HotExpert, Some(h)) => d.dst == h,
                (Shape::HotRank | Shape::Rotating, Some(h)) => d.src == h || d.dst == h,
                _ => false,
            };
            let factor = if hot_here { self.hot_x } else { 1 } * burst;
            d.bits = d.bits.checked_mul(factor).ok_or_else(|| {
                format!("a demand of {} bits x {factor} does not fit u64: lower mult, bw or the factors", d.bits)
            })?;
        }
        Ok(demands)
    }
}

/// Adds one step of `shift` on `n` slots to the generator's builder.
pub(crate) fn build(
    n: u32,
    shift: MoeShift,
    seed: u64,
    b: &mut super::Builder,
) -> Result<(), String> {
    if n < 2 {
        return Err(format!("n must be >= 2, got {n}"));
    }
    if !(shift.mean_bits.is_finite()
        && shift.mean_bits > 0.0
        && shift.sigma.is_finite()
        && shift.sigma >= 0.0)
    {
        return Err("mean_chunks must be > 0 and sigma >= 0 (finite)".into());
    }
    b.slots(u64::from(n))?;
    for d in shift.all_to_all(n, seed)? {
        b.bits(d.src, d.dst, d.bits);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shift(shape: Shape, step: u64) -> MoeShift {
        MoeShift {
            shape,
            step,
            mean_bits: 1000.0,
            sigma: 0.0,
            hot_x: 6,
            burst_every: 5,
            burst_x: 4,
        }
    }

    fn bits(d: &[Demand], src: u32, dst: u32) -> u64 {
        d.iter()
            .find(|x| x.src == src && x.dst == dst)
            .unwrap()
            .bits
    }

    #[test]
    fn each_shape_puts_its_hot_spot_where_it_says() {
        // sigma 0: every base size is the mean, so the factors show alone.
        let d = shift(Shape::HotExpert, 0).all_to_all(8, 3).unwrap();
        assert_eq!(
            (bits(&d, 0, 3), bits(&d, 3, 0), bits(&d, 0, 1)),
            (6000, 1000, 1000)
        );
        let d = shift(Shape::HotRank, 7).all_to_all(8, 3).unwrap();
        assert_eq!(
            (bits(&d, 0, 3), bits(&d, 3, 0), bits(&d, 0, 1)),
            (6000, 6000, 1000)
        );
        for step in 0..10 {
            let d = shift(Shape::Rotating, step).all_to_all(8, 3).unwrap();
            let h = ((3 + step) % 8) as u32;
            let o = (h + 1) % 8;
            assert_eq!(
                (bits(&d, o, h), bits(&d, h, o)),
                (6000, 6000),
                "step {step}"
            );
            assert_eq!(bits(&d, o, (h + 2) % 8), 1000, "step {step}");
        }
        for step in 0..10 {
            let d = shift(Shape::Burst, step).all_to_all(8, 3).unwrap();
            let want = if step % 5 == 4 { 4000 } else { 1000 };
            assert!(d.iter().all(|x| x.bits == want), "step {step}");
        }
    }

    #[test]
    fn steps_draw_afresh_and_repeat_exactly() {
        let mut s = shift(Shape::Rotating, 1);
        s.sigma = 1.2;
        let a = s.all_to_all(16, 9).unwrap();
        assert_eq!(a, s.all_to_all(16, 9).unwrap());
        s.step = 2;
        let b = s.all_to_all(16, 9).unwrap();
        assert_eq!(a.len(), 16 * 15);
        assert!(a.iter().zip(&b).filter(|(x, y)| x.bits != y.bits).count() > 200);
        s.hot_x = 0;
        assert!(s.all_to_all(16, 9).is_err());
    }
}
