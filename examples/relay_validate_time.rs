//! Times the relay schedule validator alone (`validate_relay`, what
//! `plan_relay` runs on every plan before returning it): the dense
//! hot-column MoE matrix of `relay_time` planned once per size and rho,
//! then validated `REPS` times. Prints the median, min and max wall time
//! and the schedule's runs and ticks.
//!
//! `MIMALLOC_PURGE_DELAY=-1 cargo run --release --example
//! relay_validate_time [REPS] [SIZES...]` (defaults: 201 calls; 64, 256
//! and 1,024 ranks), with the Python module's allocator (mimalloc).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;
use tickopt::gen::skew::Skew;
use tickopt::instance::dense::instance_from_matrix_le;
use tickopt::instance::Model;
use tickopt::relay::check::validate_relay;
use tickopt::relay::{plan_relay, TwoTier};

/// The matrix of bits as little-endian int64 bytes, row-major (as in
/// `relay_time`).
fn moe_bytes(n: u32) -> Vec<u8> {
    let skew = Skew {
        mean_bits: 256.0,
        sigma: 1.2,
        hot: n / 16,
        hot_factor: 4,
    };
    let mut m = vec![0i64; n as usize * n as usize];
    for d in skew.all_to_all(n, 1).expect("valid skew") {
        m[d.src as usize * n as usize + d.dst as usize] += d.bits as i64;
    }
    m.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(201);
    let mut sizes: Vec<u32> = args.iter().skip(1).filter_map(|s| s.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![64, 256, 1024];
    }
    for n in sizes {
        let inst = instance_from_matrix_le(Model::Read1Write1, n, 64, &moe_bytes(n)).unwrap();
        for rho in [4u32, 8] {
            let tt = TwoTier {
                gpus_per_node: 8,
                nvlink_speedup: rho,
            };
            let s = plan_relay(&inst, tt).unwrap().schedule;
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t0 = Instant::now();
                validate_relay(&inst, tt, std::hint::black_box(&s)).unwrap();
                times.push(t0.elapsed().as_secs_f64() * 1e3);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "n {n:5} rho {rho}: validate median {:9.4} ms (min {:9.4}, max {:9.4}, {reps} calls)  runs {} ticks {}",
                times[reps / 2],
                times[0],
                times[reps - 1],
                s.runs.len(),
                s.ticks
            );
        }
    }
}
