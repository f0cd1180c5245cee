//! Solve in seconds: choose the chunk size (or keep the given one), solve
//! there, and state the seconds with their proof. The one entry point the
//! command line and the Python binding share.

use super::assess::{assess, Seconds};
use super::chunk::{choose_chunk, ChunkError, ChunkOptions, ChunkRange};
use super::model::CostModel;
use crate::instance::{InputError, Instance};
use crate::solve::portfolio::{solve_instance, EngineError, SolveRequest};
use crate::solve::Solution;
use std::time::{Duration, Instant};

/// What to do in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct SecondsRequest {
    pub cost: CostModel,
    /// Choose the chunk size (`--chunk auto`); else keep the instance's.
    pub auto_chunk: bool,
    /// The chunk sizes searched and bounded (whole bytes; defaults: 1 byte
    /// and the largest demand).
    pub min_chunk_bits: Option<u64>,
    pub max_chunk_bits: Option<u64>,
    /// Time the odd-set searches of the chunk search may take in all.
    pub odd_set_time: Option<Duration>,
}

/// Why a solve in seconds failed.
#[derive(Debug, thiserror::Error)]
pub enum SecondsError {
    #[error(transparent)]
    Chunk(#[from] ChunkError),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A solve at the chosen (or given) chunk size and its seconds.
#[derive(Clone, Debug)]
pub struct SecondsSolve {
    /// The instance at the schedule's chunk size.
    pub instance: Instance,
    pub solution: Solution,
    pub seconds: Seconds,
}

/// Time the odd-set searches take without a limit given.
const DEFAULT_ODD_SET_TIME: Duration = Duration::from_secs(10);

/// Solves `inst` under `req` (see [`SecondsRequest`]).
pub fn solve_seconds(
    inst: &Instance,
    req: &SecondsRequest,
    solve: &SolveRequest,
) -> Result<SecondsSolve, SecondsError> {
    let opts = ChunkOptions {
        deadline: Some(Instant::now() + req.odd_set_time.unwrap_or(DEFAULT_ODD_SET_TIME)),
        ..ChunkOptions::default()
    };
    let range = if inst.has_demand_bw() && !req.auto_chunk {
        // Not searched (doc/design.md §12); any valid range will do.
        ChunkRange::default_for(inst)
    } else {
        ChunkRange::given_or_default(inst, req.min_chunk_bits, req.max_chunk_bits)?
    };
    let (at, choice) = if req.auto_chunk {
        let choice = choose_chunk(inst, &req.cost, range, &opts)?;
        (inst.with_bw(choice.search.best.chunk_bits)?, Some(choice))
    } else {
        (inst.clone(), None)
    };
    let solution = solve_instance(&at, solve)?;
    let seconds = assess(
        &at,
        &req.cost,
        solution.ticks,
        &solution.lower_bound,
        choice.as_ref(),
        range,
        &opts,
    )?;
    Ok(SecondsSolve {
        instance: at,
        solution,
        seconds,
    })
}
