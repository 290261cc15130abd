"""The KL kernels of BayGo's graph step, re-exported: they live in :mod:`baygo_graph.models.kl`
(a divergence belongs to the model's posterior representation)."""

from ..models.kl import dense_argmin, kl_choices, kl_matrix, segment_argmin

__all__ = ["dense_argmin", "kl_choices", "kl_matrix", "segment_argmin"]
