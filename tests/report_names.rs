//! Reports that read right (issue 30, item 5): bench names its fields
//! `gap_ticks` (ticks - bound) and `ticks_over_bound` (ticks / bound),
//! distinct from audit's `gap_ratio`, and prints no mean for a family whose
//! runs all failed.

mod common;
use common::*;

#[test]
fn bench_fields_are_named_for_what_they_are_and_failed_families_have_no_mean() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("s");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(set.join("a.csv"), "0,1,10\n1,0,10\n").unwrap();
    std::fs::write(
        set.join("manifest.json"),
        r#"{"instances":[{"file":"a.csv","bw":10,"family":"ok"},{"file":"gone.csv","bw":10,"family":"broken"}]}"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = run(&[
        "bench",
        set.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--models",
        "READ1_WRITE1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.contains(",gap_ticks,ticks_over_bound,"), "{header}");
    assert!(!header.contains("gap_ratio"), "{header}");
    let json = std::fs::read_to_string(out.join("results.json")).unwrap();
    assert!(
        json.contains("\"ticks_over_bound\": 1.0") || json.contains("\"ticks_over_bound\":1.0"),
        "{json}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let row = |family: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {family} |")))
            .unwrap_or_else(|| panic!("no {family} row:\n{md}"))
            .to_string()
    };
    assert!(
        row("broken").contains("n/a (no run finished)"),
        "{}",
        row("broken")
    );
    assert!(!row("broken").contains("1.0000"), "{}", row("broken"));
    assert!(row("ok").contains("1.0000"), "{}", row("ok"));
}
