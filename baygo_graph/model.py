"""Deprecated: the grid and the linear model moved to :mod:`baygo_graph.models`.

Kept for one release; import from :mod:`baygo_graph.models` instead.
"""

import warnings

from .models.grid import Grid, log_normalize, make_grid, pool, pool_into
from .models.linear import batch_statistics, log_likelihood, log_prior, mse_function

__all__ = [
    "Grid",
    "batch_statistics",
    "log_likelihood",
    "log_normalize",
    "log_prior",
    "make_grid",
    "mse_function",
    "pool",
    "pool_into",
]

warnings.warn(
    "baygo_graph.model is deprecated: import from baygo_graph.models",
    DeprecationWarning,
    stacklevel=2,
)
