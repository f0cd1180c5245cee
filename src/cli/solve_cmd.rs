//! `tickopt solve`.

use super::common::{
    explain_write_error, parse_chunk_arg, prepare_outputs, CostArgs, InstanceArgs, OutputLimitArgs,
};
use super::summary::{Summary, Timings};
use crate::schedule::writers::check_output_size;
use crate::schedule::{write_schedule, Format};
use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Write the schedule here ("-" for stdout). Nothing is written unless given.
    #[arg(long, short, value_name = "SCHEDULE")]
    pub out: Option<PathBuf>,
    /// Schedule format: json (copyspace-guard schedule JSON), csv
    /// (tick,src_slot,dst_slot,len_bits) or compact (rounds x repeat, see
    /// doc/formats.md). Default: csv for a .csv --out, else json.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Write a JSON summary (ticks, lower_bound, status, witness, ...) here.
    #[arg(long, value_name = "SUMMARY.json")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub limit: OutputLimitArgs,
    /// auto: König for READ1_WRITE1; for STRICT1 the greedy, then the LP/ILP
    /// engine when the greedy misses the lower bound. greedy: the fast
    /// heuristic only. exact: the exact method of the model only. pairwise:
    /// the baseline MoE libraries run (round i: rank r sends to r+i mod n),
    /// to compare against.
    #[arg(long, default_value = "auto", value_name = "SOLVER")]
    pub solver: SolverChoice,
    /// Time limit in seconds for each exact phase (odd-set bound search;
    /// STRICT1 LP column generation, residual repair, exhaustive ILP; default
    /// 10 s each, so a solve can take a few times this). Given, it also ends
    /// the greedy at this long after the solve's start (the rest is finished
    /// by a fast list scheduling) and skips the exact engine after that; the
    /// summary's details.cut_short names the phases cut. When it runs out, the best
    /// schedule so far is returned with an honest status. Results are
    /// deterministic unless a limit fires. Without it no phase is unbounded
    /// either: the exact phases stop at their 10 s defaults, and the greedy
    /// after a fixed work budget (2^33 partner-search steps, counted, not
    /// timed: the same result on every machine), finishing by list
    /// scheduling as at a deadline.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Worker threads (default: all cores). Output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub cost: CostArgs,
    #[command(flatten)]
    pub chunk: ChunkArgs,
    #[command(flatten)]
    pub relay: super::relay_cmd::RelayArgs,
}

/// How the chunk size is set (doc/design.md §12).
#[derive(Args, Debug, Clone, Default)]
pub struct ChunkArgs {
    /// given: the instance's (or --bw) chunk size. auto: the whole-byte size
    /// between --min-chunk and --max-chunk that minimises predicted seconds
    /// under the cost model (--alpha-us/--link-gbps or the instance's
    /// "cost"), chosen by an exact search with a proven bound over every
    /// size; the schedule and summary use it.
    #[arg(long, value_name = "MODE", default_value = "given", value_parser = ["given", "auto"])]
    pub chunk: String,
    /// Smallest chunk size searched and bounded (default 1 byte). Units: a
    /// plain integer is bits; 64B, 4KiB, 1MB are bytes; whole bytes only.
    #[arg(long, value_name = "SIZE", value_parser = parse_chunk_arg)]
    pub min_chunk: Option<u64>,
    /// Largest chunk size searched and bounded (default: the largest
    /// demand, rounded up to a byte). Units as --min-chunk.
    #[arg(long, value_name = "SIZE", value_parser = parse_chunk_arg)]
    pub max_chunk: Option<u64>,
}

impl ChunkArgs {
    pub fn auto(&self) -> bool {
        self.chunk == "auto"
    }

    /// The library's request, given a cost model.
    pub fn request(
        &self,
        cost: crate::cost::CostModel,
        time_limit: Option<Duration>,
    ) -> crate::cost::SecondsRequest {
        crate::cost::SecondsRequest {
            cost,
            auto_chunk: self.auto(),
            min_chunk_bits: self.min_chunk,
            max_chunk_bits: self.max_chunk,
            odd_set_time: time_limit,
        }
    }

    /// Refuses range flags that nothing would read.
    pub fn check(&self, cost_given: bool) -> anyhow::Result<()> {
        if self.auto() && !cost_given {
            anyhow::bail!("--chunk auto needs a cost model: --alpha-us A --link-gbps G, or a \"cost\": {{\"alpha_us\": A, \"link_gbps\": G}} object in the instance JSON");
        }
        if !cost_given && (self.min_chunk.is_some() || self.max_chunk.is_some()) {
            anyhow::bail!("--min-chunk/--max-chunk bound the chunk sizes of the seconds search: they need a cost model (--alpha-us and --link-gbps)");
        }
        Ok(())
    }
}

/// The instance overrides for a solve with `--chunk auto`: a demands CSV
/// with no bandwidth of its own is read at 8 bits (any size will do, the
/// search sets the real one) instead of being refused for lacking --bw.
pub fn chunk_auto_overrides(
    path: &std::path::Path,
    mut overrides: crate::instance::Overrides,
) -> anyhow::Result<crate::instance::Overrides> {
    if overrides.bw.is_none() {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if !json && matches!(crate::instance::recorded_bw(&bytes), Ok(None)) {
            overrides.bw = Some(8);
        }
    }
    Ok(overrides)
}

/// Sets the size of rayon's global pool (once per process).
pub fn set_threads(threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = threads {
        if n == 0 {
            anyhow::bail!("--threads must be >= 1");
        }
        // Fails only if the pool was already built, which is harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    Ok(())
}

/// Parses `--time-limit`.
pub fn time_limit(seconds: Option<f64>) -> anyhow::Result<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => anyhow::bail!("--time-limit must be a positive number of seconds, got {s}"),
    }
}

pub fn run(a: SolveArgs) -> anyhow::Result<u8> {
    set_threads(a.threads)?;
    let limit = time_limit(a.time_limit)?;
    let format = a.out.as_ref().map(|out| {
        a.format
            .unwrap_or(match out.extension().and_then(|e| e.to_str()) {
                Some("csv") => Format::Csv,
                _ => Format::Json,
            })
    });
    let request = SolveRequest {
        solver: a.solver,
        time_limit: limit,
        // The compact form stores equal components' rounds once (format
        // v2); the expanded forms need every transfer anyway.
        keep_classes: matches!(format, None | Some(Format::Compact)),
    };
    // Every output is checked (and its temporary file created) before any
    // work; nothing appears under an output name before the end.
    let [out_file, summary_file] = prepare_outputs([a.out.as_deref(), a.summary.as_deref()])?;
    let phases = super::progress::Phases::start("reading the instance");
    let t_parse = Instant::now();
    let mut overrides = a.instance.overrides.to_overrides();
    if a.chunk.auto() {
        overrides = chunk_auto_overrides(&a.instance.input, overrides)?;
    }
    let read = super::common::load_instance_recorded(
        &a.instance.input,
        &overrides,
        &a.instance.limits.to_limits(),
    )?;
    let inst = read.instance;
    let parse_seconds = t_parse.elapsed().as_secs_f64();
    if let Some(tt) = a.relay.machine(&read.machine, &a.instance.input)? {
        if matches!(format, Some(f) if f != Format::Json) {
            anyhow::bail!("a relay schedule is written as JSON only (doc/formats.md, \"Relay schedule\"): leave out --format or give json");
        }
        drop(phases);
        return super::relay_cmd::solve(&inst, tt, out_file, summary_file);
    }
    let cost = a.cost.model(&inst)?;
    a.chunk.check(cost.is_some())?;
    phases.phase(format!(
        "bounds and solve ({} slots, {} chunks{})",
        inst.slots,
        inst.total_chunks(),
        if a.chunk.auto() {
            ", chunk size search"
        } else {
            ""
        }
    ));
    let t_solve = Instant::now();
    let (inst, sol, seconds) = match cost {
        Some(cost) => {
            let r = crate::cost::solve_seconds(&inst, &a.chunk.request(cost, limit), &request)?;
            (r.instance, r.solution, Some(r.seconds))
        }
        None => {
            let sol = solve_instance(&inst, &request)?;
            (inst, sol, None)
        }
    };
    let solve_seconds = t_solve.elapsed().as_secs_f64();
    phases.phase("writing");
    let t_write = Instant::now();
    let mut summary = Summary::new(
        &inst,
        Some(a.instance.input.display().to_string()),
        &sol.bounds,
        &sol,
    );
    if let Some(s) = seconds {
        summary = summary.with_seconds(s);
    }
    let mut out_file = out_file;
    if let (Some(format), Some(file)) = (format, &mut out_file) {
        // Valid and within the size limit, or nothing is written at all.
        // The remedy that applies: a compact schedule is already the
        // smallest form (its size grows with rounds x pairs).
        let hint = match format {
            Format::Compact => {
                " (the compact form is already the smallest tickopt writes: its size grows with rounds x pairs)"
            }
            _ => ", or write only the rounds with --format compact",
        };
        // `sol` comes from `solve_instance` (directly or through the chunk
        // search), which validated it against `inst` as its last step:
        // only the size is left to check.
        check_output_size(&inst, &sol.schedule, format, a.limit.max_output_bytes)
            .map_err(|e| explain_write_error(e, hint))?;
        file.write(|w| write_schedule(&inst, &sol.schedule, format, w))
            .with_context(|| format!("cannot write {}", file.shown()))?;
    }
    let bounds = sol.stats.bounds_seconds;
    let validate = sol.stats.validate_seconds;
    summary.timings = Some(Timings {
        parse: parse_seconds,
        bounds,
        solve: (solve_seconds - bounds - validate).max(0.0),
        validate,
        write: t_write.elapsed().as_secs_f64(),
    });
    let mut summary_file = summary_file;
    if let Some(file) = &mut summary_file {
        let json = serde_json::to_string_pretty(&summary)?;
        file.write(|w| {
            w.write_all(json.as_bytes())?;
            w.write_all(b"\n")
        })
        .with_context(|| format!("cannot write {}", file.shown()))?;
    }
    for file in [out_file, summary_file].into_iter().flatten() {
        let shown = file.shown().to_string();
        file.commit()
            .with_context(|| format!("cannot write {shown}"))?;
    }
    drop(phases);
    eprintln!("{}", summary.one_line());
    Ok(0)
}
