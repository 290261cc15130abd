"""B-strong connectivity of graph series: which windows are strongly connected, smallest B.

Inputs, node order, the window vocabulary (``windows="aligned"``/``"sliding"``,
``incomplete="drop"``/``"keep"``, half-open windows ``[start, stop)``) and the
missing-value convention are those of :mod:`baygo_graph.analysis.windows`:
every window ``[start, stop)`` holds steps ``start .. stop-1``; a float result
that is undefined is NaN, "no such B / step" is None as a Python scalar and
``-1`` in the int array of :func:`time_to_connectivity`.

An edge counts when its weight is positive (an edge of weight 0 carries no
information); self-loops never matter for connectivity. A graph with a single
node is strongly connected.

How it is computed
------------------
A window's strong components are those of its *condensation*
(:class:`~baygo_graph.analysis.windows.Reach`: each node's strong component and
the distinct edges between components), and the condensation of a union is
condensed from those of its parts. So overlapping windows
(:class:`~baygo_graph.analysis.windows.ReachWindow`: sliding windows, the two
pointers below) are answered without taking edges out: the window is a
condensed suffix, a condensed prefix and a few raw steps, one
``scipy.sparse.csgraph.connected_components(connection="strong")`` call on
O(M + edges read) entries; a window seen once (aligned windows, the tail, the
union of all steps) is condensed from its raw edges in one call. A series with
one W for every step (``series.fixed``) is checked once. A step without an edge
(its W is the identity) changes no union: windows that hold the same active steps
(:func:`~baygo_graph.analysis.windows.window_groups`) are answered once, so a long
sparse span costs its active steps, not its length.
:func:`time_to_connectivity` runs two pointers over the active steps (``O(T)`` window
questions at most), skipping the component search whenever some agent has no in- or
out-edge in the window (kept as per-agent edge counts, updated step by step).
:func:`smallest_b` derives both window kinds, the tail and whether the whole
union is strongly connected from it: window ``[s, s+B)`` is strongly connected
iff ``1 <= time_to_connectivity[s] <= B``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import networkx as nx  # noqa: F401  (used by the doctests)
import numpy as np

from .._validate import check_int
from ..inputs import as_series, series_input
from ..series import GraphSeries
from .partitions import (
    StepEdges,
    check_partitions,
    check_workers,
    gather_partitions,
    split_steps,
)
from .windows import (
    ReachWindow,
    active_steps,
    check_window_options,
    condense,
    n_strong_components,
    window_bounds,
    window_components,
    window_groups,
    window_union,
)

__all__ = [
    "BConnectivity",
    "BCoverage",
    "b_coverage",
    "GraphSeries",
    "as_series",
    "b_connectivity",
    "smallest_b",
    "strongly_connected_steps",
    "time_to_connectivity",
    "window_union",
]


# -- results ---------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BConnectivity:
    """Result of :func:`b_connectivity`.

    Attributes
    ----------
    B : int
        Window length.
    windows : {"aligned", "sliding"}
    incomplete : {"drop", "keep"}
    start, stop : numpy.ndarray of int, shape (n_windows,)
        Window ``n`` holds steps ``start[n] .. stop[n] - 1`` (``stop`` exclusive).
    strongly_connected : numpy.ndarray of bool, shape (n_windows,)
        Whether the window's union digraph is strongly connected.
    n_components : numpy.ndarray of int, shape (n_windows,)
        Number of strongly connected components of the window's union.
    first_failure : int or None
        Index of the first window that is not strongly connected (None if none).
    holds : bool
        True when every window is strongly connected: the series is
        B-strongly-connected (in the window sense asked for).
    """

    B: int
    windows: str
    incomplete: str
    start: np.ndarray = field(repr=False)
    stop: np.ndarray = field(repr=False)
    strongly_connected: np.ndarray = field(repr=False)
    n_components: np.ndarray = field(repr=False)
    first_failure: int | None
    holds: bool

    @property
    def n_windows(self) -> int:
        """Number of windows checked."""
        return len(self.start)


@dataclass(frozen=True)
class BCoverage:
    """A window length B with what it covers: a finite run checks only its full windows.

    The one answer of :func:`smallest_b` (and :func:`b_coverage`): every teller (the
    CLI, its JSON, the reproduce tables and report, the figures) renders these fields,
    never a plain B for steps it did not check.

    Attributes
    ----------
    B : int or None
        The window length (None: no B up to ``max_b`` works).
    windows : {"aligned", "sliding"}
    incomplete : {"drop", "keep"}
    steps : int
        Steps T of the series.
    windows_checked : int
        Number of windows checked at this B (0 when there is no B).
    steps_covered : int
        Steps that lie in a checked window: aligned ``[0, k*B)``, ``k = T // B``
        (all T with ``incomplete="keep"``); sliding: all T; no B: 0.
    tail_length : int or None
        Aligned windows with a B: the steps after the covered ones, in no checked
        window (``T mod B``; 0 with ``incomplete="keep"``). None where a tail
        does not exist: sliding windows (every step is in a checked window) and
        no B (nothing is covered, so nothing is left over).
    tail_connected : bool or None
        Whether the union of the tail's steps is strongly connected (None: no tail,
        ``tail_length`` None or 0).
    max_b : int
        Largest B tried (T unless :func:`smallest_b` was given ``max_b``).
    union_connected : bool
        Whether the union of all T steps is strongly connected. When it is not,
        no B can work: the reason of a missing B (when it is, B exists for
        sliding windows up to T, and a missing B means ``max_b`` was too small or,
        for aligned windows, the blocks never line up).

    Examples
    --------
    >>> c = BCoverage(31, "aligned", "drop", 60, 1, 31, 29, False, 60, True)
    >>> c.B, c.tail_length, c.tail_connected, c.has_tail
    (31, 29, False, True)
    >>> c.as_dict()["steps_covered"]
    31
    """

    B: int | None
    windows: str
    incomplete: str
    steps: int
    windows_checked: int
    steps_covered: int
    tail_length: int | None
    tail_connected: bool | None
    max_b: int = 0
    union_connected: bool | None = None

    @property
    def has_tail(self) -> bool:
        """True when some steps after the covered ones are in no checked window."""
        return bool(self.tail_length)

    def as_dict(self) -> dict:
        """The fields, JSON-ready (no prose: the tellers word them)."""
        return {
            "B": self.B,
            "windows": self.windows,
            "incomplete": self.incomplete,
            "steps": self.steps,
            "windows_checked": self.windows_checked,
            "steps_covered": self.steps_covered,
            "tail_length": self.tail_length,
            "tail_connected": self.tail_connected,
            "max_b": self.max_b,
            "union_connected": self.union_connected,
        }


class _Heard:
    """Per-agent in- and out-edge counts of a window of steps moving forward: every
    agent hearing someone and being heard is necessary for strong connectivity, and
    costs O(M) to check (a window that does not overlap the last is counted afresh)."""

    def __init__(self, s):
        self._ptr, self._src, self._dst = s.edges
        self._m = s.n_agents
        self.lo = self.hi = 0
        self.out = np.zeros(self._m, dtype=np.int64)
        self.into = np.zeros(self._m, dtype=np.int64)

    def _count(self, a: int, b: int):
        i, j = self._ptr[a], self._ptr[b]
        m = self._m
        return np.bincount(self._src[i:j], minlength=m), np.bincount(self._dst[i:j], minlength=m)

    def everyone(self, lo: int, hi: int) -> bool:
        """Whether every agent has an in- and an out-edge in ``[lo, hi)``."""
        if lo >= self.hi or (hi - self.hi) + (lo - self.lo) > hi - lo:
            self.out, self.into = self._count(lo, hi)
        else:
            if hi > self.hi:
                out, into = self._count(self.hi, hi)
                self.out += out
                self.into += into
            if lo > self.lo:
                out, into = self._count(self.lo, lo)
                self.out -= out
                self.into -= into
        self.lo, self.hi = lo, hi
        return bool(self.out.all() and self.into.all())


def _union_connected(s, L=None, workers=None) -> bool:
    """Whether the union of all steps is strongly connected (from ``L``, the time to
    connectivity of every start, when it says so). With ``workers`` (``partitions``,
    ``n_jobs``, ``scheduler``), each partition condenses its steps and the union is
    condensed from their condensations (:class:`~baygo_graph.analysis.windows.Reach`)."""
    if L is not None and L[0] >= 1:
        return True
    if workers is None or workers[0] is None:
        return window_components(s, 0, s.n_steps) == 1
    partitions, n_jobs, scheduler = workers
    T = s.n_steps
    steps = np.arange(T)
    pieces, bounds = split_steps(s, steps, steps + 1, partitions)  # no overlap
    parts = gather_partitions(
        _reach, pieces, [None] * len(pieces), n_jobs=n_jobs, scheduler=scheduler
    )
    return condense(s.n_agents, parts, keep=False).n == 1


def _reach(piece: StepEdges, _=None):
    """The condensation of all the steps of a partition (a worker's task)."""
    return condense(piece.n_agents, raw=[piece.edges[1:]])


@series_input
def b_coverage(
    graphs, B, *, windows: str = "aligned", incomplete: str = "drop", max_b: int | None = None
) -> BCoverage:
    """What a window length B covers on a finite series, and its tail.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    B : int or None
        Window length (None: no B; then nothing is covered and there is no tail).
    windows, incomplete
        As in :func:`b_connectivity`.
    max_b : int, optional
        Largest B that was tried (recorded in the result; default T).

    Returns
    -------
    BCoverage

    Examples
    --------
    >>> a, b = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> b.add_node(1)
    >>> c = b_coverage([a, b, a, b, a], 2)
    >>> c.windows_checked, c.steps_covered, c.tail_length, c.tail_connected
    (2, 4, 1, False)
    >>> b_coverage([a, b, a, b, a], 2, windows="sliding").tail_length is None
    True
    """
    check_window_options(windows, incomplete)
    return _coverage(graphs, B, windows=windows, incomplete=incomplete, max_b=max_b)


def _coverage(s, B, *, windows, incomplete, max_b, L=None, workers=None) -> BCoverage:
    """:func:`b_coverage`; with ``L`` (the time to connectivity, capped at ``max_b``) the
    tail and the whole union are read from it instead of condensed; ``workers`` as in
    :func:`_union_connected`."""
    T = s.n_steps
    top = T if max_b is None else min(check_int("max_b", max_b, minimum=1), T)
    if L is not None and top == T:  # L[0] >= 1 iff some window from 0 is connected
        whole = bool(L[0] >= 1)
    else:
        whole = _union_connected(s, L, workers)
    if B is None:
        return BCoverage(None, windows, incomplete, T, 0, 0, None, None, top, whole)
    B = check_int("B", B, minimum=1, maximum=T)
    start, _ = window_bounds(T, B, windows=windows, incomplete=incomplete)
    if windows == "sliding":
        return BCoverage(B, windows, incomplete, T, len(start), T, None, None, top, whole)
    if incomplete == "keep":
        return BCoverage(B, windows, incomplete, T, len(start), T, 0, None, top, whole)
    covered = (T // B) * B
    tail = T - covered
    if not tail:
        tail_ok = None
    elif L is not None:  # the tail [covered, T) is shorter than B <= max_b: L holds it
        tail_ok = bool(1 <= L[covered] <= tail)
    else:
        tail_ok = window_components(s, covered, T) == 1
    return BCoverage(B, windows, incomplete, T, len(start), covered, tail, tail_ok, top, whole)


@series_input
def b_connectivity(
    graphs,
    B: int,
    *,
    windows: str = "aligned",
    incomplete: str = "drop",
    partitions: int | None = None,
    n_jobs: int | None = None,
    scheduler=None,
):
    """Check every window union of length ``B`` for strong connectivity.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`as_series`.
    B : int
        Window length, ``1 <= B <= T``.
    windows : {"aligned", "sliding"}, default "aligned"
        Aligned windows ``[nB, (n+1)B)`` or every window ``[s, s+B)`` of ``B``
        consecutive steps (see :mod:`baygo_graph.analysis.windows`).
    incomplete : {"drop", "keep"}, default "drop"
        Leave out the windows that reach outside steps ``0 .. T-1``, or keep
        them cut at the ends of the series.
    partitions : int, optional
        Answer the windows over this many partitions of the steps (split by the
        windows' start, each overlapping the next by the window length), each on a
        worker that gets only its steps (:mod:`baygo_graph.analysis.partitions`);
        the result is the same, window for window. Default: one machine, no
        partitions.
    n_jobs : int, optional
        With ``partitions``: local worker processes (joblib's rule; default all
        cores, at most one per partition; 1 answers them in this process).
    scheduler : str or distributed.Client, optional
        With ``partitions``: run them on this Dask cluster instead (the ``dask``
        extra).

    Returns
    -------
    BConnectivity

    Examples
    --------
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> half1, half2 = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> half2.add_node(1)
    >>> r = b_connectivity([half1, half2, ring], 2, windows="sliding")
    >>> r.strongly_connected.tolist(), r.first_failure, r.holds
    ([True, True], None, True)
    >>> r = b_connectivity([half1, half2, ring], 1)
    >>> r.n_components.tolist(), r.first_failure
    ([3, 3, 1], 0)
    >>> b_connectivity([half1, half2, ring] * 3, 2, windows="sliding", partitions=3,
    ...                n_jobs=1).n_components.tolist()
    [1, 1, 1, 1, 1, 1, 1, 1]
    """
    s = graphs
    check_window_options(windows, incomplete)
    B = check_int("B", B, minimum=1, maximum=s.n_steps)
    partitions = check_partitions(partitions, s.n_steps)
    check_workers(partitions, n_jobs, scheduler)
    start, stop = window_bounds(s.n_steps, B, windows=windows, incomplete=incomplete)
    if s.fixed is not None:
        n = n_strong_components(*s.window_edges(0, 1), s.n_agents)
        ncomp = np.full(len(start), n, dtype=np.int64)
    elif partitions is None:
        ncomp = _components(s, (start, stop))
    else:
        pieces, bounds = split_steps(s, start, stop, partitions)
        done = gather_partitions(_components, pieces, bounds, n_jobs=n_jobs, scheduler=scheduler)
        ncomp = np.concatenate(done)
    ok = ncomp == 1
    bad = np.flatnonzero(~ok)
    return BConnectivity(
        B=B,
        windows=windows,
        incomplete=incomplete,
        start=start,
        stop=stop,
        strongly_connected=ok,
        n_components=ncomp,
        first_failure=int(bad[0]) if len(bad) else None,
        holds=not len(bad),
    )


def _components(s, bounds) -> np.ndarray:
    """Strong components of the windows ``bounds = (start, stop)`` of ``s`` (a series or
    a partition's :class:`~baygo_graph.analysis.partitions.StepEdges`), in order."""
    union = ReachWindow(s)
    first, group = window_groups(s, *bounds)  # windows of the same active steps: once
    pairs = zip(bounds[0][first].tolist(), bounds[1][first].tolist(), strict=True)
    return np.array([union.move(a, b).n_components() for a, b in pairs], dtype=np.int64)[group]


def strongly_connected_steps(graphs) -> np.ndarray:
    """Whether each single step graph is strongly connected.

    Returns
    -------
    numpy.ndarray of bool, shape (T,)

    Examples
    --------
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> strongly_connected_steps([ring, nx.DiGraph([(0, 1), (1, 2), (2, 1)])]).tolist()
    [True, False]
    """
    return b_connectivity(graphs, 1, windows="aligned").strongly_connected


@series_input
def time_to_connectivity(
    graphs,
    *,
    max_length: int | None = None,
    partitions: int | None = None,
    n_jobs: int | None = None,
    scheduler=None,
) -> np.ndarray:
    """For each start step, the shortest window from it whose union is strongly connected.

    ``out[s]`` is the smallest ``L`` such that the union of steps
    ``s .. s+L-1`` is strongly connected, or ``-1`` when no window starting at
    ``s`` (up to the end of the series, or up to ``max_length`` steps) is.
    ``s + out[s]`` never decreases with ``s`` where defined, and once ``-1``
    (without ``max_length``) it stays ``-1``.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    max_length : int, optional
        Give up on windows longer than this (``-1``); default: no limit. Needed
        with ``partitions`` (the overlap of one partition into the next).
    partitions : int, optional
        Answer the starts over this many partitions of the steps, each on a
        worker that gets only its steps and the next ``max_length`` ones
        (:mod:`baygo_graph.analysis.partitions`); the same array. Default: one
        machine, no partitions.
    n_jobs, scheduler : optional
        Where the partitions run, as in :func:`b_connectivity`.

    Returns
    -------
    numpy.ndarray of int, shape (T,)

    Notes
    -----
    Two pointers over the steps (the end of the shortest window never moves
    back as its start moves on): at most ``2T`` window questions, each answered
    by a :class:`~baygo_graph.analysis.windows.ReachWindow` (condensed prefix
    and suffix, no edge taken out), and only when every agent has an in- and an
    out-edge in the window (per-agent counts, updated step by step).

    Examples
    --------
    >>> a, b = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> b.add_node(1)
    >>> time_to_connectivity([a, b, a, a]).tolist()
    [2, 2, -1, -1]
    >>> time_to_connectivity([a, b, a, a], max_length=2, partitions=2, n_jobs=1).tolist()
    [2, 2, -1, -1]
    """
    s = graphs
    if max_length is not None:
        max_length = check_int("max_length", max_length, minimum=1)
    T, m = s.n_steps, s.n_agents
    partitions = check_partitions(partitions, T)
    check_workers(partitions, n_jobs, scheduler)
    if partitions is not None and max_length is None:
        raise ValueError(
            "time_to_connectivity over partitions needs max_length (how far one "
            "partition reaches into the next), got max_length=None"
        )
    cap = T if max_length is None else min(max_length, T)
    if s.fixed is not None:
        out = np.full(T, -1, dtype=np.int64)
        if n_strong_components(*s.window_edges(0, 1), m) == 1:
            out[:] = 1
        return out
    if m == 1:
        return np.ones(T, dtype=np.int64)
    if partitions is None:
        return _time_to_connectivity(s, (T, cap))
    start = np.arange(T)
    pieces, bounds = split_steps(s, start, np.minimum(start + cap, T), partitions)
    args = [(len(b[0]), cap) for b in bounds]
    done = gather_partitions(
        _time_to_connectivity, pieces, args, n_jobs=n_jobs, scheduler=scheduler
    )
    return np.concatenate(done)


def _time_to_connectivity(s, starts_cap) -> np.ndarray:
    """:func:`time_to_connectivity` of the first ``starts`` steps of ``s`` (a series of
    several agents, not fixed, or a partition's
    :class:`~baygo_graph.analysis.partitions.StepEdges`), windows capped at ``cap``.

    Only the active steps (:func:`~baygo_graph.analysis.windows.active_steps`) are
    visited: any other step's W is the identity, so a window is connected iff the
    window from its first active step to its last is, and a start ``s`` before the
    active step ``a`` needs ``a - s`` steps more than ``a`` does."""
    n_starts, cap = starts_cap
    out = np.full(n_starts, -1, dtype=np.int64)
    act = np.flatnonzero(active_steps(s))
    if not len(act) or not n_starts:
        return out
    todo = act[: int(np.searchsorted(act, n_starts)) + 1]  # and the first one after
    found = np.full(len(todo), -1, dtype=np.int64)
    heard, union = _Heard(s), ReachWindow(s)  # both moved only when asked
    last, j = len(act) - 1, 0  # window is [start, act[j] + 1)
    for i, start in enumerate(todo.tolist()):
        j = max(j, i)
        while True:
            e = int(act[j]) + 1
            if e - start > cap:
                break
            if heard.everyone(start, e) and union.move(start, e).n_components() == 1:
                found[i] = e - start
                break
            if j == last:
                break
            j += 1
        if found[i] == -1 and j == last and int(act[last]) + 1 - start <= cap:
            break  # the union of every step from here on is not connected
    k = np.searchsorted(act, np.arange(n_starts))  # the first active step from each start
    has = k < len(act)
    length = np.where(has, found[np.minimum(k, len(todo) - 1)], -1)
    total = length + act[np.minimum(k, last)] - np.arange(n_starts)
    out[:] = np.where(has & (length >= 1) & (total <= cap), total, -1)
    return out


@series_input
def smallest_b(
    graphs,
    *,
    windows: str = "aligned",
    incomplete: str = "drop",
    max_b: int | None = None,
    ttc=None,
    coverage=None,
    partitions: int | None = None,
    n_jobs: int | None = None,
    scheduler=None,
) -> BCoverage:
    """The smallest B for which the series is B-strongly-connected, with what it covers.

    A finite run checks only its full windows: with aligned windows the last
    ``T mod B`` steps (the tail) are in no checked window. The answer is a
    :class:`BCoverage`: B (None when no ``B <= max_b`` works), windows checked,
    steps covered, the tail's length and whether its union is strongly
    connected (no tail for sliding windows or without a B), and whether the
    union of all steps is strongly connected (when not, no B can exist).

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    windows : {"aligned", "sliding"}, default "aligned"
        Aligned windows ``[nB, (n+1)B)`` or every window ``[s, s+B)`` of ``B``
        consecutive steps (see :mod:`baygo_graph.analysis.windows`). Aligned
        is not monotone in B (B may work and B+1 not, so every B is tried);
        sliding is.
    incomplete : {"drop", "keep"}, default "drop"
        Leave out the windows that reach outside steps ``0 .. T-1``, or keep
        them cut at the ends of the series.
    max_b : int, optional
        Largest B tried (default T). Needed with ``partitions``: the overlap of
        one partition into the next.
    ttc : numpy.ndarray of int, shape (T,), optional
        ``time_to_connectivity(graphs)`` when the caller has it already: skips
        that pass (the whole cost of this function).
    coverage : bool, optional
        Deprecated, no effect (FutureWarning): the coverage is always returned.
    partitions : int, optional
        Read the time to connectivity (capped at ``max_b``) over this many
        partitions of the steps, each on a worker that gets only its steps and
        the next ``max_b`` ones (:func:`time_to_connectivity`); the same
        :class:`BCoverage`. Default: one machine, no partitions.
    n_jobs, scheduler : optional
        Where the partitions run, as in :func:`b_connectivity`.

    Returns
    -------
    BCoverage

    Notes
    -----
    Both kinds come from one :func:`time_to_connectivity` pass ``L``: window
    ``[s, s+B)`` is strongly connected iff ``1 <= L[s] <= B``. Sliding is the
    smallest B with ``max(L[0 .. T-B]) <= B``; aligned checks ``L`` at the
    starts ``0, B, 2B, ...`` for each B, in O(T log T) array operations.

    Examples
    --------
    >>> a, b = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> b.add_node(1)
    >>> series = [a, b, b, a]
    >>> smallest_b(series, windows="aligned").B, smallest_b(series, windows="sliding").B
    (2, 3)
    >>> none = smallest_b([a, a, a])
    >>> none.B, none.tail_length, none.union_connected
    (None, None, False)
    >>> c = smallest_b([a, b, a, b, a])
    >>> c.B, c.steps_covered, c.tail_length, c.tail_connected
    (2, 4, 1, False)
    >>> one = smallest_b([a, b, a, b, a], max_b=3)
    >>> smallest_b([a, b, a, b, a], max_b=3, partitions=2, n_jobs=1) == one
    True
    """
    if coverage is not None:
        warnings.warn(
            "smallest_b: coverage= has no effect and will be removed in 0.3; smallest_b "
            "always returns a BCoverage (read .B for the window length)",
            FutureWarning,
            stacklevel=2,
        )
    s = graphs
    partitions = check_partitions(partitions, s.n_steps)
    check_workers(partitions, n_jobs, scheduler)
    if partitions is not None and max_b is None:
        raise ValueError(
            "smallest_b over partitions needs max_b (the largest B tried, how far one "
            "partition reaches into the next), got max_b=None"
        )
    workers = (partitions, n_jobs, scheduler)
    b, L = _smallest_b(
        s, windows=windows, incomplete=incomplete, max_b=max_b, ttc=ttc, workers=workers
    )
    return _coverage(
        s, b, windows=windows, incomplete=incomplete, max_b=max_b, L=L, workers=workers
    )


def _smallest_b(
    s, *, windows, incomplete, max_b, ttc, workers=(None, None, None)
) -> tuple[int | None, np.ndarray]:
    """The smallest B and the time to connectivity it was read from (capped at max_b)."""
    check_window_options(windows, incomplete)
    if max_b is not None:
        max_b = check_int("max_b", max_b, minimum=1)
    T = s.n_steps
    top = T if max_b is None else min(max_b, T)
    if ttc is None:
        partitions, n_jobs, scheduler = workers
        L = time_to_connectivity(
            s, max_length=top, partitions=partitions, n_jobs=n_jobs, scheduler=scheduler
        )
    else:
        L = np.asarray(ttc)
        if L.shape != (T,) or not np.issubdtype(L.dtype, np.integer):
            raise ValueError(f"ttc must be an int array of shape ({T},), got {L.shape}")
        L = np.where(L > top, -1, L)  # as time_to_connectivity(max_length=top)
    never = L < 0
    if windows == "sliding":
        reach = np.where(never, np.iinfo(np.int64).max, L)
        prefix_max = np.maximum.accumulate(reach)
        bs = np.arange(1, top + 1)
        ok = prefix_max[T - bs] <= bs
        if incomplete == "keep":
            # tail windows [s, T) for s > T - B must be strongly connected too
            suffix_ok = np.append(np.logical_and.accumulate(~never[::-1])[::-1], True)
            ok &= suffix_ok[T - bs + 1]
        hit = np.flatnonzero(ok)
        return (int(bs[hit[0]]) if len(hit) else None), L
    # every B's windows start at 0, and [0, B) is connected only from B = L[0] on
    for B in range(max(int(L[0]), 1) if not never[0] else top + 1, top + 1):
        starts = np.arange(0, T - B + 1, B)
        l_full = L[starts]
        if np.any(never[starts]) or np.any(l_full > B):
            continue
        tail = (T // B) * B
        if incomplete == "keep" and tail < T and never[tail]:
            continue
        return B, L
    return None, L
