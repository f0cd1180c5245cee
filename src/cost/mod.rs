//! Seconds, not ticks (doc/design.md §12): the link cost model, the best
//! chunk size with its proof, and the fit of the model to measured ticks.
//!
//! - [`model`]: [`CostModel`], a tick lasts `alpha + chunk_bits / rate`
//!   (defined with the instance, which carries one; re-exported here);
//! - [`chunk`]: the exact search over whole-byte chunk sizes and the
//!   proven bound over all of them;
//! - [`assess`]: what a summary states in seconds about one solve
//!   ([`Seconds`]), built from a solution and checked again by `verify`;
//! - [`calibrate`]: least squares fit of alpha and the rate to executor
//!   reports;
//! - [`dataflow`]: the seconds of a dataflow run (alpha per message, no
//!   tick boundaries), simulated on the lowering's per-rank lists.
//!
//! Per-demand bandwidths (two-tier instances, DESIGN.md §11): the tick time
//! follows the instance bandwidth (`copy_bw_bits_per_tick`), the longest
//! chunk a tick may carry in the common case; chunk sizes are not searched
//! there (scaling all bandwidths together keeps no integer sizes), so the
//! seconds bound is the tick bound times the tick time at the given size.

pub mod assess;
pub mod calibrate;
pub mod chunk;
pub mod dataflow;
/// The link cost model, defined in the instance layer (an instance JSON's
/// `"cost"` object is read into it) and re-exported here.
pub mod model {
    pub use crate::instance::{CostError, CostModel};
}
pub mod plan;

pub use assess::{assess, ChunkMode, Seconds};
pub use chunk::{
    choose_chunk, fluid_limit_seconds, ChunkChoice, ChunkError, ChunkOptions, ChunkRange, StepBound,
};
pub use model::{CostError, CostModel};
pub use plan::{solve_seconds, SecondsError, SecondsRequest, SecondsSolve};
