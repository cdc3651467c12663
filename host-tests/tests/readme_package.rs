//! README.md renders from the published package: every link and image it has resolves to a
//! file of `cargo package --list`, every file or folder it names in a code span is packaged or
//! sits in a paragraph that says `repository only`, and it does not tell users to depend on a
//! crates.io release that does not exist.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host-tests sits in the workspace")
}

/// `cargo package -p macrostep --list`: the files of the published package.
fn package_list() -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["package", "-p", "macrostep", "--list", "--allow-dirty"])
        .args(["--no-verify", "--offline"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo package --list: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The paragraphs of a markdown text outside fenced code blocks.
fn paragraphs(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut fenced) = (vec![], String::new(), false);
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    out.push(cur);
    out.retain(|p| !p.is_empty());
    out
}

/// Targets of `[text](target)` and `![alt](target)` links and of `src="…"`.
fn link_targets(p: &str) -> Vec<String> {
    let mut out = vec![];
    for (i, _) in p.match_indices("](") {
        let rest = &p[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].trim().to_string());
        }
    }
    for (i, _) in p.match_indices("src=\"") {
        let rest = &p[i + 5..];
        if let Some(end) = rest.find('"') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// Code spans that name a file or folder of the repository: `a/b.ext`, `a/`, `name.md`.
fn named_paths(p: &str) -> Vec<String> {
    let spans = p.split('`').skip(1).step_by(2);
    spans
        .filter(|s| !s.contains(' ') && !s.contains("::"))
        .filter(|s| {
            let ext = [".md", ".png", ".svg", ".rs", ".toml", ".csv"];
            (s.contains('/') && !s.starts_with("--")) || ext.iter().any(|e| s.ends_with(e))
        })
        .map(str::to_string)
        .collect()
}

fn packaged(path: &str, list: &[String]) -> bool {
    let path = path.trim_start_matches("./");
    match path.strip_suffix('/') {
        Some(dir) => list.iter().any(|f| f.starts_with(&format!("{dir}/"))),
        None => list.iter().any(|f| f == path),
    }
}

/// The problems of `readme` against the package `list`.
fn problems(readme: &str, list: &[String]) -> Vec<String> {
    let mut bad = vec![];
    for p in paragraphs(readme) {
        for t in link_targets(&p) {
            if t.contains("://") {
                bad.push(format!("absolute link `{t}` (no public URL is fixed yet)"));
            } else if !packaged(t.split('#').next().unwrap_or(&t), list) {
                bad.push(format!("link `{t}` is not in the package"));
            }
        }
        let marked = p.contains("repository only");
        for path in named_paths(&p) {
            if !marked && !packaged(&path, list) {
                bad.push(format!(
                    "`{path}` is neither packaged nor marked `repository only`"
                ));
            }
        }
    }
    if readme.contains("macrostep = \"") {
        bad.push("a crates.io version requirement for an unpublished crate".into());
    }
    bad
}

#[test]
fn readme_links_resolve_from_the_package() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let list = package_list();
    assert!(list.iter().any(|f| f == "README.md") && list.iter().any(|f| f == "src/lib.md"));
    let bad = problems(&readme, &list);
    assert!(bad.is_empty(), "README.md against the package: {bad:#?}");
}

#[test]
fn the_check_catches_what_crates_io_would_break() {
    let list: Vec<String> = ["README.md", "src/lib.rs", "src/lib.md"]
        .map(String::from)
        .to_vec();
    let ok = "See `src/lib.md` and [the tour](src/lib.md).\n\nThe `firmware/` folder (repository only).\n";
    assert_eq!(problems(ok, &list), Vec::<String>::new());
    for bad in [
        "![figure](docs/figure.png)",
        "<img src=\"docs/figure.png\">",
        "[docs](https://docs.rs/macrostep)",
        "Details: `firmware/README.md`.",
        "```toml\nmacrostep = \"0.1\"\n```",
        "Read `docs/testing.md`.",
    ] {
        assert_eq!(problems(bad, &list).len(), 1, "{bad}");
    }
}
