"""Fast influence (left Perron vectors) of the windows of a choice series.

A BayGo step has one in-neighbour per agent: row ``i`` of ``W_t`` holds
``delta`` at ``i`` and ``1 - delta`` at ``c_t(i) = choices[t, i]`` (an agent
with choice ``-1`` keeps ``w_ii = 1``; below, ``c_t(i) = i`` then). The
influence of the window of steps ``e-w+1 .. e`` is the left Perron vector of
``P = W_e ... W_{e-w+1}`` (``"product"``) or of the mean ``U`` of its W
(``"union"``). These kernels never form P (up to ``2^w`` nonzeros per row):

Closed classes
    With ``0 < delta < 1`` each ``W_t`` has a positive diagonal, so ``P`` has an
    edge ``i -> c_t(i)`` for each step of the window, and each edge of ``P`` is a
    path of such edges: ``P``, ``U`` and the union graph have the same closed
    classes. With ``delta = 0``, ``P`` is the map ``f = c_{e-w+1} o ... o c_e``,
    whose closed classes are its cycles; with ``delta = 1``, ``W = I``. Windows
    are checked in batches (one block-diagonal graph for ``csgraph``).

Perron vector on the one closed class C
    With ``delta = 0`` (product) ``P`` permutes C: ``pi`` is uniform on C.
    Otherwise: power iteration batched over windows, one application of ``P``
    being ``w`` scatter-adds (``numpy.bincount``) of length M; ``P``'s diagonal
    is ``>= delta^w > 0``, so C is aperiodic. The union iterates
    ``0.1 I + 0.9 A`` (``A``: the mean of the choice maps; same fixed point as
    ``U``, aperiodic even for ``delta = 0``, faster). A window stops when its
    estimated error ``d rho / (1 - rho)`` (``d``: largest change of the last
    iteration, ``rho``: observed contraction rate) is below ``tol`` or ``d`` is
    at the rounding floor. Classes of up to 1000 agents still contracting at
    ``rho >= 0.8`` after 8 iterations, and windows not converged after
    ``max_iter``, are solved exactly: ``P_CC`` formed from the rows of C only,
    then :func:`class_perron`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from ..exceptions import NotUniqueError
from ..series import as_series

__all__ = [
    "WindowClasses",
    "class_perron",
    "series_choices",
    "window_closed_classes",
    "window_influence",
]

METHODS = ("product", "union")
# Laziness of the union iteration matrix 0.1 I + 0.9 A (any value in (0, 1) works).
_UNION_LAZY = 0.1
# Entries (windows x agents x window length) handled per batch.
_BATCH_ENTRIES = 1 << 21
# Classes up to this size are solved densely by class_perron.
_DENSE_MAX = 1000
# Such a class still contracting at rate >= _SLOW_RATE after _SLOW_AFTER iterations
# (>= ~100 more to go) is solved exactly instead.
_SLOW_AFTER = 8
_SLOW_RATE = 0.8


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


def series_choices(source) -> tuple[np.ndarray, float] | None:
    """The ``(choices, delta)`` form of a BayGo-like series, or None.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
        A series of chosen neighbours (:class:`~baygo_graph.series.ChoiceSeries`,
        e.g. a BayGo ``Run``) has a choice form; other series give None.

    Returns
    -------
    tuple of (numpy.ndarray of int, shape (T, M), float) or None

    Examples
    --------
    >>> from baygo_graph import Run
    >>> ch, delta = series_choices(Run.from_choices([[1, 0, -1]], delta=0.3))
    >>> ch.tolist(), delta
    ([[1, 0, -1]], 0.3)
    """
    s = as_series(source)
    if s.choices is None:
        return None
    return np.asarray(s.choices), float(s.delta)


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


def _targets(ch, ends, window):
    """``c[n, l, i]``: whom ``i`` listens to at step ``ends[n] - l`` (itself for -1)."""
    c = ch[ends[:, None] - np.arange(window)].astype(np.int64)
    own = np.broadcast_to(np.arange(ch.shape[1]), c.shape)
    return np.where(c < 0, own, c)


def _batches(n, m, window):
    size = max(1, _BATCH_ENTRIES // (m * window))
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def _closed_batch(c, delta, method):
    """Closed-class counts and membership for a batch ``c`` of shape (n, w, M)."""
    n, w, m = c.shape
    if delta == 1.0:  # every W is the identity: every agent is a class
        return np.full(n, m, dtype=np.int64), np.ones((n, m), dtype=bool)
    if method == "product" and delta == 0.0:
        f = np.broadcast_to(np.arange(m), (n, m))
        for k in range(w):  # f = c_{e-w+1} o ... o c_e
            f = np.take_along_axis(c[:, k], f, axis=1)
        nbr = f[:, :, None]
    else:
        nbr = c.transpose(0, 2, 1)
    nodes = n * m
    nbr = np.sort((nbr + (np.arange(n) * m)[:, None, None]).reshape(nodes, -1), axis=1)
    keep = np.ones(nbr.shape, dtype=bool)  # csgraph must not see repeated entries
    np.not_equal(nbr[:, 1:], nbr[:, :-1], out=keep[:, 1:])
    ptr = np.zeros(nodes + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=ptr[1:])
    g = sp.csr_array((np.ones(int(ptr[-1])), nbr[keep], ptr), shape=(nodes, nodes))
    ncomp, labels = connected_components(g, directed=True, connection="strong")
    cross = (labels[nbr] != labels[:, None]).any(axis=1)
    leaves = np.zeros(ncomp, dtype=bool)
    leaves[labels[cross]] = True
    label_window = np.empty(ncomp, dtype=np.int64)
    label_window[labels] = np.arange(nodes) // m
    counts = np.bincount(label_window[~leaves], minlength=n)
    return counts, ~leaves[labels].reshape(n, m)


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
    for b in _batches(len(ends), m, window):
        counts[b], members[b] = _closed_batch(_targets(ch, ends[b], window), delta, method)
    return WindowClasses(ends=ends, counts=counts, members=members)


def _apply(x, idx, w, delta, method):
    """One application of the iteration matrix to the flat batch of row vectors ``x``."""
    size = len(x)
    if method == "union":
        out = x * _UNION_LAZY
        share = (1.0 - _UNION_LAZY) / w
        for k in range(w):
            out += share * np.bincount(idx[k], weights=x, minlength=size)
        return out
    for k in range(w):  # x W_e W_{e-1} ... : step e first
        moved = np.bincount(idx[k], weights=x, minlength=size)
        moved *= 1.0 - delta
        x = x * delta
        x += moved
    return x


def _power(c, members, delta, method, tol, max_iter):
    """Power iteration for a batch; returns (vectors, converged flags)."""
    n, w, m = c.shape
    v = members / members.sum(axis=1, keepdims=True)
    out = np.full((n, m), np.nan)
    done = np.zeros(n, dtype=bool)
    active = np.arange(n)
    prev = np.full(n, np.inf)
    rate = np.full(n, np.inf)
    finished = np.zeros(n, dtype=bool)  # converged (or given up), still in the batch
    small = members.sum(axis=1) <= _DENSE_MAX
    idx = None
    for it in range(max_iter):
        if idx is None:
            base = (np.arange(len(active)) * m)[:, None]
            idx = [(c[active, k] + base).reshape(-1) for k in range(w)]
        na = len(active)
        new = _apply(v.reshape(-1), idx, w, delta, method).reshape(na, m)
        new /= new.sum(axis=1, keepdims=True)
        d = np.abs(new - v).max(axis=1)
        ratio = np.where(prev > 0, d / np.where(prev > 0, prev, 1.0), 0.0)
        rho = np.maximum(ratio, rate) if it >= 2 else np.where(it == 1, ratio, np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            est = np.where(rho < 1.0, d * rho / (1.0 - rho), np.inf)
        floor = d <= 4 * np.finfo(float).eps * new.max(axis=1)
        stop = (est <= tol) | floor
        fresh = stop & ~finished
        out[active[fresh]] = new[fresh]
        done[active[fresh]] = True
        # slowly mixing small classes: an exact solve is cheaper (done stays False)
        finished |= stop | ((it >= _SLOW_AFTER) & (rho >= _SLOW_RATE) & small[active])
        rate, prev, v = ratio, d, new
        if finished.all():
            break
        if finished.mean() > 0.25:  # drop the converged windows from the batch
            keep = ~finished
            active, v, prev, rate = active[keep], v[keep], prev[keep], rate[keep]
            finished = finished[keep]
            idx = None
    return out, done


def class_perron(sub) -> np.ndarray:
    """Stationary vector of an irreducible row-stochastic matrix, by an exact solve.

    Solves ``pi^T (I - S) = 0`` with ``sum(pi) = 1`` (one equation replaced by
    the normalisation): dense LAPACK up to 1000 states, SuperLU above. Exact up
    to rounding, periodic or not.

    Parameters
    ----------
    sub : array_like or scipy sparse matrix, shape (k, k)
        Row-stochastic and irreducible (e.g. W restricted to its closed class).

    Returns
    -------
    numpy.ndarray, shape (k,)

    Examples
    --------
    >>> class_perron(np.array([[0.0, 1.0], [0.5, 0.5]])).round(4).tolist()
    [0.3333, 0.6667]
    """
    k = sub.shape[0]
    if k == 1:
        return np.ones(1)
    rhs = np.zeros(k)
    rhs[-1] = 1.0
    if k <= _DENSE_MAX:
        dense = sub.toarray() if sp.issparse(sub) else np.asarray(sub, dtype=float)
        a = np.eye(k) - dense.T
        a[-1, :] = 1.0
        pi = np.linalg.solve(a, rhs)
    else:
        a = sp.lil_array(sp.eye_array(k) - sp.csr_array(sub).T)
        a[k - 1, :] = np.ones(k)
        pi = spla.spsolve(sp.csc_array(a), rhs)
    pi = np.clip(np.where(np.abs(pi) < 1e-15, 0.0, pi), 0.0, None)
    return pi / pi.sum()


def _exact(c_win, member, delta, method):
    """Influence of one window by forming its matrix on the closed class only."""
    w, m = c_win.shape
    cls = np.flatnonzero(member)
    k = len(cls)
    eye = np.arange(m)
    steps = [
        sp.csr_array(
            (np.r_[np.full(m, delta), np.full(m, 1.0 - delta)], (np.r_[eye, eye], np.r_[eye, c])),
            shape=(m, m),
        )
        for c in c_win
    ]
    rows = sp.csr_array((np.ones(k), (np.arange(k), cls)), shape=(k, m))
    if method == "union":
        mat = sum(rows @ s for s in steps) / w
    else:
        mat = rows
        for s in steps:  # rows of W_e W_{e-1} ... W_{e-w+1}
            mat = sp.csr_array(mat @ s)
    out = np.zeros(m)
    out[cls] = class_perron(sp.csr_array(mat)[:, cls])
    return out


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
    for b in _batches(len(ends), m, window):
        c = _targets(ch, ends[b], window)
        counts, members = _closed_batch(c, delta, method)
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
            vec, ok = _power(c[hard], members[hard], delta, method, tol, max_iter)
            out[b.start + hard[ok]] = vec[ok]
            for n in hard[~ok]:
                out[b.start + n] = _exact(c[n], members[n], delta, method)
    return out
