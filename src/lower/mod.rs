//! Lowering: a schedule turned into what runtimes execute (DESIGN.md §12).
//!
//! This module owns the one translation from ticks of chunks to byte
//! operations. [`p2p`] gives every rank (slot), per tick, its send and
//! receive operations with byte offsets into one send and one receive
//! buffer; the Python runner, the `p2p-json` export and the MSCCL export all
//! follow it, so they agree on where every byte lives.

pub mod p2p;
