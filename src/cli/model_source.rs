//! Where the model of a CSV instance comes from when `--model` is not
//! given: the schedules and summary the command checks.
//!
//! A demands CSV has no model of its own, so `verify`, `validate` and
//! `audit` would otherwise check a READ1_WRITE1 schedule against STRICT1
//! and report a confusing mismatch. The files that state a model decide
//! instead, and stderr says which: an instance JSON keeps its own model
//! (and stderr says so when a checked file states another: `solve
//! --model` may have overridden it), `--model` always wins, files that
//! disagree are refused (the user must say which model is meant), and
//! with no file stating one STRICT1 stays the default.

use crate::instance::{is_instance_json, Model, Overrides};
use crate::interop::read_schedule_file;
use crate::schedule::readers::stream_schedule_file;
use crate::schedule::ScheduleInput;
use std::io::Read;
use std::path::Path;

/// The model a schedule file states (compact and JSON schedules do; a CSV
/// schedule does not). An expanded JSON is streamed once to find it.
pub fn schedule_model(path: &Path) -> anyhow::Result<Option<Model>> {
    input_model(&read_schedule_file(path)?, path)
}

/// [`schedule_model`] of a file already read with [`read_schedule_file`].
pub fn input_model(input: &ScheduleInput, path: &Path) -> anyhow::Result<Option<Model>> {
    Ok(match input {
        ScheduleInput::Compact(c) => Some(c.model),
        ScheduleInput::Levels(_) => None, // an MSCCL program states no model
        ScheduleInput::Expanded => stream_schedule_file(path, &mut |_| {})?,
    })
}

/// The model a summary JSON states, if it is one of ours.
pub fn summary_model(text: &str) -> Option<Model> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("model")?.as_str()?.parse().ok()
}

/// Whether the instance file is a demands CSV (not an instance JSON).
fn is_csv(input: &Path) -> anyhow::Result<bool> {
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(input)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", input.display()))?
        .take(512)
        .read_to_end(&mut head)?;
    Ok(!is_instance_json(&head))
}

/// Sets `overrides.model` from the files that state one (`stated`: file
/// name and its model, `None` where it states none) when `input` is a CSV
/// and `--model` was not given. Files that disagree are an error.
pub fn model_from_files(
    input: &Path,
    overrides: &mut Overrides,
    stated: &[(String, Option<Model>)],
) -> anyhow::Result<()> {
    if overrides.model.is_some() || !is_csv(input)? {
        return Ok(());
    }
    let named: Vec<(&String, Model)> = stated
        .iter()
        .filter_map(|(f, m)| m.map(|m| (f, m)))
        .collect();
    let Some(&(first_file, model)) = named.first() else {
        // Said, not silent: a READ1_WRITE1 schedule checked as STRICT1
        // fails with STRICT1 errors, and the user should see why.
        eprintln!(
            "tickopt: model STRICT1 (the default: {} is a CSV without a model and no file given states one; --model overrides)",
            input.display()
        );
        return Ok(());
    };
    if let Some((other_file, other)) = named.iter().find(|(_, m)| *m != model) {
        anyhow::bail!(
            "{first_file} says model {model} but {other_file} says {other}; \
             {} is a CSV without a model: pass --model to say which is meant",
            input.display()
        );
    }
    let from: Vec<&str> = named.iter().map(|(f, _)| f.as_str()).collect();
    eprintln!(
        "tickopt: model {model} from {} ({} is a CSV without a model; --model overrides)",
        from.join(" and "),
        input.display()
    );
    overrides.model = Some(model);
    Ok(())
}

/// Says on stderr when the model in use came from an instance JSON and a
/// checked file states another (`stated` as for [`model_from_files`]): a
/// schedule solved with `solve --model` other than the instance's fails
/// under the instance's, and the user should see why and how to check it
/// as it was solved. Nothing when `--model` was given or the model came
/// from the files (`overrides.model` set).
pub fn note_instance_model(
    input: &Path,
    used: Model,
    overrides: &Overrides,
    stated: &[(String, Option<Model>)],
) {
    if overrides.model.is_some() {
        return;
    }
    if let Some((file, other)) = stated
        .iter()
        .find_map(|(f, m)| m.filter(|&m| m != used).map(|m| (f, m)))
    {
        eprintln!(
            "tickopt: model {used} from {} (the instance's own); {file} says {other}: \
             pass --model {other} to check it as it was solved",
            input.display()
        );
    }
}
