//! Text helpers shared by the HTML reports (`bench` and `audit`): one
//! escaping rule, so both reports treat names from the user alike.

/// `s` with the characters that are special in HTML text and attribute
/// values escaped.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
