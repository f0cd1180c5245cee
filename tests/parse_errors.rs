//! Bad input is refused with the file, line and field, exit status 1, and
//! no output file; no input of any kind panics a parser.

mod common;
use common::*;
use proptest::prelude::*;
use tickopt::instance::{read_instance_bytes, Limits, Model, Overrides};

fn csv_err(text: &[u8], bw: Option<u64>, slots: Option<u32>) -> String {
    let o = Overrides {
        model: None,
        bw,
        slots,
        ports: None,
    };
    read_instance_bytes(text, "d.csv", &o, &Limits::default())
        .expect_err("must be refused")
        .to_string()
}

fn json_err(text: &str) -> String {
    read_instance_bytes(
        text.as_bytes(),
        "i.json",
        &Overrides::default(),
        &Limits::default(),
    )
    .expect_err("must be refused")
    .to_string()
}

#[test]
fn csv_errors_name_file_line_and_field() {
    let cases: &[(&[u8], Option<u32>, &str)] = &[
        (
            b"src_slot,dst_slot,bits_total\n0,1,x\n",
            None,
            "d.csv:2: field bits_total: \"x\" is not an integer",
        ),
        (
            b"0,1,10\n0,1,-5\n",
            None,
            "d.csv:2: field bits_total: \"-5\" is negative",
        ),
        (
            b"0,1,99999999999999999999999\n",
            None,
            "d.csv:1: field bits_total: \"99999999999999999999999\" overflows",
        ),
        (
            b"# c\n3,3,10\n",
            None,
            "d.csv:2: field dst_slot: src_slot equals dst_slot: 3",
        ),
        (
            b"0,7,10\n",
            Some(4),
            "d.csv:1: field dst_slot: slot out of bounds: 0->7 with slots=4",
        ),
        (b"0,1\n", None, "d.csv:1: field bits_total: missing column"),
        (
            b"src_slot,bits_total\n0,5\n",
            None,
            "d.csv:1: field dst_slot: header is missing column(s) dst_slot",
        ),
        (
            b"0,1,0\n",
            None,
            "d.csv:1: field bits_total: bits_total must be > 0",
        ),
        (b"0,1,10\n\xff\xfe,2,3\n", None, "d.csv:2: invalid UTF-8"),
        (b"# only a comment\n\n", None, "no demands found"),
        (
            b"0,1.5,10\n",
            None,
            "d.csv:1: field dst_slot: \"1.5\" is not an integer",
        ),
    ];
    for (text, slots, want) in cases {
        let got = csv_err(text, Some(8), *slots);
        assert!(
            got.contains(want),
            "input {:?}: got {got:?}, want {want:?}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn csv_needs_bw_and_bw_must_be_positive() {
    assert!(csv_err(b"0,1,10\n", None, None).contains("--bw"));
    assert!(csv_err(b"0,1,10\n", Some(0), None).contains("bandwidth per tick must be > 0"));
    assert!(csv_err(b"", None, None).contains("empty file"));
}

#[test]
fn json_errors_name_the_field() {
    let base = |body: &str| {
        format!("{{\"version\":0,\"model\":\"STRICT1\",\"slots\":4,\"copy_bw_bits_per_tick\":8,{body}}}")
    };
    let cases = [
        (base("\"demands\":[{\"src_slot\":0,\"dst_slot\":1,\"bits_total\":-3}]"), "field demands[0].bits_total: -3 is negative"),
        (base("\"demands\":[{\"src_slot\":0,\"dst_slot\":1,\"bits_total\":1.5}]"), "field demands[0].bits_total: 1.5 is not an integer"),
        (base("\"demands\":[{\"src_slot\":0,\"dst_slot\":9,\"bits_total\":1}]"), "field demands[0]: slot out of bounds"),
        (base("\"demands\":[{\"src_slot\":2,\"dst_slot\":2,\"bits_total\":1}]"), "field demands[0]: src_slot equals dst_slot"),
        (base("\"demands\":[{\"src_slot\":0,\"bits_total\":1}]"), "field demands[0].dst_slot: missing"),
        (base("\"demands\":5"), "field demands: expected an array"),
        ("{\"version\":0,\"model\":\"STRICT2\",\"slots\":4,\"copy_bw_bits_per_tick\":8,\"demands\":[]}".into(), "field model: unknown model \"STRICT2\""),
        ("{\"version\":0,\"model\":\"STRICT1\",\"slots\":4,\"copy_bw_bits_per_tick\":0,\"demands\":[]}".into(), "field copy_bw_bits_per_tick: bandwidth per tick must be > 0"),
        ("{\"version\":1}".into(), "field version: instance.version must be 0"),
        ("{\"version\":0,\n\"model\":}".into(), "i.json:2: invalid JSON"),
        ("{\"version\":0,\"model\":\"STRICT1\",\"slots\":4,\"copy_bw_bits_per_tick\":8,\"demands\":[{\"src_slot\":0,\"dst_slot\":1,\"bits_total\":18446744073709551615},{\"src_slot\":0,\"dst_slot\":1,\"bits_total\":1}]}".into(), "overflows u64"),
    ];
    for (text, want) in cases {
        let got = json_err(&text);
        assert!(
            got.contains(want),
            "input {text}: got {got:?}, want {want:?}"
        );
    }
}

#[test]
fn limits_are_reported_not_panicked_on() {
    let o = Overrides {
        model: None,
        bw: Some(8),
        slots: None,
        ports: None,
    };
    let err = read_instance_bytes(b"0,4294967295,10\n", "big.csv", &o, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("above the limit"), "{err}");
    let tight = Limits {
        max_slots: 16,
        max_demands: 2,
    };
    let err = read_instance_bytes(b"0,1,1\n1,2,1\n2,3,1\n", "many.csv", &o, &tight)
        .unwrap_err()
        .to_string();
    assert!(err.contains("limit"), "{err}");
}

#[test]
fn duplicates_merge_and_chunks_round_up() {
    let o = Overrides {
        model: Some(Model::Read1Write1),
        bw: Some(10),
        slots: Some(5),
        ports: None,
    };
    let inst = read_instance_bytes(
        b"src_slot,dst_slot,bits_total\n0,1,15\n0,1,6\n# x\n\n2,0,10\n",
        "d.csv",
        &o,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(inst.slots, 5);
    assert_eq!(inst.demands().len(), 2);
    assert_eq!(inst.demands()[0].bits, 21);
    assert_eq!(inst.chunks(0), 3);
    assert_eq!(inst.chunk_len(0, 2), 1);
    assert_eq!(inst.chunks(1), 1);
}

#[test]
fn cli_bad_input_exits_1_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "0,1,10\n2,x,5\n").unwrap();
    let out = dir.path().join("s.json");
    let summary = dir.path().join("sum.json");
    let o = run(&[
        "solve",
        bad.to_str().unwrap(),
        "--bw",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("bad.csv:2: field dst_slot: \"x\" is not an integer"),
        "{err}"
    );
    assert!(!out.exists() && !summary.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary files left behind"
    );
    // Unknown model on the command line.
    let o = run(&[
        "solve",
        bad.to_str().unwrap(),
        "--bw",
        "4",
        "--model",
        "FOO",
    ]);
    assert_eq!(o.status.code(), Some(1), "usage errors exit 1");
    assert!(stderr(&o).contains("unknown model"));
    // Missing file.
    let o = run(&[
        "bounds",
        dir.path().join("nope.csv").to_str().unwrap(),
        "--bw",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nope.csv: cannot read"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn parsers_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300), bw in proptest::option::of(0u64..5)) {
        let o = Overrides { model: None, bw, slots: None, ports: None };
        let _ = read_instance_bytes(&bytes, "fuzz", &o, &Limits::default());
        let _ = tickopt::schedule::readers::parse_compact(&bytes);
    }

    #[test]
    fn parsers_never_panic_on_mutated_inputs(pos in any::<prop::sample::Index>(), byte in any::<u8>(), which in 0usize..3, cut in any::<prop::sample::Index>()) {
        let samples: [&[u8]; 3] = [
            b"src_slot,dst_slot,bits_total\n0,1,100\n1,2,5\n# c\n2,0,18446744073709551615\n",
            br#"{"version":0,"model":"READ1_WRITE1","slots":3,"copy_bw_bits_per_tick":7,"demands":[{"src_slot":0,"dst_slot":1,"bits_total":100},{"src_slot":2,"dst_slot":1,"bits_total":1}]}"#,
            br#"{"version":0,"format":"tickopt-compact-v1","model":"STRICT1","rounds":[{"repeat":2,"pairs":[[0,1]]}]}"#,
        ];
        let mut v = samples[which].to_vec();
        let i = pos.index(v.len());
        v[i] = byte;
        v.truncate(cut.index(v.len() + 1).max(1));
        let o = Overrides { model: None, bw: Some(3), slots: None, ports: None };
        let _ = read_instance_bytes(&v, "fuzz", &o, &Limits::default());
        let _ = tickopt::schedule::readers::parse_compact(&v);
        // Schedule files stream through the validator: feed the mutated bytes as a schedule too.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s");
        std::fs::write(&p, &v).unwrap();
        let inst = instance(Model::Strict1, 3, 7, &[(0, 1, 100), (1, 2, 5)]);
        let _ = tickopt::interop::validate_schedule_file(&inst, &p);
    }
}
