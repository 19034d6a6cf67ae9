//! tensile::io: safetensors, npy/npz, torch.save files and ndarray conversion, against fixtures
//! written by PyTorch, safetensors and NumPy (`scripts/make_io_fixtures.py`), round trips of
//! every dtype, and corrupt / truncated / hostile files (errors, never panics).

use std::path::{Path, PathBuf};

use serde_json::Value as J;
use tensile::io::{npy, npz, safetensors as st, torch as pt};
use tensile::{DType, Tensor};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/io")
        .join(name)
}

fn expected() -> J {
    serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tensile_io_test_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn dtype_of(name: &str) -> DType {
    match name {
        "bool" => DType::Bool,
        "uint8" => DType::UInt8,
        "int8" => DType::Int8,
        "int16" => DType::Int16,
        "int32" => DType::Int32,
        "int64" => DType::Int64,
        "float16" => DType::Float16,
        "bfloat16" => DType::BFloat16,
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        o => panic!("dtype {o}"),
    }
}

fn usizes(j: &J) -> Vec<usize> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// Checks a tensor against its description in expected.json: dtype, shape, (strides, offset
/// when `geometry`), and every value exactly (int64 as i64, the rest through f64).
fn check(t: &Tensor, e: &J, geometry: bool, what: &str) {
    assert_eq!(
        t.dtype(),
        dtype_of(e["dtype"].as_str().unwrap()),
        "{what}: dtype"
    );
    assert_eq!(t.size(), usizes(&e["shape"]).as_slice(), "{what}: shape");
    if geometry {
        assert_eq!(
            t.stride(),
            usizes(&e["stride"]).as_slice(),
            "{what}: stride"
        );
        assert_eq!(
            t.storage_offset() as u64,
            e["offset"].as_u64().unwrap(),
            "{what}: offset"
        );
    }
    let vals = e["values"].as_array().unwrap();
    if t.dtype() == DType::Int64 {
        let got = t.to_vec::<i64>();
        let want: Vec<i64> = vals.iter().map(|v| v.as_i64().unwrap()).collect();
        assert_eq!(got, want, "{what}: values");
    } else {
        let got = t.to_vec::<f64>();
        // Floats are written as Python's repr strings (exact), ints as JSON ints.
        let want: Vec<f64> = vals
            .iter()
            .map(|v| match v.as_str() {
                Some(s) => s.parse::<f64>().unwrap(),
                None => v.as_i64().unwrap() as f64,
            })
            .collect();
        assert_eq!(got, want, "{what}: values");
    }
}

/// One tensor of each dtype, with negative, extreme and fractional values.
fn every_dtype() -> Vec<(String, Tensor)> {
    let f = Tensor::from_vec(vec![1.5f64, -2.25, 3.0e-3, 65504.0, -0.0, 7.0], [2, 3]).unwrap();
    let mut v: Vec<(String, Tensor)> = [
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ]
    .iter()
    .map(|&d| (d.name().to_string(), f.to(d).unwrap()))
    .collect();
    v.push((
        "bool".into(),
        Tensor::from_vec(vec![true, false, true, true, false, false], [3, 2]).unwrap(),
    ));
    v.push((
        "i64max".into(),
        Tensor::from_vec(vec![i64::MIN, i64::MAX, 0], [3]).unwrap(),
    ));
    v.push(("scalar".into(), Tensor::scalar_tensor(4.5).unwrap()));
    v.push(("empty".into(), Tensor::zeros([0, 4]).unwrap()));
    v
}

/// Non-contiguous inputs: a transpose, a stepped slice, an expanded tensor, an offset narrow
/// (each over a storage of its own: safetensors refuses tensors that share memory).
fn non_contiguous() -> Vec<(String, Tensor)> {
    let m = Tensor::arange(24)
        .unwrap()
        .to(DType::Float32)
        .unwrap()
        .view([4, 6])
        .unwrap();
    let m = || m.clone();
    vec![
        ("t".into(), m().t().unwrap()),
        ("step".into(), m().slice(1, Some(0), Some(6), 2).unwrap()),
        (
            "expand".into(),
            Tensor::arange(3)
                .unwrap()
                .view([3, 1])
                .unwrap()
                .expand([3, 4])
                .unwrap(),
        ),
        (
            "narrow".into(),
            m().narrow(0, 1, 2).unwrap().narrow(1, 2, 3).unwrap(),
        ),
    ]
}

fn same(a: &Tensor, b: &Tensor, what: &str) {
    assert_eq!(a.dtype(), b.dtype(), "{what}: dtype");
    assert_eq!(a.size(), b.size(), "{what}: shape");
    match a.dtype() {
        DType::Int64 => assert_eq!(a.to_vec::<i64>(), b.to_vec::<i64>(), "{what}"),
        _ => {
            let (x, y) = (a.to_vec::<f64>(), b.to_vec::<f64>());
            assert_eq!(x.len(), y.len());
            for (p, q) in x.iter().zip(&y) {
                assert!(p.to_bits() == q.to_bits(), "{what}: {p} vs {q}");
            }
        }
    }
}

// ------------------------------------------------------------------------ torch.save files

#[test]
fn torch_state_dict_from_pytorch() {
    let e = expected();
    let sd = pt::load_state_dict(data("state_dict.pt")).unwrap();
    let names: Vec<&str> = sd.iter().map(|(k, _)| k.as_str()).collect();
    let order: Vec<&str> = e["state_dict.pt.order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(names, order);
    for (k, t) in &sd {
        check(t, &e["state_dict.pt"][k], true, k);
    }
    let get = |n: &str| &sd.iter().find(|(k, _)| k == n).unwrap().1;
    // Views keep sharing their base's storage, as in PyTorch.
    assert!(get("extra.weight_t").shares_storage(get("0.weight")));
    assert!(get("extra.weight_row1").shares_storage(get("0.weight")));
    assert!(!get("extra.weight_t").is_contiguous());
    assert_eq!(get("extra.weight_row1").storage_offset(), 4);
    assert_eq!(get("1.num_batches_tracked").dim(), 0);
    assert_eq!(get("1.num_batches_tracked").item::<i64>().unwrap(), 1);
    assert!(!get("0.weight").requires_grad());
    // Shared storage is shared in tensile too: a write through the view shows in the base.
    get("extra.weight_row1").fill_(9.0).unwrap();
    assert_eq!(get("0.weight").to_vec::<f32>()[4..8], [9.0; 4]);
    // ... and never reaches the file (private mapping).
    let again = pt::load_state_dict(data("state_dict.pt")).unwrap();
    check(
        &again[0].1,
        &e["state_dict.pt"]["0.weight"],
        true,
        "reloaded",
    );
}

#[test]
fn storages_are_mapped_without_a_copy() {
    // torch.save aligns each storage to 64 bytes in the file and the mapping starts on a page:
    // every zero-copy tensor's data is 64-byte aligned. A copy of these small tensors would
    // live inline in its storage (16-byte aligned), so all 12 being aligned is no accident.
    let v = pt::load(data("all_dtypes.pt")).unwrap();
    for (k, t) in v.as_dict().unwrap() {
        let t = t.as_tensor().unwrap();
        if t.numel() > 0 {
            assert_eq!(t.data_ptr() % 64, 0, "{k:?}");
        }
    }
    // NumPy aligns the data to 64 bytes too.
    for f in [
        "np_float32.npy",
        "np_int64.npy",
        "np_bool.npy",
        "fortran.npy",
    ] {
        assert_eq!(npy::read(data(f)).unwrap().data_ptr() % 64, 0, "{f}");
    }
    // Read from bytes, they are copies: writes to them can't reach anything else.
    let b = std::fs::read(data("np_float32.npy")).unwrap();
    let t = npy::read_bytes(&b).unwrap();
    t.fill_(0.0).unwrap();
    assert_eq!(std::fs::read(data("np_float32.npy")).unwrap(), b);
}

#[test]
fn torch_every_dtype_from_pytorch() {
    let e = expected();
    let v = pt::load(data("all_dtypes.pt")).unwrap();
    let d = v.as_dict().unwrap();
    assert_eq!(d.len(), 12);
    for (k, t) in d {
        let k = k.as_str().unwrap();
        check(t.as_tensor().unwrap(), &e["all_dtypes.pt"][k], true, k);
    }
    // From bytes too.
    let bytes = std::fs::read(data("all_dtypes.pt")).unwrap();
    let v2 = pt::load_bytes(&bytes).unwrap();
    check(
        v2.get("bfloat16").unwrap().as_tensor().unwrap(),
        &e["all_dtypes.pt"]["bfloat16"],
        true,
        "bytes",
    );
}

#[test]
fn torch_checkpoint_values() {
    let e = &expected()["checkpoint.pt"];
    let v = pt::load(data("checkpoint.pt")).unwrap();
    assert_eq!(v.get("epoch").unwrap().as_int(), Some(3));
    assert_eq!(v.get("loss").unwrap().as_f64(), Some(0.125));
    assert_eq!(v.get("big").unwrap().as_int(), Some(1 << 40));
    assert_eq!(v.get("neg").unwrap().as_int(), Some(-7));
    assert_eq!(v.get("name").unwrap().as_str(), Some("run-1"));
    assert!(
        matches!(v.get("size"), Some(pt::Value::Tuple(s)) if s.len() == 2 && s[1].as_int() == Some(3))
    );
    assert!(matches!(v.get("blob"), Some(pt::Value::Bytes(b)) if b == b"ab\0"));
    assert!(matches!(
        v.get("flags").unwrap().as_seq().unwrap(),
        [
            pt::Value::Bool(true),
            pt::Value::Bool(false),
            pt::Value::None
        ]
    ));
    let opt = v.get("optimizer").unwrap();
    let state = opt.get("state").unwrap().as_dict().unwrap();
    assert_eq!(state[0].0.as_int(), Some(0)); // int keys
    let s0 = &state[0].1;
    check(
        s0.get("exp_avg").unwrap().as_tensor().unwrap(),
        &e["exp_avg"],
        true,
        "exp_avg",
    );
    check(
        s0.get("step").unwrap().as_tensor().unwrap(),
        &e["step"],
        true,
        "step",
    );
    let g = &opt.get("param_groups").unwrap().as_seq().unwrap()[0];
    assert_eq!(
        g.get("lr").unwrap().as_f64(),
        e["lr"].as_str().unwrap().parse::<f64>().ok()
    );
    let betas: Vec<f64> = g
        .get("betas")
        .unwrap()
        .as_seq()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert_eq!(betas, [0.9, 0.999]);
    assert!(matches!(g.get("foreach"), Some(pt::Value::None)));
    let params: Vec<i64> = g
        .get("params")
        .unwrap()
        .as_seq()
        .unwrap()
        .iter()
        .map(|b| b.as_int().unwrap())
        .collect();
    assert_eq!(params, [0, 1]);
    // Not a state dict: a clear error.
    let err = pt::load_state_dict(data("checkpoint.pt"))
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "checkpoint.pt: not a state dict: the value of 'optimizer' is a dict, not a tensor"
        ),
        "{err}"
    );
}

#[test]
fn torch_parameters_keep_requires_grad() {
    let v = pt::load(data("params.pt")).unwrap();
    let l = v.as_seq().unwrap();
    assert!(l[0].as_tensor().unwrap().requires_grad());
    assert!(!l[1].as_tensor().unwrap().requires_grad());
    assert_eq!(l[0].as_tensor().unwrap().size(), [3, 4]);
}

#[test]
fn torch_refuses_code_and_foreign_formats() {
    let p = data("evil.pt");
    let err = pt::load(&p).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("{}: unsupported pickle global 'posix.system'", p.display())
    );
    let p = data("legacy.pt");
    let err = pt::load(&p).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: not a zip archive: only the zip format of torch.save (torch ≥ 1.6) is supported",
            p.display()
        )
    );
    let p = data("complex.pt");
    let err = pt::load(&p).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: dtype not supported: torch.ComplexFloatStorage",
            p.display()
        )
    );
    // A safetensors file is not a torch file either.
    assert!(
        pt::load(data("model.safetensors"))
            .unwrap_err()
            .to_string()
            .contains("not a zip archive")
    );
}

/// A torch.save-like zip around a hand-made pickle.
fn torch_zip(pickle: &[u8], storages: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let o =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    w.start_file("archive/data.pkl", o).unwrap();
    w.write_all(pickle).unwrap();
    for (k, b) in storages {
        w.start_file(format!("archive/data/{k}"), o).unwrap();
        w.write_all(b).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn torch_hostile_pickles_are_errors() {
    let run = |pk: Vec<u8>| {
        pt::load_bytes(&torch_zip(&pk, &[]))
            .unwrap_err()
            .to_string()
    };
    // 100,000 nested lists: no stack overflow building, converting or dropping them.
    let mut pk = b"\x80\x02".to_vec();
    pk.extend(std::iter::repeat_n(b']', 100_000));
    pk.extend(std::iter::repeat_n(b'a', 99_999));
    pk.push(b'.');
    assert_eq!(run(pk), "<bytes>: pickle nests containers deeper than 100");
    // Deeply nested tuples used twice as dict keys: no unbounded recursion comparing them.
    let mut pk = b"\x80\x02}(".to_vec();
    for _ in 0..2 {
        pk.extend(b")");
        pk.extend(std::iter::repeat_n(0x85u8, 100_000));
        pk.extend(b"N");
    }
    pk.extend(b"u.");
    assert_eq!(run(pk), "<bytes>: pickle nests containers deeper than 100");
    // A list that contains itself.
    assert_eq!(
        run(b"\x80\x02]q\x00h\x00a.".to_vec()),
        "<bytes>: pickle nests containers deeper than 100"
    );
    // "Billion laughs": 64 doublings of a shared tuple.
    let mut pk = b"\x80\x02Nq\x00".to_vec();
    for _ in 0..64 {
        pk.extend(b"0h\x00h\x00\x86q\x00");
    }
    pk.push(b'.');
    assert_eq!(
        run(pk),
        "<bytes>: pickle expands to more than 10000000 values"
    );
    // Globals outside the whitelist, through GLOBAL and STACK_GLOBAL.
    assert_eq!(
        run(b"\x80\x02cbuiltins\neval\n.".to_vec()),
        "<bytes>: unsupported pickle global 'builtins.eval'"
    );
    assert_eq!(
        run(b"\x80\x04\x8c\x02os\x8c\x06system\x93.".to_vec()),
        "<bytes>: unsupported pickle global 'os.system'"
    );
    // Object-building opcodes.
    assert_eq!(
        run(b"\x80\x02ccollections\nOrderedDict\n)\x81.".to_vec()),
        "<bytes>: unsupported pickle opcode 0x81 (NEWOBJ) at byte 28"
    );
    // A string longer than the data.
    assert!(
        run(b"\x80\x02X\xff\xff\xff\x7f".to_vec()).starts_with("<bytes>: truncated pickle data")
    );
    // A tensor reaching past its storage.
    let pk = b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x02tQK\x01K\x02\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtR.";
    let err = pt::load_bytes(&torch_zip(pk, &[("0", &[0u8; 8])]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "<bytes>: tensor of size [2], stride [1] and storage offset 1 does not fit in its storage of 2 elements"
    );
    // ... the same tensor at offset 0 is fine.
    let ok = pk.replace_first(b"K\x01K\x02\x85", b"K\x00K\x02\x85");
    let v = pt::load_bytes(&torch_zip(&ok, &[("0", &[0, 0, 128, 63, 0, 0, 0, 64])])).unwrap();
    assert_eq!(v.as_tensor().unwrap().to_vec::<f32>(), [1.0, 2.0]);
    // A storage whose size disagrees with its persistent id; a missing storage.
    let err = pt::load_bytes(&torch_zip(&ok, &[("0", &[0u8; 7])]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "<bytes>: storage 'archive/data/0' holds 7 bytes but its persistent id says 2 elements of torch.float32 (8 bytes)"
    );
    let err = pt::load_bytes(&torch_zip(&ok, &[]))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "<bytes>: missing storage 'archive/data/0'");
}

// ------------------------------------------------------------------------ hostile zips

/// CRC-32 (IEEE), for zips written by hand.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A stored member's local header (version 2.0, no flags, time 0), `data` following it.
fn local_header(name: &str, data: &[u8]) -> Vec<u8> {
    let mut v = b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec();
    v.extend(crc32(data).to_le_bytes());
    v.extend((data.len() as u32).to_le_bytes());
    v.extend((data.len() as u32).to_le_bytes());
    v.extend((name.len() as u16).to_le_bytes());
    v.extend(0u16.to_le_bytes());
    v.extend(name.as_bytes());
    v
}

/// A zip written by hand: `body` (local headers and data, from offset 0), then a central
/// directory of `records` `(name, data, local header offset)` and the end record.
fn zip_by_hand(mut body: Vec<u8>, records: &[(&str, &[u8], usize)]) -> Vec<u8> {
    let start = body.len();
    for (name, data, offset) in records {
        body.extend(b"PK\x01\x02\x14\x00");
        body.extend(&local_header(name, data)[4..30]);
        body.extend([0u8; 10]); // comment length, disk, internal and external attributes
        body.extend((*offset as u32).to_le_bytes());
        body.extend(name.as_bytes());
    }
    let size = body.len() - start;
    body.extend(b"PK\x05\x06\x00\x00\x00\x00");
    body.extend((records.len() as u16).to_le_bytes());
    body.extend((records.len() as u16).to_le_bytes());
    body.extend((size as u32).to_le_bytes());
    body.extend((start as u32).to_le_bytes());
    body.extend(0u16.to_le_bytes());
    body
}

/// Where a central directory record of `name` starts (its local header offset is at +42).
fn central_record(zip: &[u8], name: &str) -> usize {
    let n = name.as_bytes();
    (0..=zip.len() - 46 - n.len())
        .rev()
        .find(|&i| &zip[i..i + 4] == b"PK\x01\x02" && &zip[i + 46..i + 46 + n.len()] == n)
        .unwrap()
}

fn local_offset(zip: &[u8], name: &str) -> usize {
    let r = central_record(zip, name);
    u32::from_le_bytes(zip[r + 42..r + 46].try_into().unwrap()) as usize
}

/// `zip` with `name`'s central record pointing at `target`'s local header.
fn pointed_at(zip: &[u8], name: &str, target: &str) -> Vec<u8> {
    let mut v = zip.to_vec();
    let r = central_record(zip, name);
    let to = local_offset(zip, target) as u32;
    v[r + 42..r + 46].copy_from_slice(&to.to_le_bytes());
    v
}

/// Loads `bytes` from a file and from memory; both errors, the file's naming the file.
fn refused(
    name: &str,
    bytes: &[u8],
    from_file: impl Fn(&Path) -> Result<(), tensile::Error>,
    from_bytes: impl Fn(&[u8]) -> Result<(), tensile::Error>,
    want: &str,
) {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    let e = from_file(&p).unwrap_err().to_string();
    assert_eq!(e, format!("{}: {want}", p.display()), "{name} (file)");
    let e = from_bytes(bytes).unwrap_err().to_string();
    assert_eq!(e, format!("<bytes>: {want}"), "{name} (bytes)");
}

#[test]
fn torch_members_sharing_bytes_are_refused() {
    let file = std::fs::read(data("two_u8.pt")).unwrap();
    // As PyTorch wrote it: two storages, both viewed in the mapped file, apart.
    let v = pt::load(data("two_u8.pt")).unwrap();
    let (a, b) = (
        v.get("a").unwrap().as_tensor().unwrap(),
        v.get("b").unwrap().as_tensor().unwrap(),
    );
    assert_eq!(a.to_vec::<u8>(), (0..8).collect::<Vec<u8>>());
    assert_eq!(b.to_vec::<u8>(), (100..160).collect::<Vec<u8>>());
    a.fill_(7).unwrap();
    assert_eq!(b.to_vec::<u8>(), (100..160).collect::<Vec<u8>>());
    let load = |p: &Path| pt::load(p).map(drop);
    let load_bytes = |b: &[u8]| pt::load_bytes(b).map(drop);
    // The issue's file: data/1's central record points at data/0's local header. tensile
    // loaded it as two storages over the same bytes (a write to `a` changed `b`, with separate
    // version counters and locks); PyTorch copies (mmap=True: aliases), Python's zipfile
    // refuses ("File name in directory 'two_u8/data/1' and header b'two_u8/data/0' differ.").
    refused(
        "mismatch.pt",
        &pointed_at(&file, "two_u8/data/1", "two_u8/data/0"),
        load,
        load_bytes,
        "corrupt zip archive: member 'two_u8/data/1': invalid Zip archive: header inconsistency detected: Local file header filename mismatch (does not match central directory)",
    );
    // Consistent headers, but data/0's member lies inside data/1's data.
    let mut zf = zip::ZipArchive::new(std::io::Cursor::new(&file[..])).unwrap();
    let mut pkl = Vec::new();
    std::io::Read::read_to_end(&mut zf.by_name("two_u8/data.pkl").unwrap(), &mut pkl).unwrap();
    let a_bytes: Vec<u8> = (0..8).collect();
    let mut inner = local_header("archive/data/0", &a_bytes);
    inner.extend(&a_bytes);
    inner.resize(60, 0);
    let mut body = local_header("archive/data.pkl", &pkl);
    body.extend(&pkl);
    let off1 = body.len();
    body.extend(local_header("archive/data/1", &inner));
    body.extend(&inner);
    let records = [
        ("archive/data.pkl", &pkl[..], 0),
        ("archive/data/0", &a_bytes[..], off1 + 30 + 14),
        ("archive/data/1", &inner[..], off1),
    ];
    let nested = zip_by_hand(body.clone(), &records);
    refused(
        "nested.pt",
        &nested,
        load,
        load_bytes,
        "corrupt zip archive: members 'archive/data/1' and 'archive/data/0' overlap",
    );
    // The same members laid apart load (the hand-made zip is a good one).
    let mut apart = body;
    let off0 = apart.len();
    apart.extend(local_header("archive/data/0", &a_bytes));
    apart.extend(&a_bytes);
    let records = [
        records[0],
        ("archive/data/0", &a_bytes[..], off0),
        records[2],
    ];
    let v = pt::load_bytes(&zip_by_hand(apart, &records)).unwrap();
    assert_eq!(
        v.get("a").unwrap().as_tensor().unwrap().to_vec::<u8>(),
        a_bytes
    );
    // The last member grown (in both its headers) into the central directory.
    let mut into_dir = file.clone();
    let last = "two_u8/.data/serialization_id";
    let (l, r) = (local_offset(&file, last), central_record(&file, last));
    for at in [l + 18, l + 22, r + 20, r + 24] {
        into_dir[at..at + 4].copy_from_slice(&240u32.to_le_bytes());
    }
    refused(
        "into_dir.pt",
        &into_dir,
        load,
        load_bytes,
        "corrupt zip archive: member 'two_u8/.data/serialization_id' overlaps the central directory",
    );
}

#[test]
fn npz_members_sharing_bytes_are_refused() {
    let (x, y) = (
        Tensor::from_vec((0u8..8).collect(), [8]).unwrap(),
        Tensor::from_vec((100u8..108).collect(), [8]).unwrap(),
    );
    let p = tmp("xy.npz");
    npz::write(&p, &[("x", &x), ("y", &y)]).unwrap();
    let file = std::fs::read(&p).unwrap();
    let read = |p: &Path| npz::read(p).map(drop);
    let read_bytes = |b: &[u8]| npz::read_bytes(b).map(drop);
    // NumPy (zipfile): "File name in directory 'y.npy' and header b'x.npy' differ."
    refused(
        "mismatch.npz",
        &pointed_at(&file, "y.npy", "x.npy"),
        read,
        read_bytes,
        "corrupt zip archive: member 'y.npy': invalid Zip archive: header inconsistency detected: Local file header filename mismatch (does not match central directory)",
    );
    // x.npy (member and local header) inside the data of y.npy, a uint8 array.
    let x_npy = npy::to_bytes(&x).unwrap();
    let mut inner = local_header("x.npy", &x_npy);
    inner.extend(&x_npy);
    let y_npy = npy::to_bytes(&Tensor::from_vec(inner.clone(), [inner.len()]).unwrap()).unwrap();
    let mut body = local_header("y.npy", &y_npy);
    body.extend(&y_npy);
    let at = 30 + 5 + (y_npy.len() - inner.len());
    let nested = zip_by_hand(body, &[("x.npy", &x_npy, at), ("y.npy", &y_npy, 0)]);
    refused(
        "nested.npz",
        &nested,
        read,
        read_bytes,
        "corrupt zip archive: members 'y.npy' and 'x.npy' overlap",
    );
    // A size changed in the local header only.
    let mut sized = file.clone();
    let l = local_offset(&file, "x.npy");
    sized[l + 22] ^= 1;
    let e = npz::read_bytes(&sized).unwrap_err().to_string();
    assert_eq!(
        e,
        "<bytes>: corrupt zip archive: member 'x.npy': invalid Zip archive: header inconsistency detected: uncompressed size mismatch (does not match central directory)"
    );
}

trait ReplaceFirst {
    fn replace_first(&self, from: &[u8], to: &[u8]) -> Vec<u8>;
}
impl ReplaceFirst for [u8] {
    fn replace_first(&self, from: &[u8], to: &[u8]) -> Vec<u8> {
        let i = self.windows(from.len()).position(|w| w == from).unwrap();
        [&self[..i], to, &self[i + from.len()..]].concat()
    }
}

// ------------------------------------------------------------------------ safetensors

#[test]
fn safetensors_from_pytorch() {
    let e = expected();
    for f in ["all_dtypes.safetensors", "model.safetensors"] {
        let v = st::load(data(f)).unwrap();
        let names: Vec<&str> = v.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "sorted by name");
        assert_eq!(v.len(), e[f].as_object().unwrap().len());
        for (k, t) in &v {
            check(t, &e[f][k], true, k);
        }
        let b = st::load_bytes(&std::fs::read(data(f)).unwrap()).unwrap();
        for ((k1, a), (k2, b)) in v.iter().zip(&b) {
            assert_eq!(k1, k2);
            same(a, b, k1);
        }
    }
}

#[test]
fn safetensors_round_trip_every_dtype_and_layout() {
    let mut all = every_dtype();
    all.extend(non_contiguous());
    let p = tmp("rt.safetensors");
    st::save(&all, &p).unwrap();
    let back = st::load(&p).unwrap();
    assert_eq!(back.len(), all.len());
    for (k, t) in &all {
        let b = &back.iter().find(|(n, _)| n == k).unwrap().1;
        same(t, b, k);
        assert!(b.is_contiguous());
    }
    // In memory too, and the file written is what save_bytes gives.
    let bytes = st::save_bytes(&all).unwrap();
    assert_eq!(bytes, std::fs::read(&p).unwrap());
    let back = st::load_bytes(&bytes).unwrap();
    assert_eq!(back.len(), all.len());
    // Tensors stay valid after the file is gone (the mapping lives with them), and writing into
    // them leaves the file alone.
    let t = &st::load(&p).unwrap()[0].1;
    std::fs::remove_file(&p).unwrap();
    t.fill_(1).unwrap();
    assert!(t.to_vec::<f64>().iter().all(|&x| x == 1.0));
    // Duplicate names.
    let x = Tensor::ones([2]).unwrap();
    let err = st::save(&[("a", &x), ("a", &x)], &p)
        .unwrap_err()
        .to_string();
    assert_eq!(err, format!("{}: duplicate tensor name 'a'", p.display()));
}

#[test]
fn safetensors_refuses_tensors_sharing_memory() {
    // safetensors.torch.save_file's check (safetensors 0.8, `_find_shared_tensors`): tensors
    // over one storage whose bytes overlap would be written twice and load unshared.
    let w = Tensor::arange(6)
        .unwrap()
        .to(DType::Float32)
        .unwrap()
        .view([2, 3])
        .unwrap();
    let p = tmp("shared.safetensors");
    let msg = |sets: &str| {
        format!(
            "Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: {sets}. More information at https://huggingface.co/docs/safetensors/torch_shared_tensors"
        )
    };
    let err = st::save(&[("a", &w), ("b", &w)], &p)
        .unwrap_err()
        .to_string();
    assert_eq!(err, format!("{}: {}", p.display(), msg("[{'a', 'b'}]")));
    assert!(!p.exists());
    let (r0, r1) = (w.select(0, 0).unwrap(), w.select(0, 1).unwrap());
    let c = Tensor::zeros([2]).unwrap();
    let cases: [(&[(&str, &Tensor)], &str); 3] = [
        (
            &[("w", &w), ("r0", &r0), ("c", &c), ("r1", &r1)],
            "[{'w', 'r0', 'r1'}]",
        ),
        (
            &[("r0", &r0), ("x", &w.narrow(0, 0, 2).unwrap())],
            "[{'r0', 'x'}]",
        ),
        (
            &[
                ("a", &w),
                ("c", &c),
                ("b", &w.view([6]).unwrap()),
                ("c2", &c.alias()),
            ],
            "[{'a', 'b'}, {'c', 'c2'}]",
        ),
    ];
    for (ts, sets) in cases {
        let err = st::save_bytes(ts).unwrap_err().to_string();
        assert_eq!(err, format!("<bytes>: {}", msg(sets)));
    }
    // Disjoint parts of one storage, and empty tensors, are fine (as in save_file).
    let e = Tensor::zeros([0]).unwrap();
    let ok: [&[(&str, &Tensor)]; 3] = [
        &[("r0", &r0), ("r1", &r1)],
        &[("e", &e), ("e2", &e)],
        &[("w", &w), ("none", &w.narrow(0, 0, 0).unwrap())],
    ];
    for ts in ok {
        let back = st::load_bytes(&st::save_bytes(ts).unwrap()).unwrap();
        assert_eq!(back.len(), ts.len());
    }
}

/// A safetensors file made by hand: `header` JSON, then `body`.
fn st_file(header: &str, body: &[u8]) -> Vec<u8> {
    let mut v = (header.len() as u64).to_le_bytes().to_vec();
    v.extend(header.as_bytes());
    v.extend(body);
    v
}

#[test]
fn safetensors_misaligned_and_bad_files() {
    // A float32 tensor at byte 1 of the data: copied, not mapped, and right.
    let h = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}}"#;
    let mut body = vec![7u8];
    body.extend(1.5f32.to_le_bytes());
    body.extend((-2.0f32).to_le_bytes());
    let p = tmp("misaligned.safetensors");
    std::fs::write(&p, st_file(h, &body)).unwrap();
    let v = st::load(&p).unwrap();
    assert_eq!(v[0].1.to_vec::<u8>(), [7]);
    assert_eq!(v[1].1.to_vec::<f32>(), [1.5, -2.0]);
    // Unsupported dtype, bad bool, size mismatch, garbage.
    let h = r#"{"x":{"dtype":"U16","shape":[1],"data_offsets":[0,2]}}"#;
    let err = st::load_bytes(&st_file(h, &[0, 0]))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "<bytes>: dtype not supported: U16 (tensor 'x')");
    let h = r#"{"x":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}"#;
    let err = st::load_bytes(&st_file(h, &[1, 2]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "<bytes>: invalid bool value 2 in the data (expected 0 or 1)"
    );
    let h = r#"{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#;
    let err = st::load_bytes(&st_file(h, &[0; 8]))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("<bytes>: invalid safetensors file: "),
        "{err}"
    );
    let err = st::load_bytes(b"\x05\0\0\0\0\0\0\0{abc}")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("<bytes>: invalid safetensors file: "),
        "{err}"
    );
}

// ------------------------------------------------------------------------ npy / npz

#[test]
fn npy_from_numpy() {
    let e = &expected()["npy"];
    for (f, want) in e.as_object().unwrap() {
        let t = npy::read(data(f)).unwrap();
        check(&t, want, true, f);
    }
    let f = npy::read(data("fortran.npy")).unwrap();
    assert!(!f.is_contiguous());
    let err = npy::read(data("uint16.npy")).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: dtype not supported: '<u2'",
            data("uint16.npy").display()
        )
    );
}

#[test]
fn npy_write_is_byte_identical_to_numpy() {
    // Every dtype's file as numpy.save wrote it, rebuilt from the values alone.
    let e = &expected()["npy"];
    for f in e.as_object().unwrap().keys() {
        if f == "big_endian.npy" {
            continue; // tensile writes little-endian
        }
        let t = npy::read(data(f)).unwrap();
        let rebuilt = if f == "fortran.npy" {
            // A column-major tensor, as a transposed contiguous one.
            Tensor::from_vec(
                t.permute([2, 1, 0]).unwrap().contiguous().to_vec::<f64>(),
                [4, 3, 2],
            )
            .unwrap()
            .permute([2, 1, 0])
            .unwrap()
        } else {
            t.contiguous()
        };
        assert_eq!(
            npy::to_bytes(&rebuilt).unwrap(),
            std::fs::read(data(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn npy_round_trip_every_dtype_and_layout() {
    let mut all = every_dtype();
    all.extend(non_contiguous());
    for (k, t) in &all {
        if t.dtype() == DType::BFloat16 {
            let err = npy::to_bytes(t).unwrap_err().to_string();
            assert_eq!(
                err,
                "<bytes>: dtype not supported: torch.bfloat16 (NumPy has no bfloat16)"
            );
            continue;
        }
        let p = tmp(&format!("{k}.npy"));
        npy::write(&p, t).unwrap();
        same(t, &npy::read(&p).unwrap(), k);
        same(t, &npy::read_bytes(&npy::to_bytes(t).unwrap()).unwrap(), k);
    }
    // A transposed matrix is written in Fortran order and read back as the same view.
    let m = Tensor::arange(6)
        .unwrap()
        .view([2, 3])
        .unwrap()
        .t()
        .unwrap();
    let b = npy::to_bytes(&m).unwrap();
    assert!(
        std::str::from_utf8(&b[10..70])
            .unwrap()
            .contains("'fortran_order': True")
    );
    let r = npy::read_bytes(&b).unwrap();
    assert_eq!(r.stride(), [1, 3]);
    same(&m, &r, "fortran");
}

#[test]
fn npy_bad_files() {
    let err = |b: &[u8]| npy::read_bytes(b).unwrap_err().to_string();
    assert_eq!(err(b"hello"), "<bytes>: not a .npy file (bad magic)");
    assert_eq!(
        err(b"\x93NUM"),
        "<bytes>: truncated file: the magic string is cut short"
    );
    assert_eq!(
        err(b"\x93NUMPY\x04\x00\x10\x00"),
        "<bytes>: unsupported .npy version 4.0"
    );
    let npy_with = |h: &str, data: &[u8]| {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend((h.len() as u16).to_le_bytes());
        v.extend(h.as_bytes());
        v.extend(data);
        v
    };
    assert_eq!(
        err(&npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
            &[0; 20]
        )),
        "<bytes>: data holds 20 bytes but the header's shape (2, 3) of dtype '<f4' needs 24"
    );
    assert_eq!(
        err(&npy_with(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
            &[0, 3]
        )),
        "<bytes>: invalid bool value 3 in the data (expected 0 or 1)"
    );
    assert_eq!(
        err(&npy_with(
            "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }",
            &[0; 8]
        )),
        "<bytes>: bad header: 'descr' is not a simple dtype string (structured arrays are not supported)"
    );
    // NumPy wants exactly the keys 'descr', 'fortran_order' and 'shape' ("Header does not
    // contain the correct keys: [...]", the keys sorted).
    assert_eq!(
        err(&npy_with("{'descr': '<f4', 'shape': (2,), }", &[0; 8])),
        "<bytes>: bad header: does not contain the correct keys: ['descr', 'shape']"
    );
    assert_eq!(
        err(&npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }",
            &[0; 8]
        )),
        "<bytes>: bad header: does not contain the correct keys: ['descr', 'extra', 'fortran_order', 'shape']"
    );
    assert_eq!(
        err(&npy_with(
            "{'shape': (), 'fortran_order': False, }",
            &[0; 8]
        )),
        "<bytes>: bad header: does not contain the correct keys: ['fortran_order', 'shape']"
    );
    // A key given twice counts once; the last value wins (a Python dict literal).
    let t = npy::read_bytes(&npy_with(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<f8'}",
        &[0; 16],
    ))
    .unwrap();
    assert_eq!(t.dtype(), DType::Float64);
    // NumPy's size limit: the itemsize times the non-zero sizes fits in int64, whatever
    // zero the shape holds ("array is too big; `arr.size * arr.dtype.itemsize` is larger than
    // the maximum possible size.").
    for (descr, shape) in [
        ("<f4", "(0, 9223372036854775807)"),
        ("<f4", "(0, 2305843009213693952)"),
        ("<f4", "(1, 9223372036854775807)"),
        ("|u1", "(0, 9223372036854775808)"),
        ("<f4", "(0, 4611686018427387904, 2)"),
        ("|u1", "(3037000500, 3037000500)"),
    ] {
        let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        assert_eq!(
            err(&npy_with(&h, &[])),
            format!("<bytes>: bad header: the shape {shape} is too large"),
        );
    }
    // ... and below the limit, an empty array NumPy loads (with no data).
    for (descr, shape, sizes) in [
        ("<f4", "(0, 2305843009213693951)", [0, (1usize << 61) - 1]),
        ("|u1", "(0, 9223372036854775807)", [0, i64::MAX as usize]),
        ("|u1", "(9223372036854775807, 0)", [i64::MAX as usize, 0]),
    ] {
        let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let t = npy::read_bytes(&npy_with(&h, &[])).unwrap();
        assert_eq!(t.size(), sizes);
        assert_eq!(t.numel(), 0);
    }
    // Through a file, the error names it.
    let p = tmp("too_big.npy");
    std::fs::write(
        &p,
        npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 9223372036854775807), }",
            &[],
        ),
    )
    .unwrap();
    assert_eq!(
        npy::read(&p).unwrap_err().to_string(),
        format!(
            "{}: bad header: the shape (0, 9223372036854775807) is too large",
            p.display()
        )
    );
    assert_eq!(
        err(&npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999, 99999999999), }",
            &[]
        )),
        "<bytes>: bad header: the shape (99999999999, 99999999999, 99999999999) is too large"
    );
}

#[test]
fn npz_from_numpy_and_round_trip() {
    let e = expected();
    for f in ["arrays.npz", "compressed.npz"] {
        let v = npz::read(data(f)).unwrap();
        let names: Vec<&str> = v.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["a", "mask", "f", "s"], "{f}");
        for (k, t) in &v {
            check(t, &e["npz"][k], false, k);
        }
        assert_eq!(v[2].1.stride(), [1, 2], "fortran member");
        assert_eq!(v[3].1.dim(), 0);
    }
    let mut all: Vec<(String, Tensor)> = every_dtype()
        .into_iter()
        .filter(|(_, t)| t.dtype() != DType::BFloat16)
        .collect();
    all.extend(non_contiguous());
    for compressed in [false, true] {
        let p = tmp(&format!("rt{compressed}.npz"));
        if compressed {
            npz::write_compressed(&p, &all).unwrap();
        } else {
            npz::write(&p, &all).unwrap();
        }
        let back = npz::read(&p).unwrap();
        assert_eq!(back.len(), all.len());
        for ((k, t), (k2, b)) in all.iter().zip(&back) {
            assert_eq!(k, k2);
            same(t, b, k);
        }
    }
}

// ------------------------------------------------------------------------ every loader

#[test]
fn missing_files_name_the_path() {
    let p = data("no_such_file.bin");
    let want = format!("[Errno 2] No such file or directory: '{}'", p.display());
    assert_eq!(st::load(&p).unwrap_err().to_string(), want);
    assert_eq!(npy::read(&p).unwrap_err().to_string(), want);
    assert_eq!(npz::read(&p).unwrap_err().to_string(), want);
    assert_eq!(pt::load(&p).unwrap_err().to_string(), want);
    assert_eq!(pt::load_state_dict(&p).unwrap_err().to_string(), want);
    // Empty files: errors naming the file.
    let e = tmp("empty.bin");
    std::fs::write(&e, b"").unwrap();
    let name = e.display().to_string();
    assert!(st::load(&e).unwrap_err().to_string().starts_with(&name));
    assert_eq!(
        npy::read(&e).unwrap_err().to_string(),
        format!("{name}: truncated file: the magic string is cut short")
    );
    assert!(
        npz::read(&e)
            .unwrap_err()
            .to_string()
            .starts_with(&format!("{name}: corrupt zip archive"))
    );
    assert!(
        pt::load(&e)
            .unwrap_err()
            .to_string()
            .starts_with(&format!("{name}: not a zip archive"))
    );
    let x = Tensor::ones([1]).unwrap();
    let q = data("no_such_dir/x.npy");
    assert_eq!(
        npy::write(&q, &x).unwrap_err().to_string(),
        format!("[Errno 2] No such file or directory: '{}'", q.display())
    );
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "json"))
        .collect();
    v.sort();
    v
}

fn load_any(p: &Path, bytes: &[u8]) -> Result<(), tensile::Error> {
    match p.extension().and_then(|e| e.to_str()) {
        Some("safetensors") => st::load_bytes(bytes).map(|_| ()),
        Some("npy") => npy::read_bytes(bytes).map(|_| ()),
        Some("npz") => npz::read_bytes(bytes).map(|_| ()),
        Some("pt") => pt::load_bytes(bytes).map(|_| ()),
        _ => panic!("{}", p.display()),
    }
}

#[test]
fn truncated_fixtures_are_errors_never_panics() {
    let mut cuts = 0;
    for p in fixtures() {
        let b = std::fs::read(&p).unwrap();
        for n in (0..b.len()).step_by(97) {
            let r = load_any(&p, &b[..n]);
            assert!(r.is_err(), "{} cut at {n} loaded", p.display());
            cuts += 1;
        }
        // Through a file too, for one cut per fixture.
        let q = tmp(&format!("cut_{}", p.file_name().unwrap().to_str().unwrap()));
        std::fs::write(&q, &b[..b.len() / 2]).unwrap();
        let err = match p.extension().and_then(|e| e.to_str()) {
            Some("safetensors") => st::load(&q).map(|_| ()),
            Some("npy") => npy::read(&q).map(|_| ()),
            Some("npz") => npz::read(&q).map(|_| ()),
            _ => pt::load(&q).map(|_| ()),
        }
        .unwrap_err();
        assert!(
            err.to_string().starts_with(&q.display().to_string()),
            "{err}"
        );
    }
    assert!(cuts > 200, "{cuts}");
}

#[test]
fn corrupted_fixtures_never_panic() {
    // Every 97th byte flipped in turn (one at a time): an error or a value, never a panic.
    for p in fixtures() {
        let b = std::fs::read(&p).unwrap();
        for i in (0..b.len()).step_by(97) {
            for x in [0xffu8, 0x01] {
                let mut c = b.clone();
                c[i] ^= x;
                let _ = load_any(&p, &c);
            }
        }
    }
}

// ------------------------------------------------------------------------ ndarray

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_round_trips() {
    use ndarray::{ArrayD, IxDyn, array};
    let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let t = Tensor::from_ndarray(&a).unwrap();
    assert_eq!(t.size(), [2, 3]);
    assert_eq!(t.dtype(), DType::Float32);
    // A transposed view (not standard layout) comes out in logical order.
    let tt = Tensor::from_ndarray(&a.t()).unwrap();
    assert_eq!(tt.to_vec::<f32>(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // Tensor → array: views, casts, 0-d, bool and bf16.
    let back: ArrayD<f32> = t.t().unwrap().to_ndarray().unwrap();
    assert_eq!(back, a.t().into_dyn());
    let ints: ArrayD<i64> = t.to_ndarray().unwrap();
    assert_eq!(ints.as_slice().unwrap(), [1, 2, 3, 4, 5, 6]);
    let s: ArrayD<f64> = Tensor::scalar_tensor(2.5).unwrap().to_ndarray().unwrap();
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s[IxDyn(&[])], 2.5);
    let m = Tensor::from_ndarray(&array![true, false]).unwrap();
    assert_eq!(m.dtype(), DType::Bool);
    let h: ArrayD<half::bf16> = t.to(DType::BFloat16).unwrap().to_ndarray().unwrap();
    assert_eq!(h[[1, 2]], half::bf16::from_f32(6.0));
}

/// Writes tensile's outputs for `scripts/check_io_outputs.py` to read back with PyTorch,
/// safetensors and NumPy (run by hand: `TENSILE_IO_OUT=/tmp/tio cargo test --test io -- --ignored`).
#[test]
#[ignore]
fn write_outputs_for_python() {
    let dir = PathBuf::from(std::env::var("TENSILE_IO_OUT").expect("TENSILE_IO_OUT"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut all = every_dtype();
    all.extend(non_contiguous());
    st::save(&all, dir.join("all.safetensors")).unwrap();
    let np: Vec<(String, Tensor)> = all
        .into_iter()
        .filter(|(_, t)| t.dtype() != DType::BFloat16)
        .collect();
    npz::write(dir.join("all.npz"), &np).unwrap();
    npz::write_compressed(dir.join("all_compressed.npz"), &np).unwrap();
    for (k, t) in &np {
        npy::write(dir.join(format!("{k}.npy")), t).unwrap();
    }
    // The state dict PyTorch wrote, re-saved by tensile: PyTorch's load_state_dict must take it.
    let sd = pt::load_state_dict(data("state_dict.pt")).unwrap();
    let sd: Vec<(String, Tensor)> = sd
        .into_iter()
        .filter(|(k, _)| !k.starts_with("extra."))
        .collect();
    st::save(&sd, dir.join("model.safetensors")).unwrap();
}

/// The public storage API the loaders are written with: `TypedStorage::from_buffer`,
/// `Tensor::from_storage` (`set_`), and a mapped file's ranges as storages.
#[test]
fn storages_and_mapped_files() {
    use tensile::{MappedFile, TypedStorage};
    // from_buffer: byte order, element count, PyTorch's size error, bool validation
    let le: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let be: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let s = TypedStorage::from_buffer(&le, DType::Float32, false).unwrap();
    assert_eq!((s.size(), s.nbytes(), s.dtype()), (2, 8, DType::Float32));
    let t = Tensor::from_storage(&s, 0, &[2], &[1]).unwrap();
    let b = TypedStorage::from_buffer(&be, DType::Float32, true).unwrap();
    assert_eq!(
        Tensor::from_storage(&b, 0, &[2], &[1])
            .unwrap()
            .to_vec::<f32>(),
        [1.5, -2.0]
    );
    assert_eq!(t.to_vec::<f32>(), [1.5, -2.0]);
    let e = TypedStorage::from_buffer(&le[..7], DType::Float32, false).unwrap_err();
    assert_eq!(
        e.message(),
        "buffer size (7) must be a multiple of element size (4)"
    );
    let e = TypedStorage::from_buffer(&[0, 2], DType::Bool, false).unwrap_err();
    assert_eq!(
        e.message(),
        "invalid bool value 2 in the data (expected 0 or 1)"
    );
    // tensors over one storage share it (and its writes); the geometry must fit
    let u = Tensor::from_storage(&t.storage(), 1, &[1], &[1]).unwrap();
    u.fill_(7.0).unwrap();
    assert_eq!(t.to_vec::<f32>(), [1.5, 7.0]);
    assert_eq!(t.storage().data_ptr(), u.storage().data_ptr());
    let e = Tensor::from_storage(&s, 1, &[2], &[1]).unwrap_err();
    assert_eq!(
        e.message(),
        "setStorage: sizes [2], strides [1], storage offset 1, and itemsize 4 requiring a storage size of 12 are out of bounds for storage of size 8"
    );
    let e = Tensor::from_storage(&s, 0, &[2], &[]).unwrap_err();
    assert_eq!(e.message(), "mismatch in length of strides and shape");
    // a mapped file: its bytes while no storage views it; each range given to one storage
    let p = tmp("mapped.bin");
    let mut bytes = le.clone();
    bytes.extend_from_slice(&[1, 0, 3, 0]);
    std::fs::write(&p, &bytes).unwrap();
    let mut m = MappedFile::open(&p).unwrap();
    assert_eq!(m.bytes().unwrap(), &bytes[..]);
    let s = m.storage(0, 8, DType::Float32, false).unwrap();
    assert!(
        m.bytes().is_none(),
        "no reading once a storage views the file"
    );
    let t = Tensor::from_storage(&s, 0, &[2], &[1]).unwrap();
    assert_eq!(t.to_vec::<f32>(), [1.5, -2.0]);
    t.mul_(2.0).unwrap(); // copy-on-write: the file is unchanged
    assert_eq!(std::fs::read(&p).unwrap(), bytes);
    let e = m.storage(4, 4, DType::Float32, false).unwrap_err();
    assert_eq!(
        e.message(),
        "bytes 4..8 of the file already back another storage"
    );
    let e = m.storage(8, 4, DType::Bool, false).unwrap_err();
    assert_eq!(
        e.message(),
        "invalid bool value 3 in the data (expected 0 or 1)"
    );
    let e = m.storage(8, 8, DType::UInt8, false).unwrap_err();
    assert_eq!(e.message(), "bytes 8..16 are outside the file of 12 bytes");
    let e = m.storage(8, 3, DType::Int16, false).unwrap_err();
    assert_eq!(
        e.message(),
        "bytes 8..11 hold no whole number of elements of size 2"
    );
    let e = MappedFile::open(tmp("no_such_file")).err().unwrap();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
}
