//! Lowering: a schedule turned into what runtimes execute (DESIGN.md §12).
//!
//! This module owns the one translation from ticks of chunks to byte
//! operations. [`p2p`] gives every rank (slot), per tick, its send and
//! receive operations with byte offsets into one send and one receive
//! buffer; the Python runner, the `p2p-json` export and the MSCCL export all
//! follow it, so they agree on where every byte lives. [`dataflow`] gives
//! the same bytes as each rank's order of sends and of receives, merged into
//! messages, for runners without a global tick (DESIGN.md §14).

pub mod dataflow;
pub mod p2p;
