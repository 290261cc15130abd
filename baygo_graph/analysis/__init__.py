"""Analysis of graph series and comparison tables: pure functions returning data.

Connectivity, influence and topology take a :class:`~baygo_graph.Run` or a
sequence of ``networkx.DiGraph`` on the same node set; :mod:`.stats` reduces
the tidy tables of :func:`baygo_graph.experiments.compare` (t-intervals, seed
bands, summaries, paired differences). Everything returns arrays, frozen
dataclasses or DataFrames; :mod:`baygo_graph.figures` draws what these return.
Running simulations lives in :mod:`baygo_graph.experiments`.
"""

import warnings as _warnings

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


def compare(*args, **kwargs):
    """Deprecated alias of :func:`baygo_graph.experiments.compare` (removed in 0.3).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = compare(["cen"], seeds=1, steps=1, agents=2, grid=5, n_jobs=1,
    ...                 progress=False)
    >>> w[0].category.__name__
    'DeprecationWarning'
    """
    _warnings.warn(
        "baygo_graph.analysis.compare is deprecated and will be removed in 0.3: use "
        "baygo_graph.experiments.compare",
        DeprecationWarning,
        stacklevel=2,
    )
    from ..experiments import compare as _compare

    return _compare(*args, **kwargs)


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
        "compare",
        "Comparison",
        "is_b_connected",
    }
)
