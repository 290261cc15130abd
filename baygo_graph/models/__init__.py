"""Posterior models of the BayGo loop.

:mod:`baygo_graph.models.exact` holds the exact conjugate-Gaussian model: closed-form
updates, KL and pooling on structure-of-arrays state, no grid.
"""

from .exact import (
    ExactState,
    exact_choices,
    exact_metrics,
    exact_pool,
    exact_prior,
    exact_update,
    gaussian_kl_edges,
    prediction_mse,
)
from .segment import segment_argmax

__all__ = [
    "ExactState",
    "exact_choices",
    "exact_metrics",
    "exact_pool",
    "exact_prior",
    "exact_update",
    "gaussian_kl_edges",
    "prediction_mse",
    "segment_argmax",
]
