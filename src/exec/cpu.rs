//! The CPU reference executor: slot buffers in host memory, each tick's
//! copies run in parallel on rayon's pool, timed with the host clock.
//!
//! It exists to prove schedules correct on real bytes (tests run it on
//! every kind of schedule) and as the baseline the CUDA executor is compared
//! with; its timings measure host memcpy, not a cluster.
//!
//! Modes: `host` (the above); `device-barrier` and `device-dataflow` run
//! the device kernels' algorithm on host threads ([`flow::emulate`], one
//! thread per queue, at most [`EMULATION_QUEUES`]) and also check that no
//! transfer started before its port dependencies finished; `graph` needs
//! CUDA and is refused.

use super::data::{initial_arenas, reset_receive_regions, verify};
use super::flow::{self, Flow};
use super::plan::{Layout, Plan, Transfer};
use super::report::{PeakReport, Timings};
use super::{ExecError, ExecMode, ExecOptions, ExecutionReport, Executor};
use rayon::prelude::*;
use std::time::Instant;

/// A tick moving fewer bytes than this runs on the calling thread (rayon's
/// hand-off would cost more than the copies).
const PARALLEL_MIN_BYTES: u64 = 256 << 10;

/// Most host threads (queues) an emulated device mode runs.
pub const EMULATION_QUEUES: usize = 8;

/// Host-memory executor (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CpuExecutor;

impl CpuExecutor {
    pub fn new() -> Self {
        CpuExecutor
    }
}

impl Executor for CpuExecutor {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!(
            "host memory, {} rayon threads",
            rayon::current_num_threads()
        )
    }

    fn devices(&self) -> u32 {
        1
    }

    fn execute(&mut self, plan: &Plan, opts: &ExecOptions) -> Result<ExecutionReport, ExecError> {
        opts.check()?;
        opts.check_size(plan)?;
        match opts.mode {
            ExecMode::Host => {}
            ExecMode::Graph => {
                return Err(ExecError::Unavailable(
                    "the graph mode captures CUDA streams; the cpu executor has none".into(),
                ))
            }
            ExecMode::DeviceBarrier => return self.emulate(plan, opts, flow::Sync::Barrier),
            ExecMode::DeviceDataflow => return self.emulate(plan, opts, flow::Sync::Dataflow),
        }
        let layout = plan.layout();
        let mut arenas = initial_arenas(layout);
        let mut timings = Timings::new(plan, opts.repeat);
        let mut tick_us = Vec::with_capacity(plan.ticks().len());
        for rep in 0..opts.warmup + opts.repeat {
            if rep > 0 {
                reset_receive_regions(layout, &mut arenas);
            }
            tick_us.clear();
            let start = Instant::now();
            for tick in plan.ticks() {
                let t0 = Instant::now();
                run_tick(layout, &mut arenas, tick);
                tick_us.push(t0.elapsed().as_secs_f64() * 1e6);
            }
            let total = start.elapsed().as_secs_f64() * 1e6;
            if rep >= opts.warmup {
                timings.push(&tick_us, total);
            }
        }
        let verification = verify(layout, &arenas);
        Ok(timings.report(
            plan,
            self.name(),
            self.device(),
            "host clock (std::time::Instant) around each tick",
            ExecMode::Host,
            opts.warmup,
            verification,
        ))
    }

    fn peak_copy(&mut self, bytes: u64, opts: &ExecOptions) -> Result<PeakReport, ExecError> {
        opts.check()?;
        if bytes.saturating_mul(2) > opts.max_bytes {
            return Err(ExecError::Options(format!(
                "a peak copy of {bytes} bytes needs twice that, over the limit of {}",
                opts.max_bytes
            )));
        }
        let src = vec![0xA5u8; bytes as usize];
        let mut dst = vec![0u8; bytes as usize];
        let mut samples = Vec::with_capacity(opts.repeat as usize);
        for rep in 0..opts.warmup + opts.repeat {
            let t0 = Instant::now();
            dst.copy_from_slice(&src);
            let us = t0.elapsed().as_secs_f64() * 1e6;
            if rep >= opts.warmup {
                samples.push(us);
            }
        }
        std::hint::black_box(&dst);
        Ok(PeakReport::from_samples(
            self.name().into(),
            self.device(),
            bytes,
            opts.warmup,
            &samples,
        ))
    }
}

impl CpuExecutor {
    /// A device mode emulated on host threads: the plan's [`Flow`] run by
    /// [`flow::emulate`], timed as a whole, its trace checked.
    fn emulate(
        &self,
        plan: &Plan,
        opts: &ExecOptions,
        sync: flow::Sync,
    ) -> Result<ExecutionReport, ExecError> {
        let flow = Flow::new(plan, EMULATION_QUEUES)?;
        let layout = plan.layout();
        let mut arenas = initial_arenas(layout);
        let mut timings = Timings::new(plan, opts.repeat);
        let mut order = Ok(());
        for rep in 0..opts.warmup + opts.repeat {
            if rep > 0 {
                reset_receive_regions(layout, &mut arenas);
            }
            let start = Instant::now();
            let trace = flow::emulate(&flow, &mut arenas[0], sync, 1);
            let total = start.elapsed().as_secs_f64() * 1e6;
            if order.is_ok() {
                order = trace.check(&flow);
            }
            if rep >= opts.warmup {
                timings.push_total(total);
            }
        }
        let mut verification = verify(layout, &arenas);
        if let Err(e) = order {
            verification.passed = false;
            verification.faults.insert(0, format!("port order: {e}"));
        }
        let mode = match sync {
            flow::Sync::Barrier => ExecMode::DeviceBarrier,
            flow::Sync::Dataflow => ExecMode::DeviceDataflow,
        };
        Ok(timings.report(
            plan,
            self.name(),
            format!("host memory, {} emulation threads", flow.queues()),
            "host clock around the emulated kernel (each tick: total / ticks)",
            mode,
            opts.warmup,
            verification,
        ))
    }
}

/// Runs one tick's copies, concurrently when it moves enough bytes.
///
/// The buffers are split into disjoint slices, one per range a copy reads
/// or writes; the plan's check guarantees the ranges of a tick are pairwise
/// disjoint, which is what makes the split (and the parallel copy) safe.
fn run_tick(layout: &Layout, arenas: &mut [Vec<u8>], tick: &[Transfer]) {
    // (device, start, len, copy, is_write)
    let mut ranges: Vec<(usize, usize, usize, usize, bool)> = Vec::with_capacity(2 * tick.len());
    let mut bytes = 0u64;
    for (j, c) in tick.iter().enumerate() {
        if c.len == 0 {
            continue;
        }
        bytes += c.len;
        for (slot, off, write) in [
            (c.src_slot, c.src_offset, false),
            (c.dst_slot, c.dst_offset, true),
        ] {
            ranges.push((
                layout.device_of(slot),
                layout.arena_offset(slot, off) as usize,
                c.len as usize,
                j,
                write,
            ));
        }
    }
    ranges.sort_unstable();
    let mut src: Vec<Option<&[u8]>> = vec![None; tick.len()];
    let mut dst: Vec<Option<&mut [u8]>> = (0..tick.len()).map(|_| None).collect();
    let mut next = ranges.iter().peekable();
    for (d, arena) in arenas.iter_mut().enumerate() {
        let mut rest: &mut [u8] = arena.as_mut_slice();
        let mut pos = 0usize;
        while let Some(&&(dev, start, len, j, write)) = next.peek() {
            if dev != d {
                break;
            }
            next.next();
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(start - pos);
            let (piece, tail) = tail.split_at_mut(len);
            rest = tail;
            pos = start + len;
            if write {
                dst[j] = Some(piece);
            } else {
                src[j] = Some(piece);
            }
        }
    }
    let pairs: Vec<(&[u8], &mut [u8])> = src
        .into_iter()
        .zip(dst)
        .filter_map(|(s, d)| Some((s?, d?)))
        .collect();
    if bytes >= PARALLEL_MIN_BYTES && pairs.len() > 1 {
        pairs
            .into_par_iter()
            .for_each(|(s, d)| d.copy_from_slice(s));
    } else {
        for (s, d) in pairs {
            d.copy_from_slice(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::PlanKind;
    use crate::instance::{Demand, Instance, Limits, Model};

    fn small() -> Instance {
        let d = |src, dst, bits| Demand { src, dst, bits };
        Instance::new(
            Model::Read1Write1,
            3,
            64,
            [d(0, 1, 640), d(1, 2, 640), d(2, 0, 100)],
            &Limits::default(),
        )
        .unwrap()
    }

    fn opts() -> ExecOptions {
        ExecOptions {
            warmup: 0,
            repeat: 1,
            ..ExecOptions::default()
        }
    }

    /// The data check stands on its own: a plan that slips past the plan
    /// checks (built unchecked here) with a copy aimed at the wrong bytes is
    /// caught after the run.
    #[test]
    fn data_check_catches_copies_the_plan_check_would_refuse() {
        let inst = small();
        let sched = crate::solve::greedy::greedy_schedule(&inst);
        let good = Plan::from_schedule(&inst, &sched, 1, 1).unwrap();
        let r = CpuExecutor.execute(&good, &opts()).unwrap();
        assert!(r.verification.passed, "{:?}", r.verification);

        // Shift the source of one copy by one byte inside its region.
        let (kind, layout, mut ticks) = good.clone().into_parts();
        let c = ticks.iter_mut().flatten().find(|c| c.len > 1).unwrap();
        c.src_offset += 1;
        c.len -= 1;
        let bad = Plan::unchecked(kind, layout.clone(), ticks.clone());
        let r = CpuExecutor.execute(&bad, &opts()).unwrap();
        assert!(!r.verification.passed);
        assert_eq!(r.verification.bad_regions, 1);
        assert!(Plan::from_parts(kind, layout.clone(), ticks).is_err());

        // Drop a whole tick.
        let (kind, layout, mut ticks) = good.into_parts();
        ticks.remove(0);
        let r = CpuExecutor
            .execute(&Plan::unchecked(kind, layout, ticks), &opts())
            .unwrap();
        assert!(!r.verification.passed);
        assert!(r.verification.faults[0].contains("differs"));
        assert!(matches!(kind, PlanKind::Scheduled(Model::Read1Write1)));
    }
}
