//! Every document reference in README.md and doc/*.md resolves (issue 30,
//! item 4): "DESIGN.md §N" names a section doc/design.md has, and every
//! relative markdown link names a file or directory that exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every markdown file under doc/.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let mut todo = vec![root().join("doc")];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                docs.push(p);
            }
        }
    }
    docs.sort();
    docs
}

/// Section numbers cited as "DESIGN.md §N" (or "design.md §N") in `text`.
fn design_citations(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("§") {
        let before = &text[..i];
        let cites_design = before
            .trim_end()
            .to_ascii_lowercase()
            .ends_with("design.md");
        let digits: String = text[i + "§".len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if cites_design && !digits.is_empty() {
            out.push(digits.parse().unwrap());
        }
    }
    out
}

/// Relative link targets `](target)` in `text`, without anchors.
fn relative_links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let end = rest.find(')')?;
            let t = rest[..end].split('#').next().unwrap_or("").trim();
            (!t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
                .then(|| t.to_string())
        })
        .collect()
}

#[test]
fn design_section_citations_resolve() {
    let design = std::fs::read_to_string(root().join("doc/design.md")).unwrap();
    let has = |n: u32| design.lines().any(|l| l.starts_with(&format!("## {n}. ")));
    let mut cited = 0;
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for n in design_citations(&text) {
            cited += 1;
            if !has(n) {
                broken.push(format!("{}: DESIGN.md §{n}", doc.display()));
            }
        }
    }
    assert!(
        cited >= 2,
        "found only {cited} citations: the scan is broken"
    );
    assert!(
        broken.is_empty(),
        "sections doc/design.md lacks:\n{}",
        broken.join("\n")
    );
}

#[test]
fn relative_links_resolve() {
    let mut links = 0;
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let dir = doc.parent().unwrap_or(Path::new("."));
        for t in relative_links(&text) {
            links += 1;
            if !dir.join(&t).exists() {
                broken.push(format!("{}: {t}", doc.display()));
            }
        }
    }
    assert!(links >= 10, "found only {links} links: the scan is broken");
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_scanners_find_what_they_look_for() {
    assert_eq!(
        design_citations("see (DESIGN.md §11) and design.md §3, § 4"),
        vec![11, 3]
    );
    assert_eq!(
        relative_links("[a](doc/x.md#y) [b](https://e.org) [c](src/)"),
        vec!["doc/x.md".to_string(), "src/".to_string()]
    );
}

#[test]
fn set_sizes_in_doc_instances_match_the_manifests() {
    // Rows "| `instances/SET` | N | ..." of the bundled-sets table.
    let text = std::fs::read_to_string(root().join("doc/instances.md")).unwrap();
    let mut rows = 0;
    for l in text.lines() {
        let cells: Vec<&str> = l.split('|').map(str::trim).collect();
        let (Some(set), Some(n)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Some(set) = set
            .strip_prefix("`instances/")
            .and_then(|s| s.strip_suffix('`'))
        else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        let manifest = root().join("instances").join(set).join("manifest.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        assert_eq!(
            v["instances"].as_array().unwrap().len(),
            n,
            "instances/{set}"
        );
        rows += 1;
    }
    assert!(rows >= 5, "found only {rows} rows");
}
