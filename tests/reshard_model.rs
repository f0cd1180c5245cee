//! `reshard_model` (transformer checkpoints from a training mesh to an
//! inference mesh on disjoint GPUs): the bundled set `instances/reshard`
//! is solved to its known optimum (König: the transfers are bipartite)
//! under both models with status `optimal`, every schedule validates from
//! its file and every claim verifies; with K ports per GPU (`--ports K`)
//! the optimum is `max_v ceil(d(v)/K)` and is met; bad meshes are refused
//! by the CLI with the parameter at fault and nothing written.

mod common;
use common::*;
use std::path::Path;
use tickopt::bench::manifest::Manifest;
use tickopt::instance::{read_instance_file, Limits, Model, Overrides};
use tickopt::interop::validate_schedule_file;
use tickopt::schedule::{write_schedule_file, Format};
use tickopt::solve::Status;
use tickopt::verify::{verify_claim, Claim};
use tickopt::{solve_instance, SolveRequest};

#[test]
fn reshard_set_meets_its_known_optima_under_both_models() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/reshard");
    let manifest = Manifest::load(&dir.join("manifest.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for entry in manifest.entries.iter().map(|e| e.as_ref().unwrap()) {
        assert_eq!(entry.family, "reshard_model");
        for model in [Model::Strict1, Model::Read1Write1] {
            let known = entry.known_optimum[&model];
            assert!(
                entry.known_optimum_reason[&model].starts_with("König"),
                "{} {model}",
                entry.file
            );
            let inst = common::manifest_instance(&dir, entry, model);
            let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
            assert_eq!(
                (sol.ticks, sol.status),
                (known, Status::Optimal),
                "{} {model}",
                entry.file
            );
            let path = tmp.path().join("s.json");
            write_schedule_file(&inst, &sol.schedule, Format::Compact, &path).unwrap();
            let report = validate_schedule_file(&inst, &path).unwrap();
            assert!(
                report.passed(),
                "{} {model}: {}",
                entry.file,
                report.one_line()
            );
            assert_eq!(report.ticks_total, known);
            let claim = Claim::from_value(serde_json::json!({
                "model": model, "ticks": sol.ticks, "lower_bound": sol.lower_bound.ticks,
                "status": sol.status, "witness": sol.lower_bound.witness, "proof": sol.proof,
            }))
            .unwrap();
            let v = verify_claim(&inst, &report, &claim, &Default::default());
            assert!(v.holds, "{} {model}: {:?}", entry.file, v.failures);
            checked += 1;
        }
    }
    assert!(checked >= 14, "only {checked} runs checked");
}

/// Several NICs per GPU: a bipartite multigraph is f-class 1, so the
/// optimum is the largest `ceil(d(v) / K)`, odd K included, and the solve
/// proves it under both models.
#[test]
fn with_ports_the_optimum_is_the_port_degree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/reshard");
    let file = dir.join("reshard_model_n384_256to128_t8p4-t4p1_l32h4096f11008_m1_s0.csv");
    for ports in [2u32, 3] {
        for model in [Model::Strict1, Model::Read1Write1] {
            let o = Overrides {
                model: Some(model),
                ports: Some(ports),
                ..Default::default()
            };
            let inst = read_instance_file(&file, &o, &Limits::default()).unwrap();
            let mut degree = vec![[0u64; 2]; inst.slots as usize];
            for (i, d) in inst.demands().iter().enumerate() {
                degree[d.src as usize][0] += inst.chunks(i);
                degree[d.dst as usize][1] += inst.chunks(i);
            }
            // Training and inference GPUs are disjoint: each slot only
            // sends or only receives, so both models have the same degrees.
            assert!(degree.iter().all(|d| d[0] == 0 || d[1] == 0));
            let want = degree
                .iter()
                .map(|d| (d[0] + d[1]).div_ceil(ports as u64))
                .max()
                .unwrap();
            let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
            assert_eq!(
                (sol.ticks, sol.status),
                (want, Status::Optimal),
                "{ports} ports {model}"
            );
        }
    }
}

#[test]
fn bad_meshes_are_refused_with_the_parameter_at_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.csv");
    for (args, msg) in [
        (
            vec!["--from", "100", "--to", "128"],
            "reshard_model: from=100 GPUs is not a multiple of from_tp x from_pp = 32",
        ),
        (
            vec!["--from", "256", "--to", "96", "--to-tp", "3"],
            "reshard_model: to_tp=3 must divide heads=32 and kv_heads=32",
        ),
        (
            vec![
                "--from",
                "256",
                "--to",
                "128",
                "--heads",
                "64",
                "--kv-heads",
                "24",
            ],
            "reshard_model: heads=64 is not a multiple of kv_heads=24",
        ),
    ] {
        let mut full = vec!["gen", "reshard_model"];
        full.extend(args);
        full.extend(["--out", s(&out)]);
        let o = run(&full);
        assert!(!o.status.success(), "{full:?}");
        assert!(stderr(&o).contains(msg), "{}", stderr(&o));
        assert!(!out.exists());
    }
}
