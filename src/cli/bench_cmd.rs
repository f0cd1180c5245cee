//! `tickopt bench SET... --out DIR` and `tickopt bench merge DIR... --out DIR`.

use crate::bench::export::{family_summaries, fmt_seconds, STATUSES};
use crate::bench::{bw_cell, merge, run_bench, BenchOptions, Progress, Results, RunStatus, Shard};
use crate::instance::Model;
use crate::solve::portfolio::SolverChoice;
use crate::solve::Status;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub sub: Option<BenchSub>,
    /// Instance sets: directories holding a manifest.json, manifest files,
    /// or plain directories of instance files (*.csv, *.json; each at its
    /// own bw, see --bw).
    #[arg(required = true, value_name = "SET")]
    pub sets: Vec<PathBuf>,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Output directory: results.json, results.csv, report.md, report.html, journal.jsonl.
    #[arg(long, short, required = true, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Parallel runs (default: all cores). Records do not depend on it.
    #[arg(long, short, value_name = "N")]
    pub jobs: Option<usize>,
    /// Time limit in seconds for exact searches, per run.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Run only these models (comma-separated), intersected with each
    /// entry's (a set without a manifest lists both).
    #[arg(
        long,
        visible_alias = "model",
        value_delimiter = ',',
        value_name = "MODEL,..."
    )]
    pub models: Option<Vec<Model>>,
    /// Fallback bits per chunk for demands CSVs that record none. Each file
    /// runs at its own bw: the manifest entry's `bw`, else the CSV's
    /// `# copy_bw_bits_per_tick=N` line (gen writes it), else an instance
    /// JSON's own; --bw never overrides those. Each run's bw and its source
    /// are in the reports. Units: a plain integer is bits; K, M, G (x1000
    /// bits), Ki, Mi, Gi (x1024 bits), KB, MB, GB, KiB, MiB, GiB (bytes).
    #[arg(long, value_name = "BITS", value_parser = super::common::parse_bits_arg, allow_negative_numbers = true)]
    pub bw: Option<u64>,
    /// With a link cost model every run also records its predicted seconds
    /// and their ratio to the fluid limit (results.json/.csv, report.md,
    /// report.html). Without the flags an instance JSON's own "cost" object
    /// is used where it has one.
    #[command(flatten)]
    pub cost: super::common::CostArgs,
    /// Reuse the runs already recorded in DIR's journal with the same
    /// instance hash and options; run the rest.
    #[arg(long)]
    pub resume: bool,
    /// Run part I of N (1-based) of the instances, split deterministically.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// copyspace-guard executable: run its `analyze` on each instance and
    /// add its greedy ticks, lower bound and time as columns.
    #[arg(long, value_name = "PATH")]
    pub compare_cg: Option<PathBuf>,
    /// Compare with the pairwise-exchange baseline (the order MoE libraries
    /// run, `--solver pairwise`): round i, rank r sends to (r+i) mod n;
    /// READ1_WRITE1 rounds take their largest transfer's chunks, STRICT1
    /// rounds split into their fewest ticks. Adds its ticks and how many
    /// times fewer ticks tickopt needs (baseline / tickopt) as columns, and
    /// their median and range to report.md.
    #[arg(long)]
    pub compare_pairwise: bool,
    /// Wall-clock limit of one copyspace-guard run, in seconds.
    #[arg(long, default_value_t = 300.0, value_name = "SECONDS")]
    pub cg_timeout: f64,
    /// auto, greedy or exact (as in `tickopt solve`).
    #[arg(long, default_value = "auto")]
    pub solver: SolverChoice,
}

#[derive(Subcommand, Debug)]
pub enum BenchSub {
    /// Merge the outputs of several runs (shards) into one report.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Output directories of the shards.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Directory of the merged outputs.
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,
}

/// Progress on stderr: a bar on a terminal, plain lines otherwise or with NO_COLOR.
enum Reporter {
    Bar(ProgressBar),
    Lines,
}

impl Reporter {
    fn new() -> Reporter {
        let plain = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
            || !std::io::stderr().is_terminal();
        if plain {
            return Reporter::Lines;
        }
        let bar = ProgressBar::new(0);
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40.cyan/blue}] {pos}/{len} {wide_msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Reporter::Bar(bar)
    }

    fn event(&self, p: Progress) {
        match (self, p) {
            (Reporter::Bar(b), Progress::Start { total }) => b.set_length(total as u64),
            (Reporter::Lines, Progress::Start { total }) => eprintln!("bench: {total} runs"),
            (
                r,
                Progress::Done {
                    done,
                    total,
                    record,
                    reused,
                },
            ) => {
                let what = if record.is_failed() {
                    format!(
                        "FAILED: {}",
                        record.error.as_deref().unwrap_or("unknown error")
                    )
                } else {
                    format!(
                        "{} ticks, LB {} ({}), bw {}, {} s{}",
                        record.ticks.unwrap_or(0),
                        record.lower_bound.unwrap_or(0),
                        record.status,
                        bw_cell(record),
                        fmt_seconds(record.seconds),
                        if reused { ", reused" } else { "" }
                    )
                };
                let line = format!(
                    "[{done}/{total}] {}/{} {}: {what}",
                    record.set, record.instance, record.model
                );
                match r {
                    Reporter::Bar(b) => {
                        if record.is_failed() {
                            b.println(&line);
                        }
                        b.set_message(format!(
                            "{}/{} {}",
                            record.set, record.instance, record.model
                        ));
                        b.inc(1);
                    }
                    Reporter::Lines => eprintln!("{line}"),
                }
            }
        }
    }

    fn finish(&self) {
        if let Reporter::Bar(b) = self {
            b.finish_and_clear();
        }
    }
}

/// A status in its own colour on a terminal (the ANSI colours nearest to
/// the reports' ones), plain otherwise or with NO_COLOR.
fn paint(status: RunStatus, text: String) -> String {
    let style = console::Style::new().for_stdout();
    let style = match status {
        RunStatus::Solved(Status::Optimal) => style.green().bold(),
        RunStatus::Solved(Status::OptimalExhaustive) => style.cyan(),
        RunStatus::Solved(Status::WithinOne) => style.yellow(),
        RunStatus::Solved(Status::Feasible) => style.color256(208),
        RunStatus::Failed => style.red().bold(),
    };
    style.apply_to(text).to_string()
}

/// Prints the table of runs (small sets) or of families, and the outputs.
fn print_summary(results: &Results, out: &std::path::Path) {
    let rs = &results.records;
    if rs.len() <= 40 {
        println!(
            "{:<40} {:<12} {:>6} {:>12} {:<24} {:>10} {:>10} {:<18} {:>9}",
            "instance", "model", "slots", "chunks", "bw (from)", "LB", "ticks", "status", "seconds"
        );
        for r in rs {
            println!(
                "{:<40} {:<12} {:>6} {:>12} {:<24} {:>10} {:>10} {} {:>9}",
                format!("{}/{}", r.set, r.instance),
                r.model,
                r.slots.map(|v| v.to_string()).unwrap_or("-".into()),
                r.chunks.map(|v| v.to_string()).unwrap_or("-".into()),
                bw_cell(r),
                r.lower_bound.map(|v| v.to_string()).unwrap_or("-".into()),
                r.ticks.map(|v| v.to_string()).unwrap_or("-".into()),
                paint(r.status, format!("{:<18}", r.status.as_str())),
                fmt_seconds(r.seconds)
            );
        }
    } else {
        let mut header = format!("{:<24} {:>5}", "family", "runs");
        for st in STATUSES {
            header.push_str(&format!(
                " {}",
                paint(
                    st,
                    format!("{:>w$}", st.as_str(), w = st.as_str().len().max(6))
                )
            ));
        }
        println!(
            "{header} {:>12} {:>16} {:>13}",
            "max gap (LB)", "max possible gap", "seconds (sum)"
        );
        for f in family_summaries(rs) {
            let mut line = format!("{:<24} {:>5}", f.family, f.runs);
            for (st, n) in &f.statuses {
                line.push_str(&format!(" {:>w$}", n, w = st.as_str().len().max(6)));
            }
            println!(
                "{line} {:>12} {:>16} {:>13}",
                f.max_gap,
                f.max_possible_gap,
                fmt_seconds(f.seconds_sum)
            );
        }
    }
    println!("results: {}", out.join("results.json").display());
    println!("report:  {}", out.join("report.html").display());
}

/// Exit code: 2 when a run failed, a schedule was invalid or a known
/// optimum was contradicted; 0 otherwise.
fn exit_code(results: &Results) -> u8 {
    let bad = results.records.iter().any(|r| {
        r.is_failed() || r.valid == Some(false) || r.known_check.as_deref() == Some("contradiction")
    });
    if bad {
        2
    } else {
        0
    }
}

pub fn run(a: BenchArgs) -> anyhow::Result<u8> {
    if let Some(BenchSub::Merge(m)) = a.sub {
        let results = merge(&m.dirs, &m.out)?;
        print_summary(&results, &m.out);
        return Ok(exit_code(&results));
    }
    let out = a.out.expect("clap requires --out");
    let jobs = match a.jobs {
        Some(0) => anyhow::bail!("--jobs must be >= 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if !(a.cg_timeout.is_finite() && a.cg_timeout > 0.0) {
        anyhow::bail!("--cg-timeout must be a positive number of seconds");
    }
    if let Some(cg) = &a.compare_cg {
        if !cg.exists() {
            anyhow::bail!("--compare-cg {}: no such file", cg.display());
        }
    }
    let opts = BenchOptions {
        jobs,
        solver: a.solver,
        time_limit: super::solve_cmd::time_limit(a.time_limit)?,
        models: a.models,
        resume: a.resume,
        shard: a.shard,
        compare_cg: a.compare_cg,
        cg_timeout: Duration::from_secs_f64(a.cg_timeout),
        compare_pairwise: a.compare_pairwise,
        bw: a.bw,
        limits: a.limits.to_limits(),
        cost: a.cost.flags_model()?,
    };
    let reporter = Reporter::new();
    let outcome = run_bench(&a.sets, &out, &opts, &|p| reporter.event(p));
    reporter.finish();
    let outcome = outcome?;
    eprintln!(
        "bench: {} runs ({} run now, {} reused from the journal, {} failed)",
        outcome.results.records.len(),
        outcome.ran,
        outcome.reused,
        outcome.failed
    );
    print_summary(&outcome.results, &out);
    Ok(exit_code(&outcome.results))
}
