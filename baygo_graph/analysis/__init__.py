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
from .centrality import __all__ as _centrality_all
from .comparison import Comparison  # noqa: F401 (listed in __all__ below)
from .connectivity import *  # noqa: F403
from .connectivity import __all__ as _connectivity_all
from .horizon import *  # noqa: F403
from .horizon import __all__ as _horizon_all
from .perron import *  # noqa: F403
from .perron import __all__ as _perron_all
from .report import *  # noqa: F403
from .report import __all__ as _report_all
from .stats import *  # noqa: F403
from .stats import __all__ as _stats_all
from .tables import *  # noqa: F403
from .tables import __all__ as _tables_all
from .theorem import *  # noqa: F403
from .theorem import __all__ as _theorem_all
from .topology import *  # noqa: F403
from .topology import __all__ as _topology_all
from .weights import *  # noqa: F403
from .weights import __all__ as _weights_all
from .window_influence import *  # noqa: F403
from .window_influence import __all__ as _window_influence_all
from .windows import *  # noqa: F403
from .windows import __all__ as _windows_all

__all__ = sorted(
    {
        *_centrality_all,
        *_connectivity_all,
        *_report_all,
        *_stats_all,
        *_tables_all,
        *_horizon_all,
        *_theorem_all,
        *_topology_all,
        *_perron_all,
        *_weights_all,
        *_windows_all,
        *_window_influence_all,
        "Comparison",
        "is_b_connected",
    }
)
