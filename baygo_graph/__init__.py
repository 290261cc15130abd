"""baygo-graph: joint Bayesian learning and information-aware graph optimisation.

The learning loop (:func:`simulate`) yields a :class:`Run`, a time series of
weighted communication digraphs with per-step metrics; :mod:`baygo_graph.analysis`
checks their connectivity and influence, :mod:`baygo_graph.figures` draws them.

The top level holds what a user needs first: :func:`simulate` (and
:func:`simulate_seeds`, several seeds of one configuration in one loop) and :class:`Run`
(with :func:`load_runs`), the data (:class:`Dataset`, :func:`load_bodyfat`,
:func:`synthetic_bodyfat`, :func:`paper_split`), any temporal network
as a series (:func:`as_series`, the one door in) and series files
(:func:`read_series`, :func:`write_series`) and the package's errors and warnings.
The rest is in the subpackages: :mod:`.models` and :mod:`.strategies` (each with a
``register`` for your own), :mod:`.experiments` (``compare``, ``sweep``),
:mod:`.analysis`, :mod:`.figures`, :mod:`.io`, :mod:`.reproduce`, :mod:`.defaults`.
"""

from . import _interrupt  # noqa: F401  (first: a Ctrl-C of the baygo script while importing)
from ._version import __version__
from .data import Dataset, load_bodyfat, paper_split, synthetic_bodyfat
from .exceptions import (
    BayGoError,
    BudgetError,
    DataError,
    GridResolutionWarning,
    NotUniqueError,
    RunFormatError,
    SettingError,
)
from .export import read_series, write_series
from .inputs import as_series
from .learning import simulate, simulate_seeds
from .run import Run, load_runs


def _keep_old_module_paths() -> None:
    """``baygo_graph.labelled``, ``.splits``, ``.datasets`` and ``.labelled_datasets``
    (module paths of earlier versions, used in user code) name the modules of
    :mod:`baygo_graph.data` they moved to."""
    import sys

    from .data import datasets, labelled, labelled_datasets, splits

    for module in (datasets, labelled, labelled_datasets, splits):
        sys.modules.setdefault(f"{__name__}.{module.__name__.rsplit('.', 1)[1]}", module)


_keep_old_module_paths()

__all__ = [
    "BayGoError",
    "BudgetError",
    "SettingError",
    "DataError",
    "Dataset",
    "GridResolutionWarning",
    "NotUniqueError",
    "Run",
    "RunFormatError",
    "__version__",
    "as_series",
    "load_bodyfat",
    "load_runs",
    "paper_split",
    "read_series",
    "simulate",
    "simulate_seeds",
    "synthetic_bodyfat",
    "write_series",
]
