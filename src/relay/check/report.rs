//! The relay validator's verdict as a report (what `tickopt validate`
//! prints for a relay schedule): PASS with the schedule's size, or FAIL
//! with the validator's error and its kind. The validator stops at its
//! first error, so a FAIL lists one.

use super::schedule::{validate_relay, RelayInvalid};
use crate::instance::{Instance, Model};
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelaySchedule;
use crate::validate::Verdict;
use serde::Serialize;

/// What is wrong with a relay schedule, by kind (named as the direct
/// validator names its kinds where one fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RelayErrorKind {
    /// A chunk of a demand or a chunk index the instance does not have.
    Struct,
    /// A chunk listed twice.
    Extras,
    /// A route that is not the model's (wrong ends, not chained, ticks
    /// not increasing, past the length, wrong shape).
    Route,
    /// A NIC side carrying more than one chunk in a tick.
    #[serde(rename = "READ1_WRITE1")]
    Read1Write1,
    /// An NVLink side carrying more than rho chunks in a tick.
    Nvlink,
    /// A demand whose chunks are not all delivered.
    Coverage,
    /// The instance does not fit the machine (STRICT1, G not dividing the
    /// slots, several ports).
    Machine,
}

impl RelayErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RelayErrorKind::Struct => "STRUCT",
            RelayErrorKind::Extras => "EXTRAS",
            RelayErrorKind::Route => "ROUTE",
            RelayErrorKind::Read1Write1 => "READ1_WRITE1",
            RelayErrorKind::Nvlink => "NVLINK",
            RelayErrorKind::Coverage => "COVERAGE",
            RelayErrorKind::Machine => "MACHINE",
        }
    }

    /// The kind of a validator error.
    pub fn of(e: &RelayInvalid) -> RelayErrorKind {
        match e {
            RelayInvalid::UnknownDemand { .. } | RelayInvalid::UnknownChunk { .. } => {
                RelayErrorKind::Struct
            }
            RelayInvalid::Duplicate { .. } => RelayErrorKind::Extras,
            RelayInvalid::Route { .. } => RelayErrorKind::Route,
            RelayInvalid::Port { port, .. } if port.starts_with("NIC") => {
                RelayErrorKind::Read1Write1
            }
            RelayInvalid::Port { .. } => RelayErrorKind::Nvlink,
            RelayInvalid::Coverage { .. } => RelayErrorKind::Coverage,
            RelayInvalid::Machine(_) => RelayErrorKind::Machine,
        }
    }
}

/// One error of a relay report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelayReportError {
    pub kind: RelayErrorKind,
    pub msg: String,
}

/// The validator's verdict on a relay schedule, with its size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelayReport {
    pub status: Verdict,
    /// Always `relay_schedule`: what was validated.
    pub schedule_kind: &'static str,
    pub model: Model,
    pub gpus_per_node: u32,
    pub nvlink_speedup: u32,
    pub ticks_total: u64,
    pub chunks: u64,
    /// Chunks with more than one hop (through a GPU of a node).
    pub relayed_chunks: u64,
    pub nic_hops: u64,
    pub nvlink_hops: u64,
    /// The validator's error (it stops at the first): empty on PASS.
    pub errors: Vec<RelayReportError>,
    pub total_errors: u64,
}

impl RelayReport {
    /// Validates `s` against `inst` on `tt` ([`validate_relay`]) and counts
    /// its chunks and hops.
    pub fn of(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> RelayReport {
        let g = tt.gpus_per_node.max(1);
        let (mut relayed, mut nic, mut nvlink) = (0u64, 0u64, 0u64);
        let mut chunks = 0u64;
        for r in &s.runs {
            // A run is `count` chunks on one route, one tick apart.
            let (hops, n) = (r.hops(), r.count);
            chunks = chunks.saturating_add(n);
            if hops.len() > 1 {
                relayed = relayed.saturating_add(n);
            }
            for h in hops {
                if h.from / g == h.to / g {
                    nvlink = nvlink.saturating_add(n);
                } else {
                    nic = nic.saturating_add(n);
                }
            }
        }
        let errors: Vec<RelayReportError> = validate_relay(inst, tt, s)
            .err()
            .map(|e| RelayReportError {
                kind: RelayErrorKind::of(&e),
                msg: e.to_string(),
            })
            .into_iter()
            .collect();
        RelayReport {
            status: if errors.is_empty() {
                Verdict::Pass
            } else {
                Verdict::Fail
            },
            schedule_kind: crate::relay::schedule::KIND,
            model: inst.model,
            gpus_per_node: tt.gpus_per_node,
            nvlink_speedup: tt.nvlink_speedup,
            ticks_total: s.ticks,
            chunks,
            relayed_chunks: relayed,
            nic_hops: nic,
            nvlink_hops: nvlink,
            total_errors: errors.len() as u64,
            errors,
        }
    }

    pub fn passed(&self) -> bool {
        self.status == Verdict::Pass
    }

    /// One line, as the direct validator's: `PASS: relay schedule, ...` or
    /// `FAIL: 1 error(s) [KIND]: KIND: message`.
    pub fn one_line(&self) -> String {
        match self.errors.first() {
            None => format!(
                "PASS: relay schedule, {} ticks, {} chunks ({} relayed; {} NIC and {} NVLink hops) on nodes of {} GPUs, NVLink x{}",
                self.ticks_total,
                self.chunks,
                self.relayed_chunks,
                self.nic_hops,
                self.nvlink_hops,
                self.gpus_per_node,
                self.nvlink_speedup
            ),
            Some(e) => format!(
                "FAIL: {} error(s) [{}]: {}: {}",
                self.total_errors,
                e.kind.as_str(),
                e.kind.as_str(),
                e.msg
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};
    use crate::relay::schedule::{Hop, RelayRun};

    /// 4 GPUs in nodes of 2: one chunk 0 -> 3, relayed 0 -> 1 -> 2 -> 3.
    fn case() -> (Instance, TwoTier, RelaySchedule) {
        let d = [Demand {
            src: 0,
            dst: 3,
            bits: 8,
        }];
        let inst = Instance::new(Model::Read1Write1, 4, 8, d, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: 2,
            nvlink_speedup: 1,
        };
        let hops = [(0, 0, 1), (1, 1, 2), (2, 2, 3)].map(|(tick, from, to)| Hop { tick, from, to });
        let s = RelaySchedule {
            ticks: 3,
            runs: vec![RelayRun::new(0, 0, 1, &hops).unwrap()],
        };
        (inst, tt, s)
    }

    #[test]
    fn a_valid_relay_passes_with_its_hops_counted() {
        let (inst, tt, s) = case();
        let r = RelayReport::of(&inst, tt, &s);
        assert!(r.passed(), "{}", r.one_line());
        assert_eq!((r.relayed_chunks, r.nic_hops, r.nvlink_hops), (1, 1, 2));
        assert!(r
            .one_line()
            .starts_with("PASS: relay schedule, 3 ticks, 1 chunks"));
    }

    #[test]
    fn a_hop_before_its_predecessor_fails_as_a_route_error() {
        let (inst, tt, mut s) = case();
        s.runs[0].hops_mut()[1].tick = 0;
        let r = RelayReport::of(&inst, tt, &s);
        assert!(!r.passed());
        assert_eq!(r.errors[0].kind, RelayErrorKind::Route);
        assert!(
            r.one_line().contains("FAIL: 1 error(s) [ROUTE]"),
            "{}",
            r.one_line()
        );
        assert!(
            r.one_line().contains("does not follow hop 0"),
            "{}",
            r.one_line()
        );
    }

    #[test]
    fn a_length_of_many_empty_ticks_is_checked_without_a_bucket_each() {
        let (inst, tt, mut s) = case();
        s.ticks = u64::MAX;
        assert!(RelayReport::of(&inst, tt, &s).passed());
        // Two chunks on one NIC in one tick, in a mostly empty schedule.
        let two = Demand {
            src: 0,
            dst: 3,
            bits: 16,
        };
        let inst = Instance::new(Model::Read1Write1, 4, 8, [two], &Limits::default()).unwrap();
        let hop = [Hop {
            tick: 7,
            from: 0,
            to: 3,
        }];
        let s = RelaySchedule {
            ticks: 1 << 40,
            runs: vec![
                RelayRun::new(0, 0, 1, &hop).unwrap(),
                RelayRun::new(0, 1, 1, &hop).unwrap(),
            ],
        };
        let r = RelayReport::of(&inst, tt, &s);
        assert_eq!(
            r.errors[0].kind,
            RelayErrorKind::Read1Write1,
            "{}",
            r.one_line()
        );
        assert!(r
            .one_line()
            .contains("tick 7: GPU 0's NIC out carries 2 chunks"));
    }
}
