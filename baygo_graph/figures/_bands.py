"""The bands the figures draw, computed in :mod:`baygo_graph.analysis.stats`.

:mod:`baygo_graph.figures` does no statistics of its own: the per-step mean over
seeds and its Student-t interval come from :func:`~baygo_graph.analysis.stats.seed_bands`
(tidy tables or :class:`~baygo_graph.analysis.Comparison`) and
:func:`~baygo_graph.analysis.stats.array_band` (arrays). The ``table_*``
helpers of :mod:`~baygo_graph.analysis.tables` read the shape of either kind of
comparison table.
"""

from __future__ import annotations

from ..analysis.stats import GROUPS, array_band, seed_bands
from ..analysis.tables import table_seeds, table_steps, table_strategies

__all__ = ["GROUPS", "array_band", "seed_bands", "table_seeds", "table_steps", "table_strategies"]
