//! The link cost model: what one tick costs in seconds.
//!
//! A tick lasts `alpha + chunk_bits / rate`: a fixed overhead (launch,
//! synchronisation) plus the time to move one chunk over the link
//! (DESIGN.md §12, doc/design.md §12). `alpha` is given in microseconds and
//! the rate in gigabits per second (10^9 bits per second), the units of
//! `--alpha-us` and `--link-gbps` and of an instance JSON's `"cost"` object.

use serde::{Deserialize, Serialize};

/// Why a cost model was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CostError {
    #[error("alpha_us must be a finite number >= 0 (microseconds per tick), got {0}")]
    Alpha(f64),
    #[error("link_gbps must be a finite number > 0 (gigabits per second), got {0}")]
    Rate(f64),
}

/// Per-tick overhead and link rate. Both values are finite (checked by
/// [`CostModel::new`]), so equality is an equivalence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Fixed cost of one tick, microseconds.
    pub alpha_us: f64,
    /// Link rate, gigabits (10^9 bits) per second.
    pub link_gbps: f64,
}

impl Eq for CostModel {}

impl CostModel {
    /// A cost model with `alpha_us >= 0` and `link_gbps > 0`, both finite.
    pub fn new(alpha_us: f64, link_gbps: f64) -> Result<CostModel, CostError> {
        if !(alpha_us.is_finite() && alpha_us >= 0.0) {
            return Err(CostError::Alpha(alpha_us));
        }
        if !(link_gbps.is_finite() && link_gbps > 0.0) {
            return Err(CostError::Rate(link_gbps));
        }
        Ok(CostModel {
            alpha_us,
            link_gbps,
        })
    }

    /// The overhead in seconds.
    pub fn alpha_seconds(&self) -> f64 {
        self.alpha_us * 1e-6
    }

    /// Seconds to move `bits` over one link (no overhead).
    pub fn transfer_seconds(&self, bits: u128) -> f64 {
        bits as f64 / (self.link_gbps * 1e9)
    }

    /// Seconds one tick at chunk size `chunk_bits` lasts.
    pub fn tick_seconds(&self, chunk_bits: u64) -> f64 {
        self.alpha_seconds() + self.transfer_seconds(chunk_bits as u128)
    }

    /// Seconds `ticks` ticks at chunk size `chunk_bits` last.
    pub fn seconds(&self, ticks: u64, chunk_bits: u64) -> f64 {
        ticks as f64 * self.tick_seconds(chunk_bits)
    }

    /// The flags that select this model on the command line.
    pub fn flags(&self) -> String {
        format!(
            "--alpha-us {} --link-gbps {}",
            fmt_sig(self.alpha_us),
            fmt_sig(self.link_gbps)
        )
    }
}

/// A number with 6 significant digits and no trailing zeros.
fn fmt_sig(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = (5 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_is_overhead_plus_chunk_over_rate() {
        let m = CostModel::new(36.3, 678.0 * 8.0).unwrap();
        // 1 MB at 678 GB/s is 1.475 us.
        let t = m.tick_seconds(8_000_000);
        assert!((t - (36.3e-6 + 1e6 / 678e9)).abs() < 1e-15, "{t}");
        assert_eq!(m.seconds(0, 8), 0.0);
        assert_eq!(m.flags(), "--alpha-us 36.3 --link-gbps 5424");
    }

    #[test]
    fn bad_values_are_refused() {
        assert_eq!(CostModel::new(-1.0, 1.0), Err(CostError::Alpha(-1.0)));
        assert!(CostModel::new(f64::NAN, 1.0).is_err());
        assert_eq!(CostModel::new(0.0, 0.0), Err(CostError::Rate(0.0)));
        assert!(CostModel::new(1.0, f64::INFINITY).is_err());
        assert!(CostModel::new(0.0, 1.0).is_ok());
    }
}
