"""One graph-series abstraction: a time series of weighted step digraphs held as arrays.

Three backings behind one interface, so that the run record, the analysis and the
figures never ask what kind of series they hold (defined in
:mod:`baygo_graph.series_backings`, re-exported here):

* :class:`ChoiceSeries` - BayGo-like steps, one chosen in-neighbour per agent
  (``w_ii = delta``, ``w_i,choice = 1 - delta``; ``-1``: no choice, ``w_ii = 1``);
* :class:`FixedSeries` - the same W every step (fixed graphs, NoCol);
* :class:`EdgeListSeries` - any weighted digraphs (e.g. read from NetworkX or a file),
  held as their nonzero weight entries sorted by step.

This module turns what callers hold into a series: :func:`as_series` (a run, a
series, or NetworkX digraphs with their node order, :func:`node_order`, and
row normalisation, :func:`row_shares`).

Convention (docs/design.md): edge ``(j, i)`` of a step graph means agent ``i`` receives
from ``j`` with weight ``w_ij``; W is row-stochastic. Windows are half-open step
ranges ``[start, stop)``.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
import numpy as np

from .series_backings import (
    ChoiceSeries,
    EdgeListSeries,
    FixedSeries,
    GraphSeries,
    series_from_arrays,
)

__all__ = [
    "ChoiceSeries",
    "EdgeListSeries",
    "FixedSeries",
    "GraphSeries",
    "as_series",
    "node_order",
    "row_shares",
    "series_from_arrays",
]


def as_series(source) -> GraphSeries:
    """Turn a ``Run``, a series or a sequence of digraphs into a :class:`GraphSeries`.

    Parameters
    ----------
    source : Run, GraphSeries or iterable of networkx.DiGraph
        Anything with a ``series`` attribute (a :class:`~baygo_graph.Run`) gives
        it. Graphs must all have the same node set (at least one node); nodes are
        mapped to ``0 .. M-1`` in ``list(graphs[0])`` order, sorted when the labels
        are sortable. Edge ``(j, i)`` means ``i`` receives from ``j``; its
        ``weight`` attribute (1 when absent) must be finite and >= 0. Row ``i`` of
        ``W_t`` is node ``i``'s in-edge weights (self-loop included) divided by
        their sum; a node with no positive in-edge weight gets ``w_ii = 1``.

    Returns
    -------
    GraphSeries

    Raises
    ------
    ValueError
        For a centralised run (no graph), an empty series, or graphs on different
        node sets or with bad weights.
    TypeError
        For anything else than the inputs above.

    Examples
    --------
    >>> g = nx.DiGraph([("b", "a"), ("a", "b")]); g.add_node("c")
    >>> s = as_series([g, g])
    >>> s.n_steps, s.n_agents, s.nodes
    (2, 3, ('a', 'b', 'c'))
    >>> s.weights(0).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if isinstance(source, GraphSeries):
        return source
    if hasattr(source, "series") and hasattr(source, "strategy"):
        if source.series is None:
            raise ValueError(
                f"run of strategy {source.strategy!r} is centralised: "
                "it has no communication graph to analyse"
            )
        if source.series.n_steps < 1:
            raise ValueError("graphs must hold at least one step, got a run of 0 steps")
        return source.series
    if isinstance(source, nx.Graph) or not isinstance(source, Iterable):
        raise TypeError(
            f"graphs must be a Run or a sequence of networkx.DiGraph, got {type(source).__name__}"
        )
    return _from_graphs(list(source))


def node_order(graph: nx.Graph, nodelist=None) -> list:
    """The node order of a graph's arrays: ``nodelist``, else sorted labels, else ``list(G)``.

    Parameters
    ----------
    graph : networkx.Graph
    nodelist : iterable, optional
        Every node of ``graph`` exactly once.

    Returns
    -------
    list
        Row/column ``k`` of the arrays built from ``graph`` is node ``out[k]``.

    Examples
    --------
    >>> node_order(nx.DiGraph([(2, 1), (1, 0)]))
    [0, 1, 2]
    >>> node_order(nx.DiGraph([("b", 1), (1, "a")]))
    ['b', 1, 'a']
    """
    if nodelist is None:
        try:
            return sorted(graph.nodes)
        except TypeError:
            return list(graph)
    nodelist = list(nodelist)
    if len(nodelist) != len(set(nodelist)) or set(nodelist) != set(graph.nodes):
        raise ValueError(
            "nodelist must hold every node of the graph exactly once, "
            f"got {len(nodelist)} entries for {graph.number_of_nodes()} nodes"
        )
    return nodelist


def row_shares(values, keys, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Each value's share of its key's total, without overflow; and the keys with no mass.

    Where a key's sum overflows, its values are divided by the key's largest value
    first, so finite weights as large as ``1e308`` still give the right shares (and
    ordinary values the same bits as a plain division by the sum).

    Parameters
    ----------
    values : numpy.ndarray of float, shape (n,)
        Finite and non-negative.
    keys : numpy.ndarray of int, shape (n,)
        In ``[0, n_keys)`` (e.g. a row index).
    n_keys : int

    Returns
    -------
    shares : numpy.ndarray, shape (n,)
        ``values / sum of values with the same key`` (0 where the key's sum is 0).
    empty : numpy.ndarray of bool, shape (n_keys,)
        Keys whose values are all 0 (or that have none).

    Examples
    --------
    >>> shares, empty = row_shares(np.array([1e308, 1e308, 1.0]), np.array([0, 0, 2]), 3)
    >>> shares.tolist(), empty.tolist()
    ([0.5, 0.5, 1.0], [False, True, False])
    """
    values = np.asarray(values, dtype=float)
    with np.errstate(over="ignore"):  # an overflow is handled below
        total = np.bincount(keys, weights=values, minlength=n_keys)
    if not np.isfinite(total).all():  # the sum overflowed: scale by each key's largest first
        top = np.zeros(n_keys)
        np.maximum.at(top, keys, values)
        values = values / np.where(top > 0, top, 1.0)[keys]
        total = np.bincount(keys, weights=values, minlength=n_keys)
    empty = total == 0
    return values / np.where(empty, 1.0, total)[keys], empty


def _node_order(graphs: list) -> tuple:
    if not graphs:
        raise ValueError("graphs must hold at least one step, got an empty sequence")
    for t, g in enumerate(graphs):
        if not isinstance(g, nx.DiGraph):
            raise TypeError(f"graphs[{t}] must be a networkx.DiGraph, got {type(g).__name__}")
    node_set = set(graphs[0].nodes)
    if not node_set:
        raise ValueError("graphs[0] has no nodes: a series needs at least one node")
    for t, g in enumerate(graphs):
        if set(g.nodes) != node_set:
            raise ValueError(
                f"graphs[{t}] has another node set than graphs[0] "
                f"({g.number_of_nodes()} vs {len(node_set)} nodes): "
                "every step graph must hold the same nodes"
            )
    return tuple(node_order(graphs[0]))


def _from_graphs(graphs: list) -> EdgeListSeries:
    nodes = _node_order(graphs)
    index = {v: k for k, v in enumerate(nodes)}
    m, n_steps = len(nodes), len(graphs)
    triples = [
        (t, index[v], index[u], w)  # v receives from u: row v, column u
        for t, g in enumerate(graphs)
        for u, v, w in g.edges(data="weight", default=1.0)
    ]
    step, row, col = (np.fromiter((e[k] for e in triples), np.int64) for k in range(3))
    try:
        w = np.array([e[3] for e in triples], dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"edge weights must be numbers: {e}") from e
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = w[~np.isfinite(w) | (w < 0)][0]
        raise ValueError(f"edge weights must be finite and >= 0, got weight {bad!r}")
    # Normalise rows (in-weights per receiver and step); empty rows keep w_ii = 1.
    w, empty = row_shares(w, step * m + row, n_steps * m)
    empty = np.flatnonzero(empty)
    step = np.concatenate([step, empty // m])
    row = np.concatenate([row, empty % m])
    col = np.concatenate([col, empty % m])
    w = np.concatenate([w, np.ones(len(empty))])
    pos = w > 0
    order = np.argsort(step[pos], kind="stable")
    entries = tuple(a[pos][order] for a in (step, row, col, w))
    flags = [k for k, v in enumerate(nodes) if graphs[0].nodes[v].get("informative") is True]
    return EdgeListSeries(
        n_steps=n_steps,
        n_agents=m,
        nodes=nodes,
        informative=flags[0] if len(flags) == 1 else None,
        entries=entries,
    )
