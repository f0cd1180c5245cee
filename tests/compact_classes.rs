//! Compact format version 2 (issue 39, DESIGN.md §13): equal components'
//! rounds stored once per class with each member's slots. A kept-classes
//! solve validates as its layout does, writes a file that reads back to
//! the same verdict and layout (v1 stays what it was), and `validate`
//! refuses doctored class files with messages that say what is wrong.

mod common;
use common::*;
use tickopt::audit::read_schedule_facts;
use tickopt::instance::{Instance, Model};
use tickopt::interop::{load_schedule, validate_schedule_file};
use tickopt::schedule::{output_size, write_schedule, write_schedule_file, Format, Schedule};
use tickopt::validate::{validate_compact, validate_expanded};
use tickopt::verify::{verify_claim, Claim};
use tickopt::{solve_instance, SolveRequest};

fn kept(inst: &Instance) -> tickopt::solve::Solution {
    let request = SolveRequest {
        keep_classes: true,
        ..Default::default()
    };
    solve_instance(inst, &request).unwrap()
}

/// Six copies of a random 9-slot part and a 5-clique (two classes): a
/// kept-classes solve has classes, validates without laying
/// them out with the layout's ticks and bits, lays out to exactly the
/// default solve's schedule, and its v2 file (exactly `output_size`
/// bytes, far smaller than v1 of the layout) reads back to the same
/// verdict, the same layout, and a claim that verifies.
#[test]
fn kept_classes_validate_as_their_layout_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for model in [Model::Strict1, Model::Read1Write1] {
        let part = random(model, 9, 5, 16);
        let k5: Vec<(u32, u32, u64)> = (0..5u32)
            .flat_map(|a| ((a + 1)..5).map(move |b| (100 + a, 100 + b, 64)))
            .collect();
        let inst = copies(&part, 6, 10, &k5);
        let sol = kept(&inst);
        let flat = solve_instance(&inst, &SolveRequest::default()).unwrap();
        assert!(sol.schedule.classes.len() >= 2, "{model}: {:?}", sol.stats);
        assert!(flat.schedule.classes.is_empty());
        assert_eq!(*sol.schedule.flat(), flat.schedule, "{model}");
        assert_eq!(sol.ticks, flat.ticks);
        assert_eq!(sol.schedule.ticks(), sol.ticks);
        let report = validate_compact(&inst, &sol.schedule);
        let laid_out = validate_expanded(&inst, &sol.schedule.flat());
        assert!(report.passed(), "{model}: {}", report.one_line());
        assert!(laid_out.passed());
        assert_eq!(
            (report.ticks_total, report.bits_total),
            (laid_out.ticks_total, laid_out.bits_total)
        );

        let mut v2 = Vec::new();
        write_schedule(&inst, &sol.schedule, Format::Compact, &mut v2).unwrap();
        assert_eq!(
            output_size(&inst, &sol.schedule, Format::Compact),
            v2.len() as u128
        );
        let text = String::from_utf8(v2).unwrap();
        assert!(text.contains("\"format\":\"tickopt-compact-v2\""), "{text}");
        let mut v1 = Vec::new();
        write_schedule(&inst, &flat.schedule, Format::Compact, &mut v1).unwrap();
        assert!(String::from_utf8(v1.clone())
            .unwrap()
            .contains("tickopt-compact-v1"));
        assert!(text.len() < v1.len(), "{} >= {}", text.len(), v1.len());
        // The expanded formats spell the layout out, byte for byte.
        for format in [Format::Json, Format::Csv] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write_schedule(&inst, &sol.schedule, format, &mut a).unwrap();
            write_schedule(&inst, &flat.schedule, format, &mut b).unwrap();
            assert_eq!(a, b, "{model} {format:?}");
            assert_eq!(output_size(&inst, &sol.schedule, format), a.len() as u128);
        }

        let path = dir.path().join(format!("{model}.json"));
        write_schedule_file(&inst, &sol.schedule, Format::Compact, &path).unwrap();
        let read = validate_schedule_file(&inst, &path).unwrap();
        assert_eq!(read, report, "{model}");
        assert_eq!(load_schedule(&inst, &path).unwrap(), flat.schedule);
        let claim = Claim::from_value(serde_json::json!({
            "model": inst.model, "ticks": sol.ticks, "lower_bound": sol.lower_bound.ticks,
            "status": sol.status, "witness": sol.lower_bound.witness,
        }))
        .unwrap();
        let v = verify_claim(&inst, &read, &claim, &Default::default());
        assert!(v.holds, "{:?}", v.failures);
        // The audit's facts count every member's transfers: as the
        // expanded file of the layout.
        let expanded = dir.path().join(format!("{model}.expanded.json"));
        write_schedule_file(&inst, &flat.schedule, Format::Json, &expanded).unwrap();
        let (a, b) = (
            read_schedule_facts(&inst, &path).unwrap(),
            read_schedule_facts(&inst, &expanded).unwrap(),
        );
        assert!(a.valid && b.valid);
        assert_eq!(
            (a.ticks, &a.utilisation, &a.slot_load),
            (b.ticks, &b.utilisation, &b.slot_load)
        );
    }
}

/// The hand-made instance of the doctored files: three equal paths
/// a -> b (2 chunks), b -> c (1 chunk) on slots 0-2, 3-5, 6-8, and a
/// two-way pair 9 <-> 10 (2 chunks and 1).
const PATHS: &str =
    "src_slot,dst_slot,bits_total\n0,1,2\n1,2,1\n3,4,2\n4,5,1\n6,7,2\n7,8,1\n9,10,2\n10,9,1\n";

/// The valid v2 file for [`PATHS`]: the class's rounds once (a -> b
/// twice, then b -> c), its three members, and the pair in plain rounds.
const GOOD: &str = r#"{"version":0,"format":"tickopt-compact-v2","model":"STRICT1","ticks":3,
"rounds":[{"repeat":2,"pairs":[[9,10]]},{"repeat":1,"pairs":[[10,9]]}],
"classes":[{"members":[[0,1,2],[3,4,5],[6,7,8]],
"rounds":[{"repeat":2,"pairs":[[0,1]]},{"repeat":1,"pairs":[[1,2]]}]}]}"#;

/// `tickopt validate` of `schedule` against `instance` (CSV text) at bw 1:
/// exit code, stdout and stderr.
fn validate(dir: &std::path::Path, instance: &str, schedule: &str) -> (i32, String, String) {
    let (i, f) = (dir.join("i.csv"), dir.join("s.json"));
    std::fs::write(&i, instance).unwrap();
    std::fs::write(&f, schedule).unwrap();
    let o = tickopt(&["validate", s(&i), s(&f), "--bw", "1", "--model", "STRICT1"]);
    (o.status.code().unwrap(), stdout(&o), stderr(&o))
}

#[test]
fn a_valid_class_file_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = validate(dir.path(), PATHS, GOOD);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("PASS: 3 ticks, 12 bits"), "{out}");
}

/// Each doctored file is refused (exit 2) with its first error naming the
/// class, the member and what is wrong.
#[test]
fn doctored_class_files_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, String, String); 5] = [
        (
            // Member 3 maps local slots 0 and 2 both to slot 9 (its map
            // hits 9 -> 10 and 10 -> 9, both demands): not one to one.
            "not a bijection",
            GOOD.replace(
                r#""rounds":[{"repeat":2,"pairs":[[9,10]]},{"repeat":1,"pairs":[[10,9]]}],"#,
                r#""rounds":[],"#,
            )
            .replace("[6,7,8]]", "[6,7,8],[9,10,9]]"),
            "STRUCT: class 0 member 3: its slot map is not one to one: member 0's slots 0 and 2 both map to slot 9".into(),
        ),
        (
            "two members share a slot",
            GOOD.replace("[6,7,8]]", "[6,7,8],[3,4,5]]"),
            "STRUCT: class 0 member 3 shares slot 3 with class 0 member 1".into(),
        ),
        (
            "a member shares a slot with a plain round",
            GOOD.replace(
                r#"{"repeat":1,"pairs":[[10,9]]}"#,
                r#"{"repeat":1,"pairs":[[10,9],[0,1]]}"#,
            ),
            "STRUCT: class 0 member 0 shares slot 0 with a plain round".into(),
        ),
        (
            "a class round that conflicts",
            GOOD.replace(
                r#"{"repeat":1,"pairs":[[1,2]]}"#,
                r#"{"repeat":1,"pairs":[[0,1],[1,2]]}"#,
            ),
            "STRICT1: class 0 round 1 (member 0's slots): slot participates more than once in one tick".into(),
        ),
        (
            "a pair that is not a demand",
            GOOD.replace("[3,4,5]", "[3,5,4]"),
            "EXTRAS: field classes[0].members[1]: pair 3->5 (local 0->1) is not a demand".into(),
        ),
    ];
    for (what, file, want) in &cases {
        let (code, out, err) = validate(dir.path(), PATHS, file);
        assert_eq!(code, 2, "{what}: {out}{err}");
        let first = out.lines().next().unwrap_or("");
        assert!(first.starts_with("FAIL"), "{what}: {out}");
        assert!(first.contains(want.as_str()), "{what}: {first}");
    }
    // A member whose demand has another size: the instance changes, the
    // file does not.
    let sizes = PATHS.replace("4,5,1", "4,5,2");
    let (code, out, _) = validate(dir.path(), &sizes, GOOD);
    assert_eq!(code, 2);
    assert!(
        out.lines().next().unwrap().contains(
            "STRUCT: class 0 member 1: demand 4->5 has 2 chunks where member 0's matching demand 1->2 has 1"
        ),
        "{out}"
    );
}

/// A v2 file that cannot be read as one is refused before validation,
/// naming the file and the field; a v1 file with a `classes` key reads
/// as v1 always did (unknown keys are ignored), so its verdict is the
/// plain rounds'.
#[test]
fn malformed_class_files_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let no_classes = GOOD.replace(r#""classes""#, r#""klasses""#);
    let (code, _, err) = validate(dir.path(), PATHS, &no_classes);
    assert_ne!(code, 0);
    assert!(err.contains("s.json") && err.contains("classes"), "{err}");
    assert!(err.contains("missing array (format version 2)"), "{err}");
    for (file, want) in [
        (
            GOOD.replace("[6,7,8]", "[6,7]"),
            "classes[0].members[2]: 2 slots where member 0 has 3",
        ),
        (
            GOOD.replace("[[1,2]]", "[[1,3]]"),
            "classes[0].rounds[1].pairs[0]: local slots 1->3: the members have 3 slots (0..3)",
        ),
    ] {
        let (code, out, err) = validate(dir.path(), PATHS, &file);
        assert_eq!(code, 2, "{out}{err}");
        assert!(out.contains(want), "{out}");
    }
    let v1 = GOOD.replace("tickopt-compact-v2", "tickopt-compact-v1");
    let (code, out, _) = validate(dir.path(), PATHS, &v1);
    assert_eq!(code, 2);
    assert!(out.contains("COVERAGE"), "{out}");
}

/// Validation takes the class's rounds once: a class of 20,000 members
/// whose rounds are 10^6 ticks long validates in the time of its maps,
/// with every member's demands covered (a layout would list 20,000 pairs
/// per round; here the check is linear in the file).
#[test]
fn many_members_validate_from_the_maps() {
    let members = 20_000u32;
    let mut demands = Vec::new();
    for k in 0..members {
        let b = 3 * k;
        demands.push((b, b + 1, 1_000_000));
        demands.push((b + 1, b + 2, 500_000));
    }
    let inst = instance(Model::Strict1, 3 * members, 1, &demands);
    let mut schedule = Schedule::new();
    schedule.classes.push(tickopt::schedule::ClassRounds {
        rounds: vec![
            tickopt::schedule::Round {
                repeat: 1_000_000,
                demands: vec![0],
            },
            tickopt::schedule::Round {
                repeat: 500_000,
                demands: vec![1],
            },
        ],
        members: (0..members).map(|k| vec![2 * k, 2 * k + 1]).collect(),
    });
    let report = validate_compact(&inst, &schedule);
    assert!(report.passed(), "{}", report.one_line());
    assert_eq!(report.ticks_total, 1_500_000);
    assert_eq!(report.bits_total, members as u128 * 1_500_000);
    // The file lists each member's three slots once: under 32 bytes each.
    let bytes = output_size(&inst, &schedule, Format::Compact);
    assert!(bytes < 32 * members as u128, "{bytes}");
}

/// The compact writer's size of a schedule with broken classes (sizes
/// are asked of any schedule) is a number, never a panic.
#[test]
fn sizes_of_broken_classes_do_not_panic() {
    use tickopt::schedule::{ClassRounds, Round};
    let inst = instance(Model::Strict1, 3, 1, &[(0, 1, 2), (1, 2, 2)]);
    for members in [vec![], vec![vec![7u32, 0]], vec![vec![0], vec![1, 9]]] {
        let mut s = Schedule::new();
        s.classes.push(ClassRounds {
            rounds: vec![Round {
                repeat: 1,
                demands: vec![0],
            }],
            members,
        });
        for format in [Format::Compact, Format::Json, Format::Csv] {
            assert!(output_size(&inst, &s, format) > 0);
        }
        assert!(!validate_compact(&inst, &s).passed());
    }
}
