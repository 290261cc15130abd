"""Connectivity over partitions of the step axis: local processes or a Dask cluster.

A window question needs only the steps of its window. So the windows of a series
are split by their start into ``partitions`` contiguous step ranges, and each
partition's worker gets its range plus the steps its last windows reach into the
next one (an overlap of the window length: ``B`` for the windows of one B, the
``max_b`` bound for the smallest B, docs/design.md). A worker receives only its
slice of the series' compact sorted edge arrays (:class:`StepEdges`), never the whole
series, and answers it with the single-machine code; the caller puts the answers
together into the result the single-machine call returns, window for window.

The workers are local processes (joblib's loky; ``n_jobs`` processes, each with at
most ``cores // n_jobs`` BLAS threads, so processes x threads <= cores) or, with
``scheduler=`` (a ``distributed.Client`` or a scheduler address, the ``dask``
extra), the tasks of a Dask cluster, as the sweeps run.

Examples
--------
>>> import networkx as nx
>>> from baygo_graph.inputs import as_series
>>> s = as_series([nx.DiGraph([(0, 1), (1, 0)])] * 6)
>>> [(p.lo, p.n_steps) for p in split_steps(s, [0, 2, 4], [2, 4, 6], 2)[0]]
[(0, 4), (4, 2)]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .._validate import check_int

__all__ = [
    "StepEdges",
    "check_partitions",
    "check_workers",
    "gather_partitions",
    "map_partitions",
    "split_steps",
]


@dataclass(frozen=True, eq=False)
class StepEdges:
    """The positive off-diagonal edges of the steps ``[lo, lo + n_steps)`` of a series:
    what a partition's worker gets (a series for the window code: ``n_steps``,
    ``n_agents``, ``edges``, ``fixed``; its steps are numbered from 0).

    Attributes
    ----------
    n_steps : int
        Steps in the slice.
    n_agents : int
        Nodes M of the whole series.
    edges : tuple of numpy.ndarray
        ``(ptr, src, dst)`` as :attr:`GraphSeries.edges`, for the slice's steps only.
    lo : int
        The series' step that is the slice's step 0.
    """

    n_steps: int
    n_agents: int
    edges: tuple
    lo: int = 0
    #: Never one W for every step: a fixed series is answered without partitions.
    fixed = None

    @classmethod
    def of(cls, series, lo: int, hi: int) -> StepEdges:
        """The slice of ``series`` (anything with ``edges`` and ``n_agents``) over
        steps ``[lo, hi)``: views of its arrays, so a worker is sent only these."""
        ptr, src, dst = series.edges
        a, b = int(ptr[lo]), int(ptr[hi])
        return cls(hi - lo, series.n_agents, (ptr[lo : hi + 1] - a, src[a:b], dst[a:b]), lo)


def check_partitions(partitions, n_steps: int) -> int | None:
    """``partitions`` checked: None (one machine, no partitions) or an int >= 1,
    capped at ``n_steps``.

    Examples
    --------
    >>> check_partitions(None, 10), check_partitions(4, 10), check_partitions(40, 10)
    (None, 4, 10)
    """
    if partitions is None:
        return None
    return min(check_int("partitions", partitions, minimum=1), n_steps)


def split_steps(series, start, stop, partitions: int):
    """The windows ``[start[n], stop[n])`` split by their start into ``partitions``
    step ranges holding about equal numbers of edges.

    Parameters
    ----------
    series : GraphSeries
    start, stop : array of int
        The windows, by increasing start (``stop`` non-decreasing).
    partitions : int

    Returns
    -------
    pieces : list of StepEdges
        Each non-empty partition's steps: from its first window's start to its last
        window's stop (so it overlaps the next by up to the window length).
    bounds : list of (numpy.ndarray, numpy.ndarray)
        The partition's windows, in the piece's step numbers.
    """
    start, stop = np.asarray(start), np.asarray(stop)
    ptr = series.edges[0]
    # cut steps: equal shares of the edges (a step with no edges costs nothing)
    share = ptr[-1] * np.arange(1, partitions) / partitions
    cuts = np.searchsorted(ptr, share, side="right") - 1
    first = np.searchsorted(start, cuts, side="left")
    at = np.unique(np.concatenate([[0], first, [len(start)]]))
    pieces, bounds = [], []
    for i, j in zip(at[:-1].tolist(), at[1:].tolist(), strict=True):
        lo, hi = int(start[i]), int(stop[i:j].max())
        pieces.append(StepEdges.of(series, lo, hi))
        bounds.append((start[i:j] - lo, stop[i:j] - lo))
    return pieces, bounds


def map_partitions(
    fn: Callable, pieces, args, *, n_jobs: int | None = None, scheduler=None
) -> Iterator[tuple[int, object]]:
    """``(k, fn(pieces[k], args[k]))`` for every partition, as they finish.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled to the workers).
    pieces, args : sequence
        One item per partition.
    n_jobs : int, optional
        Local worker processes (joblib's rule: None or -1 all cores, at most one per
        partition; 1 answers the partitions one after another in this process).
    scheduler : str or distributed.Client, optional
        Run on this Dask cluster instead (``n_jobs`` is then not used).

    Examples
    --------
    >>> sorted(map_partitions(divmod, [7, 9], [4, 4], n_jobs=1))
    [(0, (1, 3)), (1, (2, 1))]
    """
    tasks = list(zip(pieces, args, strict=True))
    if scheduler is not None:
        yield from _dask(fn, tasks, scheduler)
        return
    from joblib import Parallel, cpu_count, delayed, effective_n_jobs, parallel_config

    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or not n_jobs
    ):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    n = max(1, min(effective_n_jobs(-1 if n_jobs is None else int(n_jobs)), len(tasks)))
    if n == 1:
        for k, (piece, arg) in enumerate(tasks):
            yield k, fn(piece, arg)
        return
    # processes x threads <= cores: each worker gets at most cores // n BLAS threads
    with parallel_config(backend="loky", inner_max_num_threads=max(1, cpu_count() // n)):
        parallel = Parallel(n_jobs=n, return_as="generator_unordered")
        results = parallel(
            delayed(_indexed)(fn, k, piece, arg) for k, (piece, arg) in enumerate(tasks)
        )
    try:
        for item in results:  # noqa: UP028 (yield from would close results)
            yield item
    except GeneratorExit:  # stopped early (a verdict found): the other partitions run to
        # their end and their answers are dropped; cancelling them (closing joblib's
        # generator) made loky's manager thread print a KeyError traceback now and then
        for _ in results:
            pass
        raise
    except BaseException:  # Ctrl-C or a failed partition: cancelled at once
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", r".*tasks which were still being processed")
            results.close()
        raise


def _indexed(fn, k, piece, arg):
    return k, fn(piece, arg)


def _dask(fn, tasks, scheduler):
    """``(k, result)`` from a Dask cluster, as the partitions finish; each piece is
    scattered to one worker (not broadcast) and answered there."""
    from .._cluster import dask_client

    with dask_client(scheduler) as client:
        from distributed import as_completed

        futures = {}
        try:
            data = client.scatter([piece for piece, _ in tasks], hash=False)
            futures = {
                client.submit(_indexed, fn, k, piece, arg, pure=False): k
                for k, (piece, (_, arg)) in enumerate(zip(data, tasks, strict=True))
            }
            for fut in as_completed(futures):
                yield fut.result()
        finally:  # stopped early (a verdict found): the other partitions are cancelled
            client.cancel([f for f in futures if not f.done()])


def gather_partitions(fn: Callable, pieces, args, *, n_jobs=None, scheduler=None) -> list:
    """``fn(pieces[k], args[k])`` for every partition, in order (see :func:`map_partitions`).

    Examples
    --------
    >>> gather_partitions(divmod, [7, 9], [4, 4], n_jobs=1)
    [(1, 3), (2, 1)]
    """
    out = [None] * len(pieces)
    for k, result in map_partitions(fn, pieces, args, n_jobs=n_jobs, scheduler=scheduler):
        out[k] = result
    return out


def check_workers(partitions, n_jobs, scheduler) -> None:
    """``n_jobs`` and ``scheduler`` say where partitions run: without ``partitions``
    they have nothing to say (ValueError naming them)."""
    if partitions is None and (n_jobs is not None or scheduler is not None):
        name = "scheduler" if scheduler is not None else "n_jobs"
        value = scheduler if scheduler is not None else n_jobs
        raise ValueError(
            f"{name}={value!r} says where partitions run: give partitions= (the number of "
            "time partitions) too"
        )
