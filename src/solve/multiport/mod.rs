//! Multi-port slots and per-demand bandwidth (DESIGN.md §11): a tick is an
//! f-matching (slot `v` in at most `ports(v)` transfers), solved exactly
//! by splitting ports, König over ports, grouping one-port ticks, and an
//! f-colouring MIP where nothing cheaper proves the bound.
//!
//! | file | what it does |
//! |---|---|
//! | [`solver`] | the [`Multiport`] solver and [`solve_multiport`], which picks among the methods below |
//! | `port_split` | port splitting, König over ports and the pool mapper |
//! | `bipartite` | STRICT1 on a bipartite support: König, with any ports |
//! | `port_grouping` | uniform ports: `q` consecutive one-port ticks grouped into one |
//! | `euler` | Euler orientation of a simple graph (Hakimi–Kariv's odd edges, the halves' split) |
//! | `port_halves` | uniform even ports on large traffic: two halves of the ports coloured on two threads, laid side by side |
//! | [`first_fit_grouped`] | uniform ports on dense traffic: first fit, then grouping |
//! | `fcolour_ilp` | "do `T` ticks suffice?" for STRICT1 with ports, a HiGHS MIP |
//! | `fcolour_colgen` | the f-colouring by column generation at high multiplicity, residual by the MIP |
//!
//! May use: the solve core (`crate::solve`'s `mod.rs`, `solution.rs`,
//! `status.rs`, `proofs.rs`), [`crate::solve::heuristic`],
//! [`crate::solve::one_port`] (König), [`crate::solve::first_fit`] (not
//! its planner) and the layers below `solve`. The one-port engine an
//! odd-port split needs comes in as an argument ([`OnePort`]), so this
//! folder never imports the portfolio. A new multi-port solver goes here.

mod bipartite;
mod euler;
mod fcolour_colgen;
mod fcolour_ilp;
pub mod first_fit_grouped;
mod port_grouping;
mod port_halves;
mod port_split;
pub mod solver;

pub use solver::{read1_write1_ports, solve_multiport, strict1_even_ports, Multiport, OnePort};
