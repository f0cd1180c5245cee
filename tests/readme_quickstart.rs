//! The README's quick start, run as written: a figure, flag or exit status
//! that drifts fails here (issue 55).
//!
//! The block under "## Quick start" (and then the "Seconds" example's,
//! which uses its `$T`) runs in one bash session, from a
//! stand-in for the clone's root that holds `target/release/tickopt` (the
//! binary under test), `instances/` and `tests/` (links to the clone's), so
//! every line runs unchanged except `cargo build` (this test's binary is
//! already built). Each command's exit status must be the one its comment
//! names (`exit N`; 0 when none is named), and each `#   ` line below a
//! command lists pieces of what it prints, separated by `...`, found in
//! order. The root is left as it was: the block writes only to its scratch
//! directory (`mktemp -d`, inside this test's own temporary directory).

use std::path::Path;
use std::process::Command;

/// One command of the block: its text, its expected exit status, and the
/// pieces each `#   ` line below it expects, in order.
struct Step {
    command: String,
    exit: i32,
    expect: Vec<Vec<String>>,
}

/// The lines of the first ```sh block after `heading`.
fn block(readme: &str, heading: &str) -> Vec<String> {
    let at = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README.md has no {heading:?}"));
    readme[at..]
        .lines()
        .skip_while(|l| l.trim() != "```sh")
        .skip(1)
        .take_while(|l| l.trim() != "```")
        .map(String::from)
        .collect()
}

/// The exit status a command's trailing comment names (`exit N`), else 0.
fn expected_exit(command: &str) -> i32 {
    let Some((_, comment)) = command.split_once(" # ") else {
        return 0;
    };
    comment
        .split("exit ")
        .nth(1)
        .and_then(|rest| {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse().ok()
        })
        .unwrap_or(0)
}

fn steps(lines: &[String]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for line in lines {
        if let Some(expect) = line.strip_prefix("#   ") {
            let step = steps
                .last_mut()
                .unwrap_or_else(|| panic!("{line:?} follows no command"));
            let pieces = expect
                .split("...")
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            step.expect.push(pieces);
        } else if let Some(open) = steps.last_mut().filter(|s| s.command.ends_with('\\')) {
            // A continued command: the next line goes on.
            open.command.push('\n');
            open.command.push_str(line);
        } else if !line.trim().is_empty() && !line.starts_with('#') {
            steps.push(Step {
                command: line.clone(),
                exit: expected_exit(line),
                expect: Vec::new(),
            });
        }
    }
    steps
}

/// The stand-in root: the binary where the README builds it, and the
/// clone's bundled files.
fn root(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("clone");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(root.join("target/release")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_tickopt"),
        root.join("target/release/tickopt"),
    )
    .unwrap();
    for d in ["instances", "tests"] {
        std::os::unix::fs::symlink(repo.join(d), root.join(d)).unwrap();
    }
    root
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_quick_start_runs_as_written_and_prints_what_it_says() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    // The "Seconds" example runs in the same session, after the quick start.
    let mut lines = block(&readme, "## Quick start");
    lines.extend(block(&readme, "## Seconds: the best chunk size, proven"));
    let steps = steps(&lines);
    assert!(steps.len() > 20, "{} commands", steps.len());
    assert!(steps
        .iter()
        .any(|s| s.command.starts_with("cd \"$(mktemp -d)\"")));
    let dir = tempfile::tempdir().unwrap();
    let root = root(dir.path());
    let (out, tmp) = (dir.path().join("out"), dir.path().join("tmp"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let mut script = String::new();
    for (i, step) in steps.iter().enumerate() {
        if step.command.starts_with("cargo build") {
            continue;
        }
        let o = out.join(i.to_string());
        script.push_str(&format!(
            "{{\n{}\n}} > '{}.out' 2>&1 < /dev/null; echo $? > '{}.rc'\n",
            step.command,
            o.display(),
            o.display()
        ));
    }
    let o = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&root)
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (i, step) in steps.iter().enumerate() {
        if step.command.starts_with("cargo build") {
            continue;
        }
        let o = out.join(i.to_string());
        let printed = std::fs::read_to_string(o.with_extension("out")).unwrap();
        let rc: i32 = std::fs::read_to_string(o.with_extension("rc"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(rc, step.exit, "{}\n{printed}", step.command);
        for pieces in &step.expect {
            let mut rest = printed.as_str();
            for piece in pieces {
                let at = rest.find(piece.as_str()).unwrap_or_else(|| {
                    panic!(
                        "{}: {piece:?} not printed (in order):\n{printed}",
                        step.command
                    )
                });
                rest = &rest[at + piece.len()..];
            }
        }
    }
    // Nothing was written beside the clone's files: all went to the scratch
    // directory.
    assert_eq!(listing(&root), ["instances", "target", "tests"]);
    assert_eq!(listing(&root.join("target")), ["release"]);
    assert_eq!(listing(&tmp).len(), 1, "one scratch directory");
}

#[test]
fn a_named_exit_status_is_read_from_the_comment() {
    assert_eq!(expected_exit("$T audit a b   # exit 2, by design"), 2);
    assert_eq!(expected_exit("$T validate a b   # exit 0 PASS, 2 FAIL"), 0);
    assert_eq!(expected_exit("$T solve a"), 0);
}
