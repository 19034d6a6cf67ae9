"""Discrete and multivariate distributions: Bernoulli, Categorical, OneHotCategorical,
Multinomial (probs or logits), MultivariateNormal, MixtureSameFamily, and their
kl_divergence rules."""
import torch
import torch.distributions as D

BUILDERS = {
    # a Categorical(logits=mix_logits) mixture of Normal(loc, scale) components
    "MixtureNormal": lambda p, v: D.MixtureSameFamily(
        D.Categorical(logits=p["mix_logits"]), D.Normal(p["loc"], p["scale"]),
        validate_args=v),
    # ... of MultivariateNormal(loc, scale_tril) components
    "MixtureMVN": lambda p, v: D.MixtureSameFamily(
        D.Categorical(logits=p["mix_logits"]), D.MultivariateNormal(p["loc"], scale_tril=p["scale_tril"]),
        validate_args=v),
}

t = torch.tensor
f64 = torch.float64


def bernoulli():
    return [
        {"id": "bern_scalar", "dist": "Bernoulli", "params": {"probs": 0.3},
         "seed": 0, "sample_shape": [6], "value": t([0.0, 1.0, 1.0]), "enumerate": True},
        {"id": "bern_batch", "dist": "Bernoulli", "params": {"probs": t([0.1, 0.5, 0.9, 1.0])},
         "seed": 3, "sample_shape": [2, 3], "value": t([[1.0, 0.0, 1.0, 1.0]]),
         "enumerate": True, "grad": True},
        {"id": "bern_logits", "dist": "Bernoulli",
         "params": {"logits": t([[-2.0, 0.0, 3.5], [1.0, -30.0, 25.0]])},
         "seed": 5, "sample_shape": [2], "value": t([1.0, 0.0, 1.0]), "enumerate": True,
         "grad": True},
        {"id": "bern_f64", "dist": "Bernoulli", "params": {"probs": t([0.25, 0.0], dtype=f64)},
         "seed": 9, "sample_shape": [3], "value": t([[0.0], [1.0]], dtype=f64), "grad": True},
        {"id": "bern_expand", "dist": "Bernoulli", "params": {"logits": t([0.4])},
         "expand": [2, 3], "seed": 1, "value": t([1.0, 0.0, 0.0]), "enumerate": True},
        {"id": "bern_both", "dist": "Bernoulli", "params": {"probs": t([0.5]),
                                                            "logits": t([0.0])}},
        {"id": "bern_none", "dist": "Bernoulli", "params": {}},
        {"id": "bern_bad_probs", "dist": "Bernoulli", "params": {"probs": t([0.5, 1.5])}},
        {"id": "bern_nan_logits", "dist": "Bernoulli", "params": {"logits": t([float("nan")])}},
        {"id": "bern_out_of_support", "dist": "Bernoulli", "params": {"probs": t([0.3, 0.6])},
         "value": t([0.5, 1.0])},
        {"id": "bern_novalidate", "dist": "Bernoulli", "params": {"probs": t([0.3, 0.6])},
         "validate": False, "value": t([0.5, 2.0])},
        {"id": "bern_bad_shape", "dist": "Bernoulli", "params": {"probs": t([0.3, 0.6])},
         "value": t([0.0, 1.0, 1.0])},
    ]


def categorical():
    p = t([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    return [
        {"id": "cat_probs_1d", "dist": "Categorical", "params": {"probs": t([1.0, 2.0, 3.0, 4.0])},
         "seed": 0, "value": t([0.0, 3.0, 2.0]), "enumerate": True, "grad": True},
        {"id": "cat_probs_many", "dist": "Categorical", "params": {"probs": p},
         "seed": 2, "sample_shape": [4, 5], "value": t([[2.0], [1.0]]), "enumerate": True,
         "grad": True},
        {"id": "cat_logits", "dist": "Categorical",
         "params": {"logits": t([[0.5, -1.0, 2.0, 0.0], [-3.0, 1.0, 1.0, float("-inf")]])},
         "seed": 4, "sample_shape": [3], "value": t([3.0, 1.0]), "enumerate": True,
         "grad": True},
        {"id": "cat_f64", "dist": "Categorical",
         "params": {"probs": t([[0.2, 0.8], [0.6, 0.4], [1.0, 0.0]], dtype=f64)},
         "seed": 11, "sample_shape": [2], "value": t([1, 0, 1]), "grad": True},
        {"id": "cat_expand", "dist": "Categorical", "params": {"logits": t([0.1, 0.2, 0.3])},
         "expand": [2, 2], "seed": 6, "sample_shape": [2], "value": t([2, 0]),
         "enumerate": True},
        {"id": "cat_both", "dist": "Categorical", "params": {"probs": t([0.5, 0.5]),
                                                             "logits": t([0.0, 0.0])}},
        {"id": "cat_none", "dist": "Categorical", "params": {}},
        {"id": "cat_probs_0d", "dist": "Categorical", "params": {"probs": t(0.5)}},
        {"id": "cat_logits_0d", "dist": "Categorical", "params": {"logits": t(0.5)}},
        {"id": "cat_bad_probs", "dist": "Categorical", "params": {"probs": t([0.5, -0.1, 0.6])}},
        {"id": "cat_nan_logits", "dist": "Categorical",
         "params": {"logits": t([0.5, float("nan")])}},
        {"id": "cat_out_of_support", "dist": "Categorical", "params": {"probs": t([0.5, 0.5])},
         "value": t([0.0, 2.0])},
        {"id": "cat_not_integer", "dist": "Categorical", "params": {"probs": t([0.5, 0.5])},
         "value": t([0.5])},
        {"id": "cat_bad_shape", "dist": "Categorical", "params": {"probs": p},
         "value": t([0.0, 1.0, 1.0])},
    ]


def onehot():
    return [
        {"id": "ohc_probs", "dist": "OneHotCategorical",
         "params": {"probs": t([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])},
         "seed": 0, "sample_shape": [3], "value": t([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
         "enumerate": True, "grad": True},
        {"id": "ohc_single", "dist": "OneHotCategorical", "params": {"probs": t([0.2, 0.8])},
         "seed": 7, "value": t([1.0, 0.0]), "enumerate": True},
        {"id": "ohc_logits_f64", "dist": "OneHotCategorical",
         "params": {"logits": t([1.0, -1.0, 0.5, 2.0], dtype=f64)},
         "seed": 1, "sample_shape": [2, 2], "value": t([0.0, 0.0, 0.0, 1.0], dtype=f64),
         "enumerate": True, "grad": True},
        {"id": "ohc_expand", "dist": "OneHotCategorical", "params": {"probs": t([0.2, 0.3, 0.5])},
         "expand": [2], "seed": 8, "sample_shape": [2], "value": t([0.0, 1.0, 0.0]),
         "enumerate": True},
        {"id": "ohc_bad_probs", "dist": "OneHotCategorical", "params": {"probs": t([-1.0, 2.0])}},
        {"id": "ohc_bad_probs_novalidate", "dist": "OneHotCategorical",
         "params": {"probs": t([-1.0, 2.0])}, "validate": False},
        {"id": "ohc_both", "dist": "OneHotCategorical",
         "params": {"probs": t([0.5, 0.5]), "logits": t([0.0, 0.0])}},
        {"id": "ohc_out_of_support", "dist": "OneHotCategorical",
         "params": {"probs": t([0.5, 0.5])}, "value": t([1.0, 1.0])},
        {"id": "ohc_bad_event", "dist": "OneHotCategorical",
         "params": {"probs": t([0.5, 0.5])}, "value": t([1.0, 0.0, 0.0])},
    ]


def multinomial():
    return [
        {"id": "mult_probs", "dist": "Multinomial",
         "params": {"total_count": 10, "probs": t([0.2, 0.3, 0.5])},
         "seed": 0, "sample_shape": [4], "value": t([2.0, 3.0, 5.0]), "grad": True},
        {"id": "mult_one_draw", "dist": "Multinomial",
         "params": {"total_count": 1, "probs": t([[0.2, 0.8], [0.5, 0.5]])},
         "seed": 3, "value": t([[0.0, 1.0], [1.0, 0.0]])},
        {"id": "mult_logits", "dist": "Multinomial",
         "params": {"total_count": 5, "logits": t([[0.0, 1.0, -1.0], [2.0, float("-inf"), 0.5]])},
         "seed": 2, "sample_shape": [2], "value": t([[1.0, 4.0, 0.0], [3.0, 0.0, 2.0]]),
         "grad": True},
        {"id": "mult_f64", "dist": "Multinomial",
         "params": {"total_count": 7, "probs": t([1.0, 1.0, 2.0, 4.0], dtype=f64)},
         "seed": 5, "sample_shape": [3], "value": t([1.0, 1.0, 2.0, 3.0], dtype=f64),
         "grad": True},
        {"id": "mult_expand", "dist": "Multinomial",
         "params": {"total_count": 4, "probs": t([0.25, 0.75])}, "expand": [3],
         "seed": 9, "value": t([1.0, 3.0])},
        {"id": "mult_zero", "dist": "Multinomial",
         "params": {"total_count": 0, "probs": t([0.25, 0.75])}, "seed": 1,
         "value": t([0.0, 0.0])},
        {"id": "mult_tensor_count", "dist": "Multinomial",
         "params": {"total_count": t([3]), "probs": t([0.25, 0.75])}},
        {"id": "mult_float_count", "dist": "Multinomial",
         "params": {"total_count": 3.0, "probs": t([0.25, 0.75])}},
        {"id": "mult_negative_count", "dist": "Multinomial",
         "params": {"total_count": -2, "probs": t([0.25, 0.75])}},
        {"id": "mult_bad_probs", "dist": "Multinomial",
         "params": {"total_count": 3, "probs": t([-0.25, 0.75])}},
        {"id": "mult_both", "dist": "Multinomial",
         "params": {"total_count": 3, "probs": t([0.25, 0.75]), "logits": t([0.0, 0.0])}},
        {"id": "mult_out_of_support", "dist": "Multinomial",
         "params": {"total_count": 3, "probs": t([0.25, 0.75])}, "value": t([2.0, 2.0])},
        {"id": "mult_novalidate", "dist": "Multinomial",
         "params": {"total_count": 3, "probs": t([0.25, 0.75])}, "validate": False,
         "value": t([2.0, 2.0])},
    ]


def mvn():
    cov = t([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]])
    tril = t([[1.5, 0.0], [0.4, 0.8]])
    return [
        {"id": "mvn_cov", "dist": "MultivariateNormal",
         "params": {"loc": t([0.5, -1.0, 2.0]), "covariance_matrix": cov},
         "seed": 0, "sample_shape": [4], "value": t([[0.0, 0.0, 0.0], [1.0, -2.0, 2.5]]),
         "grad": True},
        {"id": "mvn_tril_batch", "dist": "MultivariateNormal",
         "params": {"loc": t([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]]), "scale_tril": tril},
         "seed": 2, "sample_shape": [2], "value": t([1.0, 0.0]), "grad": True},
        {"id": "mvn_prec_f64", "dist": "MultivariateNormal",
         "params": {"loc": t([1.0, 2.0], dtype=f64),
                    "precision_matrix": t([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 0.0], [0.0, 4.0]]],
                                          dtype=f64)},
         "seed": 5, "sample_shape": [3], "value": t([[0.5, 2.5]], dtype=f64), "grad": True},
        {"id": "mvn_bcast_cov", "dist": "MultivariateNormal",
         "params": {"loc": t([[0.0, 0.0]]),
                    "covariance_matrix": t([[[1.0, 0.2], [0.2, 1.0]], [[3.0, -1.0], [-1.0, 2.0]]])},
         "seed": 1, "value": t([[0.3, -0.4], [1.0, 1.0]]), "grad": True},
        {"id": "mvn_expand", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 1.0]), "scale_tril": tril}, "expand": [2, 3],
         "seed": 4, "value": t([0.0, 0.0])},
        {"id": "mvn_loc_0d", "dist": "MultivariateNormal",
         "params": {"loc": t(0.0), "covariance_matrix": t([[1.0]])}},
        {"id": "mvn_two", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0]), "covariance_matrix": t([[1.0]]), "scale_tril": t([[1.0]])}},
        {"id": "mvn_none", "dist": "MultivariateNormal", "params": {"loc": t([0.0])}},
        {"id": "mvn_cov_1d", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0]), "covariance_matrix": t([1.0])}},
        {"id": "mvn_tril_1d", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0]), "scale_tril": t([1.0])}},
        {"id": "mvn_prec_1d", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0]), "precision_matrix": t([1.0])}},
        {"id": "mvn_not_pd", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 0.0]), "covariance_matrix": t([[1.0, 2.0], [2.0, 1.0]])}},
        {"id": "mvn_not_symmetric", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 0.0]), "covariance_matrix": t([[1.0, 0.5], [0.0, 1.0]])}},
        {"id": "mvn_not_pd_novalidate", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 0.0]), "covariance_matrix": t([[1.0, 2.0], [2.0, 1.0]])},
         "validate": False},
        {"id": "mvn_bad_tril", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 0.0]), "scale_tril": t([[1.0, 0.5], [0.0, 1.0]])}},
        {"id": "mvn_bad_bcast", "dist": "MultivariateNormal",
         "params": {"loc": t([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
                    "scale_tril": t([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])}},
        {"id": "mvn_nan_value", "dist": "MultivariateNormal",
         "params": {"loc": t([0.0, 0.0]), "scale_tril": tril}, "value": t([float("nan"), 0.0])},
    ]


def mixture():
    return [
        {"id": "mix_normal", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.2, -0.5, 1.0]), "loc": t([-1.0, 0.0, 2.0]),
                    "scale": t([0.5, 1.0, 2.0])},
         "seed": 0, "sample_shape": [5], "value": t([0.0, 1.5, -2.0]), "grad": True},
        {"id": "mix_normal_batch", "dist": "MixtureNormal",
         "params": {"mix_logits": t([[0.0, 1.0], [2.0, -1.0]]),
                    "loc": t([[0.0, 1.0], [-1.0, 3.0]]), "scale": t([[1.0, 0.5], [2.0, 1.0]])},
         "seed": 3, "sample_shape": [2, 2], "value": t([[0.5], [1.0]]), "grad": True},
        {"id": "mix_normal_bcast_mix", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.0, 1.0]),
                    "loc": t([[0.0, 1.0], [-1.0, 3.0], [2.0, 2.0]]), "scale": t([1.0, 0.5])},
         "seed": 6, "value": t([0.5, 0.0, 1.0])},
        {"id": "mix_normal_expand", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.0, 1.0]), "loc": t([0.0, 1.0]), "scale": t([1.0, 0.5])},
         "expand": [3], "seed": 2, "sample_shape": [2], "value": t([0.5, 0.0, 1.0])},
        {"id": "mix_mvn", "dist": "MixtureMVN",
         "params": {"mix_logits": t([0.3, -0.3]), "loc": t([[0.0, 0.0], [1.0, 2.0]]),
                    "scale_tril": t([[[1.0, 0.0], [0.5, 1.0]], [[2.0, 0.0], [0.0, 0.5]]])},
         "seed": 1, "sample_shape": [3], "value": t([[0.5, 0.5], [1.0, 2.5]]), "grad": True},
        {"id": "mix_bad_k", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.0, 1.0, 2.0]), "loc": t([0.0, 1.0]),
                    "scale": t([1.0, 0.5])}},
        {"id": "mix_bad_batch", "dist": "MixtureNormal",
         "params": {"mix_logits": t([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0]]),
                    "loc": t([[0.0, 1.0], [0.0, 1.0]]), "scale": t([1.0, 0.5])}},
        {"id": "mix_no_batch", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.0]), "loc": 0.0, "scale": 1.0}},
        {"id": "mix_nan_value", "dist": "MixtureNormal",
         "params": {"mix_logits": t([0.0, 1.0]), "loc": t([0.0, 1.0]), "scale": t([1.0, 0.5])},
         "value": t([float("nan")])},
    ]


def kl():
    def case(i, p, q):
        return {"id": i, "kl": [p, q]}
    B = lambda **k: {"dist": "Bernoulli", "params": k}  # noqa: E731
    C = lambda **k: {"dist": "Categorical", "params": k}  # noqa: E731
    O = lambda **k: {"dist": "OneHotCategorical", "params": k}  # noqa: E731
    N = lambda **k: {"dist": "Normal", "params": k}  # noqa: E731
    M = lambda **k: {"dist": "MultivariateNormal", "params": k}  # noqa: E731
    return [
        case("kl_bern", B(probs=t([0.1, 0.5, 0.0, 1.0, 0.3])),
             B(probs=t([0.3, 0.5, 0.2, 0.6, 0.0]))),
        case("kl_bern_logits", B(logits=t([1.0, -2.0])), B(probs=t([1.0, 0.4]))),
        case("kl_cat", C(probs=t([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
             C(logits=t([[0.0, 1.0, -1.0], [1.0, float("-inf"), 0.0]]))),
        case("kl_cat_bcast", C(probs=t([0.2, 0.3, 0.5])),
             C(probs=t([[0.1, 0.1, 0.8], [0.4, 0.4, 0.2]]))),
        case("kl_onehot", O(probs=t([0.2, 0.8], dtype=f64)), O(logits=t([0.5, 0.0], dtype=f64))),
        case("kl_bern_normal", B(probs=t([0.5])), N(loc=t([0.0]), scale=t([1.0]))),
        case("kl_cat_onehot", C(probs=t([0.5, 0.5])), O(probs=t([0.5, 0.5]))),
        case("kl_mvn", M(loc=t([0.0, 1.0]), covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
             M(loc=t([[1.0, 0.0], [0.5, 0.5]]), scale_tril=t([[1.0, 0.0], [0.2, 0.7]]))),
        case("kl_mvn_f64", M(loc=t([0.0, 1.0, 2.0], dtype=f64),
                             scale_tril=t([[1.0, 0.0, 0.0], [0.1, 2.0, 0.0], [0.3, -0.2, 0.5]],
                                          dtype=f64)),
             M(loc=t([1.0, 1.0, 1.0], dtype=f64),
               precision_matrix=t([[1.0, 0.1, 0.0], [0.1, 2.0, 0.2], [0.0, 0.2, 1.0]], dtype=f64))),
        case("kl_mvn_event", M(loc=t([0.0, 1.0]), scale_tril=t([[1.0, 0.0], [0.2, 0.7]])),
             M(loc=t([0.0]), scale_tril=t([[1.0]]))),
        case("kl_mvn_normal", M(loc=t([0.0]), scale_tril=t([[1.0]])),
             N(loc=t([0.0]), scale=t([1.0]))),
    ]


def cases():
    return bernoulli() + categorical() + onehot() + multinomial() + mvn() + mixture() + kl()
