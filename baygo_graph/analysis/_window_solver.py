"""The batched solver behind :mod:`baygo_graph.analysis.window_influence`.

A BayGo step has one in-neighbour per agent: row ``i`` of ``W_t`` holds
``delta`` at ``i`` and ``1 - delta`` at ``c_t(i) = choices[t, i]`` (an agent
with choice ``-1`` keeps ``w_ii = 1``; below, ``c_t(i) = i`` then). The
influence of the window of steps ``e-w+1 .. e`` is the left Perron vector of
``P = W_e ... W_{e-w+1}`` (``"product"``) or of the mean ``U`` of its W
(``"union"``). These kernels never form P (up to ``2^w`` nonzeros per row); they
work on a batch of windows at once, ``c[n, l, i]`` = whom ``i`` listens to at
step ``ends[n] - l`` (:func:`window_targets`), without checking their inputs
(the public wrappers do).

Closed classes (:func:`batch_closed_classes`)
    With ``0 < delta < 1`` each ``W_t`` has a positive diagonal, so ``P`` has an
    edge ``i -> c_t(i)`` for each step of the window, and each edge of ``P`` is a
    path of such edges: ``P``, ``U`` and the union graph have the same closed
    classes. With ``delta = 0``, ``P`` is the map ``f = c_{e-w+1} o ... o c_e``,
    whose closed classes are its cycles; with ``delta = 1``, ``W = I``. Windows
    are checked in batches (one block-diagonal graph for ``csgraph``).

Perron vector on the one closed class C (:func:`power_influence`)
    With ``delta = 0`` (product) ``P`` permutes C: ``pi`` is uniform on C.
    Otherwise: power iteration batched over windows, one application of ``P``
    being ``w`` scatter-adds (``numpy.bincount``) of length M; ``P``'s diagonal
    is ``>= delta^w > 0``, so C is aperiodic. The union iterates
    ``0.1 I + 0.9 A`` (``A``: the mean of the choice maps; same fixed point as
    ``U``, aperiodic even for ``delta = 0``, faster). A window stops when its
    estimated error ``d rho / (1 - rho)`` (``d``: largest change of the last
    iteration, ``rho``: observed contraction rate) is below ``tol`` or ``d`` is
    at the rounding floor. Classes of up to 1000 agents still contracting at
    ``rho >= 0.8`` after 8 iterations, when the iterations still to go (from
    ``rho`` and the error estimate) cost more than forming the class's matrix and
    solving it densely (a cost model: ``k^3`` for the solve), and windows not
    converged after ``max_iter``, are solved exactly (:func:`exact_influence`): ``P_CC`` formed
    from the rows of C only, then :func:`class_perron`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

__all__ = [
    "batch_closed_classes",
    "chain_perron",
    "class_perron",
    "exact_influence",
    "power_influence",
    "window_batches",
    "window_targets",
]

# Laziness of the union iteration matrix 0.1 I + 0.9 A (any value in (0, 1) works).
_UNION_LAZY = 0.1
# A union window whose successive changes point in opposite directions (the
# difference vectors' Rayleigh ratio below _FLIP, i.e. a real eigenvalue of the
# iteration matrix near -|ratio| dominates: hub windows, where most agents listen
# to one agent who listens to them) gets the laziness that cancels it, at most
# _LAZY_MAX; checked from iteration _FLIP_AFTER on, once per window.
_FLIP = -0.3
_FLIP_AFTER = 3
_LAZY_MAX = 0.5
# The union iterates over its distinct (listener, target) pairs when they are at most
# this share of the window's w * M choices (hub windows), else over the w choice maps.
_PAIRS_SHARE = 0.5
# Entries (windows x agents x window length) handled per batch.
_BATCH_ENTRIES = 1 << 21
# Classes up to this size are solved densely by class_perron.
_DENSE_MAX = 1000
# Such a class still contracting at rate >= _SLOW_RATE after _SLOW_AFTER iterations
# (>= ~100 more to go) is solved exactly instead.
_SLOW_AFTER = 8
_SLOW_RATE = 0.8
# The slow test uses the mean contraction over this many iterations: the one-step
# ratio of max-abs changes jumps above 1 now and then (hub windows), which alone
# sent fast-converging windows to the dense solve.
_SLOW_SPAN = 4
# Seconds, measured on the 2-core reference machine: one element of one scatter-add
# of the power iteration (batched), one k^3 of the dense solve, one element of forming
# the window's matrix. A slow class goes to the exact solve only when that is cheaper.
_COST_SCATTER = 4e-9
_COST_SOLVE = 1.8e-11
_COST_FORM = 3e-7
# Sparse classes above this size with at most this share of nonzeros: Arnoldi first.
_ARNOLDI_MIN = 200
_ARNOLDI_DENSITY = 0.05
# Krylov basis size and restarts of one Arnoldi attempt: a chain that has not
# converged by then (eigenvalues crowding 1) goes to the dense solve at once.
_ARNOLDI_NCV = 20
_ARNOLDI_RESTARTS = 100
# Largest accepted error estimate (residual / spectral gap) of an Arnoldi answer.
_ARNOLDI_ERROR = 1e-12


def window_targets(ch, ends, window):
    """``c[n, l, i]``: whom ``i`` listens to at step ``ends[n] - l`` (itself for -1).

    Examples
    --------
    >>> window_targets(np.array([[1, -1], [0, 0]]), np.array([1]), 2).tolist()
    [[[0, 0], [1, 1]]]
    """
    c = ch[ends[:, None] - np.arange(window)].astype(np.int64)
    own = np.broadcast_to(np.arange(ch.shape[1]), c.shape)
    return np.where(c < 0, own, c)


def window_batches(n, m, window):
    """Slices of ``n`` windows, each batch holding about ``2^21`` (window, agent, step) entries.

    Examples
    --------
    >>> window_batches(5, 1 << 20, 1)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    size = max(1, _BATCH_ENTRIES // (m * window))
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def batch_closed_classes(c, delta, method):
    """Closed-class counts (n,) and membership (n, M) for a batch ``c`` of shape (n, w, M).

    Examples
    --------
    >>> counts, members = batch_closed_classes(np.array([[[1, 0, 3, 2]]]), 0.5, "product")
    >>> counts.tolist(), members.tolist()
    ([2], [[True, True, True, True]])
    """
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


def _apply(x, idx, w, delta, method, lazy=_UNION_LAZY):
    """One application of the iteration matrix to the flat batch of row vectors ``x``.

    ``lazy``: the union's laziness, a scalar or one value per entry of ``x``.
    """
    size = len(x)
    if method == "union":
        out = x * lazy
        share = (1.0 - lazy) / w
        for k in range(w):
            out += share * np.bincount(idx[k], weights=x, minlength=size)
        return out
    for k in range(w):  # x W_e W_{e-1} ... : step e first
        moved = np.bincount(idx[k], weights=x, minlength=size)
        moved *= 1.0 - delta
        x = x * delta
        x += moved
    return x


def _distinct_targets(c):
    """The union's distinct (listener, target) pairs of a batch ``c`` (n, w, M), with counts.

    Returns ``(row, target, count)``: flat listener ``n * M + i``, flat target
    ``n * M + j`` and how many of the window's steps ``i`` listened to ``j``. A
    hub's windows repeat one pair in most steps: one scatter-add over these few
    pairs replaces ``w`` scatter-adds that pile up on the hub's entry.
    """
    n, w, m = c.shape
    t = np.sort(c.transpose(0, 2, 1), axis=2).reshape(-1)  # (window, agent, step)
    first = np.ones(t.shape, dtype=bool)
    np.not_equal(t[1:], t[:-1], out=first[1:])
    first[::w] = True  # runs never cross from one (window, agent) to the next
    start = np.flatnonzero(first)
    count = np.diff(np.append(start, t.size)).astype(float)
    row = start // w
    return row, t[start] + (row // m) * m, count


def _union_apply(x, pairs, w, lazy):
    """:func:`_apply` of the union from :func:`_distinct_targets`' pairs (one scatter-add)."""
    row, target, count = pairs
    moved = np.bincount(target, weights=x[row] * count, minlength=len(x))
    return x * lazy + moved * ((1.0 - lazy) / w)


def _relaxed(lazy, ratio):
    """The laziness that cancels a real negative eigenvalue, from the observed ``ratio``.

    ``ratio`` estimates the dominant eigenvalue ``mu = lazy + (1 - lazy) lambda`` of
    the iteration matrix (``lambda``: that of the mean choice map A); the returned
    laziness ``-lambda / (1 - lambda)`` maps ``lambda`` to 0, capped at
    :data:`_LAZY_MAX` (other eigenvalues ``|lambda'| <= r`` then contract at
    ``<= lazy + (1 - lazy) r``).
    """
    lam = (ratio - lazy) / (1.0 - lazy)
    return np.clip(-lam / (1.0 - lam), lazy, _LAZY_MAX)


def power_influence(c, members, delta, method, tol, max_iter):
    """Power iteration for a batch of windows with one closed class each (``members``).

    Returns the (n, M) vectors, the (n,) flags of the windows that converged
    (the other rows are NaN: solve them with :func:`exact_influence`) and the
    (n,) last observed contraction rates (an estimate of ``|lambda_2|`` of the
    iteration matrix; NaN before the second iteration).

    Examples
    --------
    >>> c = np.array([[[1, 0, 0]]])                  # 0 and 1 listen to each other
    >>> vec, ok, _ = power_influence(c, np.array([[True, True, False]]), 0.5, "product", 1e-13, 300)
    >>> vec.round(4).tolist(), ok.tolist()
    ([[0.5, 0.5, 0.0]], [True])
    """
    n, w, m = c.shape
    v = members / members.sum(axis=1, keepdims=True)
    out = np.full((n, m), np.nan)
    done = np.zeros(n, dtype=bool)
    active = np.arange(n)
    prev = np.full(n, np.inf)
    rate = np.full(n, np.inf)
    hist = np.full((n, _SLOW_SPAN), np.inf)  # the last _SLOW_SPAN values of d, oldest first
    age = np.zeros(n, dtype=np.int64)  # iterations since the start (or the laziness changed)
    lazy = np.full(n, _UNION_LAZY)  # the union's laziness, per window
    checked = np.zeros(n, dtype=bool)  # the union's test for a negative eigenvalue done
    diff = None
    finished = np.zeros(n, dtype=bool)  # converged (or given up), still in the batch
    seen_rate = np.full(n, np.nan)
    sizes = members.sum(axis=1)
    small = sizes <= _DENSE_MAX
    exact_cost = _COST_SOLVE * sizes.astype(float) ** 3 + _COST_FORM * w * m
    idx = pairs = None
    for _ in range(max_iter):
        if idx is None and pairs is None:
            # one laziness for all: a scalar (an array costs a pass per scatter-add)
            per_entry = np.repeat(lazy, m) if (lazy != _UNION_LAZY).any() else _UNION_LAZY
            pairs = _distinct_targets(c[active]) if method == "union" else None
            if pairs is not None and len(pairs[0]) > _PAIRS_SHARE * len(active) * w * m:
                pairs = None  # few repeats: w plain scatter-adds are cheaper
            base = (np.arange(len(active)) * m)[:, None]
            idx = None if pairs else [(c[active, k] + base).reshape(-1) for k in range(w)]
        na = len(active)
        if pairs is not None:
            new = _union_apply(v.reshape(-1), pairs, w, per_entry).reshape(na, m)
        else:
            new = _apply(v.reshape(-1), idx, w, delta, method, per_entry).reshape(na, m)
        new /= new.sum(axis=1, keepdims=True)
        last, diff = diff, new - v
        d = np.abs(diff).max(axis=1)
        ratio = np.where(prev > 0, d / np.where(prev > 0, prev, 1.0), 0.0)
        rho = np.where(age >= 2, np.maximum(ratio, rate), np.where(age == 1, ratio, np.inf))
        with np.errstate(divide="ignore", invalid="ignore"):
            est = np.where(rho < 1.0, d * rho / (1.0 - rho), np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_rho = np.where(hist[:, 0] > 0, (d / hist[:, 0]) ** (1.0 / _SLOW_SPAN), 0.0)
        hist = np.column_stack([hist[:, 1:], d])
        slow_rho = np.where(age >= _SLOW_SPAN, np.minimum(rho, mean_rho), rho)
        live = ~finished
        seen = np.where(np.isfinite(rho), rho, np.nan)
        # as a rate of the standard iteration 0.1 I + 0.9 A (1 - rate scales with 1 - lazy)
        seen = 1.0 - (1.0 - seen) * (1.0 - _UNION_LAZY) / (1.0 - lazy)
        seen_rate[active[live]] = seen[live]
        floor = d <= 4 * np.finfo(float).eps * new.max(axis=1)
        stop = (est <= tol) | floor
        fresh = stop & live
        out[active[fresh]] = new[fresh]
        done[active[fresh]] = True
        # slowly mixing small classes, when an exact solve is cheaper (done stays False)
        finished |= stop | (
            (age >= _SLOW_AFTER) & (slow_rho >= _SLOW_RATE) & small[active]
            & (exact_cost[active] < _power_cost(est, slow_rho, tol, w * m))
        )  # fmt: skip
        rate, prev, v = ratio, d, new
        age += 1
        if method == "union":
            test = np.flatnonzero((age == _FLIP_AFTER) & ~checked & ~finished)
            if len(test):
                checked[test] = True
                a, b = diff[test], last[test]
                flip = np.einsum("ij,ij->i", a, b) / np.maximum(np.einsum("ij,ij->i", b, b), 1e-300)
                test = test[flip < _FLIP]
                if len(test):  # cancel that eigenvalue; the rate is measured afresh
                    lazy[test] = _relaxed(lazy[test], flip[flip < _FLIP])
                    per_entry = np.repeat(lazy, m)
                    age[test], prev[test], rate[test], hist[test] = 0, np.inf, np.inf, np.inf
        if finished.all():
            break
        if finished.mean() > 0.25:  # drop the converged windows from the batch
            keep = ~finished
            active, v, prev, rate = active[keep], v[keep], prev[keep], rate[keep]
            hist, age, lazy, checked = hist[keep], age[keep], lazy[keep], checked[keep]
            diff = diff[keep]
            finished = finished[keep]
            idx = pairs = None
    return out, done, seen_rate


def _power_cost(est, rho, tol, size) -> np.ndarray:
    """Seconds the power iteration still needs to bring ``est`` below ``tol`` at rate ``rho``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(rho < 1.0, np.log(tol / np.maximum(est, tol)) / np.log(rho), np.inf)
    return np.maximum(left, 0.0) * size * _COST_SCATTER


def _arnoldi_perron(sub: sp.csr_array, gap: float) -> np.ndarray | None:
    """The stationary vector of a sparse irreducible ``sub`` by Arnoldi (ARPACK), or None.

    Iterates the lazy chain ``(I + S) / 2`` (same stationary vector, aperiodic,
    so 1 is its only eigenvalue of modulus 1) to machine precision, with a
    bounded effort (:data:`_ARNOLDI_NCV` vectors, :data:`_ARNOLDI_RESTARTS`
    restarts). ``gap`` estimates ``1 - |lambda_2(S)|`` (from the power
    iteration's observed rate): the error is about residual / gap, so the
    answer is kept only when ``|pi S - pi|_1 <= 1e-12 gap``; None otherwise, or
    when ARPACK does not converge.
    """
    k = sub.shape[0]
    lazy = sp.csr_array((sp.eye_array(k) + sub) * 0.5).T
    try:
        _, vecs = spla.eigs(lazy, k=1, which="LM", tol=0, v0=np.full(k, 1.0 / k),
                            ncv=min(k - 1, _ARNOLDI_NCV), maxiter=_ARNOLDI_RESTARTS)  # fmt: skip
    except (spla.ArpackNoConvergence, spla.ArpackError):
        return None
    pi = np.abs(vecs[:, 0].real)
    pi /= pi.sum()
    residual = np.abs(sub.T @ pi - pi).sum()
    return pi if residual <= _ARNOLDI_ERROR * gap else None


def chain_perron(off, x0=None, *, tol: float = 1e-13, max_iter: int = 300):
    """Stationary vector of ``S = D + off`` (row-stochastic up to one factor, irreducible)
    by power iteration on its jump chain, or None.

    ``off`` holds the off-diagonal entries of S (zero diagonal, every row sum
    ``r_i > 0``, any common scale: a window's summed weights will do). With
    ``Q = off / r`` (the chain that moves at every step), ``pi S = pi`` iff
    ``y = pi r`` solves ``y Q = y``: the diagonal, which slows the plain
    iteration of a union window (most agents hear no one in most steps), is
    left out. Iterates ``pi <- lazy pi + (1 - lazy) (off^T pi) / r`` from ``x0``
    (a warm start, e.g. the neighbouring window's vector; default uniform),
    with the union iteration's laziness 0.1, its test for a dominant negative
    eigenvalue (then the laziness that cancels it) and its stopping rule
    (estimated error ``d rho / (1 - rho) <= tol``, or ``d`` at the rounding
    floor).

    Returns
    -------
    pi : numpy.ndarray or None
        Summing to 1; None when not converged after ``max_iter`` iterations.
    rate : float
        The last observed contraction rate (NaN before the second iteration).

    Examples
    --------
    >>> off = sp.csr_array(np.array([[0.0, 1.0], [0.5, 0.0]]))   # S = [[0, 1], [.5, .5]]
    >>> pi, _ = chain_perron(off)
    >>> pi.round(4).tolist()
    [0.3333, 0.6667]
    """
    k = off.shape[0]
    r = np.asarray(off.sum(axis=1)).ravel()
    back = sp.csr_array(off).T  # off^T pi: what each agent is heard with
    pi = np.full(k, 1.0 / k) if x0 is None else np.asarray(x0, dtype=float) / np.sum(x0)
    lazy, age, prev, rate = _UNION_LAZY, 0, np.inf, np.inf
    diff = last = None
    checked = False
    floor = 4 * np.finfo(float).eps
    for _ in range(max_iter):
        new = back @ pi
        new /= r
        new *= 1.0 - lazy
        new += lazy * pi
        new /= new.sum()
        last, diff = diff, new - pi
        d = float(np.abs(diff).max())
        ratio = d / prev if prev > 0 else 0.0
        rho = max(ratio, rate) if age >= 2 else (ratio if age == 1 else np.inf)
        pi, prev, rate = new, d, ratio
        age += 1
        if (rho < 1.0 and d * rho / (1.0 - rho) <= tol) or d <= floor * new.max():
            return pi, rho
        if not checked and age == _FLIP_AFTER:
            checked = True
            flip = float(diff @ last) / max(float(last @ last), 1e-300)
            if flip < _FLIP:  # cancel that eigenvalue; the rate is measured afresh
                lazy = float(_relaxed(lazy, flip))
                age, prev, rate = 0, np.inf, np.inf
    return None, (rate if np.isfinite(rate) else np.nan)


def class_perron(sub, *, gap: float | None = None) -> np.ndarray:
    """Stationary vector of an irreducible row-stochastic matrix, by an exact solve.

    Solves ``pi^T (I - S) = 0`` with ``sum(pi) = 1`` (one equation replaced by
    the normalisation): dense LAPACK up to 1000 states; above, SuperLU on the
    other ``k - 1`` equations with ``pi[-1] = 1`` (no dense row: the LU keeps the
    matrix's sparsity). Given
    ``gap`` (an estimate of ``1 - |lambda_2|``), a sparse ``sub`` of more than
    200 states and at most 5% nonzeros (e.g. a union of choice maps) is first
    tried by Arnoldi on ``(I + S) / 2``, kept when residual / gap <= 1e-12.
    Exact up to rounding, periodic or not.

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
    sparse = sp.issparse(sub) and sub.nnz <= _ARNOLDI_DENSITY * k * k
    if gap is not None and gap > 0 and sparse and k > _ARNOLDI_MIN:
        pi = _arnoldi_perron(sp.csr_array(sub), gap)
        if pi is not None:
            return pi
    rhs = np.zeros(k)
    rhs[-1] = 1.0
    if k <= _DENSE_MAX:
        dense = sub.toarray() if sp.issparse(sub) else np.asarray(sub, dtype=float)
        a = np.eye(k) - dense.T
        a[-1, :] = 1.0
        pi = np.linalg.solve(a, rhs)
    else:  # fix pi[-1] = 1 and solve the other k - 1 equations: no dense row, so
        # SuperLU keeps the matrix's sparsity (a row of ones filled in a ring's LU
        # densely: a 40,000-state ring took > 3 GB and crashed SuperLU)
        a = sp.csc_array(sp.eye_array(k) - sp.csr_array(sub).T)
        head = spla.spsolve(sp.csc_array(a[:-1, :-1]), -a[:-1, [k - 1]].toarray().ravel())
        pi = np.append(np.atleast_1d(head), 1.0)
    pi = np.clip(np.where(np.abs(pi) < 1e-15, 0.0, pi), 0.0, None)
    return pi / pi.sum()


def exact_influence(c_win, member, delta, method, rate=np.nan):
    """Influence of one window by forming its matrix on the closed class only.

    ``rate``: the power iteration's observed contraction rate, from which the
    spectral gap of the window's matrix is estimated for :func:`class_perron`
    (the union iterates ``0.1 I + 0.9 A`` while ``U = delta I + (1 - delta) A``).

    Examples
    --------
    >>> exact_influence(np.array([[1, 0, 0]]), np.array([True, True, False]), 0.5, "product")
    array([0.5, 0.5, 0. ])
    """
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
    gap = 1.0 - rate
    if method == "union":
        gap *= (1.0 - delta) / (1.0 - _UNION_LAZY)
    out = np.zeros(m)
    out[cls] = class_perron(sp.csr_array(mat)[:, cls], gap=gap if np.isfinite(gap) else None)
    return out
