//! Exact solvers for one port per slot: schedules in the lower bound's
//! ticks (or LB + 1 with a proof), each with the witness that proves it.
//!
//! | file | what it solves |
//! |---|---|
//! | [`koenig`] | READ1_WRITE1, any support: König in Delta ticks (peeled matchings, or Euler splits at few chunks a pair) |
//! | [`strict1_exact`] | STRICT1, any support: the LP/ILP colouring engine of [`crate::colour`], LB or LB + 1 |
//! | `structured` | STRICT1 supports made of paths, cycles, uniform cliques, or a backbone: exact in time linear in the output |
//! | [`orient`] | rounds over undirected STRICT1 edges turned into rounds over demands (shared by the two above) |
//!
//! May use: the solve core (`crate::solve`'s `mod.rs`, `solution.rs`,
//! `status.rs`, `proofs.rs`), [`crate::solve::heuristic`] (König peels an
//! all-to-all's 1-factorisation first), and the layers below `solve`.
//! Multi-port, structure-at-scale and the portfolio use this folder, never
//! the reverse. A new exact one-port solver goes here.

pub mod koenig;
pub mod orient;
pub mod strict1_exact;
pub(in crate::solve) mod structured;
