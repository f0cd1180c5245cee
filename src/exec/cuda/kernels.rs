//! The device modes on the GPU: NVRTC found and loaded at run time, the
//! kernels of `kernels.cu` compiled for the device at hand, and the
//! launches that run a plan's [`Flow`] (see `exec::flow` for the algorithm
//! and its CPU emulation).
//!
//! Why NVRTC and not shipped PTX: this machine builds without a CUDA
//! toolkit, so no PTX can be produced or checked here; NVRTC compiles for
//! the GPU's own compute capability, and PyTorch's CUDA wheels ship it
//! (`site-packages/nvidia/cu13/lib`, `nvidia/cuda_nvrtc/lib`), so a GPU
//! machine with PyTorch has it. Like the driver, it is loaded at run time:
//! cudarc panics on first use if the library is missing, so [`find_nvrtc`]
//! probes (by name, then `TICKOPT_NVRTC`, then the usual directories) and
//! the modes are refused with [`ExecError::Unavailable`] without it.

use crate::exec::flow::{Flow, Sync};
use crate::exec::ExecError;
use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions, Ptx};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The kernels' source (compiled at run time).
pub(super) const SOURCE: &str = include_str!("kernels.cu");

/// Threads per block of both kernels.
pub(super) const BLOCK: u32 = 512;

/// The compiled kernels on one device, and how many blocks fit at once.
#[derive(Debug)]
pub(super) struct Kernels {
    _module: Arc<CudaModule>,
    dataflow: CudaFunction,
    barrier: CudaFunction,
    /// Blocks of [`BLOCK`] threads resident at once over the whole device
    /// (the largest cooperative grid).
    pub(super) resident: u32,
    /// Where NVRTC came from, for reports.
    pub(super) nvrtc: String,
}

fn dev_err(op: &'static str) -> impl Fn(cudarc::driver::DriverError) -> ExecError {
    move |e| ExecError::Device {
        op: op.to_string(),
        msg: e.to_string(),
    }
}

/// Makes NVRTC loadable by cudarc, or says why not. Tried in order:
/// cudarc's own names (`libnvrtc.so`, `libnvrtc.so.13`, ... on the loader's
/// path); the file named by `TICKOPT_NVRTC`; `libnvrtc.so*` under
/// `$CUDA_HOME/lib64`, `/usr/local/cuda/lib64` and the Python
/// site-packages of `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `/usr`, `/usr/local`,
/// `~/.local` and `/opt/conda` (`nvidia/cu13/lib`, `nvidia/cuda_nvrtc/lib`,
/// `torch/lib`). A file found by path is opened first, so that cudarc's
/// later open by name finds it loaded (by its soname); a library whose
/// soname cudarc does not try is refused here, never a panic later.
pub(super) fn find_nvrtc() -> Result<String, ExecError> {
    // SAFETY: only opens the library by its usual names; no call into it.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Ok("libnvrtc on the loader's path".into());
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("TICKOPT_NVRTC") {
        candidates.push(PathBuf::from(p));
    }
    for dir in search_dirs() {
        candidates.extend(nvrtc_files(&dir));
    }
    for path in &candidates {
        // libnvrtc opens its builtins library by name when it compiles; one
        // found beside it is opened first, so that name is already loaded.
        preload_builtins(path);
        // SAFETY: loading libnvrtc runs its initialisers only; the handle
        // is leaked so the library stays loaded for cudarc to find.
        if let Ok(lib) = unsafe { libloading::Library::new(path) } {
            std::mem::forget(lib);
            // SAFETY: as above.
            if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                return Ok(path.display().to_string());
            }
        }
    }
    Err(ExecError::Unavailable(format!(
        "the device modes compile their kernels with NVRTC, and no usable libnvrtc was found \
         (tried the loader's path, TICKOPT_NVRTC and {} files in the CUDA and Python \
         directories); set TICKOPT_NVRTC=/path/to/libnvrtc.so.13 or LD_LIBRARY_PATH \
         (PyTorch's wheels ship it in site-packages/nvidia/cu13/lib or nvidia/cuda_nvrtc/lib)",
        candidates.len()
    )))
}

/// Opens (and keeps open) the `libnvrtc-builtins.so*` files beside
/// `nvrtc`, CUDA 13 first; a failure only means NVRTC will look itself.
fn preload_builtins(nvrtc: &Path) {
    let Some(Ok(entries)) = nvrtc.parent().map(std::fs::read_dir) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("libnvrtc-builtins") && n.contains(".so") && !n.contains(".alt.")
        })
        .collect();
    files.sort_by_key(|p| !p.to_string_lossy().contains(".so.13"));
    for f in files {
        // SAFETY: the builtins library has no initialiser with effects; the
        // handle is leaked so it stays loaded for libnvrtc.
        if let Ok(lib) = unsafe { libloading::Library::new(&f) } {
            std::mem::forget(lib);
        }
    }
}

/// Directories that may hold libnvrtc (see [`find_nvrtc`]).
fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(p) = std::env::var_os(var) {
            dirs.push(Path::new(&p).join("lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    prefixes.extend(["/usr", "/usr/local", "/opt/conda"].map(PathBuf::from));
    if let Some(h) = std::env::var_os("HOME") {
        prefixes.push(Path::new(&h).join(".local"));
    }
    for prefix in prefixes {
        let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
            continue;
        };
        for e in entries.flatten() {
            if !e.file_name().to_string_lossy().starts_with("python3") {
                continue;
            }
            for site in ["site-packages", "dist-packages"] {
                let sp = e.path().join(site);
                for sub in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "torch/lib"] {
                    dirs.push(sp.join(sub));
                }
            }
        }
    }
    dirs
}

/// `libnvrtc*.so*` files of `dir` (not the builtins), CUDA 13 first.
fn nvrtc_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("libnvrtc")
                && n.contains(".so")
                && !n.contains("builtins")
                && !n.contains(".alt.")
        })
        .collect();
    files.sort_by_key(|p| !p.to_string_lossy().contains(".so.13"));
    files
}

/// Finds NVRTC and compiles `kernels.cu` for `compute_{cc}` (e.g. "90");
/// no GPU needed. Returns the PTX and where NVRTC came from.
pub(super) fn compile(cc: &str) -> Result<(Ptx, String), ExecError> {
    let nvrtc = find_nvrtc()?;
    let opts = CompileOptions {
        options: vec![format!("--gpu-architecture=compute_{cc}")],
        name: Some("kernels.cu".into()),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(SOURCE, opts).map_err(|e| ExecError::Device {
        op: "nvrtcCompileProgram".into(),
        msg: format!("{e:?}"),
    })?;
    Ok((ptx, nvrtc))
}

impl Kernels {
    /// Finds NVRTC, compiles `kernels.cu` for `ctx`'s device and loads it.
    pub(super) fn load(ctx: &Arc<CudaContext>) -> Result<Kernels, ExecError> {
        let (major, minor) = ctx
            .compute_capability()
            .map_err(dev_err("cuDeviceGetAttribute"))?;
        let (ptx, nvrtc) = compile(&format!("{major}{minor}"))?;
        let module = ctx.load_module(ptx).map_err(dev_err("cuModuleLoadData"))?;
        let f = |name| {
            module
                .load_function(name)
                .map_err(dev_err("cuModuleGetFunction"))
        };
        let (dataflow, barrier) = (f("tickopt_dataflow")?, f("tickopt_barrier")?);
        let coop = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
            .map_err(dev_err("cuDeviceGetAttribute"))?;
        if coop != 1 {
            return Err(ExecError::Unavailable(
                "the device modes need cooperative launches, which this GPU does not support"
                    .into(),
            ));
        }
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(dev_err("cuDeviceGetAttribute"))? as u32;
        let per_sm = dataflow
            .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
            .map_err(dev_err("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?
            .min(
                barrier
                    .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
                    .map_err(dev_err("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?,
            );
        let resident = sms * per_sm;
        if resident == 0 {
            return Err(ExecError::Unavailable(
                "no block of the device modes' kernels fits on this GPU".into(),
            ));
        }
        Ok(Kernels {
            _module: module,
            dataflow,
            barrier,
            resident,
            nvrtc: format!("NVRTC from {nvrtc}, compute_{major}{minor}"),
        })
    }
}

/// A plan's flow on the device, ready to launch again and again.
pub(super) struct DeviceFlow {
    sync: Sync,
    grid: u32,
    parts: u32,
    ticks: u32,
    src: CudaSlice<u64>,
    dst: CudaSlice<u64>,
    len: CudaSlice<u64>,
    prev_send: CudaSlice<u32>,
    prev_recv: CudaSlice<u32>,
    tick_start: CudaSlice<u32>,
    queue_start: CudaSlice<u32>,
    queue_items: CudaSlice<u32>,
    /// Completion counters (dataflow, one per transfer) or the barrier
    /// counter (one); zeroed before every launch.
    flags: CudaSlice<u32>,
}

impl DeviceFlow {
    /// Uploads the arrays of `flow` (built with at most `k.resident`
    /// queues). Dataflow: `queues * parts` blocks, `parts = resident /
    /// queues`; barrier: `resident` blocks.
    pub(super) fn new(
        stream: &Arc<CudaStream>,
        k: &Kernels,
        flow: &Flow,
        sync: Sync,
    ) -> Result<DeviceFlow, ExecError> {
        let queues = flow.queues() as u32;
        let (grid, parts) = match sync {
            Sync::Dataflow => {
                let parts = (k.resident / queues).max(1);
                (queues * parts, parts)
            }
            Sync::Barrier => (k.resident, 1),
        };
        let ticks = flow.ticks() as u32;
        if sync == Sync::Barrier && (ticks as u64 + 1) * grid as u64 >= u32::MAX as u64 {
            return Err(ExecError::Options(format!(
                "{ticks} ticks over {grid} blocks overflow the barrier counter"
            )));
        }
        // Empty arrays still get one element (no zero-size allocations).
        let up64 = |v: &[u64]| {
            let v = if v.is_empty() { &[0u64][..] } else { v };
            stream.clone_htod(v).map_err(dev_err("cuMemcpyHtoDAsync"))
        };
        let up32 = |v: &[u32]| {
            let v = if v.is_empty() { &[0u32][..] } else { v };
            stream.clone_htod(v).map_err(dev_err("cuMemcpyHtoDAsync"))
        };
        let flags = stream
            .alloc_zeros::<u32>(flow.transfers().max(1))
            .map_err(dev_err("cuMemAlloc"))?;
        Ok(DeviceFlow {
            sync,
            grid,
            parts,
            ticks,
            src: up64(flow.src())?,
            dst: up64(flow.dst())?,
            len: up64(flow.len())?,
            prev_send: up32(flow.prev_send())?,
            prev_recv: up32(flow.prev_recv())?,
            tick_start: up32(flow.tick_start())?,
            queue_start: up32(flow.queue_start())?,
            queue_items: up32(flow.queue_items())?,
            flags,
        })
    }

    /// Blocks per launch, and blocks per queue (dataflow; 1 for barrier).
    pub(super) fn shape(&self) -> (u32, u32) {
        (self.grid, self.parts)
    }

    /// Zeroes the flags (untimed: call before the start event).
    pub(super) fn reset(&mut self, stream: &Arc<CudaStream>) -> Result<(), ExecError> {
        stream
            .memset_zeros(&mut self.flags)
            .map_err(dev_err("cuMemsetD8Async"))
    }

    /// Enqueues one run of the plan on `stream` over the arena at `arena`.
    pub(super) fn launch(
        &self,
        stream: &Arc<CudaStream>,
        k: &Kernels,
        arena: sys::CUdeviceptr,
    ) -> Result<(), ExecError> {
        let cfg = LaunchConfig {
            grid_dim: (self.grid, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let r = match self.sync {
            Sync::Dataflow => {
                let mut b = stream.launch_builder(&k.dataflow);
                b.arg(&arena)
                    .arg(&self.src)
                    .arg(&self.dst)
                    .arg(&self.len)
                    .arg(&self.prev_send)
                    .arg(&self.prev_recv)
                    .arg(&self.queue_start)
                    .arg(&self.queue_items)
                    .arg(&self.flags)
                    .arg(&self.parts);
                // SAFETY: the arguments match tickopt_dataflow's signature;
                // every offset lies inside the arena (the flow comes from a
                // checked plan over this arena's layout); the grid is at
                // most the resident blocks, and the launch is cooperative.
                unsafe { b.launch_cooperative(cfg) }
            }
            Sync::Barrier => {
                let mut b = stream.launch_builder(&k.barrier);
                b.arg(&arena)
                    .arg(&self.src)
                    .arg(&self.dst)
                    .arg(&self.len)
                    .arg(&self.tick_start)
                    .arg(&self.ticks)
                    .arg(&self.flags);
                // SAFETY: as above, for tickopt_barrier.
                unsafe { b.launch_cooperative(cfg) }
            }
        };
        r.map(|_| ()).map_err(dev_err("cuLaunchCooperativeKernel"))
    }
}
