//! Structure at scale (DESIGN.md §13, issues 29 and 39): paths that read
//! the shape of the whole support before a heuristic sees the instance,
//! so that solve time follows the structure, not the slot count.
//!
//! | file | what it does |
//! |---|---|
//! | `classes` | equal components, grouped by colour refinement and confirmed by an explicit bijection |
//! | `at_scale` | one solve per class of equal components, the rounds shared by its members; a heavy one-sided STRICT1 support to König |
//! | `bit_split` | heavy arbitrary traffic by binary splitting: cost grows with pairs and bits, not chunks |
//! | [`merged`] | READ1_WRITE1 under skew: slots merged first, then König, exact |
//!
//! May use: the solve core (`crate::solve`'s `mod.rs`, `solution.rs`,
//! `status.rs`, `proofs.rs`), [`crate::solve::heuristic`],
//! [`crate::solve::one_port`], [`crate::solve::first_fit`] (not its
//! planner), [`crate::solve::multiport`] and the layers below `solve`.
//! The engine each component is solved with comes in as an argument, so
//! this folder never imports the portfolio.

pub(in crate::solve) mod at_scale;
pub(in crate::solve) mod bit_split;
pub(in crate::solve) mod classes;
pub mod merged;
