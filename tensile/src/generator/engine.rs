//! PyTorch's `at::mt19937` (`ATen/core/MT19937RNGEngine.h`) and the byte layout of
//! `CPUGeneratorImplState`, the 5056-byte state `torch.get_rng_state()` returns.

/// `MERSENNE_STATE_N`.
pub(crate) const MT_N: usize = 624;
const MT_M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UMASK: u32 = 0x8000_0000;
const LMASK: u32 = 0x7fff_ffff;

/// `sizeof(CPUGeneratorImplState)`: the length of a state tensor.
pub(crate) const STATE_BYTES: usize = 5056;

/// The 32-bit Mersenne Twister with PyTorch's bookkeeping (`mt19937_data_pod`): `left` counts
/// down to the next regeneration of the state, `next` indexes the word to temper.
///
/// `tempered[i]` is the tempered `state[i]`, computed for the whole state at once when it is
/// regenerated or restored (a loop the compiler vectorises), so a draw is a load: the words
/// are PyTorch's, in PyTorch's order, only the tempering is done ahead.
#[derive(Clone)]
pub(crate) struct Mt19937 {
    pub(crate) seed: u64,
    left: i32,
    seeded: bool,
    next: u32,
    state: Box<[u32; MT_N]>,
    tempered: Box<[u32; MT_N]>,
}

/// The reference tempering of one state word.
#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

impl Mt19937 {
    /// `mt19937(seed)`: `init_with_uint32(seed)` (the reference `init_genrand` on the low 32
    /// bits; the whole seed is remembered).
    pub(crate) fn new(seed: u64) -> Mt19937 {
        let mut m = Mt19937 {
            seed,
            left: 1,
            seeded: true,
            next: 0,
            state: Box::new([0; MT_N]),
            tempered: Box::new([0; MT_N]),
        };
        m.init(seed);
        m
    }

    /// `init_with_uint32`.
    pub(crate) fn init(&mut self, seed: u64) {
        self.seed = seed;
        self.seeded = true;
        self.state[0] = (seed & 0xffff_ffff) as u32;
        for j in 1..MT_N {
            let p = self.state[j - 1];
            self.state[j] = 1_812_433_253u32
                .wrapping_mul(p ^ (p >> 30))
                .wrapping_add(j as u32);
        }
        self.left = 1;
        self.next = 0;
        // `left == 1`: the first draw regenerates the state (and its tempered copy) first
    }

    /// Recomputes `tempered` from `state`.
    fn temper_all(&mut self) {
        for (t, &w) in self.tempered.iter_mut().zip(self.state.iter()) {
            *t = temper(w);
        }
    }

    fn twist(u: u32, v: u32) -> u32 {
        (((u & UMASK) | (v & LMASK)) >> 1) ^ if v & 1 != 0 { MATRIX_A } else { 0 }
    }

    /// `next_state`: regenerates the 624 words.
    #[inline(never)]
    fn next_state(&mut self) {
        let s = &mut self.state;
        self.left = MT_N as i32;
        self.next = 0;
        for i in 0..MT_N - MT_M {
            s[i] = s[i + MT_M] ^ Self::twist(s[i], s[i + 1]);
        }
        for i in MT_N - MT_M..MT_N - 1 {
            s[i] = s[i + MT_M - MT_N] ^ Self::twist(s[i], s[i + 1]);
        }
        s[MT_N - 1] = s[MT_M - 1] ^ Self::twist(s[MT_N - 1], s[0]);
        self.temper_all();
    }

    /// `operator()`: the next tempered 32-bit word. Inlined into the fill loops (the state
    /// refresh, once every 624 words, is not).
    #[inline]
    pub(crate) fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.next_state();
        }
        let y = self.tempered[self.next as usize];
        self.next += 1;
        y
    }

    /// `out.len()` calls of [`Mt19937::next_u32`] at once: the words ready in the tempered
    /// state are copied in runs (`left - 1` of them follow `next`; the draw that brings
    /// `left` to 0 regenerates the state first), so a bulk fill converts words with
    /// vector instructions instead of drawing them one call at a time.
    pub(crate) fn fill(&mut self, out: &mut [u32]) {
        let mut i = 0;
        while i < out.len() {
            let ready = (self.left - 1) as usize;
            if ready == 0 {
                out[i] = self.next_u32();
                i += 1;
                continue;
            }
            let k = ready.min(out.len() - i);
            let s = self.next as usize;
            out[i..i + k].copy_from_slice(&self.tempered[s..s + k]);
            self.next += k as u32;
            self.left -= k as i32;
            i += k;
        }
    }

    /// `is_valid()`: what `set_state` requires of a restored engine.
    fn is_valid(&self) -> bool {
        self.seeded && self.left > 0 && self.left <= MT_N as i32 && self.next as usize <= MT_N
    }
}

/// `CPUGeneratorImplState` (legacy pod first): seed i64 @0, left i32 @8, seeded i32 @12,
/// next u64 @16, 624 state words as u64 @24, normal_x/normal_y/normal_rho f64 @5016/5024/5032,
/// normal_is_valid i32 @5040, next_float_normal_sample f32 @5048, its validity bool @5052;
/// little-endian, zero padding. The cached double normal sample lives in `normal_y`.
pub(crate) fn encode_state(
    m: &Mt19937,
    double_normal: Option<f64>,
    float_normal: Option<f32>,
) -> Vec<u8> {
    let mut b = vec![0u8; STATE_BYTES];
    b[0..8].copy_from_slice(&m.seed.to_le_bytes());
    b[8..12].copy_from_slice(&m.left.to_le_bytes());
    b[12..16].copy_from_slice(&(m.seeded as i32).to_le_bytes());
    b[16..24].copy_from_slice(&(m.next as u64).to_le_bytes());
    for (i, w) in m.state.iter().enumerate() {
        let o = 24 + 8 * i;
        b[o..o + 8].copy_from_slice(&(*w as u64).to_le_bytes());
    }
    if let Some(v) = double_normal {
        b[5024..5032].copy_from_slice(&v.to_le_bytes());
        b[5040..5044].copy_from_slice(&1i32.to_le_bytes());
    }
    if let Some(v) = float_normal {
        b[5048..5052].copy_from_slice(&v.to_le_bytes());
        b[5052] = 1;
    }
    b
}

/// The inverse of [`encode_state`]: the engine and both cached normal samples, or PyTorch's
/// `Invalid mt19937 state` when the engine fields are inconsistent. `b` holds
/// [`STATE_BYTES`] bytes.
#[allow(clippy::type_complexity)]
pub(crate) fn decode_state(b: &[u8]) -> Result<(Mt19937, Option<f64>, Option<f32>), &'static str> {
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
    let mut state = Box::new([0u32; MT_N]);
    for (i, w) in state.iter_mut().enumerate() {
        *w = u64_at(24 + 8 * i) as u32;
    }
    let mut m = Mt19937 {
        seed: u64_at(0),
        left: i32_at(8),
        seeded: i32_at(12) != 0,
        next: u64_at(16) as u32,
        state,
        tempered: Box::new([0; MT_N]),
    };
    // PyTorch's `is_valid`, and `left + next <= N + 1` (what every draw keeps: the word read
    // after `left` is decremented is `next <= N - 1` unless `left` reached 0): a state PyTorch
    // accepts beyond that would make its engine read past the 624 words before `left` runs
    // out (undefined behaviour there); it is refused with the same text here
    if !m.is_valid() || m.left as usize + m.next as usize > MT_N + 1 {
        return Err("Invalid mt19937 state");
    }
    m.temper_all();
    let dn = (i32_at(5040) != 0).then(|| f64::from_bits(u64_at(5024)));
    let fnorm =
        (b[5052] != 0).then(|| f32::from_le_bytes(b[5048..5052].try_into().expect("4 bytes")));
    Ok((m, dn, fnorm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_mt19937_outputs() {
        // The reference implementation's first outputs for init_genrand(5489) (std::mt19937's
        // default seed) and its 10000th output, 4123659995.
        let mut m = Mt19937::new(5489);
        assert_eq!(m.next_u32(), 3_499_211_612);
        assert_eq!(m.next_u32(), 581_869_302);
        for _ in 2..9999 {
            m.next_u32();
        }
        assert_eq!(m.next_u32(), 4_123_659_995);
    }

    #[test]
    fn state_round_trip_and_validity() {
        let mut m = Mt19937::new(7);
        for _ in 0..700 {
            m.next_u32();
        }
        let b = encode_state(&m, Some(-0.25), None);
        assert_eq!(b.len(), STATE_BYTES);
        let (mut r, dn, fnorm) = decode_state(&b).unwrap();
        assert_eq!((dn, fnorm), (Some(-0.25), None));
        for _ in 0..1000 {
            assert_eq!(r.next_u32(), m.next_u32());
        }
        assert_eq!(
            decode_state(&[0u8; STATE_BYTES]).err(),
            Some("Invalid mt19937 state")
        );
        // left + next = 626 would read word 624 on the next draw: refused
        let mut bad = b.clone();
        bad[8..12].copy_from_slice(&2i32.to_le_bytes());
        bad[16..24].copy_from_slice(&624u64.to_le_bytes());
        assert_eq!(decode_state(&bad).err(), Some("Invalid mt19937 state"));
        // left + next = 625, the invariant of every drawn state, is accepted
        bad[8..12].copy_from_slice(&1i32.to_le_bytes());
        assert!(decode_state(&bad).is_ok());
    }
}
