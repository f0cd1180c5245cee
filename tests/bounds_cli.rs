//! `tickopt bounds` says what README promises (issue 30, item 4): every
//! bound, the odd-set one included where it does not beat the others, and
//! in JSON what settled completeness.

mod common;
use common::*;

fn demo(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances/demo")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn petersen_text_names_the_odd_set_bound() {
    let o = run(&["bounds", &demo("petersen_n10_m1_s0.csv")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "degree       3",
        "capacity     3",
        "odd set      <= 3",
        "lower bound  3",
    ] {
        assert!(out.contains(line), "{line:?} missing:\n{out}");
    }
    // K_7: the odd-set bound is the answer and carries its witness.
    let out = stdout(&run(&["bounds", &demo("clique_n7_m1_s0.csv")]));
    assert!(
        out.contains("odd set      7  ({\"kind\":\"odd_set\""),
        "{out}"
    );
}

#[test]
fn json_says_what_settled_completeness() {
    let o = run(&["bounds", &demo("petersen_n10_m1_s0.csv"), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["complete"], true);
    assert!(v.get("settled_by").is_some_and(|s| s.is_null()), "{v}");
    assert_eq!(v["best"]["ticks"], 3);
}
