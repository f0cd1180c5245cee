//! Times relay planning as the Python module runs it (issue 52's step
//! budgets): a dense hot-column MoE matrix (the relay bench's: log-normal
//! sizes, sigma 1.2, mean 4 chunks a pair, 1/16 of the columns x4) read
//! from int64 bytes (`instance_from_matrix_le`, what `solve_relay_matrix`
//! calls), planned by `plan_relay` (bounds, plan, validation), with the
//! module's allocator (mimalloc). Prints the median, min and max wall time
//! of `REPS` calls per size and rho, and the ticks against the bound.
//!
//! `MIMALLOC_PURGE_DELAY=-1 cargo run --release --example relay_time
//! [REPS] [SIZES...]` (defaults: 21 calls; 64, 256 and 1,024 ranks; rho 4
//! and 8, or those `RHOS=4,8` lists; the
//! variable does what the Python module sets at import: freed pages are
//! kept for the next plan). Python adds its own call overhead and reads
//! the numpy array's bytes in place (no copy).
//!
//! `... relay_time --validate [REPS] [SIZES...]` times the relay schedule
//! validator alone instead (`validate_relay`, what `plan_relay` runs on
//! every plan before returning it): each size and rho planned once, then
//! validated `REPS` times (default 201); prints the median, min and max
//! and the schedule's runs and ticks.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;
use tickopt::gen::skew::Skew;
use tickopt::instance::dense::instance_from_matrix_le;
use tickopt::instance::Model;
use tickopt::relay::check::validate_relay;
use tickopt::relay::{plan_relay, TwoTier};

/// The matrix of bits as little-endian int64 bytes, row-major.
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
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let validate = args.first().is_some_and(|a| a == "--validate");
    if validate {
        args.remove(0);
    }
    let default_reps = if validate { 201 } else { 21 };
    let reps: usize = args
        .first()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_reps);
    let mut sizes: Vec<u32> = args.iter().skip(1).filter_map(|s| s.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![64, 256, 1024];
    }
    for n in sizes {
        let bytes = moe_bytes(n);
        for rho in std::env::var("RHOS")
            .map(|v| {
                v.split(',')
                    .map(|r| r.parse::<u32>().expect("RHOS: numbers"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or(vec![4u32, 8])
        {
            let tt = TwoTier {
                gpus_per_node: 8,
                nvlink_speedup: rho,
            };
            if validate {
                time_validation(n, &bytes, tt, reps);
            } else {
                time_planning(n, &bytes, tt, reps);
            }
        }
    }
}

/// The median, min and max of `times` (ms), sorted in place.
fn spread(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

/// `reps` plans of the matrix `bytes` from the bytes on.
fn time_planning(n: u32, bytes: &[u8], tt: TwoTier, reps: usize) {
    let mut times = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let inst = instance_from_matrix_le(Model::Read1Write1, n, 64, bytes).unwrap();
        let sol = plan_relay(&inst, tt).unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        last = Some(sol);
    }
    let (median, min, max) = spread(&mut times);
    let sol = last.expect("at least one call");
    let slack = (sol.lower_bound / 50).max(2);
    println!(
        "n {n:5} rho {}: median {median:9.3} ms (min {min:9.3}, max {max:9.3}, {reps} calls)  ticks {} bound {} ({}) nic {} within 2%+2: {}",
        tt.nvlink_speedup,
        sol.ticks,
        sol.lower_bound,
        sol.binding().as_str(),
        sol.nic_ticks,
        sol.ticks <= sol.lower_bound + slack
    );
}

/// One plan of the matrix `bytes`, validated `reps` times.
fn time_validation(n: u32, bytes: &[u8], tt: TwoTier, reps: usize) {
    let inst = instance_from_matrix_le(Model::Read1Write1, n, 64, bytes).unwrap();
    let s = plan_relay(&inst, tt).unwrap().schedule;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        validate_relay(&inst, tt, std::hint::black_box(&s)).unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let (median, min, max) = spread(&mut times);
    println!(
        "n {n:5} rho {}: validate median {median:9.4} ms (min {min:9.4}, max {max:9.4}, {reps} calls)  runs {} ticks {}",
        tt.nvlink_speedup,
        s.runs.len(),
        s.ticks
    );
}
