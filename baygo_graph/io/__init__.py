"""Files: atomic writes, the run file (``.npz``), graph series files for other tools."""

from . import atomic, npz, series_files
from .atomic import *  # noqa: F403
from .npz import *  # noqa: F403
from .series_files import *  # noqa: F403

__all__ = sorted({*atomic.__all__, *npz.__all__, *series_files.__all__})

#: The file modules not imported above, imported when first named:
#: ``baygo_graph.io.results.load_results(path)`` works as pasted after ``import baygo_graph``.
_SUBMODULES = frozenset(
    {"archives", "comparison_csv", "edgelist", "filekind", "foreign", "gexf", "results",
     "runs", "safenpz", "safexml", "times"}
)  # fmt: skip


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
