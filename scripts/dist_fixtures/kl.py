"""The kl group: kl_divergence for every pair PyTorch registers among tensile's distributions
(same-type and cross-type), each with several parameter sets (float32, broadcasting batch
shapes, float64), the subclass dispatch (Chi2 takes the Gamma rules; LogNormal, HalfNormal
and Gumbel are TransformedDistributions) and unregistered pairs (PyTorch's
NotImplementedError texts)."""
import torch

from dist_fixtures import continuous

t = torch.tensor
f64 = torch.float64

# IndependentNormal and the other TransformedDistribution builders of the continuous group.
BUILDERS = dict(continuous.BUILDERS)


def d(name, **params):
    return {"dist": name, "params": params}


# Three parameter sets per simple type: "a" and "b" of batch shape [3] (float32), "c" of
# batch shape [2, 1] (float32; against a [3] it broadcasts to [2, 3]) and "f" of batch shape
# [3] in float64. Values straddle the other types' supports so the inf masks are exercised.
def _sets(make, a, b, c, f):
    return {"a": make(*[t(x) for x in a]), "b": make(*[t(x) for x in b]),
            "c": make(*[t(x) for x in c]), "f": make(*[t(x, dtype=f64) for x in f])}


# The positive parameter pairs Gamma (concentration, rate) and Beta (concentration1,
# concentration0) share.
_POSITIVE_PAIRS = (([2.0, 0.5, 5.0], [1.0, 2.0, 0.5]), ([1.0, 3.0, 0.7], [0.5, 1.5, 4.0]),
                   ([[1.5], [0.3]], [[2.0], [0.6]]), ([0.8, 2.5, 12.0], [1.2, 0.4, 3.0]))

S = {
    "Normal": _sets(lambda lo, s: d("Normal", loc=lo, scale=s),
                    ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0]), ([0.5, -1.0, 0.3], [2.0, 1.0, 0.7]),
                    ([[0.2], [-0.4]], [[0.8], [1.5]]), ([0.1, 0.6, -2.0], [0.3, 1.2, 2.5])),
    "Laplace": _sets(lambda lo, s: d("Laplace", loc=lo, scale=s),
                     ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0]), ([0.5, -1.0, 0.3], [2.0, 1.0, 0.7]),
                     ([[0.2], [-0.4]], [[0.8], [1.5]]), ([0.1, 0.6, -2.0], [0.3, 1.2, 2.5])),
    "Cauchy": _sets(lambda lo, s: d("Cauchy", loc=lo, scale=s),
                    ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0]), ([0.5, -1.0, 0.3], [2.0, 1.0, 0.7]),
                    ([[0.2], [-0.4]], [[0.8], [1.5]]), ([0.1, 0.6, -2.0], [0.3, 1.2, 2.5])),
    "Gumbel": _sets(lambda lo, s: d("Gumbel", loc=lo, scale=s),
                    ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0]), ([0.5, -1.0, 0.3], [2.0, 1.0, 0.7]),
                    ([[0.2], [-0.4]], [[0.8], [1.5]]), ([0.1, 0.6, -2.0], [0.3, 1.2, 2.5])),
    "Exponential": _sets(lambda r: d("Exponential", rate=r),
                         ([1.0, 0.5, 2.0],), ([2.0, 1.5, 0.3],), ([[0.7], [3.0]],),
                         ([0.25, 1.0, 4.0],)),
    "HalfNormal": _sets(lambda s: d("HalfNormal", scale=s),
                        ([1.0, 0.5, 2.0],), ([2.0, 1.5, 0.3],), ([[0.7], [3.0]],),
                        ([0.25, 1.0, 4.0],)),
    "Poisson": _sets(lambda r: d("Poisson", rate=r),
                     ([1.0, 0.5, 4.0],), ([2.0, 1.5, 0.3],), ([[0.7], [3.0]],),
                     ([0.25, 1.0, 9.0],)),
    "Gamma": _sets(lambda c, r: d("Gamma", concentration=c, rate=r), *_POSITIVE_PAIRS),
    "Chi2": _sets(lambda df: d("Chi2", df=df),
                  ([1.0, 3.0, 10.0],), ([2.0, 0.5, 6.0],), ([[4.0], [0.7]],),
                  ([0.5, 2.0, 7.0],)),
    "Beta": _sets(lambda a, b: d("Beta", concentration1=a, concentration0=b), *_POSITIVE_PAIRS),
    # Uniforms inside [0, 1], straddling 0 or 1, and off it.
    "Uniform": _sets(lambda lo, hi: d("Uniform", low=lo, high=hi),
                     ([0.0, 0.2, -1.0], [1.0, 0.7, 0.5]), ([0.1, 0.5, 0.0], [0.9, 2.0, 0.4]),
                     ([[0.25], [-0.5]], [[0.75], [1.5]]), ([0.0, 0.3, 1.0], [1.0, 0.35, 3.0])),
    "Bernoulli": _sets(lambda p: d("Bernoulli", probs=p),
                       ([0.3, 0.9, 0.5],), ([0.6, 0.1, 0.0],), ([[0.2], [1.0]],),
                       ([0.25, 0.75, 0.05],)),
    "Geometric": _sets(lambda p: d("Geometric", probs=p),
                       ([0.3, 0.9, 0.5],), ([0.6, 0.1, 0.2],), ([[0.2], [0.8]],),
                       ([0.25, 0.75, 0.05],)),
    "Binomial": _sets(lambda n, p: d("Binomial", total_count=n, probs=p),
                      ([5.0, 5.0, 10.0], [0.3, 0.9, 0.5]), ([5.0, 5.0, 10.0], [0.6, 0.1, 0.2]),
                      ([[10.0], [10.0]], [[0.2], [0.8]]),
                      ([3.0, 3.0, 3.0], [0.25, 0.75, 0.05])),
    "LogNormal": _sets(lambda lo, s: d("LogNormal", loc=lo, scale=s),
                       ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0]), ([0.5, -1.0, 0.3], [2.0, 1.0, 0.7]),
                       ([[0.2], [-0.4]], [[0.8], [1.5]]), ([0.1, 0.6, -2.0], [0.3, 1.2, 2.5])),
}

# Every registered pair among tensile's types whose sides have parameter sets above
# (PyTorch 2.15's torch/distributions/kl.py).
PAIRS = [
    # same type
    ("Normal", "Normal"), ("Laplace", "Laplace"), ("Cauchy", "Cauchy"), ("Gumbel", "Gumbel"),
    ("Exponential", "Exponential"), ("HalfNormal", "HalfNormal"), ("Poisson", "Poisson"),
    ("Gamma", "Gamma"), ("Beta", "Beta"), ("Uniform", "Uniform"), ("Bernoulli", "Bernoulli"),
    ("Geometric", "Geometric"), ("Binomial", "Binomial"),
    ("LogNormal", "LogNormal"),  # TransformedDistribution ‖ TransformedDistribution
    # cross pairs
    ("Bernoulli", "Poisson"), ("Poisson", "Bernoulli"), ("Poisson", "Binomial"),
    ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
    ("Exponential", "Beta"), ("Exponential", "Gamma"), ("Exponential", "Gumbel"),
    ("Exponential", "Normal"), ("Exponential", "Uniform"),
    ("Gamma", "Beta"), ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Normal"),
    ("Gamma", "Uniform"),
    ("Gumbel", "Beta"), ("Gumbel", "Exponential"), ("Gumbel", "Gamma"), ("Gumbel", "Normal"),
    ("Gumbel", "Uniform"),
    ("Laplace", "Beta"), ("Laplace", "Exponential"), ("Laplace", "Gamma"), ("Laplace", "Normal"),
    ("Laplace", "Uniform"),
    ("Normal", "Beta"), ("Normal", "Exponential"), ("Normal", "Gamma"), ("Normal", "Gumbel"),
    ("Normal", "Laplace"), ("Normal", "Uniform"),
    ("Uniform", "Beta"), ("Uniform", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Gumbel"),
    ("Uniform", "Normal"),
]

# Chi2 is a Gamma: it takes every Gamma rule on either side.
CHI2_PAIRS = [
    ("Chi2", "Chi2"), ("Chi2", "Gamma"), ("Gamma", "Chi2"), ("Chi2", "Exponential"),
    ("Exponential", "Chi2"), ("Chi2", "Gumbel"), ("Chi2", "Normal"), ("Chi2", "Uniform"),
    ("Chi2", "Beta"), ("Beta", "Chi2"), ("Uniform", "Chi2"), ("Normal", "Chi2"),
    ("Gumbel", "Chi2"), ("Laplace", "Chi2"),
]

# Not registered: `No KL(p || q) is implemented …`, or the Bregman text between two different
# exponential families.
UNREGISTERED = [
    ("Normal", "Cauchy"), ("Cauchy", "Normal"), ("Exponential", "Laplace"),
    ("Uniform", "Laplace"), ("LogNormal", "Normal"), ("Normal", "LogNormal"),
    ("HalfNormal", "Exponential"), ("Gumbel", "Laplace"), ("Gumbel", "LogNormal"),
    ("HalfNormal", "Gumbel"), ("Beta", "Laplace"), ("Bernoulli", "Binomial"),
    ("Binomial", "Poisson"), ("Geometric", "Poisson"), ("Poisson", "Geometric"),
    ("Bernoulli", "Geometric"), ("Gamma", "Poisson"), ("Poisson", "Gamma"),
    ("Exponential", "Poisson"), ("Beta", "Bernoulli"), ("Cauchy", "Gumbel"),
    ("Laplace", "Cauchy"), ("Chi2", "Poisson"),
]


def kl(id_, p, q):
    return {"id": id_, "kl": [p, q]}


def _name(p, q, tag):
    return f"kl_{p.lower()}_{q.lower()}_{tag}"


def cases():
    c = []
    for p, q in PAIRS + CHI2_PAIRS:
        for tag, (sp, sq) in {"ab": ("a", "b"), "ba": ("b", "a"), "bcast": ("c", "a"),
                              "bcast_q": ("a", "c"), "f64": ("f", "f")}.items():
            c.append(kl(_name(p, q, tag), S[p][sp], S[q][sq]))
    for p, q in UNREGISTERED:
        c.append(kl(_name(p, q, "unregistered"), S[p]["a"], S[q]["b"]))
    # Mixed float32 ‖ float64 (type promotion through the formulas).
    # (float32 digamma is left out of these: PyTorch's float kernel is not correctly rounded,
    # tensile's is, and a float64 result would show the ulp.)
    for p, q in [("Normal", "Gamma"), ("Uniform", "Beta"), ("Uniform", "Gamma"),
                 ("Exponential", "Gamma"), ("Bernoulli", "Poisson"), ("Uniform", "Normal")]:
        c.append(kl(_name(p, q, "f32_f64"), S[p]["a"], S[q]["f"]))
    for p, q in [("Gamma", "Gumbel"), ("Beta", "Uniform"), ("Beta", "Exponential"),
                 ("Gamma", "Exponential"), ("Gamma", "Normal"), ("Beta", "Gamma")]:
        c.append(kl(_name(p, q, "f64_f32"), S[p]["f"], S[q]["a"]))
    # Number parameters (0-d batch): the masks are 0-d and fill the whole result.
    c += [
        kl("kl_uniform_beta_numbers", d("Uniform", low=0.2, high=0.6),
           d("Beta", concentration1=t([2.0, 0.5]), concentration0=t([1.0, 3.0]))),
        kl("kl_uniform_beta_numbers_inf", d("Uniform", low=-0.2, high=0.6),
           d("Beta", concentration1=t([2.0, 0.5]), concentration0=t([1.0, 3.0]))),
        kl("kl_beta_uniform_numbers_inf", d("Beta", concentration1=t([2.0, 0.5]),
                                            concentration0=t([1.0, 3.0])),
           d("Uniform", low=0.1, high=1.0)),
        kl("kl_uniform_gamma_numbers_inf", d("Uniform", low=-1.0, high=1.0),
           d("Gamma", concentration=t([2.0, 0.5]), rate=t([1.0, 3.0]))),
        kl("kl_uniform_exponential_numbers_inf", d("Uniform", low=-1.0, high=1.0),
           d("Exponential", rate=t([2.0, 0.5]))),
        # A [2] mask against a [2, 2] result: PyTorch's `result[mask] = inf` masks rows.
        kl("kl_uniform_exponential_mask_rows",
           d("Uniform", low=t([-1.0, 1.0]), high=t([2.0, 3.0])),
           d("Exponential", rate=t([[1.0, 2.0], [3.0, 4.0]]))),
        kl("kl_uniform_gamma_mask_rows",
           d("Uniform", low=t([-1.0, 1.0]), high=t([2.0, 3.0])),
           d("Gamma", concentration=t([[1.0, 2.0], [3.0, 4.0]]), rate=t([1.0, 0.5]))),
        kl("kl_beta_uniform_mask_rows", d("Beta", concentration1=t([[1.0, 2.0], [3.0, 4.0]]),
                                          concentration0=t([1.0, 0.5])),
           d("Uniform", low=t([-1.0, 0.0]), high=t([2.0, 1.0]))),
    ]
    # Structured same-type pairs.
    cat1, cat2 = t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), t([[0.4, 0.4, 0.2], [0.3, 0.3, 0.4]])
    conc1 = t([[0.5, 1.5, 3.0], [2.0, 2.0, 2.0]])
    conc2 = t([[1.0, 1.0, 1.0], [0.3, 4.0, 0.9]])
    c += [
        kl("kl_categorical_categorical", d("Categorical", probs=cat1), d("Categorical", probs=cat2)),
        kl("kl_categorical_bcast", d("Categorical", probs=cat1[:1]),
           d("Categorical", logits=cat2.log())),
        kl("kl_onehot_onehot", d("OneHotCategorical", probs=cat1),
           d("OneHotCategorical", probs=cat2)),
        kl("kl_dirichlet_dirichlet", d("Dirichlet", concentration=conc1),
           d("Dirichlet", concentration=conc2)),
        kl("kl_dirichlet_f64", d("Dirichlet", concentration=conc1.double()),
           d("Dirichlet", concentration=conc2[:1].double())),
        kl("kl_mvn_mvn", d("MultivariateNormal", loc=t([0.0, 1.0]),
                           covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
           d("MultivariateNormal", loc=t([[1.0, -1.0], [0.0, 0.5]]),
             scale_tril=t([[1.0, 0.0], [0.4, 0.8]]))),
        kl("kl_independent_independent",
           d("IndependentNormal", loc=t([[0.0, 1.0], [2.0, 3.0]]),
             scale=t([[1.0, 2.0], [0.5, 1.0]]), ndims=1),
           d("IndependentNormal", loc=t([[1.0, 0.0], [2.5, 3.0]]),
             scale=t([[2.0, 2.0], [1.0, 0.5]]), ndims=1)),
        # Unregistered among the structured types.
        kl("kl_categorical_onehot_unregistered", d("Categorical", probs=cat1),
           d("OneHotCategorical", probs=cat2)),
        kl("kl_dirichlet_beta_unregistered", d("Dirichlet", concentration=conc1[:, :2]),
           S["Beta"]["a"]),
        kl("kl_mvn_normal_unregistered", d("MultivariateNormal", loc=t([0.0, 1.0]),
                                           covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
           S["Normal"]["a"]),
        kl("kl_independent_normal_unregistered",
           d("IndependentNormal", loc=t([[0.0, 1.0], [2.0, 3.0]]),
             scale=t([[1.0, 2.0], [0.5, 1.0]]), ndims=1), S["Normal"]["a"]),
    ]
    return c
