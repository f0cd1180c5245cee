//! Set-up shared by the import/export tests: directory listings, the
//! `import` and `export` command lines, and a solved instance on disk.

use super::{run, s, stderr};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Names in `dir` (sorted), to check what a command left there.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The command line `import FILE --from FORMAT [--bw BW] --out OUT`
/// followed by `extra`.
pub fn import_args<'a>(
    file: &'a Path,
    from: &'a str,
    bw: Option<&'a str>,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["import", s(file), "--from", from];
    if let Some(bw) = bw {
        args.extend(["--bw", bw]);
    }
    args.extend(["--out", s(out)]);
    args.extend_from_slice(extra);
    args
}

/// Runs `export INST SCHED [--bw BW] --to FORMAT --out OUT` followed by
/// `extra`.
pub fn export(
    inst: &Path,
    sched: &Path,
    bw: Option<&str>,
    to: &str,
    out: &Path,
    extra: &[&str],
) -> Output {
    let mut args = vec!["export", s(inst), s(sched)];
    if let Some(bw) = bw {
        args.extend(["--bw", bw]);
    }
    args.extend(["--to", to, "--out", s(out)]);
    args.extend_from_slice(extra);
    run(&args)
}

/// Writes `csv` as `dir/i.csv` and solves it at `bw` bits per tick into
/// `dir/s.json` (the solve must succeed); returns both paths.
pub fn solved_csv(dir: &Path, csv: &str, bw: &str) -> (PathBuf, PathBuf) {
    let inst = dir.join("i.csv");
    std::fs::write(&inst, csv).unwrap();
    let sched = dir.join("s.json");
    let o = run(&["solve", s(&inst), "--bw", bw, "--out", s(&sched)]);
    assert!(o.status.success(), "{}", stderr(&o));
    (inst, sched)
}

/// A two-slot instance solved at 12 bits per tick (not whole bytes), then
/// exported `--to` `format` as `dir/p.<ext>`: the export must be refused
/// (exit code 1) with that said, and write nothing.
pub fn assert_export_refused_at_12_bits(format: &str, ext: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (inst, sched) = solved_csv(
        dir.path(),
        "src_slot,dst_slot,bits_total\n0,1,100\n1,0,12\n",
        "12",
    );
    let out = dir.path().join(format!("p.{ext}"));
    let o = export(&inst, &sched, Some("12"), format, &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
    assert!(
        stderr(&o).contains("not a whole number of bytes"),
        "{format}: {}",
        stderr(&o)
    );
    assert!(!out.exists(), "{format}: {} written", out.display());
}
