//! Relay plans against their proven bound on the Rust generator's
//! hot-column MoE matrices (`tickopt::gen::skew`: log-normal sizes of mean
//! 4 chunks a pair, 1/16 of the columns hot), nodes of 8 GPUs: every plan
//! outside 2% (+2 ticks) of its bound is printed, then the count and the
//! mean plan / bound (doc/performance.md "Relays at sigma 1.6"; the numpy
//! matrices of `scripts/relay_gap.py` are the same family from another
//! generator).
//!
//! `cargo run --release --example relay_gap [SIZE:SEEDS ...]` (default
//! `64:24 256:6`: seeds 0 .. SEEDS - 1 at SIZE ranks), over hot x4 and x6,
//! sigma 1.2 and 1.6, rho 4 and 8 (`RHOS=1,2` for others).

use tickopt::gen::skew::Skew;
use tickopt::instance::{Instance, Limits, Model};
use tickopt::relay::{plan_relay, TwoTier};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sets: Vec<(u32, u64)> = if args.is_empty() {
        vec![(64, 24), (256, 6)]
    } else {
        args.iter()
            .map(|a| {
                let (n, s) = a.split_once(':').expect("SIZE:SEEDS, e.g. 64:24");
                (
                    n.parse().expect("SIZE: ranks"),
                    s.parse().expect("SEEDS: a count"),
                )
            })
            .collect()
    };
    let rhos: Vec<u32> = std::env::var("RHOS").map_or(vec![4, 8], |v| {
        v.split(',')
            .map(|r| r.parse().expect("RHOS: numbers"))
            .collect()
    });
    let (mut outside, mut plans, mut sum) = (0, 0, 0.0);
    for &(n, seeds) in &sets {
        for hot_factor in [4u64, 6] {
            for sigma in [1.2f64, 1.6] {
                for seed in 0..seeds {
                    let skew = Skew {
                        mean_bits: 256.0,
                        sigma,
                        hot: (n / 16).max(1),
                        hot_factor,
                    };
                    let demands = skew.all_to_all(n, seed).expect("valid skew");
                    let inst =
                        Instance::new(Model::Read1Write1, n, 64, demands, &Limits::default())
                            .expect("valid instance");
                    for &rho in &rhos {
                        let tt = TwoTier {
                            gpus_per_node: 8,
                            nvlink_speedup: rho,
                        };
                        let s = plan_relay(&inst, tt).expect("a plan");
                        let slack = ((s.lower_bound as f64 * 0.02).floor() as u64).max(2);
                        plans += 1;
                        sum += s.ticks as f64 / s.lower_bound as f64;
                        if s.ticks > s.lower_bound + slack {
                            outside += 1;
                            println!(
                                "outside: {n} ranks x{hot_factor} sigma {sigma} seed {seed} rho {rho}: \
                                 {} ticks, bound {} ({:?})",
                                s.ticks,
                                s.lower_bound,
                                s.binding()
                            );
                        }
                    }
                }
            }
        }
    }
    println!(
        "{outside} of {plans} plans outside 2% + 2 of their bound; mean plan / bound {:.4}",
        sum / plans as f64
    );
}
