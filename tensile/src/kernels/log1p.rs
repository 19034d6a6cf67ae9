//! glibc's double `log1p` as its FMA build computes it (`__log1p_fma`, what `std::log1p`
//! runs on an AVX2 CPU, and so what PyTorch's serial `exponential_` kernel calls), and the
//! exponential transform built on it, lane by lane so the compiler vectorises it.
//!
//! glibc's `s_log1p.c` (fdlibm's algorithm: `1 + x = 2^k (1 + f)`, `s = f / (2 + f)`, a
//! degree-7 polynomial in `s²`) is compiled with `-mfma`, which fuses the multiply-adds the
//! code below writes as `mul_add`: the polynomial in Estrin's order, `k·ln2_lo + c` and the
//! final `k·ln2_hi − …`. Every operation here is one rounding of that build's sequence (read
//! from glibc 2.36's object code), so [`log1p`] returns its values bit for bit (checked
//! against the system's `log1p` in the tests). On a CPU without FMA glibc runs its SSE2 build,
//! whose values differ in the last bit; [`exponential`] then calls the system's `log1p`, as
//! PyTorch does there.

const LP1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
const LP2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
const LP3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
const LP4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
const LP5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
const LP6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
const LP7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const TWO_THIRDS: f64 = f64::from_bits(0x3fe5_5555_5555_5555);
const TWO54: f64 = 18014398509481984.0;

#[inline(always)]
fn fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// The high 32 bits of `x`.
#[inline(always)]
fn high(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}

/// `x` with its high 32 bits replaced by `hi`.
#[inline(always)]
fn with_high(x: f64, hi: u32) -> f64 {
    f64::from_bits(((hi as u64) << 32) | (x.to_bits() & 0xffff_ffff))
}

/// `R(z)`, `s·(hfsq + R)`: the polynomial of the main path, in the FMA build's order.
#[inline(always)]
fn main_terms(f: f64) -> (f64, f64) {
    let hfsq = (f * 0.5) * f;
    let s = f / (f + 2.0);
    let z = s * s;
    let a = fma(z, LP3, LP2);
    let b = fma(z, LP5, LP4);
    let c = fma(z, LP7, LP6);
    let z2 = z * z;
    let z4 = z2 * z2;
    let z6 = z4 * z2;
    let r = fma(z, LP1, z2 * a);
    let r = fma(z4, b, r);
    let r = fma(z6, c, r);
    (hfsq, (r + hfsq) * s)
}

/// The main path's result for `k ≠ 0`: `k·ln2_hi − ((hfsq − (s·(hfsq + R) + (k·ln2_lo + c))) − f)`,
/// `t` being `s·(hfsq + R)`.
#[inline(always)]
fn with_k(kd: f64, c: f64, f: f64, hfsq: f64, t: f64) -> f64 {
    fma(kd, LN2_HI, -((hfsq - (fma(kd, LN2_LO, c) + t)) - f))
}

/// glibc's `__log1p_fma(x)`, every input (NaN, infinities, `x ≤ −1`, subnormals).
pub(crate) fn log1p(x: f64) -> f64 {
    let hx = high(x) as i32;
    let ax = (hx as u32) & 0x7fff_ffff;
    // 1 + x = 2^k · u with u in [√2/2, √2); c corrects the rounding of 1 + x
    if hx <= 0x3fda_8279 {
        if ax > 0x3fef_ffff {
            // x ≤ −1
            return if x == -1.0 {
                -TWO54 / 0.0
            } else {
                // NaN: x's own, else the invalid operation's
                if x.is_nan() { x + x } else { f64::NAN }
            };
        }
        if ax <= 0x3e1f_ffff {
            // |x| < 2^-29
            return if ax > 0x3c8f_ffff {
                fma(-(x * x), 0.5, x)
            } else {
                x
            };
        }
        if (hx as u32).wrapping_add(0x402d_413c) > 0x402d_413c {
            // √2/2 ≤ 1 + x < √2: k = 0, f = x
            let (hfsq, t) = main_terms(x);
            return x - (hfsq - t);
        }
    } else if hx > 0x7fef_ffff {
        return x + x;
    }
    let (mut k, u, c, hu_full) = if hx <= 0x433f_ffff {
        let v = x + 1.0;
        let hv = high(v);
        let k = (hv as i32 >> 20) - 1023;
        let c = if k > 0 {
            (1.0 - (v - x)) / v
        } else {
            (x - (v - 1.0)) / v
        };
        (k, v, c, hv)
    } else {
        // 2^53 ≤ x: 1 + x is x
        ((hx >> 20) - 1023, x, 0.0, hx as u32)
    };
    let mut hu = hu_full & 0x000f_ffff;
    let u = if hu > 0x6a09d {
        k += 1;
        let u = with_high(u, hu | 0x3fe0_0000);
        hu = (0x0010_0000 - hu) >> 2;
        u
    } else {
        with_high(u, hu | 0x3ff0_0000)
    };
    let f = u - 1.0;
    let kd = k as f64;
    if hu == 0 {
        // |f| < 2^-20
        if f == 0.0 {
            return if k == 0 {
                0.0
            } else {
                fma(kd, LN2_HI, fma(kd, LN2_LO, c))
            };
        }
        let hfsq = (f * 0.5) * f;
        let r = fma(-f, TWO_THIRDS, 1.0) * hfsq;
        return if k == 0 {
            f - r
        } else {
            fma(kd, LN2_HI, -((r - fma(kd, LN2_LO, c)) - f))
        };
    }
    let (hfsq, t) = main_terms(f);
    if k == 0 {
        f - (hfsq - t)
    } else {
        with_k(kd, c, f, hfsq, t)
    }
}

/// [`log1p`] for `x` in `(−1, −2⁻²⁹]` without branches (the lanes of a vector), and whether
/// `x` is outside what this form covers (then the caller takes [`log1p`]).
#[inline(always)]
fn log1p_negative_lane(x: f64) -> (f64, bool) {
    let hx = high(x);
    let ax = hx & 0x7fff_ffff;
    let covered = (hx >> 31) == 1 && (0x3e20_0000..=0x3fef_ffff).contains(&ax);
    // k ≠ 0 when 1 + x < √2/2
    let kpath = ax >= 0x3fd2_bec4;
    let v = x + 1.0;
    let hv = high(v);
    let c1 = (x - (v - 1.0)) / v;
    let hu = hv & 0x000f_ffff;
    let up = hu > 0x6a09d;
    let k1 = ((hv as i32) >> 20) - 1023 + up as i32;
    let u1 = with_high(v, hu | if up { 0x3fe0_0000 } else { 0x3ff0_0000 });
    let hu1 = if up { (0x0010_0000 - hu) >> 2 } else { hu };
    let f = if kpath { u1 - 1.0 } else { x };
    let k = if kpath { k1 } else { 0 };
    let c = if kpath { c1 } else { 0.0 };
    let (hfsq, t) = main_terms(f);
    let kd = k as f64;
    let y_k = with_k(kd, c, f, hfsq, t);
    let without_k = f - (hfsq - t);
    let y = if k == 0 { without_k } else { y_k };
    (y, !covered || (kpath && hu1 == 0))
}

/// `out[i] = scale · log1p(−u[i])` (PyTorch's `exponential_` transform with
/// `scale = −1/λ`, in double), for uniforms `u` in `[0, 1)`; `u` and `out` have one length.
pub(crate) fn exponential(u: &[f64], scale: f64, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("fma") {
            super::simd::with_fma!(u: &[f64], scale: f64, out: &mut [f64] => exponential_lanes(u, scale, out));
            return;
        }
    }
    for (o, &u) in out.iter_mut().zip(u) {
        *o = scale * (-u).ln_1p();
    }
}

#[inline(always)]
fn exponential_lanes(u: &[f64], scale: f64, out: &mut [f64]) {
    let mut special = false;
    for (o, &u) in out.iter_mut().zip(u) {
        let (y, s) = log1p_negative_lane(-u);
        *o = scale * y;
        special |= s;
    }
    if special {
        for (o, &u) in out.iter_mut().zip(u) {
            if log1p_negative_lane(-u).1 {
                *o = scale * log1p(-u);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The system's `log1p` (glibc's FMA build on an FMA CPU), through the C library.
    fn libm(x: f64) -> f64 {
        x.ln_1p()
    }

    fn check(x: f64) {
        let (a, b) = (log1p(x), libm(x));
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "log1p({x:e}) = {a:e}, libm {b:e}"
        );
        let (y, special) = log1p_negative_lane(x);
        if !special {
            assert_eq!(y.to_bits(), b.to_bits(), "lane log1p({x:e})");
        }
    }

    /// Bit for bit the system's values, on the branch boundaries and a spread of each range.
    /// Meaningful on an FMA CPU with glibc's FMA build (the machines PyTorch's values come
    /// from); elsewhere the system's `log1p` is a different build and only the fallback runs.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn matches_glibc_fma_build() {
        if !std::is_x86_feature_detected!("fma") {
            return;
        }
        let mut specials = vec![
            0.0,
            -0.0,
            -1.0,
            -1.5,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-300,
            -1e-300,
            5e-324,
            2f64.powi(-54),
            -(2f64.powi(-54)),
            2f64.powi(-29),
            -(2f64.powi(-29)),
            1e300,
            2f64.powi(53),
            2f64.powi(54),
            -0.5,
            0.5,
        ];
        // the high words where a branch changes
        for hi in [
            0x3fda_8279u32,
            0x3fda_827a,
            0x3fef_ffff,
            0x3ff0_0000,
            0x3e1f_ffff,
            0x3e20_0000,
            0x3c8f_ffff,
            0x3c90_0000,
            0x3fd2_bec3,
            0x3fd2_bec4,
            0x3fd2_bec5,
            0x433f_ffff,
            0x4340_0000,
            0x7fef_ffff,
        ] {
            for lo in [0u32, 1, 0x8000_0000, 0xffff_ffff] {
                let v = f64::from_bits(((hi as u64) << 32) | lo as u64);
                specials.push(v);
                specials.push(-v);
            }
        }
        // 1 + x just below a power of two (the |f| < 2^-20 path) and near √2/2
        for e in 1..40 {
            let p = 2f64.powi(-e);
            for d in [0.0, 1e-16, -1e-16, 1e-12, -1e-12, 1e-7, -1e-7] {
                specials.push(p - 1.0 + d);
                specials.push(p + d);
            }
        }
        for &x in &specials {
            check(x);
        }
        // uniforms as exponential_ draws them, and a spread over the exponents
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..400_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            check(-u);
            let e = (i % 140) - 70;
            check((u - 0.5) * 2f64.powi(e));
        }
    }

    #[test]
    fn exponential_matches_scalar() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut u: Vec<f64> = (0..10_000)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
            })
            .collect();
        // the rare lanes: 0, tiny, and 1 − u just below a power of two
        u.extend([
            0.0,
            1e-20,
            2f64.powi(-30),
            0.5 - 1e-17,
            0.75 + 1e-17,
            1.0 - 2f64.powi(-53),
        ]);
        let mut out = vec![0.0; u.len()];
        exponential(&u, -0.5, &mut out);
        for (&o, &u) in out.iter().zip(&u) {
            #[cfg(target_arch = "x86_64")]
            let fma = std::is_x86_feature_detected!("fma");
            #[cfg(not(target_arch = "x86_64"))]
            let fma = false;
            let want = if fma {
                -0.5 * log1p(-u)
            } else {
                -0.5 * (-u).ln_1p()
            };
            assert_eq!(o.to_bits(), want.to_bits(), "u = {u:e}");
        }
    }
}
