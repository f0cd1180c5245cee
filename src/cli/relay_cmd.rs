//! `tickopt solve --gpus-per-node G --nvlink-speedup RHO` (a relay plan:
//! `relay::plan_relay`) and `tickopt verify` of a relay summary
//! (`relay::check::check_relay_claim`): flags in, files out, no
//! mathematics here.

use crate::instance::Instance;
use crate::relay::check::check_relay_claim;
use crate::relay::{plan_relay, RelaySummary, TwoTier};
use crate::schedule::output::OutputFile;
use anyhow::Context;
use clap::Args;
use std::path::Path;

/// The two-tier machine of a relay plan (doc/design.md, "Relays").
#[derive(Args, Debug, Clone, Default)]
pub struct RelayArgs {
    /// Two-tier machine: nodes of G GPUs (rank r is GPU r % G of node
    /// r / G; each GPU one NIC), where chunks may go through a GPU of their
    /// node to another NIC and through a GPU of the destination node.
    /// solve: plan with relays, writing a relay schedule (--out, JSON) and
    /// a relay summary with the bound's certificate (--summary). validate,
    /// export: the machine a relay schedule is checked on. audit: add the
    /// relayed lower bound and each schedule against it. READ1_WRITE1
    /// only. Needs --nvlink-speedup. A demands CSV may record both as
    /// `# gpus_per_node=G` and `# nvlink_speedup=RHO` comment lines instead,
    /// an instance JSON as its keys "gpus_per_node" and "nvlink_speedup".
    #[arg(long, value_name = "G")]
    pub gpus_per_node: Option<u32>,
    /// Chunks an NVLink port carries each way per tick (a NIC carries one).
    #[arg(long, value_name = "RHO")]
    pub nvlink_speedup: Option<u32>,
}

impl RelayArgs {
    /// The machine, when one is asked for: the flags, else what the input
    /// records (a demands CSV's leading comment lines `# gpus_per_node=G`,
    /// `# nvlink_speedup=RHO`, an instance JSON's keys of those names;
    /// doc/formats.md); both or neither.
    pub fn machine(&self, input: &Path) -> anyhow::Result<Option<TwoTier>> {
        let (mut g, mut rho) = (self.gpus_per_node, self.nvlink_speedup);
        if g.is_none() || rho.is_none() {
            let (rg, rr) = recorded_machine(input)?;
            g = g.or(rg);
            rho = rho.or(rr);
        }
        match (g, rho) {
            (None, None) => Ok(None),
            (Some(g), Some(rho)) => Ok(Some(TwoTier {
                gpus_per_node: g,
                nvlink_speedup: rho,
            })),
            _ => anyhow::bail!("--gpus-per-node and --nvlink-speedup go together: give both"),
        }
    }

    /// Whether either flag was given (not only recorded in the input).
    pub fn given(&self) -> bool {
        self.gpus_per_node.is_some() || self.nvlink_speedup.is_some()
    }
}

/// The machine the input records: a demands CSV's leading comment lines
/// or an instance JSON's top-level keys `gpus_per_node` and
/// `nvlink_speedup` (each an integer >= 1 when present).
fn recorded_machine(input: &Path) -> anyhow::Result<(Option<u32>, Option<u32>)> {
    use crate::instance::{recorded_value, GPUS_PER_NODE_KEY, NVLINK_SPEEDUP_KEY};
    use std::io::Read;
    // The comment lines come first; 64 KiB of them is more than any file has.
    let mut head = Vec::new();
    let file =
        std::fs::File::open(input).with_context(|| format!("cannot read {}", input.display()))?;
    file.take(1 << 16)
        .read_to_end(&mut head)
        .with_context(|| format!("cannot read {}", input.display()))?;
    if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return json_machine(input);
    }
    let read = |key: &str| -> anyhow::Result<Option<u32>> {
        match recorded_value(&head, key).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))? {
            None => Ok(None),
            Some((v, line)) => {
                let v = u32::try_from(v).map_err(|_| {
                    anyhow::anyhow!(
                        "{} line {line}: {key}={v} does not fit u32",
                        input.display()
                    )
                })?;
                eprintln!("tickopt: {key} {v} from {} line {line}", input.display());
                Ok(Some(v))
            }
        }
    };
    Ok((read(GPUS_PER_NODE_KEY)?, read(NVLINK_SPEEDUP_KEY)?))
}

/// The machine keys of an instance JSON (the rest of the document is
/// skipped unread; the instance reader checks it).
fn json_machine(input: &Path) -> anyhow::Result<(Option<u32>, Option<u32>)> {
    #[derive(serde::Deserialize)]
    struct Machine {
        gpus_per_node: Option<serde_json::Value>,
        nvlink_speedup: Option<serde_json::Value>,
    }
    let file =
        std::fs::File::open(input).with_context(|| format!("cannot read {}", input.display()))?;
    if !may_name_machine(&file).with_context(|| format!("cannot read {}", input.display()))? {
        return Ok((None, None));
    }
    let file =
        std::fs::File::open(input).with_context(|| format!("cannot read {}", input.display()))?;
    let Ok(m) = serde_json::from_reader::<_, Machine>(std::io::BufReader::new(file)) else {
        // Not an object of that shape: the instance reader says why.
        return Ok((None, None));
    };
    let read = |key: &str, v: Option<serde_json::Value>| -> anyhow::Result<Option<u32>> {
        let Some(v) = v else { return Ok(None) };
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: \"{key}\" is {v}: expected an integer from 1 to {}",
                    input.display(),
                    u32::MAX
                )
            })?;
        eprintln!("tickopt: {key} {n} from {}", input.display());
        Ok(Some(n))
    };
    Ok((
        read("gpus_per_node", m.gpus_per_node)?,
        read("nvlink_speedup", m.nvlink_speedup)?,
    ))
}

/// Whether a JSON document can hold a key `gpus_per_node` or
/// `nvlink_speedup` at all: false when its bytes contain neither name in
/// quotes (as a key without escapes is written; `gen`'s notes name
/// `gpus_per_node=8` unquoted) and no backslash (a key spelt with
/// escapes). Reading the whole document through `serde_json` to learn that
/// it has neither took about 0.5 s of a 357 MB instance (issue 53); this
/// search takes a few tens of ms.
fn may_name_machine(file: &std::fs::File) -> std::io::Result<bool> {
    use memchr::memmem::Finder;
    use std::io::Read;
    const KEYS: [&[u8]; 2] = [b"\"gpus_per_node\"", b"\"nvlink_speedup\""];
    let finders = KEYS.map(Finder::new);
    // Each block starts with the last bytes of the one before, so a name
    // across two reads is still found.
    let keep = KEYS.iter().map(|k| k.len()).max().unwrap_or(0) - 1;
    let mut buf = vec![0u8; 1 << 20];
    let (mut len, mut reader) = (0, file);
    loop {
        let n = reader.read(&mut buf[len..])?;
        if n == 0 {
            return Ok(false);
        }
        len += n;
        let block = &buf[..len];
        if memchr::memchr(b'\\', block).is_some() || finders.iter().any(|f| f.find(block).is_some())
        {
            return Ok(true);
        }
        let tail = len.min(keep);
        buf.copy_within(len - tail..len, 0);
        len = tail;
    }
}

/// Plans `inst` on `tt` and writes the schedule and the summary (the
/// files were prepared by the caller; nothing appears before the end).
pub fn solve(
    inst: &Instance,
    tt: TwoTier,
    out: Option<OutputFile>,
    summary: Option<OutputFile>,
) -> anyhow::Result<u8> {
    let sol = plan_relay(inst, tt)?;
    let s = sol.summary(inst.slots, inst.bw, inst.total_chunks());
    let files = [
        (out, serde_json::to_string(&sol.schedule.to_json())?),
        (summary, serde_json::to_string_pretty(&s)?),
    ];
    let mut kept = Vec::new();
    for (file, text) in files {
        if let Some(mut f) = file {
            f.write(|w| {
                w.write_all(text.as_bytes())?;
                w.write_all(b"\n")
            })
            .with_context(|| format!("cannot write {}", f.shown()))?;
            kept.push(f);
        }
    }
    for f in kept {
        let shown = f.shown().to_string();
        f.commit()
            .with_context(|| format!("cannot write {shown}"))?;
    }
    eprintln!(
        "relay: {} ticks, lower bound {} ({}), {} x{}; direct optimum {} ticks ({:.2}x); planned in {:.1} ms",
        sol.ticks,
        sol.lower_bound,
        sol.binding().as_str(),
        s.status,
        tt.nvlink_speedup,
        sol.direct_ticks,
        sol.direct_ticks as f64 / sol.ticks.max(1) as f64,
        sol.plan_seconds * 1e3
    );
    Ok(0)
}

/// Whether a summary's text is a relay summary.
pub fn is_relay_summary(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            v.get("kind")?
                .as_str()
                .map(|k| k == crate::relay::solution::SUMMARY_KIND)
        })
        .unwrap_or(false)
}

/// The chunk size a relay summary was planned at (verify reads the
/// instance at it unless --bw says otherwise).
pub fn summary_bw(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get("copy_bw_bits_per_tick")?
        .as_u64()
}

/// `tickopt verify INSTANCE SCHEDULE SUMMARY` for a relay summary: prints
/// one line per check and VERIFIED or REJECTED (exit 0 or 2).
pub fn verify(
    inst: &Instance,
    schedule: &Path,
    summary_text: &str,
    summary: &Path,
) -> anyhow::Result<u8> {
    let claim: RelaySummary = serde_json::from_str(summary_text)
        .with_context(|| format!("{}: not a relay summary", summary.display()))?;
    let s = crate::interop::read_relay_schedule_file(schedule)?;
    let lines = check_relay_claim(inst, &s, &claim);
    let holds = lines.iter().all(|l| l.holds);
    for l in &lines {
        outln!(
            "{} relay     {}",
            if l.holds { "ok   " } else { "FAIL " },
            l.what
        )?;
    }
    outln!(
        "{}: relay claim {} ticks, lower bound {} ({}), status {}",
        if holds { "VERIFIED" } else { "REJECTED" },
        claim.ticks,
        claim.lower_bound,
        claim.bound.as_str(),
        claim.status
    )?;
    Ok(if holds { 0 } else { 2 })
}

#[cfg(test)]
mod tests {
    use super::may_name_machine;
    use std::io::Write;

    fn probe(bytes: &[u8]) -> bool {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        use std::io::Seek;
        f.rewind().unwrap();
        may_name_machine(&f).unwrap()
    }

    #[test]
    fn finds_a_name_or_an_escape_anywhere() {
        assert!(!probe(br#"{"slots": 2, "demands": []}"#));
        assert!(!probe(
            br#"{"notes": "gen gpus_per_node=8 nvlink_speedup=2"}"#
        ));
        assert!(probe(br#"{"gpus_per_node": 8}"#));
        assert!(probe(br#"{"x": 1, "nvlink_speedup": 8}"#));
        assert!(probe(br#"{"gpus\u005fper_node": 8}"#));
        // A name across two 1 MiB reads.
        for cut in [3, 7, 12] {
            let mut doc = vec![b' '; (1 << 20) - cut];
            doc.extend_from_slice(b"\"nvlink_speedup\": 2");
            assert!(probe(&doc), "cut {cut}");
        }
        assert!(!probe(&vec![b' '; 3 << 20]));
    }
}
