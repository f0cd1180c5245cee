//! Heuristics and baselines: schedules with no optimality claim of their
//! own (the [`Solution`](crate::solve::Solution) around them still proves
//! what the bounds allow).
//!
//! | file | what it schedules |
//! |---|---|
//! | [`greedy`] | the load greedy, both models, any support: rounds with repeat counts ([`greedy::Greedy`]) |
//! | [`per_tick_greedy`] | copyspace-guard's greedy, tick by tick (the reference the load greedy is compared with) |
//! | [`dense_greedy`] | STRICT1 on dense one-port matrices: tightest-first, in rounds with repeats |
//! | `factor_peel` | a 1-factorisation peeled off an all-to-all support before the greedy (and König's shifts) |
//! | [`pairwise`] | the pairwise-exchange baseline MoE libraries run today (`--solver pairwise`) |
//!
//! May use: the solve core (`crate::solve`'s `mod.rs`, `solution.rs`,
//! `status.rs`, `proofs.rs`) and the layers below `solve` (`bounds`,
//! `graph`, `instance`, `schedule`, ...). Nothing else under `solve/`:
//! every other folder may use this one. A new heuristic goes here.

pub mod dense_greedy;
pub(in crate::solve) mod factor_peel;
pub mod greedy;
pub mod pairwise;
pub mod per_tick_greedy;
