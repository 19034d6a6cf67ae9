//! `torch.nn.init`: the initialisers of `torch/nn/init.py`, drawing from PyTorch's CPU
//! random streams ([`crate::random`]).
//!
//! Each fills the tensor in place under `no_grad` (so it works on parameters that require
//! grad) and returns an alias of it, as PyTorch's do. The random ones take `generator=` as an
//! `Option<&Generator>` (`None`: the default generator, reseeded by [`crate::manual_seed`])
//! and consume the stream exactly as PyTorch's do, so `manual_seed(s)` followed by
//! `Linear::new(64, 128)` gives PyTorch's weights: `uniform_` and the uniform initialisers
//! are `Tensor::uniform_`, bit for bit; `normal_` and the normal ones are `Tensor::normal_`
//! (bit for bit for float32 on AVX2/AVX512 CPUs, whose kernel tensile reproduces);
//! `trunc_normal_` is PyTorch 2.15's rejection sampler; `orthogonal_` factors its normal
//! draws with a Householder QR (float64), then fixes the signs as PyTorch does.

use crate::Tensor;
use crate::autograd::no_grad;
use crate::error::{Error, Result};
use crate::random::Generator;

/// `tensor.uniform_(a, b, generator=g)` under no_grad.
fn fill_uniform(t: &Tensor, a: f64, b: f64, g: Option<&Generator>) -> Result<Tensor> {
    let _ng = no_grad();
    t.uniform_with_(crate::random::UniformOpts {
        from: a,
        to: b,
        generator: g,
    })
}

/// `tensor.normal_(mean, std, generator=g)` under no_grad.
fn fill_normal(t: &Tensor, mean: f64, std: f64, g: Option<&Generator>) -> Result<Tensor> {
    let _ng = no_grad();
    t.normal_with_(crate::random::NormalOpts {
        mean,
        std,
        generator: g,
    })
}

// ------------------------------------------------------------------ fans and gains

/// `nn.init._calculate_fan_in_and_fan_out(tensor)`: `(size(1)·rf, size(0)·rf)` with `rf` the
/// product of the dims after the second.
///
/// Error: ValueError `Fan in and fan out can not be computed for tensor with fewer than 2
/// dimensions`.
pub fn calculate_fan_in_and_fan_out(t: &Tensor) -> Result<(usize, usize)> {
    if t.dim() < 2 {
        return Err(Error::value(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
        ));
    }
    let s = t.size();
    let rf: usize = s[2..].iter().product();
    Ok((s[1] * rf, s[0] * rf))
}

/// `nn.init.calculate_gain(nonlinearity, param)`: 1 for `linear`, the convolutions and
/// `sigmoid`; 5/3 for `tanh`; √2 for `relu`; `√(2 / (1 + slope²))` for `leaky_relu` (`param`
/// the slope, default 0.01); 3/4 for `selu`.
///
/// Error: ValueError `Unsupported nonlinearity foo`.
pub fn calculate_gain(nonlinearity: &str, param: Option<f64>) -> Result<f64> {
    match nonlinearity {
        "linear" | "conv1d" | "conv2d" | "conv3d" | "conv_transpose1d" | "conv_transpose2d"
        | "conv_transpose3d" | "sigmoid" => Ok(1.0),
        "tanh" => Ok(5.0 / 3.0),
        "relu" => Ok(2.0f64.sqrt()),
        "leaky_relu" => {
            let slope = param.unwrap_or(0.01);
            Ok((2.0 / (1.0 + slope.powi(2))).sqrt())
        }
        "selu" => Ok(3.0 / 4.0),
        _ => Err(Error::value(format!(
            "Unsupported nonlinearity {nonlinearity}"
        ))),
    }
}

fn correct_fan(t: &Tensor, mode: &str) -> Result<usize> {
    let m = mode.to_lowercase();
    if m != "fan_in" && m != "fan_out" {
        return Err(Error::value(format!(
            "Mode {mode} not supported, please use one of ['fan_in', 'fan_out']"
        )));
    }
    let (fi, fo) = calculate_fan_in_and_fan_out(t)?;
    Ok(if m == "fan_in" { fi } else { fo })
}

/// PyTorch warns `Initializing zero-element tensors is a no-op` and returns.
fn zero_element(t: &Tensor) -> bool {
    if t.numel() == 0 {
        crate::warnings::warn("Initializing zero-element tensors is a no-op");
        true
    } else {
        false
    }
}

// ------------------------------------------------------------------ public init functions

/// `nn.init.uniform_(tensor, a, b)`: fills `tensor` from U(a, b) drawn from the default
/// generator (`Tensor::uniform_`: PyTorch's values bit for bit). Returns an alias of `tensor`.
///
/// Errors: NotImplementedError `"check_uniform_bounds" not implemented for 'Long'`;
/// RuntimeError `uniform_ expects to return a [from, to) range, but found from=1 > to=0`.
pub fn uniform_(tensor: &Tensor, a: f64, b: f64) -> Result<Tensor> {
    fill_uniform(tensor, a, b, None)
}

/// `nn.init.uniform_(tensor, a, b, generator=g)` (`None`: the default generator); see
/// [`uniform_`].
pub fn uniform_with_(
    tensor: &Tensor,
    a: f64,
    b: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    fill_uniform(tensor, a, b, generator)
}

/// `nn.init.normal_(tensor, mean, std)`: fills `tensor` from N(mean, std²) drawn from the
/// default generator (`Tensor::normal_`). Returns an alias of `tensor`.
///
/// Errors: RuntimeError `normal expects std >= 0.0, but found std -1`; NotImplementedError
/// `"normal_kernel_cpu" not implemented for 'Long'`.
pub fn normal_(tensor: &Tensor, mean: f64, std: f64) -> Result<Tensor> {
    fill_normal(tensor, mean, std, None)
}

/// `nn.init.normal_(tensor, mean, std, generator=g)` (`None`: the default generator); see
/// [`normal_`].
pub fn normal_with_(
    tensor: &Tensor,
    mean: f64,
    std: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    fill_normal(tensor, mean, std, generator)
}

/// `nn.init.constant_(tensor, val)`: fills with `val` under no_grad; returns an alias.
pub fn constant_(tensor: &Tensor, val: f64) -> Result<Tensor> {
    let _g = no_grad();
    tensor.fill_(val)?;
    Ok(tensor.alias())
}

/// `nn.init.zeros_(tensor)`: fills with 0 under no_grad; returns an alias.
pub fn zeros_(tensor: &Tensor) -> Result<Tensor> {
    let _g = no_grad();
    tensor.zero_()?;
    Ok(tensor.alias())
}

/// `nn.init.ones_(tensor)`: fills with 1 under no_grad; returns an alias.
pub fn ones_(tensor: &Tensor) -> Result<Tensor> {
    constant_(tensor, 1.0)
}

/// The optional arguments of `nn.init.kaiming_uniform_` / `kaiming_normal_` (`a=0,
/// mode='fan_in', nonlinearity='leaky_relu'`). From `a` alone or the tuple `(a, mode,
/// nonlinearity)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KaimingOpts<'a> {
    /// The negative slope of the rectifier after this layer (only for `leaky_relu`).
    pub a: f64,
    /// `"fan_in"` (preserves the forward pass's variance) or `"fan_out"` (the backward's).
    pub mode: &'a str,
    /// An `nn.functional` name, see [`calculate_gain`].
    pub nonlinearity: &'a str,
}
impl Default for KaimingOpts<'_> {
    fn default() -> Self {
        KaimingOpts {
            a: 0.0,
            mode: "fan_in",
            nonlinearity: "leaky_relu",
        }
    }
}
impl From<f64> for KaimingOpts<'_> {
    fn from(a: f64) -> Self {
        KaimingOpts {
            a,
            ..Default::default()
        }
    }
}
impl<'a> From<(f64, &'a str, &'a str)> for KaimingOpts<'a> {
    fn from((a, mode, nonlinearity): (f64, &'a str, &'a str)) -> Self {
        KaimingOpts {
            a,
            mode,
            nonlinearity,
        }
    }
}

fn kaiming_std(t: &Tensor, o: &KaimingOpts) -> Result<f64> {
    let fan = correct_fan(t, o.mode)?;
    let gain = calculate_gain(o.nonlinearity, Some(o.a))?;
    Ok(gain / (fan as f64).sqrt())
}

/// `nn.init.kaiming_uniform_(tensor)`: U(-bound, bound) with `bound = √3 · gain / √fan`
/// (defaults `a=0, mode='fan_in', nonlinearity='leaky_relu'`); see [`kaiming_uniform_with_`].
pub fn kaiming_uniform_(tensor: &Tensor) -> Result<Tensor> {
    kaiming_uniform_with_(tensor, KaimingOpts::default(), None)
}

/// `nn.init.kaiming_uniform_(tensor, a, mode, nonlinearity, generator)`: U(-bound, bound),
/// `bound = √3 · calculate_gain(nonlinearity, a) / √fan` (`fan` the fan in or out of
/// [`calculate_fan_in_and_fan_out`]); `generator` `None` is the default generator. A tensor
/// with no elements is left as it is (with PyTorch's warning).
///
/// Errors: ValueError `Mode fan_x not supported, please use one of ['fan_in', 'fan_out']`,
/// `Fan in and fan out can not be computed for tensor with fewer than 2 dimensions`,
/// `Unsupported nonlinearity foo`.
pub fn kaiming_uniform_with_<'a>(
    tensor: &Tensor,
    opts: impl Into<KaimingOpts<'a>>,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    if zero_element(tensor) {
        return Ok(tensor.alias());
    }
    let std = kaiming_std(tensor, &opts.into())?;
    let bound = 3.0f64.sqrt() * std;
    fill_uniform(tensor, -bound, bound, generator)
}

/// `nn.init.kaiming_normal_(tensor)`: N(0, (gain / √fan)²) with the defaults of
/// [`KaimingOpts`]; see [`kaiming_normal_with_`].
pub fn kaiming_normal_(tensor: &Tensor) -> Result<Tensor> {
    kaiming_normal_with_(tensor, KaimingOpts::default(), None)
}

/// `nn.init.kaiming_normal_(tensor, a, mode, nonlinearity, generator)`: N(0, std²) with
/// `std = calculate_gain(nonlinearity, a) / √fan`. Errors as [`kaiming_uniform_with_`].
pub fn kaiming_normal_with_<'a>(
    tensor: &Tensor,
    opts: impl Into<KaimingOpts<'a>>,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    if zero_element(tensor) {
        return Ok(tensor.alias());
    }
    let std = kaiming_std(tensor, &opts.into())?;
    fill_normal(tensor, 0.0, std, generator)
}

fn xavier_std(t: &Tensor, gain: f64) -> Result<f64> {
    let (fi, fo) = calculate_fan_in_and_fan_out(t)?;
    Ok(gain * (2.0 / (fi + fo) as f64).sqrt())
}

/// `nn.init.xavier_uniform_(tensor)` (`gain=1`); see [`xavier_uniform_with_`].
pub fn xavier_uniform_(tensor: &Tensor) -> Result<Tensor> {
    xavier_uniform_with_(tensor, 1.0, None)
}

/// `nn.init.xavier_uniform_(tensor, gain, generator)`: U(-a, a) with
/// `a = √3 · gain · √(2 / (fan_in + fan_out))`.
///
/// Error: ValueError `Fan in and fan out can not be computed for tensor with fewer than 2
/// dimensions`.
pub fn xavier_uniform_with_(
    tensor: &Tensor,
    gain: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    let std = xavier_std(tensor, gain)?;
    let a = 3.0f64.sqrt() * std;
    fill_uniform(tensor, -a, a, generator)
}

/// `nn.init.xavier_normal_(tensor)` (`gain=1`); see [`xavier_normal_with_`].
pub fn xavier_normal_(tensor: &Tensor) -> Result<Tensor> {
    xavier_normal_with_(tensor, 1.0, None)
}

/// `nn.init.xavier_normal_(tensor, gain, generator)`: N(0, std²) with
/// `std = gain · √(2 / (fan_in + fan_out))`. Errors as [`xavier_uniform_with_`].
pub fn xavier_normal_with_(
    tensor: &Tensor,
    gain: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    let std = xavier_std(tensor, gain)?;
    fill_normal(tensor, 0.0, std, generator)
}

/// `nn.init.trunc_normal_(tensor, mean, std, a, b)` from the default generator; see
/// [`trunc_normal_with_`]. PyTorch's defaults are `mean=0, std=1, a=-2, b=2`.
pub fn trunc_normal_(tensor: &Tensor, mean: f64, std: f64, a: f64, b: f64) -> Result<Tensor> {
    trunc_normal_with_(tensor, mean, std, a, b, None)
}

/// `nn.init.trunc_normal_(tensor, mean, std, a, b, generator)`: N(mean, std²) truncated to
/// [a, b], PyTorch 2.15's rejection sampler (`_no_grad_trunc_normal_`). With `p = Φ((b −
/// mean)/std) − Φ((a − mean)/std) > 0.3`: `tensor.normal_(mean, std)`, then while some value
/// lies outside [a, b] (the bounds rounded to the dtype), those are replaced by the matching
/// elements of a fresh `empty_like(result).normal_(mean, std)`. Otherwise: uniform proposals
/// on [a, b] accepted when `log(u) <= −½((x − mean)/std)² − log_peak`, redrawn while any is
/// pending. Warns `mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The
/// distribution of values may be incorrect.` when it is. Errors as [`normal_`].
pub fn trunc_normal_with_(
    tensor: &Tensor,
    mean: f64,
    std: f64,
    a: f64,
    b: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    if mean < a - 2.0 * std || mean > b + 2.0 * std {
        crate::warnings::warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be incorrect.",
        );
    }
    let _ng = no_grad();
    let norm_cdf = |x: f64| (1.0 + libm::erf(x / 2f64.sqrt())) / 2.0;
    let p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std);
    let normal = |t: &Tensor| {
        t.normal_with_(crate::random::NormalOpts {
            mean,
            std,
            generator,
        })
    };
    let uniform = |t: &Tensor, from: f64, to: f64| {
        t.uniform_with_(crate::random::UniformOpts {
            from,
            to,
            generator,
        })
    };
    let any = |m: &Tensor| -> Result<bool> { m.any()?.item::<bool>() };
    if p > 0.3 {
        let dt = tensor.dtype();
        let (lo, hi) = (
            Tensor::scalar_tensor_with(a, dt)?.item::<f64>()?,
            Tensor::scalar_tensor_with(b, dt)?.item::<f64>()?,
        );
        let mut result = normal(tensor)?;
        loop {
            let mask = result.lt(lo)?.logical_or(&result.gt(hi)?)?;
            if !any(&mask)? {
                break;
            }
            let fresh = Tensor::empty_like(&result)?;
            normal(&fresh)?;
            result = crate::where_cond(&mask, &fresh, &result)?;
        }
        if !result.shares_storage(tensor) {
            tensor.copy_(&result)?;
        }
    } else {
        let mode = a.max(mean.min(b));
        let log_peak = -0.5 * ((mode - mean) / std).powi(2);
        let candidates = Tensor::empty_like(tensor)?;
        let accept_buf = Tensor::empty_like(tensor)?;
        let log_pdf = |c: &Tensor| -> Result<Tensor> {
            c.sub_(mean)?.div_(std)?.pow_(2)?.mul_(-0.5)?.sub_(log_peak)
        };
        uniform(tensor, a, b)?;
        candidates.copy_(tensor)?;
        log_pdf(&candidates)?;
        let mut pending = uniform(&accept_buf, 0.0, 1.0)?.log_()?.gt(&candidates)?;
        if any(&pending)? {
            let mut result = tensor.alias();
            loop {
                uniform(&candidates, a, b)?;
                result = crate::where_cond(&pending, &candidates, &result)?;
                log_pdf(&candidates)?;
                let accept = uniform(&accept_buf, 0.0, 1.0)?.log_()?.gt(&candidates)?;
                pending = crate::where_cond(&pending, &accept, &pending)?;
                if !any(&pending)? {
                    break;
                }
            }
            tensor.copy_(&result)?;
        }
    }
    Ok(tensor.alias())
}

/// `nn.init.orthogonal_(tensor)` (`gain=1`) from the default generator; see
/// [`orthogonal_with_`].
pub fn orthogonal_(tensor: &Tensor) -> Result<Tensor> {
    orthogonal_with_(tensor, 1.0, None)
}

/// `nn.init.orthogonal_(tensor, gain, generator)`: a (semi-)orthogonal matrix of shape
/// `(rows, numel / rows)` (trailing dims flattened), times `gain`. As PyTorch: a new
/// `(rows, cols)` matrix filled by `normal_(0, 1)`, transposed when `rows < cols`, its QR
/// factorisation (here Householder in float64), `Q` times the signs of `R`'s diagonal,
/// transposed back, copied into `tensor.view_as(Q)`. A tensor without elements is left as
/// it is.
///
/// Errors: ValueError `Only tensors with 2 or more dimensions are supported`; the error of
/// `view` when `tensor`'s layout cannot be viewed as `(rows, cols)` (`view size is not
/// compatible with input tensor's size and stride …`); as [`normal_`] for its dtype.
pub fn orthogonal_with_(
    tensor: &Tensor,
    gain: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    if tensor.dim() < 2 {
        return Err(Error::value(
            "Only tensors with 2 or more dimensions are supported",
        ));
    }
    if tensor.numel() == 0 {
        return Ok(tensor.alias());
    }
    let _ng = no_grad();
    let rows = tensor.size()[0];
    let cols = tensor.numel() / rows;
    let flat = Tensor::empty_with([rows, cols], tensor.dtype())?;
    fill_normal(&flat, 0.0, 1.0, generator)?;
    let a = if rows < cols { flat.t()? } else { flat };
    let (m, n) = (a.size()[0], a.size()[1]);
    let q = householder_q(
        &a.to(crate::dtype::DType::Float64)?
            .contiguous()
            .to_vec::<f64>(),
        m,
        n,
    );
    let q = Tensor::from_vec(q, [m, n])?.to(tensor.dtype())?;
    let q = if rows < cols { q.t()? } else { q };
    tensor.view_as(&q)?.copy_(&q)?;
    tensor.mul_(gain)?;
    Ok(tensor.alias())
}

/// The `Q` (m × n, m ≥ n) of `A = QR` with `R`'s diagonal made non-negative (PyTorch's
/// `q * sign(diag(r))`; a zero diagonal entry zeroes its column), by Householder
/// reflections in float64. `a` is row-major.
fn householder_q(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut r = a.to_vec();
    let mut vs: Vec<Vec<f64>> = Vec::with_capacity(n);
    let mut diag = vec![0.0; n];
    for j in 0..n {
        let mut v: Vec<f64> = (j..m).map(|i| r[i * n + j]).collect();
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let alpha = if v[0] >= 0.0 { -norm } else { norm };
        v[0] -= alpha;
        let vn = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if vn > 0.0 {
            v.iter_mut().for_each(|x| *x /= vn);
            for c in j..n {
                let dot: f64 = (j..m).map(|i| v[i - j] * r[i * n + c]).sum();
                for i in j..m {
                    r[i * n + c] -= 2.0 * v[i - j] * dot;
                }
            }
        }
        diag[j] = r[j * n + j];
        vs.push(v);
    }
    // Q = H_0 H_1 … H_{n-1} applied to the first n columns of the identity
    let mut q = vec![0.0; m * n];
    for i in 0..n {
        q[i * n + i] = 1.0;
    }
    for j in (0..n).rev() {
        let v = &vs[j];
        for c in 0..n {
            let dot: f64 = (j..m).map(|i| v[i - j] * q[i * n + c]).sum();
            for i in j..m {
                q[i * n + c] -= 2.0 * v[i - j] * dot;
            }
        }
    }
    for (c, d) in diag.iter().enumerate() {
        let s = if *d > 0.0 {
            1.0
        } else if *d < 0.0 {
            -1.0
        } else {
            0.0
        };
        for i in 0..m {
            q[i * n + c] *= s;
        }
    }
    q
}

/// `nn.init.eye_(tensor)`: the identity matrix in a 2-D tensor (ones on the main diagonal,
/// zeros elsewhere), under no_grad; returns an alias.
///
/// Error: ValueError `Only tensors with 2 dimensions are supported`.
pub fn eye_(tensor: &Tensor) -> Result<Tensor> {
    if tensor.dim() != 2 {
        return Err(Error::value("Only tensors with 2 dimensions are supported"));
    }
    let _g = no_grad();
    tensor.zero_()?;
    tensor.diagonal()?.fill_(1)?;
    Ok(tensor.alias())
}

/// `nn.init.dirac_(tensor)` (`groups=1`); see [`dirac_with_`].
pub fn dirac_(tensor: &Tensor) -> Result<Tensor> {
    dirac_with_(tensor, 1)
}

/// `nn.init.dirac_(tensor, groups)`: the identity convolution kernel of a 3-, 4- or 5-D
/// `(out, in, *k)` tensor: zeros, then, in each of the `groups` blocks of `out / groups`
/// output channels, 1 at `[g·(out/groups) + d, d, k0/2, …]` for `d < min(out/groups, in)`.
/// Under no_grad; returns an alias.
///
/// Errors: ValueError `Only tensors with 3, 4, or 5 dimensions are supported`; `dim 0 must
/// be divisible by groups`; `integer modulo by zero` for `groups = 0` (Python's
/// ZeroDivisionError).
pub fn dirac_with_(tensor: &Tensor, groups: usize) -> Result<Tensor> {
    let d = tensor.dim();
    if !(3..=5).contains(&d) {
        return Err(Error::value(
            "Only tensors with 3, 4, or 5 dimensions are supported",
        ));
    }
    let s = tensor.size().to_vec();
    if groups == 0 {
        return Err(Error::value("integer modulo by zero"));
    }
    if !s[0].is_multiple_of(groups) {
        return Err(Error::value("dim 0 must be divisible by groups"));
    }
    let per = s[0] / groups;
    let min_dim = per.min(s[1]);
    let _g = no_grad();
    tensor.zero_()?;
    for g in 0..groups {
        for k in 0..min_dim {
            let mut e = tensor.select(0, g * per + k)?.select(0, k)?;
            for &sz in &s[2..] {
                e = e.select(0, sz / 2)?;
            }
            e.fill_(1)?;
        }
    }
    Ok(tensor.alias())
}

/// `nn.init.sparse_(tensor, sparsity)` (`std=0.01`) from the default generator; see
/// [`sparse_with_`].
pub fn sparse_(tensor: &Tensor, sparsity: f64) -> Result<Tensor> {
    sparse_with_(tensor, sparsity, 0.01, None)
}

/// `nn.init.sparse_(tensor, sparsity, std, generator)`: a 2-D `(rows, cols)` tensor filled by
/// `normal_(0, std)` (from `generator`), then in each column the rows `randperm(rows)[:k]`
/// zeroed, `k = ceil(sparsity · rows)` — PyTorch draws those permutations from the default
/// generator even when `generator` is given, and so does this. Under no_grad; returns an
/// alias.
///
/// Errors: ValueError `Only tensors with 2 dimensions are supported`; as [`normal_`].
pub fn sparse_with_(
    tensor: &Tensor,
    sparsity: f64,
    std: f64,
    generator: Option<&Generator>,
) -> Result<Tensor> {
    if tensor.dim() != 2 {
        return Err(Error::value("Only tensors with 2 dimensions are supported"));
    }
    let (rows, cols) = (tensor.size()[0], tensor.size()[1]);
    let num_zeros = (sparsity * rows as f64).ceil() as i64;
    // Python's `row_indices[:num_zeros]`
    let k = if num_zeros >= 0 {
        (num_zeros as usize).min(rows)
    } else {
        rows.saturating_sub(num_zeros.unsigned_abs() as usize)
    };
    let _g = no_grad();
    fill_normal(tensor, 0.0, std, generator)?;
    for c in 0..cols {
        let perm = Tensor::randperm(rows)?.to_vec::<i64>();
        let col = tensor.select(1, c)?;
        for &r in &perm[..k] {
            col.select(0, r)?.fill_(0)?;
        }
    }
    Ok(tensor.alias())
}

#[cfg(test)]
#[allow(clippy::excessive_precision)] // the values as Python prints them
mod tests {
    //! Values printed by torch 2.15 for the same generator seeds.
    use super::*;

    fn close(t: &Tensor, want: &[f32], tol: f32) -> bool {
        let v = t.contiguous().to_vec::<f32>();
        v.len() == want.len() && v.iter().zip(want).all(|(a, b)| (a - b).abs() <= tol)
    }

    #[test]
    fn orthogonal_and_trunc_normal_are_pytorchs() {
        // nn.init.orthogonal_(torch.empty(3, 5), generator=torch.Generator().manual_seed(4))
        let w = Tensor::empty([3, 5]).unwrap();
        orthogonal_with_(&w, 1.0, Some(&Generator::new().manual_seed(4))).unwrap();
        let want = [
            -0.5125924348831177,
            0.07423669099807739,
            0.7152290940284729,
            0.2705554962158203,
            0.38338640332221985,
            0.14375098049640656,
            -0.9281291961669922,
            0.009497755207121372,
            0.31767722964286804,
            0.13001112639904022,
            0.6016024947166443,
            0.2577165961265564,
            0.34464848041534424,
            0.5972933769226074,
            -0.3100236654281616,
        ];
        assert!(close(&w, &want, 1e-5));
        // trunc_normal_ with p > 0.3: normal draws, out-of-range ones redrawn
        let w = Tensor::empty([4, 4]).unwrap();
        trunc_normal_with_(
            &w,
            0.0,
            1.0,
            -2.0,
            2.0,
            Some(&Generator::new().manual_seed(4)),
        )
        .unwrap();
        let want = [
            -0.9414165019989014,
            1.263246774673462,
            -0.18376938998699188,
            0.1505054533481598,
            0.10750222951173782,
            -0.2780323326587677,
            1.1877325773239136,
            0.6244574785232544,
            -0.8683629035949707,
            -0.20505528151988983,
            0.3975607752799988,
            0.6699259877204895,
            -0.05370698124170303,
            0.04669524356722832,
            -1.7671136856079102,
            -0.9445412158966064,
        ];
        assert!(close(&w, &want, 1e-6));
        // [2, 3] holds 2% of the mass: the uniform proposals with rejection
        let w = Tensor::empty([20]).unwrap();
        trunc_normal_with_(
            &w,
            0.0,
            1.0,
            2.0,
            3.0,
            Some(&Generator::new().manual_seed(4)),
        )
        .unwrap();
        let want = [
            2.6535420417785645,
            2.292646884918213,
            2.091456890106201,
            2.210003137588501,
            2.0071945190429688,
            2.038961887359619,
            2.8173203468322754,
            2.265395402908325,
            2.1473965644836426,
            2.028470039367676,
            2.186838150024414,
            2.8216419219970703,
            2.7867729663848877,
            2.0204761028289795,
            2.0008790493011475,
            2.4746854305267334,
            2.0136613845825195,
            2.3586721420288086,
            2.4618546962738037,
            2.038553476333618,
        ];
        assert!(close(&w, &want, 1e-6));
    }

    #[test]
    fn deterministic_fills_and_refusals() {
        let w = Tensor::full([2, 3, 4], 7.0).unwrap();
        dirac_(&w).unwrap();
        let mut want = [0f32; 24];
        want[2] = 1.0;
        want[18] = 1.0;
        assert!(close(&w, &want, 0.0));
        let e = Tensor::full([3, 2], 7.0).unwrap();
        eye_(&e).unwrap();
        assert!(close(&e, &[1., 0., 0., 1., 0., 0.], 0.0));
        // sparse_: ceil(0.4 · 5) = 2 zeros in every column
        let s = Tensor::empty([5, 3]).unwrap();
        sparse_with_(&s, 0.4, 0.01, Some(&Generator::new().manual_seed(4))).unwrap();
        let zeros = s
            .eq(0.0)
            .unwrap()
            .sum_dim(0, false)
            .unwrap()
            .to_vec::<i64>();
        assert_eq!(zeros, [2, 2, 2]);
        let msg = |r: Result<Tensor>| r.unwrap_err().message().to_string();
        assert_eq!(
            msg(orthogonal_(&Tensor::empty([5]).unwrap())),
            "Only tensors with 2 or more dimensions are supported"
        );
        assert_eq!(
            msg(dirac_(&Tensor::empty([2, 2]).unwrap())),
            "Only tensors with 3, 4, or 5 dimensions are supported"
        );
        assert_eq!(
            msg(dirac_with_(&Tensor::empty([3, 2, 2]).unwrap(), 2)),
            "dim 0 must be divisible by groups"
        );
        assert_eq!(
            msg(eye_(&Tensor::empty([2]).unwrap())),
            "Only tensors with 2 dimensions are supported"
        );
    }
}
