//! STRICT1 edge colouring of a chunk multigraph: minimum ticks, compact rounds.
//!
//! The chromatic index of the chunk multigraph is `LB = max(Delta, ceil Gamma)`
//! or `LB + 1` (Goldberg-Seymour). [`colour_strict1`] aims at `LB` and proves
//! `LB` infeasible by an exact search when that is small enough.
//!
//! Files, each owning one thing:
//! - `types`: public input/output types;
//! - `check`: the independent validator used by the pipeline and the tests;
//! - `pipeline`: phase order, budgets, choice of the result, proof bookkeeping;
//! - `structure`: exact colourings of paths, cycles and uniform complete
//!   components (circular intervals, round-robin), multiplicity-independent;
//! - `greedy`: compact greedy rounds (fallback, LP start columns);
//! - `kempe`: chunk colouring with a fixed palette (Kempe chains and kicks);
//! - `bipartite_split`: exact bipartite multigraph colouring by Euler splits
//!   (READ1_WRITE1 at small multiplicities);
//! - `blossom`: maximum-weight matching in general graphs (pricing oracle);
//! - `colgen`: fractional colouring LP by column generation on HiGHS;
//! - `rounding`: rounding LP columns down with exact coverage, residual and budget;
//! - `residual`: colouring the residual within budget, releasing repeats on failure;
//! - `assign_ilp`: the `T`-colourability MIP (residual repair and exhaustive proof);
//! - `rounds`: chunk expansion, degrees, colour classes to merged rounds.

mod assign_ilp;
pub mod bipartite_split;
pub mod blossom;
mod check;
mod colgen;
mod greedy;
mod kempe;
mod pipeline;
mod residual;
mod rounding;
mod rounds;
mod structure;
mod types;

pub use crate::rounds::zip_rounds;
pub use check::{check, check_rounds};
pub use greedy::greedy_rounds;
pub use pipeline::{backbone_may_apply, backbone_may_fit, colour_backbone, colour_strict1};
pub use structure::{colour_by_structure, StructureColouring};
pub use types::{ColourInput, ColourStats, Colouring, ExhaustiveProof};

#[cfg(test)]
mod tests;
