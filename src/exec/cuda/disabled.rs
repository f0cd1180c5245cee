//! Stand-in for the CUDA executor in builds without the `cuda` feature.

use crate::exec::{ExecError, ExecOptions, ExecutionReport, Executor, PeakReport, Plan};

/// The CUDA executor; this build has none, so it cannot be constructed.
#[derive(Debug)]
pub struct CudaExecutor {
    never: std::convert::Infallible,
}

impl CudaExecutor {
    /// Always fails: this build was made without the `cuda` feature.
    pub fn new(_devices: &[usize]) -> Result<CudaExecutor, ExecError> {
        Err(ExecError::Unavailable(
            "the CUDA executor is not enabled in this build; rebuild with `cargo build --release --features cuda`"
                .into(),
        ))
    }
}

impl CudaExecutor {
    /// Always fails: the device modes' kernels need the `cuda` feature.
    pub fn kernels_ptx(_cc: &str) -> Result<String, ExecError> {
        Self::new(&[]).map(|_| String::new())
    }
}

impl Executor for CudaExecutor {
    fn name(&self) -> &'static str {
        match self.never {}
    }
    fn device(&self) -> String {
        match self.never {}
    }
    fn devices(&self) -> u32 {
        match self.never {}
    }
    fn execute(&mut self, _: &Plan, _: &ExecOptions) -> Result<ExecutionReport, ExecError> {
        match self.never {}
    }
    fn peak_copy(&mut self, _: u64, _: &ExecOptions) -> Result<PeakReport, ExecError> {
        match self.never {}
    }
}
