//! Large MSCCL programs (issue 38): the importer names an error's line and
//! column through an index of line starts, so a program of 100,000 steps (12 MB)
//! reads in time linear in its size (a per-node rescan of the text took
//! 26 s on a 4.4 MB program). No timing here: the error sits at the end
//! of the file, where a wrong line index shows, and the file is large
//! enough that a quadratic reader would run for many minutes.

use tickopt::interop::msccl_xml;

/// Two gpus, gpu 0 sending `n` chunks to gpu 1 one step each: header,
/// gpu 0, gpu 1, with one line per step. `last_dstoff` is the destination
/// of gpu 1's last receive.
fn program(n: usize, last_dstoff: usize) -> String {
    let mut s = format!(
        "<algo name=\"big\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"{n}\" ngpus=\"2\" coll=\"custom\" inplace=\"0\" outofplace=\"1\" minBytes=\"{n}\" maxBytes=\"{n}\">\n"
    );
    for (g, ty, peers) in [
        (0, "s", "send=\"1\" recv=\"-1\""),
        (1, "r", "send=\"-1\" recv=\"0\""),
    ] {
        let (i, o) = if g == 0 { (n, 0) } else { (0, n) };
        s += &format!("  <gpu id=\"{g}\" i_chunks=\"{i}\" o_chunks=\"{o}\" s_chunks=\"0\">\n    <tb id=\"0\" {peers} chan=\"0\">\n");
        for k in 0..n {
            let dst = if g == 1 && k == n - 1 { last_dstoff } else { k };
            s += &format!("      <step s=\"{k}\" type=\"{ty}\" srcbuf=\"i\" srcoff=\"{k}\" dstbuf=\"o\" dstoff=\"{dst}\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n");
        }
        s += "    </tb>\n  </gpu>\n";
    }
    s + "</algo>\n"
}

#[test]
fn an_error_at_the_end_of_a_large_program_names_its_line() {
    let n = 50_000;
    let good = program(n, n - 1);
    assert!(good.len() > 12_000_000, "{} bytes", good.len());
    let p = msccl_xml::parse(&good).unwrap();
    assert_eq!(p.gpus[1].tbs[0].steps.len(), n);
    // Line 1 the header, 2-3 gpu 0 and its tb, n steps, 2 closing lines,
    // 2 opening gpu 1: its last step is on line 2n + 7.
    let last = p.gpus[1].tbs[0].steps[n - 1].at;
    assert_eq!(last, ((2 * n + 7) as u32, 7));
    let e = msccl_xml::parse(&program(n, n)).unwrap_err().to_string();
    let want = format!(
        "line {}, column 7: gpu 1, tb 0, step {}: dstoff={n} cnt=1 is outside buffer \"o\" of {n} chunks",
        2 * n + 7,
        n - 1
    );
    assert!(e.contains(&want), "{e}");
    // The line really is that step's: counted in the text itself.
    let line = good.lines().nth(2 * n + 6).unwrap();
    assert!(
        line.contains(&format!("s=\"{}\" type=\"r\"", n - 1)),
        "{line}"
    );
}
