"""The gamma group: Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial, Geometric
(samplers of every branch: small and large concentrations, rates and counts) and their KL
rules."""
import torch

t = torch.tensor
f64 = torch.float64
nan = float("nan")


def cases():
    c = []
    # ---------------------------------------------------------------- Gamma
    c += [
        {"id": "gamma_scalar", "dist": "Gamma", "params": {"concentration": 2.0, "rate": 1.5},
         "seed": 0, "sample_shape": [5], "value": t([0.5, 1.0, 3.0]),
         "q": t([0.5])},
        {"id": "gamma_batch", "dist": "Gamma",
         "params": {"concentration": t([0.3, 1.0, 4.5, 50.0]), "rate": t([1.0, 2.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [3], "value": t([0.2, 1.5, 7.0, 16.0]), "grad": True},
        {"id": "gamma_small_conc", "dist": "Gamma",
         "params": {"concentration": t([0.05, 0.5, 0.9]), "rate": t([1.0, 1.0, 1.0])},
         "seed": 11, "sample_shape": [4], "value": t([0.01, 0.3, 2.0]), "grad": True},
        {"id": "gamma_f64_bcast", "dist": "Gamma",
         "params": {"concentration": t([[0.7], [3.0], [12.0]], dtype=f64),
                    "rate": t([0.5, 2.0], dtype=f64)},
         "seed": 5, "sample_shape": [2], "value": t([0.4, 9.0], dtype=f64), "grad": True},
        {"id": "gamma_expand", "dist": "Gamma",
         "params": {"concentration": t([2.0]), "rate": t([1.0])}, "expand": [3, 2],
         "seed": 2, "sample_shape": [2], "value": t([1.0])},
        {"id": "gamma_bad_conc", "dist": "Gamma",
         "params": {"concentration": t([1.0, -1.0]), "rate": t([1.0, 1.0])}},
        {"id": "gamma_bad_rate", "dist": "Gamma",
         "params": {"concentration": t([1.0]), "rate": t([0.0])}},
        {"id": "gamma_value_neg", "dist": "Gamma",
         "params": {"concentration": t([1.0]), "rate": t([1.0])}, "value": t([-0.5])},
        {"id": "gamma_novalidate", "dist": "Gamma",
         "params": {"concentration": t([1.5]), "rate": t([1.0])}, "validate": False,
         "value": t([-0.5, 0.0, 2.0])},
    ]
    # ---------------------------------------------------------------- Chi2
    c += [
        {"id": "chi2_scalar", "dist": "Chi2", "params": {"df": 3.0}, "seed": 0,
         "sample_shape": [4], "value": t([0.5, 2.0, 6.0])},
        {"id": "chi2_batch", "dist": "Chi2", "params": {"df": t([0.5, 1.0, 4.0, 30.0])},
         "seed": 4, "sample_shape": [2], "value": t([0.1, 1.0, 3.0, 25.0]), "grad": True},
        {"id": "chi2_f64_expand", "dist": "Chi2", "params": {"df": t([2.5], dtype=f64)},
         "expand": [3], "seed": 9, "value": t([1.0, 2.0, 3.0], dtype=f64)},
        {"id": "chi2_bad_df", "dist": "Chi2", "params": {"df": t([1.0, -2.0])}},
    ]
    # ---------------------------------------------------------------- Dirichlet
    c += [
        {"id": "dirichlet_vec", "dist": "Dirichlet",
         "params": {"concentration": t([0.5, 1.5, 3.0])}, "seed": 0, "sample_shape": [4],
         "value": t([0.2, 0.3, 0.5]), "grad": True},
        {"id": "dirichlet_batch", "dist": "Dirichlet",
         "params": {"concentration": t([[0.1, 0.2], [2.0, 8.0], [10.0, 20.0], [0.7, 0.9]])},
         "seed": 6, "sample_shape": [3], "value": t([[0.4, 0.6]]), "grad": True},
        {"id": "dirichlet_f64", "dist": "Dirichlet",
         "params": {"concentration": t([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]], dtype=f64)},
         "seed": 8, "sample_shape": [2], "value": t([0.1, 0.2, 0.7], dtype=f64),
         "grad": True},
        {"id": "dirichlet_mode_mask", "dist": "Dirichlet",
         "params": {"concentration": t([[0.5, 0.8, 0.3], [2.0, 3.0, 0.5]])}},
        {"id": "dirichlet_expand", "dist": "Dirichlet",
         "params": {"concentration": t([1.0, 2.0])}, "expand": [3], "seed": 1,
         "value": t([0.5, 0.5])},
        {"id": "dirichlet_0d", "dist": "Dirichlet", "params": {"concentration": t(1.0)}},
        {"id": "dirichlet_bad", "dist": "Dirichlet",
         "params": {"concentration": t([[1.0, 2.0], [1.0, -1.0]])}},
        {"id": "dirichlet_value_off_simplex", "dist": "Dirichlet",
         "params": {"concentration": t([1.0, 2.0])}, "value": t([0.5, 0.6])},
        {"id": "dirichlet_value_event_shape", "dist": "Dirichlet",
         "params": {"concentration": t([1.0, 2.0])}, "value": t([0.2, 0.3, 0.5])},
    ]
    # ---------------------------------------------------------------- Beta
    c += [
        {"id": "beta_numbers", "dist": "Beta",
         "params": {"concentration1": 2.0, "concentration0": 3.0}, "seed": 0,
         "sample_shape": [5], "value": t([0.1, 0.5, 0.9])},
        {"id": "beta_batch", "dist": "Beta",
         "params": {"concentration1": t([0.3, 1.0, 7.0, 40.0]),
                    "concentration0": t([0.6, 1.0, 9.0, 20.0])},
         "seed": 2, "sample_shape": [3], "value": t([0.05, 0.5, 0.45, 0.7]), "grad": True},
        {"id": "beta_f64_bcast", "dist": "Beta",
         "params": {"concentration1": t([[0.5], [4.0]], dtype=f64),
                    "concentration0": t([1.5, 2.5, 0.8], dtype=f64)},
         "seed": 12, "value": t([0.3, 0.6, 0.99], dtype=f64), "grad": True},
        {"id": "beta_expand", "dist": "Beta",
         "params": {"concentration1": t([2.0]), "concentration0": t([2.0])}, "expand": [2, 3],
         "seed": 3, "value": t([0.25])},
        {"id": "beta_bad", "dist": "Beta",
         "params": {"concentration1": t([1.0, -2.0]), "concentration0": 1.0}},
        {"id": "beta_value_out", "dist": "Beta",
         "params": {"concentration1": t([1.0]), "concentration0": t([1.0])},
         "value": t([1.5])},
    ]
    # ---------------------------------------------------------------- StudentT
    c += [
        {"id": "studentt_scalar", "dist": "StudentT", "params": {"df": 3.0},
         "seed": 0, "sample_shape": [5], "value": t([-1.0, 0.0, 2.5])},
        {"id": "studentt_batch", "dist": "StudentT",
         "params": {"df": t([0.5, 1.5, 2.0, 5.0, 30.0]), "loc": t([0.0, 1.0, -1.0, 2.0, 0.5]),
                    "scale": t([1.0, 2.0, 0.5, 1.5, 3.0])},
         "seed": 7, "sample_shape": [2], "value": t([0.3, -1.0, 2.0, 4.0, 0.0]), "grad": True},
        {"id": "studentt_f64", "dist": "StudentT",
         "params": {"df": t([4.0, 9.0], dtype=f64), "loc": 1.0, "scale": 2.0},
         "seed": 13, "sample_shape": [3], "value": t([0.0, 5.0], dtype=f64), "grad": True},
        {"id": "studentt_expand", "dist": "StudentT",
         "params": {"df": t([6.0]), "loc": t([0.0]), "scale": t([1.0])}, "expand": [4],
         "seed": 5, "value": t([1.0])},
        {"id": "studentt_bad_df", "dist": "StudentT", "params": {"df": t([1.0, -1.0])}},
        {"id": "studentt_bad_scale", "dist": "StudentT",
         "params": {"df": t([1.0, 2.0]), "loc": 0.0, "scale": t([1.0, -1.0])}},
    ]
    # ---------------------------------------------------------------- Poisson
    c += [
        {"id": "poisson_scalar", "dist": "Poisson", "params": {"rate": 4.0}, "seed": 0,
         "sample_shape": [6], "value": t([0.0, 3.0, 10.0])},
        {"id": "poisson_batch", "dist": "Poisson",
         "params": {"rate": t([0.0, 0.5, 3.0, 12.0, 150.0])}, "seed": 5, "sample_shape": [3],
         "value": t([0.0, 1.0, 2.0, 11.0, 140.0]), "grad": True},
        {"id": "poisson_f64_expand", "dist": "Poisson", "params": {"rate": t([2.5], dtype=f64)},
         "expand": [2, 2], "seed": 3, "value": t([1.0, 4.0], dtype=f64)},
        {"id": "poisson_bad", "dist": "Poisson", "params": {"rate": t([1.0, -1.0])}},
        {"id": "poisson_value_frac", "dist": "Poisson", "params": {"rate": t([1.0])},
         "value": t([1.5])},
    ]
    # ---------------------------------------------------------------- Binomial
    c += [
        {"id": "binomial_probs", "dist": "Binomial",
         "params": {"total_count": 10, "probs": t([0.0, 0.2, 0.5, 0.9, 1.0])},
         "seed": 0, "sample_shape": [3], "value": t([0.0, 2.0, 5.0, 9.0, 10.0]),
         "enumerate": True, "grad": True},
        {"id": "binomial_logits", "dist": "Binomial",
         "params": {"total_count": t([5.0, 5.0]), "logits": t([-1.0, 2.0])},
         "seed": 1, "sample_shape": [4], "value": t([1.0, 4.0]), "enumerate": True,
         "grad": True},
        {"id": "binomial_btrs", "dist": "Binomial",
         "params": {"total_count": t([100.0, 1000.0, 60.0, 200.0]),
                    "probs": t([0.3, 0.5, 0.8, 0.95])},
         "seed": 4, "sample_shape": [5], "value": t([30.0, 500.0, 48.0, 190.0])},
        {"id": "binomial_f64", "dist": "Binomial",
         "params": {"total_count": t([[20.0], [400.0]], dtype=f64),
                    "probs": t([0.1, 0.6], dtype=f64)},
         "seed": 6, "sample_shape": [2], "value": t([2.0, 12.0], dtype=f64)},
        {"id": "binomial_inhomogeneous", "dist": "Binomial",
         "params": {"total_count": t([3.0, 4.0]), "probs": t([0.5, 0.5])}, "enumerate": True},
        {"id": "binomial_expand", "dist": "Binomial",
         "params": {"total_count": t([4.0]), "probs": t([0.25])}, "expand": [2, 3],
         "seed": 2, "value": t([1.0]), "enumerate": True},
        {"id": "binomial_both", "dist": "Binomial",
         "params": {"total_count": 3, "probs": t([0.5]), "logits": t([0.0])}},
        {"id": "binomial_bad_count", "dist": "Binomial",
         "params": {"total_count": t([10.0, 5.5]), "probs": t([0.2, 0.3])}},
        {"id": "binomial_bad_probs", "dist": "Binomial",
         "params": {"total_count": 4, "probs": t([0.2, 1.3])}},
        {"id": "binomial_value_out", "dist": "Binomial",
         "params": {"total_count": 4, "probs": t([0.2])}, "value": t([5.0])},
    ]
    # ---------------------------------------------------------------- Geometric
    c += [
        {"id": "geometric_probs", "dist": "Geometric",
         "params": {"probs": t([0.05, 0.3, 0.9, 1.0])}, "seed": 0, "sample_shape": [3],
         "value": t([0.0, 2.0, 1.0, 0.0]), "grad": True},
        {"id": "geometric_logits", "dist": "Geometric", "params": {"logits": 0.5},
         "seed": 3, "sample_shape": [4], "value": t([0.0, 1.0, 5.0])},
        {"id": "geometric_f64_expand", "dist": "Geometric",
         "params": {"probs": t([0.4], dtype=f64)}, "expand": [3], "seed": 8,
         "value": t([3.0], dtype=f64), "grad": True},
        {"id": "geometric_zero", "dist": "Geometric", "params": {"probs": t([0.0, 0.3])}},
        {"id": "geometric_above_one", "dist": "Geometric", "params": {"probs": t([0.0, 1.3])}},
        {"id": "geometric_none", "dist": "Geometric", "params": {}},
        {"id": "geometric_value_neg", "dist": "Geometric", "params": {"probs": t([0.5])},
         "value": t([-1.0])},
    ]
    # ---------------------------------------------------------------- KL
    g1 = {"dist": "Gamma", "params": {"concentration": t([0.5, 2.0, 5.0]),
                                      "rate": t([1.0, 0.5, 3.0])}}
    g2 = {"dist": "Gamma", "params": {"concentration": t([1.5, 2.5, 0.7]),
                                      "rate": t([2.0, 1.0, 0.4])}}
    chi = {"dist": "Chi2", "params": {"df": t([1.0, 3.0, 8.0])}}
    b1 = {"dist": "Beta", "params": {"concentration1": t([0.5, 2.0, 5.0]),
                                     "concentration0": t([1.0, 3.0, 0.7])}}
    b2 = {"dist": "Beta", "params": {"concentration1": t([1.5, 0.8, 4.0]),
                                     "concentration0": t([2.0, 1.0, 6.0])}}
    d1 = {"dist": "Dirichlet", "params": {"concentration": t([[0.5, 1.0, 2.0], [3.0, 1.0, 0.2]])}}
    d2 = {"dist": "Dirichlet", "params": {"concentration": t([[1.0, 1.0, 1.0], [2.0, 5.0, 0.5]])}}
    p1 = {"dist": "Poisson", "params": {"rate": t([0.5, 3.0, 20.0])}}
    p2 = {"dist": "Poisson", "params": {"rate": t([1.0, 2.0, 25.0])}}
    bi1 = {"dist": "Binomial", "params": {"total_count": t([10.0, 10.0, 12.0]),
                                          "probs": t([0.2, 0.5, 0.7])}}
    bi2 = {"dist": "Binomial", "params": {"total_count": t([10.0, 10.0, 10.0]),
                                          "logits": t([0.3, -1.0, 2.0])}}
    bi3 = {"dist": "Binomial", "params": {"total_count": t([10.0, 20.0, 10.0]),
                                          "probs": t([0.5, 0.5, 0.5])}}
    ge1 = {"dist": "Geometric", "params": {"probs": t([0.2, 0.5, 0.9])}}
    ge2 = {"dist": "Geometric", "params": {"logits": t([0.0, -1.0, 1.5])}}
    n1 = {"dist": "Normal", "params": {"loc": t([0.0, 1.0, -2.0]), "scale": t([1.0, 0.5, 3.0])}}
    st = {"dist": "StudentT", "params": {"df": t([3.0, 4.0, 5.0])}}
    c += [
        {"id": "kl_gamma_gamma", "kl": [g1, g2]},
        {"id": "kl_chi2_gamma", "kl": [chi, g2]},
        {"id": "kl_gamma_chi2", "kl": [g1, chi]},
        {"id": "kl_beta_beta", "kl": [b1, b2]},
        {"id": "kl_dirichlet_dirichlet", "kl": [d1, d2]},
        {"id": "kl_poisson_poisson", "kl": [p1, p2]},
        {"id": "kl_binomial_binomial", "kl": [bi1, bi2]},
        {"id": "kl_binomial_q_larger", "kl": [bi1, bi3]},
        {"id": "kl_geometric_geometric", "kl": [ge1, ge2]},
        {"id": "kl_beta_gamma", "kl": [b1, g2]},
        {"id": "kl_beta_normal", "kl": [b1, n1]},
        {"id": "kl_gamma_normal", "kl": [g1, n1]},
        {"id": "kl_chi2_normal", "kl": [chi, n1]},
        {"id": "kl_gamma_beta", "kl": [g1, b1]},
        {"id": "kl_normal_beta", "kl": [n1, b1]},
        {"id": "kl_normal_gamma", "kl": [n1, g1]},
        {"id": "kl_poisson_binomial", "kl": [p1, bi1]},
        {"id": "kl_poisson_gamma_bregman", "kl": [p1, g1]},
        {"id": "kl_studentt_normal", "kl": [st, n1]},
        {"id": "kl_normal_studentt", "kl": [n1, st]},
    ]
    return c
