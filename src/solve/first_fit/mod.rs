//! First fit and re-planning: dense skewed one-port traffic (the
//! all-to-all matrices of MoE dispatch) coloured in Delta ticks fast
//! enough to plan inside a training step, and plans kept and edited from
//! one step to the next (DESIGN.md §13).
//!
//! | file | what it does |
//! |---|---|
//! | [`fit`] | first fit in demand order over per-slot free-tick bitsets, alternating-path repair ([`first_fit_schedule`]) |
//! | `halves` | the demands split into two halves of Delta/2 ticks, coloured side by side on two threads |
//! | `tick_table` | the per-tick partner table a planner keeps between plans, with its edits |
//! | [`replan`] | the [`replan::Planner`]: each instance planned by editing the previous plan |
//!
//! May use: the solve core (`crate::solve`'s `mod.rs`, `solution.rs`,
//! `status.rs`, `proofs.rs`) and the layers below `solve`. One file sits
//! above the rest of `solve/`: [`replan`] falls back to the whole
//! [`portfolio`](crate::solve::portfolio) when an edit does not fit, so it
//! may use the portfolio, and nothing under `solve/` uses it. The others
//! sit below multi-port (which groups first fit's ticks) and the
//! portfolio.

pub mod fit;
mod halves;
pub mod replan;
mod tick_table;

pub use fit::{applies, first_fit_schedule, MAX_CHUNKS};
