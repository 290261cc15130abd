"""baygo-graph: joint Bayesian learning and information-aware graph optimisation.

The learning loop (:func:`simulate`) yields a :class:`Run`, a time series of
weighted communication digraphs with per-step metrics; :mod:`baygo_graph.analysis`
checks their connectivity and influence, :mod:`baygo_graph.figures` draws them.
"""

__version__ = "0.1.0"

from .data import Dataset, load_bodyfat, paper_split, synthetic_bodyfat  # noqa: E402
from .exceptions import (  # noqa: E402
    DataError,
    GridResolutionWarning,
    NotUniqueError,
    RunFormatError,
)
from .learning import simulate  # noqa: E402
from .run import Run, read_series, write_series  # noqa: E402

__all__ = [
    "DataError",
    "Dataset",
    "GridResolutionWarning",
    "NotUniqueError",
    "Run",
    "RunFormatError",
    "__version__",
    "load_bodyfat",
    "paper_split",
    "read_series",
    "simulate",
    "synthetic_bodyfat",
    "write_series",
]
