//! # tickopt
//!
//! Exact lower bounds and optimal schedules for data transfers in GPU
//! clusters. Demands `(src_slot, dst_slot, bits_total)` are cut into chunks
//! of `bw` bits; a tick moves at most one chunk per slot (STRICT1) or one
//! send and one receive per slot (READ1_WRITE1). The minimum number of
//! ticks is the chromatic index of the chunk multigraph (DESIGN.md).
//!
//! Data flows one way: [`instance`] (parse, normalise) -> [`graph`] ->
//! [`bounds`] and [`solve`] -> [`validate`] -> [`schedule`] writers and
//! [`exec`] (replay on real buffers, CPU or CUDA).
//!
//! ```
//! use tickopt::instance::{Demand, Instance, Limits, Model};
//! let demands = [Demand { src: 0, dst: 1, bits: 300 }, Demand { src: 1, dst: 2, bits: 100 }];
//! let inst = Instance::new(Model::Read1Write1, 3, 100, demands, &Limits::default()).unwrap();
//! let sol = tickopt::solve_instance(&inst, &tickopt::SolveRequest::default()).unwrap();
//! assert_eq!(sol.ticks, 3);
//! assert_eq!(sol.status, tickopt::solve::Status::Optimal);
//! ```

pub mod audit;
pub mod bench;
pub mod bounds;
pub mod cli;
pub mod colour;
pub mod cost;
pub mod exec;
pub mod gen;
pub mod graph;
mod html_text;
pub mod instance;
pub mod interop;
pub mod lower;
pub mod proof;
pub mod relay;
pub mod rounds;
pub mod schedule;
pub mod solve;
pub mod units;
pub mod validate;
pub mod verify;

pub use solve::portfolio::{bounds_for, solve_instance, EngineError, SolveRequest, SolverChoice};
