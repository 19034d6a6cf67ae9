//! A restricted unpickler for the `data.pkl` of PyTorch's `torch.save` files, in the spirit of
//! PyTorch's own `weights_only=True` loader: it understands the pickle opcodes of protocols
//! 2 to 5 that `torch.save` writes (plus the container opcodes of the older protocols), builds
//! only plain values (None, bool, int, float, str, bytes, tuple, list, dict) and tensors, and
//! calls nothing: a `GLOBAL` is accepted only from a short whitelist, each entry handled here
//! by Rust code (`collections.OrderedDict`, `torch._utils._rebuild_tensor_v2`,
//! `torch._utils._rebuild_parameter`, the `torch.*Storage` types of the storage persistent ids,
//! `torch.Size`, `_codecs.encode`). Any other global is an error naming it
//! (`w.pt: unsupported pickle global 'os.system'`), as is any opcode that would build an
//! arbitrary object (`INST`, `OBJ`, `NEWOBJ`, `EXT*`, text `PERSID`).
//!
//! Robustness: every length is checked against the bytes left before anything is allocated;
//! containers are dropped iteratively (a deeply nested pickle can't overflow the stack); the
//! conversion to [`Value`] refuses nesting deeper than [`MAX_DEPTH`] and more than
//! [`MAX_VALUES`] values (shared sub-objects are expanded), so a small hostile pickle can't
//! exhaust memory; reference cycles are broken when loading ends.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::ferr;
use crate::Tensor;
use crate::TypedStorage;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// A value loaded from a `torch.save` file: the Python objects a state dict, an optimizer
/// state dict or a checkpoint dict are made of.
#[derive(Debug)]
pub enum Value {
    /// Python `None`.
    None,
    /// Python `bool`.
    Bool(bool),
    /// Python `int` (one that fits in 64 bits; a larger one is an error).
    Int(i64),
    /// Python `float`.
    Float(f64),
    /// Python `str`.
    Str(String),
    /// Python `bytes`.
    Bytes(Vec<u8>),
    /// A tensor (or `nn.Parameter`, loaded with its `requires_grad`). Tensors that shared a
    /// storage in PyTorch (views, `t()` of a weight) share one in tensile.
    Tensor(Tensor),
    /// Python `list`.
    List(Vec<Value>),
    /// Python `tuple` or `torch.Size`.
    Tuple(Vec<Value>),
    /// Python `dict` or `collections.OrderedDict`, in insertion order (keys may be any value:
    /// an optimizer's `state` is keyed by int).
    Dict(Vec<(Value, Value)>),
}

impl Value {
    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// The tensor, if this is one, by value.
    pub fn into_tensor(self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// The int, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// The float (an int widened), if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    /// The items of a list or tuple.
    pub fn as_seq(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) | Value::Tuple(v) => Some(v),
            _ => None,
        }
    }
    /// The entries of a dict.
    pub fn as_dict(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Dict(d) => Some(d),
            _ => None,
        }
    }
    /// `d[key]` for a dict with a string key `key` (`None` when absent or not a dict).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_dict()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }
    /// The Python type name (`"dict"`, `"tensor"`, …), for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Tensor(_) => "Tensor",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
        }
    }
}

/// The deepest nesting of containers [`Value`] may have.
pub const MAX_DEPTH: usize = 100;
/// The most values one loaded pickle may expand to.
pub const MAX_VALUES: usize = 10_000_000;

/// A whitelisted global.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Global {
    OrderedDict,
    RebuildTensorV2,
    RebuildTensor,
    RebuildParameter,
    RebuildParameterWithState,
    StorageType(DType),
    TorchSize,
    CodecsEncode,
}

/// The vector of a list, tuple or dict, dropped iteratively; for a dict, an index of its
/// str, int and bool keys (position of the key in the vector).
struct Cell(RefCell<Vec<PV>>, RefCell<HashMap<HKey, usize>>);

/// A hashable dict key (Python: `1 == True`, so bools index as ints).
#[derive(PartialEq, Eq, Hash)]
enum HKey {
    Str(Rc<str>),
    Int(i64),
}

fn hkey(k: &PV) -> Option<HKey> {
    match k {
        PV::Str(s) => Some(HKey::Str(s.clone())),
        PV::Int(i) => Some(HKey::Int(*i)),
        PV::Bool(b) => Some(HKey::Int(*b as i64)),
        _ => None,
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        drain(std::mem::take(self.0.get_mut()));
    }
}

/// Drops values without recursion: a container whose last reference is dropped here has its
/// contents moved onto the work list first.
fn drain(v: Vec<PV>) {
    let mut work = v;
    while let Some(x) = work.pop() {
        let rc = match x {
            PV::List(c) | PV::Tuple(c) | PV::Dict(c) => c,
            _ => continue,
        };
        if let Ok(cell) = Rc::try_unwrap(rc) {
            work.append(&mut cell.0.borrow_mut());
        }
    }
}

/// A value on the unpickler's stack. Containers are shared (`Rc`) as Python objects are: a
/// memoized list mutated later is seen mutated everywhere.
#[derive(Clone)]
enum PV {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    Tuple(Rc<Cell>),
    List(Rc<Cell>),
    /// Keys and values alternate.
    Dict(Rc<Cell>),
    Global(Global),
    /// A storage from a persistent id and its element count.
    Storage(TypedStorage, usize),
    Tensor(Rc<Tensor>),
}

impl PV {
    fn kind(&self) -> &'static str {
        match self {
            PV::None => "None",
            PV::Bool(_) => "bool",
            PV::Int(_) => "int",
            PV::Float(_) => "float",
            PV::Str(_) => "str",
            PV::Bytes(_) => "bytes",
            PV::Tuple(_) => "tuple",
            PV::List(_) => "list",
            PV::Dict(_) => "dict",
            PV::Global(_) => "global",
            PV::Storage(..) => "storage",
            PV::Tensor(_) => "tensor",
        }
    }
    fn cell(v: Vec<PV>) -> Rc<Cell> {
        Rc::new(Cell(RefCell::new(v), RefCell::new(HashMap::new())))
    }
}

/// Where storages come from: `(key, dtype, numel)` of a persistent id → the storage's bytes.
pub(crate) type StorageLoader<'a> = dyn FnMut(&str, DType, usize) -> Result<TypedStorage> + 'a;

/// The unpickler's state.
struct Unpickler<'a, 'l> {
    b: &'a [u8],
    i: usize,
    file: &'a str,
    stack: Vec<PV>,
    marks: Vec<Vec<PV>>,
    memo: HashMap<u32, PV>,
    load_storage: &'l mut StorageLoader<'l>,
    /// Storages already loaded, by key (views of one storage share it).
    storages: HashMap<String, PV>,
}

/// Unpickles `data` (the `data.pkl` of a torch zip file `file`), loading storages through
/// `load_storage`, and converts the result to a [`Value`].
pub(crate) fn unpickle(
    data: &[u8],
    file: &str,
    load_storage: &mut StorageLoader<'_>,
) -> Result<Value> {
    let mut u = Unpickler {
        b: data,
        i: 0,
        file,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        load_storage,
        storages: HashMap::new(),
    };
    let r = u.run().and_then(|pv| {
        let mut budget = MAX_VALUES;
        let v = to_value(&pv, 0, &mut budget, file);
        drain(vec![pv]);
        v
    });
    // Break reference cycles (they can only be made through the memo) and drop iteratively.
    let mut rest: Vec<PV> = u.stack.drain(..).collect();
    for m in u.marks.drain(..) {
        rest.extend(m);
    }
    for (_, v) in u.memo.drain() {
        if let PV::List(c) | PV::Tuple(c) | PV::Dict(c) = &v {
            rest.append(&mut c.0.borrow_mut());
        }
        rest.push(v);
    }
    drain(rest);
    r
}

fn to_value(pv: &PV, depth: usize, budget: &mut usize, file: &str) -> Result<Value> {
    if *budget == 0 {
        return Err(ferr(
            file,
            format!("pickle expands to more than {MAX_VALUES} values"),
        ));
    }
    *budget -= 1;
    if depth > MAX_DEPTH {
        return Err(ferr(
            file,
            format!("pickle nests containers deeper than {MAX_DEPTH}"),
        ));
    }
    let items = |c: &Rc<Cell>, budget: &mut usize| -> Result<Vec<Value>> {
        let v = c.0.borrow();
        v.iter()
            .map(|x| to_value(x, depth + 1, budget, file))
            .collect()
    };
    Ok(match pv {
        PV::None => Value::None,
        PV::Bool(b) => Value::Bool(*b),
        PV::Int(i) => Value::Int(*i),
        PV::Float(f) => Value::Float(*f),
        PV::Str(s) => Value::Str(s.to_string()),
        PV::Bytes(b) => Value::Bytes(b.to_vec()),
        PV::Tuple(c) => Value::Tuple(items(c, budget)?),
        PV::List(c) => Value::List(items(c, budget)?),
        PV::Dict(c) => {
            let v = items(c, budget)?;
            let mut out = Vec::with_capacity(v.len() / 2);
            let mut it = v.into_iter();
            while let (Some(k), Some(x)) = (it.next(), it.next()) {
                out.push((k, x));
            }
            Value::Dict(out)
        }
        PV::Tensor(t) => Value::Tensor(t.alias()),
        PV::Global(g) => {
            return Err(ferr(
                file,
                format!("the pickle holds a bare global ({g:?}), not data"),
            ));
        }
        PV::Storage(..) => return Err(ferr(file, "the pickle holds a bare storage, not a tensor")),
    })
}

/// Python's `==` on dict keys (a later `SETITEM` of an equal key replaces). Tuples nested
/// deeper than [`MAX_DEPTH`] compare unequal (such a value is refused on conversion anyway),
/// so a hostile key can't recurse without bound.
fn key_eq(a: &PV, b: &PV) -> bool {
    key_eq_at(a, b, 0)
}

fn key_eq_at(a: &PV, b: &PV, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (a, b) {
        (PV::Str(x), PV::Str(y)) => x == y,
        (PV::Int(x), PV::Int(y)) => x == y,
        (PV::Bool(x), PV::Bool(y)) => x == y,
        (PV::Int(x), PV::Bool(y)) | (PV::Bool(y), PV::Int(x)) => *x == *y as i64,
        (PV::Float(x), PV::Float(y)) => x == y,
        (PV::None, PV::None) => true,
        (PV::Bytes(x), PV::Bytes(y)) => x == y,
        (PV::Tuple(x), PV::Tuple(y)) => {
            Rc::ptr_eq(x, y) || {
                let (x, y) = (x.0.borrow(), y.0.borrow());
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(a, b)| key_eq_at(a, b, depth + 1))
            }
        }
        _ => false,
    }
}

fn storage_type(name: &str) -> Option<DType> {
    Some(match name {
        "FloatStorage" => DType::Float32,
        "DoubleStorage" => DType::Float64,
        "HalfStorage" => DType::Float16,
        "BFloat16Storage" => DType::BFloat16,
        "LongStorage" => DType::Int64,
        "IntStorage" => DType::Int32,
        "ShortStorage" => DType::Int16,
        "CharStorage" => DType::Int8,
        "ByteStorage" | "UntypedStorage" => DType::UInt8,
        "BoolStorage" => DType::Bool,
        _ => return None,
    })
}

impl Unpickler<'_, '_> {
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        ferr(self.file, msg)
    }

    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self
            .i
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| {
                self.err(format!(
                    "truncated pickle data (needs {n} more bytes at byte {})",
                    self.i
                ))
            })?;
        let s = &self.b[self.i..end];
        self.i = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn line(&mut self) -> Result<String> {
        let rest = &self.b[self.i..];
        let n = rest
            .iter()
            .position(|&c| c == b'\n')
            .ok_or_else(|| self.err("truncated pickle data (unterminated line)"))?;
        let s = String::from_utf8_lossy(&rest[..n]).into_owned();
        self.i += n + 1;
        Ok(s)
    }
    fn pop(&mut self) -> Result<PV> {
        self.stack
            .pop()
            .ok_or_else(|| ferr(self.file, "bad pickle: stack underflow"))
    }
    fn top(&mut self) -> Result<&mut PV> {
        let f = self.file;
        self.stack
            .last_mut()
            .ok_or_else(|| ferr(f, "bad pickle: stack underflow"))
    }
    fn pop_mark(&mut self) -> Result<Vec<PV>> {
        let items = std::mem::take(&mut self.stack);
        self.stack = self
            .marks
            .pop()
            .ok_or_else(|| ferr(self.file, "bad pickle: no MARK on the stack"))?;
        Ok(items)
    }
    fn string(&mut self, n: usize) -> Result<PV> {
        let file = self.file;
        let b = self.take(n)?;
        let s =
            std::str::from_utf8(b).map_err(|_| ferr(file, "bad pickle: a string is not UTF-8"))?;
        Ok(PV::Str(Rc::from(s)))
    }
    fn len_u64(&mut self, n: u64) -> Result<usize> {
        usize::try_from(n).map_err(|_| self.err("truncated pickle data (a length beyond the data)"))
    }
    fn put(&mut self, k: u32) -> Result<()> {
        let v = self.top()?.clone();
        if let Some(old) = self.memo.insert(k, v) {
            drain(vec![old]);
        }
        Ok(())
    }
    fn get(&mut self, k: u32) -> Result<()> {
        let v = self
            .memo
            .get(&k)
            .cloned()
            .ok_or_else(|| self.err(format!("bad pickle: memo key {k} not found")))?;
        self.stack.push(v);
        Ok(())
    }
    fn global(&mut self, module: &str, name: &str) -> Result<PV> {
        let g = match (module, name) {
            ("collections", "OrderedDict") => Global::OrderedDict,
            ("torch._utils", "_rebuild_tensor_v2") => Global::RebuildTensorV2,
            ("torch._utils", "_rebuild_tensor") => Global::RebuildTensor,
            ("torch._utils", "_rebuild_parameter") => Global::RebuildParameter,
            ("torch._utils", "_rebuild_parameter_with_state") => Global::RebuildParameterWithState,
            ("torch", "Size") => Global::TorchSize,
            ("_codecs", "encode") => Global::CodecsEncode,
            ("torch" | "torch.storage", n) if n.ends_with("Storage") => match storage_type(n) {
                Some(d) => Global::StorageType(d),
                None => return Err(self.err(format!("dtype not supported: {module}.{name}"))),
            },
            _ => return Err(self.err(format!("unsupported pickle global '{module}.{name}'"))),
        };
        Ok(PV::Global(g))
    }

    fn dict_set(&self, d: &Rc<Cell>, k: PV, v: PV) -> Result<()> {
        if matches!(k, PV::List(_) | PV::Dict(_)) {
            return Err(self.err(format!(
                "bad pickle: unhashable dict key of type {}",
                k.kind()
            )));
        }
        let mut c = d.0.borrow_mut();
        let mut idx = d.1.borrow_mut();
        // Python dicts replace an equal key: str/int/bool keys are found through the index,
        // others (tuples, floats, None, bytes) by a scan of the non-indexed keys.
        let hk = hkey(&k);
        let pos = match &hk {
            Some(h) => idx.get(h).copied(),
            None => (0..c.len())
                .step_by(2)
                .find(|&j| hkey(&c[j]).is_none() && key_eq(&c[j], &k)),
        };
        match pos {
            Some(j) => {
                let old = std::mem::replace(&mut c[j + 1], v);
                drop(c);
                drain(vec![old]);
            }
            None => {
                if let Some(h) = hk {
                    idx.insert(h, c.len());
                }
                c.push(k);
                c.push(v);
            }
        }
        Ok(())
    }

    fn int_arg(&self, v: &PV, what: &str) -> Result<usize> {
        match v {
            PV::Int(i) if *i >= 0 => Ok(*i as usize),
            PV::Bool(b) => Ok(*b as usize),
            _ => Err(self.err(format!(
                "bad tensor: {what} is not a non-negative int ({})",
                v.kind()
            ))),
        }
    }
    fn ints(&self, v: &PV, what: &str) -> Result<Vec<usize>> {
        match v {
            PV::Tuple(c) | PV::List(c) => {
                c.0.borrow().iter().map(|x| self.int_arg(x, what)).collect()
            }
            _ => Err(self.err(format!("bad tensor: {what} is not a tuple ({})", v.kind()))),
        }
    }

    fn persistent_load(&mut self, pid: PV) -> Result<PV> {
        let items: Vec<PV> = match &pid {
            PV::Tuple(c) => c.0.borrow().clone(),
            _ => {
                return Err(self.err(format!(
                    "bad pickle: persistent id is a {}, not a tuple",
                    pid.kind()
                )));
            }
        };
        drain(vec![pid]);
        match items.as_slice() {
            [
                PV::Str(tag),
                PV::Global(Global::StorageType(dtype)),
                PV::Str(key),
                _location,
                numel,
            ] if &**tag == "storage" => {
                let numel = self.int_arg(numel, "a storage's size")?;
                if let Some(s) = self.storages.get(&**key) {
                    return Ok(s.clone());
                }
                let st = (self.load_storage)(key, *dtype, numel)?;
                let pv = PV::Storage(st, numel);
                self.storages.insert(key.to_string(), pv.clone());
                drain(items);
                Ok(pv)
            }
            _ => {
                Err(self
                    .err("bad pickle: persistent id is not ('storage', type, key, location, size)"))
            }
        }
    }

    fn rebuild_tensor(&self, args: &[PV]) -> Result<Tensor> {
        let (st, numel) = match args.first() {
            Some(PV::Storage(s, n)) => (s, *n),
            _ => {
                return Err(
                    self.err("bad tensor: _rebuild_tensor's first argument is not a storage")
                );
            }
        };
        if args.len() < 4 {
            return Err(
                self.err("bad tensor: _rebuild_tensor takes (storage, offset, size, stride, …)")
            );
        }
        let offset = self.int_arg(&args[1], "the storage offset")?;
        let sizes = self.ints(&args[2], "the size")?;
        let strides = self.ints(&args[3], "the stride")?;
        if sizes.len() != strides.len() {
            return Err(self.err(format!(
                "bad tensor: size {:?} and stride {:?} differ in length",
                sizes, strides
            )));
        }
        let ext = super::extent(&sizes, &strides, offset);
        if ext.is_none_or(|e| e > numel) {
            return Err(self.err(format!(
                "tensor of size {:?}, stride {:?} and storage offset {offset} does not fit in its storage of {numel} elements",
                sizes, strides
            )));
        }
        Tensor::from_storage(st, offset, &sizes, &strides).map_err(|e| self.err(e.message()))
    }

    fn reduce(&mut self, f: PV, args: PV) -> Result<PV> {
        let g = match f {
            PV::Global(g) => g,
            other => return Err(self.err(format!("bad pickle: REDUCE on a {}", other.kind()))),
        };
        let a: Vec<PV> = match &args {
            PV::Tuple(c) => c.0.borrow().clone(),
            _ => return Err(self.err("bad pickle: REDUCE arguments are not a tuple")),
        };
        let r = match g {
            Global::OrderedDict => {
                let d = PV::cell(Vec::new());
                if let Some(PV::List(items) | PV::Tuple(items)) = a.first() {
                    for kv in items.0.borrow().iter() {
                        match kv {
                            PV::Tuple(p) if p.0.borrow().len() == 2 => {
                                let p = p.0.borrow();
                                self.dict_set(&d, p[0].clone(), p[1].clone())?;
                            }
                            _ => {
                                return Err(self.err("bad pickle: OrderedDict items are not pairs"));
                            }
                        }
                    }
                }
                PV::Dict(d)
            }
            Global::RebuildTensor | Global::RebuildTensorV2 => {
                let t = self.rebuild_tensor(&a)?;
                if let (Some(PV::Bool(true)), Global::RebuildTensorV2) = (a.get(4), g) {
                    t.requires_grad_(true).map_err(|e| self.err(e))?;
                }
                PV::Tensor(Rc::new(t))
            }
            Global::RebuildParameter | Global::RebuildParameterWithState => {
                let t = match a.first() {
                    Some(PV::Tensor(t)) => t.alias(),
                    _ => {
                        return Err(
                            self.err("bad tensor: _rebuild_parameter's data is not a tensor")
                        );
                    }
                };
                if let Some(PV::Bool(rg)) = a.get(1) {
                    t.requires_grad_(*rg).map_err(|e| self.err(e))?;
                }
                PV::Tensor(Rc::new(t))
            }
            Global::TorchSize => match a.first() {
                Some(PV::Tuple(c)) => PV::Tuple(c.clone()),
                Some(PV::List(c)) => PV::Tuple(PV::cell(c.0.borrow().clone())),
                None => PV::Tuple(PV::cell(Vec::new())),
                _ => return Err(self.err("bad pickle: torch.Size of a non-tuple")),
            },
            Global::CodecsEncode => match a.as_slice() {
                [PV::Str(s), PV::Str(enc)] if &**enc == "latin1" || &**enc == "latin-1" => {
                    let mut v = Vec::with_capacity(s.len());
                    for ch in s.chars() {
                        let c = ch as u32;
                        if c > 255 {
                            return Err(
                                self.err("bad pickle: _codecs.encode of a non-latin1 string")
                            );
                        }
                        v.push(c as u8);
                    }
                    PV::Bytes(Rc::from(v))
                }
                _ => return Err(self.err("bad pickle: unsupported _codecs.encode arguments")),
            },
            Global::StorageType(d) => {
                return Err(self.err(format!("bad pickle: calling the storage type of {d}")));
            }
        };
        drain(a);
        drain(vec![args]);
        Ok(r)
    }

    fn run(&mut self) -> Result<PV> {
        loop {
            let at = self.i;
            let op = self.u8()?;
            match op {
                0x80 => {
                    let p = self.u8()?;
                    if p > 5 {
                        return Err(self.err(format!("unsupported pickle protocol {p}")));
                    }
                }
                0x95 => {
                    self.take(8)?; // FRAME: framing is only a hint to buffered readers
                }
                b'.' => return self.pop(),
                b'N' => self.stack.push(PV::None),
                0x88 => self.stack.push(PV::Bool(true)),
                0x89 => self.stack.push(PV::Bool(false)),
                b'J' => {
                    let v = i32::from_le_bytes(self.arr()?);
                    self.stack.push(PV::Int(v as i64))
                }
                b'K' => {
                    let v = self.u8()?;
                    self.stack.push(PV::Int(v as i64))
                }
                b'M' => {
                    let v = u16::from_le_bytes(self.arr()?);
                    self.stack.push(PV::Int(v as i64))
                }
                0x8a | 0x8b => {
                    let n = if op == 0x8a {
                        self.u8()? as usize
                    } else {
                        let n = i32::from_le_bytes(self.arr()?);
                        usize::try_from(n)
                            .map_err(|_| self.err("bad pickle: negative LONG4 length"))?
                    };
                    let b = self.take(n)?;
                    if n > 8 {
                        return Err(self.err("integer does not fit in 64 bits"));
                    }
                    let neg = n > 0 && b[n - 1] & 0x80 != 0;
                    let mut a = if neg { [0xffu8; 8] } else { [0u8; 8] };
                    a[..n].copy_from_slice(b);
                    self.stack.push(PV::Int(i64::from_le_bytes(a)));
                }
                b'G' => {
                    let v = f64::from_be_bytes(self.arr()?);
                    self.stack.push(PV::Float(v))
                }
                b'X' => {
                    let n = u32::from_le_bytes(self.arr()?) as usize;
                    let v = self.string(n)?;
                    self.stack.push(v)
                }
                0x8c => {
                    let n = self.u8()? as usize;
                    let v = self.string(n)?;
                    self.stack.push(v)
                }
                0x8d => {
                    let n = u64::from_le_bytes(self.arr()?);
                    let n = self.len_u64(n)?;
                    let v = self.string(n)?;
                    self.stack.push(v)
                }
                b'C' | b'B' | 0x8e => {
                    let n = match op {
                        b'C' => self.u8()? as usize,
                        b'B' => u32::from_le_bytes(self.arr()?) as usize,
                        _ => {
                            let n = u64::from_le_bytes(self.arr()?);
                            self.len_u64(n)?
                        }
                    };
                    let b = self.take(n)?;
                    let v = PV::Bytes(Rc::from(b));
                    self.stack.push(v)
                }
                b')' => self.stack.push(PV::Tuple(PV::cell(Vec::new()))),
                b't' => {
                    let items = self.pop_mark()?;
                    self.stack.push(PV::Tuple(PV::cell(items)))
                }
                0x85..=0x87 => {
                    let n = (op - 0x84) as usize;
                    if self.stack.len() < n {
                        return Err(self.err("bad pickle: stack underflow"));
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.stack.push(PV::Tuple(PV::cell(items)))
                }
                b']' => self.stack.push(PV::List(PV::cell(Vec::new()))),
                b'l' => {
                    let items = self.pop_mark()?;
                    self.stack.push(PV::List(PV::cell(items)))
                }
                b'a' => {
                    let v = self.pop()?;
                    match self.top()? {
                        PV::List(c) => c.0.borrow_mut().push(v),
                        other => {
                            let k = other.kind();
                            return Err(self.err(format!("bad pickle: APPEND to a {k}")));
                        }
                    }
                }
                b'e' => {
                    let items = self.pop_mark()?;
                    match self.top()? {
                        PV::List(c) => c.0.borrow_mut().extend(items),
                        other => {
                            let k = other.kind();
                            return Err(self.err(format!("bad pickle: APPENDS to a {k}")));
                        }
                    }
                }
                b'}' => self.stack.push(PV::Dict(PV::cell(Vec::new()))),
                b'd' => {
                    let items = self.pop_mark()?;
                    if items.len() % 2 != 0 {
                        return Err(self.err("bad pickle: DICT with an odd number of items"));
                    }
                    let d = PV::cell(Vec::new());
                    let mut it = items.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        self.dict_set(&d, k, v)?;
                    }
                    self.stack.push(PV::Dict(d))
                }
                b's' | b'u' => {
                    let items = if op == b's' {
                        let v = self.pop()?;
                        let k = self.pop()?;
                        vec![k, v]
                    } else {
                        self.pop_mark()?
                    };
                    if items.len() % 2 != 0 {
                        return Err(self.err("bad pickle: SETITEMS with an odd number of items"));
                    }
                    let d = match self.top()? {
                        PV::Dict(d) => d.clone(),
                        other => {
                            let k = other.kind();
                            return Err(self.err(format!("bad pickle: SETITEM on a {k}")));
                        }
                    };
                    let mut it = items.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        self.dict_set(&d, k, v)?;
                    }
                }
                b'(' => {
                    let s = std::mem::take(&mut self.stack);
                    self.marks.push(s);
                }
                b'0' => {
                    let v = self.pop()?;
                    drain(vec![v]);
                }
                b'1' => {
                    let v = self.pop_mark()?;
                    drain(v);
                }
                b'2' => {
                    let v = self.top()?.clone();
                    self.stack.push(v)
                }
                b'q' => {
                    let k = self.u8()? as u32;
                    self.put(k)?
                }
                b'r' => {
                    let k = u32::from_le_bytes(self.arr()?);
                    self.put(k)?
                }
                0x94 => {
                    let k = u32::try_from(self.memo.len())
                        .map_err(|_| self.err("bad pickle: memo too large"))?;
                    self.put(k)?
                }
                b'p' => {
                    let l = self.line()?;
                    let k = l
                        .trim()
                        .parse::<u32>()
                        .map_err(|_| self.err("bad pickle: bad PUT key"))?;
                    self.put(k)?
                }
                b'h' => {
                    let k = self.u8()? as u32;
                    self.get(k)?
                }
                b'j' => {
                    let k = u32::from_le_bytes(self.arr()?);
                    self.get(k)?
                }
                b'g' => {
                    let l = self.line()?;
                    let k = l
                        .trim()
                        .parse::<u32>()
                        .map_err(|_| self.err("bad pickle: bad GET key"))?;
                    self.get(k)?
                }
                b'c' => {
                    let m = self.line()?;
                    let n = self.line()?;
                    let g = self.global(&m, &n)?;
                    self.stack.push(g)
                }
                0x93 => {
                    let n = self.pop()?;
                    let m = self.pop()?;
                    match (&m, &n) {
                        (PV::Str(m), PV::Str(n)) => {
                            let g = self.global(m, n)?;
                            self.stack.push(g)
                        }
                        _ => return Err(self.err("bad pickle: STACK_GLOBAL of non-strings")),
                    }
                }
                b'R' => {
                    let args = self.pop()?;
                    let f = self.pop()?;
                    let r = self.reduce(f, args)?;
                    self.stack.push(r)
                }
                b'b' => {
                    // BUILD: the state of an OrderedDict (its `_metadata`) or of a parameter is
                    // dropped; nothing else may be built.
                    let state = self.pop()?;
                    match self.top()? {
                        PV::Dict(_) | PV::Tensor(_) => drain(vec![state]),
                        other => {
                            let k = other.kind();
                            return Err(self.err(format!("bad pickle: BUILD on a {k}")));
                        }
                    }
                }
                b'Q' => {
                    let pid = self.pop()?;
                    let v = self.persistent_load(pid)?;
                    self.stack.push(v)
                }
                _ => {
                    let name = match op {
                        b'i' => "INST",
                        b'o' => "OBJ",
                        0x81 => "NEWOBJ",
                        0x92 => "NEWOBJ_EX",
                        0x82..=0x84 => "EXT",
                        b'P' => "PERSID",
                        b'I' | b'L' | b'F' | b'S' | b'V' | b'U' | b'T' => {
                            "a protocol-0/1 text opcode"
                        }
                        0x8f..=0x91 => "a set opcode",
                        0x96..=0x98 => "an out-of-band buffer opcode",
                        _ => "an unknown opcode",
                    };
                    return Err(self.err(format!(
                        "unsupported pickle opcode 0x{op:02x} ({name}) at byte {at}"
                    )));
                }
            }
        }
    }
}
