//! The crate's layering (`../shared/design.md`, issue 29), checked over the source text.
//!
//! Every file of `src/` belongs to a layer, by its path:
//!
//! | layer | files |
//! |---|---|
//! | core | `args` `broadcast` `dim` `dtype` `element` `error` `generator` (`torch.Generator` and its mt19937) `geometry` `layout` `storage` (and `storage/mmap.rs`, file mappings) `tensor` `warnings` `macros` |
//! | engine | `iter` (TensorIterator, and `iter/dense.rs`, the dense kernels' entry point) |
//! | kernels | `kernels/` |
//! | forward | `ops/` `index` `views` `linalg` `print` `explain` `backcompat` |
//! | autograd | `autograd/` except `autograd/formulas/` |
//! | formulas | `autograd/formulas/` |
//! | op table | `optable/` (the rows that declare each op: methods, id, recording) |
//! | users | `nn/` `optim/` `io/` `random/` `distributions/` `data/` |
//!
//! and a file names another module by a `crate::name` path (`use crate::a::b`,
//! `use crate::{a, b}`, or inline, where `a` is a `mod` of `lib.rs`; macros `crate::m!` and
//! re-exported items such as `crate::Tensor` are not edges; `#[cfg(test)] mod tests` is not
//! read). The rules, as the issue states them:
//!
//! * core names only core; the engine names core and kernels; kernels name core and kernels;
//! * forward ops never name `autograd` (autograd wraps them);
//! * formulas never name `nn` or `kernels` (they are written with differentiable ops);
//! * the op table names forward functions and autograd, never the engine or kernels (a row
//!   declares an op; the forward function runs it);
//! * users (`nn`, `optim`, `io`, `random`, `distributions`, `data`) use the public API: they
//!   never name a private module (`ops`, `kernels`, `iter`, `storage`, `tensor`, `views`,
//!   `index`, `print`, `macros`).
//!
//! Today's breaches are listed in `tests/layering_allowlist.txt`, one `file -> module` a line.
//! The test fails on a breach the list lacks (a new edge against the rules) and on a listed
//! line that is no longer a breach (the list only shrinks), so each step of the refactor
//! removes its lines. The same file lists the files outside storage, the engine and kernels
//! that still hold `unsafe` code (they carry `#![allow(unsafe_code)]` against the crate's
//! `#![deny(unsafe_code)]`); the test checks that list against the sources both ways too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const CORE: &[&str] = &[
    "args",
    "broadcast",
    "dim",
    "dtype",
    "element",
    "error",
    "generator",
    "geometry",
    "layout",
    "storage",
    "tensor",
    "warnings",
    "macros",
];
const FORWARD: &[&str] = &[
    "ops",
    "index",
    "views",
    "linalg",
    "print",
    "explain",
    "backcompat",
];
const USERS: &[&str] = &["nn", "optim", "io", "random", "distributions", "data"];
const PRIVATE: &[&str] = &[
    "ops", "kernels", "iter", "storage", "tensor", "views", "index", "print", "macros",
];

#[derive(Clone, Copy, PartialEq, Debug)]
enum Layer {
    Core,
    Engine,
    Kernels,
    Forward,
    Autograd,
    Formulas,
    Table,
    Users,
    Root,
}

fn layer(rel: &str) -> Layer {
    let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
    if rel.starts_with("autograd/formulas") {
        Layer::Formulas
    } else if CORE.contains(&top) {
        Layer::Core
    } else if top == "iter" {
        Layer::Engine
    } else if top == "kernels" {
        Layer::Kernels
    } else if FORWARD.contains(&top) {
        Layer::Forward
    } else if top == "autograd" {
        Layer::Autograd
    } else if top == "optable" {
        Layer::Table
    } else if USERS.contains(&top) {
        Layer::Users
    } else {
        Layer::Root
    }
}

/// Why the edge `from -> to` breaks the rules, if it does.
fn breach(from: Layer, to: &str) -> Option<&'static str> {
    let core = CORE.contains(&to);
    match from {
        Layer::Core if !core => Some("core names only core"),
        Layer::Engine if !core && to != "kernels" && to != "iter" => {
            Some("the engine names only core and kernels")
        }
        Layer::Kernels if !core && to != "kernels" => Some("kernels name only core and kernels"),
        Layer::Forward if to == "autograd" => Some("forward ops never name autograd"),
        Layer::Formulas if to == "nn" || to == "kernels" => {
            Some("formulas never name nn or kernels")
        }
        Layer::Table if to == "kernels" || to == "iter" || USERS.contains(&to) => {
            Some("the op table names forward functions and autograd only")
        }
        Layer::Users if PRIVATE.contains(&to) => {
            Some("nn, optim, io, random, distributions and data use the public API")
        }
        _ => None,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every file of `src/`: its path below `src/` (with `/`) and its text.
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&f).unwrap())
        })
        .collect()
}

/// The code of a file: line comments dropped and the `#[cfg(test)] mod tests` tail cut (a
/// unit test may reach anywhere).
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    };
    src.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The crate's top-level modules: the `mod` items of `lib.rs`.
fn modules() -> BTreeSet<String> {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    code(&lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// The top-level modules a file's code names through `crate::` (a name of `mods` not
/// followed by `!`: `crate::tensor!` is a macro, `crate::Tensor` a re-exported item).
fn targets(code: &str, mods: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |rest: &str| {
        let id = ident_at(rest.trim_start());
        let after = rest.trim_start()[id.len()..].trim_start();
        if mods.contains(id) && !after.starts_with('!') {
            out.insert(id.to_string());
        }
    };
    for (i, _) in code.match_indices("crate::") {
        // a path segment, not the tail of `$crate::` or of another name
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, D}`: the first segment of each item
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        item_start = true;
                        continue;
                    }
                    _ => {}
                }
                if item_start && !c.is_whitespace() {
                    add(&group[j..]);
                    item_start = false;
                }
            }
        } else {
            add(rest);
        }
    }
    out
}

fn has_unsafe(code: &str) -> bool {
    code.match_indices("unsafe").any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + 6..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

fn unsafe_allowed(rel: &str) -> bool {
    rel == "storage.rs"
        || rel.starts_with("storage/")
        || rel == "iter.rs"
        || rel.starts_with("iter/")
        || rel.starts_with("kernels/")
}

struct Allowlist {
    edges: BTreeSet<String>,
    unsafe_files: BTreeSet<String>,
}

fn allowlist() -> Allowlist {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/layering_allowlist.txt");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut a = Allowlist {
        edges: BTreeSet::new(),
        unsafe_files: BTreeSet::new(),
    };
    for l in text.lines().map(str::trim) {
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(f) = l.strip_prefix("unsafe ") {
            a.unsafe_files.insert(f.trim().to_string());
        } else {
            a.edges.insert(l.to_string());
        }
    }
    a
}

struct Scan {
    /// `file -> module` breaches, with the rule each breaks.
    breaches: Vec<(String, &'static str)>,
    unsafe_files: BTreeSet<String>,
}

fn scan() -> Scan {
    let mods = modules();
    let mut s = Scan {
        breaches: Vec::new(),
        unsafe_files: BTreeSet::new(),
    };
    for (rel, text) in sources() {
        let c = code(&text);
        let l = layer(&rel);
        for t in targets(&c, &mods) {
            if let Some(why) = breach(l, &t) {
                s.breaches.push((format!("{rel} -> {t}"), why));
            }
        }
        if !unsafe_allowed(&rel) && has_unsafe(&c) {
            s.unsafe_files.insert(rel);
        }
    }
    s
}

#[test]
fn use_edges_follow_the_layering() {
    let a = allowlist();
    let s = scan();
    let found: BTreeSet<String> = s.breaches.iter().map(|(e, _)| e.clone()).collect();
    let new: Vec<String> = s
        .breaches
        .iter()
        .filter(|(e, _)| !a.edges.contains(e))
        .map(|(e, why)| format!("  {e}   ({why})"))
        .collect();
    let gone: Vec<&String> = a.edges.difference(&found).collect();
    assert!(
        new.is_empty(),
        "new edges against the layering (see tests/layering.rs):\n{}",
        new.join("\n")
    );
    assert!(
        gone.is_empty(),
        "allowlisted edges that are gone: remove them from tests/layering_allowlist.txt:\n{gone:#?}"
    );
}

#[test]
fn unsafe_code_stays_in_storage_engine_and_kernels() {
    let a = allowlist();
    let s = scan();
    let new: Vec<_> = s.unsafe_files.difference(&a.unsafe_files).collect();
    let gone: Vec<_> = a.unsafe_files.difference(&s.unsafe_files).collect();
    assert!(
        new.is_empty(),
        "unsafe code outside storage, engine and kernels: {new:?}"
    );
    assert!(
        gone.is_empty(),
        "files without unsafe code left in tests/layering_allowlist.txt: {gone:?}"
    );
    // each listed file opts out of the crate's `#![deny(unsafe_code)]` itself (storage and
    // kernels are allowed where lib.rs declares them), and no other file does
    let sources = sources();
    let lib = &sources.iter().find(|(rel, _)| rel == "lib.rs").unwrap().1;
    assert!(
        lib.contains("#![deny(unsafe_code)]"),
        "lib.rs denies unsafe_code"
    );
    for (rel, text) in &sources {
        if unsafe_allowed(rel) {
            continue;
        }
        let opts_out = text.contains("#![allow(unsafe_code)]");
        assert_eq!(
            opts_out,
            a.unsafe_files.contains(rel),
            "{rel}: #![allow(unsafe_code)] exactly in the listed files"
        );
    }
}

/// The scanner finds what it is meant to (so the checks above can fail).
#[test]
fn scanner_sees_edges_and_unsafe() {
    let c = code(
        "use crate::{autograd::x, dtype::DType, Tensor};\nfn f() { crate::kernels::k(); crate::dispatch!(x); }\n// crate::nn::y\n",
    );
    let t: Vec<_> = targets(&c, &modules()).into_iter().collect();
    assert_eq!(t, ["autograd", "dtype", "kernels"]);
    assert!(modules().contains("ops") && modules().contains("nn"));
    assert_eq!(
        breach(layer("ops/unary.rs"), "autograd"),
        Some("forward ops never name autograd")
    );
    assert_eq!(
        breach(layer("autograd/formulas/conv.rs"), "nn"),
        Some("formulas never name nn or kernels")
    );
    assert_eq!(breach(layer("autograd/engine.rs"), "nn"), None);
    assert!(has_unsafe("fn f() { unsafe { g() } }"));
    assert!(!has_unsafe("fn unsafe_view() {}"));
    assert!(!has_unsafe(&code("// unsafe\n")));
}
