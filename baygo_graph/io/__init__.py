"""Files: atomic writes, the run file (``.npz``), graph series files for other tools."""

from . import atomic, npz, series_files
from .atomic import *  # noqa: F403
from .npz import *  # noqa: F403
from .series_files import *  # noqa: F403

__all__ = sorted({*atomic.__all__, *npz.__all__, *series_files.__all__})


def __getattr__(name: str):
    """The file modules not imported above, imported when first named:
    ``baygo_graph.io.results.load_results(path)`` works as pasted after ``import baygo_graph``."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":  # a module of ours that failed inside: say so
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
