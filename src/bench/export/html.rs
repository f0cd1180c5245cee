//! `report.html`: one self-contained page (inline CSS and SVG, no scripts,
//! no network): time against size on log-log axes, status per family, the
//! gap per family split into ticks above the lower bound and the possible
//! gap to the optimum (zero for proven runs), and the table of runs.
//! Statuses keep their own names and colours ([`status_colour`]).

use super::markdown::cg_sentence;
use super::summary::{status_colour, FamilySummary, STATUSES};
use super::{family_summaries, fmt_seconds, opt, status_counts, Exporter, Results};
use std::fmt::Write as _;
use std::io::{self, Write};

pub struct Html;

use crate::html_text::escape as esc;

fn model_colour(m: &str) -> &'static str {
    match m {
        "STRICT1" => "#1565c0",
        "READ1_WRITE1" => "#ad1457",
        _ => "#555",
    }
}

/// Decades covering `[lo, hi]` (both > 0).
fn decades(lo: f64, hi: f64) -> (i32, i32) {
    let a = lo.log10().floor() as i32;
    let mut b = hi.log10().ceil() as i32;
    if b <= a {
        b = a + 1;
    }
    (a, b)
}

/// A point of the time chart: chunks, seconds, colour, title, and
/// whether it is copyspace-guard's.
type TimePoint = (f64, f64, &'static str, String, bool);

/// The time chart's points: every run with a size, and copyspace-guard's
/// run of it where one finished.
fn time_points(results: &Results) -> Vec<TimePoint> {
    let mut pts: Vec<TimePoint> = Vec::new();
    for r in &results.records {
        let Some(chunks) = r.chunks else { continue };
        let x = (chunks.max(1)) as f64;
        let label = format!("{}/{} {}", r.set, r.instance, r.model);
        pts.push((
            x,
            r.seconds.max(1e-6),
            model_colour(&r.model),
            format!("{label}: {} s", fmt_seconds(r.seconds)),
            false,
        ));
        if let Some(c) = r.cg.as_ref().filter(|c| c.error.is_none()) {
            pts.push((
                x,
                c.seconds.max(1e-6),
                "#777",
                format!("{label} copyspace-guard: {} s", fmt_seconds(c.seconds)),
                true,
            ));
        }
    }
    pts
}

/// Scatter of seconds against chunks, log-log.
fn time_chart(results: &Results) -> String {
    let (w, h, ml, mr, mt, mb) = (720.0, 420.0, 70.0, 150.0, 20.0, 50.0);
    let pts = time_points(results);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="time against size">"#
    );
    if pts.is_empty() {
        let _ = write!(s, r#"<text x="20" y="40">no successful runs</text></svg>"#);
        return s;
    }
    let (xa, xb) = decades(
        pts.iter().map(|p| p.0).fold(f64::MAX, f64::min),
        pts.iter().map(|p| p.0).fold(0.0, f64::max),
    );
    let (ya, yb) = decades(
        pts.iter().map(|p| p.1).fold(f64::MAX, f64::min),
        pts.iter().map(|p| p.1).fold(0.0, f64::max),
    );
    let pw = w - ml - mr;
    let ph = h - mt - mb;
    let sx = |x: f64| ml + (x.log10() - xa as f64) / (xb - xa) as f64 * pw;
    let sy = |y: f64| mt + ph - (y.log10() - ya as f64) / (yb - ya) as f64 * ph;
    let _ = write!(
        s,
        r##"<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#999"/>"##
    );
    for d in xa..=xb {
        let x = sx(10f64.powi(d));
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{mt}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11">1e{d}</text>"##,
            mt + ph,
            mt + ph + 16.0
        );
    }
    for d in ya..=yb {
        let y = sy(10f64.powi(d));
        let _ = write!(
            s,
            r##"<line x1="{ml}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11">1e{d}</text>"##,
            ml + pw,
            ml - 6.0,
            y + 4.0
        );
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">size (chunks)</text>"#,
        ml + pw / 2.0,
        h - 10.0
    );
    let _ = write!(
        s,
        r#"<text x="16" y="{:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 16 {:.1})">seconds</text>"#,
        mt + ph / 2.0,
        mt + ph / 2.0
    );
    for (x, y, colour, title, cg) in &pts {
        let (cx, cy) = (sx(*x), sy(*y));
        if *cg {
            let _ = write!(
                s,
                r#"<path d="M{:.1},{:.1} l4,7 h-8 z" fill="{colour}" fill-opacity="0.7"><title>{}</title></path>"#,
                cx,
                cy - 4.0,
                esc(title)
            );
        } else {
            let _ = write!(
                s,
                r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3.5" fill="{colour}" fill-opacity="0.75"><title>{}</title></circle>"#,
                esc(title)
            );
        }
    }
    let lx = ml + pw + 15.0;
    let mut ly = mt + 10.0;
    for (name, colour) in [
        ("STRICT1", model_colour("STRICT1")),
        ("READ1_WRITE1", model_colour("READ1_WRITE1")),
    ] {
        let _ = write!(
            s,
            r#"<circle cx="{lx}" cy="{ly}" r="4" fill="{colour}"/><text x="{:.1}" y="{:.1}" font-size="12">{name}</text>"#,
            lx + 10.0,
            ly + 4.0
        );
        ly += 20.0;
    }
    if results.header.compare_cg {
        let _ = write!(
            s,
            r##"<path d="M{lx},{:.1} l4,7 h-8 z" fill="#777"/><text x="{:.1}" y="{:.1}" font-size="12">copyspace-guard</text>"##,
            ly - 4.0,
            lx + 10.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>");
    s
}

/// Colour of "ticks above the lower bound" (not a status: a proven run can
/// be above the bound).
const ABOVE_BOUND: &str = "#90a4ae";
/// Colour of "possible gap to the optimum".
const POSSIBLE_GAP: &str = "#ef6c00";

/// Stacked bars of statuses per family, and the gap bars.
fn family_charts(results: &Results) -> (String, String) {
    let fams = family_summaries(&results.records);
    (status_chart(&fams), gap_chart(&fams))
}

/// Rows of the family charts, and their left margin and bar width.
const ROW: f64 = 22.0;
const MARGIN_LEFT: f64 = 170.0;
const BAR_WIDTH: f64 = 420.0;

/// Stacked bars of statuses per family, with a legend.
fn status_chart(fams: &[FamilySummary]) -> String {
    let (row, ml, bw) = (ROW, MARGIN_LEFT, BAR_WIDTH);
    let h = 40.0 + row * fams.len() as f64;
    let mut st = String::new();
    let _ = write!(
        st,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{h:.0}" role="img" aria-label="status per family">"#,
        ml + bw + 40.0
    );
    let max_runs = fams.iter().map(|f| f.runs).max().unwrap_or(1).max(1) as f64;
    for (i, f) in fams.iter().enumerate() {
        let y = 10.0 + row * i as f64;
        let _ = write!(
            st,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="12">{}</text>"#,
            ml - 6.0,
            y + 14.0,
            esc(&f.family)
        );
        let mut x = ml;
        for (status, n) in &f.statuses {
            if *n == 0 {
                continue;
            }
            let wd = *n as f64 / max_runs * bw;
            let _ = write!(
                st,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{wd:.1}" height="{:.1}" fill="{}"><title>{}: {n} {status}</title></rect>"#,
                row - 4.0,
                status_colour(*status),
                esc(&f.family)
            );
            x += wd;
        }
        let _ = write!(
            st,
            r#"<text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#,
            x + 4.0,
            y + 14.0,
            f.runs
        );
    }
    let mut lx = ml;
    let ly = h - 14.0;
    for s in STATUSES {
        let _ = write!(
            st,
            r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{}"/><text x="{:.1}" y="{ly:.1}" font-size="11">{s}</text>"#,
            ly - 9.0,
            status_colour(s),
            lx + 13.0
        );
        lx += 14.0 + 7.0 * s.as_str().len() as f64 + 12.0;
    }
    st.push_str("</svg>");
    st
}

/// Two bars per family. Grey: mean ticks above the lower bound (what the
/// bound alone cannot rule out). Orange: mean possible gap to the optimum,
/// which is zero for runs whose status proves the optimum (optimal,
/// optimal_exhaustive), so proven families show none.
fn gap_chart(fams: &[FamilySummary]) -> String {
    let (row, ml, bw) = (ROW, MARGIN_LEFT, BAR_WIDTH);
    let mut gp = String::new();
    let grow = 2.0 * row;
    let gh = 50.0 + grow * fams.len() as f64;
    let _ = write!(
        gp,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{gh:.0}" role="img" aria-label="gap per family">"#,
        ml + bw + 300.0
    );
    let max_excess = fams
        .iter()
        .map(|f| {
            (f.mean_ticks_over_bound.unwrap_or(1.0) - 1.0)
                .max(f.mean_possible_ticks_over_bound.unwrap_or(1.0) - 1.0)
        })
        .fold(0.0, f64::max);
    let scale = if max_excess > 0.0 {
        bw / max_excess
    } else {
        0.0
    };
    for (i, f) in fams.iter().enumerate() {
        let y = 10.0 + grow * i as f64;
        let _ = write!(
            gp,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="12">{}</text>"#,
            ml - 6.0,
            y + 20.0,
            esc(&f.family)
        );
        for (k, (excess, max, colour, what)) in [
            (
                (f.mean_ticks_over_bound.unwrap_or(1.0) - 1.0).max(0.0),
                f.max_gap,
                ABOVE_BOUND,
                "above the lower bound",
            ),
            (
                (f.mean_possible_ticks_over_bound.unwrap_or(1.0) - 1.0).max(0.0),
                f.max_possible_gap,
                POSSIBLE_GAP,
                "possible gap to the optimum",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let yy = y + k as f64 * (row - 2.0);
            let wd = excess * scale;
            let _ = write!(
                gp,
                r##"<rect x="{ml}" y="{yy:.1}" width="{wd:.1}" height="{:.1}" fill="{colour}"><title>{}: {what}: mean {:.2}% of the lower bound, max {max} ticks</title></rect><text x="{:.1}" y="{:.1}" font-size="11">+{:.2}% {what} (max {max} ticks)</text>"##,
                row - 6.0,
                esc(&f.family),
                excess * 100.0,
                ml + wd + 4.0,
                yy + 12.0,
                excess * 100.0
            );
        }
    }
    let ly = gh - 14.0;
    let mut lx = ml;
    for (colour, name) in [
        (ABOVE_BOUND, "ticks above the lower bound"),
        (POSSIBLE_GAP, "possible gap to the optimum (0 when proven)"),
    ] {
        let _ = write!(
            gp,
            r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{colour}"/><text x="{:.1}" y="{ly:.1}" font-size="11">{name}</text>"#,
            ly - 9.0,
            lx + 13.0
        );
        lx += 14.0 + 6.5 * name.len() as f64 + 16.0;
    }
    gp.push_str("</svg>");
    gp
}

impl Exporter for Html {
    fn file_name(&self) -> &'static str {
        "report.html"
    }
    fn write(&self, results: &Results, w: &mut dyn Write) -> io::Result<()> {
        let h = &results.header;
        let rs = &results.records;
        let mut s = String::new();
        s.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tickopt bench report</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child,td.l{text-align:left}th{background:#eee}.failed{background:#fdecea}.contradiction{background:#f8bbd0}h2{margin-top:1.5em}</style></head><body>\n");
        let _ = writeln!(s, "<h1>tickopt bench report</h1>");
        let _ = writeln!(
            s,
            "<p>tickopt {} &middot; sets: {} &middot; {} runs{}</p>",
            esc(&h.tickopt_version),
            esc(&h.sets.join(", ")),
            rs.len(),
            h.shard
                .as_ref()
                .map(|x| format!(" &middot; shard {}", esc(x)))
                .unwrap_or_default()
        );
        let _ = writeln!(s, "<p>options: {}</p>", esc(&h.options.join(" | ")));
        let _ = writeln!(s, "<p>{}</p>", esc(cg_sentence(results)));
        if let Some(p) = super::pairwise_sentence(results) {
            let _ = writeln!(s, "<p>{}</p>", esc(&p));
        }
        s.push_str("<h2>Status</h2><table><tr><th>status</th><th>runs</th></tr>");
        for (st, n) in status_counts(rs.iter()) {
            let _ = write!(
                s,
                "<tr><td><span style=\"color:{}\">&#9632;</span> {st}</td><td>{n}</td></tr>",
                status_colour(st)
            );
        }
        s.push_str("</table>\n<h2>Time against size (log-log)</h2>\n");
        s.push_str(&time_chart(results));
        let (status_svg, gap_svg) = family_charts(results);
        s.push_str("\n<h2>Status per family</h2>\n");
        s.push_str(&status_svg);
        s.push_str("\n<h2>Gap per family</h2>\n<p>Grey: mean ticks above the lower bound, as % of the bound. Orange: mean possible gap to the optimum, as % of the bound: zero for runs proven optimal (<code>optimal</code>, <code>optimal_exhaustive</code>), the gap to the bound otherwise (an upper estimate).</p>\n");
        s.push_str(&gap_svg);
        s.push_str("\n<h2>Runs</h2>\n<table><tr><th>instance</th><th>model</th><th>slots</th><th>chunks</th><th>bw (from)</th><th>lower bound</th><th>witness</th><th>ticks</th><th>status</th><th>gap_ticks</th><th>known</th><th>seconds</th><th>solver</th>");
        let predicted = super::has_seconds(rs);
        if predicted {
            s.push_str("<th>predicted (x fluid)</th>");
        }
        if h.compare_cg {
            s.push_str("<th>cg ticks</th><th>cg LB</th><th>cg seconds</th>");
        }
        if h.compare_pairwise {
            s.push_str("<th>pairwise ticks</th><th>pairwise / ticks</th>");
        }
        s.push_str("<th>error</th></tr>\n");
        for r in rs {
            let class = if r.is_failed() {
                " class=\"failed\""
            } else if r.known_check.as_deref() == Some("contradiction") {
                " class=\"contradiction\""
            } else {
                ""
            };
            let _ = write!(s, "<tr{class}><td>{}/{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\"><span style=\"color:{}\">&#9632;</span> {}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td>",
                esc(&r.set), esc(&r.instance), esc(&r.model), opt(&r.slots), opt(&r.chunks), esc(&super::bw_cell(r)), opt(&r.lower_bound), esc(&opt(&r.witness)), opt(&r.ticks), status_colour(r.status), r.status, opt(&r.gap_ticks), opt(&r.known_optimum), fmt_seconds(r.seconds), esc(&opt(&r.solver)));
            if predicted {
                let _ = write!(s, "<td>{}</td>", esc(&super::predicted_cell(r)));
            }
            let mut err = r.error.clone().unwrap_or_default();
            if h.compare_cg {
                match &r.cg {
                    Some(c) => {
                        let _ = write!(
                            s,
                            "<td>{}</td><td>{}</td><td>{}</td>",
                            opt(&c.ticks),
                            opt(&c.lower_bound),
                            fmt_seconds(c.seconds)
                        );
                        if let Some(e) = &c.error {
                            err = format!("{err} copyspace-guard: {e}");
                        }
                    }
                    None => s.push_str("<td>-</td><td>-</td><td>-</td>"),
                }
            }
            if h.compare_pairwise {
                let [t, x] = super::pairwise_cells(r);
                let _ = write!(s, "<td>{t}</td><td>{x}</td>");
            }
            let _ = writeln!(s, "<td class=\"l\">{}</td></tr>", esc(err.trim()));
        }
        s.push_str("</table>\n</body></html>\n");
        w.write_all(s.as_bytes())
    }
}
