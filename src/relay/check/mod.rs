//! Checks of relay plans and their proofs that share no code with the
//! planner (`super::plan`) nor the LP (`super::lp`): they read only the
//! instance, the machine and the data they check. `report` words the
//! schedule validator's verdict for `tickopt validate`.

mod certificate;
mod claim;
mod report;
mod schedule;

pub use certificate::{bound_of_weights, check_certificate, CertificateError};
pub use claim::{check_relay_claim, ClaimLine};
pub use report::{RelayErrorKind, RelayReport, RelayReportError};
pub use schedule::{validate_relay, RelayInvalid};
