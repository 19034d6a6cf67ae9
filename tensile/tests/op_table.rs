//! The OpInfo table's (`tests/opinfo/`) own checks: README.md's call tables are its rendering
//! (each entry's `docs` rows, in the order of [`opinfo::Table::families`]; on a difference
//! the test prints the expected table, and `TENSILE_BLESS=1` rewrites README.md's tables
//! instead), every `bench` key has rows in `bench/ops.txt`, and names are unique.

mod opinfo;

use opinfo::Table;

fn readme_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")
}

/// The line range of table `t`'s rows in `lines`: after its heading, the first table's lines
/// below the `|---|---|` separator.
fn rows_range(lines: &[&str], t: Table) -> std::ops::Range<usize> {
    let h = lines
        .iter()
        .position(|l| *l == t.heading())
        .unwrap_or_else(|| panic!("README.md has no heading {:?}", t.heading()));
    let sep = (h..lines.len())
        .find(|&i| lines[i].starts_with("|---"))
        .unwrap_or_else(|| panic!("no table under {:?}", t.heading()));
    let end = (sep + 1..lines.len())
        .find(|&i| !lines[i].starts_with('|'))
        .unwrap_or(lines.len());
    sep + 1..end
}

#[test]
fn readme_call_tables_are_the_op_tables() {
    let text = std::fs::read_to_string(readme_path()).expect("README.md");
    let mut lines: Vec<&str> = text.lines().collect();
    let bless = std::env::var_os("TENSILE_BLESS").is_some();
    let mut wrong = Vec::new();
    let rendered: Vec<(Table, Vec<String>)> = Table::ALL
        .iter()
        .map(|&t| (t, opinfo::readme_rows(t)))
        .collect();
    for (t, want) in &rendered {
        let r = rows_range(&lines, *t);
        if lines[r.clone()] != want.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            if bless {
                lines.splice(r, want.iter().map(String::as_str));
            } else {
                wrong.push(format!(
                    "{} (rendered from tests/opinfo/; TENSILE_BLESS=1 writes it):\n| PyTorch | tensile |\n|---|---|\n{}",
                    t.heading(),
                    want.join("\n")
                ));
            }
        }
    }
    if bless {
        let mut out = lines.join("\n");
        out.push('\n');
        std::fs::write(readme_path(), out).expect("writing README.md");
        return;
    }
    assert!(
        wrong.is_empty(),
        "README.md's call tables differ from the OpInfo table's:\n\n{}",
        wrong.join("\n\n")
    );
}

/// Every op named in a README row of a rendered table is there once: no two entries render
/// the same row.
#[test]
fn rendered_rows_are_distinct() {
    for t in Table::ALL {
        let rows = opinfo::readme_rows(t);
        let mut seen = std::collections::BTreeSet::new();
        for r in &rows {
            assert!(seen.insert(r), "{}: row twice: {r}", t.heading());
        }
        assert!(!rows.is_empty(), "{}: no rows", t.heading());
    }
}

/// Every entry's `bench` key is the op of a `bench/ops.txt` row (so the rows an entry claims
/// exist, and run through its adapter).
#[test]
fn bench_keys_have_rows() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/ops.txt");
    let text = std::fs::read_to_string(path).expect("bench/ops.txt");
    let ops: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().nth(2).expect("ops.txt: name unit op"))
        .collect();
    for i in opinfo::all() {
        if let Some(k) = i.bench {
            assert!(
                ops.contains(&k),
                "{}: no bench/ops.txt row has op {k}",
                i.name
            );
        }
    }
    for op in ops {
        if let Some(base) = op.strip_prefix("T.").and_then(|o| o.strip_suffix('_'))
            && opinfo::all().any(|i| i.name == base && i.bench.is_some())
        {
            assert!(
                opinfo::lookup_bench(op).is_some(),
                "bench/ops.txt: {op}: {base} has no in-place form"
            );
        }
    }
}

/// No two entries share a name or a bench key.
#[test]
fn names_are_unique() {
    let mut names = std::collections::BTreeSet::new();
    let mut keys = std::collections::BTreeSet::new();
    for i in opinfo::all() {
        assert!(names.insert(i.name), "two entries named {}", i.name);
        if let Some(k) = i.bench {
            assert!(keys.insert(k), "two entries with bench key {k}");
        }
    }
}
