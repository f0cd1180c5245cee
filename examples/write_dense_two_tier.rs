//! Writes one dense two-tier instance of tests/common/two_tier.rs as JSON,
//! for timing the whole process (`tickopt solve FILE.json ...`) and for
//! profiling it (doc/performance.md, issue 53):
//!
//! `cargo run --release --example write_dense_two_tier -- lognormal 2048 4 STRICT1 /tmp/ln.json`
//!
//! Source `lognormal` (seed 1, sigma 1, ten chunks a demand) or `gen`
//! (`tickopt gen moe_two_tier`, seed 1).

#[path = "../tests/common/two_tier.rs"]
mod two_tier;

use std::io::Write;
use tickopt::instance::{write_instance_json, Model};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [source, gpus, ports, model, out] = args.as_slice() else {
        eprintln!(
            "usage: write_dense_two_tier lognormal|gen GPUS PORTS STRICT1|READ1_WRITE1 OUT.json"
        );
        std::process::exit(2);
    };
    let (gpus, ports): (u32, u32) = (gpus.parse().expect("GPUS"), ports.parse().expect("PORTS"));
    let model = match model.as_str() {
        "STRICT1" => Model::Strict1,
        "READ1_WRITE1" => Model::Read1Write1,
        m => panic!("unknown model {m}"),
    };
    let inst = match source.as_str() {
        "lognormal" => two_tier::lognormal(gpus, ports, model, 1, 1.0, 10.0),
        "gen" => two_tier::generated(gpus, ports, model, 1),
        s => panic!("unknown source {s}"),
    };
    let mut w = std::io::BufWriter::new(std::fs::File::create(out).expect("OUT"));
    write_instance_json(&inst, &mut w).expect("written");
    w.flush().expect("flushed");
}
