"""Experiments: many runs over seeds and parameters, on one task runner.

:func:`compare` runs strategies over paired seeds into a tidy table (or, with
``tidy=False``, a compact :class:`Comparison` of per-run arrays);
:func:`sweep` runs a grid of parameters x strategies x seeds, resumably.
Both run their tasks on :func:`~baygo_graph.experiments.runner.run_tasks`
(spawned seeds, data sent once, warnings captured, joblib or Dask, progress,
incremental results); :mod:`baygo_graph.analysis` reduces what they return.
:func:`load_plugin` imports a plug-in file or module so that every worker knows it.
"""

from ..analysis.comparison import Comparison
from .compare import COLUMNS, compare
from .plugins import definition, load_plugin, loaded_plugins
from .runner import run_tasks, spawn_seeds
from .sweep import PARAMETERS, fingerprint, sweep, task_id

__all__ = [
    "COLUMNS",
    "PARAMETERS",
    "Comparison",
    "compare",
    "definition",
    "fingerprint",
    "load_plugin",
    "loaded_plugins",
    "run_tasks",
    "spawn_seeds",
    "sweep",
    "task_id",
]
