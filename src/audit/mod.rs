//! Audits: how far given schedules are from optimal, in one call.
//!
//! This module owns `tickopt audit`'s comparison. It does no mathematics of
//! its own: validity comes from the validator ([`crate::validate`]), the
//! lower bound, its witness and the best schedule from tickopt's own solve
//! ([`crate::solve_instance`]). What it adds is the bookkeeping a user
//! would otherwise do by hand (doc/design.md §3 for the statuses):
//!
//! - `gap_ticks` = schedule ticks - optimum when tickopt's status proves the
//!   optimum (`optimal`, `optimal_exhaustive`); otherwise schedule ticks -
//!   lower bound, flagged `gap_is_upper_estimate` (the true gap may be
//!   smaller, never larger);
//! - `gap_ratio` = `gap_ticks` / reference ticks (copyspace-guard's
//!   `theoretical_gap` convention, so `--max-gap 0.1` means the same);
//! - `ticks_saved` = schedule ticks - tickopt's best ticks (negative when
//!   the schedule beats a schedule tickopt could not prove optimal);
//! - a rank (valid schedules first, then fewer ticks, then input order);
//! - the per-tick utilisation of each schedule (transfers a tick really
//!   holds over the most it can hold; conflicting ones are not load) and
//!   each slot's load (which slot idles, which is the bottleneck), binned
//!   for charts ([`load`]).
//!
//! Reading the schedules is [`read_schedule_facts`] (any format tickopt
//! reads: copyspace-guard JSON and CSV, tickopt compact, MSCCL XML by its
//! dependency levels); the reports are in
//! [`export`], one file per format. Given a two-tier machine, the audit
//! also ranks the schedules against the relayed lower bound ([`relay`]).

pub mod export;
pub mod load;
pub mod relay;

pub use load::{LoadCounter, SlotBusy, SlotLoad, SlotRow, Utilisation, MAX_BUCKETS};

use crate::bounds::Witness;
use crate::instance::{InputError, Instance, Model};
use crate::interop::{read_schedule_file, validate_schedule_file};
use crate::schedule::readers::{stream_schedule_file, ScheduleInput, TickEvent};
use crate::solve::{Solution, Status};
use crate::validate::{RawChunk, ValidationError};
use serde::Serialize;
use std::path::Path;

/// How many validation errors an audit lists per schedule.
pub const FIRST_ERRORS: usize = 5;

/// What was read from one schedule file: the validator's verdict and the
/// per-tick load.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleFacts {
    /// Name in reports (the path as given).
    pub name: String,
    pub valid: bool,
    /// Ticks in the file (valid or not).
    pub ticks: u64,
    pub total_errors: u64,
    pub error_kinds: Vec<String>,
    pub first_errors: Vec<ValidationError>,
    /// One line: `PASS: ...` or the first error.
    pub verdict: String,
    pub utilisation: Utilisation,
    pub slot_load: SlotLoad,
}

/// The most transfers one tick can hold: under STRICT1 every transfer takes
/// two port-uses, so floor(total ports / 2); under READ1_WRITE1 one send
/// port each, so total ports (DESIGN.md §11; ports are 1 in copyspace-guard v0).
pub fn capacity_per_tick(inst: &Instance) -> u64 {
    let ports: u64 = (0..inst.slots as usize).map(|v| inst.port(v) as u64).sum();
    match inst.model {
        Model::Strict1 => ports / 2,
        Model::Read1Write1 => ports,
    }
}

/// Reads and validates one schedule file against `inst` (two streaming
/// passes: the validator, then the per-tick load). `Err` only when the file
/// cannot be read; a wrong schedule is `valid: false` with its errors.
pub fn read_schedule_facts(inst: &Instance, path: &Path) -> Result<ScheduleFacts, InputError> {
    let report = validate_schedule_file(inst, path)?;
    let mut load = LoadCounter::new(inst, report.ticks_total);
    match read_schedule_file(path)? {
        // Version 2: the load of every member, from the classes laid out
        // (a file that cannot be read as a schedule is invalid: no load).
        ScheduleInput::Compact(c) if !c.classes.is_empty() => {
            if let Ok(schedule) = c.to_schedule(inst) {
                let demands = inst.demands();
                for r in &schedule.flat().rounds {
                    let chunks = r.demands.iter().filter_map(|&i| {
                        let d = demands.get(i as usize)?;
                        Some(Some((d.src as i128, d.dst as i128)))
                    });
                    load.ticks(chunks, r.repeat);
                }
            }
        }
        ScheduleInput::Compact(c) => {
            for (repeat, pairs) in &c.rounds {
                let chunks = pairs.iter().map(|&(a, b)| Some((a as i128, b as i128)));
                load.ticks(chunks, *repeat);
            }
        }
        ScheduleInput::Levels(program) => {
            for pairs in &program.ticks {
                let chunks = pairs.iter().map(|&(a, b)| Some((a as i128, b as i128)));
                load.ticks(chunks, 1);
            }
        }
        ScheduleInput::Expanded => {
            stream_schedule_file(path, &mut |event: TickEvent| match event {
                TickEvent::Tick(tick) => {
                    let chunks = tick.iter().map(|c| match c {
                        RawChunk::Chunk { src, dst, .. } => Some((*src, *dst)),
                        RawChunk::Malformed => None,
                    });
                    load.ticks(chunks, 1);
                }
                TickEvent::Empty(run) => load.empty(run),
            })?;
        }
    }
    let (utilisation, slot_load) = load.finish();
    Ok(ScheduleFacts {
        name: path.display().to_string(),
        valid: report.passed(),
        ticks: report.ticks_total,
        total_errors: report.total_errors,
        error_kinds: report
            .error_kinds
            .iter()
            .map(|k| k.as_str().to_string())
            .collect(),
        first_errors: report.errors.iter().take(FIRST_ERRORS).cloned().collect(),
        verdict: report.one_line(),
        utilisation,
        slot_load,
    })
}

/// The gates a schedule must pass (both optional).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Gates {
    /// Largest `gap_ticks` allowed.
    pub max_gap_ticks: Option<u64>,
    /// Largest `gap_ratio` allowed.
    pub max_gap: Option<f64>,
}

/// What the gaps are measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapReference {
    /// The optimum, proven by tickopt's solve.
    Optimum,
    /// The lower bound (optimum not proven): gaps are upper estimates.
    LowerBound,
}

/// One schedule's line in an audit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleAudit {
    pub name: String,
    /// 1 = best. Valid schedules first, then fewer ticks, then input order.
    pub rank: usize,
    pub valid: bool,
    pub schedule_ticks: u64,
    /// Ticks above the reference (`None` for an invalid schedule).
    pub gap_ticks: Option<u64>,
    /// `gap_ticks` / reference ticks.
    pub gap_ratio: Option<f64>,
    /// True when the reference is the lower bound, not a proven optimum.
    pub gap_is_upper_estimate: bool,
    /// Ticks tickopt's schedule saves against this one (negative: this one
    /// is shorter). `None` for an invalid schedule.
    pub ticks_saved: Option<i64>,
    /// Whether the schedule is valid and inside every gate.
    pub passed: bool,
    /// Why it did not pass (empty when it did).
    pub failures: Vec<String>,
    pub verdict: String,
    pub total_errors: u64,
    pub error_kinds: Vec<String>,
    pub first_errors: Vec<ValidationError>,
    pub utilisation: Utilisation,
    pub slot_load: SlotLoad,
}

/// A whole audit: the instance, tickopt's solve, every schedule. This is
/// `audit.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Audit {
    pub tickopt_version: String,
    pub instance: String,
    pub model: Model,
    pub slots: u32,
    pub copy_bw_bits_per_tick: u64,
    pub demands: usize,
    pub chunks: u64,
    /// tickopt's proven lower bound and its witness.
    pub lower_bound: u64,
    pub witness: Witness,
    /// Whether the bound is max(Delta, ceil Gamma) (not cut short).
    pub bound_complete: bool,
    /// The optimum, when tickopt's solve proves it; else `None`.
    pub optimum_ticks: Option<u64>,
    /// Status of tickopt's best schedule (`optimal`, `optimal_exhaustive`,
    /// `within_one`, `feasible`).
    pub optimum_status: Status,
    /// Ticks of tickopt's best schedule.
    pub best_ticks: u64,
    pub solver: String,
    /// What the gaps are measured against.
    pub gap_reference: GapReference,
    /// The reference in ticks (optimum or lower bound).
    pub reference_ticks: u64,
    pub gates: Gates,
    /// Every schedule valid and inside the gates.
    pub passed: bool,
    /// In input order (`rank` gives the ranking).
    pub schedules: Vec<ScheduleAudit>,
    /// Seconds under a cost model, when one is given (doc/design.md §12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<AuditSeconds>,
    /// The pairwise-exchange order's ticks (the baseline MoE libraries run,
    /// `--solver pairwise`), when computed ([`Audit::with_pairwise`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairwise: Option<PairwiseBaseline>,
    /// The relayed lower bound and relay plan, and each valid schedule
    /// against the bound, when the audit is given the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<relay::AuditRelay>,
}

/// The pairwise-exchange baseline against tickopt's best schedule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairwiseBaseline {
    pub ticks: u64,
    /// Baseline ticks over tickopt's best ticks: how many times fewer
    /// ticks tickopt's schedule needs.
    pub times_best: f64,
}

/// An audit in seconds: tickopt's own solve and each valid schedule,
/// against the fluid limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditSeconds {
    /// tickopt's solve in seconds (predicted, the bound over chunk sizes,
    /// the fluid limit).
    pub tickopt: crate::cost::Seconds,
    /// Per schedule, in input order.
    pub schedules: Vec<ScheduleSeconds>,
}

/// One schedule's predicted seconds (ticks x tick time at the instance's
/// chunk size) and its ratio to the fluid limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleSeconds {
    pub name: String,
    pub predicted: f64,
    pub ratio_to_fluid: f64,
}

impl AuditSeconds {
    /// The seconds of `audit`'s schedules under `tickopt`'s cost model.
    pub fn new(audit: &Audit, tickopt: crate::cost::Seconds) -> AuditSeconds {
        let fluid = tickopt.fluid_limit_seconds;
        let schedules = audit
            .schedules
            .iter()
            .filter(|r| r.valid)
            .map(|r| {
                let predicted = r.schedule_ticks as f64 * tickopt.tick_seconds;
                ScheduleSeconds {
                    name: r.name.clone(),
                    predicted,
                    ratio_to_fluid: if fluid > 0.0 { predicted / fluid } else { 0.0 },
                }
            })
            .collect();
        AuditSeconds { tickopt, schedules }
    }
}

/// Whether a status proves the schedule's length optimal.
pub fn proves_optimum(status: Status) -> bool {
    matches!(status, Status::Optimal | Status::OptimalExhaustive)
}

impl Audit {
    /// Compares `schedules` with tickopt's solve `sol` of `inst`.
    pub fn build(
        inst: &Instance,
        instance_name: &str,
        sol: &Solution,
        schedules: Vec<ScheduleFacts>,
        gates: Gates,
    ) -> Audit {
        let proven = proves_optimum(sol.status);
        let (gap_reference, reference_ticks) = if proven {
            (GapReference::Optimum, sol.ticks)
        } else {
            (GapReference::LowerBound, sol.lower_bound.ticks)
        };
        let mut rows: Vec<ScheduleAudit> = schedules
            .into_iter()
            .map(|f| {
                let mut failures = Vec::new();
                let (gap_ticks, gap_ratio, ticks_saved) = if f.valid {
                    let gap = f.ticks.saturating_sub(reference_ticks);
                    let ratio = if reference_ticks == 0 {
                        0.0
                    } else {
                        gap as f64 / reference_ticks as f64
                    };
                    if let Some(max) = gates.max_gap_ticks {
                        if gap > max {
                            failures.push(format!("gap {gap} ticks > --max-gap-ticks {max}"));
                        }
                    }
                    if let Some(max) = gates.max_gap {
                        if ratio > max {
                            failures.push(format!("gap ratio {ratio:.4} > --max-gap {max}"));
                        }
                    }
                    (
                        Some(gap),
                        Some(ratio),
                        Some(f.ticks as i64 - sol.ticks as i64),
                    )
                } else {
                    failures.push(format!("invalid: {}", f.verdict));
                    (None, None, None)
                };
                ScheduleAudit {
                    name: f.name,
                    rank: 0,
                    valid: f.valid,
                    schedule_ticks: f.ticks,
                    gap_ticks,
                    gap_ratio,
                    gap_is_upper_estimate: !proven,
                    ticks_saved,
                    passed: failures.is_empty(),
                    failures,
                    verdict: f.verdict,
                    total_errors: f.total_errors,
                    error_kinds: f.error_kinds,
                    first_errors: f.first_errors,
                    utilisation: f.utilisation,
                    slot_load: f.slot_load,
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by_key(|&i| (!rows[i].valid, rows[i].schedule_ticks, i));
        for (rank, i) in order.into_iter().enumerate() {
            rows[i].rank = rank + 1;
        }
        Audit {
            tickopt_version: env!("CARGO_PKG_VERSION").to_string(),
            instance: instance_name.to_string(),
            model: inst.model,
            slots: inst.slots,
            copy_bw_bits_per_tick: inst.bw,
            demands: inst.demands().len(),
            chunks: inst.total_chunks(),
            lower_bound: sol.lower_bound.ticks,
            witness: sol.lower_bound.witness.clone(),
            bound_complete: sol.bounds.complete,
            optimum_ticks: proven.then_some(sol.ticks),
            optimum_status: sol.status,
            best_ticks: sol.ticks,
            solver: sol.stats.solver.clone(),
            gap_reference,
            reference_ticks,
            gates,
            passed: rows.iter().all(|r| r.passed),
            schedules: rows,
            seconds: None,
            pairwise: None,
            relay: None,
        }
    }

    /// Adds the pairwise-exchange baseline of `inst` (its validated
    /// schedule's ticks); skipped for an instance with nothing to move or
    /// when the baseline's engine fails (an internal error, never a report).
    pub fn with_pairwise(mut self, inst: &Instance) -> Audit {
        self.pairwise = crate::solve::portfolio::pairwise_over(inst, self.best_ticks)
            .map(|(ticks, times_best)| PairwiseBaseline { ticks, times_best });
        self
    }

    /// The schedules in rank order.
    pub fn ranked(&self) -> Vec<&ScheduleAudit> {
        let mut v: Vec<&ScheduleAudit> = self.schedules.iter().collect();
        v.sort_by_key(|r| r.rank);
        v
    }

    /// One sentence on what tickopt knows about the optimum (and the
    /// pairwise baseline, when computed).
    pub fn optimum_sentence(&self) -> String {
        let known = self.known_optimum_sentence();
        match &self.pairwise {
            Some(p) => format!(
                "{known}; pairwise exchange {} ticks ({:.2}x tickopt's)",
                p.ticks, p.times_best
            ),
            None => known,
        }
    }

    fn known_optimum_sentence(&self) -> String {
        match self.optimum_ticks {
            Some(t) => format!(
                "optimum {t} ticks (proven: {}); lower bound {} ({})",
                self.optimum_status,
                self.lower_bound,
                self.witness.kind()
            ),
            None => format!(
                "optimum not proven: tickopt's best {} ticks ({}), lower bound {} ({}); gaps are upper estimates",
                self.best_ticks,
                self.optimum_status,
                self.lower_bound,
                self.witness.kind()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};
    use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};

    fn facts(inst: &Instance, name: &str, valid: bool, ticks: u64) -> ScheduleFacts {
        let mut c = LoadCounter::new(inst, ticks);
        c.empty(ticks);
        let (utilisation, slot_load) = c.finish();
        ScheduleFacts {
            name: name.into(),
            valid,
            ticks,
            total_errors: u64::from(!valid),
            error_kinds: if valid {
                vec![]
            } else {
                vec!["COVERAGE".into()]
            },
            first_errors: vec![],
            verdict: if valid { "PASS".into() } else { "FAIL".into() },
            utilisation,
            slot_load,
        }
    }

    /// K7 under STRICT1: the greedy needs 8 ticks, the odd-set bound is 7.
    /// With only the greedy's solve the optimum is not proven, so gaps are
    /// measured against the bound and flagged as upper estimates.
    #[test]
    fn unproven_optimum_gives_upper_estimates_against_the_bound() {
        let demands = (0..7u32).flat_map(|a| {
            (a + 1..7).map(move |b| Demand {
                src: a,
                dst: b,
                bits: 1024,
            })
        });
        let inst = Instance::new(Model::Strict1, 7, 1024, demands, &Limits::default()).unwrap();
        let request = SolveRequest {
            solver: SolverChoice::Greedy,
            ..Default::default()
        };
        let sol = solve_instance(&inst, &request).unwrap();
        assert_eq!((sol.ticks, sol.lower_bound.ticks), (8, 7));
        assert!(!proves_optimum(sol.status));
        let gates = Gates {
            max_gap_ticks: Some(0),
            max_gap: None,
        };
        let a = Audit::build(
            &inst,
            "k7",
            &sol,
            vec![
                facts(&inst, "eight", true, 8),
                facts(&inst, "bad", false, 6),
                facts(&inst, "seven", true, 7),
            ],
            gates,
        );
        assert_eq!(a.optimum_ticks, None);
        assert_eq!(a.gap_reference, GapReference::LowerBound);
        assert_eq!(a.reference_ticks, 7);
        assert_eq!(a.best_ticks, 8);
        let [eight, bad, seven] = &a.schedules[..] else {
            panic!("three schedules")
        };
        assert_eq!(
            (eight.gap_ticks, eight.ticks_saved, eight.rank),
            (Some(1), Some(0), 2)
        );
        assert!(eight.gap_is_upper_estimate && !eight.passed);
        assert_eq!(
            (seven.gap_ticks, seven.ticks_saved, seven.rank),
            (Some(0), Some(-1), 1)
        );
        assert!(seven.passed);
        // Invalid: no gap, ranked last even with the fewest ticks.
        assert_eq!((bad.gap_ticks, bad.gap_ratio, bad.rank), (None, None, 3));
        assert!(!bad.passed && bad.failures[0].starts_with("invalid"));
        assert!(!a.passed);
        assert!(a.optimum_sentence().contains("optimum not proven"));
    }
}
