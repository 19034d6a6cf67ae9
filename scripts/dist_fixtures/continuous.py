"""The continuous group: Uniform, Exponential, Laplace, Cauchy, Gumbel, HalfNormal, LogNormal,
TransformedDistribution over the transforms (BUILDERS), Independent, the KL rules among them and
Normal; `extra()` writes continuous_transforms.json (each transform's own surface)."""
import json
import os

import torch
import torch.distributions as D
import torch.distributions.transforms as T

t = torch.tensor
nan = float("nan")
inf = float("inf")
f64 = torch.float64


BUILDERS = {
    "Logistic": lambda p, v: D.TransformedDistribution(
        D.Uniform(p["low"], p["high"], validate_args=v),
        [T.SigmoidTransform().inv, T.AffineTransform(p["loc"], p["scale"])], validate_args=v),
    "TanhNormal": lambda p, v: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"], validate_args=v), [T.TanhTransform()], validate_args=v),
    "StickBreakingNormal": lambda p, v: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"], validate_args=v), [T.StickBreakingTransform()],
        validate_args=v),
    "SoftmaxNormal": lambda p, v: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"], validate_args=v), [T.SoftmaxTransform()],
        validate_args=v),
    "PowerAffineExponential": lambda p, v: D.TransformedDistribution(
        D.Exponential(p["rate"], validate_args=v),
        [T.ComposeTransform([T.PowerTransform(p["exponent"]),
                             T.AffineTransform(p["loc"], p["scale"])])], validate_args=v),
    "ExpAffineEvent": lambda p, v: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"], validate_args=v),
        [T.ExpTransform(), T.AffineTransform(p["loc2"], p["scale2"], event_dim=1)],
        validate_args=v),
    "IndependentNormal": lambda p, v: D.Independent(
        D.Normal(p["loc"], p["scale"], validate_args=v), p["ndims"], validate_args=v),
    "IndependentUniform": lambda p, v: D.Independent(
        D.Uniform(p["low"], p["high"], validate_args=v), p["ndims"], validate_args=v),
}


def loc_scale(name, pos_value, neg_value):
    """The standard case set of a (loc, scale) distribution."""
    n = name.lower()
    return [
        {"id": f"{n}_scalar", "dist": name, "params": {"loc": 0.5, "scale": 2.0},
         "seed": 0, "sample_shape": [5], "value": pos_value, "q": t([0.1, 0.5, 0.975])},
        {"id": f"{n}_batch", "dist": name,
         "params": {"loc": t([0.0, 1.0, -2.0]), "scale": t([1.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, -1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": f"{n}_bcast_f64", "dist": name,
         "params": {"loc": t([[0.0], [1.0]], dtype=f64), "scale": t([1.0, 2.0, 4.0], dtype=f64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=f64),
         "q": t([0.25, 0.5, 0.75], dtype=f64), "grad": True},
        {"id": f"{n}_big", "dist": name, "params": {"loc": t([0.25]), "scale": t([1.5])},
         "seed": 11, "sample_shape": [40], "value": t([0.7])},
        {"id": f"{n}_expand", "dist": name, "params": {"loc": t([0.5]), "scale": t([2.0])},
         "expand": [3, 1], "seed": 1, "sample_shape": [2], "value": t([1.0]), "grad": True},
        {"id": f"{n}_number_tensor", "dist": name, "params": {"loc": 1.0, "scale": t([1.0, 2.0])},
         "seed": 2, "sample_shape": [], "value": t([0.5, 3.0])},
        {"id": f"{n}_bad_scale", "dist": name,
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, -1.0])}},
        {"id": f"{n}_zero_scale_scalar", "dist": name, "params": {"loc": 0.0, "scale": 0.0}},
        {"id": f"{n}_nan_loc", "dist": name, "params": {"loc": t([nan]), "scale": t([1.0])}},
        {"id": f"{n}_bad_bcast", "dist": name,
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, 2.0, 3.0])}},
        {"id": f"{n}_novalidate", "dist": name, "params": {"loc": t([0.0]), "scale": t([-1.0])},
         "validate": False, "value": neg_value},
        {"id": f"{n}_value_shape", "dist": name,
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, 1.0])}, "value": t([1.0, 2.0, 3.0])},
        {"id": f"{n}_value_out", "dist": name, "params": {"loc": t([0.0]), "scale": t([1.0])},
         "value": neg_value},
    ]


def cases():
    c = []
    # Uniform
    c += [
        {"id": "uniform_scalar", "dist": "Uniform", "params": {"low": 0.0, "high": 2.0},
         "seed": 0, "sample_shape": [5], "value": t([0.5, 1.99, 0.0]), "q": t([0.1, 0.5, 0.9])},
        {"id": "uniform_batch", "dist": "Uniform",
         "params": {"low": t([0.0, 1.0, -2.0]), "high": t([1.0, 1.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, -1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": "uniform_bcast_f64", "dist": "Uniform",
         "params": {"low": t([[0.0], [-1.0]], dtype=f64), "high": t([1.0, 2.0, 4.0], dtype=f64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=f64), "grad": True},
        {"id": "uniform_expand", "dist": "Uniform", "params": {"low": t([0.5]), "high": t([2.0])},
         "expand": [3, 1], "seed": 1, "sample_shape": [2], "value": t([1.0])},
        {"id": "uniform_big", "dist": "Uniform", "params": {"low": t([-1.0]), "high": t([3.0])},
         "seed": 11, "sample_shape": [40], "value": t([2.0])},
        {"id": "uniform_mixed_f64", "dist": "Uniform",
         "params": {"low": t([0.0, -1.0], dtype=f64), "high": 2.0},
         "seed": 4, "sample_shape": [3], "value": t([0.5, 2.5], dtype=f64),
         "q": t([0.3, 0.7], dtype=f64), "validate": False},
        {"id": "uniform_bad_low", "dist": "Uniform",
         "params": {"low": t([0.0, 1.0]), "high": t([1.0, 0.5])}},
        {"id": "uniform_nan_high", "dist": "Uniform",
         "params": {"low": t([0.0]), "high": t([nan])}},
        {"id": "uniform_value_out", "dist": "Uniform",
         "params": {"low": t([0.0, 0.0]), "high": t([1.0, 1.0])}, "value": t([0.5, 1.0])},
        {"id": "uniform_novalidate", "dist": "Uniform",
         "params": {"low": t([0.0, 0.0]), "high": t([1.0, 1.0])}, "value": t([-0.5, 1.0]),
         "validate": False},
    ]
    # Exponential
    c += [
        {"id": "exponential_scalar", "dist": "Exponential", "params": {"rate": 2.0},
         "seed": 0, "sample_shape": [5], "value": t([0.5, 0.0, 3.0]), "q": t([0.1, 0.5, 0.9])},
        {"id": "exponential_batch", "dist": "Exponential", "params": {"rate": t([1.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, 1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": "exponential_f64", "dist": "Exponential",
         "params": {"rate": t([[1.0], [2.5]], dtype=f64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=f64), "grad": True},
        {"id": "exponential_big", "dist": "Exponential", "params": {"rate": t([1.5])},
         "seed": 11, "sample_shape": [40], "value": t([2.0])},
        {"id": "exponential_expand", "dist": "Exponential", "params": {"rate": t([2.0])},
         "expand": [3, 2], "seed": 1, "sample_shape": [2], "value": t([1.0])},
        {"id": "exponential_icdf_f64", "dist": "Exponential", "params": {"rate": t([0.5, 4.0],
                                                                                dtype=f64)},
         "q": t([0.0, 0.999], dtype=f64), "value": t([0.0, 1e-3], dtype=f64)},
        {"id": "exponential_bad_rate", "dist": "Exponential", "params": {"rate": t([1.0, 0.0])}},
        {"id": "exponential_value_out", "dist": "Exponential", "params": {"rate": t([1.0])},
         "value": t([-1.0])},
        {"id": "exponential_novalidate", "dist": "Exponential", "params": {"rate": t([1.0])},
         "value": t([-1.0]), "validate": False},
    ]
    c += loc_scale("Laplace", t([0.5, -3.0, 2.5]), t([nan]))
    c += loc_scale("Cauchy", t([0.5, -3.0, 2.5]), t([nan]))
    c += loc_scale("Gumbel", t([0.5, -3.0, 2.5]), t([nan]))
    # Gumbel cdf at a point whose inverted value is 1.0 (outside the base Uniform's support)
    c.append({"id": "gumbel_cdf_edge", "dist": "Gumbel", "params": {"loc": t([0.0]),
                                                                     "scale": t([1.0])},
              "value": t([40.0])})
    # HalfNormal
    c += [
        {"id": "halfnormal_scalar", "dist": "HalfNormal", "params": {"scale": 2.0},
         "seed": 0, "sample_shape": [5], "value": t([0.5, 0.0, 3.0]), "q": t([0.1, 0.5, 0.9])},
        {"id": "halfnormal_batch", "dist": "HalfNormal", "params": {"scale": t([1.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, 1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": "halfnormal_f64", "dist": "HalfNormal", "params": {"scale": t([[1.0], [2.5]],
                                                                             dtype=f64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=f64), "grad": True},
        {"id": "halfnormal_big", "dist": "HalfNormal", "params": {"scale": t([1.5])},
         "seed": 11, "sample_shape": [40], "value": t([2.0])},
        {"id": "halfnormal_expand", "dist": "HalfNormal", "params": {"scale": t([2.0])},
         "expand": [3, 2], "seed": 1, "sample_shape": [2], "value": t([1.0])},
        {"id": "halfnormal_bad_scale", "dist": "HalfNormal", "params": {"scale": t([1.0, -2.0])}},
        {"id": "halfnormal_value_out", "dist": "HalfNormal", "params": {"scale": t([1.0])},
         "value": t([-1.0])},
        {"id": "halfnormal_novalidate", "dist": "HalfNormal", "params": {"scale": t([1.0])},
         "value": t([-1.0, 1.0]), "validate": False},
    ]
    # LogNormal
    c += [
        {"id": "lognormal_scalar", "dist": "LogNormal", "params": {"loc": 0.5, "scale": 2.0},
         "seed": 0, "sample_shape": [5], "value": t([0.5, 1.0, 3.0]), "q": t([0.1, 0.5, 0.9])},
        {"id": "lognormal_batch", "dist": "LogNormal",
         "params": {"loc": t([0.0, 1.0, -2.0]), "scale": t([1.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, 1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": "lognormal_bcast_f64", "dist": "LogNormal",
         "params": {"loc": t([[0.0], [1.0]], dtype=f64), "scale": t([1.0, 2.0, 4.0], dtype=f64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=f64), "grad": True},
        {"id": "lognormal_big", "dist": "LogNormal", "params": {"loc": t([0.25]),
                                                                "scale": t([1.5])},
         "seed": 11, "sample_shape": [40], "value": t([0.7])},
        {"id": "lognormal_expand", "dist": "LogNormal", "params": {"loc": t([0.5]),
                                                                   "scale": t([2.0])},
         "expand": [3, 1], "seed": 1, "sample_shape": [2], "value": t([1.0])},
        {"id": "lognormal_bad_scale", "dist": "LogNormal",
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, -1.0])}},
        {"id": "lognormal_value_out", "dist": "LogNormal", "params": {"loc": t([0.0]),
                                                                      "scale": t([1.0])},
         "value": t([0.0])},
        {"id": "lognormal_novalidate", "dist": "LogNormal", "params": {"loc": t([0.0]),
                                                                       "scale": t([1.0])},
         "value": t([-1.0, 2.0]), "validate": False},
    ]
    # TransformedDistribution over the transforms
    c += [
        {"id": "td_logistic", "dist": "Logistic",
         "params": {"low": t([0.0, 0.0]), "high": t([1.0, 1.0]), "loc": t([0.5, -1.0]),
                    "scale": t([2.0, 0.5])},
         "seed": 5, "sample_shape": [3], "value": t([0.3, -2.0]), "q": t([0.25, 0.8]),
         "grad": True},
        {"id": "td_logistic_negscale", "dist": "Logistic",
         "params": {"low": 0.0, "high": 1.0, "loc": 0.5, "scale": -2.0},
         "seed": 5, "sample_shape": [4], "value": t([0.3, -2.0]), "q": t([0.25, 0.8])},
        {"id": "td_logistic_expand", "dist": "Logistic",
         "params": {"low": t([0.0]), "high": t([1.0]), "loc": t([0.5]), "scale": t([2.0])},
         "expand": [2, 3], "seed": 2, "sample_shape": [2], "value": t([0.3])},
        {"id": "td_tanh_normal", "dist": "TanhNormal",
         "params": {"loc": t([0.0, 0.5, -1.0]), "scale": t([1.0, 0.3, 2.0])},
         "seed": 4, "sample_shape": [2], "value": t([0.3, -0.5, 0.9]),
         "q": t([0.1, 0.5, 0.95]), "grad": True},
        {"id": "td_tanh_value_out", "dist": "TanhNormal",
         "params": {"loc": t([0.0]), "scale": t([1.0])}, "value": t([1.5])},
        {"id": "td_stickbreaking", "dist": "StickBreakingNormal",
         "params": {"loc": t([[0.0, 0.5, -1.0], [1.0, 0.0, 0.2]]),
                    "scale": t([[1.0, 0.3, 2.0], [0.5, 0.5, 0.5]])},
         "seed": 6, "sample_shape": [2], "value": t([0.1, 0.2, 0.3, 0.4]), "grad": True},
        {"id": "td_stickbreaking_f64", "dist": "StickBreakingNormal",
         "params": {"loc": t([0.0, 0.5], dtype=f64), "scale": t([1.0, 0.3], dtype=f64)},
         "seed": 6, "sample_shape": [3], "value": t([0.2, 0.5, 0.3], dtype=f64)},
        {"id": "td_stickbreaking_scalar_base", "dist": "StickBreakingNormal",
         "params": {"loc": 0.0, "scale": 1.0}},
        {"id": "td_stickbreaking_bad_value", "dist": "StickBreakingNormal",
         "params": {"loc": t([0.0, 0.5]), "scale": t([1.0, 0.3])},
         "value": t([0.2, 0.5, 0.4])},
        {"id": "td_softmax", "dist": "SoftmaxNormal",
         "params": {"loc": t([0.0, 0.5, -1.0]), "scale": t([1.0, 0.3, 2.0])},
         "seed": 8, "sample_shape": [2], "value": t([0.2, 0.5, 0.3])},
        {"id": "td_power_affine", "dist": "PowerAffineExponential",
         "params": {"rate": t([1.0, 2.0]), "exponent": t(0.5), "loc": 1.0, "scale": t([2.0, 3.0])},
         "seed": 9, "sample_shape": [3], "value": t([2.5, 4.0]), "grad": True},
        {"id": "td_exp_affine_event", "dist": "ExpAffineEvent",
         "params": {"loc": t([[0.0, 0.5], [1.0, -1.0]]), "scale": t([[1.0, 0.5], [2.0, 0.3]]),
                    "loc2": t([0.5, 1.0]), "scale2": t([2.0, 3.0])},
         "seed": 10, "sample_shape": [2], "value": t([[1.5, 4.0], [0.9, 1.2]]), "grad": True,
         "expand": [3, 2]},
    ]
    # Independent
    c += [
        {"id": "independent_normal", "dist": "IndependentNormal",
         "params": {"loc": t([[0.0, 0.5, -1.0], [1.0, 0.0, 0.2]]),
                    "scale": t([[1.0, 0.3, 2.0], [0.5, 0.5, 0.5]]), "ndims": 1},
         "seed": 12, "sample_shape": [2], "value": t([0.1, 0.2, 0.3]), "grad": True},
        {"id": "independent_normal2", "dist": "IndependentNormal",
         "params": {"loc": t([[0.0, 0.5, -1.0], [1.0, 0.0, 0.2]], dtype=f64),
                    "scale": t([[1.0, 0.3, 2.0], [0.5, 0.5, 0.5]], dtype=f64), "ndims": 2},
         "seed": 13, "sample_shape": [3], "value": t([[0.1, 0.2, 0.3], [0.0, 1.0, 2.0]],
                                                       dtype=f64), "grad": True},
        {"id": "independent_expand", "dist": "IndependentNormal",
         "params": {"loc": t([[0.0, 0.5, -1.0]]), "scale": t([[1.0, 0.3, 2.0]]), "ndims": 1},
         "expand": [4], "seed": 14, "sample_shape": [], "value": t([0.1, 0.2, 0.3])},
        {"id": "independent_zero", "dist": "IndependentUniform",
         "params": {"low": t([0.0, 1.0]), "high": t([1.0, 2.0]), "ndims": 0},
         "seed": 15, "sample_shape": [2], "value": t([0.5, 1.5])},
        {"id": "independent_uniform_out", "dist": "IndependentUniform",
         "params": {"low": t([0.0, 1.0]), "high": t([1.0, 2.0]), "ndims": 1},
         "value": t([0.5, 2.5])},
        {"id": "independent_too_many", "dist": "IndependentNormal",
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, 1.0]), "ndims": 2}},
        {"id": "independent_value_shape", "dist": "IndependentNormal",
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, 1.0]), "ndims": 1},
         "value": t([1.0, 2.0, 3.0])},
    ]
    c += kl_cases()
    return c


def kl(id_, p, q):
    return {"id": id_, "kl": [p, q]}


def kl_cases():
    U = lambda lo, hi: {"dist": "Uniform", "params": {"low": lo, "high": hi}}  # noqa: E731
    E = lambda r: {"dist": "Exponential", "params": {"rate": r}}  # noqa: E731
    N = lambda lo, s: {"dist": "Normal", "params": {"loc": lo, "scale": s}}  # noqa: E731
    L = lambda lo, s: {"dist": "Laplace", "params": {"loc": lo, "scale": s}}  # noqa: E731
    C = lambda lo, s: {"dist": "Cauchy", "params": {"loc": lo, "scale": s}}  # noqa: E731
    G = lambda lo, s: {"dist": "Gumbel", "params": {"loc": lo, "scale": s}}  # noqa: E731
    H = lambda s: {"dist": "HalfNormal", "params": {"scale": s}}  # noqa: E731
    LN = lambda lo, s: {"dist": "LogNormal", "params": {"loc": lo, "scale": s}}  # noqa: E731
    IN = lambda lo, s, n: {"dist": "IndependentNormal",  # noqa: E731
                           "params": {"loc": lo, "scale": s, "ndims": n}}
    u1 = U(t([0.0, 0.5, -1.0]), t([1.0, 2.0, 0.5]))
    u2 = U(t([-0.5, 0.6, -2.0]), t([1.5, 2.0, 1.0]))
    up = U(t([0.5, 1.0, 2.0]), t([1.0, 2.0, 4.0]))
    e1, e2 = E(t([1.0, 0.5, 2.0])), E(t([2.0, 1.5, 0.3]))
    n1, n2 = N(t([0.0, 1.0, -1.0]), t([1.0, 0.5, 2.0])), N(t([0.5, -1.0, 0.0]), t([2.0, 1.0, 0.7]))
    l1, l2 = L(t([0.0, 1.0, -1.0]), t([1.0, 0.5, 2.0])), L(t([0.5, -1.0, 0.0]), t([2.0, 1.0, 0.7]))
    c1, c2 = C(t([0.0, 1.0, -1.0]), t([1.0, 0.5, 2.0])), C(t([0.5, -1.0, 0.0]), t([2.0, 1.0, 0.7]))
    g1, g2 = G(t([0.0, 1.0, -1.0]), t([1.0, 0.5, 2.0])), G(t([0.5, -1.0, 0.0]), t([2.0, 1.0, 0.7]))
    h1, h2 = H(t([1.0, 0.5, 2.0])), H(t([2.0, 1.0, 0.7]))
    ln1, ln2 = LN(t([0.0, 1.0]), t([1.0, 0.5])), LN(t([0.5, -1.0]), t([2.0, 1.0]))
    return [
        kl("kl_uniform_uniform", u1, u2),
        kl("kl_uniform_uniform_inf", u2, u1),
        kl("kl_exponential_exponential", e1, e2),
        kl("kl_laplace_laplace", l1, l2),
        kl("kl_cauchy_cauchy", c1, c2),
        kl("kl_gumbel_gumbel", g1, g2),
        kl("kl_halfnormal_halfnormal", h1, h2),
        kl("kl_lognormal_lognormal", ln1, ln2),
        kl("kl_exponential_uniform", e1, u1),
        kl("kl_gumbel_uniform", g1, u1),
        kl("kl_gumbel_exponential", g1, e1),
        kl("kl_laplace_uniform", l1, u1),
        kl("kl_laplace_exponential", l1, e1),
        kl("kl_normal_uniform", n1, u1),
        kl("kl_normal_exponential", n1, e1),
        kl("kl_exponential_gumbel", e1, g2),
        kl("kl_exponential_normal", e1, n2),
        kl("kl_gumbel_normal", g1, n2),
        kl("kl_laplace_normal", l1, n2),
        kl("kl_normal_gumbel", n1, g2),
        kl("kl_normal_laplace", n1, l2),
        kl("kl_uniform_exponential", up, e1),
        kl("kl_uniform_exponential_inf", u1, e1),
        kl("kl_uniform_gumbel", u1, g2),
        kl("kl_uniform_normal", u1, n2),
        kl("kl_independent", IN(t([[0.0, 1.0], [2.0, 3.0]]), t([[1.0, 2.0], [0.5, 1.0]]), 1),
           IN(t([[1.0, 0.0], [2.5, 3.0]]), t([[2.0, 2.0], [1.0, 0.5]]), 1)),
        kl("kl_independent_ndims_differ",
           IN(t([[0.0, 1.0], [2.0, 3.0]]), t([[1.0, 2.0], [0.5, 1.0]]), 1),
           IN(t([[1.0, 0.0], [2.5, 3.0]]), t([[2.0, 2.0], [1.0, 0.5]]), 2)),
        kl("kl_gumbel_halfnormal", g1, h1),
        kl("kl_lognormal_normal", ln1, n1),
        kl("kl_cauchy_normal", c1, n1),
        kl("kl_exponential_laplace", e1, l1),
        kl("kl_uniform_laplace", u1, l1),
        kl("kl_uniform_cauchy", u1, c1),
    ]


def _transform(name):
    return {
        "exp": lambda: T.ExpTransform(),
        "sigmoid": lambda: T.SigmoidTransform(),
        "tanh": lambda: T.TanhTransform(),
        "abs": lambda: T.AbsTransform(),
        "softmax": lambda: T.SoftmaxTransform(),
        "stickbreaking": lambda: T.StickBreakingTransform(),
        "affine_num": lambda: T.AffineTransform(1.5, -2.0),
        "affine_tensor": lambda: T.AffineTransform(t([0.5, -1.0, 2.0]), t([2.0, 0.5, -3.0])),
        "affine_event": lambda: T.AffineTransform(0.0, t([2.0, 0.5, -3.0]), event_dim=1),
        "power": lambda: T.PowerTransform(2.5),
        "inv_exp": lambda: T.ExpTransform().inv,
        "compose": lambda: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform(),
                                               T.StickBreakingTransform()]),
        "compose_empty": lambda: T.ComposeTransform([]),
    }[name]()


def extra(out_dir, enc, attempt):
    """continuous_transforms.json: each transform's repr, domain, codomain, bijective, sign,
    event_dim, forward/inverse shapes, and forward, inverse and log_abs_det_jacobian values."""
    xs = {
        "exp": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "sigmoid": t([[-1.0, 0.0, 2.0], [0.5, 30.0, -120.0]]),
        "tanh": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "abs": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "softmax": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "stickbreaking": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]], dtype=f64),
        "affine_num": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "affine_tensor": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "affine_event": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "power": t([[1.0, 0.5, 2.0], [0.25, 1.5, 3.0]]),
        "inv_exp": t([[1.0, 0.5, 2.0], [0.25, 1.5, 3.0]]),
        "compose": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
        "compose_empty": t([[-1.0, 0.0, 2.0], [0.5, 1.0, -3.0]]),
    }
    cases = []
    for name, x in xs.items():
        tr = _transform(name)
        c = {"id": "transform_" + name, "transform": name, "repr": repr(tr),
             "domain": repr(tr.domain), "codomain": repr(tr.codomain),
             "bijective": bool(tr.bijective)}
        try:
            s = tr.sign
            c["sign"] = enc(s) if isinstance(s, torch.Tensor) else int(s)
        except NotImplementedError:
            c["sign"] = None
        try:
            c["event_dim"] = tr.event_dim
        except ValueError:
            c["event_dim"] = None
        shape = torch.Size([2, 3])
        c["shape"] = list(shape)
        c["forward_shape"] = list(tr.forward_shape(shape))
        c["inverse_shape"] = list(tr.inverse_shape(shape))
        c["x"] = enc(x)
        y = tr(x)
        c["y"] = {"ok": enc(y)}
        c["x_back"] = attempt(lambda: tr.inv(y))
        c["ladj"] = attempt(lambda: tr.log_abs_det_jacobian(x, y))
        c["inv_repr"] = repr(tr.inv)
        c["inv_ladj"] = attempt(lambda: tr.inv.log_abs_det_jacobian(y, x))
        c["eq_self_copy"] = bool(tr == _transform(name))
        cases.append(c)
    path = os.path.join(out_dir, "continuous_transforms.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0)
    print(f"{path}: {len(cases)} cases")
