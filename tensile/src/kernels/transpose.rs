//! Same-dtype copies whose two fastest dims are swapped between destination and source:
//! `A.t().contiguous()`, NCHW → NHWC (`permute(0, 2, 3, 1).contiguous()`), `copy_` into a
//! transposed view, and so on.
//!
//! Why a kernel of its own: the engine's generic path ([`Loop::run`] with layouts that
//! disagree) walks such copies in tiles with one strided scalar run per column, which moves
//! one element per load and per store. Here the copy is a batch of matrix transposes: the
//! destination is contiguous along loop dim 0 and the source along loop dim 1, so source rows
//! and destination rows are both contiguous and whole vectors can be loaded and stored.
//!
//! How it is blocked:
//! * the iteration space is cut into [`BLOCK_R`] × [`BLOCK_C`] blocks (source rows × source
//!   columns) per outer (batch) index; blocks are the units the intra-op pool's threads
//!   share, split as [`Loop::run`] splits its elements (same grain);
//! * inside a block, register tiles are transposed: 16 × 16 four-byte or 8 × 8 eight-byte
//!   elements with AVX-512F (one cache line per source row and per destination row, edges
//!   through masked loads and stores; large copies with far-apart destination rows write
//!   whole lines with non-temporal stores, see [`STREAM_MIN_LD`]), 8 × 8 four-byte elements
//!   with AVX2, 16 × 16 two-byte elements with AVX2, 16 × 16 bytes with SSE2, and a portable
//!   scalar loop over 16 × 16 tiles for everything else (other targets, edges outside
//!   AVX-512). The instruction set is chosen at run time.

use crate::kernels::Ptr;
use crate::kernels::loops::{GRAIN, Loop};

/// Source rows per block (loop dim 0).
const BLOCK_R: usize = 64;
/// Source columns per block (loop dim 1). 64 × 128 measured best of 16..256 on each side for
/// 4096 × 4096 and (64, 3136) batches.
const BLOCK_C: usize = 128;
/// Destination row stride (bytes) from which full tiles are written with non-temporal stores…
const STREAM_MIN_LD: usize = 4096;
/// …when the destination also spans this many bytes (more than a core's L2). Each tile row
/// then lands on a different page, and ordinary stores, which first read the line they fill,
/// ran the 4096² `t().contiguous()` at 0.65 Gelem/s against 2.5 streamed; copies with short
/// destination rows (NHWC: 256 bytes) or small ones were as fast or faster with ordinary
/// stores, which keep the result in cache.
const STREAM_MIN_BYTES: usize = 4 << 20;
/// Fewest source columns (destination rows) worth the kernel. With fewer, e.g. NHWC → NCHW
/// with 3 channels, the engine's strided runs along the long destination rows were as fast or
/// faster for 4- and 1-byte elements. Any number of source rows is fine: NCHW → NHWC with 3
/// channels went from 0.15 to 1.5 Gelem/s here.
const MIN_COLS: usize = 8;

/// Instruction sets the block kernels come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Portable code only.
    Scalar,
    /// AVX2 (x86-64).
    Avx2,
    /// AVX-512F (x86-64).
    Avx512,
}

/// The best instruction set this CPU has.
pub(crate) fn best_isa() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::kernels::simd::has_avx512() {
            return Isa::Avx512;
        }
        if crate::kernels::simd::has_avx2() {
            return Isa::Avx2;
        }
    }
    Isa::Scalar
}

/// A block kernel: transposes the `r` × `c` matrix at `src` (rows `sld` bytes apart, elements
/// contiguous) into the `c` × `r` matrix at `dst` (rows `dld` bytes apart); with `stream`,
/// whole cache lines may be written with non-temporal stores (then fenced).
type BlockFn = unsafe fn(*const u8, isize, *mut u8, isize, usize, usize, bool);

/// The block kernel for `esize`-byte elements with `isa` (which the CPU must have).
fn block_fn(esize: usize, isa: Isa) -> Option<BlockFn> {
    #[cfg(target_arch = "x86_64")]
    {
        match (esize, isa) {
            (4, Isa::Avx512) => return Some(x86::block32_avx512),
            (8, Isa::Avx512) => return Some(x86::block64_avx512),
            (4, Isa::Avx2) => return Some(x86::block32_avx2),
            (2, Isa::Avx2 | Isa::Avx512) => return Some(x86::block16_avx2),
            (1, Isa::Avx2 | Isa::Avx512) => return Some(x86::block8_sse2),
            _ => {}
        }
    }
    let _ = isa;
    match esize {
        1 => Some(block_scalar::<u8>),
        2 => Some(block_scalar::<u16>),
        4 => Some(block_scalar::<u32>),
        8 => Some(block_scalar::<u64>),
        _ => None,
    }
}

/// Runs the copy `lp` (operand 0 written, operand 1 read) as blocked transposes when both
/// operands have the same dtype, the destination is contiguous along loop dim 0 and the source
/// along loop dim 1; returns `false`, having done nothing, otherwise.
///
/// # Safety
/// As [`Loop::run`]: the caller holds the storage locks, every element the loop addresses
/// lies inside its storage, and the destination has no internal overlap.
pub(crate) unsafe fn try_copy(lp: &Loop<2>) -> bool {
    // SAFETY: forwarded; `best_isa` is what this CPU has.
    unsafe { try_copy_with(lp, best_isa()) }
}

/// [`try_copy`] with a given instruction set (tests run every one the CPU has).
///
/// # Safety
/// As [`try_copy`]; the CPU has `isa`.
pub(crate) unsafe fn try_copy_with(lp: &Loop<2>, isa: Isa) -> bool {
    if lp.dtypes[0] != lp.dtypes[1] || lp.shape.len() < 2 {
        return false;
    }
    let esize = lp.dtypes[0].itemsize();
    let e = esize as isize;
    let (rows, cols) = (lp.shape[0], lp.shape[1]);
    if lp.strides[0][0] != e || lp.strides[1][1] != e || rows < 2 || cols < MIN_COLS {
        return false;
    }
    let Some(block) = block_fn(esize, isa) else {
        return false;
    };
    let (sld, dld) = (lp.strides[0][1], lp.strides[1][0]);
    let outer_shape = &lp.shape[2..];
    let outer_strides = &lp.strides[2..];
    let outer: usize = outer_shape.iter().product();
    let (nbr, nbc) = (rows.div_ceil(BLOCK_R), cols.div_ceil(BLOCK_C));
    let units = outer * nbr * nbc;
    let numel = outer * rows * cols;
    if numel == 0 {
        return true;
    }
    let stream = dld.unsigned_abs() >= STREAM_MIN_LD && numel * esize >= STREAM_MIN_BYTES;
    let (dbase, sbase) = (Ptr(lp.base[0]), Ptr(lp.base[1]));
    // Blocks `start..end`, numbered with column blocks fastest, then row blocks, then the
    // outer index.
    let go = |start: usize, end: usize| {
        for u in start..end {
            let (bc, rest) = (u % nbc, u / nbc);
            let (br, mut o) = (rest % nbr, rest / nbr);
            let (mut doff, mut soff) = (0isize, 0isize);
            for (&n, st) in outer_shape.iter().zip(outer_strides) {
                let i = (o % n) as isize;
                o /= n;
                doff += i * st[0];
                soff += i * st[1];
            }
            let (i0, i1) = (br * BLOCK_R, bc * BLOCK_C);
            let (r, c) = (BLOCK_R.min(rows - i0), BLOCK_C.min(cols - i1));
            let s = sbase
                .get()
                .wrapping_offset(soff + i0 as isize * sld + i1 as isize * e);
            let d = dbase
                .get()
                .wrapping_offset(doff + i1 as isize * dld + i0 as isize * e);
            // SAFETY: the block's r × c source elements and c × r destination elements are
            // elements of the loop (the caller's contract); blocks are disjoint, so tasks
            // write disjoint memory; the CPU has `isa`.
            unsafe { block(s, sld, d, dld, r, c, stream) };
        }
    };
    if numel < 2 * GRAIN || units == 1 || crate::kernels::par::threads() <= 1 {
        go(0, units);
        return true;
    }
    let threads = crate::kernels::par::threads();
    let tasks = (numel / GRAIN).min(threads * 4).min(units).max(1);
    let per = units.div_ceil(tasks);
    let go = &go;
    crate::kernels::par::for_each_task(tasks, &|t| {
        let (start, end) = (t * per, ((t + 1) * per).min(units));
        if start < end {
            go(start, end);
        }
    });
    true
}

/// Portable block kernel: 16 × 16 tiles, one element at a time.
///
/// # Safety
/// `src` addresses an `r` × `c` matrix of `T` with rows `sld` bytes apart and `dst` a `c` × `r`
/// one with rows `dld` bytes apart; the destination does not overlap the source.
unsafe fn block_scalar<T: Copy>(
    src: *const u8,
    sld: isize,
    dst: *mut u8,
    dld: isize,
    r: usize,
    c: usize,
    _stream: bool,
) {
    const T16: usize = 16;
    let e = std::mem::size_of::<T>();
    for i0 in (0..r).step_by(T16) {
        for j0 in (0..c).step_by(T16) {
            for j in j0..(j0 + T16).min(c) {
                let d = dst.wrapping_offset(j as isize * dld) as *mut T;
                for i in i0..(i0 + T16).min(r) {
                    let s = src.wrapping_offset(i as isize * sld + (j * e) as isize) as *const T;
                    // SAFETY: (i, j) is inside the source matrix and (j, i) inside the
                    // destination (caller's contract); unaligned access is allowed.
                    unsafe { d.add(i).write_unaligned(s.read_unaligned()) };
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! AVX-512F and AVX2 register-tile transposes.

    use std::arch::x86_64::*;

    /// Transposes 16 rows of 16 four-byte lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn t16x16(r: [__m512i; 16]) -> [__m512i; 16] {
        // Rows a..p; after the 32-bit unpacks each 128-bit lane holds a 2 × 2 piece.
        let mut t = [_mm512_setzero_si512(); 16];
        for k in 0..8 {
            t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
        }
        // 64-bit unpacks: u[4q + m] holds, per lane L, column 4L + m of rows 4q..4q+4.
        let mut u = [_mm512_setzero_si512(); 16];
        for q in 0..4 {
            let b = 4 * q;
            u[b] = _mm512_unpacklo_epi64(t[b], t[b + 2]);
            u[b + 1] = _mm512_unpackhi_epi64(t[b], t[b + 2]);
            u[b + 2] = _mm512_unpacklo_epi64(t[b + 1], t[b + 3]);
            u[b + 3] = _mm512_unpackhi_epi64(t[b + 1], t[b + 3]);
        }
        // v[8h + n] holds columns n and n + 8 of rows 8h..8h+8, four rows per 128-bit lane.
        let mut v = [_mm512_setzero_si512(); 16];
        for h in 0..2 {
            let b = 8 * h;
            for m in 0..4 {
                v[b + m] = _mm512_shuffle_i32x4::<0x88>(u[b + m], u[b + 4 + m]);
                v[b + 4 + m] = _mm512_shuffle_i32x4::<0xDD>(u[b + m], u[b + 4 + m]);
            }
        }
        let mut o = [_mm512_setzero_si512(); 16];
        for m in 0..8 {
            o[m] = _mm512_shuffle_i32x4::<0x88>(v[m], v[8 + m]);
            o[m + 8] = _mm512_shuffle_i32x4::<0xDD>(v[m], v[8 + m]);
        }
        o
    }

    /// Transposes 8 rows of 8 eight-byte lanes.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn t8x8(r: [__m512i; 8]) -> [__m512i; 8] {
        let mut t = [_mm512_setzero_si512(); 8];
        for k in 0..4 {
            t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
        }
        // u[4h + m]: columns m, m + 4 of rows 4h..4h+4 (two per 128-bit lane).
        let mut u = [_mm512_setzero_si512(); 8];
        for h in 0..2 {
            let b = 4 * h;
            u[b] = _mm512_shuffle_i64x2::<0x88>(t[b], t[b + 2]);
            u[b + 1] = _mm512_shuffle_i64x2::<0x88>(t[b + 1], t[b + 3]);
            u[b + 2] = _mm512_shuffle_i64x2::<0xDD>(t[b], t[b + 2]);
            u[b + 3] = _mm512_shuffle_i64x2::<0xDD>(t[b + 1], t[b + 3]);
        }
        let mut o = [_mm512_setzero_si512(); 8];
        for m in 0..4 {
            o[m] = _mm512_shuffle_i64x2::<0x88>(u[m], u[4 + m]);
            o[m + 4] = _mm512_shuffle_i64x2::<0xDD>(u[m], u[4 + m]);
        }
        o
    }

    /// AVX-512F block kernel for four-byte elements (see `BlockFn`).
    ///
    /// # Safety
    /// As `block_scalar`; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn block32_avx512(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        r: usize,
        c: usize,
        stream: bool,
    ) {
        let stream = stream && dld % 64 == 0;
        // Down each 16-column strip of the source, so that the destination's rows fill in
        // order (measured ~8% faster than along the source's rows).
        for j in (0..c).step_by(16) {
            let w = (c - j).min(16);
            for i in (0..r).step_by(16) {
                let h = (r - i).min(16);
                let s = src.wrapping_offset(i as isize * sld + 4 * j as isize);
                let d = dst.wrapping_offset(j as isize * dld + 4 * i as isize);
                let mut x = [_mm512_setzero_si512(); 16];
                if h == 16 && w == 16 {
                    for (k, xk) in x.iter_mut().enumerate() {
                        // SAFETY: row i + k, columns j..j+16 are inside the source.
                        *xk = unsafe { _mm512_loadu_si512(s.offset(k as isize * sld) as _) };
                    }
                    let y = t16x16(x);
                    if stream && (d as usize).is_multiple_of(64) {
                        for (k, yk) in y.iter().enumerate() {
                            // SAFETY: row j + k, columns i..i+16 are inside the destination;
                            // the address is 64-byte aligned (checked: `d` and `dld` are).
                            unsafe { _mm512_stream_si512(d.offset(k as isize * dld) as _, *yk) };
                        }
                    } else {
                        for (k, yk) in y.iter().enumerate() {
                            // SAFETY: row j + k, columns i..i+16 are inside the destination.
                            unsafe { _mm512_storeu_si512(d.offset(k as isize * dld) as _, *yk) };
                        }
                    }
                } else {
                    let (lm, sm) = ((1u32 << w) - 1, (1u32 << h) - 1);
                    for (k, xk) in x.iter_mut().enumerate().take(h) {
                        // SAFETY: the mask covers columns j..j+w of row i + k, inside the
                        // source; masked-off lanes are not read.
                        *xk = unsafe {
                            _mm512_maskz_loadu_epi32(lm as u16, s.offset(k as isize * sld) as _)
                        };
                    }
                    let y = t16x16(x);
                    for (k, yk) in y.iter().enumerate().take(w) {
                        // SAFETY: the mask covers columns i..i+h of row j + k, inside the
                        // destination; masked-off lanes are not written.
                        unsafe {
                            _mm512_mask_storeu_epi32(
                                d.offset(k as isize * dld) as _,
                                sm as u16,
                                *yk,
                            )
                        };
                    }
                }
            }
        }
        if stream {
            // Orders the non-temporal stores before whatever publishes the result (the end of
            // the rayon task or of the op).
            _mm_sfence();
        }
    }

    /// AVX-512F block kernel for eight-byte elements (see `BlockFn`).
    ///
    /// # Safety
    /// As `block_scalar`; the CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn block64_avx512(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        r: usize,
        c: usize,
        stream: bool,
    ) {
        let stream = stream && dld % 64 == 0;
        for j in (0..c).step_by(8) {
            let w = (c - j).min(8);
            for i in (0..r).step_by(8) {
                let h = (r - i).min(8);
                let s = src.wrapping_offset(i as isize * sld + 8 * j as isize);
                let d = dst.wrapping_offset(j as isize * dld + 8 * i as isize);
                let mut x = [_mm512_setzero_si512(); 8];
                let (lm, sm) = (((1u32 << w) - 1) as u8, ((1u32 << h) - 1) as u8);
                for (k, xk) in x.iter_mut().enumerate().take(h) {
                    // SAFETY: the mask covers columns j..j+w of row i + k, inside the source;
                    // masked-off lanes are not read.
                    *xk = unsafe { _mm512_maskz_loadu_epi64(lm, s.offset(k as isize * sld) as _) };
                }
                let y = t8x8(x);
                if stream && h == 8 && w == 8 && (d as usize).is_multiple_of(64) {
                    for (k, yk) in y.iter().enumerate() {
                        // SAFETY: row j + k, columns i..i+8 are inside the destination; the
                        // address is 64-byte aligned (checked: `d` and `dld` are).
                        unsafe { _mm512_stream_si512(d.offset(k as isize * dld) as _, *yk) };
                    }
                    continue;
                }
                for (k, yk) in y.iter().enumerate().take(w) {
                    // SAFETY: the mask covers columns i..i+h of row j + k, inside the
                    // destination; masked-off lanes are not written.
                    unsafe { _mm512_mask_storeu_epi64(d.offset(k as isize * dld) as _, sm, *yk) };
                }
            }
        }
        if stream {
            // As in `block32_avx512`.
            _mm_sfence();
        }
    }

    /// Transposes 8 rows of 8 four-byte lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn t8x8_avx2(r: [__m256; 8]) -> [__m256; 8] {
        let mut t = [_mm256_setzero_ps(); 8];
        for k in 0..4 {
            t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
        }
        let mut u = [_mm256_setzero_ps(); 8];
        for h in 0..2 {
            let b = 4 * h;
            u[b] = _mm256_shuffle_ps::<0x44>(t[b], t[b + 2]);
            u[b + 1] = _mm256_shuffle_ps::<0xEE>(t[b], t[b + 2]);
            u[b + 2] = _mm256_shuffle_ps::<0x44>(t[b + 1], t[b + 3]);
            u[b + 3] = _mm256_shuffle_ps::<0xEE>(t[b + 1], t[b + 3]);
        }
        let mut o = [_mm256_setzero_ps(); 8];
        for m in 0..4 {
            o[m] = _mm256_permute2f128_ps::<0x20>(u[m], u[4 + m]);
            o[m + 4] = _mm256_permute2f128_ps::<0x31>(u[m], u[4 + m]);
        }
        o
    }

    /// AVX2 block kernel for four-byte elements (see `BlockFn`); edges go through the
    /// portable kernel. The lanes are only moved, never computed on, so any four-byte data
    /// passes through the float registers unchanged.
    ///
    /// # Safety
    /// As `block_scalar`; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block32_avx2(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        r: usize,
        c: usize,
        _stream: bool,
    ) {
        let (r8, c8) = (r / 8 * 8, c / 8 * 8);
        for i in (0..r8).step_by(8) {
            for j in (0..c8).step_by(8) {
                let s = src.wrapping_offset(i as isize * sld + 4 * j as isize);
                let d = dst.wrapping_offset(j as isize * dld + 4 * i as isize);
                let mut x = [_mm256_setzero_ps(); 8];
                for (k, xk) in x.iter_mut().enumerate() {
                    // SAFETY: row i + k, columns j..j+8 are inside the source.
                    *xk = unsafe { _mm256_loadu_ps(s.offset(k as isize * sld) as _) };
                }
                let y = t8x8_avx2(x);
                for (k, yk) in y.iter().enumerate() {
                    // SAFETY: row j + k, columns i..i+8 are inside the destination.
                    unsafe { _mm256_storeu_ps(d.offset(k as isize * dld) as _, *yk) };
                }
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { edges::<u32>(src, sld, dst, dld, (r, c), (r8, c8)) };
    }

    /// The parts of an `r` × `c` block a tile kernel left: columns `c_done..c` of all rows and
    /// rows `r_done..r` of columns `0..c_done`, through the portable kernel.
    ///
    /// # Safety
    /// As `block_scalar` for the whole block.
    unsafe fn edges<T: Copy>(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        (r, c): (usize, usize),
        (r_done, c_done): (usize, usize),
    ) {
        let e = std::mem::size_of::<T>() as isize;
        // SAFETY (both calls): sub-matrices of the caller's matrices.
        unsafe {
            if c_done < c {
                let s = src.wrapping_offset(e * c_done as isize);
                let d = dst.wrapping_offset(c_done as isize * dld);
                super::block_scalar::<T>(s, sld, d, dld, r, c - c_done, false);
            }
            if r_done < r {
                let s = src.wrapping_offset(r_done as isize * sld);
                let d = dst.wrapping_offset(e * r_done as isize);
                super::block_scalar::<T>(s, sld, d, dld, r - r_done, c_done, false);
            }
        }
    }

    /// Transposes 16 rows of 16 two-byte lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn t16x16_u16(r: [__m256i; 16]) -> [__m256i; 16] {
        let mut t = [_mm256_setzero_si256(); 16];
        for k in 0..8 {
            t[2 * k] = _mm256_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm256_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
        }
        // u[4q + m], 128-bit lane L: columns 8L + 2m and 8L + 2m + 1 of rows 4q..4q+4.
        let mut u = [_mm256_setzero_si256(); 16];
        for q in 0..4 {
            let b = 4 * q;
            u[b] = _mm256_unpacklo_epi32(t[b], t[b + 2]);
            u[b + 1] = _mm256_unpackhi_epi32(t[b], t[b + 2]);
            u[b + 2] = _mm256_unpacklo_epi32(t[b + 1], t[b + 3]);
            u[b + 3] = _mm256_unpackhi_epi32(t[b + 1], t[b + 3]);
        }
        // v[8h + n], lane L: column 8L + n of rows 8h..8h+8.
        let mut v = [_mm256_setzero_si256(); 16];
        for h in 0..2 {
            let b = 8 * h;
            for m in 0..4 {
                v[b + 2 * m] = _mm256_unpacklo_epi64(u[b + m], u[b + 4 + m]);
                v[b + 2 * m + 1] = _mm256_unpackhi_epi64(u[b + m], u[b + 4 + m]);
            }
        }
        let mut o = [_mm256_setzero_si256(); 16];
        for n in 0..8 {
            o[n] = _mm256_permute2x128_si256::<0x20>(v[n], v[8 + n]);
            o[n + 8] = _mm256_permute2x128_si256::<0x31>(v[n], v[8 + n]);
        }
        o
    }

    /// AVX2 block kernel for two-byte elements (see `BlockFn`); edges go through the
    /// portable kernel.
    ///
    /// # Safety
    /// As `block_scalar`; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block16_avx2(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        r: usize,
        c: usize,
        _stream: bool,
    ) {
        let (r16, c16) = (r / 16 * 16, c / 16 * 16);
        for j in (0..c16).step_by(16) {
            for i in (0..r16).step_by(16) {
                let s = src.wrapping_offset(i as isize * sld + 2 * j as isize);
                let d = dst.wrapping_offset(j as isize * dld + 2 * i as isize);
                let mut x = [_mm256_setzero_si256(); 16];
                for (k, xk) in x.iter_mut().enumerate() {
                    // SAFETY: row i + k, columns j..j+16 are inside the source.
                    *xk = unsafe { _mm256_loadu_si256(s.offset(k as isize * sld) as _) };
                }
                let y = t16x16_u16(x);
                for (k, yk) in y.iter().enumerate() {
                    // SAFETY: row j + k, columns i..i+16 are inside the destination.
                    unsafe { _mm256_storeu_si256(d.offset(k as isize * dld) as _, *yk) };
                }
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { edges::<u16>(src, sld, dst, dld, (r, c), (r16, c16)) };
    }

    /// Transposes 16 rows of 16 bytes (SSE2, part of x86-64).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn t16x16_u8(r: [__m128i; 16]) -> [__m128i; 16] {
        let mut t = [_mm_setzero_si128(); 16];
        for k in 0..8 {
            t[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
        }
        // u[4q + m]: columns 4m..4m+4 of rows 4q..4q+4 (four bytes each).
        let mut u = [_mm_setzero_si128(); 16];
        for q in 0..4 {
            let b = 4 * q;
            u[b] = _mm_unpacklo_epi16(t[b], t[b + 2]);
            u[b + 1] = _mm_unpackhi_epi16(t[b], t[b + 2]);
            u[b + 2] = _mm_unpacklo_epi16(t[b + 1], t[b + 3]);
            u[b + 3] = _mm_unpackhi_epi16(t[b + 1], t[b + 3]);
        }
        // v[8h + n]: columns 2n and 2n + 1 of rows 8h..8h+8 (eight bytes each).
        let mut v = [_mm_setzero_si128(); 16];
        for h in 0..2 {
            let b = 8 * h;
            for m in 0..4 {
                v[b + 2 * m] = _mm_unpacklo_epi32(u[b + m], u[b + 4 + m]);
                v[b + 2 * m + 1] = _mm_unpackhi_epi32(u[b + m], u[b + 4 + m]);
            }
        }
        let mut o = [_mm_setzero_si128(); 16];
        for n in 0..8 {
            o[2 * n] = _mm_unpacklo_epi64(v[n], v[8 + n]);
            o[2 * n + 1] = _mm_unpackhi_epi64(v[n], v[8 + n]);
        }
        o
    }

    /// SSE2 block kernel for one-byte elements (see `BlockFn`); edges go through the portable
    /// kernel.
    ///
    /// # Safety
    /// As `block_scalar`.
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn block8_sse2(
        src: *const u8,
        sld: isize,
        dst: *mut u8,
        dld: isize,
        r: usize,
        c: usize,
        _stream: bool,
    ) {
        let (r16, c16) = (r / 16 * 16, c / 16 * 16);
        for j in (0..c16).step_by(16) {
            for i in (0..r16).step_by(16) {
                let s = src.wrapping_offset(i as isize * sld + j as isize);
                let d = dst.wrapping_offset(j as isize * dld + i as isize);
                let mut x = [_mm_setzero_si128(); 16];
                for (k, xk) in x.iter_mut().enumerate() {
                    // SAFETY: row i + k, columns j..j+16 are inside the source.
                    *xk = unsafe { _mm_loadu_si128(s.offset(k as isize * sld) as _) };
                }
                let y = t16x16_u8(x);
                for (k, yk) in y.iter().enumerate() {
                    // SAFETY: row j + k, columns i..i+16 are inside the destination.
                    unsafe { _mm_storeu_si128(d.offset(k as isize * dld) as _, *yk) };
                }
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { edges::<u8>(src, sld, dst, dld, (r, c), (r16, c16)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    /// Instruction sets this CPU can run.
    fn isas() -> Vec<Isa> {
        let mut v = vec![Isa::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if crate::kernels::simd::has_avx2() {
                v.push(Isa::Avx2);
            }
            if crate::kernels::simd::has_avx512() {
                v.push(Isa::Avx512);
            }
        }
        v
    }

    /// Runs the kernel on a `batch` of `rows` × `cols` sources (row stride `sld` elements,
    /// matrices `sbatch` apart, first element at `soff`) into destinations laid out likewise,
    /// and checks every destination byte against a naive strided copy (bytes outside the
    /// matrices must stay untouched).
    #[allow(clippy::too_many_arguments)]
    fn check(
        dtype: DType,
        isa: Isa,
        (rows, cols, batch): (usize, usize, usize),
        (soff, sld, sbatch): (usize, usize, usize),
        (doff, dld, dbatch): (usize, usize, usize),
    ) {
        let e = dtype.itemsize();
        let slen = (soff + (batch - 1) * sbatch + (rows - 1) * sld + cols) * e;
        let dlen = (doff + (batch - 1) * dbatch + (cols - 1) * dld + rows) * e;
        let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (rows * 31 + cols * 7 + batch) as u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        };
        let src: Vec<u8> = (0..slen).map(|_| next()).collect();
        let mut want = vec![0xA5u8; dlen];
        for b in 0..batch {
            for i in 0..rows {
                for j in 0..cols {
                    let s = (soff + b * sbatch + i * sld + j) * e;
                    let d = (doff + b * dbatch + j * dld + i) * e;
                    want[d..d + e].copy_from_slice(&src[s..s + e]);
                }
            }
        }
        // 64-byte aligned, as large storages are, so that streamed stores can happen.
        #[derive(Clone, Copy)]
        #[repr(align(64))]
        #[allow(dead_code)] // read through a byte pointer only
        struct Line([u8; 64]);
        let mut lines = vec![Line([0xA5; 64]); dlen.div_ceil(64)];
        let got_ptr = lines.as_mut_ptr() as *mut u8;
        let ei = e as isize;
        let mut lp = Loop::<2> {
            shape: smallvec::smallvec![rows, cols],
            strides: smallvec::smallvec![[ei, (sld * e) as isize], [(dld * e) as isize, ei]],
            base: [
                got_ptr.wrapping_add(doff * e),
                src.as_ptr().wrapping_add(soff * e) as *mut u8,
            ],
            dtypes: [dtype, dtype],
        };
        if batch > 1 {
            lp.shape.push(batch);
            lp.strides
                .push([(dbatch * e) as isize, (sbatch * e) as isize]);
        }
        // SAFETY: the loop addresses exactly the elements `want` was built from, inside
        // `src` and `got`, which do not overlap; the CPU has `isa`.
        let ran = unsafe { try_copy_with(&lp, isa) };
        // SAFETY: `lines` holds at least `dlen` initialised bytes.
        let got = unsafe { std::slice::from_raw_parts(got_ptr, dlen) };
        let what = format!("{dtype:?} {isa:?} {rows}x{cols} batch {batch} sld {sld} dld {dld}");
        assert!(ran, "{what}: kernel declined");
        assert!(got == want, "{what}: wrong bytes");
    }

    #[test]
    fn kernel_matches_a_strided_copy() {
        let sides = [8usize, 9, 15, 16, 17, 23, 32, 33, 63, 64, 65, 100, 129];
        for dtype in [DType::UInt8, DType::Float16, DType::Float32, DType::Int64] {
            for isa in isas() {
                // Thin sources (fewer than a tile's rows) are taken too.
                for &r in sides.iter().chain(&[2, 3, 5]) {
                    for &c in &sides {
                        check(dtype, isa, (r, c, 1), (0, c, 0), (0, r, 0));
                        // Padded rows, offsets and a batch.
                        let (sld, dld) = (c + 3, r + 5);
                        let (sb, db) = (r * sld + 7, c * dld + 2);
                        check(dtype, isa, (r, c, 3), (11, sld, sb), (5, dld, db));
                    }
                }
            }
        }
    }

    #[test]
    fn kernel_streams_large_copies() {
        // Destination rows 4 KiB apart and 4 MiB in all: non-temporal stores for the aligned
        // full tiles (a destination offset of 5 elements makes them ordinary again).
        for isa in isas() {
            check(
                DType::Float32,
                isa,
                (1024, 1030, 1),
                (0, 1030, 0),
                (0, 1024, 0),
            );
            check(
                DType::Int64,
                isa,
                (520, 1017, 1),
                (3, 1020, 0),
                (0, 520 + 8, 0),
            );
            check(
                DType::Float32,
                isa,
                (1030, 1024, 1),
                (0, 1024, 0),
                (5, 1030, 0),
            );
        }
    }

    #[test]
    fn kernel_splits_large_copies_across_threads() {
        // Above the grain, with a pool of several threads, blocks run in parallel.
        crate::kernels::par::with_threads(3, || {
            for isa in isas() {
                check(
                    DType::Float32,
                    isa,
                    (300, 257, 2),
                    (0, 257, 300 * 257),
                    (0, 300, 257 * 300),
                );
                check(
                    DType::Float64,
                    isa,
                    (64, 1000, 5),
                    (1, 1001, 64 * 1001),
                    (0, 64, 64_000),
                );
            }
        });
    }

    #[test]
    fn kernel_declines_other_layouts() {
        let mut buf = vec![0u8; 4096];
        let lp = Loop::<2> {
            shape: smallvec::smallvec![16, 16],
            strides: smallvec::smallvec![[4, 4], [64, 64]],
            base: [buf.as_mut_ptr(), buf.as_mut_ptr().wrapping_add(2048)],
            dtypes: [DType::Float32, DType::Float32],
        };
        // SAFETY: declined before any access (both operands contiguous along dim 0).
        assert!(!unsafe { try_copy(&lp) });
        let lp = Loop::<2> {
            dtypes: [DType::Float32, DType::Int32],
            strides: smallvec::smallvec![[4, 64], [64, 4]],
            ..lp
        };
        // SAFETY: declined before any access (dtypes differ).
        assert!(!unsafe { try_copy(&lp) });
    }
}
