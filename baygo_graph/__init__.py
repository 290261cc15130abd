"""baygo-graph: joint Bayesian learning and information-aware graph optimisation.

The learning loop (:func:`simulate`) yields a :class:`Run`, a time series of
weighted communication digraphs with per-step metrics; :mod:`baygo_graph.analysis`
checks their connectivity and influence, :mod:`baygo_graph.figures` draws them.
"""

from ._version import __version__
from .data import Dataset, load_bodyfat, paper_split, synthetic_bodyfat
from .exceptions import (
    BayGoError,
    BudgetError,
    DataError,
    GridResolutionWarning,
    NotUniqueError,
    RunFormatError,
)
from .export import write_series
from .io import read_series
from .learning import simulate
from .run import Run

__all__ = [
    "BayGoError",
    "BudgetError",
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
