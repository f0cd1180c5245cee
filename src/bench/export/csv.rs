//! `results.csv`: one row per record, copyspace-guard columns, then the
//! pairwise-exchange columns when the baseline was run.

use super::{Exporter, Results};
use std::io::{self, Write};

pub struct Csv;

const HEADER: [&str; 31] = [
    "set",
    "instance",
    "file",
    "family",
    "instance_hash",
    "model",
    "slots",
    "demands",
    "chunks",
    "bw",
    "bw_from",
    "lower_bound",
    "witness",
    "ticks",
    "status",
    "gap_ticks",
    "ticks_over_bound",
    "seconds_predicted",
    "predicted_over_fluid",
    "known_optimum",
    "known_check",
    "valid",
    "solver",
    "rounds",
    "bounds_seconds",
    "seconds",
    "tickopt_version",
    "error",
    "cg_ticks",
    "cg_lower_bound",
    "cg_seconds",
];

/// Columns added by `--compare-pairwise`.
const PAIRWISE_HEADER: [&str; 2] = ["pairwise_ticks", "pairwise_over_ticks"];

fn o<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(|x| x.to_string()).unwrap_or_default()
}

impl Exporter for Csv {
    fn file_name(&self) -> &'static str {
        "results.csv"
    }
    fn write(&self, results: &Results, w: &mut dyn Write) -> io::Result<()> {
        let mut out = csv::Writer::from_writer(w);
        let pairwise = results.header.compare_pairwise;
        let mut header = HEADER.to_vec();
        if pairwise {
            header.extend(PAIRWISE_HEADER);
        }
        out.write_record(header)?;
        for r in &results.records {
            let cg = r.cg.as_ref();
            let error = match (&r.error, cg.and_then(|c| c.error.as_ref())) {
                (Some(e), _) => e.clone(),
                (None, Some(e)) => format!("copyspace-guard: {e}"),
                (None, None) => String::new(),
            };
            let mut row = vec![
                r.set.clone(),
                r.instance.clone(),
                r.file.clone(),
                r.family.clone(),
                r.instance_hash.clone(),
                r.model.clone(),
                o(&r.slots),
                o(&r.demands),
                o(&r.chunks),
                o(&r.bw),
                o(&r.bw_from),
                o(&r.lower_bound),
                o(&r.witness),
                o(&r.ticks),
                r.status.to_string(),
                o(&r.gap_ticks),
                o(&r.ticks_over_bound),
                o(&r.seconds_predicted),
                o(&r.predicted_over_fluid),
                o(&r.known_optimum),
                o(&r.known_check),
                o(&r.valid),
                o(&r.solver),
                o(&r.rounds),
                format!("{:.6}", r.bounds_seconds),
                format!("{:.6}", r.seconds),
                r.tickopt_version.clone(),
                error,
                o(&cg.and_then(|c| c.ticks)),
                o(&cg.and_then(|c| c.lower_bound)),
                cg.map(|c| format!("{:.6}", c.seconds)).unwrap_or_default(),
            ];
            if pairwise {
                row.extend([o(&r.pairwise_ticks), o(&r.pairwise_over_ticks)]);
            }
            out.write_record(row)?;
        }
        out.flush()
    }
}
