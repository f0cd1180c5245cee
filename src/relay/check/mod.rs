//! Checks of relay plans and their proofs that share no code with the
//! planner (`super::plan`) nor the LP (`super::lp`): they read only the
//! instance, the machine and the data they check.

mod certificate;
mod claim;
mod schedule;

pub use certificate::{bound_of_weights, check_certificate, CertificateError};
pub use claim::{check_relay_claim, ClaimLine};
pub use schedule::{validate_relay, RelayInvalid};
