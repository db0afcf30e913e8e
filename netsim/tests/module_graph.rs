//! netsim's modules form layers: this test reads every `crate::` and
//! `super::` path in netsim/src and fails when the modules depend on each
//! other in a cycle, naming the cycle.
//!
//! Two graphs are checked. The top-level one collapses every module to its
//! first path segment (`topology::generators::torus` → `topology`), so a
//! folder cannot hide a cycle between layers. The file-level one keeps each
//! file as its own module; there an edge from a module to one of its
//! ancestors is left out, because a child using what its parent declares is
//! what nesting means (the top-level graph still sees it). Test code (what
//! follows `#[cfg(test)]`, files named `tests.rs`, folders named `tests`)
//! may use any layer and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`["topology", "generators"]`; the crate root is empty) →
/// source text without test code and comments.
type Sources = BTreeMap<Vec<String>, String>;

fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().unwrap();
    match file.as_str() {
        "lib.rs" | "mod.rs" => {}
        f => parts.push(f.trim_end_matches(".rs").to_string()),
    }
    parts
}

/// The text of a file up to its `#[cfg(test)]` part, with `//` comments
/// removed.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

fn read_sources(dir: &Path, root: &Path, out: &mut Sources) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "tests") {
                read_sources(&p, root, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && p.file_name().is_some_and(|n| n != "tests.rs")
        {
            let text = std::fs::read_to_string(&p).unwrap();
            out.insert(module_path(p.strip_prefix(root).unwrap()), code_of(&text));
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads one use tree at `s` (after its `prefix::`): `a::b::C`,
/// `a::{b, c::D}`, `*`. Pushes every full path into `out`; returns the
/// rest of the text.
fn use_tree<'a>(mut s: &'a str, prefix: &[String], out: &mut Vec<Vec<String>>) -> &'a str {
    let mut path = prefix.to_vec();
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix('{') {
            s = rest;
            loop {
                s = s.trim_start();
                if let Some(rest) = s.strip_prefix('}') {
                    return rest;
                }
                s = use_tree(s, &path, out);
                s = s.trim_start();
                s = s.strip_prefix(',').unwrap_or(s);
            }
        }
        let len = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
        if len == 0 {
            out.push(path);
            return s;
        }
        path.push(s[..len].to_string());
        s = &s[len..];
        match s.strip_prefix("::") {
            Some(rest) => s = rest,
            None => {
                out.push(path);
                return s;
            }
        }
    }
}

/// Every path that `code` (of module `me`) names through `crate::` or
/// `super::`, made absolute.
fn paths_named(me: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("::") {
        let before = &code[..i];
        let word_start = before.rfind(|c: char| !is_ident(c)).map_or(0, |j| j + 1);
        let word = &before[word_start..];
        // Only the start of a path: `crate::` or a chain of `super::`.
        if before[..word_start].ends_with("::") {
            continue;
        }
        let mut start = &code[i + 2..];
        let base: Vec<String> = match word {
            "crate" => Vec::new(),
            "super" => {
                // `super` is the parent module, `super::super` its parent.
                let mut b = me.to_vec();
                b.pop();
                while let Some(rest) = start.strip_prefix("super::") {
                    b.pop();
                    start = rest;
                }
                b
            }
            _ => continue,
        };
        use_tree(start, &base, &mut out);
    }
    out
}

/// The deepest module among `modules` that `path` starts with.
fn module_of(path: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<String> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains(p))
        .unwrap_or_default()
}

type Graph = BTreeMap<String, BTreeSet<String>>;

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The top-level and the file-level dependency graphs of `sources`.
fn graphs(sources: &Sources) -> (Graph, Graph) {
    let modules: BTreeSet<Vec<String>> = sources.keys().cloned().collect();
    let mut top = Graph::new();
    let mut files = Graph::new();
    for (me, code) in sources {
        if me.is_empty() {
            continue; // the crate root only declares and re-exports
        }
        files.entry(name(me)).or_default();
        top.entry(me[0].clone()).or_default();
        for path in paths_named(me, code) {
            let to = module_of(&path, &modules);
            if to.is_empty() {
                continue;
            }
            if to[0] != me[0] {
                top.get_mut(&me[0]).unwrap().insert(to[0].clone());
            }
            let ancestor_or_self = to.len() <= me.len() && me[..to.len()] == to[..];
            if !ancestor_or_self {
                files.get_mut(&name(me)).unwrap().insert(name(&to));
            }
        }
    }
    (top, files)
}

/// One cycle of `g`, as the modules along it, or `None`.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        n: &str,
        g: &Graph,
        mark: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        mark.insert(n.to_string(), Mark::Open);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match mark.get(m).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(m, g, mark, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        mark.insert(n.to_string(), Mark::Done);
        None
    }
    let mut mark = BTreeMap::new();
    for n in g.keys() {
        if mark.get(n).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(n, g, &mut mark, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn netsim_sources() -> Sources {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Sources::new();
    read_sources(&root, &root, &mut sources);
    sources
}

#[test]
fn netsim_modules_form_no_cycle() {
    let sources = netsim_sources();
    assert!(
        sources.len() > 40,
        "read only {} modules from netsim/src",
        sources.len()
    );
    let (top, files) = graphs(&sources);
    if let Some(c) = find_cycle(&top) {
        panic!("netsim's top-level modules form a cycle: {}", c.join(" → "));
    }
    if let Some(c) = find_cycle(&files) {
        panic!("netsim's modules form a cycle: {}", c.join(" → "));
    }
}

#[test]
fn the_layers_are_the_ones_the_docs_draw() {
    // The top-level modules and, for each, the layers it may use; see
    // docs/architecture.md. A new edge upwards fails here before it can
    // close a cycle.
    let allowed: &[(&str, &[&str])] = &[
        ("base", &[]),
        ("config", &["base"]),
        ("topology", &["base", "config"]),
        ("wire", &["base", "config", "topology"]),
        ("tcp", &["base", "wire"]),
        ("rdma", &["base"]),
        ("faults", &["base", "config", "topology"]),
        ("model", &["base", "config", "tcp", "faults"]),
        (
            "sim",
            &[
                "base", "config", "topology", "wire", "tcp", "rdma", "faults", "model",
            ],
        ),
        ("analytic", &["base", "config", "topology", "model"]),
        ("models", &["config", "model", "sim", "analytic"]),
        ("loader", &["base", "config"]),
        ("workload", &["base", "model", "sim"]),
        ("analysis", &["base", "topology", "wire"]),
    ];
    let sources = netsim_sources();
    let (top, _) = graphs(&sources);
    let known: BTreeSet<&str> = allowed.iter().map(|(m, _)| *m).collect();
    for (m, uses) in &top {
        assert!(
            known.contains(m.as_str()),
            "netsim module `{m}` has no layer: add it to this test and to docs/architecture.md"
        );
        let ok: BTreeSet<&str> = allowed
            .iter()
            .find(|(n, _)| n == m)
            .unwrap()
            .1
            .iter()
            .copied()
            .collect();
        for u in uses {
            assert!(
                ok.contains(u.as_str()),
                "netsim module `{m}` uses `{u}`, a layer it may not use (allowed: {ok:?})"
            );
        }
    }
}

#[test]
fn the_check_finds_a_cycle_through_a_folder_and_a_grouped_use() {
    let v = |s: &str| -> Vec<String> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split("::").map(String::from).collect()
        }
    };
    let mut sources = Sources::new();
    sources.insert(v(""), "pub mod a; pub mod b;".into());
    sources.insert(v("a"), "pub mod x; pub struct A;".into());
    sources.insert(
        v("a::x"),
        "use super::A;\nuse crate::{c::C, b::{B, Other}};".into(),
    );
    sources.insert(v("b"), "pub struct B; pub struct Other;".into());
    sources.insert(v("c"), "pub struct C;".into());
    let (top, files) = graphs(&sources);
    assert_eq!(find_cycle(&top), None);
    assert_eq!(find_cycle(&files), None);
    assert_eq!(
        files["a::x"],
        ["b".to_string(), "c".to_string()].into(),
        "the grouped use names b and c; `super::A` is the parent's"
    );
    // b now uses a's child: a cycle a → b → a at the top level.
    sources.insert(
        v("b"),
        "pub struct B; fn f() -> crate::a::x::Y { todo!() }".into(),
    );
    let (top, files) = graphs(&sources);
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(find_cycle(&top), Some(names(&["a", "b", "a"])));
    assert_eq!(find_cycle(&files), Some(names(&["a::x", "b", "a::x"])));
}
