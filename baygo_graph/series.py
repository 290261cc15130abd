"""One graph-series abstraction: a time series of weighted step digraphs held as arrays.

Three backings behind one interface, so that the run record, the analysis and the
figures never ask what kind of series they hold (defined in
:mod:`baygo_graph.series_backings`, re-exported here):

* :class:`ChoiceSeries` - BayGo-like steps, one chosen in-neighbour per agent
  (``w_ii = delta``, ``w_i,choice = 1 - delta``; ``-1``: no choice, ``w_ii = 1``);
* :class:`FixedSeries` - the same W every step (fixed graphs, NoCol);
* :class:`EdgeListSeries` - any weighted digraphs (e.g. read from NetworkX or a file),
  held as their nonzero weight entries sorted by step.

This module turns what callers hold into a series: :func:`as_series`, the one
conversion point (a run, a series, NetworkX digraphs or undirected graphs, an
edge list as a DataFrame or a CSV/Parquet file, a saved JSON/GraphML/GEXF series,
networkx-temporal and DyNetX objects; ``docs/user_series.md``), with the node
order :func:`node_order`, the row normalisation :func:`row_shares` and
:func:`series_from_edges` for raw weighted edges.

Convention (docs/design.md): edge ``(j, i)`` of a step graph means agent ``i`` receives
from ``j`` with weight ``w_ij``; W is row-stochastic. Windows are half-open step
ranges ``[start, stop)``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

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
    "series_from_edges",
]


def as_series(
    graphs,
    /,
    *,
    source: str | None = None,
    target: str | None = None,
    time: str | None = None,
    weight: str | None = None,
    bin=None,
    directed: bool | None = None,
) -> GraphSeries:
    """Turn anything that holds a temporal network into a :class:`GraphSeries`.

    The one conversion point of the package: every analysis function, figure and
    export that takes a series calls it. The input forms, their options and rules
    are described in ``docs/user_series.md``.

    Parameters
    ----------
    graphs : Run, GraphSeries, iterable of networkx graphs, pandas.DataFrame, path
        * a :class:`~baygo_graph.Run` (its ``series``) or a series (returned as is);
        * networkx graphs, one per step: ``DiGraph`` (edge ``(j, i)``: ``i``
          receives from ``j``), or undirected ``Graph`` (edge ``{i, j}``: both
          directions, each with the edge's weight); multigraphs' parallel edges
          add their weights. The nodes are the union over the steps; a node
          missing from a step is isolated there (``w_ii = 1``);
        * an edge list: a :class:`pandas.DataFrame` with one row per
          ``(source, target, time[, weight])`` (see
          :func:`baygo_graph.io.edgelist.edge_list_series`);
        * a path: a run folder or ``.npz``; a saved series ``.json``,
          ``.graphml`` or ``.gexf``; an edge list ``.csv`` / ``.tsv`` or
          ``.parquet`` (needs the ``parquet`` extra, pyarrow);
        * a networkx-temporal ``TemporalGraph`` (its snapshots, networkx
          graphs) or a DyNetX ``DynGraph`` / ``DynDiGraph`` (its interactions: one
          added at ``t`` and removed at ``t'`` holds at steps ``t .. t'-1``; times
          shifted to start at step 0); the ``temporal`` extra installs both.
    source, target, time, weight : str, optional
        Edge lists only: the column names (default ``"source"``, ``"target"``,
        ``"time"`` and, when present, ``"weight"``; matched case-insensitively).
    bin : int or str, optional
        Edge lists only: the width of one step. Integer times: ``step = (time -
        min time) // bin`` (default 1). Timestamps need it: a fixed pandas
        offset alias such as ``"1D"``, ``"6h"`` or ``"15min"``.
    directed : bool, optional
        Edge lists only: False reads each row as a two-way contact (default True).

    Returns
    -------
    GraphSeries
        Node ``k`` of its arrays is ``series.nodes[k]``: labels are kept. Row
        ``i`` of ``W_t`` is node ``i``'s in-edge weights (self-loop included)
        divided by their sum; a node with no positive in-edge weight in a step
        gets ``w_ii = 1`` (it keeps its own belief). A node attribute
        ``informative=True`` on exactly one node marks the informative agent.

    Raises
    ------
    ValueError
        For a centralised run (no graph), an empty series, bad weights, missing
        columns or options that do not apply to the input.
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
    >>> u = as_series([nx.Graph([("x", "y")])])          # undirected: both ways
    >>> u.weights(0).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    options = {"source": source, "target": target, "time": time, "weight": weight, "bin": bin}
    options["directed"] = directed
    given = {k: v for k, v in options.items() if v is not None}
    if _is_path(graphs) or _is_frame(graphs):
        from .io.edgelist import EDGE_LIST_SUFFIXES, edge_list_series, read_edge_list

        if _is_frame(graphs):
            return edge_list_series(graphs, **given)
        path = Path(graphs)
        if path.suffix.lower() in EDGE_LIST_SUFFIXES:
            return read_edge_list(path, **given)
        _no_options(given, f"a file {path.name!r}")
        return _from_file(path)
    _no_options(given, type(graphs).__name__)
    if isinstance(graphs, GraphSeries):
        return graphs
    if hasattr(graphs, "series") and hasattr(graphs, "strategy"):
        if graphs.series is None:
            raise ValueError(
                f"run of strategy {graphs.strategy!r} is centralised: "
                "it has no communication graph to analyse"
            )
        if graphs.series.n_steps < 1:
            raise ValueError("graphs must hold at least one step, got a run of 0 steps")
        return graphs.series
    snapshots = _foreign_snapshots(graphs)
    if isinstance(snapshots, GraphSeries):
        return snapshots
    if snapshots is not None:
        return _from_graphs(snapshots)
    if isinstance(graphs, nx.Graph) or not isinstance(graphs, Iterable):
        raise TypeError(
            "graphs must be a Run, a series, a sequence of networkx graphs, an edge list "
            f"(pandas.DataFrame) or a path, got {type(graphs).__name__}"
        )
    return _from_graphs(list(graphs))


def _is_path(x) -> bool:
    return isinstance(x, str | os.PathLike)


def _is_frame(x) -> bool:
    return type(x).__module__.startswith("pandas") and hasattr(x, "columns")


def _no_options(given: dict, what: str) -> None:
    if given:
        names = ", ".join(f"{k}={v!r}" for k, v in given.items())
        raise ValueError(f"{names}: edge-list options, but the input is {what}, not an edge list")


def _from_file(path: Path) -> GraphSeries:
    """A run (folder or ``.npz``) or a saved series (``.json``, ``.graphml``, ``.gexf``)."""
    from .io.series_files import SERIES_SUFFIXES, read_series

    if path.suffix.lower() in SERIES_SUFFIXES:
        return _from_graphs(read_series(path))
    from .run import Run

    return as_series(Run.load(path))


def _foreign_snapshots(obj):
    """The networkx snapshots of a networkx-temporal object, the series of a DyNetX
    object; None for anything else."""
    module = type(obj).__module__.split(".")[0]
    if module == "networkx_temporal":  # TemporalGraph: one networkx graph per snapshot
        return list(obj.to_snapshots()) if hasattr(obj, "to_snapshots") else list(obj)
    if module == "dynetx":  # DynGraph / DynDiGraph: its interaction stream
        return _dynetx(obj)
    return None


def _dynetx(obj) -> GraphSeries:
    """A DyNetX graph's interactions as edge-list rows: an interaction added at ``t``
    and removed at ``t'`` holds at steps ``t .. t'-1``; one never removed, at ``t``."""
    import pandas as pd

    from .io.edgelist import edge_list_series

    rows, open_at = [], {}
    for u, v, op, t in obj.stream_interactions():
        key = (u, v)
        if op == "+":
            if key in open_at:  # added again while open: the first spell ends here
                rows += [(u, v, s) for s in range(open_at[key], int(t))]
            open_at[key] = int(t)
        elif key in open_at:
            rows += [(u, v, s) for s in range(open_at.pop(key), int(t))]
    rows += [(u, v, t) for (u, v), t in open_at.items()]
    frame = pd.DataFrame(rows, columns=["source", "target", "time"])
    return edge_list_series(frame, directed=obj.is_directed())


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
        if not isinstance(g, nx.Graph):
            raise TypeError(
                f"graphs[{t}] must be a networkx.DiGraph or Graph, got {type(g).__name__}"
            )
    union = dict.fromkeys(v for g in graphs for v in g)  # first-appearance order
    if not union:
        raise ValueError("the graphs have no nodes: a series needs at least one node")
    try:
        return tuple(sorted(union))
    except TypeError:
        return tuple(union)


def _from_graphs(graphs: list) -> EdgeListSeries:
    nodes = _node_order(graphs)
    index = {v: k for k, v in enumerate(nodes)}
    triples = []
    for t, g in enumerate(graphs):
        edges = g.edges(data="weight", default=1.0)
        triples += [(t, index[v], index[u], w) for u, v, w in edges]  # v hears u
        if not g.is_directed():  # {u, v}: both hear each other
            triples += [(t, index[u], index[v], w) for u, v, w in edges if u != v]
    step, row, col = (np.fromiter((e[k] for e in triples), np.int64) for k in range(3))
    try:
        w = np.array([e[3] for e in triples], dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"edge weights must be numbers: {e}") from e
    flags = [v for g in graphs for v, f in g.nodes(data="informative") if f is True]
    flags = list(dict.fromkeys(flags))
    informative = index[flags[0]] if len(flags) == 1 else None
    return series_from_edges(
        step, row, col, w, n_steps=len(graphs), nodes=nodes, informative=informative
    )


def series_from_edges(
    step, row, col, weight, *, n_steps: int, nodes, informative=None, synthetic=False
) -> EdgeListSeries:
    """A row-normalised :class:`EdgeListSeries` from raw weighted edges.

    Parameters
    ----------
    step, row, col : array_like of int, shape (n,)
        Edge ``e``: at step ``step[e]``, node ``row[e]`` receives from node
        ``col[e]`` (array indices into ``nodes``).
    weight : array_like of float, shape (n,)
        Finite and ``>= 0``; repeated ``(step, row, col)`` add up.
    n_steps : int
    nodes : sequence
        The node labels.
    informative : int, optional
    synthetic : bool, default False

    Returns
    -------
    EdgeListSeries
        Rows divided by their sums; a row with no positive weight gets ``w_ii = 1``
        (not stored: the series holds one entry per positive weight, never one per
        step and node).

    Examples
    --------
    >>> s = series_from_edges([0, 0, 0], [0, 0, 1], [1, 1, 0], [1.0, 2.0, 1.0],
    ...                       n_steps=1, nodes=("a", "b"))
    >>> s.weights(0).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    nodes = tuple(nodes)
    m = len(nodes)
    step, row, col = (np.asarray(a, dtype=np.int64) for a in (step, row, col))
    w = np.asarray(weight, dtype=float)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = w[~np.isfinite(w) | (w < 0)][0]
        raise ValueError(f"edge weights must be finite and >= 0, got weight {float(bad)!r}")
    key = (step * m + row) * m + col
    if len(key) and np.any(key[1:] <= key[:-1]):  # not sorted and unique: add repeats
        key, inverse = np.unique(key, return_inverse=True)
        with np.errstate(over="ignore"):
            w = np.bincount(inverse, weights=w)
        if not np.isfinite(w).all():
            raise ValueError("edge weights of one (step, source, target) add up to inf")
        step, rest = np.divmod(key, m * m)
        row, col = np.divmod(rest, m)
    # Normalise rows (in-weights per receiver and step, keys sorted); a row with no
    # positive weight keeps w_ii = 1, left implicit: nothing of size steps x nodes.
    rows = np.ones(len(step), dtype=bool)
    np.not_equal(step[1:] * m + row[1:], step[:-1] * m + row[:-1], out=rows[1:])
    w, _ = row_shares(w, np.cumsum(rows) - 1, int(rows.sum()))
    pos = w > 0
    entries = tuple(a[pos] for a in (step, row, col, w))
    return EdgeListSeries(
        n_steps=int(n_steps),
        n_agents=m,
        nodes=nodes,
        informative=informative,
        synthetic=bool(synthetic),
        entries=entries,
    )
