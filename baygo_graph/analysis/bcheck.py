"""Yes or no: is a graph series B-strongly-connected? Stops at the first failing window.

:func:`~baygo_graph.analysis.b_connectivity` checks and counts every window;
when only the verdict for one B is wanted, :func:`is_b_connected` walks the
windows in order and stops at the first whose union is not strongly connected
(a window where some agent has no in- or no out-edge fails without the
strong-component search). The windows are those of
:mod:`baygo_graph.analysis.windows`, with the same options, answered by the same
:class:`~baygo_graph.analysis.windows.ReachWindow` as
:func:`~baygo_graph.analysis.b_connectivity` (sliding windows: condensed halves,
no edge taken out). With ``partitions=``, the windows are split by their start
into step ranges answered by workers (:mod:`baygo_graph.analysis.partitions`), and
the verdict is no at the first partition that says no.
"""

from __future__ import annotations

import contextlib

from .._validate import check_int
from ..inputs import series_input
from .connectivity import _Heard
from .partitions import check_partitions, check_workers, map_partitions, split_steps
from .windows import ReachWindow, check_window_options, n_strong_components, window_bounds

__all__ = ["is_b_connected"]


@series_input
def is_b_connected(
    graphs,
    B: int,
    *,
    windows: str = "aligned",
    incomplete: str = "drop",
    partitions: int | None = None,
    n_jobs: int | None = None,
    scheduler=None,
) -> bool:
    """Whether every window union of length ``B`` is strongly connected.

    The same verdict as ``b_connectivity(graphs, B, ...).holds``, found by
    stopping at the first window that is not strongly connected.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`~baygo_graph.inputs.as_series`.
    B : int
        Window length, ``1 <= B <= T``.
    windows : {"aligned", "sliding"}, default "aligned"
        Aligned windows ``[nB, (n+1)B)`` or every window ``[s, s+B)``.
    incomplete : {"drop", "keep"}, default "drop"
        Leave out the windows that reach outside steps ``0 .. T-1``, or keep
        them cut at the ends of the series.
    partitions : int, optional
        Check the windows over this many partitions of the steps (split by the
        windows' start, each overlapping the next by ``B`` steps), each on a
        worker that gets only its steps; the same verdict. Default: one
        machine, no partitions.
    n_jobs : int, optional
        With ``partitions``: local worker processes (joblib's rule; default all
        cores, at most one per partition; 1 checks them in this process).
    scheduler : str or distributed.Client, optional
        With ``partitions``: run them on this Dask cluster instead (the ``dask``
        extra).

    Returns
    -------
    bool

    Examples
    --------
    >>> import networkx as nx
    >>> half1, half2 = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> half2.add_node(1)
    >>> is_b_connected([half1, half2, half1, half2], 2), is_b_connected([half1, half2], 1)
    (True, False)
    >>> is_b_connected([half1, half2] * 4, 2, windows="sliding", partitions=2, n_jobs=1)
    True
    """
    s = graphs
    check_window_options(windows, incomplete)
    B = check_int("B", B, minimum=1, maximum=s.n_steps)
    partitions = check_partitions(partitions, s.n_steps)
    check_workers(partitions, n_jobs, scheduler)
    if s.fixed is not None:
        return n_strong_components(*s.window_edges(0, 1), s.n_agents) == 1
    if s.n_agents == 1:
        return True
    start, stop = window_bounds(s.n_steps, B, windows=windows, incomplete=incomplete)
    if partitions is None:
        return _all_connected(s, (start, stop))
    pieces, bounds = split_steps(s, start, stop, partitions)
    parts = map_partitions(_all_connected, pieces, bounds, n_jobs=n_jobs, scheduler=scheduler)
    with contextlib.closing(parts):  # the first no ends it: the rest are cancelled
        return all(ok for _, ok in parts)


def _all_connected(s, bounds) -> bool:
    """Whether every window ``bounds = (start, stop)`` of ``s`` (a series or a
    partition's :class:`~baygo_graph.analysis.partitions.StepEdges`) is strongly
    connected, stopping at the first that is not."""
    heard, union = _Heard(s), ReachWindow(s)
    for a, b in zip(bounds[0].tolist(), bounds[1].tolist(), strict=True):
        if not heard.everyone(a, b) or union.move(a, b).n_components() != 1:
            return False
    return True
