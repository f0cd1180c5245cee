//! Dense skewed two-tier traffic with the same ports on every GPU, from
//! two generators: `tickopt gen moe_two_tier` (hot experts, per-demand
//! bandwidth inside a node) and a log-normal matrix written here (every
//! pair present, sizes log-normal, no hot experts, one bandwidth). Both
//! must take the uniform-port exact paths of the multi-port solver and be
//! proven optimal at the port-degree bound, counted here from the demands
//! (issue 53: a fast path holds for the family, not one generator's
//! output).

#[path = "common/two_tier.rs"]
mod two_tier;

use tickopt::instance::{Instance, Model};
use tickopt::solve::Status;
use tickopt::{solve_instance, SolveRequest};
use two_tier::{generated, lognormal};

/// The port-degree bound, from the demands: `max_v ceil(d(v) / ports)`,
/// `d` a slot's sends plus receives (STRICT1) or the larger of the two
/// (READ1_WRITE1).
fn port_degree_bound(inst: &Instance, ports: u32) -> u64 {
    let n = inst.slots as usize;
    let (mut out, mut inn) = (vec![0u64; n], vec![0u64; n]);
    for (i, d) in inst.demands().iter().enumerate() {
        out[d.src as usize] += inst.chunks(i);
        inn[d.dst as usize] += inst.chunks(i);
    }
    (0..n)
        .map(|v| match inst.model {
            Model::Strict1 => out[v] + inn[v],
            Model::Read1Write1 => out[v].max(inn[v]),
        })
        .map(|d| d.div_ceil(u64::from(ports)))
        .max()
        .unwrap_or(0)
}

/// The multi-port solver's methods for the same ports on every slot
/// (grouping one-port ticks: first fit, König over ports, Hakimi–Kariv);
/// not the port split, the odd-port engine or a greedy.
const UNIFORM_PORT_PATHS: [&str; 4] = [
    "multiport-first-fit",
    "multiport-koenig",
    "multiport-hakimi-kariv-first-fit",
    "multiport-hakimi-kariv",
];

fn check(name: &str, inst: &Instance, ports: u32) {
    let sol = solve_instance(inst, &SolveRequest::default()).expect("solves");
    let bound = port_degree_bound(inst, ports);
    assert_eq!(
        sol.status,
        Status::Optimal,
        "{name}: {:?}",
        sol.stats.solver
    );
    assert_eq!(sol.ticks, bound, "{name}: ticks at the port-degree bound");
    assert_eq!(sol.lower_bound.ticks, bound, "{name}: the bound proven");
    assert!(
        UNIFORM_PORT_PATHS.contains(&sol.stats.solver.as_str()),
        "{name}: took {}",
        sol.stats.solver
    );
}

#[test]
fn dense_skewed_two_tier_instances_of_both_generators_take_the_uniform_port_paths() {
    for model in [Model::Strict1, Model::Read1Write1] {
        for (gpus, ports) in [(64, 2), (64, 4), (128, 2)] {
            for seed in 0..2 {
                let inst = generated(gpus, ports, model, seed);
                assert!(inst.has_demand_bw(), "gen's fast links inside a node");
                check(&format!("gen {gpus}x{ports} {model} s{seed}"), &inst, ports);
                for sigma in [0.5, 1.0, 2.0] {
                    let inst = lognormal(gpus, ports, model, seed, sigma, 10.0);
                    let name = format!("log-normal {gpus}x{ports} sigma {sigma} {model} s{seed}");
                    check(&name, &inst, ports);
                }
            }
        }
    }
}
