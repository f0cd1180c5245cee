//! The CUDA executor, present only with the cargo feature `cuda`.
//!
//! `enabled.rs` and `disabled.rs` define the same public items; the
//! disabled one's constructor fails with "not enabled in this build", so
//! callers never need a `cfg` of their own. `kernels.rs` (with
//! `kernels.cu`) holds the device modes' kernels and their launches.

#[cfg(feature = "cuda")]
mod enabled;
#[cfg(feature = "cuda")]
mod kernels;
#[cfg(feature = "cuda")]
pub use enabled::CudaExecutor;

#[cfg(not(feature = "cuda"))]
mod disabled;
#[cfg(not(feature = "cuda"))]
pub use disabled::CudaExecutor;
