//! Outputs (issue 14 item 4): every path checked before anything is
//! written, no two outputs on one file, special files written in place,
//! symlinks followed, exact output sizes and the size limit, and no output
//! or temporary file left by a command that fails or is killed by a signal.

mod common;
use common::*;
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tickopt::instance::Model;
use tickopt::schedule::{output_size, write_schedule, Format, Schedule};

fn temps(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|n| n.starts_with(".tickopt-"))
        .collect()
}

fn small_instance() -> PathBuf {
    data("k5_m3_strict1.json")
}

/// A one-demand instance JSON of `bits` bits at bw 1 in `dir`.
fn huge_instance(dir: &Path, bits: u64) -> PathBuf {
    let p = dir.join("huge.json");
    fs::write(
        &p,
        format!(
            r#"{{"version":0,"model":"STRICT1","slots":2,"copy_bw_bits_per_tick":1,"demands":[{{"src_slot":0,"dst_slot":1,"bits_total":{bits}}}]}}"#
        ),
    )
    .unwrap();
    p
}

#[test]
fn summary_path_that_is_a_directory_fails_before_the_schedule_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    let sub = dir.path().join("somedir");
    fs::create_dir(&sub).unwrap();
    for summary in [format!("{}/", s(&sub)), s(&sub).to_string()] {
        let o = run(&[
            "solve",
            s(&small_instance()),
            "--out",
            s(&out),
            "--summary",
            &summary,
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
        assert_eq!(listing(dir.path()), vec!["somedir"], "nothing written");
    }
    // A summary in a directory that does not exist: the same.
    let missing = dir.path().join("nodir/s.json");
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&out),
        "--summary",
        s(&missing),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
    assert_eq!(listing(dir.path()), vec!["somedir"]);
    // A trailing slash on a name that does not exist names a directory too.
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        &format!("{}/", s(&out)),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(listing(dir.path()), vec!["somedir"]);
}

#[test]
fn out_and_summary_on_the_same_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.json");
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&same),
        "--summary",
        s(&same),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("are the same file"), "{}", stderr(&o));
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
    // Through a symlink, and with the file existing: still the same file,
    // and the existing file is left as it was.
    fs::write(&same, "keep\n").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("same.json", &link).unwrap();
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&same),
        "--summary",
        s(&link),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("are the same file"), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&same).unwrap(), "keep\n");
    // A dangling symlink to a new file, and that file's own name.
    let new_link = dir.path().join("new_link.json");
    std::os::unix::fs::symlink("new.json", &new_link).unwrap();
    let new = dir.path().join("new.json");
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&new),
        "--summary",
        s(&new_link),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!new.exists());
    assert!(temps(dir.path()).is_empty());
}

#[test]
fn symlinks_are_followed_to_their_target_and_stay_links() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.json");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("target.json", &link).unwrap();
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink("created.json", &dangling).unwrap();
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&link),
        "--summary",
        s(&dangling),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    let v = run(&["validate", s(&small_instance()), s(&target)]);
    assert_eq!(v.status.code(), Some(0), "{}", stdout(&v));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("created.json")).unwrap())
            .unwrap();
    assert!(summary["ticks"].as_u64().is_some());
    assert!(temps(dir.path()).is_empty());
}

/// Reads a FIFO in a thread (so the writer's open does not block forever).
fn read_fifo(path: PathBuf) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || fs::read(path).unwrap())
}

#[cfg(unix)]
fn is_fifo(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fs::symlink_metadata(p).unwrap().file_type().is_fifo()
}

#[test]
fn fifos_are_written_in_place_and_survive() {
    let dir = tempfile::tempdir().unwrap();
    let regular = dir.path().join("regular.json");
    let o = run(&["solve", s(&small_instance()), "--out", s(&regular)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fifo = dir.path().join("fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let reader = read_fifo(fifo.clone());
    let o = run(&["solve", s(&small_instance()), "--out", s(&fifo)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), fs::read(&regular).unwrap());
    assert!(is_fifo(&fifo), "the FIFO is still a FIFO");
    // The summary into a FIFO too, through a symlink.
    let link = dir.path().join("fifo_link");
    std::os::unix::fs::symlink("fifo", &link).unwrap();
    let reader = read_fifo(fifo.clone());
    let o = run(&["solve", s(&small_instance()), "--summary", s(&link)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
    assert!(summary["status"].is_string());
    assert!(is_fifo(&fifo));
    assert!(temps(dir.path()).is_empty());
}

#[cfg(unix)]
fn is_char_device(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fs::symlink_metadata(p)
        .unwrap()
        .file_type()
        .is_char_device()
}

#[test]
fn character_devices_are_written_in_place_and_survive() {
    // As root, a node of our own (a copy of /dev/null's numbers): a broken
    // writer would replace it, not the system's /dev/null. Otherwise the
    // real /dev/null, which a non-root process cannot replace anyway.
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("null");
    let made = std::process::Command::new("mknod")
        .arg(&own)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let dev = if made {
        own
    } else {
        PathBuf::from("/dev/null")
    };
    let sum = dir.path().join("s.json");
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&dev),
        "--summary",
        s(&sum),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        is_char_device(&dev),
        "{} is still a character device",
        dev.display()
    );
    assert!(sum.exists());
    // Both outputs onto it: a device takes any number of writers.
    let o = run(&[
        "solve",
        s(&small_instance()),
        "--out",
        s(&dev),
        "--summary",
        s(&dev),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char_device(&dev));
    assert!(temps(dir.path()).is_empty());
}

#[test]
fn schedules_above_the_output_limit_are_refused_with_size_and_remedy() {
    let dir = tempfile::tempdir().unwrap();
    // 10^18 ticks: about 45 EB of JSON.
    let inst = huge_instance(dir.path(), 1_000_000_000_000_000_000);
    let out = dir.path().join("x.json");
    let sum = dir.path().join("x.summary.json");
    let o = run(&["solve", s(&inst), "--out", s(&out), "--summary", s(&sum)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("above the output limit of 4294967296 bytes"),
        "{e}"
    );
    assert!(e.contains("--max-output-bytes"), "{e}");
    assert!(e.contains("--format compact"), "{e}");
    assert_eq!(
        listing(dir.path()),
        vec!["huge.json"],
        "no output, no temp file"
    );
    // The compact form of the same schedule is one round.
    let out = dir.path().join("x.compact.json");
    let o = run(&["solve", s(&inst), "--out", s(&out), "--format", "compact"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::metadata(&out).unwrap().len() < 400);
}

#[test]
fn the_limit_is_exact_at_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (fmt, name) in [("json", "s.json"), ("csv", "s.csv"), ("compact", "c.json")] {
        let out = dir.path().join(name);
        let args = |limit: Option<String>| {
            let mut v = vec![
                "solve".to_string(),
                s(&small_instance()).into(),
                "--format".into(),
                fmt.into(),
                "--out".into(),
                s(&out).into(),
            ];
            if let Some(l) = limit {
                v.push("--max-output-bytes".into());
                v.push(l);
            }
            v
        };
        let o = bin().args(args(None)).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let size = fs::metadata(&out).unwrap().len();
        fs::remove_file(&out).unwrap();
        let o = bin().args(args(Some(size.to_string()))).output().unwrap();
        assert!(o.status.success(), "{fmt}: {}", stderr(&o));
        assert_eq!(fs::metadata(&out).unwrap().len(), size);
        fs::remove_file(&out).unwrap();
        let o = bin()
            .args(args(Some((size - 1).to_string())))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{fmt}");
        assert!(
            stderr(&o).contains(&format!("would be {size} bytes")),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
    }
    assert!(temps(dir.path()).is_empty());
    let o = run(&["solve", s(&small_instance()), "--max-output-bytes", "4X"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_failing_command_leaves_no_output_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(
        &bad,
        "{\"version\":0,\"model\":\"STRICT1\",\"slots\":2,\"slots\":3}",
    )
    .unwrap();
    let out = dir.path().join("o.json");
    let sum = dir.path().join("s.json");
    let o = run(&["solve", s(&bad), "--out", s(&out), "--summary", s(&sum)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(listing(dir.path()), vec!["bad.json"]);
}

/// Waits up to `secs` for `cond`.
fn wait_for(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn temporary_files_are_removed_on_sigterm_and_sigint() {
    use std::os::unix::process::ExitStatusExt;
    for (sig, num) in [("TERM", 15), ("INT", 2)] {
        let dir = tempfile::tempdir().unwrap();
        // The schedule goes to a FIFO nobody reads: the command blocks there,
        // with the summary's temporary file already created.
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let sum = dir.path().join("s.json");
        let mut child = bin()
            .args([
                "solve",
                s(&small_instance()),
                "--out",
                s(&fifo),
                "--summary",
                s(&sum),
            ])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            wait_for(30, || !temps(dir.path()).is_empty()),
            "the summary's temporary file appears"
        );
        std::thread::sleep(Duration::from_millis(200));
        let st = std::process::Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(num), "dies of SIG{sig}: {status:?}");
        assert_eq!(listing(dir.path()), vec!["fifo"], "SIG{sig}: nothing left");
        assert!(is_fifo(&fifo));
    }
}

fn random_schedule(inst: &tickopt::instance::Instance, picks: &[(u8, u64)]) -> Schedule {
    // Rounds of random single demands and random repeats; coverage need not
    // be exact (the size formula follows the expansion either way).
    let mut sch = Schedule::new();
    let n = inst.demands().len();
    for &(d, r) in picks {
        sch.push(r, vec![(d as usize % n) as u32]);
    }
    sch
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// `output_size` is the exact byte count of what the writers write.
    #[test]
    fn output_size_is_exact(
        bw in 1u64..2000,
        demands in proptest::collection::vec((0u32..12, 0u32..12, 1u64..5_000), 1..6),
        picks in proptest::collection::vec((any::<u8>(), 1u64..40), 0..12),
        strict in any::<bool>(),
    ) {
        let demands: Vec<(u32, u32, u64)> = demands.into_iter()
            .map(|(a, b, bits)| if a == b { (a, b + 1, bits) } else { (a, b, bits) })
            .collect();
        let model = if strict { Model::Strict1 } else { Model::Read1Write1 };
        let inst = instance(model, 13, bw, &demands);
        let sch = random_schedule(&inst, &picks);
        for format in [Format::Json, Format::Csv, Format::Compact] {
            let mut buf = Vec::new();
            write_schedule(&inst, &sch, format, &mut buf).unwrap();
            prop_assert_eq!(output_size(&inst, &sch, format), buf.len() as u128);
        }
        // A solved schedule, too.
        let sol = tickopt::solve_instance(&inst, &Default::default()).unwrap();
        for format in [Format::Json, Format::Csv, Format::Compact] {
            let mut buf = Vec::new();
            write_schedule(&inst, &sol.schedule, format, &mut buf).unwrap();
            prop_assert_eq!(output_size(&inst, &sol.schedule, format), buf.len() as u128);
        }
    }
}

#[test]
fn output_size_counts_tick_numbers_across_digit_boundaries() {
    // CSV tick numbers from 0 to 10^5 + 3: every digit length.
    let inst = instance(Model::Strict1, 2, 1, &[(0, 1, 100_004)]);
    let mut sch = Schedule::new();
    sch.push(100_004, vec![0]);
    let mut buf = Vec::new();
    write_schedule(&inst, &sch, Format::Csv, &mut buf).unwrap();
    assert_eq!(output_size(&inst, &sch, Format::Csv), buf.len() as u128);
    // 10^18 ticks: computed in O(rounds), not by writing.
    let inst = instance(Model::Strict1, 2, 1, &[(0, 1, 1_000_000_000_000_000_000)]);
    let mut sch = Schedule::new();
    sch.push(1_000_000_000_000_000_000, vec![0]);
    let json = output_size(&inst, &sch, Format::Json);
    assert!(json > 40 * 1_000_000_000_000_000_000u128, "{json}");
}

#[test]
fn a_compact_schedule_above_the_limit_is_not_told_to_use_compact() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("a.csv");
    std::fs::write(
        &inst,
        "src_slot,dst_slot,bits_total\n0,1,64\n1,2,64\n2,0,64\n",
    )
    .unwrap();
    let out = dir.path().join("x.json");
    let o = run(&[
        "solve",
        s(&inst),
        "--bw",
        "8",
        "--out",
        s(&out),
        "--format",
        "compact",
        "--max-output-bytes",
        "16",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("--max-output-bytes"), "{e}");
    assert!(!e.contains("with --format compact"), "{e}");
    assert!(e.contains("already the smallest"), "{e}");
    assert!(!out.exists());
}

/// An output under a path that is no directory: each command says what it
/// could not write and why, once (the io error was printed twice).
#[test]
fn an_unwritable_output_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    fs::write(&file, "").unwrap();
    let under = file.join("x");
    let (inst, out) = (small_instance(), under.to_str().unwrap().to_string());
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/demo");
    for args in [
        vec!["solve", s(&inst), "--out", &out],
        vec!["bench", s(&set), "--out", &out],
        vec!["gen", "ring", "--n", "4", "-o", &out],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        let line = err
            .lines()
            .find(|l| l.starts_with("tickopt: error:"))
            .unwrap_or_else(|| panic!("{args:?}: no error line in {err}"));
        assert!(line.contains(&out), "{args:?}: {line}");
        assert_eq!(
            line.matches("Not a directory").count(),
            1,
            "{args:?}: {line}"
        );
    }
}
