"""A Dask client for a run: the optional import said in one line, and a client this
process opened closed again (the experiments' runner and the analysis' time
partitions both run on a cluster given by its address or as a ``Client``)."""

from __future__ import annotations

import contextlib

__all__ = ["dask_client"]


@contextlib.contextmanager
def dask_client(scheduler):
    """The ``distributed.Client`` for ``scheduler`` while the block runs.

    ``scheduler`` is a client (used as given, left open) or an address (a client is
    opened for the block and closed after it). Without the ``dask`` extra: an
    ``ImportError`` naming the extra to install.
    """
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - optional extra
        raise ImportError(
            "a Dask scheduler needs the optional extra: pip install 'baygo-graph[dask]'"
        ) from e
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        yield client
    finally:
        if own:
            client.close()
