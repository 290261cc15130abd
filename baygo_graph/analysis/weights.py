"""Weight matrices: a digraph or matrix as row-stochastic W, and the W a window acts with.

Convention (docs/design.md): edge ``(j, i)`` of a digraph means agent ``i`` receives
from ``j`` with weight ``w_ij`` (attribute ``weight``, 1 where absent); W is
row-stochastic, row ``i`` holding agent ``i``'s weights. Every graph -> array
conversion here names its node order: ``nodelist`` when given, else
:func:`node_order` (the labels sorted when they are sortable, else
``list(G)`` order - the order :func:`~baygo_graph.inputs.as_series` gives a
sequence of graphs). Windows are half-open ``[start, stop)`` as in
:mod:`baygo_graph.analysis.windows`.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .._text import counted
from .._validate import check_choice, check_int, check_real_array
from ..inputs import series_input
from ..series import node_order, row_shares

__all__ = ["METHODS", "listening_graph", "node_order", "weight_matrix", "window_matrix"]

#: Values of the ``method=`` argument of :func:`window_matrix` (the first is the default).
METHODS = ("product", "union")
# Row sums of a weight matrix must be 1 within this tolerance.
_ROW_TOL = 1e-9


def _graph_weights(g: nx.Graph, nodelist) -> sp.csr_array:
    if g.number_of_nodes() == 0:
        raise ValueError("cannot compute influence for the null graph (no nodes)")
    nodes = node_order(g, nodelist)
    a = nx.to_scipy_sparse_array(g, nodelist=nodes, weight="weight", format="csr")
    w = sp.csr_array(a.T, dtype=float)
    if w.nnz and (not np.all(np.isfinite(w.data)) or np.any(w.data < 0)):
        raise ValueError("edge weights must be finite and >= 0")
    with np.errstate(over="ignore"):  # an overflow is handled below
        total = np.asarray(w.sum(axis=1)).ravel()
    if not np.isfinite(total).all():  # huge finite weights: shares without overflow
        coo = sp.coo_array(w)
        shares, _ = row_shares(coo.data, coo.row, w.shape[0])
        w = sp.csr_array((shares, (coo.row, coo.col)), shape=w.shape)
        total = np.asarray(w.sum(axis=1)).ravel()
    empty = total == 0
    w = w + sp.diags_array(empty.astype(float))
    total[empty] = 1.0
    return sp.csr_array(sp.diags_array(1.0 / total) @ w)


def _matrix_weights(weights) -> sp.csr_array:
    check_real_array("weights", weights)  # a complex matrix is refused, not cut to reals
    if sp.issparse(weights):
        w = sp.csr_array(weights, dtype=float)
    else:
        try:
            arr = np.asarray(weights, dtype=float)
        except (TypeError, ValueError) as e:
            raise TypeError(
                "graph_or_weights must be a networkx digraph or a square matrix, "
                f"got {type(weights).__name__}"
            ) from e
        if arr.ndim != 2:
            raise ValueError(f"weights must be a square matrix, got shape {arr.shape}")
        w = sp.csr_array(arr)
    m, n = w.shape
    if m != n or m == 0:
        raise ValueError(f"weights must be a non-empty square matrix, got shape {w.shape}")
    if w.nnz and (not np.all(np.isfinite(w.data)) or np.any(w.data < 0)):
        raise ValueError("weights must be finite and >= 0")
    rows = np.asarray(w.sum(axis=1)).ravel()
    bad = np.flatnonzero(np.abs(rows - 1.0) > _ROW_TOL)
    if len(bad):
        raise ValueError(
            f"weights must be row-stochastic (rows summing to 1), row {bad[0]} "
            f"sums to {rows[bad[0]]!r}"
        )
    return w


def weight_matrix(graph_or_weights, *, nodelist=None) -> sp.csr_array:
    """Row-stochastic W from a digraph (in-edge weights) or a matrix, as canonical CSR.

    Parameters
    ----------
    graph_or_weights : networkx.DiGraph, array_like or scipy sparse matrix
        A digraph in our convention (every edge weight finite and >= 0): row
        ``i`` of W is node ``i``'s in-edge weights (self-loop included) divided
        by their sum, and a node with no in-edge gets ``w_ii = 1``. An
        undirected graph counts each edge both ways. Or W itself: square,
        non-negative, rows summing to 1 (within 1e-9).
    nodelist : list, optional
        Node order of a graph's rows and columns (default :func:`node_order`:
        sorted labels, else ``list(G)``).

    Returns
    -------
    scipy.sparse.csr_array, shape (M, M)
        Without explicit zeros or duplicate entries.

    Examples
    --------
    >>> g = nx.DiGraph([("b", "a", {"weight": 3.0}), ("a", "a")]); g.add_node("c")
    >>> weight_matrix(g).toarray().tolist()   # order a, b, c
    [[0.25, 0.75, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if isinstance(graph_or_weights, nx.Graph):
        w = _graph_weights(graph_or_weights, nodelist)
    else:
        if nodelist is not None:
            raise ValueError("nodelist applies to graphs only, not to weight matrices")
        w = _matrix_weights(graph_or_weights)
    w.sum_duplicates()  # canonical: csgraph must not see repeated entries
    w.eliminate_zeros()
    return w


def listening_graph(graph_or_weights, *, nodelist=None) -> nx.DiGraph:
    """The listening graph of W: an edge ``i -> j`` of weight ``w_ij`` for every
    nonzero entry, self-loops included; the graph PageRank runs on.

    The reverse of our convention's digraph (edge ``(j, i)``: ``i`` receives from
    ``j``), plus what :func:`weight_matrix` adds: the self-loop ``w_ii = 1`` of a
    node that hears no one, so that no node is dangling.
    :func:`~baygo_graph.analysis.damped_influence` equals
    ``networkx.pagerank(listening_graph(g), alpha=damping)``.

    Parameters
    ----------
    graph_or_weights, nodelist
        As in :func:`weight_matrix`; the nodes are the graph's labels (positions
        ``0 .. M-1`` for a matrix).

    Returns
    -------
    networkx.DiGraph

    Examples
    --------
    >>> g = nx.DiGraph([("b", "a")]); g.add_node("c")     # a hears b; b and c hear no one
    >>> sorted(listening_graph(g).edges(data="weight"))
    [('a', 'b', 1.0), ('b', 'b', 1.0), ('c', 'c', 1.0)]
    """
    w = sp.coo_array(weight_matrix(graph_or_weights, nodelist=nodelist))
    if isinstance(graph_or_weights, nx.Graph):
        labels = node_order(graph_or_weights, nodelist)
    else:
        labels = list(range(w.shape[0]))
    out = nx.DiGraph()
    out.add_nodes_from(labels)
    out.add_weighted_edges_from(
        (labels[i], labels[j], float(x))
        for i, j, x in zip(w.row.tolist(), w.col.tolist(), w.data.tolist(), strict=True)
    )
    return out


#: Bytes per entry of a window product, counted on its largest possible fill: the
#: product (data and indices, 16 B) and what its influence solve holds beside it
#: (the strong components' or the jump chain's copy, another 16 B), and what earlier
#: windows' freed products leave resident. Measured (peak RSS above what the process
#: held before the first window, dense products; hostile round 11, P10): 33 B an entry
#: (3,000 nodes, 6 windows), 39.8-47.7 B (2,000 nodes, 6-91 windows), 36.8 B (241).
PRODUCT_BYTES_PER_ENTRY = 48


def _product_fill(a: sp.csr_array, b_rows: np.ndarray) -> np.ndarray:
    """Per row, the largest fill of ``a @ b`` where row k of ``b`` holds ``b_rows[k]``
    entries: ``sum over a's entries (i, k) of b_rows[k]``, at most one entry a column."""
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    reach = np.bincount(rows, weights=b_rows[a.indices], minlength=a.shape[0])
    return np.minimum(reach, len(b_rows))


def products_bound(s, spans) -> int:
    """The largest fill any product check of the windows ``spans`` (``(start, stop)``
    pairs) can count: the fill :func:`window_products` checks (:func:`_product_fill`)
    with each earlier product's row counts replaced by their own bound (at most M a
    row), computed from the steps' sparsity patterns alone, without forming a product.
    Every check of :func:`window_products` over these windows counts at most this many
    entries.

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> s = as_series([nx.DiGraph([(0, 1)]), nx.DiGraph([(1, 2)])], self_weight="equal")
    >>> products_bound(s, [(0, 2)])     # rows: 0 -> {0}, 1 -> {0, 1}, 2 -> {0, 1, 2}
    6
    """
    top, cache = 0, {}

    def pattern(t):
        return cache[t] if t in cache else cache.setdefault(t, s.weights(t))

    for start, stop in spans:
        for t in [t for t in cache if t < start]:  # sliding windows move forward
            del cache[t]
        rows = np.diff(pattern(start).indptr).astype(float)
        for t in range(start + 1, stop):
            rows = _product_fill(pattern(t), rows)
            top = max(top, int(rows.sum()))
    return top


def window_products(s, spans, *, budget=None):
    """Yield the product matrix of each window ``(start, stop)`` of ``spans`` (as
    :func:`window_matrix` with ``method="product"``), every step's product checked
    against one budget, measured once before the first.

    What the process holds is measured once: products of earlier windows are freed, but
    the allocator keeps their memory, and measuring again would count it on top of the
    next product that reuses it (hostile round 11, P10). A refusal advises a limit that
    covers the largest product of every window left (:func:`products_bound`), so one
    retry runs.

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> s = as_series([nx.DiGraph([(0, 1)]), nx.DiGraph([(1, 2)])], self_weight="equal")
    >>> [p.nnz for p in window_products(s, [(0, 1), (0, 2)])]
    [4, 6]
    """
    from ..limits import memory_budget

    budget = memory_budget() if budget is None else budget
    spans = [(int(a), int(b)) for a, b in spans]
    for k, (start, stop) in enumerate(spans):
        out = s.weights(start)
        for t in range(start + 1, stop):
            a = s.weights(t)
            fill = int(_product_fill(a, np.diff(out.indptr).astype(float)).sum())
            need = PRODUCT_BYTES_PER_ENTRY * fill
            if not budget.fits(need):  # the advice covers every window left, not this one
                bound = max(fill, products_bound(s, spans[k:]))
                budget.check(
                    need,
                    what=f"the product of steps {start}..{t} "
                    f"({counted(fill, 'entry', 'entries', spec=',')} at most)",
                    advice="take a shorter window, or method='union'",
                    covers=(PRODUCT_BYTES_PER_ENTRY * bound, "for every window"),
                )
            out = sp.csr_array(a @ out)
            del a
        out.eliminate_zeros()
        out.sort_indices()
        yield out
        del out


@series_input
def window_matrix(source, start: int, stop: int, *, method: str = "product") -> sp.csr_array:
    """The weight matrix the window ``[start, stop)`` (steps ``start .. stop-1``) acts with.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`~baygo_graph.inputs.as_series` (rows and columns in the
        series' node order).
    start, stop : int
        ``0 <= start < stop <= T``.
    method : {"product", "union"}, default "product"
        ``"product"``: ``W_{stop-1} ... W_{start+1} W_start`` - since pooling
        maps ``x_t = W_t x_{t-1}``, this is the map from the beliefs before the
        window to those after it. ``"union"``: the mean of the window's W, the
        row-normalised weights of the union graph.

    Returns
    -------
    scipy.sparse.csr_array, shape (M, M)
        Row-stochastic.

    Examples
    --------
    >>> a = nx.DiGraph([(1, 0)]); a.add_node(2)      # 0 listens to 1
    >>> b = nx.DiGraph([(2, 1)]); b.add_node(0)      # 1 listens to 2
    >>> from baygo_graph.inputs import as_series
    >>> s = as_series([a, b], self_weight=0)         # the edges alone: no self-weight
    >>> window_matrix(s, 0, 2).toarray().tolist()  # W_1 W_0: 0 ends with 1's belief
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    >>> window_matrix(s, 0, 2, method="union").toarray().tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]]
    """
    s = source
    check_choice("method", method, METHODS)
    start, stop = check_int("start", start), check_int("stop", stop)
    if not 0 <= start < stop <= s.n_steps:
        raise ValueError(f"need 0 <= start < stop <= {s.n_steps}, got start={start}, stop={stop}")
    if method == "union":
        out = sp.csr_array(s.weight_sum(start, stop) / float(stop - start))
        out.eliminate_zeros()
        out.sort_indices()
        return out
    return next(window_products(s, [(start, stop)]))
