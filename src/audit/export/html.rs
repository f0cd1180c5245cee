//! `report.html`: one self-contained page (inline CSS and SVG, no scripts,
//! no network): the schedules' ticks against tickopt's optimum and lower
//! bound, the ranking table, each schedule's per-tick utilisation, and its
//! load per slot (a slot x tick heat map naming the bottleneck). Every
//! chart fits an 810 px window (a viewBox, scaled down when narrower).

use super::{gap_text, ranking_rows, Audit, AuditExporter};
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
    // 700 px wide (viewBox, scaled down on narrow pages): fits an 810 px
    // window with the page margins; the legend wraps inside it.
    let (ml, pw, row, mt) = (190.0, 440.0, 24.0, 30.0);
    let w = ml + pw + 70.0;
    let rows = ranked.len() + 1;
    let legend = legend(a);
    let legend_lines = legend_rows(&legend, w - 20.0).len();
    let h = mt + row * rows as f64 + 30.0 + 18.0 * legend_lines as f64 + 10.0;
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
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" style="max-width:100%;height:auto" role="img" aria-label="schedules against optimum and lower bound">"#
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
            &format!("#{} {}", r.rank, short_label(&label, 24)),
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
    for (line, items) in legend_rows(&legend, w - 20.0).into_iter().enumerate() {
        let ly = bottom + 36.0 + 18.0 * line as f64;
        let mut lx = 10.0;
        for (colour, name) in items {
            let _ = write!(
                s,
                r#"<rect x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{colour}"/><text x="{:.1}" y="{ly:.1}" font-size="11">{}</text>"#,
                ly - 9.0,
                lx + 13.0,
                esc(name)
            );
            lx += legend_width(name);
        }
    }
    s.push_str("</svg>");
    s
}

/// `label` cut to at most `max` characters, keeping its start and end
/// around an ellipsis (the bar's tooltip has the whole name).
fn short_label(label: &str, max: usize) -> String {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() <= max {
        return label.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('\u{2026}');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// The legend of the ticks chart: only what the chart shows ("outside the
/// gates" only when gates were given, "invalid" only when a schedule is).
fn legend(a: &Audit) -> Vec<(&'static str, String)> {
    let mut legend: Vec<(&str, String)> = vec![(BOUND, format!("lower bound {}", a.lower_bound))];
    if let Some(t) = a.optimum_ticks {
        legend.push((OPTIMUM, format!("optimum {t} (proven)")));
    }
    legend.push((TICKOPT, "tickopt".to_string()));
    let gated = a.gates.max_gap_ticks.is_some() || a.gates.max_gap.is_some();
    legend.push((PASSED, if gated { "passed" } else { "valid" }.into()));
    if gated {
        legend.push((OUTSIDE_GATES, "outside the gates".into()));
    }
    if a.schedules.iter().any(|r| !r.valid) {
        legend.push((INVALID, "invalid".into()));
    }
    legend
}

/// Width a legend item takes (box, gap, text at ~6.5 px per character).
fn legend_width(name: &str) -> f64 {
    13.0 + 6.5 * name.chars().count() as f64 + 14.0
}

/// The legend items split into lines no wider than `width`.
fn legend_rows<'a>(
    items: &'a [(&'static str, String)],
    width: f64,
) -> Vec<Vec<(&'static str, &'a str)>> {
    let mut rows: Vec<Vec<(&str, &str)>> = vec![Vec::new()];
    let mut x = 0.0;
    for (colour, name) in items {
        let iw = legend_width(name);
        if x + iw > width && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            x = 0.0;
        }
        rows.last_mut()
            .expect("one row")
            .push((colour, name.as_str()));
        x += iw;
    }
    rows
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
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" style="max-width:100%;height:auto" role="img" aria-label="utilisation per tick of {}"><rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#999"/>"##,
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

/// A white-to-blue shade for a busy fraction (0 idle, 1 every port busy).
fn heat(v: f64) -> String {
    let v = v.clamp(0.0, 1.0);
    let mix = |idle: f64, busy: f64| (idle + (busy - idle) * v).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(255.0, 13.0),
        mix(255.0, 71.0),
        mix(255.0, 161.0)
    )
}

/// Slot x tick heat map of one schedule: a row per slot (or per group of
/// consecutive slots), a column per tick bin, shaded by the share of the
/// row's ports busy; the busy share of each row over the whole schedule on
/// the right, the busiest row (the bottleneck) in red.
fn slot_chart(r: &ScheduleAudit) -> String {
    let l = &r.slot_load;
    let rows = l.rows.len();
    let bins = l.rows.first().map_or(0, |row| row.bins.len());
    let (ml, mr, mt, mb) = (90.0, 60.0, 8.0, 24.0);
    let pw = 550.0;
    let rh = (360.0 / rows.max(1) as f64).clamp(4.0, 16.0);
    let ph = rh * rows as f64;
    let (w, h) = (ml + pw + mr, mt + ph + mb);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" style="max-width:100%;height:auto" role="img" aria-label="busy share per slot and tick of {}"><rect x="{ml}" y="{mt}" width="{pw}" height="{ph:.1}" fill="#fff" stroke="#999"/>"##,
        esc(&r.name)
    );
    let busiest = l.rows.iter().map(|row| row.busy).fold(0.0f64, f64::max);
    let idlest = l.rows.iter().map(|row| row.busy).fold(1.0f64, f64::min);
    let cw = pw / bins.max(1) as f64;
    let label_every = (rows / 32).max(1);
    for (i, row) in l.rows.iter().enumerate() {
        let y = mt + rh * i as f64;
        let name = if row.first_slot == row.last_slot {
            format!("slot {}", row.first_slot)
        } else {
            format!("slots {}-{}", row.first_slot, row.last_slot)
        };
        for (j, v) in row.bins.iter().enumerate() {
            if *v > 0.0 {
                let _ = write!(
                    s,
                    r#"<rect x="{:.2}" y="{y:.2}" width="{:.2}" height="{rh:.2}" fill="{}"><title>{}, ticks {}-{}: {:.0}% busy</title></rect>"#,
                    ml + cw * j as f64,
                    cw + 0.05,
                    heat(*v),
                    esc(&name),
                    j as u64 * l.ticks_per_bin,
                    (j as u64 + 1) * l.ticks_per_bin - 1,
                    v * 100.0
                );
            }
        }
        let hot = busiest > idlest && row.busy >= busiest;
        let colour = if hot { INVALID } else { "#222" };
        if i % label_every == 0 || hot {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="{:.0}" fill="{colour}">{}</text>"#,
                ml - 4.0,
                y + rh * 0.8,
                rh.clamp(7.0, 11.0),
                esc(&name)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="{:.0}" fill="{colour}">{:.0}%</text>"#,
            ml + pw + 4.0,
            y + rh * 0.8,
            rh.clamp(7.0, 11.0),
            row.busy * 100.0
        );
    }
    let _ = write!(
        s,
        r#"<text x="{ml}" y="{:.1}" font-size="10">tick 0</text><text x="{:.1}" y="{:.1}" text-anchor="end" font-size="10">tick {} ({} per column{})</text></svg>"#,
        h - 8.0,
        ml + pw,
        h - 8.0,
        r.schedule_ticks,
        l.ticks_per_bin,
        if l.slots_per_row > 1 {
            format!("; {} slots per row", l.slots_per_row)
        } else {
            String::new()
        }
    );
    s
}

/// One sentence naming the busiest and idlest slots.
fn slot_sentence(r: &ScheduleAudit) -> String {
    let l = &r.slot_load;
    let list = |v: &[crate::audit::SlotBusy]| {
        v.iter()
            .map(|b| format!("slot {} {:.0}%", b.slot, b.busy * 100.0))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (l.busiest.first(), l.idlest.first()) {
        (None, _) | (_, None) => return "No slots.".into(),
        (Some(b), Some(i)) if b.busy == i.busy => {
            return format!(
                "Every slot equally busy: {:.0}% of its ports' ticks.",
                b.busy * 100.0
            )
        }
        _ => {}
    }
    let mut t = format!("Busiest: {}", list(&l.busiest));
    if l.busiest.first().is_some_and(|b| b.busy >= 0.999_999) {
        t.push_str(
            " (busy in every tick: the bottleneck; no schedule can be shorter than its load)",
        );
    }
    let _ = write!(t, ". Idlest: {}.", list(&l.idlest));
    t
}

impl AuditExporter for Html {
    fn file_name(&self) -> &'static str {
        "report.html"
    }
    fn write(&self, a: &Audit, w: &mut dyn Write) -> io::Result<()> {
        let mut s = String::new();
        s.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tickopt audit</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:13px;max-width:100%}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td{white-space:nowrap}td.l,th.l{text-align:left;white-space:normal;overflow-wrap:anywhere}th{background:#eee}.bad{background:#fdecea}h2{margin-top:1.5em}h3,p{overflow-wrap:anywhere}code{font-size:12px}</style></head><body>\n");
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
        if let Some(relay) = &a.relay {
            let _ = writeln!(s, "<p>{}</p>\n<ul>", esc(&relay.sentence(a.best_ticks)));
            for r in &relay.schedules {
                let _ = writeln!(s, "<li>{}</li>", esc(&r.line()));
            }
            s.push_str("</ul>\n");
        }
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
        s.push_str("\n<h2>Ranking</h2>\n<table><tr><th>rank</th><th class=\"l\">schedule</th><th>valid</th><th>ticks</th><th>gap_ticks</th><th>gap_ratio</th><th>ticks saved by tickopt</th><th>mean utilisation</th><th>passed</th><th class=\"l\">why not</th></tr>\n");
        for r in ranking_rows(a) {
            let _ = writeln!(
                s,
                "<tr{}><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
                if r.audit.passed { "" } else { " class=\"bad\"" },
                r.rank,
                esc(&r.name),
                r.valid,
                r.ticks,
                esc(&r.gap_ticks),
                r.gap_ratio,
                r.ticks_saved,
                r.utilisation,
                r.passed,
                esc(&r.why_not)
            );
        }
        s.push_str("</table>\n<h2>Utilisation per tick</h2>\n<p>Transfers a tick really holds over the most a tick can hold (STRICT1: floor(ports/2); READ1_WRITE1: ports; one port per slot unless the instance says otherwise), averaged over buckets of ticks. A transfer that conflicts with an earlier one in its tick (a slot over its ports), or names a slot outside the instance, is not counted.</p>\n");
        for r in a.ranked() {
            let _ = writeln!(s, "<h3>#{} {}</h3>", r.rank, esc(&r.name));
            s.push_str(&utilisation_chart(r));
            if r.utilisation.not_counted > 0 {
                let _ = writeln!(
                    s,
                    "<p>{} of {} transfers not counted (conflicting or outside the instance).</p>",
                    r.utilisation.not_counted, r.utilisation.transfers
                );
            }
            s.push('\n');
        }
        s.push_str("<h2>Load per slot</h2>\n<p>Each row a slot (or consecutive slots when there are many), each column a bin of ticks; the darker, the more of the row's ports are busy (white: idle). The right column is the row's busy share over the whole schedule; the busiest row, the bottleneck, is in red.</p>\n");
        for r in a.ranked() {
            let _ = writeln!(s, "<h3>#{} {}</h3>", r.rank, esc(&r.name));
            s.push_str(&slot_chart(r));
            let _ = writeln!(s, "\n<p>{}</p>", esc(&slot_sentence(r)));
        }
        s.push_str("</body></html>\n");
        w.write_all(s.as_bytes())
    }
}
