//! `tickopt audit`'s report.html and the numbers behind it: the legend
//! names only what the chart shows, utilisation counts only transfers a
//! tick can hold, the per-slot view names the bottleneck, and the page fits
//! an 810 px window in a real browser (headless Chromium, when installed).

mod common;
use common::{s, tickopt};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Slot 0 sends one chunk to each of 1, 2, 3 (the bottleneck: optimum 3
/// ticks), and 4 sends one to 5. STRICT1, 6 slots: 3 transfers per tick.
const STAR: &str = "# copy_bw_bits_per_tick=1024
src_slot,dst_slot,bits_total
0,1,1024
0,2,1024
0,3,1024
4,5,1024
";

/// Optimal: 2 + 1 + 1 transfers in 3 ticks.
const OPTIMAL: &str = "tick,src_slot,dst_slot,len_bits
0,0,1,1024
0,4,5,1024
1,0,2,1024
2,0,3,1024
";

/// Invalid: slot 0 twice in tick 0. The second transfer is not load.
const CONFLICTING: &str = "tick,src_slot,dst_slot,len_bits
0,0,1,1024
0,0,2,1024
0,4,5,1024
1,0,3,1024
";

struct Case {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Case {
    fn new() -> Case {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        std::fs::write(dir.join("star.csv"), STAR).unwrap();
        std::fs::write(dir.join("optimal.csv"), OPTIMAL).unwrap();
        std::fs::write(dir.join("conflicting.csv"), CONFLICTING).unwrap();
        Case { _tmp: tmp, dir }
    }

    fn p(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Audits `schedules` into `out` (extra flags after), returns the exit
    /// code, report.html and audit.json.
    fn audit(&self, out: &str, schedules: &[&str], extra: &[&str]) -> (i32, String, Value) {
        let inst = self.p("star.csv");
        let out = self.p(out);
        let paths: Vec<PathBuf> = schedules.iter().map(|f| self.p(f)).collect();
        let mut args = vec!["audit", s(&inst)];
        args.extend(paths.iter().map(|p| s(p)));
        args.extend(["--out-dir", s(&out)]);
        args.extend(extra);
        let o = tickopt(&args);
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        let json = serde_json::from_str(&std::fs::read_to_string(out.join("audit.json")).unwrap())
            .unwrap();
        (o.status.code().unwrap(), html, json)
    }
}

#[test]
fn the_legend_says_outside_the_gates_only_when_gates_were_given() {
    let c = Case::new();
    let (code, html, _) = c.audit("plain", &["optimal.csv"], &[]);
    assert_eq!(code, 0);
    assert!(!html.contains("outside the gates"), "{html}");
    assert!(!html.contains(">invalid<"), "no schedule is invalid");
    assert!(html.contains(">valid</text>"));
    let (code, html, _) = c.audit(
        "gated",
        &["optimal.csv", "conflicting.csv"],
        &["--max-gap-ticks", "0"],
    );
    assert_eq!(code, 2);
    assert!(html.contains(">outside the gates</text>"));
    assert!(html.contains(">invalid</text>"));
    assert!(html.contains(">passed</text>"));
}

#[test]
fn utilisation_does_not_count_conflicting_transfers() {
    let c = Case::new();
    let (_, html, json) = c.audit("u", &["optimal.csv", "conflicting.csv"], &[]);
    let by_name = |n: &str| {
        json["schedules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"].as_str().unwrap().ends_with(n))
            .unwrap()["utilisation"]
            .clone()
    };
    let ok = by_name("optimal.csv");
    assert_eq!(ok["capacity_per_tick"], 3);
    assert_eq!(
        (ok["transfers"].as_u64(), ok["not_counted"].as_u64()),
        (Some(4), Some(0))
    );
    assert!((ok["mean"].as_f64().unwrap() - 4.0 / 9.0).abs() < 1e-12);
    let bad = by_name("conflicting.csv");
    // Tick 0 holds 0->1 and 4->5; 0->2 conflicts. Tick 1 holds 0->3.
    assert_eq!(
        (bad["transfers"].as_u64(), bad["not_counted"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(bad["mean"].as_f64(), Some(0.5));
    assert_eq!(bad["buckets"], serde_json::json!([2.0 / 3.0, 1.0 / 3.0]));
    assert!(html.contains("1 of 4 transfers not counted"), "{html}");
    assert!(html.contains("<td>44.4%</td>") && html.contains("<td>50.0%</td>"));
}

#[test]
fn the_per_slot_view_names_the_bottleneck_and_the_idle_slots() {
    let c = Case::new();
    let (_, html, json) = c.audit("slots", &["optimal.csv"], &[]);
    let load = &json["schedules"][0]["slot_load"];
    assert_eq!(load["slots_per_row"], 1);
    assert_eq!(load["rows"].as_array().unwrap().len(), 6);
    assert_eq!(
        load["busiest"][0],
        serde_json::json!({"slot": 0, "busy": 1.0})
    );
    // Slot 0 is busy in all three ticks; every other slot in one.
    assert_eq!(load["rows"][0]["bins"], serde_json::json!([1.0, 1.0, 1.0]));
    assert_eq!(load["rows"][3]["bins"], serde_json::json!([0.0, 0.0, 1.0]));
    assert!(html.contains("<h2>Load per slot</h2>"));
    assert!(html.contains("Busiest: slot 0 100%"), "{html}");
    assert!(html.contains("the bottleneck"));
    // The bottleneck row's label is red; an idle cell is not drawn.
    assert!(html.contains("fill=\"#c62828\">slot 0</text>"), "{html}");

    // Many slots: consecutive slots share a row (at most 128 rows).
    let ring = c.p("ring.csv");
    let o = tickopt(&["gen", "ring", "--n", "300", "-o", s(&ring)]);
    assert!(o.status.success());
    let sched = c.p("ring_sched.csv");
    let o = tickopt(&["solve", s(&ring), "-o", s(&sched)]);
    assert!(o.status.success());
    let out = c.p("ring_out");
    let o = tickopt(&["audit", s(&ring), s(&sched), "--out-dir", s(&out)]);
    assert_eq!(o.status.code(), Some(0));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("audit.json")).unwrap()).unwrap();
    let load = &json["schedules"][0]["slot_load"];
    assert_eq!(load["slots_per_row"], 3);
    assert_eq!(load["rows"].as_array().unwrap().len(), 100);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(">slots 0-2</text>") && html.contains("3 slots per row"));
    assert!(
        html.contains("Every slot equally busy"),
        "a ring loads every slot alike"
    );
}

/// Renders `html` in headless Chromium at `width` px and returns the PNG
/// and the page's scroll width. Chromium is Debian's `chromium`, which
/// scripts/setup.sh installs; without it the test fails and says so. Look
/// at the PNG by hand when changing the page.
fn screenshot(html: &Path, width: u32) -> (PathBuf, u64) {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .unwrap_or_else(|| {
            panic!(
                "no chromium on PATH to render {}: run scripts/setup.sh \
                 (it installs Debian's chromium)",
                html.display()
            )
        });
    let dir = html.parent().unwrap();
    let png = dir.join("screenshot.png");
    let common = |profile: &Path| {
        let mut c = Command::new(browser);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},1200"));
        c
    };
    let profile = tempfile::tempdir().unwrap();
    let o = common(profile.path())
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(png.is_file(), "{}", String::from_utf8_lossy(&o.stderr));
    // The same page with a script that writes its scroll width into the
    // DOM: wider than the window means something is clipped or scrolls.
    let probe = dir.join("probe.html");
    let text = std::fs::read_to_string(html).unwrap().replace(
        "</body>",
        "<script>document.body.setAttribute('data-scroll-width', document.documentElement.scrollWidth)</script></body>",
    );
    std::fs::write(&probe, text).unwrap();
    let o = common(profile.path())
        .arg("--dump-dom")
        .arg(format!("file://{}", probe.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    let at = dom.find("data-scroll-width=\"").expect("the probe ran") + 19;
    let scroll: u64 = dom[at..].split('"').next().unwrap().parse().unwrap();
    (png, scroll)
}

#[test]
fn the_page_fits_an_810_px_window_in_a_browser() {
    let c = Case::new();
    // Long names and every legend entry: the widest page this audit makes.
    let long = c.p("a_schedule_with_a_rather_long_file_name_from_some_tool.csv");
    std::fs::copy(c.p("optimal.csv"), &long).unwrap();
    let (_, _, _) = c.audit(
        "page",
        &[
            "optimal.csv",
            "conflicting.csv",
            long.file_name().unwrap().to_str().unwrap(),
        ],
        &["--max-gap-ticks", "0"],
    );
    let (png, scroll) = screenshot(&c.p("page").join("report.html"), 810);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(width, 810);
    assert!(
        scroll <= 810,
        "the page is {scroll} px wide in an 810 px window"
    );
}
