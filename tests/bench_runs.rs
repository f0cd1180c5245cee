//! `tickopt bench` end to end on small sets: outputs, validation,
//! determinism across thread counts, resume after an interrupt, shards and
//! merge, failures recorded while the rest runs, copyspace-guard columns.

mod common;

use std::path::{Path, PathBuf};
use tickopt::bench::journal::JOURNAL_FILE;
use tickopt::bench::{self, BenchOptions, BenchRecord, Shard};
use tickopt::gen::{self, Family, GenSpec};
use tickopt::instance::{read_instance_file, Limits, Model, Overrides};
use tickopt::validate::validate_expanded;
use tickopt::{solve_instance, SolveRequest};

/// Writes a small set of generated instances into `dir` with a manifest.
fn make_set(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let fams = [
        (Family::Alltoall { n: 6 }, 1),
        (Family::Ring { n: 7 }, 1000),
        (Family::Petersen, 1),
        (Family::Clique { n: 5 }, 2),
        (
            Family::Pipeline {
                stages: 4,
                microbatches: 3,
            },
            1,
        ),
        (
            Family::Moe {
                n: 6,
                experts_per_rank: 1,
                tokens: 50,
                topk: 2,
                zipf: 1.0,
                token_bits: 700,
            },
            1,
        ),
    ];
    for (family, mult) in fams {
        let spec = GenSpec {
            family,
            mult,
            bw: 1000,
            seed: 1,
        };
        let g = gen::generate(&spec).unwrap();
        let name = gen::file_name(&spec, g.slots);
        let mut f = std::fs::File::create(dir.join(&name)).unwrap();
        gen::write_demands_csv(&g, &mut f).unwrap();
        let entry = gen::manifest_entry(&spec, &g, &name, &Model::ALL);
        bench::upsert_entry(&dir.join("manifest.json"), "small", entry).unwrap();
    }
}

fn opts(jobs: usize) -> BenchOptions {
    BenchOptions {
        jobs,
        ..Default::default()
    }
}

/// Options of a `--resume` run (two jobs).
fn resume_opts() -> BenchOptions {
    BenchOptions {
        resume: true,
        ..opts(2)
    }
}

fn untimed(rs: &[BenchRecord]) -> Vec<BenchRecord> {
    rs.iter().map(BenchRecord::without_timing).collect()
}

/// Runs bench over the one set `set` into `out`.
fn run(set: &Path, out: &Path, o: &BenchOptions) -> bench::BenchOutcome {
    bench::run_bench(&[set.to_path_buf()], out, o, &|_| {}).unwrap()
}

/// A temporary directory holding the small set of [`make_set`] as `small`.
fn small_set() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("small");
    make_set(&set);
    (tmp, set)
}

/// The files every bench run writes into its output directory.
const OUTPUTS: [&str; 5] = [
    "results.json",
    "results.csv",
    "report.md",
    "report.html",
    JOURNAL_FILE,
];

#[test]
fn small_set_end_to_end_and_every_schedule_validates() {
    let (tmp, set) = small_set();
    let out = tmp.path().join("out");
    let outcome = run(&set, &out, &opts(2));
    let rs = &outcome.results.records;
    assert_eq!(rs.len(), 12);
    assert_eq!(outcome.failed, 0);
    for f in OUTPUTS {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let manifest = bench::Manifest::load(&set).unwrap();
    for r in rs {
        assert_eq!(r.valid, Some(true), "{}", r.instance);
        assert_ne!(
            r.known_check.as_deref(),
            Some("contradiction"),
            "{}",
            r.instance
        );
        assert!(r.lower_bound.unwrap() <= r.ticks.unwrap());
        assert_eq!(r.instance_hash.len(), 64);
        // Independent re-check: solve again and validate the expanded schedule.
        let entry = manifest
            .entries
            .iter()
            .flatten()
            .find(|e| e.file == r.file)
            .unwrap();
        let model: Model = r.model.parse().unwrap();
        let inst = common::manifest_instance(&set, entry, model);
        assert_eq!(tickopt::proof::instance_sha256(&inst), r.instance_hash);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert_eq!(Some(sol.ticks), r.ticks);
        assert!(validate_expanded(&inst, &sol.schedule).passed());
    }
    // R1W1 is exact: ticks equal the König optimum recorded in the manifest.
    for r in rs.iter().filter(|r| r.model == "READ1_WRITE1") {
        assert_eq!(r.known_check.as_deref(), Some("match"), "{}", r.instance);
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("copyspace-guard was not compared"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("Time against size"));
    // Self-contained: no scripts, no external resources.
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 13);
}

#[test]
fn records_do_not_depend_on_jobs() {
    let (tmp, set) = small_set();
    let a = run(&set, &tmp.path().join("a"), &opts(1));
    let b = run(&set, &tmp.path().join("b"), &opts(3));
    assert_eq!(untimed(&a.results.records), untimed(&b.results.records));
}

#[test]
fn resume_after_an_interrupt_equals_one_clean_run() {
    let (tmp, set) = small_set();
    let clean = run(&set, &tmp.path().join("clean"), &opts(2));

    // Simulate an interrupt: 5 records made it to the journal, a sixth was
    // cut short mid-line, and no final outputs were written.
    let out = tmp.path().join("interrupted");
    std::fs::create_dir_all(&out).unwrap();
    let journal = std::fs::read_to_string(tmp.path().join("clean").join(JOURNAL_FILE)).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let mut partial = lines[..5].join("\n");
    partial.push('\n');
    partial.push_str(&lines[5][..lines[5].len() / 2]);
    std::fs::write(out.join(JOURNAL_FILE), partial).unwrap();

    let resumed = run(&set, &out, &resume_opts());
    assert_eq!(resumed.reused, 5);
    assert_eq!(resumed.ran, clean.results.records.len() - 5);
    assert_eq!(
        untimed(&resumed.results.records),
        untimed(&clean.results.records)
    );
    // The journal now holds every run once, and a second resume runs nothing.
    let again = run(&set, &out, &resume_opts());
    assert_eq!((again.ran, again.reused), (0, clean.results.records.len()));
    // Different options do not reuse records.
    let other = run(
        &set,
        &out,
        &BenchOptions {
            resume: true,
            solver: tickopt::SolverChoice::Greedy,
            ..opts(2)
        },
    );
    assert_eq!(other.reused, 0);
}

/// A journal written before bench used the proofs' instance hash holds the
/// old bench-only hash (no model): `--resume` reuses none of it, runs every
/// instance once, and the results hold each run once (no stale duplicates).
#[test]
fn resume_over_a_journal_with_old_instance_hashes_reruns_each_run_once() {
    let (tmp, set) = small_set();
    let clean = run(&set, &tmp.path().join("clean"), &opts(2));
    let out = tmp.path().join("old");
    std::fs::create_dir_all(&out).unwrap();
    let mut old = String::new();
    for r in &clean.results.records {
        let mut r = r.clone();
        // The old form: "tickopt-instance-v1\nslots=..\nbw=..\n" + demands.
        let inst = read_instance_file(
            &set.join(&r.file),
            &Overrides {
                model: Some(r.model.parse().unwrap()),
                bw: r.bw,
                slots: None,
                ports: None,
            },
            &Limits::default(),
        )
        .unwrap();
        r.instance_hash = old_bench_hash(&inst);
        assert_ne!(r.instance_hash, tickopt::proof::instance_sha256(&inst));
        old.push_str(&serde_json::to_string(&r).unwrap());
        old.push('\n');
    }
    std::fs::write(out.join(JOURNAL_FILE), old).unwrap();
    let resumed = run(&set, &out, &resume_opts());
    assert_eq!(resumed.reused, 0);
    assert_eq!(resumed.ran, clean.results.records.len());
    assert_eq!(
        untimed(&resumed.results.records),
        untimed(&clean.results.records)
    );
    // Now the new records are in the journal: a second resume reuses them all.
    let again = run(&set, &out, &resume_opts());
    assert_eq!((again.ran, again.reused), (0, clean.results.records.len()));
    assert_eq!(
        untimed(&again.results.records),
        untimed(&clean.results.records)
    );
}

/// bench's instance hash before it became the proofs' one.
fn old_bench_hash(inst: &tickopt::instance::Instance) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(
        format!(
            "tickopt-instance-v1\nslots={}\nbw={}\n",
            inst.slots, inst.bw
        )
        .as_bytes(),
    );
    for d in inst.demands() {
        h.update(format!("{},{},{}\n", d.src, d.dst, d.bits).as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn two_shards_merged_equal_one_unsharded_run() {
    let (tmp, set) = small_set();
    let whole = run(&set, &tmp.path().join("whole"), &opts(2));
    let mut dirs = Vec::new();
    let mut sizes = Vec::new();
    for i in 1..=2 {
        let d = tmp.path().join(format!("shard{i}"));
        let o = run(
            &set,
            &d,
            &BenchOptions {
                shard: Some(Shard { index: i, count: 2 }),
                ..opts(1)
            },
        );
        sizes.push(o.results.records.len());
        dirs.push(d);
    }
    assert!(sizes.iter().all(|&n| n > 0));
    assert_eq!(sizes.iter().sum::<usize>(), whole.results.records.len());
    let merged = bench::merge(&dirs, &tmp.path().join("merged")).unwrap();
    assert_eq!(untimed(&merged.records), untimed(&whole.results.records));
    assert_eq!(merged.header.sets, whole.results.header.sets);
    // Merging the same shard twice keeps each run once.
    let twice = bench::merge(
        &[dirs[0].clone(), dirs[0].clone(), dirs[1].clone()],
        &tmp.path().join("m2"),
    )
    .unwrap();
    assert_eq!(untimed(&twice.records), untimed(&whole.results.records));
}

#[test]
fn a_bad_instance_or_entry_is_recorded_and_the_others_run() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("bad");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(
        set.join("good.csv"),
        "src_slot,dst_slot,bits_total\n0,1,300\n1,2,100\n",
    )
    .unwrap();
    std::fs::write(
        set.join("broken.csv"),
        "src_slot,dst_slot,bits_total\n0,1,300\n2,2,5\n",
    )
    .unwrap();
    std::fs::write(
        set.join("manifest.json"),
        r#"{"set":"bad","instances":[
            {"file":"good.csv","family":"test","bw":100},
            {"file":"broken.csv","family":"test","bw":100,"models":["STRICT1"]},
            {"file":"missing.csv","family":"test","bw":100,"models":["READ1_WRITE1"]},
            {"file":"weird.csv","bw":"lots"}
        ]}"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    // A set path that does not exist stops the run before anything is written.
    let nowhere = tmp.path().join("no-such-set");
    let e = bench::run_bench(&[set.clone(), nowhere], &out, &opts(2), &|_| {}).unwrap_err();
    assert!(e.to_string().contains("no-such-set: no such set"), "{e}");
    assert!(!out.exists());
    let o = run(&set, &out, &opts(2));
    let rs = &o.results.records;
    let ok: Vec<_> = rs.iter().filter(|r| !r.is_failed()).collect();
    assert_eq!(ok.len(), 2, "good.csv under both models");
    assert!(ok.iter().all(|r| r.file == "good.csv"));
    let err = |needle: &str| {
        rs.iter()
            .filter(|r| r.is_failed())
            .find(|r| r.error.as_deref().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("no failure mentioning {needle}: {rs:#?}"))
            .clone()
    };
    let broken = err("broken.csv");
    assert!(
        broken.error.as_deref().unwrap().contains("broken.csv:3:"),
        "{broken:?}"
    );
    assert_eq!(broken.model, "STRICT1");
    err("missing.csv");
    let weird = err("weird.csv");
    assert!(weird.error.as_deref().unwrap().contains("instances[3]"));
    assert_eq!(o.failed, 3);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Failures") && md.contains("missing.csv"));
}

#[cfg(unix)]
#[test]
fn compare_cg_adds_columns_mock() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, set) = small_set();
    // A stand-in for copyspace-guard: writes the summary.json fields we read.
    let mock = tmp.path().join("cg-mock");
    std::fs::write(
        &mock,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --outdir ]; then out=$2; fi; shift; done\nmkdir -p \"$out\"\necho '{\"reports\":{\"greedy\":{\"ticks_total\":99,\"lower_bound_ticks\":7,\"bounds_complete\":true}}}' > \"$out/summary.json\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&mock, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tmp.path().join("out");
    let o = run(
        &set,
        &out,
        &BenchOptions {
            compare_cg: Some(mock),
            ..opts(2)
        },
    );
    assert!(o.results.header.compare_cg);
    for r in &o.results.records {
        let cg = r.cg.as_ref().unwrap();
        assert_eq!(
            (cg.ticks, cg.lower_bound, cg.error.as_deref()),
            (Some(99), Some(7), None)
        );
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("copyspace-guard was compared") && md.contains("cg ticks"));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with("cg_ticks,cg_lower_bound,cg_seconds"));
}

/// The real copyspace-guard: `TICKOPT_CG` names it (scripts/test.sh makes
/// its venv with `../shared/tools/cg.sh` before `cargo test` and sets it),
/// else target/cg-venv, where scripts/interop.sh puts it. Missing, the test
/// fails and says how to make it: it never passes having compared nothing.
#[test]
fn compare_cg_real_copyspace_guard() {
    let cg = std::env::var_os("TICKOPT_CG")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/cg-venv/bin/copyspace-guard")
        });
    assert!(
        cg.exists(),
        "copyspace-guard not installed at {}: make it with \
         `CG_VENV=target/cg-venv ../shared/tools/cg.sh` (scripts/test.sh does) or set TICKOPT_CG",
        cg.display()
    );
    let (tmp, set) = small_set();
    let o = run(
        &set,
        &tmp.path().join("out"),
        &BenchOptions {
            compare_cg: Some(cg),
            ..opts(2)
        },
    );
    for r in &o.results.records {
        let cg = r.cg.as_ref().unwrap();
        assert_eq!(cg.error, None, "{}", r.instance);
        // copyspace-guard's greedy is a valid schedule and its bound is a
        // valid bound: neither may beat tickopt's proven numbers.
        assert!(
            cg.ticks.unwrap() >= r.lower_bound.unwrap(),
            "{}",
            r.instance
        );
        assert!(
            cg.lower_bound.unwrap() <= r.ticks.unwrap(),
            "{}",
            r.instance
        );
    }
}

/// A skewed all-to-all of `n` slots at bw 1000 as a CSV in `dir`: the
/// transfer r -> d has `1 + (r^2 + 3d) mod 4` chunks (its last one partial),
/// so the pairwise rounds' largest transfers differ. Returns the chunks.
fn write_skewed_alltoall(dir: &Path, n: u32) -> Vec<Vec<u64>> {
    std::fs::create_dir_all(dir).unwrap();
    let mut chunks = vec![vec![0u64; n as usize]; n as usize];
    let mut csv = String::from("# copy_bw_bits_per_tick=1000\nsrc_slot,dst_slot,bits_total\n");
    for r in 0..n {
        for d in (0..n).filter(|&d| d != r) {
            let c = 1 + (r as u64 * r as u64 + 3 * d as u64) % 4;
            chunks[r as usize][d as usize] = c;
            csv.push_str(&format!("{r},{d},{}\n", c * 1000 - 1));
        }
    }
    std::fs::write(dir.join("skewed_alltoall.csv"), csv).unwrap();
    chunks
}

#[test]
fn compare_pairwise_records_the_baseline_and_its_ratio() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("a2a");
    let n = 5u32;
    let chunks = write_skewed_alltoall(&set, n);
    // sum over rounds i of the round's largest transfer (r -> (r+i) mod n).
    let expected: u64 = (1..n as usize)
        .map(|i| {
            (0..n as usize)
                .map(|r| chunks[r][(r + i) % n as usize])
                .max()
                .unwrap()
        })
        .sum();
    let out = tmp.path().join("out");
    let o = run(
        &set,
        &out,
        &BenchOptions {
            compare_pairwise: true,
            models: Some(vec![Model::Read1Write1]),
            ..opts(1)
        },
    );
    assert!(o.results.header.compare_pairwise);
    let r = &o.results.records[0];
    assert_eq!(o.results.records.len(), 1);
    assert!(r.options.contains(";pairwise=yes"), "{}", r.options);
    assert_eq!(r.pairwise_ticks, Some(expected));
    let ticks = r.ticks.unwrap();
    let ratio = r.pairwise_over_ticks.unwrap();
    assert_eq!(ratio, expected as f64 / ticks as f64);
    assert!(ratio >= 1.0 && expected > ticks, "{expected} vs {ticks}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| pairwise ticks | pairwise / ticks |"), "{md}");
    assert!(md.contains(&format!(" {expected} | {ratio:.2}x |")), "{md}");
    let summary = format!(
        "{ratio:.2}x tickopt's ticks (median; range {ratio:.2}x to {ratio:.2}x over 1 runs)"
    );
    assert!(md.contains(&summary), "{md}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with(",pairwise_ticks,pairwise_over_ticks"));
    assert!(lines
        .next()
        .unwrap()
        .ends_with(&format!(",{expected},{ratio}")));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<th>pairwise ticks</th>") && html.contains("median"));
    // A merge keeps the flag and the columns.
    let merged = tmp.path().join("merged");
    let m = bench::merge(std::slice::from_ref(&out), &merged).unwrap();
    assert!(m.header.compare_pairwise);
    assert_eq!(m.records[0].pairwise_ticks, Some(expected));
}

#[test]
fn without_compare_pairwise_no_output_mentions_it() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("a2a");
    write_skewed_alltoall(&set, 4);
    let out = tmp.path().join("out");
    let o = run(&set, &out, &opts(1));
    assert!(!o.results.header.compare_pairwise);
    for r in &o.results.records {
        assert_eq!((r.pairwise_ticks, r.pairwise_over_ticks), (None, None));
        assert!(!r.options.contains("pairwise"), "{}", r.options);
    }
    for f in OUTPUTS {
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(!text.contains("pairwise"), "{f} mentions pairwise");
    }
}
