"""Influence of agents: the left Perron vector of W, per step, per window, and references.

An agent's **influence** is the left Perron vector ``pi`` of the row-stochastic
weight matrix W (``pi^T W = pi^T``, ``sum(pi) = 1``; DESIGN.md). In pooling,
``x_t = W_t x_{t-1}`` (log-posteriors, row ``i`` = agent ``i``), so the long-run
consensus is ``pi^T x_0``: ``pi_j`` is the share of agent ``j``'s initial belief
in it. On a digraph in our convention (edge ``(j, i)``: ``i`` receives from
``j`` with weight ``w_ij``) it is eigenvector centrality of the *reversed*
graph, ``nx.eigenvector_centrality(G.reverse(), weight="weight")`` rescaled to
sum 1.

Uniqueness
----------
``pi`` is unique iff W has exactly one *closed class*: a strongly connected
set of agents that listens to nobody outside it (in the information-flow
direction: a source component, which no edge enters). ``pi`` is zero outside
that class. A single BayGo step (every agent listens to exactly one other)
usually has several closed classes; then there is no unique influence vector,
and :func:`influence` raises :class:`~baygo_graph.exceptions.NotUniqueError`
(or returns NaNs with ``on_nonunique="nan"``), never a silent choice.

Computation: the closed classes come from
``scipy.sparse.csgraph.connected_components(connection="strong")`` on W's
nonzero pattern; ``pi`` restricted to the closed class C solves
``pi_C^T (I - W_CC) = 0`` with ``sum(pi_C) = 1`` (one equation replaced by the
normalisation; W_CC is irreducible, so the system is nonsingular): a dense
LAPACK solve for classes of up to 1000 agents, ``scipy.sparse.linalg.spsolve``
above. This is exact up to rounding and, unlike power iteration, does not care
whether the class is periodic.

Node order, windows, missing values
-----------------------------------
For a graph, array positions follow ``nodelist``, else
:func:`~baygo_graph.analysis.weights.node_order` (labels sorted when sortable,
else ``list(G)`` order); for a series, ``series.nodes``. Windows and their
arguments (``windows="aligned"``/``"sliding"``, ``incomplete="drop"``/``"keep"``,
half-open ``[start, stop)``) are those of :mod:`baygo_graph.analysis.windows`.
An undefined float (a non-unique influence, a rank of such a row, a step
without a window) is NaN.
"""

from __future__ import annotations

import warnings

import networkx as nx  # noqa: F401  (used by the doctests)
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from .._validate import check_choice, check_int
from ..exceptions import NotUniqueError
from ..series import as_series
from ..strategies import WEIGHT_RULES, resolve_strategy
from .weights import METHODS, weight_matrix, window_matrix
from .windows import INCOMPLETE, WINDOWS

__all__ = [
    "closed_classes",
    "influence",
    "influence_rank",
    "influence_series",
    "reference_influence",
    "window_matrix",
]

ON_NONUNIQUE = ("raise", "nan")
# Closed classes up to this size are solved densely.
_DENSE_MAX = 1000
# Dense (T, M, M) stacks up to this many values are used by influence_series.
_STACK_MAX = 1 << 23


def _to_weights(graph_or_weights, nodelist) -> sp.csr_array:
    return weight_matrix(graph_or_weights, nodelist=nodelist)


def _closed(w: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """SCC labels of W's pattern and the labels of the closed classes."""
    n, labels = connected_components(w, directed=True, connection="strong")
    coo = sp.coo_array(w)
    cross = labels[coo.row] != labels[coo.col]
    leaves = np.zeros(n, dtype=bool)  # class listens to someone outside it
    leaves[labels[coo.row[cross]]] = True
    return labels, np.flatnonzero(~leaves)


def closed_classes(graph_or_weights, *, nodelist=None) -> list[np.ndarray]:
    """The closed classes of W: strongly connected sets that listen to no one outside.

    Parameters
    ----------
    graph_or_weights : networkx.DiGraph or array_like or sparse matrix
        As in :func:`influence`.
    nodelist : list, optional
        Node order of a graph (default
        :func:`~baygo_graph.analysis.weights.node_order`: sorted labels when
        sortable, else ``list(G)`` order).

    Returns
    -------
    list of numpy.ndarray of int
        Each class as sorted array positions in that node order, ordered by
        their smallest member. For a digraph with positive weights the classes,
        as sets of nodes, are ``nx.attracting_components(G.reverse())``: no edge
        enters them from outside (edges of weight 0 do not count here).

    Examples
    --------
    >>> g = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2), (0, 4), (2, 4)])
    >>> [c.tolist() for c in closed_classes(g)]
    [[0, 1], [2, 3]]
    >>> h = nx.DiGraph([("x", 1), (1, "x"), ("x", "y")])   # unsortable labels
    >>> from baygo_graph.analysis.weights import node_order
    >>> order = node_order(h)
    >>> [{order[k] for k in c} for c in closed_classes(h)] == [{"x", 1}]
    True
    """
    w = _to_weights(graph_or_weights, nodelist)
    labels, closed = _closed(w)
    out = [np.flatnonzero(labels == c) for c in closed]
    return sorted(out, key=lambda c: c[0])


def _perron(w: sp.csr_array, on_nonunique: str) -> np.ndarray:
    m = w.shape[0]
    labels, closed = _closed(w)
    if len(closed) != 1:
        if on_nonunique == "nan":
            return np.full(m, np.nan)
        raise NotUniqueError(
            f"influence is not unique: W has {len(closed)} closed classes (strongly "
            "connected groups of agents that listen to no one outside), it needs exactly 1"
        )
    members = np.flatnonzero(labels == closed[0])
    out = np.zeros(m)
    k = len(members)
    if k == 1:
        out[members] = 1.0
        return out
    sub = w[members][:, members]
    # pi^T (I - W_CC) = 0  <=>  (I - W_CC)^T pi = 0; replace the last equation by sum(pi) = 1.
    if k <= _DENSE_MAX:
        a = np.eye(k) - sub.toarray().T
        a[-1, :] = 1.0
        rhs = np.zeros(k)
        rhs[-1] = 1.0
        pi = np.linalg.solve(a, rhs)
    else:
        a = sp.lil_array(sp.eye_array(k) - sub.T)
        a[k - 1, :] = np.ones(k)
        rhs = np.zeros(k)
        rhs[-1] = 1.0
        pi = spla.spsolve(sp.csc_array(a), rhs)
    pi = np.where(np.abs(pi) < 1e-15, 0.0, pi)
    if np.any(pi < -1e-9):  # cannot happen for a stochastic closed class
        raise ArithmeticError("influence solve lost accuracy (negative entries)")
    pi = np.clip(pi, 0.0, None)
    out[members] = pi / pi.sum()
    return out


def influence(graph_or_weights, *, nodelist=None, on_nonunique: str = "raise") -> np.ndarray:
    """The influence vector: left Perron vector of W, summing to 1.

    Parameters
    ----------
    graph_or_weights : networkx.DiGraph, array_like or scipy sparse matrix
        A digraph in our convention (edge ``(j, i)``: ``i`` receives from ``j``
        with attribute ``weight`` = ``w_ij``, 1 where absent; every edge weight
        finite and >= 0): row ``i`` of W is node ``i``'s in-edge weights
        (self-loop included) divided by their sum, and a node with no in-edge
        gets ``w_ii = 1``. An undirected graph counts each edge both ways. Or W
        itself: square, non-negative, rows summing to 1 (within 1e-9).
    nodelist : list, optional
        Order of the nodes of a graph in the result (default
        :func:`~baygo_graph.analysis.weights.node_order`: sorted labels when
        sortable, else ``list(G)`` order).
    on_nonunique : {"raise", "nan"}, default "raise"
        What to do when W has several closed classes (no unique vector): raise
        :class:`~baygo_graph.exceptions.NotUniqueError` (its message names the
        number of classes), or return an all-NaN vector.

    Returns
    -------
    numpy.ndarray, shape (M,)
        ``pi`` with ``pi @ W == pi`` and ``pi.sum() == 1``; zero outside the
        closed class.

    Raises
    ------
    NotUniqueError
        With ``on_nonunique="raise"`` when W has more than one closed class.
    ValueError, TypeError
        For a bad matrix (not square, negative, rows not summing to 1) or graph.

    See Also
    --------
    closed_classes, influence_series

    Examples
    --------
    The star with agent 0 at the centre and the delta rule (PosM): the centre
    holds half of the influence whatever M and delta.

    >>> from baygo_graph.strategies import star
    >>> influence(star(4, center=0).matrix(4, delta=0.3)).round(4).tolist()
    [0.5, 0.1667, 0.1667, 0.1667]

    The same from a digraph (i receives from j along edge (j, i)):

    >>> g = nx.DiGraph([(0, 1), (1, 0), (0, 2), (2, 0)])
    >>> influence(g).tolist()
    [0.5, 0.25, 0.25]

    Two agents that only listen to themselves: two closed classes.

    >>> influence(np.eye(2), on_nonunique="nan").tolist()
    [nan, nan]
    """
    check_choice("on_nonunique", on_nonunique, ON_NONUNIQUE)
    return _perron(_to_weights(graph_or_weights, nodelist), on_nonunique)


def influence_series(
    source,
    *,
    window: int = 10,
    method: str = "product",
    windows: str | None = None,
    incomplete: str = "drop",
    on_nonunique: str = "nan",
) -> np.ndarray:
    """Influence of every agent over time, from windows of ``window`` steps.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`~baygo_graph.analysis.as_series` (a centralised run has no
        graph: ValueError).
    window : int, default 10
        Window length w, ``1 <= w <= T``. ``window=1`` gives the per-step
        influence (where unique; both methods agree).
    method : {"product", "union"}, default "product"
        ``"product"``: influence of ``W_t W_{t-1} ... W_{t-w+1}`` (the influence
        the window exerts on the long-run average of the beliefs it starts
        from); ``"union"``: influence of the mean W of the window (the union
        graph, row-normalised). See :func:`window_matrix`.
    windows : {"aligned", "sliding"}, default "sliding" (changing to "aligned")
        Aligned windows ``[nw, (n+1)w)`` or every window ``[s, s+w)`` of ``w``
        consecutive steps (see :mod:`baygo_graph.analysis.windows`). Each
        window's influence is the row of its last step, ``stop - 1``; every
        other row is NaN, so the shape stays (T, M) and rows line up with
        ``run.mse``. Sliding fills every row ``t >= w - 1`` with the window
        ``[t-w+1, t+1)``; aligned the rows ``(n+1)w - 1`` (the same values as
        sliding there). Not passing ``windows`` means ``"sliding"`` with a
        FutureWarning: the default becomes ``"aligned"``, as in
        :func:`~baygo_graph.analysis.b_connectivity`, in 0.3.
    incomplete : {"drop", "keep"}, default "drop"
        Leave out the windows that reach outside steps ``0 .. T-1``, or keep
        them cut at the ends of the series: with ``"keep"``, sliding rows
        ``t < w - 1`` hold the window ``[0, t+1)`` and aligned row ``T - 1``
        the tail ``[nw, T)`` when ``w`` does not divide ``T``.
    on_nonunique : {"nan", "raise"}, default "nan"
        A window whose matrix has several closed classes gives a NaN row, or
        raises :class:`~baygo_graph.exceptions.NotUniqueError`.

    Returns
    -------
    numpy.ndarray, shape (T, M)
        Rows sum to 1 where defined; NaN for rows not ending a window (with
        ``incomplete="drop"``, every ``t < w - 1``), and where the influence is
        not unique. For a fixed strategy
        every defined row is ``influence(W)`` (``influence(W^w)`` for the
        product, the same when W is aperiodic, e.g. ``delta > 0``).

    Notes
    -----
    Products of long windows of small weights may underflow to exact zeros
    (``0.5**1075``), which would change the closed classes: keep ``w`` well
    below 1000 steps.

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> run = simulate("posm", agents=3, steps=4, grid=9, rng=0, data=synthetic_bodyfat())
    >>> influence_series(run, window=2, windows="sliding").round(3).tolist()
    [[nan, nan, nan], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]]
    >>> a = nx.DiGraph([(1, 0), (0, 1)]); a.add_node(2)     # 0 and 1 talk
    >>> b = nx.DiGraph([(1, 2), (2, 1)]); b.add_node(0)     # 1 and 2 talk
    >>> influence_series([a, b, a, b], window=2, method="union", windows="aligned").round(3)
    array([[  nan,   nan,   nan],
           [0.333, 0.333, 0.333],
           [  nan,   nan,   nan],
           [0.333, 0.333, 0.333]])
    >>> influence_series([a, b, a, b], window=1, windows="aligned")[0].tolist()   # 2 alone
    [nan, nan, nan]
    """
    s = as_series(source)
    check_choice("method", method, METHODS)
    windows = _windows_default(windows)
    check_choice("windows", windows, WINDOWS)
    check_choice("incomplete", incomplete, INCOMPLETE)
    check_choice("on_nonunique", on_nonunique, ON_NONUNIQUE)
    w = check_int("window", window, minimum=1, maximum=s.n_steps)
    T, m = s.n_steps, s.n_agents
    out = np.full((T, m), np.nan)
    ends = np.arange(w - 1, T)
    if windows == "aligned":
        ends = ends[(ends + 1) % w == 0]
    if incomplete == "keep":
        _fill_incomplete(s, out, w, windows=windows, method=method, on_nonunique=on_nonunique)
    if len(ends) == 0:
        return out
    if s.fixed is not None:
        mat = s.fixed
        if method == "product":
            for _ in range(w - 1):
                mat = sp.csr_array(s.fixed @ mat)
        out[ends] = _perron(_to_weights(mat, None), on_nonunique)
        return out
    if T * m * m <= _STACK_MAX:
        stack = s.weight_stack()
        acc = stack.copy()
        for k in range(1, w):  # acc[t] = W_t ... W_{t-k}  (product) or their sum (union)
            if method == "product":
                acc[k:] = np.matmul(acc[k:], stack[: T - k])
            else:
                acc[k:] += stack[: T - k]
        if method == "union":
            acc /= w
        for t in ends:
            out[t] = _perron(_to_weights(_renorm(acc[t]), None), on_nonunique)
        return out
    for t in ends:
        mat = window_matrix(s, int(t) - w + 1, int(t) + 1, method=method)
        out[t] = _perron(_to_weights(_renorm(mat), None), on_nonunique)
    return out


def _windows_default(windows):
    if windows is None:
        warnings.warn(
            "influence_series: the default of windows= changes from 'sliding' to "
            "'aligned' (as in b_connectivity) in 0.3; pass windows='sliding' to keep "
            "the current rows",
            FutureWarning,
            stacklevel=3,
        )
        return "sliding"
    return windows


def _fill_incomplete(s, out, w, *, windows, method, on_nonunique) -> None:
    """Rows of the windows cut at the ends of the series (``incomplete="keep"``)."""
    t_all = s.n_steps
    if windows == "sliding":
        cut = [(0, t + 1) for t in range(min(w - 1, t_all))]
    else:
        tail = (t_all // w) * w
        cut = [(tail, t_all)] if tail < t_all else []
    for start, stop in cut:
        mat = window_matrix(s, start, stop, method=method)
        out[stop - 1] = _perron(_to_weights(_renorm(mat), None), on_nonunique)


def _renorm(mat):
    """Rescale rows to sum exactly 1 (products and means drift by rounding)."""
    if sp.issparse(mat):
        rows = np.asarray(mat.sum(axis=1)).ravel()
        return sp.csr_array(sp.diags_array(1.0 / rows) @ mat)
    return mat / mat.sum(axis=1, keepdims=True)


def influence_rank(influence, agent: int, *, tol: float = 1e-12):
    """Rank of ``agent`` by influence: 1 = most influential.

    Competition ranking: one plus the number of agents whose influence exceeds
    the agent's by more than ``tol`` (so ties share the better rank).

    Parameters
    ----------
    influence : array_like, shape (M,) or (T, M)
        One influence vector or a series (e.g. from :func:`influence_series`).
    agent : int
        Column of the agent.
    tol : float, default 1e-12

    Returns
    -------
    float or numpy.ndarray of float, shape (T,)
        NaN where the row holds NaN.

    Examples
    --------
    >>> influence_rank([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [np.nan] * 3], 0).tolist()
    [1.0, 3.0, nan]
    >>> influence_rank(np.full(4, 0.25), 2)
    1.0
    """
    x = np.asarray(influence, dtype=float)
    if x.ndim not in (1, 2):
        raise ValueError(f"influence must have shape (M,) or (T, M), got {x.shape}")
    m = x.shape[-1]
    agent = check_int("agent", agent, minimum=0, maximum=m - 1)
    own = x[..., agent : agent + 1]
    rank = 1.0 + (x > own + tol).sum(axis=-1)
    rank = np.where(np.isnan(x).any(axis=-1), np.nan, rank)
    return float(rank) if x.ndim == 1 else rank


def reference_influence(
    agents: int,
    *,
    informative: int = 0,
    delta: float = 0.5,
    weights: str = "delta",
) -> dict:
    """The informative agent's influence under the fixed reference strategies.

    Computed with :func:`influence` on the weight matrices of
    :mod:`baygo_graph.strategies`: ``"posm"`` (star centred on the informative
    agent), ``"negm"`` (star centred on agent ``(informative + 1) % M``, the
    informative agent at a leaf) and ``"complete"``.

    With the ``"delta"`` rule (``0 <= delta < 1``) these are, whatever delta:
    PosM ``1/2``, NegM ``1 / (2 (M - 1))``, complete ``1 / M``. With
    ``"uniform"``: PosM ``M / (3M - 2)``, NegM ``2 / (3M - 2)``, complete
    ``1 / M``.

    Parameters
    ----------
    agents : int
        Number of agents M (>= 2).
    informative : int, default 0
    delta : float, default 0.5
    weights : {"delta", "uniform", "edge"}, default "delta"

    Returns
    -------
    dict
        ``{"posm": float, "negm": float, "complete": float}``.

    Examples
    --------
    >>> {k: round(v, 4) for k, v in reference_influence(12).items()}
    {'posm': 0.5, 'negm': 0.0455, 'complete': 0.0833}
    """
    agents = check_int("agents", agents, minimum=2)
    informative = check_int("informative", informative, minimum=0, maximum=agents - 1)
    check_choice("weights", weights, WEIGHT_RULES)
    out = {}
    for name in ("posm", "negm", "complete"):
        strat = resolve_strategy(name, agents=agents, informative=informative, weights=weights)
        pi = influence(strat.matrix(agents, delta=delta))
        out[name] = float(pi[informative])
    return out
