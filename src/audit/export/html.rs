//! `report.html`: one self-contained page (inline CSS and SVG, no scripts,
//! no network): the schedules' ticks against tickopt's optimum and lower
//! bound, each schedule's per-tick utilisation, and the ranking table.

use super::{gap_text, opt, ratio_text, Audit, AuditExporter};
use crate::audit::ScheduleAudit;
use std::fmt::Write as _;
use std::io::{self, Write};

pub struct Html;

use crate::html_text::escape as esc;

const OPTIMUM: &str = "#2e7d32";
const BOUND: &str = "#1565c0";
const TICKOPT: &str = "#6a1b9a";
const PASSED: &str = "#66bb6a";
const OUTSIDE_GATES: &str = "#ef6c00";
const INVALID: &str = "#c62828";

fn bar_colour(r: &ScheduleAudit) -> &'static str {
    if !r.valid {
        INVALID
    } else if r.passed {
        PASSED
    } else {
        OUTSIDE_GATES
    }
}

/// Horizontal bars: tickopt's schedule and every schedule, with vertical
/// lines at the lower bound and (when proven) the optimum.
fn ticks_chart(a: &Audit) -> String {
    let ranked = a.ranked();
    let (ml, pw, row, mt) = (230.0, 460.0, 24.0, 30.0);
    let rows = ranked.len() + 1;
    let h = mt + row * rows as f64 + 60.0;
    let w = ml + pw + 120.0;
    let max = ranked
        .iter()
        .map(|r| r.schedule_ticks)
        .chain([a.best_ticks, a.lower_bound])
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let sx = |t: f64| ml + t / max * pw;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" role="img" aria-label="schedules against optimum and lower bound">"#
    );
    let bottom = mt + row * rows as f64;
    let bar = |s: &mut String, i: usize, label: &str, ticks: u64, colour: &str, title: &str| {
        let y = mt + row * i as f64;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="12">{}</text><rect x="{ml}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}</title></rect><text x="{:.1}" y="{:.1}" font-size="11">{ticks}</text>"#,
            ml - 6.0,
            y + 15.0,
            esc(label),
            y + 3.0,
            sx(ticks as f64) - ml,
            row - 6.0,
            esc(title),
            sx(ticks as f64) + 4.0,
            y + 15.0
        );
    };
    bar(
        &mut s,
        0,
        "tickopt",
        a.best_ticks,
        TICKOPT,
        &format!("tickopt: {} ticks ({})", a.best_ticks, a.optimum_status),
    );
    for (i, r) in ranked.iter().enumerate() {
        let label = std::path::Path::new(&r.name)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| r.name.clone());
        let title = format!(
            "#{} {}: {} ticks, {}",
            r.rank,
            r.name,
            r.schedule_ticks,
            if r.valid {
                format!(
                    "gap {} ticks",
                    gap_text(r.gap_ticks, r.gap_is_upper_estimate)
                )
            } else {
                "invalid".into()
            }
        );
        bar(
            &mut s,
            i + 1,
            &format!("#{} {label}", r.rank),
            r.schedule_ticks,
            bar_colour(r),
            &title,
        );
    }
    let vline = |s: &mut String, t: u64, colour: &str, dash: &str, name: &str| {
        let x = sx(t as f64);
        let _ = write!(
            s,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"><title>{name}: {t} ticks</title></line>"#,
            mt - 6.0
        );
    };
    vline(&mut s, a.lower_bound, BOUND, "4 3", "lower bound");
    if let Some(t) = a.optimum_ticks {
        vline(&mut s, t, OPTIMUM, "none", "optimum (proven)");
    }
    let _ = write!(
        s,
        r##"<line x1="{ml}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="#999"/><text x="{ml}" y="{:.1}" font-size="11">0</text><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">{} ticks</text>"##,
        ml + pw,
        bottom + 14.0,
        ml + pw,
        bottom + 14.0,
        max as u64
    );
    let mut lx = ml;
    let ly = bottom + 40.0;
    let mut legend: Vec<(&str, String)> = vec![(BOUND, format!("lower bound {}", a.lower_bound))];
    if let Some(t) = a.optimum_ticks {
        legend.push((OPTIMUM, format!("optimum {t} (proven)")));
    }
    legend.extend([
        (TICKOPT, "tickopt".to_string()),
        (PASSED, "passed".into()),
        (OUTSIDE_GATES, "outside the gates".into()),
        (INVALID, "invalid".into()),
    ]);
    for (colour, name) in legend {
        let _ = write!(
            s,
            r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{colour}"/><text x="{:.1}" y="{ly:.1}" font-size="11">{}</text>"#,
            ly - 9.0,
            lx + 13.0,
            esc(&name)
        );
        lx += 13.0 + 6.5 * name.len() as f64 + 14.0;
    }
    s.push_str("</svg>");
    s
}

/// Area chart of one schedule's utilisation per tick (bucketed).
fn utilisation_chart(r: &ScheduleAudit) -> String {
    let u = &r.utilisation;
    let (w, h, ml, mr, mt, mb) = (640.0, 150.0, 50.0, 10.0, 10.0, 30.0);
    let pw = w - ml - mr;
    let ph = h - mt - mb;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="utilisation per tick of {}"><rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#999"/>"##,
        esc(&r.name)
    );
    for (frac, label) in [(0.0, "0%"), (0.5, "50%"), (1.0, "100%")] {
        let y = mt + ph - frac * ph;
        let _ = write!(
            s,
            r##"<line x1="{ml}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10">{label}</text>"##,
            ml + pw,
            ml - 4.0,
            y + 3.0
        );
    }
    let n = u.buckets.len();
    if n > 0 {
        let bw = pw / n as f64;
        let mut d = format!("M{ml:.1},{:.1}", mt + ph);
        for (i, v) in u.buckets.iter().enumerate() {
            let y = mt + ph - v.clamp(0.0, 1.0) * ph;
            let _ = write!(
                d,
                " L{:.1},{y:.1} L{:.1},{y:.1}",
                ml + bw * i as f64,
                ml + bw * (i + 1) as f64
            );
        }
        let _ = write!(d, " L{:.1},{:.1} Z", ml + pw, mt + ph);
        let _ = write!(
            s,
            r#"<path d="{d}" fill="{}" fill-opacity="0.6" stroke="{}"/>"#,
            bar_colour(r),
            bar_colour(r)
        );
    }
    let ticks = r.schedule_ticks;
    let _ = write!(
        s,
        r#"<text x="{ml}" y="{:.1}" font-size="10">tick 0</text><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10">tick {ticks} ({} per bucket; capacity {} transfers per tick; mean {:.1}%)</text></svg>"#,
        h - 12.0,
        ml + pw,
        h - 12.0,
        u.ticks_per_bucket,
        u.capacity_per_tick,
        u.mean * 100.0
    );
    s
}

impl AuditExporter for Html {
    fn file_name(&self) -> &'static str {
        "report.html"
    }
    fn write(&self, a: &Audit, w: &mut dyn Write) -> io::Result<()> {
        let mut s = String::new();
        s.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tickopt audit</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.l,th.l{text-align:left}th{background:#eee}.bad{background:#fdecea}h2{margin-top:1.5em}code{font-size:12px}</style></head><body>\n");
        let _ = writeln!(s, "<h1>tickopt audit</h1>");
        let _ = writeln!(
            s,
            "<p>tickopt {} &middot; {} &middot; {} &middot; {} slots &middot; {} bits per tick &middot; {} demands &middot; {} chunks</p>",
            esc(&a.tickopt_version),
            esc(&a.instance),
            a.model,
            a.slots,
            a.copy_bw_bits_per_tick,
            a.demands,
            a.chunks
        );
        let _ = writeln!(s, "<p><b>{}</b></p>", esc(&a.optimum_sentence()));
        let _ = writeln!(
            s,
            "<p>witness: <code>{}</code></p>",
            esc(&serde_json::to_string(&a.witness).unwrap_or_default())
        );
        let _ = writeln!(
            s,
            "<p>verdict: <b>{}</b></p>",
            if a.passed { "PASS" } else { "FAIL" }
        );
        s.push_str("<h2>Ticks: schedules against the optimum and the lower bound</h2>\n");
        s.push_str(&ticks_chart(a));
        s.push_str("\n<h2>Ranking</h2>\n<table><tr><th>rank</th><th class=\"l\">schedule</th><th>valid</th><th>ticks</th><th>gap (ticks)</th><th>gap ratio</th><th>ticks saved by tickopt</th><th>mean utilisation</th><th>passed</th><th class=\"l\">why not</th></tr>\n");
        for r in a.ranked() {
            let _ = writeln!(
                s,
                "<tr{}><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td><td>{}</td><td class=\"l\">{}</td></tr>",
                if r.passed { "" } else { " class=\"bad\"" },
                r.rank,
                esc(&r.name),
                if r.valid { "yes" } else { "no" },
                r.schedule_ticks,
                esc(&gap_text(r.gap_ticks, r.gap_is_upper_estimate)),
                ratio_text(r.gap_ratio),
                opt(&r.ticks_saved),
                r.utilisation.mean * 100.0,
                if r.passed { "yes" } else { "no" },
                esc(&r.failures.join("; "))
            );
        }
        s.push_str("</table>\n<h2>Utilisation per tick</h2>\n<p>Transfers in a tick over the most a tick can hold (STRICT1: floor(slots/2); READ1_WRITE1: slots), averaged over buckets of ticks.</p>\n");
        for r in a.ranked() {
            let _ = writeln!(s, "<h3>#{} {}</h3>", r.rank, esc(&r.name));
            s.push_str(&utilisation_chart(r));
            s.push('\n');
        }
        s.push_str("</body></html>\n");
        w.write_all(s.as_bytes())
    }
}
