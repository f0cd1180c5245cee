//! Dense skewed two-tier instances from two generators, for
//! tests/dense_two_tier.rs and benches/dense_two_tier.rs: `tickopt gen
//! moe_two_tier` (hot experts, per-demand bandwidth inside a node) and a
//! log-normal matrix written here (every pair present, sizes log-normal,
//! no hot experts, one bandwidth), the same ports on every slot.
#![allow(dead_code)]

use tickopt::gen::multiport::{generate_multiport, MultiportFamily};
use tickopt::gen::rng::SplitMix64;
use tickopt::instance::{Demand, Instance, Limits, Model, Ports};

pub const BW: u64 = 1024;

/// Every ordered pair of `n` slots with log-normal bits (mean about
/// `mean_chunks` chunks, shape `sigma`: Box–Muller on a seeded stream),
/// `ports` ports on every slot.
pub fn lognormal(
    n: u32,
    ports: u32,
    model: Model,
    seed: u64,
    sigma: f64,
    mean_chunks: f64,
) -> Instance {
    let mut rng = SplitMix64::new(seed, 53);
    let mu = (mean_chunks * BW as f64).ln() - sigma * sigma / 2.0;
    let mut demands = Vec::new();
    for src in 0..n {
        for dst in (0..n).filter(|&d| d != src) {
            let (u, v) = (1.0 - rng.unit(), rng.unit());
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            let bits = (mu + sigma * z).exp().max(1.0) as u64;
            demands.push((Demand { src, dst, bits }, None));
        }
    }
    Instance::new_multiport(
        model,
        n,
        BW,
        demands,
        Ports::Uniform(ports),
        &Limits::default(),
    )
    .expect("a log-normal matrix is a valid instance")
}

/// `tickopt gen moe_two_tier` with `gpus` GPUs (8 a node), `ports` NICs a
/// GPU, about ten chunks a demand.
pub fn generated(gpus: u32, ports: u32, model: Model, seed: u64) -> Instance {
    let family = MultiportFamily::MoeTwoTier {
        nodes: gpus / 8,
        gpus_per_node: 8,
        nics: ports,
        fast: 8,
        sigma: 1.0,
        hot: 8,
        hot_factor: 4,
    };
    generate_multiport(&family, model, 10, BW, seed).expect("valid parameters")
}
