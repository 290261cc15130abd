# ruff: noqa: F405 (the names below come from the star imports)
"""Analysis of graph series and comparison tables: pure functions returning data.

Connectivity, influence and topology take a :class:`~baygo_graph.Run` or a
sequence of ``networkx.DiGraph`` on the same node set; :mod:`.stats` reduces
the tidy tables of :func:`baygo_graph.experiments.compare` (t-intervals, seed
bands, summaries, paired differences). Everything returns arrays, frozen
dataclasses or DataFrames; :mod:`baygo_graph.figures` draws what these return.
Running simulations lives in :mod:`baygo_graph.experiments`; files are read and
written by :mod:`baygo_graph.io`. This package imports nothing above it in the
layer order (see the architecture section of ``docs/extending.md``).
"""

from .bcheck import is_b_connected  # noqa: F401 (listed in __all__ below)
from .centrality import *  # noqa: F403
from .comparison import Comparison  # noqa: F401 (listed in __all__ below)
from .connectivity import *  # noqa: F403
from .horizon import *  # noqa: F403
from .perron import *  # noqa: F403
from .report import *  # noqa: F403
from .stats import *  # noqa: F403
from .tables import *  # noqa: F403
from .theorem import *  # noqa: F403
from .topology import *  # noqa: F403
from .weights import *  # noqa: F403
from .window_influence import *  # noqa: F403
from .windows import *  # noqa: F403

#: What a user calls: the analysis functions and their result objects. The kernels
#: (perron_vector, window_influence, n_strong_components, table helpers, ...) stay
#: importable from this package and from their modules, but are not listed here.
__all__ = [
    # connectivity
    "BConnectivity",
    "BCoverage",
    "b_connectivity",
    "b_coverage",
    "is_b_connected",
    "smallest_b",
    "strongly_connected_steps",
    "time_to_connectivity",
    "window_union",
    # influence
    "ClassInfluence",
    "InfluenceSeries",
    "NonUniqueWindows",
    "class_influence",
    "closed_classes",
    "damped_influence",
    "influence",
    "influence_order",
    "influence_rank",
    "influence_series",
    "listening_graph",
    "nonunique_windows",
    "reference_influence",
    "weight_matrix",
    "window_matrix",
    # topology
    "chosen_counts",
    "degree_distribution",
    "degrees",
    "listen_counts",
    "listener_fraction",
    # one series, many runs
    "AnalysisReport",
    "analysis_report",
    "analysis_table",
    "horizon_table",
    "summarize_analysis",
    # comparison tables and the theorem
    "Comparison",
    "array_band",
    "final_mse",
    "paired_difference",
    "seed_bands",
    "summarize",
    "t_interval",
    "TheoremCheck",
    "theorem_check",
]
