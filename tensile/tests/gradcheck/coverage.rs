//! The crate's public op list, read from its source (no hand-kept copy that could drift):
//! every `pub fn` of an `impl Tensor` block (anywhere under `src/`), every top-level `pub fn`
//! of `src/ops/`, `src/nn/`, `src/random/`, `src/generator/`, `src/views.rs` and `src/linalg.rs` (the free
//! functions the crate root, `tensile::linalg` and `tensile::nn::functional` re-export), and
//! every name a method-generating macro (`macro_rules!` whose body has `pub fn $…`) is invoked with,
//! outside `src/optable/`, whose ops and methods come from the table itself
//! ([`tensile::OpId::all`], [`tensile::OpId::methods`]).
//! `src/kernels/`, `#[cfg(test)]` modules and `#[doc(hidden)]` `__` helpers are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src/")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "kernels") {
                rs_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn is_op_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_lowercase())
        && c.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

/// The names of a macro invocation's argument list: per `;`-separated row, the leading
/// lower-case identifiers (`exp, exp_, Exp, "doc"` → `exp`, `exp_`).
fn macro_row_names(args: &str, out: &mut Vec<String>) {
    for row in args.split(';') {
        for tok in row.split([',', '\n']) {
            let tok = tok.trim();
            if tok.is_empty() {
                continue;
            }
            if !is_op_ident(tok) {
                break;
            }
            out.push(tok.to_string());
        }
    }
}

/// Names of the `macro_rules!` macros that generate `pub fn`s.
fn generating_macros(texts: &[(String, String)]) -> Vec<String> {
    let mut r = Vec::new();
    for (_, s) in texts {
        let mut rest = s.as_str();
        while let Some(i) = rest.find("macro_rules!") {
            rest = &rest[i + "macro_rules!".len()..];
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let body = rest.split("macro_rules!").next().unwrap_or("");
            if body.contains("pub fn $") {
                r.push(name);
            }
        }
    }
    r
}

/// Every public op name, with the file (relative to `src/`) that defines it.
pub fn public_ops(src: &Path) -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(p).expect("read source"))
        })
        .collect();
    let macros = generating_macros(&texts);
    let mut names = BTreeMap::new();
    for (rel, text) in &texts {
        let table = rel.starts_with("optable/");
        let free_fns = table
            || rel.starts_with("ops/")
            || rel.starts_with("nn/")
            || rel.starts_with("random/")
            || rel.starts_with("generator/")
            || rel == "views.rs"
            || rel == "linalg.rs";
        #[derive(PartialEq)]
        enum Ctx {
            Top,
            ImplTensor,
            Other,
            Tests,
        }
        let mut ctx = Ctx::Top;
        let mut invocation: Option<String> = None;
        let mut found = Vec::new();
        for line in text.lines() {
            if let Some(buf) = invocation.as_mut() {
                if line.starts_with('}') || line.starts_with(')') {
                    macro_row_names(buf, &mut found);
                    invocation = None;
                } else {
                    buf.push_str(line);
                    buf.push('\n');
                }
                continue;
            }
            if let Some(bang) = line.find('!') {
                let head = &line[..bang];
                let after = line[bang + 1..].trim_start();
                if !head.is_empty()
                    && !table
                    && macros.iter().any(|m| m == head)
                    && (after.starts_with('{') || after.starts_with('('))
                {
                    let rest = &after[1..];
                    if rest.trim_end().ends_with(");") {
                        macro_row_names(rest.trim_end().trim_end_matches(");"), &mut found);
                    } else {
                        invocation = Some(format!("{rest}\n"));
                    }
                    continue;
                }
            }
            if line.starts_with("#[cfg(test)]") {
                ctx = Ctx::Tests;
            } else if ctx != Ctx::Tests && line.starts_with("impl") {
                let t = line.trim_start_matches("impl").trim_start();
                let t = if t.starts_with('<') {
                    t.split_once('>').map_or("", |x| x.1).trim_start()
                } else {
                    t
                };
                ctx = if t.starts_with("Tensor {") {
                    Ctx::ImplTensor
                } else {
                    Ctx::Other
                };
            } else if ctx != Ctx::Tests && line.starts_with('}') {
                ctx = Ctx::Top;
            }
            let ind = line.len() - line.trim_start().len();
            if let Some(rest) = line.trim_start().strip_prefix("pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if (ind == 0 && ctx == Ctx::Top && free_fns) || (ind == 4 && ctx == Ctx::ImplTensor)
                {
                    found.push(name);
                }
            }
        }
        for n in found.into_iter().filter(|n| !n.starts_with("__")) {
            names.entry(n).or_insert_with(|| rel.clone());
        }
    }
    for op in tensile::OpId::all() {
        for m in op.methods() {
            names
                .entry(m.to_string())
                .or_insert_with(|| "optable/".to_string());
        }
    }
    names
}
