"""The Dask side of the task runner (imported only with a Dask scheduler: needs the
``dask`` extra)."""

from __future__ import annotations

from distributed import WorkerPlugin

from .plugins import import_plugins

__all__ = ["PluginLoader"]


class PluginLoader(WorkerPlugin):
    """Imports the launching process's plug-ins on each worker, also one that joins
    later, before the worker reads a task or the shared data."""

    idempotent = True

    def __init__(self, plugins):
        self.plugins = tuple(plugins)
        self.name = "baygo-plugins-" + "-".join(p.digest for p in self.plugins)

    def setup(self, worker=None):
        import_plugins(self.plugins)
