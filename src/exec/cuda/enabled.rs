//! The CUDA executor: slot buffers in GPU memory, copies issued on
//! streams, CUDA events around every tick.
//!
//! Mapping: the slots of device `d` (slot `s` on `s % devices`) are
//! consecutive regions of one allocation (an *arena*) on that device. A
//! copy is issued by its destination's device: `cuMemcpyDtoDAsync` when
//! both slots share a device, `cuMemcpyPeerAsync` otherwise (peer access is
//! enabled where `cuDeviceCanAccessPeer` allows; without it the driver
//! stages through the host).
//!
//! Tick barrier: a *main* stream on the first device records a timing
//! event `E[t]` at the start of tick `t`. The first copy of the tick runs on
//! the main stream itself; every further copy runs on its own *lane* (a
//! stream from a per-device pool, one per concurrent copy up to
//! [`MAX_LANES`]), which first waits for `E[t]`; each used lane then records
//! a completion event that the main stream waits for before it records
//! `E[t+1]`. So all copies of a tick may overlap, and tick `t+1` starts
//! only after all of tick `t` has finished; `E[t+1] - E[t]` is the tick's
//! device time, barrier included.
//!
//! Modes: `host` is the above. `graph` captures the same enqueue (copies
//! on lanes, event fences) once as a CUDA graph on the main stream and
//! launches it per repetition, timed by two events around the launch (a
//! graph has no tick events, so each tick is reported as total / ticks).
//! `device-barrier` and `device-dataflow` launch `kernels.cu` over the
//! plan's [`Flow`] (see `kernels.rs`), timed the same way. Graph and
//! device modes run on one device.
//!
//! The driver is loaded at run time (cudarc `dynamic-loading`); cudarc
//! panics on the first call if the library is missing, so
//! [`CudaExecutor::new`] probes for it first and returns
//! [`ExecError::Unavailable`] instead.

use super::kernels::{DeviceFlow, Kernels};
use crate::exec::data::{initial_arenas, verify};
use crate::exec::flow::{self, Flow};
use crate::exec::plan::Plan;
use crate::exec::report::{PeakReport, Timings};
use crate::exec::{ExecError, ExecMode, ExecOptions, ExecutionReport, Executor};
use cudarc::driver::{
    result, sys, CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, DriverError,
};
use std::sync::Arc;

/// Most streams per device a tick's copies are spread over; beyond this,
/// copies share lanes round-robin (and run one after another on a lane).
pub const MAX_LANES: usize = 256;

/// Oldest driver the bindings (CUDA 13.0 API) may call without a missing
/// symbol, as `cuDriverGetVersion` reports it.
const MIN_DRIVER: i32 = 13000;

/// Memory left free on each device besides the arenas.
const DEVICE_MEMORY_MARGIN: u64 = 256 << 20;

/// GPU executor over one or more CUDA devices (see the module docs).
#[derive(Debug)]
pub struct CudaExecutor {
    ordinals: Vec<usize>,
    ctxs: Vec<Arc<CudaContext>>,
    description: String,
    /// The device modes' kernels on device 0, compiled on first use.
    kernels: Option<Kernels>,
}

fn device_err(op: &str) -> impl Fn(DriverError) -> ExecError + '_ {
    move |e| ExecError::Device {
        op: op.to_string(),
        msg: e.to_string(),
    }
}

impl CudaExecutor {
    /// Opens CUDA devices `devices` (ordinals; empty means device 0).
    ///
    /// Fails with [`ExecError::Unavailable`], never a panic, when the
    /// driver library cannot be loaded, is older than CUDA 13.0, or sees no
    /// device; with [`ExecError::Options`] for an ordinal that does not
    /// exist or is listed twice.
    pub fn new(devices: &[usize]) -> Result<CudaExecutor, ExecError> {
        let ordinals: Vec<usize> = if devices.is_empty() {
            vec![0]
        } else {
            devices.to_vec()
        };
        let mut sorted = ordinals.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != ordinals.len() {
            return Err(ExecError::Options("a device is listed twice".into()));
        }
        // SAFETY: only tries to load the driver library by its usual names;
        // no driver function is called.
        if !unsafe { sys::is_culib_present() } {
            return Err(ExecError::Unavailable(
                "no usable CUDA driver: the driver library (libcuda.so) could not be loaded; \
                 the cuda executor needs an NVIDIA GPU and its driver (use --executor cpu otherwise)"
                    .into(),
            ));
        }
        let mut version = 0i32;
        // SAFETY: the library is present; cuDriverGetVersion only writes the int.
        unsafe { sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(|e| ExecError::Unavailable(format!("the CUDA driver does not answer: {e}")))?;
        if version < MIN_DRIVER {
            return Err(ExecError::Unavailable(format!(
                "the CUDA driver supports CUDA {}.{}; this build needs 13.0 or newer",
                version / 1000,
                version % 1000 / 10
            )));
        }
        let count = CudaContext::device_count().map_err(|e| {
            ExecError::Unavailable(format!("the CUDA driver cannot be initialised: {e}"))
        })?;
        if count <= 0 {
            return Err(ExecError::Unavailable(
                "the CUDA driver sees no device".into(),
            ));
        }
        if let Some(&bad) = ordinals.iter().find(|&&o| o >= count as usize) {
            return Err(ExecError::Options(format!(
                "CUDA device {bad} does not exist (this machine has {count})"
            )));
        }
        let mut ctxs = Vec::with_capacity(ordinals.len());
        for &o in &ordinals {
            let ctx = CudaContext::new(o).map_err(device_err("cuDevicePrimaryCtxRetain"))?;
            // SAFETY: this executor orders all its work itself (tick barrier
            // events, a full synchronisation before buffers are reused or
            // freed), so cudarc's per-buffer event tracking is not needed; it
            // is turned off before any buffer exists.
            unsafe { ctx.disable_event_tracking() };
            ctxs.push(ctx);
        }
        let mut peers = 0;
        for a in &ctxs {
            for b in &ctxs {
                if a.ordinal() == b.ordinal() {
                    continue;
                }
                let mut can = 0i32;
                // SAFETY: both devices are valid handles of live contexts.
                unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.cu_device(), b.cu_device()) }
                    .result()
                    .map_err(device_err("cuDeviceCanAccessPeer"))?;
                if can == 1 {
                    a.bind_to_thread().map_err(device_err("cuCtxSetCurrent"))?;
                    // SAFETY: `b` is a live context; enabling twice is reported, not UB.
                    let r = unsafe { sys::cuCtxEnablePeerAccess(b.cu_ctx(), 0) };
                    if r != sys::CUresult::CUDA_SUCCESS
                        && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                    {
                        return Err(device_err("cuCtxEnablePeerAccess")(DriverError(r)));
                    }
                    peers += 1;
                }
            }
        }
        let mut names = Vec::new();
        for c in &ctxs {
            let name = c.name().map_err(device_err("cuDeviceGetName"))?;
            let mem = c.total_mem().map_err(device_err("cuDeviceTotalMem"))?;
            names.push(format!(
                "{name} (device {}, {:.1} GiB)",
                c.ordinal(),
                mem as f64 / (1u64 << 30) as f64
            ));
        }
        let mut description = format!(
            "{}; CUDA driver API {}.{}",
            names.join(", "),
            version / 1000,
            version % 1000 / 10
        );
        if ctxs.len() > 1 {
            description.push_str(&format!(
                "; peer access on {peers} of {} device pairs",
                ctxs.len() * (ctxs.len() - 1)
            ));
        }
        Ok(CudaExecutor {
            ordinals,
            ctxs,
            description,
            kernels: None,
        })
    }

    /// Device ordinals in use, in layout order.
    pub fn ordinals(&self) -> &[usize] {
        &self.ordinals
    }

    /// The device modes' kernels compiled by NVRTC for compute capability
    /// `cc` ("90" for sm_90), as PTX text: needs NVRTC, not a GPU. Fails
    /// with [`ExecError::Unavailable`] without NVRTC.
    pub fn kernels_ptx(cc: &str) -> Result<String, ExecError> {
        super::kernels::compile(cc).map(|(ptx, _)| ptx.to_src())
    }
}

/// Device buffers and streams of one run; dropped after a full synchronisation.
struct Resources {
    main: Arc<CudaStream>,
    /// Per device: the stream uploads and downloads run on (device 0: `main`).
    home: Vec<Arc<CudaStream>>,
    /// Per device: lanes for copies; on device 0, lane 0 is `main`.
    lanes: Vec<Vec<Arc<CudaStream>>>,
    /// Per device and lane: completion event (no timing).
    done: Vec<Vec<CudaEvent>>,
    /// Per device: the arena (None when no slot lives there) and its base pointer.
    arenas: Vec<Option<CudaSlice<u8>>>,
    base: Vec<sys::CUdeviceptr>,
}

impl CudaExecutor {
    fn resources(&self, plan: &Plan) -> Result<Resources, ExecError> {
        let layout = plan.layout();
        let ndev = self.ctxs.len();
        // Copies per tick issued on each device (by the destination's device).
        let mut need = vec![1usize; ndev];
        let mut count = vec![0usize; ndev];
        for tick in plan.ticks() {
            count.iter_mut().for_each(|c| *c = 0);
            for c in tick.iter().filter(|c| c.len > 0) {
                count[layout.device_of(c.dst_slot)] += 1;
            }
            for d in 0..ndev {
                need[d] = need[d].max(count[d].min(MAX_LANES));
            }
        }
        let main = self.ctxs[0]
            .new_stream()
            .map_err(device_err("cuStreamCreate"))?;
        let mut home = Vec::with_capacity(ndev);
        let mut lanes = Vec::with_capacity(ndev);
        let mut done = Vec::with_capacity(ndev);
        let mut arenas = Vec::with_capacity(ndev);
        let mut base = Vec::with_capacity(ndev);
        for (d, ctx) in self.ctxs.iter().enumerate() {
            let h = if d == 0 {
                main.clone()
            } else {
                ctx.new_stream().map_err(device_err("cuStreamCreate"))?
            };
            let mut ls = Vec::with_capacity(need[d]);
            let mut ev = Vec::with_capacity(need[d]);
            for l in 0..need[d] {
                ls.push(if d == 0 && l == 0 {
                    main.clone()
                } else {
                    ctx.new_stream().map_err(device_err("cuStreamCreate"))?
                });
                ev.push(ctx.new_event(None).map_err(device_err("cuEventCreate"))?);
            }
            let bytes = layout.device_bytes[d];
            let (free, _) = ctx.mem_get_info().map_err(device_err("cuMemGetInfo"))?;
            if bytes.saturating_add(DEVICE_MEMORY_MARGIN) > free as u64 {
                return Err(crate::exec::PlanError::TooLarge(format!(
                    "the slot buffers need {bytes} bytes on CUDA device {}, which has {free} free",
                    self.ordinals[d]
                ))
                .into());
            }
            let arena = if bytes > 0 {
                // SAFETY: the memory is written (uploaded) before any read.
                let a =
                    unsafe { h.alloc::<u8>(bytes as usize) }.map_err(device_err("cuMemAlloc"))?;
                let ptr = {
                    // Tracking is off, so the guard records nothing.
                    let (ptr, _guard) = a.device_ptr(&h);
                    ptr
                };
                base.push(ptr);
                Some(a)
            } else {
                base.push(0);
                None
            };
            arenas.push(arena);
            home.push(h);
            lanes.push(ls);
            done.push(ev);
        }
        Ok(Resources {
            main,
            home,
            lanes,
            done,
            arenas,
            base,
        })
    }

    fn upload(&self, r: &mut Resources, host: &[Vec<u8>]) -> Result<(), ExecError> {
        for (d, arena) in r.arenas.iter_mut().enumerate() {
            if let Some(a) = arena {
                r.home[d]
                    .memcpy_htod(&host[d], a)
                    .map_err(device_err("cuMemcpyHtoDAsync"))?;
            }
        }
        for h in &r.home {
            h.synchronize().map_err(device_err("cuStreamSynchronize"))?;
        }
        Ok(())
    }

    fn download(&self, r: &Resources, host: &mut [Vec<u8>]) -> Result<(), ExecError> {
        for (d, arena) in r.arenas.iter().enumerate() {
            if let Some(a) = arena {
                r.home[d]
                    .memcpy_dtoh(a, &mut host[d])
                    .map_err(device_err("cuMemcpyDtoHAsync"))?;
            }
        }
        for h in &r.home {
            h.synchronize().map_err(device_err("cuStreamSynchronize"))?;
        }
        Ok(())
    }

    /// Enqueues one repetition of the plan, recording `marks[t]` at the
    /// start of tick `t` and `marks[T]` at the end (see the module docs).
    fn enqueue(&self, plan: &Plan, r: &Resources, marks: &[CudaEvent]) -> Result<(), ExecError> {
        let layout = plan.layout();
        let ndev = self.ctxs.len();
        let mut current = usize::MAX;
        let mut bind = |d: usize| -> Result<(), ExecError> {
            if current != d {
                self.ctxs[d]
                    .bind_to_thread()
                    .map_err(device_err("cuCtxSetCurrent"))?;
                current = d;
            }
            Ok(())
        };
        let main = r.main.cu_stream();
        let mut issued = vec![0usize; ndev];
        for (t, tick) in plan.ticks().iter().enumerate() {
            bind(0)?;
            // SAFETY (all raw calls below): streams, events and contexts are
            // live for the whole run (owned by `r`, `marks` and `self`); every
            // pointer lies inside an arena, because the plan is checked
            // against the layout the arenas were sized from.
            unsafe { result::event::record(marks[t].cu_event(), main) }
                .map_err(device_err("cuEventRecord"))?;
            issued.iter_mut().for_each(|k| *k = 0);
            for c in tick.iter().filter(|c| c.len > 0) {
                let (sd, dd) = (layout.device_of(c.src_slot), layout.device_of(c.dst_slot));
                let k = issued[dd];
                issued[dd] += 1;
                let lanes = &r.lanes[dd];
                let lane = k % lanes.len();
                let stream = lanes[lane].cu_stream();
                bind(dd)?;
                let on_main = dd == 0 && lane == 0;
                if k < lanes.len() && !on_main {
                    unsafe {
                        result::stream::wait_event(
                            stream,
                            marks[t].cu_event(),
                            sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                        )
                    }
                    .map_err(device_err("cuStreamWaitEvent"))?;
                }
                let src = r.base[sd] + layout.arena_offset(c.src_slot, c.src_offset);
                let dst = r.base[dd] + layout.arena_offset(c.dst_slot, c.dst_offset);
                if sd == dd {
                    unsafe { result::memcpy_dtod_async(dst, src, c.len as usize, stream) }
                        .map_err(device_err("cuMemcpyDtoDAsync"))?;
                } else {
                    unsafe {
                        result::memcpy_peer_async(
                            self.ctxs[dd].cu_ctx(),
                            dst,
                            self.ctxs[sd].cu_ctx(),
                            src,
                            c.len as usize,
                            stream,
                        )
                    }
                    .map_err(device_err("cuMemcpyPeerAsync"))?;
                }
            }
            for (d, &n) in issued.iter().enumerate() {
                for lane in 0..n.min(r.lanes[d].len()) {
                    if d == 0 && lane == 0 {
                        continue;
                    }
                    bind(d)?;
                    let ev = r.done[d][lane].cu_event();
                    unsafe { result::event::record(ev, r.lanes[d][lane].cu_stream()) }
                        .map_err(device_err("cuEventRecord"))?;
                    bind(0)?;
                    unsafe {
                        result::stream::wait_event(
                            main,
                            ev,
                            sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                        )
                    }
                    .map_err(device_err("cuStreamWaitEvent"))?;
                }
            }
        }
        bind(0)?;
        unsafe { result::event::record(marks[plan.ticks().len()].cu_event(), main) }
            .map_err(device_err("cuEventRecord"))?;
        Ok(())
    }
}

impl Executor for CudaExecutor {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn device(&self) -> String {
        self.description.clone()
    }

    fn devices(&self) -> u32 {
        self.ctxs.len() as u32
    }

    fn execute(&mut self, plan: &Plan, opts: &ExecOptions) -> Result<ExecutionReport, ExecError> {
        opts.check()?;
        opts.check_size(plan)?;
        let layout = plan.layout();
        if layout.devices as usize != self.ctxs.len() {
            return Err(ExecError::Options(format!(
                "the plan spreads slots over {} devices, but the executor has {}",
                layout.devices,
                self.ctxs.len()
            )));
        }
        if opts.mode != ExecMode::Host && self.ctxs.len() > 1 {
            return Err(ExecError::Options(format!(
                "the {} mode runs on one device; pass one device or use --mode host",
                opts.mode
            )));
        }
        match opts.mode {
            ExecMode::Host => self.execute_host(plan, opts),
            ExecMode::Graph => self.execute_graph(plan, opts),
            ExecMode::DeviceBarrier => self.execute_kernel(plan, opts, flow::Sync::Barrier),
            ExecMode::DeviceDataflow => self.execute_kernel(plan, opts, flow::Sync::Dataflow),
        }
    }

    fn peak_copy(&mut self, bytes: u64, opts: &ExecOptions) -> Result<PeakReport, ExecError> {
        opts.check()?;
        let ctx = &self.ctxs[0];
        let (free, _) = ctx.mem_get_info().map_err(device_err("cuMemGetInfo"))?;
        if bytes.saturating_mul(2).saturating_add(DEVICE_MEMORY_MARGIN) > free as u64 {
            return Err(ExecError::Options(format!(
                "a peak copy of {bytes} bytes needs twice that on device {}, which has {free} free",
                self.ordinals[0]
            )));
        }
        let stream = ctx.new_stream().map_err(device_err("cuStreamCreate"))?;
        let src = stream
            .alloc_zeros::<u8>(bytes as usize)
            .map_err(device_err("cuMemAlloc"))?;
        let mut dst = stream
            .alloc_zeros::<u8>(bytes as usize)
            .map_err(device_err("cuMemAlloc"))?;
        let start = ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(device_err("cuEventCreate"))?;
        let end = ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(device_err("cuEventCreate"))?;
        let mut samples = Vec::with_capacity(opts.repeat as usize);
        for rep in 0..opts.warmup + opts.repeat {
            start.record(&stream).map_err(device_err("cuEventRecord"))?;
            stream
                .memcpy_dtod(&src, &mut dst)
                .map_err(device_err("cuMemcpyDtoDAsync"))?;
            end.record(&stream).map_err(device_err("cuEventRecord"))?;
            let ms = start
                .elapsed_ms(&end)
                .map_err(device_err("cuEventElapsedTime"))?;
            if rep >= opts.warmup {
                samples.push(ms as f64 * 1e3);
            }
        }
        stream
            .synchronize()
            .map_err(device_err("cuStreamSynchronize"))?;
        Ok(PeakReport::from_samples(
            self.name().into(),
            self.device(),
            bytes,
            opts.warmup,
            &samples,
        ))
    }
}

impl CudaExecutor {
    /// The `host` mode (see the module docs).
    fn execute_host(&self, plan: &Plan, opts: &ExecOptions) -> Result<ExecutionReport, ExecError> {
        let host = initial_arenas(plan.layout());
        let mut res = self.resources(plan)?;
        let ticks = plan.ticks().len();
        let marks = (0..=ticks)
            .map(|_| {
                self.ctxs[0]
                    .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(device_err("cuEventCreate"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut timings = Timings::new(plan, opts.repeat);
        let mut tick_us = vec![0f64; ticks];
        for rep in 0..opts.warmup + opts.repeat {
            // Fresh receive regions every repetition (untimed), so the final
            // check sees only the last repetition's copies.
            self.upload(&mut res, &host)?;
            self.enqueue(plan, &res, &marks)?;
            res.main
                .synchronize()
                .map_err(device_err("cuStreamSynchronize"))?;
            if rep < opts.warmup {
                continue;
            }
            for t in 0..ticks {
                tick_us[t] = marks[t]
                    .elapsed_ms(&marks[t + 1])
                    .map_err(device_err("cuEventElapsedTime"))? as f64
                    * 1e3;
            }
            let total = marks[0]
                .elapsed_ms(&marks[ticks])
                .map_err(device_err("cuEventElapsedTime"))? as f64
                * 1e3;
            timings.push(&tick_us, total);
        }
        let verification = self.finish(plan, res)?;
        Ok(timings.report(
            plan,
            self.name(),
            self.device(),
            "CUDA events on the main stream around every tick",
            ExecMode::Host,
            opts.warmup,
            verification,
        ))
    }
}

impl CudaExecutor {
    /// `opts.warmup + opts.repeat` repetitions of `run`, each on freshly
    /// uploaded buffers: `run` does its untimed preparation, records the
    /// start event it is given on the main stream and enqueues the work;
    /// then an end event, a synchronisation, and (timed repetitions) the
    /// total between the two events.
    fn timed_runs(
        &self,
        plan: &Plan,
        opts: &ExecOptions,
        res: &mut Resources,
        mut run: impl FnMut(&Resources, &CudaEvent) -> Result<(), ExecError>,
    ) -> Result<Timings, ExecError> {
        let ev = || {
            self.ctxs[0]
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(device_err("cuEventCreate"))
        };
        let (start, end) = (ev()?, ev()?);
        let host = initial_arenas(plan.layout());
        let mut timings = Timings::new(plan, opts.repeat);
        for rep in 0..opts.warmup + opts.repeat {
            self.upload(res, &host)?;
            run(res, &start)?;
            end.record(&res.main).map_err(device_err("cuEventRecord"))?;
            res.main
                .synchronize()
                .map_err(device_err("cuStreamSynchronize"))?;
            if rep >= opts.warmup {
                let ms = start
                    .elapsed_ms(&end)
                    .map_err(device_err("cuEventElapsedTime"))?;
                timings.push_total(ms as f64 * 1e3);
            }
        }
        Ok(timings)
    }

    /// Downloads the arena, waits for the device and checks the bytes.
    fn finish(&self, plan: &Plan, res: Resources) -> Result<crate::exec::Verification, ExecError> {
        let mut host = initial_arenas(plan.layout());
        self.download(&res, &mut host)?;
        for ctx in &self.ctxs {
            ctx.synchronize().map_err(device_err("cuCtxSynchronize"))?;
        }
        drop(res);
        Ok(verify(plan.layout(), &host))
    }

    /// The `graph` mode: the host mode's enqueue (copies on lanes, event
    /// fences) captured once on the main stream, then launched once per
    /// repetition between two timing events.
    fn execute_graph(&self, plan: &Plan, opts: &ExecOptions) -> Result<ExecutionReport, ExecError> {
        let mut res = self.resources(plan)?;
        let ticks = plan.ticks().len();
        // Fork events of the capture: recorded inside it, never timed.
        let forks = (0..=ticks)
            .map(|_| {
                self.ctxs[0]
                    .new_event(None)
                    .map_err(device_err("cuEventCreate"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        res.main
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(device_err("cuStreamBeginCapture"))?;
        let enqueued = self.enqueue(plan, &res, &forks);
        // Always end the capture, also when the enqueue failed.
        let graph = res.main.end_capture(sys::CUgraphInstantiate_flags(0));
        enqueued?;
        let graph = graph
            .map_err(device_err("cuStreamEndCapture"))?
            .ok_or_else(|| ExecError::Device {
                op: "cuStreamEndCapture".into(),
                msg: "the capture produced no graph".into(),
            })?;
        graph.upload().map_err(device_err("cuGraphUpload"))?;
        let timings = self.timed_runs(plan, opts, &mut res, |res, start| {
            start
                .record(&res.main)
                .map_err(device_err("cuEventRecord"))?;
            graph.launch().map_err(device_err("cuGraphLaunch"))
        })?;
        drop(graph);
        let verification = self.finish(plan, res)?;
        Ok(timings.report(
            plan,
            self.name(),
            self.device(),
            "CUDA events around each graph launch (each tick: total / ticks)",
            ExecMode::Graph,
            opts.warmup,
            verification,
        ))
    }

    /// The device modes: the plan's [`Flow`] run by one cooperative launch
    /// of `kernels.cu` per repetition, between two timing events.
    fn execute_kernel(
        &mut self,
        plan: &Plan,
        opts: &ExecOptions,
        sync: flow::Sync,
    ) -> Result<ExecutionReport, ExecError> {
        if self.kernels.is_none() {
            self.kernels = Some(Kernels::load(&self.ctxs[0])?);
        }
        let k = self.kernels.as_ref().expect("loaded above");
        let flow = Flow::new(plan, k.resident as usize)?;
        let mut res = self.resources(plan)?;
        let mut dev = DeviceFlow::new(&res.main, k, &flow, sync)?;
        let timings = self.timed_runs(plan, opts, &mut res, |res, start| {
            dev.reset(&res.main)?;
            start
                .record(&res.main)
                .map_err(device_err("cuEventRecord"))?;
            dev.launch(&res.main, k, res.base[0])
        })?;
        let (grid, parts) = dev.shape();
        drop(dev);
        let verification = self.finish(plan, res)?;
        let (mode, what) = match sync {
            flow::Sync::Barrier => (
                ExecMode::DeviceBarrier,
                "a grid barrier per tick".to_string(),
            ),
            flow::Sync::Dataflow => (
                ExecMode::DeviceDataflow,
                format!(
                    "{} queues of {} sender ports, {parts} blocks each",
                    flow.queues(),
                    flow.sender_ports()
                ),
            ),
        };
        Ok(timings.report(
            plan,
            self.name(),
            format!(
                "{}; {}; {grid} blocks of {} threads, {what}",
                self.device(),
                k.nvrtc,
                super::kernels::BLOCK
            ),
            "CUDA events around the kernel launch (each tick: total / ticks)",
            mode,
            opts.warmup,
            verification,
        ))
    }
}
