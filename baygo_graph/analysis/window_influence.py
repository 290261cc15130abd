"""Fast influence (left Perron vectors) of the windows of a choice series.

A BayGo step has one in-neighbour per agent: row ``i`` of ``W_t`` holds
``delta`` at ``i`` and ``1 - delta`` at ``c_t(i) = choices[t, i]`` (``-1``: no
choice, ``w_ii = 1``). The influence of the window of steps ``e-w+1 .. e`` is
the left Perron vector of ``P = W_e ... W_{e-w+1}`` (``"product"``) or of the
mean of its W (``"union"``). This module checks the inputs and reports the
results; the batched solver that never forms ``P`` (closed classes by
``csgraph``, batched power iteration, exact solves of slow classes) is
:mod:`baygo_graph.analysis._window_solver`, whose docstring gives the method.
:func:`class_perron` is defined there and exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._text import counted
from ..exceptions import NotUniqueError
from ..inputs import series_input
from ._window_solver import (
    _BATCH_ENTRIES,
    batch_closed_classes,
    chain_perron,
    class_perron,
    exact_influence,
    power_influence,
    window_batches,
    window_targets,
)
from .windows import EdgeWindow

__all__ = [
    "WindowClasses",
    "class_perron",
    "series_choices",
    "union_window_influence",
    "window_closed_classes",
    "window_influence",
]

METHODS = ("product", "union")


@dataclass(frozen=True, eq=False)
class WindowClasses:
    """Closed classes of window matrices (result of :func:`window_closed_classes`).

    Attributes
    ----------
    ends : numpy.ndarray of int, shape (N,)
        Last step of each window.
    counts : numpy.ndarray of int, shape (N,)
        Number of closed classes of each window matrix (1: unique influence).
    members : numpy.ndarray of bool, shape (N, M)
        Agents that belong to some closed class of the window matrix.
    """

    ends: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    members: np.ndarray = field(repr=False)


@series_input
def series_choices(source) -> tuple[np.ndarray, float] | None:
    """The ``(choices, delta)`` form of a BayGo-like series, or None.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
        A series of chosen neighbours (:class:`~baygo_graph.series.ChoiceSeries`,
        e.g. a BayGo ``Run``) has a choice form; so has a weighted series (e.g.
        BayGo graphs read back from a GraphML or JSON file) whose every row has
        at most one off-diagonal weight, all equal (``1 - delta``). Other series
        give None.

    Returns
    -------
    tuple of (numpy.ndarray of int, shape (T, M), float) or None

    Examples
    --------
    >>> from baygo_graph import Run
    >>> ch, delta = series_choices(Run.from_choices([[1, 0, -1]], delta=0.3))
    >>> ch.tolist(), delta
    ([[1, 0, -1]], 0.3)
    >>> import networkx as nx
    >>> g = nx.DiGraph([(1, 0, {"weight": 0.7}), (0, 1, {"weight": 0.7})])
    >>> g.add_weighted_edges_from([(0, 0, 0.3), (1, 1, 0.3)])
    >>> ch, delta = series_choices([g])
    >>> ch.tolist(), round(delta, 12)
    ([[1, 0]], 0.3)
    """
    s = source
    if s.choices is not None:
        return np.asarray(s.choices), float(s.delta)
    entries = getattr(s, "entries", None)  # weighted edges, e.g. read from a file
    return None if entries is None else _edge_choices(entries, s.n_steps, s.n_agents)


def _edge_form(entries, m: int):
    """``(key, col, delta)`` when every row of every step of the row-stochastic edge
    entries has at most one off-diagonal entry and all of them weigh the same ``1 -
    delta`` (``key``: step x M + row of each), else None."""
    step, row, col, w = (np.asarray(a) for a in entries)
    off = row != col
    w_off = w[off]
    if not len(w_off) or np.ptp(w_off) > 1e-12 or not 0.0 < w_off[0] <= 1.0:
        return None  # the cheap test first: a user series has unequal weights
    key = step[off].astype(np.int64) * m + row[off]
    if np.any(key[1:] <= key[:-1]):  # not sorted and distinct: sort (np.unique hashes)
        ordered = np.sort(key)
        if np.any(ordered[1:] == ordered[:-1]):
            return None
    return key, col[off], float(1.0 - w_off[0])


def _edge_choices(entries, t: int, m: int) -> tuple[np.ndarray, float] | None:
    """The choice form of row-stochastic edge entries (:func:`_edge_form`), or None."""
    form = _edge_form(entries, m)
    if form is None:
        return None
    key, col, delta = form
    from ..limits import check_budget

    check_budget(  # hostile round 12, Q9: a ring of 10^4 nodes x 10^4 steps asked 763 MiB
        8 * t * m,
        what=f"the choices of {counted(t, 'step', spec=',')} x {counted(m, 'node', spec=',')} (a "
        "(T, M) int64 array)",
        advice="take fewer steps or nodes",
    )
    choices = np.full((t, m), -1, dtype=np.int64)
    choices.reshape(-1)[key] = col
    return choices, delta


#: Bytes per entry of a batch of :func:`~baygo_graph.analysis._window_solver.window_batches`
#: (its (n, w, M) int64 targets, their copy and the kernels' work arrays): measured
#: (tracemalloc) 38 B an entry with everything else :func:`influence_series` holds (a
#: choice series of 50 nodes x 4,000 steps, windows of 10: a batch of 2 x 10^6 entries
#: peaked at 75.8 MiB); 32 let it pass 0.86x of its peak.
BATCH_BYTES_PER_ENTRY = 48


def choice_form_bytes(source, windows: int, window: int, *, result: int = 0,
                      per_entry: int = BATCH_BYTES_PER_ENTRY) -> int:  # fmt: skip
    """Bytes the choice-form kernels allocate for ``windows`` windows of ``window`` steps
    of ``source``: the (T, M) choices when they are built from edges (0 when the series
    stores them), ``result`` bytes per window and node (8: an influence row; 1: a class
    membership) and one batch (at most 2^21 entries, or one window, ``per_entry`` bytes
    each); 0 for a series
    without a choice form (the kernels are not used).

    Examples
    --------
    >>> from baygo_graph import Run
    >>> choice_form_bytes(Run.from_choices([[1, 0, -1]], delta=0.3), 1, 1, result=8)
    168
    """
    s = source
    if getattr(s, "fixed", None) is not None:
        return 0
    t, m = s.n_steps, s.n_agents
    if getattr(s, "choices", None) is not None:
        built = 0
    else:
        entries = getattr(s, "entries", None)
        if entries is None or _edge_form(entries, m) is None:
            return 0
        built = 8 * t * m
    batch = min(max(_BATCH_ENTRIES, m * window), windows * window * m)
    return built + result * windows * m + per_entry * batch


def _check(choices, delta, window, ends, method):
    ch = np.asarray(choices)
    if ch.ndim != 2 or not np.issubdtype(ch.dtype, np.integer) or 0 in ch.shape:
        raise ValueError(f"choices must be a non-empty 2-D int array (T, M), got {ch.shape}")
    T, m = ch.shape
    if ch.min() < -1 or ch.max() >= m:
        raise ValueError(f"choices must be agent ids in [-1, {m}), got {ch.min()}..{ch.max()}")
    if not 0.0 <= delta <= 1.0:
        raise ValueError(f"delta must be in [0, 1], got {delta!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if isinstance(window, bool) or not isinstance(window, int | np.integer):
        raise TypeError(f"window must be an int, got {type(window).__name__}")
    if not 1 <= window <= T:
        raise ValueError(f"window must be >= 1 and <= {T} (the number of steps), got {window!r}")
    ends = np.arange(window - 1, T) if ends is None else np.asarray(ends, dtype=np.int64)
    if ends.ndim != 1 or (len(ends) and (ends.min() < window - 1 or ends.max() >= T)):
        raise ValueError(f"ends must be steps in [{window - 1}, {T}), got {ends!r}")
    return ch, int(window), ends


def window_closed_classes(
    choices, *, delta: float, window: int, ends=None, method: str = "product"
) -> WindowClasses:
    """Closed classes of the window matrices of a choice series.

    Parameters
    ----------
    choices : array_like of int, shape (T, M)
        ``choices[t, i]``: the agent ``i`` listens to at step ``t`` (-1: none).
    delta : float
        Self-weight, ``0 <= delta <= 1``.
    window : int
        Window length w, ``1 <= w <= T``.
    ends : array_like of int, optional
        Last steps of the windows (default: every ``e >= w - 1``).
    method : {"product", "union"}, default "product"
        Window matrix ``W_e ... W_{e-w+1}`` or the mean of its W.

    Returns
    -------
    WindowClasses

    Examples
    --------
    >>> ch = [[1, 0, 3, 2], [1, 2, 3, 0]]        # two 2-cycles, then one 4-cycle
    >>> window_closed_classes(ch, delta=0.5, window=1).counts.tolist()
    [2, 1]

    With ``delta = 0``, ``W_1 W_0`` maps ``i`` to ``c_0(c_1(i))``: cycles
    {0}, {2} and {1, 3}.

    >>> r = window_closed_classes(ch, delta=0.0, window=2)
    >>> r.counts.tolist(), r.members.tolist()
    ([3], [[True, True, True, True]])
    """
    ch, window, ends = _check(choices, delta, window, ends, method)
    m = ch.shape[1]
    counts = np.zeros(len(ends), dtype=np.int64)
    members = np.zeros((len(ends), m), dtype=bool)
    for b in window_batches(len(ends), m, window):
        counts[b], members[b] = batch_closed_classes(
            window_targets(ch, ends[b], window), delta, method
        )
    return WindowClasses(ends=ends, counts=counts, members=members)


def window_influence(
    choices,
    *,
    delta: float,
    window: int,
    ends=None,
    method: str = "product",
    on_nonunique: str = "nan",
    tol: float = 1e-13,
    max_iter: int = 300,
) -> np.ndarray:
    """Influence (left Perron vector) of every window matrix of a choice series.

    Parameters
    ----------
    choices : array_like of int, shape (T, M)
        ``choices[t, i]``: the agent ``i`` listens to at step ``t`` (-1: none).
    delta : float
        Self-weight ``0 <= delta <= 1``: row ``i`` of ``W_t`` is ``delta`` at
        ``i`` and ``1 - delta`` at ``choices[t, i]``.
    window : int
        Window length w, ``1 <= w <= T``.
    ends : array_like of int, optional
        Last steps of the windows (default: every ``e >= w - 1``).
    method : {"product", "union"}, default "product"
        Influence of ``W_e ... W_{e-w+1}`` or of the mean of the window's W.
    on_nonunique : {"nan", "raise"}, default "nan"
        A window with several closed classes gives a NaN row, or raises
        :class:`~baygo_graph.exceptions.NotUniqueError`.
    tol : float, default 1e-13
        Bound on the estimated max-abs error of the power iteration.
    max_iter : int, default 300
        Iterations before a window is solved exactly instead.

    Returns
    -------
    numpy.ndarray, shape (len(ends), M)
        Row ``n``: the influence of the window ending at ``ends[n]``.

    Examples
    --------
    >>> ch = [[1, 2, 0], [2, 0, 1]]          # two 3-cycles, opposite ways
    >>> window_influence(ch, delta=0.5, window=2).round(4).tolist()
    [[0.3333, 0.3333, 0.3333]]
    >>> window_influence([[1, 0, 0], [2, 2, 0]], delta=0.5, window=1).round(4).tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]]
    >>> window_influence([[1, 0, 3, 2]], delta=0.5, window=1).tolist()   # 2 classes
    [[nan, nan, nan, nan]]
    """
    ch, window, ends = _check(choices, delta, window, ends, method)
    if on_nonunique not in ("nan", "raise"):
        raise ValueError(f"on_nonunique must be one of ('raise', 'nan'), got {on_nonunique!r}")
    m = ch.shape[1]
    out = np.full((len(ends), m), np.nan)
    for b in window_batches(len(ends), m, window):
        c = window_targets(ch, ends[b], window)
        counts, members = batch_closed_classes(c, delta, method)
        bad = np.flatnonzero(counts != 1)
        if on_nonunique == "raise" and len(bad):
            raise NotUniqueError(
                f"influence is not unique: the window ending at step {ends[b][bad[0]]} has "
                f"{counts[bad[0]]} closed classes (strongly connected groups of agents that "
                "listen to no one outside), it needs exactly 1"
            )
        uniq = np.flatnonzero(counts == 1)
        size = members[uniq].sum(axis=1)
        easy = (size == 1) | ((delta == 0.0) & (method == "product"))
        rows = b.start + uniq[easy]  # one agent, or a cycle of f: uniform on the class
        out[rows] = members[uniq[easy]] / size[easy, None]
        hard = uniq[~easy]
        if len(hard):
            vec, ok, rate = power_influence(c[hard], members[hard], delta, method, tol, max_iter)
            out[b.start + hard[ok]] = vec[ok]
            for n, r in zip(hard[~ok], rate[~ok], strict=True):
                out[b.start + n] = exact_influence(c[n], members[n], delta, method, r)
    return out


def _closed_class(off: sp.csr_array) -> tuple[int, np.ndarray]:
    """Number of closed classes of the pattern of ``off`` and the members (bool) of the
    first one (strong components none of whose members hears anyone outside)."""
    m = off.shape[0]
    ncomp, labels = connected_components(off, directed=True, connection="strong")
    rows = np.repeat(np.arange(m), np.diff(off.indptr))
    cross = labels[rows] != labels[off.indices]
    leaves = np.zeros(ncomp, dtype=bool)
    leaves[labels[rows[cross]]] = True
    closed = np.flatnonzero(~leaves)
    return len(closed), labels == closed[0]


@series_input
def union_window_influence(
    source,
    *,
    window: int,
    ends,
    on_nonunique: str = "nan",
    tol: float = 1e-13,
    max_iter: int = 300,
) -> tuple[np.ndarray, np.ndarray]:
    """Union influence (left Perron vector of the window's mean W) of any weighted series.

    The windows are slid in order: each window's summed weights come from the
    previous one (the steps entering added, those leaving dropped, or built
    afresh when that is cheaper); its closed classes are recomputed only when an
    edge left a window that was strongly connected (added edges cannot break
    that), and counted only when two breadth-first searches find it is not
    strongly connected; the vector is a power iteration on the window's jump chain
    (:func:`~baygo_graph.analysis._window_solver.chain_perron`: the window's
    self-weights, most of the mean W of a sparse series, are left out), warm
    started from the previous window's vector when the closed class is the same
    (else from uniform), with the stopping rule of the choice kernels; a window
    not converged after ``max_iter`` iterations is solved exactly
    (:func:`class_perron`).

    Parameters
    ----------
    source : GraphSeries or anything :func:`~baygo_graph.inputs.as_series` takes
    window : int
        Window length w (``1 <= w <= T``).
    ends : array_like of int
        Last steps of the windows, increasing, each in ``[w - 1, T)``.
    on_nonunique : {"nan", "raise"}, default "nan"
        A window with several closed classes gives a NaN row, or raises
        :class:`~baygo_graph.exceptions.NotUniqueError`.
    tol : float, default 1e-13
        Bound on the estimated max-abs error of the iteration.
    max_iter : int, default 300

    Returns
    -------
    values : numpy.ndarray, shape (len(ends), M)
        Row ``n``: the influence of the window ending at ``ends[n]`` (NaN when not unique).
    counts : numpy.ndarray of int, shape (len(ends),)
        Its number of closed classes (1: unique).

    Examples
    --------
    >>> import networkx as nx
    >>> a = nx.DiGraph([(0, 1), (1, 0), (1, 2)]); b = nx.DiGraph([(2, 0)]); b.add_node(1)
    >>> vals, counts = union_window_influence([a, b, a, b], window=2, ends=[1, 2, 3])
    >>> vals.round(4).tolist(), counts.tolist()
    ([[0.25, 0.5, 0.25], [0.25, 0.5, 0.25], [0.25, 0.5, 0.25]], [1, 1, 1])
    >>> union_window_influence([a, b], window=1, ends=[1])[1].tolist()   # 1 hears no one
    [2]
    """
    s = source
    if on_nonunique not in ("nan", "raise"):
        raise ValueError(f"on_nonunique must be one of ('raise', 'nan'), got {on_nonunique!r}")
    if isinstance(window, bool) or not isinstance(window, int | np.integer):
        raise TypeError(f"window must be an int, got {type(window).__name__}")
    t_all, m = s.n_steps, s.n_agents
    if not 1 <= window <= t_all:
        raise ValueError(f"window must be >= 1 and <= {t_all} (the steps), got {window!r}")
    ends = np.asarray(ends, dtype=np.int64)
    if ends.ndim != 1 or (
        len(ends) and (ends.min() < window - 1 or ends.max() >= t_all or np.any(np.diff(ends) < 0))
    ):
        raise ValueError(f"ends must be increasing steps in [{window - 1}, {t_all}), got {ends!r}")
    out = np.full((len(ends), m), np.nan)
    counts = np.zeros(len(ends), dtype=np.int64)
    union = EdgeWindow(s, weighted=True)
    everyone = np.ones(m, dtype=bool)
    members = prev = None  # the last window's closed class and vector (warm start)
    for n, e in enumerate(ends.tolist()):
        union.move(e - window + 1, e + 1)
        off = union.matrix()
        if members is everyone and union.removed == 0:
            count = 1  # only edges added to a strongly connected window: it stays so
        else:  # two searches answer the common case; the classes only when they fail
            count, cls = (1, everyone) if union.strongly_connected() else _closed_class(off)
            cls = everyone if count == 1 and cls.all() else cls
            if count != 1 or members is None or not np.array_equal(cls, members):
                prev = None  # the closed class changed: a cold start
            members = cls if count == 1 else None
        union.removed = 0
        counts[n] = count
        if count != 1:
            if on_nonunique == "raise":
                raise NotUniqueError(
                    f"influence is not unique: the window ending at step {e} has {count} "
                    "closed classes (strongly connected groups of agents that listen to no "
                    "one outside), it needs exactly 1"
                )
            continue
        idx = None if members is everyone else np.flatnonzero(members)
        sub = off if idx is None else sp.csr_array(off[idx][:, idx])
        pi = np.ones(1) if sub.shape[0] == 1 else None
        if pi is None:
            pi, _ = chain_perron(sub, prev, tol=tol, max_iter=max_iter)
        if pi is None:  # slowly mixing: the exact solve of the class's mean W
            r = np.asarray(sub.sum(axis=1)).ravel()
            pi = class_perron(sp.csr_array(sub + sp.diags_array(window - r)) / window)
        prev = pi
        out[n] = 0.0
        if idx is None:
            out[n] = pi
        else:
            out[n, idx] = pi
    return out, counts
