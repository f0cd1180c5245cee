//! Relay schedules in `tickopt validate` and `tickopt export` (issue 52):
//! recognised by their `kind` (`interop::is_relay_schedule_file`),
//! checked on the machine the flags or a demands CSV give (refused, with
//! what to add, when neither does), validated by `relay::check` and
//! exported as `tickopt-relay-p2p-v1`, which the reference executor
//! (`interop::relay_p2p::execute`) runs before the file is written.
//! Flags in, files out: no checking of its own here.

use super::relay_cmd::RelayArgs;
use crate::instance::{Instance, Limits, Model, Overrides};
use crate::interop::{read_relay_schedule_file, relay_p2p};
use crate::relay::check::{validate_relay, RelayReport};
use crate::relay::TwoTier;
use crate::schedule::writers::write_atomically;
use anyhow::Context;
use std::path::Path;

/// The files and flags of a command that reads a relay schedule.
pub struct RelayInput<'a> {
    pub instance: &'a Path,
    pub schedule: &'a Path,
    pub overrides: Overrides,
    pub limits: Limits,
    pub machine: &'a RelayArgs,
}

impl<'a> RelayInput<'a> {
    /// The input of a command from its flags.
    pub fn new(
        instance: &'a Path,
        schedule: &'a Path,
        overrides: &super::common::OverrideArgs,
        limits: &super::common::LimitArgs,
        machine: &'a RelayArgs,
    ) -> RelayInput<'a> {
        RelayInput {
            instance,
            schedule,
            overrides: overrides.to_overrides(),
            limits: limits.to_limits(),
            machine,
        }
    }

    /// The machine, the instance (READ1_WRITE1 unless `--model` says
    /// otherwise: relays are defined for it alone, and the checker refuses
    /// STRICT1 by name) and the schedule; `verb` says what is done with it.
    fn read(
        mut self,
        verb: &str,
    ) -> anyhow::Result<(TwoTier, Instance, crate::relay::RelaySchedule)> {
        if self.overrides.model.is_none() {
            self.overrides.model = Some(Model::Read1Write1);
        }
        let read =
            super::common::load_instance_recorded(self.instance, &self.overrides, &self.limits)?;
        let tt = self.machine.machine(&read.machine, self.instance)?.ok_or_else(|| {
            anyhow::anyhow!(
                "{}: a relay schedule (kind \"relay_schedule\") is {verb} on its two-tier machine, which neither the flags nor {} give: add --gpus-per-node G --nvlink-speedup RHO (or record them in the demands CSV as `# gpus_per_node=G` and `# nvlink_speedup=RHO` lines)",
                self.schedule.display(),
                self.instance.display()
            )
        })?;
        let s = read_relay_schedule_file(self.schedule)?;
        Ok((tt, read.instance, s))
    }
}

/// A note when the machine flags were given for a direct schedule: they
/// are for relay schedules, and the direct validator does not use them.
pub fn note_direct(machine: &RelayArgs, schedule: &Path) {
    if machine.given() {
        eprintln!(
            "note: {} is a direct schedule: --gpus-per-node and --nvlink-speedup apply to relay schedules, and are not used",
            schedule.display()
        );
    }
}

/// `tickopt validate` of a relay schedule: the report's line and error
/// (or the report as JSON); exit 0 on PASS, 2 on FAIL.
pub fn validate(input: RelayInput, json: bool) -> anyhow::Result<u8> {
    let (tt, inst, s) = input.read("validated")?;
    let report = RelayReport::of(&inst, tt, &s);
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!("{}", report.one_line())?;
        for e in &report.errors {
            outln!("  {}", serde_json::to_string(e)?)?;
        }
    }
    Ok(if report.passed() { 0 } else { 2 })
}

/// `tickopt export --to p2p-json` of a relay schedule: the schedule must
/// validate; its program is written as text, read back, and executed by
/// the reference executor, which must deliver exactly the all-to-all's
/// bytes; only then is `out` written. Other formats are refused: they
/// have no forwarding steps.
pub fn export(input: RelayInput, to: &str, p2p: bool, out: &Path) -> anyhow::Result<u8> {
    if !p2p {
        anyhow::bail!(
            "{}: a relay schedule cannot be exported --to {to}: that format has no forwarding steps (a staging buffer, received into, then sent on) for relayed chunks; export it with --to p2p-json (tickopt-relay-p2p-v1, doc/formats.md \"Relay program\")",
            input.schedule.display()
        );
    }
    let shown = input.schedule.display().to_string();
    let (tt, inst, s) = input.read("exported")?;
    validate_relay(&inst, tt, &s).with_context(|| {
        format!("{shown}: cannot export a relay schedule that does not validate")
    })?;
    let program =
        relay_p2p::export(&inst, tt, &s).with_context(|| format!("cannot export {shown}"))?;
    let text = program.to_json_text()?;
    let back: relay_p2p::RelayP2pProgram =
        serde_json::from_str(&text).context("the exported relay program does not re-read")?;
    if back.ticks != s.ticks {
        anyhow::bail!(
            "the exported relay program has {} ticks, the schedule {}",
            back.ticks,
            s.ticks
        );
    }
    let ran = relay_p2p::execute(&back, &inst, tt)
        .context("the exported relay program does not deliver the all-to-all when executed")?;
    write_atomically(out, |w| w.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "{}: {} ranks, {} ticks, {} operations; executed: every output byte delivered once ({} bytes, {} staged on the way)",
        out.display(),
        inst.slots,
        s.ticks,
        ran.ops,
        ran.output_bytes,
        ran.staged_bytes
    );
    Ok(0)
}
