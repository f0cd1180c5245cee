//! Text helpers shared by the HTML reports (`bench` and `audit`) and the
//! MSCCL XML writer (`interop::msccl_xml`): one escaping rule, so every
//! markup tickopt writes treats names from the user alike.

/// `s` with the characters that are special in HTML or XML text and
/// double-quoted attribute values escaped.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
