"""Normal: the reference distribution of the core (trait, validation, repr, shapes)."""
import torch

t = torch.tensor


def cases():
    return [
        {"id": "normal_scalar", "dist": "Normal", "params": {"loc": 0.0, "scale": 1.0},
         "seed": 0, "sample_shape": [5], "value": t([-1.0, 0.0, 2.5]),
         "q": t([0.1, 0.5, 0.975])},
        {"id": "normal_batch", "dist": "Normal",
         "params": {"loc": t([0.0, 1.0, -2.0]), "scale": t([1.0, 0.5, 3.0])},
         "seed": 3, "sample_shape": [4, 2], "value": t([[0.3, 1.2, -1.0]]),
         "q": t([0.2, 0.6, 0.9]), "grad": True},
        {"id": "normal_bcast", "dist": "Normal",
         "params": {"loc": t([[0.0], [1.0]], dtype=torch.float64), "scale": t([1.0, 2.0, 4.0],
                                                                              dtype=torch.float64)},
         "seed": 7, "sample_shape": [3], "value": t(0.5, dtype=torch.float64), "grad": True},
        {"id": "normal_expand", "dist": "Normal", "params": {"loc": t([0.5]), "scale": t([2.0])},
         "expand": [3, 1], "seed": 1, "sample_shape": [2], "value": t([1.0])},
        {"id": "normal_bad_scale", "dist": "Normal", "params": {"loc": t([0.0, 1.0]),
                                                                "scale": t([1.0, -1.0])}},
        {"id": "normal_nan_loc", "dist": "Normal", "params": {"loc": t([float("nan")]),
                                                              "scale": t([1.0])}},
        {"id": "normal_novalidate", "dist": "Normal", "params": {"loc": t([0.0]),
                                                                 "scale": t([-1.0])},
         "validate": False, "value": t([0.5])},
        {"id": "normal_bad_value_shape", "dist": "Normal",
         "params": {"loc": t([0.0, 1.0]), "scale": t([1.0, 1.0])}, "value": t([1.0, 2.0, 3.0])},
        {"id": "normal_value_nan", "dist": "Normal", "params": {"loc": t([0.0]),
                                                                "scale": t([1.0])},
         "value": t([float("nan")])},
    ]
