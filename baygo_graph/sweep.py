"""Deprecated: parameter sweeps moved to :mod:`baygo_graph.experiments` (removed in 0.3).

``from baygo_graph.experiments import sweep, task_id, PARAMETERS``.
"""

import warnings

from .experiments.sweep import PARAMETERS, sweep, task_id

__all__ = ["PARAMETERS", "sweep", "task_id"]

warnings.warn(
    "baygo_graph.sweep is deprecated and will be removed in 0.3: use baygo_graph.experiments",
    DeprecationWarning,
    stacklevel=2,
)
