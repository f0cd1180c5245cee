//! Help and docs (issue 30, item 4): every option and argument of every
//! subcommand (and every `gen` family) has help text.

mod common;
use common::*;

/// Subcommand names listed in a help page's "Commands:" section.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Options and arguments of a help page that have no description. Clap
/// writes the description after the spec on the same line, or (when a
/// spec is long) on the more indented lines below it; `[default: ..]` and
/// the like are not a description.
fn undocumented(help: &str) -> Vec<String> {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut in_list = false;
    for l in help.lines() {
        if l.starts_with("Options:") || l.starts_with("Arguments:") {
            in_list = true;
            continue;
        }
        if !l.is_empty() && !l.starts_with(' ') {
            in_list = false;
        }
        if !in_list || l.trim().is_empty() {
            continue;
        }
        let indent = l.len() - l.trim_start().len();
        let t = l.trim();
        if indent <= 6 {
            // "  -o, --out <FILE>  Description": the spec ends at two spaces.
            let (spec, desc) = t.split_once("  ").unwrap_or((t, ""));
            entries.push((spec.to_string(), desc.to_string()));
        } else if let Some(last) = entries.last_mut() {
            last.1.push(' ');
            last.1.push_str(t);
        }
    }
    entries
        .into_iter()
        .filter(|(_, desc)| {
            let mut d = desc.clone();
            while let Some(i) = d.find('[') {
                let j = d[i..].find(']').map_or(d.len(), |j| i + j + 1);
                d.replace_range(i..j, "");
            }
            d.trim().is_empty()
        })
        .map(|(spec, _)| spec)
        .collect()
}

fn help(path: &[String]) -> String {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("-h");
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn every_option_of_every_subcommand_has_help() {
    let mut missing = Vec::new();
    let mut pages = 0;
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        let h = help(&path);
        pages += 1;
        for m in undocumented(&h) {
            missing.push(format!("tickopt {} : {m}", path.join(" ")));
        }
        for c in commands(&h) {
            let mut p = path.clone();
            p.push(c);
            todo.push(p);
        }
    }
    // Every subcommand and gen family was walked (a parser that found no
    // commands would pass vacuously).
    assert!(pages > 30, "walked only {pages} help pages");
    assert!(
        missing.is_empty(),
        "options without help:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_checker_sees_a_missing_description() {
    let page = "Usage: x\n\nOptions:\n      --n <N>     \n      --m <M>  The m\n      --k <K>  [default: 8]\n      --a-long-one <A>\n          The a\n  -h, --help  Print help\n";
    assert_eq!(
        undocumented(page),
        vec!["--n <N>".to_string(), "--k <K>".to_string()]
    );
}
