//! Benchmarks over instance sets: run, record, resume, shard, merge, report.
//!
//! This module owns `tickopt bench`: it reads set manifests
//! ([`manifest`]), runs bounds and a solve for every instance and model in
//! a rayon pool of `jobs` threads ([`run_bench`]), appends each finished
//! record to a journal with an fsync ([`journal`]), and writes
//! `results.json`, `results.csv`, `report.md` and `report.html`
//! ([`export`]) in a canonical record order whatever the thread count.
//! Shards split a run across machines and [`merge`] joins them; `--resume`
//! reuses every record whose run key (set, file, instance hash, model,
//! options) is already in the journal. A set is a directory with a
//! manifest, a manifest file, or a plain directory of instance files
//! ([`Manifest::from_directory`]); each file runs at its own bw (manifest
//! entry, CSV comment line, instance JSON), `--bw` completing CSVs that
//! record none. Optionally copyspace-guard runs on
//! the same instances for a side-by-side comparison ([`cg`]), and the
//! pairwise-exchange baseline for how many times fewer ticks tickopt needs
//! (`compare_pairwise`).
//!
//! The library prints nothing: progress goes through a callback
//! ([`Progress`]), errors are values; a bad manifest entry or instance
//! becomes a `failed` record naming it, and the other runs go on; a set
//! path that does not exist stops the run before anything is written.

pub mod cg;
pub mod export;
pub mod journal;
pub mod manifest;
pub mod record;

pub use export::{bw_cell, write_outputs, Results, ResultsHeader};
pub use manifest::{upsert_entry, Manifest, ManifestEntry};
pub use record::{BenchRecord, CgResult, RunKey, RunStatus};

use crate::instance::{
    is_instance_json, read_instance_bytes, recorded_bw, Instance, Limits, Model, Overrides,
};
use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};
use crate::validate::validate_compact;
use journal::{read_journal, Journal, JOURNAL_FILE};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `--shard I/N`: the `I`-th of `N` parts (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard {s:?}: expected I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How to run a benchmark (plain values; the CLI converts its flags).
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Worker threads (>= 1).
    pub jobs: usize,
    pub solver: SolverChoice,
    pub time_limit: Option<Duration>,
    /// Run only these models (each entry's own list, intersected).
    pub models: Option<Vec<Model>>,
    /// Reuse records already in the output directory's journal.
    pub resume: bool,
    pub shard: Option<Shard>,
    /// copyspace-guard executable to compare with.
    pub compare_cg: Option<PathBuf>,
    /// Wall-clock limit of one copyspace-guard run.
    pub cg_timeout: Duration,
    /// Also schedule every run by the pairwise-exchange baseline (round
    /// `i`, slot `r` sends to `(r + i) mod n`, `--solver pairwise`) and
    /// record its ticks and their ratio to tickopt's.
    pub compare_pairwise: bool,
    /// Bits per chunk for the demands CSVs that record none (no manifest
    /// `bw`, no `# copy_bw_bits_per_tick=N` line): a fallback, never an
    /// override of a file's own bw.
    pub bw: Option<u64>,
    /// Size limits on every instance read.
    pub limits: Limits,
    /// Link cost model (doc/design.md §12): each run also records its
    /// predicted seconds and their ratio to the fluid limit. `None`: an
    /// instance JSON's own `"cost"` where it has one.
    pub cost: Option<crate::cost::CostModel>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            jobs: 1,
            solver: SolverChoice::Auto,
            time_limit: None,
            models: None,
            resume: false,
            shard: None,
            compare_cg: None,
            cg_timeout: Duration::from_secs(300),
            compare_pairwise: false,
            bw: None,
            limits: Limits::default(),
            cost: None,
        }
    }
}

impl BenchOptions {
    /// The options that change a record's content, as one string: runs with
    /// equal keys are interchangeable (resume, merge). Not `jobs`, `shard`
    /// or `resume`, which never change a record.
    pub fn key(&self) -> String {
        let solver = serde_json::to_value(self.solver)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let limit = self
            .time_limit
            .map(|d| format!("{}", d.as_secs_f64()))
            .unwrap_or_else(|| "none".into());
        // The cost model shapes the seconds fields, so records made without
        // it are not reused for a run that has one (and back).
        let cost = self
            .cost
            .map_or_else(|| "instance".to_string(), |c| c.flags());
        // Only a run with the baseline says so: keys (journals, outputs)
        // of runs without it stay as they were before the flag existed.
        let pairwise = if self.compare_pairwise {
            ";pairwise=yes"
        } else {
            ""
        };
        format!(
            "solver={solver};time_limit={limit};cost={cost};cg={}{pairwise};tickopt={}",
            if self.compare_cg.is_some() {
                "yes"
            } else {
                "no"
            },
            env!("CARGO_PKG_VERSION")
        )
    }
}

/// What the progress callback hears.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// The runs are known: `total` of them.
    Start { total: usize },
    /// One run finished (or was reused from the journal: `reused`).
    Done {
        done: usize,
        total: usize,
        record: &'a BenchRecord,
        reused: bool,
    },
}

/// Errors that stop a benchmark (a bad instance never does).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Options(String),
    #[error("{0}")]
    BadSet(String),
    #[error("{path}: no results.json or journal to merge")]
    NothingToMerge { path: String },
    #[error("{path}: {message}")]
    BadResults { path: String, message: String },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The outcome of [`run_bench`].
#[derive(Clone, Debug)]
pub struct BenchOutcome {
    pub results: Results,
    /// Runs executed now.
    pub ran: usize,
    /// Runs taken from the journal (`--resume`).
    pub reused: usize,
    pub failed: usize,
}

/// One unit of work: a run, or a failure known before running.
#[derive(Clone, Debug)]
enum Task {
    Run {
        set: String,
        dir: PathBuf,
        entry: Box<ManifestEntry>,
        model: Model,
    },
    Failed(Box<BenchRecord>),
}

fn failed_record(
    set: &str,
    file: &str,
    name: &str,
    family: &str,
    model: &str,
    options: &str,
    error: String,
) -> BenchRecord {
    BenchRecord {
        set: set.to_string(),
        instance: name.to_string(),
        file: file.to_string(),
        family: family.to_string(),
        instance_hash: String::new(),
        model: model.to_string(),
        options: options.to_string(),
        slots: None,
        demands: None,
        chunks: None,
        bw: None,
        bw_from: None,
        lower_bound: None,
        witness: None,
        ticks: None,
        status: RunStatus::Failed,
        gap_ticks: None,
        ticks_over_bound: None,
        seconds_predicted: None,
        predicted_over_fluid: None,
        known_optimum: None,
        known_check: None,
        valid: None,
        solver: None,
        rounds: None,
        bounds_seconds: 0.0,
        seconds: 0.0,
        tickopt_version: env!("CARGO_PKG_VERSION").to_string(),
        error: Some(error),
        cg: None,
        pairwise_ticks: None,
        pairwise_over_ticks: None,
    }
}

/// Lists the tasks of `sets` for `opts` (shard applied), in canonical order.
fn plan(sets: &[PathBuf], opts: &BenchOptions) -> (Vec<String>, Vec<Task>) {
    let key = opts.key();
    let mut set_names = Vec::new();
    // Units: all models of one entry stay together, so shards split entries.
    let mut units: Vec<Vec<Task>> = Vec::new();
    for set_path in sets {
        let load = if set_path.is_dir() && !set_path.join(manifest::MANIFEST_FILE).exists() {
            Manifest::from_directory(set_path, opts.bw)
        } else {
            Manifest::load(set_path)
        };
        let manifest = match load {
            Ok(m) => m,
            Err(e) => {
                let set = set_path.display().to_string();
                set_names.push(set.clone());
                units.push(vec![Task::Failed(Box::new(failed_record(
                    &set,
                    manifest::MANIFEST_FILE,
                    "(manifest)",
                    "",
                    "",
                    &key,
                    format!("bad manifest: {e}"),
                )))]);
                continue;
            }
        };
        set_names.push(manifest.set.clone());
        let mut entries: Vec<&Result<ManifestEntry, manifest::BadEntry>> =
            manifest.entries.iter().collect();
        entries.sort_by_key(|e| match e {
            Ok(e) => e.file.clone(),
            Err(b) => b.label.clone(),
        });
        for e in entries {
            match e {
                Err(bad) => units.push(vec![Task::Failed(Box::new(failed_record(
                    &manifest.set,
                    &bad.label,
                    &bad.label,
                    "",
                    "",
                    &key,
                    format!(
                        "{}: {}: {}",
                        manifest.path.display(),
                        bad.label,
                        bad.message
                    ),
                )))]),
                Ok(entry) => {
                    let models: Vec<Model> = Model::ALL
                        .into_iter()
                        .filter(|m| entry.models.contains(m))
                        .filter(|m| opts.models.as_ref().is_none_or(|f| f.contains(m)))
                        .collect();
                    units.push(
                        models
                            .into_iter()
                            .map(|model| Task::Run {
                                set: manifest.set.clone(),
                                dir: manifest.dir().to_path_buf(),
                                entry: Box::new(entry.clone()),
                                model,
                            })
                            .collect(),
                    );
                }
            }
        }
    }
    let tasks = units
        .into_iter()
        .enumerate()
        .filter(|(i, _)| match opts.shard {
            None => true,
            Some(s) => (*i as u64 % s.count as u64) + 1 == s.index as u64,
        })
        .flat_map(|(_, u)| u)
        .collect();
    (set_names, tasks)
}

/// Runs one task; `done` holds the reusable records of `--resume`.
fn run_task(
    task: &Task,
    opts: &BenchOptions,
    done: &BTreeMap<RunKey, BenchRecord>,
) -> (BenchRecord, bool) {
    let (set, dir, entry, model) = match task {
        Task::Failed(r) => return ((**r).clone(), false),
        Task::Run {
            set,
            dir,
            entry,
            model,
        } => (set, dir, entry, *model),
    };
    let key = opts.key();
    let fail = |msg: String| {
        failed_record(
            set,
            &entry.file,
            &entry.name,
            &entry.family,
            model.as_str(),
            &key,
            msg,
        )
    };
    let path = dir.join(&entry.file);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            return (
                fail(format!(
                    "bad instance: {}: cannot read: {e}",
                    path.display()
                )),
                false,
            )
        }
    };
    let (bw, bw_from) = match bw_of(&bytes, entry.bw, opts.bw) {
        Ok(b) => b,
        Err(e) => {
            return (
                fail(format!("bad instance: {}: {e}", path.display())),
                false,
            )
        }
    };
    let overrides = Overrides {
        model: Some(model),
        bw,
        slots: entry.slots,
        ports: None,
    };
    let name = path.display().to_string();
    let inst = match read_instance_bytes(&bytes, &name, &overrides, &opts.limits) {
        Ok(i) => i,
        Err(e) => return (fail(format!("bad instance: {e}")), false),
    };
    let hash = crate::proof::instance_sha256(&inst);
    let mut probe = fail(String::new());
    probe.instance_hash = hash.clone();
    if let Some(prev) = done.get(&probe.key()) {
        return (prev.clone(), true);
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        measure(&inst, entry, model, opts)
    }));
    let mut record = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(msg)) => fail(msg),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            fail(format!("internal error (panic): {msg}"))
        }
    };
    record.set = set.clone();
    record.file = entry.file.clone();
    record.instance = entry.name.clone();
    record.family = entry.family.clone();
    record.instance_hash = hash;
    record.options = key;
    record.bw = Some(inst.bw);
    record.bw_from = Some(bw_from.to_string());
    if let Some(cg) = &opts.compare_cg {
        record.cg = Some(cg::run_cg(cg, &inst, opts.cg_timeout));
    }
    (record, false)
}

/// The bandwidth override for one instance file and where the run's bw
/// comes from. A file's own bw wins over the command line: the manifest
/// entry's `bw`, else a CSV's `# copy_bw_bits_per_tick=N` line, else an
/// instance JSON's own field; `--bw` (`fallback`) only completes a CSV that
/// records none. So a set of files made at different bandwidths benches
/// each at its own.
fn bw_of(
    bytes: &[u8],
    entry_bw: Option<u64>,
    fallback: Option<u64>,
) -> Result<(Option<u64>, &'static str), crate::instance::InputError> {
    if let Some(bw) = entry_bw {
        return Ok((Some(bw), "manifest"));
    }
    if is_instance_json(bytes) {
        return Ok((None, "instance json"));
    }
    Ok(match recorded_bw(bytes)? {
        Some(_) => (None, "csv comment"),
        None => (fallback, "--bw"),
    })
}

/// Bounds, solve and validation of one instance under one model.
fn measure(
    inst: &Instance,
    entry: &ManifestEntry,
    model: Model,
    opts: &BenchOptions,
) -> Result<BenchRecord, String> {
    let request = SolveRequest {
        solver: opts.solver,
        time_limit: opts.time_limit,
        keep_classes: false,
    };
    let t1 = Instant::now();
    let sol = solve_instance(inst, &request).map_err(|e| e.to_string())?;
    let seconds = t1.elapsed().as_secs_f64();
    let valid = validate_compact(inst, &sol.schedule).passed();
    let lb = sol.lower_bound.ticks;
    let known = entry.known_optimum.get(&model).copied();
    let known_check = known.map(|k| {
        if sol.ticks < k || lb > k {
            "contradiction"
        } else if sol.ticks == k {
            "match"
        } else {
            "above"
        }
        .to_string()
    });
    let mut r = failed_record("", "", "", "", model.as_str(), "", String::new());
    r.error = None;
    r.slots = Some(inst.slots);
    r.demands = Some(inst.demands().len() as u64);
    r.chunks = Some(inst.total_chunks());
    r.lower_bound = Some(lb);
    r.witness = Some(sol.lower_bound.witness.kind().to_string());
    r.ticks = Some(sol.ticks);
    r.status = RunStatus::Solved(sol.status);
    r.gap_ticks = Some(sol.gap());
    r.ticks_over_bound = Some(if lb == 0 {
        1.0
    } else {
        sol.ticks as f64 / lb as f64
    });
    r.known_optimum = known;
    r.known_check = known_check;
    r.valid = Some(valid);
    r.solver = Some(sol.stats.solver.clone());
    r.rounds = Some(sol.stats.rounds as u64);
    r.bounds_seconds = sol.stats.bounds_seconds;
    r.seconds = seconds;
    if opts.compare_pairwise {
        let base = crate::solve::portfolio::pairwise_over(inst, sol.ticks);
        r.pairwise_ticks = base.map(|(t, _)| t);
        r.pairwise_over_ticks = base.map(|(_, x)| x);
    }
    if let Some(cost) = opts.cost.or(inst.cost) {
        // Tick time at the instance's bw (per-demand bandwidths scale with
        // it, doc/design.md §12); the fluid limit is what no chunking beats.
        let predicted = cost.seconds(sol.ticks, inst.bw);
        let fluid = crate::cost::fluid_limit_seconds(inst, &cost);
        r.seconds_predicted = Some(predicted);
        r.predicted_over_fluid = (fluid > 0.0).then(|| predicted / fluid);
    }
    Ok(r)
}

/// Loads the records an output directory already holds: its journal, else
/// its `results.json`.
pub fn load_records(dir: &Path) -> Result<Vec<BenchRecord>, BenchError> {
    let journal = dir.join(JOURNAL_FILE);
    if journal.exists() {
        return read_journal(&journal).map_err(io_err(&journal));
    }
    let results = dir.join(export::RESULTS_JSON);
    if results.exists() {
        return Ok(export::read_results(&results)?.records);
    }
    Ok(Vec::new())
}

/// Refuses, before anything is run or written, a set path that does not
/// exist and a directory without a manifest that cannot be benched (no
/// instance files, or CSVs without `bw`). A manifest that exists but is
/// broken is not refused here: it becomes a failed record, like a bad entry.
pub fn check_sets(sets: &[PathBuf], opts: &BenchOptions) -> Result<(), BenchError> {
    for p in sets {
        if !p.exists() {
            return Err(BenchError::BadSet(format!(
                "{}: no such set (a directory of instance files, with or without {}, or a manifest file)",
                p.display(),
                manifest::MANIFEST_FILE
            )));
        }
        if p.is_dir() && !p.join(manifest::MANIFEST_FILE).exists() {
            Manifest::from_directory(p, opts.bw).map_err(|e| BenchError::BadSet(e.to_string()))?;
        }
    }
    Ok(())
}

/// Runs the benchmark of `sets` into `out` and writes every output.
/// Set paths are checked first ([`check_sets`]): a bad one is an error and
/// nothing is written.
pub fn run_bench(
    sets: &[PathBuf],
    out: &Path,
    opts: &BenchOptions,
    progress: &dyn Fn(Progress),
) -> Result<BenchOutcome, BenchError> {
    if opts.jobs == 0 {
        return Err(BenchError::Options("--jobs must be >= 1".into()));
    }
    check_sets(sets, opts)?;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let journal_path = out.join(JOURNAL_FILE);
    let previous = if opts.resume {
        load_records(out)?
    } else {
        Vec::new()
    };
    let done: BTreeMap<RunKey, BenchRecord> = previous
        .iter()
        .filter(|r| !r.is_failed())
        .map(|r| (r.key(), r.clone()))
        .collect();
    let mut journal = Journal::create(&journal_path, &previous).map_err(io_err(&journal_path))?;
    let (set_names, tasks) = plan(sets, opts);
    let total = tasks.len();
    progress(Progress::Start { total });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .map_err(|e| BenchError::Options(format!("cannot start {} threads: {e}", opts.jobs)))?;
    let mut records = Vec::with_capacity(total);
    let (mut ran, mut reused) = (0, 0);
    let mut journal_error = None;
    let (tx, rx) = mpsc::channel::<(BenchRecord, bool)>();
    std::thread::scope(|scope| {
        let tasks = &tasks;
        let done = &done;
        scope.spawn(move || {
            pool.install(|| {
                tasks.par_iter().for_each_with(tx, |tx, t| {
                    let _ = tx.send(run_task(t, opts, done));
                })
            })
        });
        for (record, was_reused) in rx {
            if was_reused {
                reused += 1;
            } else {
                ran += 1;
                if journal_error.is_none() {
                    if let Err(e) = journal.append(&record) {
                        journal_error = Some(e);
                    }
                }
            }
            records.push(record);
            progress(Progress::Done {
                done: records.len(),
                total,
                record: records.last().expect("just pushed"),
                reused: was_reused,
            });
        }
    });
    if let Some(e) = journal_error {
        return Err(io_err(&journal_path)(e));
    }
    record::sort_records(&mut records);
    let failed = records.iter().filter(|r| r.is_failed()).count();
    let results = Results {
        header: ResultsHeader {
            tickopt_version: env!("CARGO_PKG_VERSION").to_string(),
            sets: set_names,
            options: vec![opts.key()],
            shard: opts.shard.map(|s| s.to_string()),
            compare_cg: opts.compare_cg.is_some(),
            compare_pairwise: opts.compare_pairwise,
        },
        records,
    };
    write_outputs(out, &results)?;
    Ok(BenchOutcome {
        results,
        ran,
        reused,
        failed,
    })
}

/// Merges the results of several output directories (shards) into `out`:
/// records are joined, duplicates (same run key) kept once, and every
/// output is written, including a journal so `--resume` works on `out`.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Results, BenchError> {
    let mut by_key: BTreeMap<RunKey, BenchRecord> = BTreeMap::new();
    let mut sets: Vec<String> = Vec::new();
    let mut options: BTreeSet<String> = BTreeSet::new();
    let mut compare_cg = false;
    let mut compare_pairwise = false;
    for dir in dirs {
        let results_path = dir.join(export::RESULTS_JSON);
        let (records, header) = if results_path.exists() {
            let r = export::read_results(&results_path)?;
            (r.records, Some(r.header))
        } else if dir.join(JOURNAL_FILE).exists() {
            (load_records(dir)?, None)
        } else {
            return Err(BenchError::NothingToMerge {
                path: dir.display().to_string(),
            });
        };
        if let Some(h) = header {
            for s in h.sets {
                if !sets.contains(&s) {
                    sets.push(s);
                }
            }
            compare_cg |= h.compare_cg;
            compare_pairwise |= h.compare_pairwise;
        }
        for r in records {
            options.insert(r.options.clone());
            compare_cg |= r.cg.is_some();
            compare_pairwise |= r.pairwise_ticks.is_some() || r.options.contains(";pairwise=yes");
            by_key.entry(r.key()).or_insert(r);
        }
    }
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let records: Vec<BenchRecord> = by_key.into_values().collect();
    let journal_path = out.join(JOURNAL_FILE);
    Journal::create(&journal_path, &records).map_err(io_err(&journal_path))?;
    let results = Results {
        header: ResultsHeader {
            tickopt_version: env!("CARGO_PKG_VERSION").to_string(),
            sets,
            options: options.into_iter().collect(),
            shard: None,
            compare_cg,
            compare_pairwise,
        },
        records,
    };
    write_outputs(out, &results)?;
    Ok(results)
}
