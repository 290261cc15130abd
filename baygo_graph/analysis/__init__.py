"""Analysis of graph series: connectivity, influence and strategy comparisons.

Every function takes a :class:`~baygo_graph.Run` or a sequence of
``networkx.DiGraph`` on the same node set, and returns data (arrays, frozen
dataclasses, DataFrames); :mod:`baygo_graph.figures` draws what these return.
"""

from .centrality import *  # noqa: F403
from .compare import *  # noqa: F403
from .connectivity import *  # noqa: F403
from .report import *  # noqa: F403
from .topology import *  # noqa: F403
