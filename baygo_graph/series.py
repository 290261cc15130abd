"""One graph-series abstraction: a time series of weighted step digraphs held as arrays.

Three backings behind one interface, so that the run record, the analysis and the
figures never ask what kind of series they hold (defined in
:mod:`baygo_graph.series_backings`, re-exported here):

* :class:`ChoiceSeries` - BayGo-like steps, one chosen in-neighbour per agent
  (``w_ii = delta``, ``w_i,choice = 1 - delta``; ``-1``: no choice, ``w_ii = 1``);
* :class:`FixedSeries` - the same W every step (fixed graphs, NoCol);
* :class:`EdgeListSeries` - any weighted digraphs (e.g. read from NetworkX or a file),
  held as their nonzero weight entries sorted by step.

This module holds the series type and its in-memory constructors:
:func:`series_from_edges` (raw weighted edges), :func:`series_from_graphs` (one
NetworkX graph per step), the node order :func:`node_order` and the row
normalisation :func:`row_shares`. It reads no file and knows no run: turning what
callers hold (a run, a file, an edge list, other libraries' objects) into a series
is the one door :func:`baygo_graph.inputs.as_series` (``docs/user_series.md``).

Convention (docs/design.md): edge ``(j, i)`` of a step graph means agent ``i`` receives
from ``j`` with weight ``w_ij``; W is row-stochastic. Windows are half-open step
ranges ``[start, stop)``.
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx
import numpy as np

from ._text import counted, short_repr, shorten
from ._validate import check_bool, weight_problem
from .series_backings import (
    ChoiceSeries,
    EdgeListSeries,
    FixedSeries,
    GraphSeries,
    StepRows,
    series_from_arrays,
)

__all__ = [
    "SELF_WEIGHT",
    "ChoiceSeries",
    "EdgeListSeries",
    "FixedSeries",
    "GraphSeries",
    "StepRows",
    "check_self_weight",
    "informative_marks",
    "node_order",
    "row_shares",
    "series_from_arrays",
    "series_from_edges",
    "series_from_graphs",
]


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
            f"got {counted(len(nodelist), 'entry', 'entries')} for "
            f"{counted(graph.number_of_nodes(), 'node')}"
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
            row = isinstance(g, tuple | np.void | np.record)  # a row of an edge list?
            raise TypeError(
                f"graphs[{t}] must be a networkx.DiGraph or Graph, got {type(g).__name__}"
                + (" (a row: give an edge list as a pandas.DataFrame)" if row else "")
            )
    for t, g in enumerate(graphs):  # each graph's labels: True, 1.0 and 1 are one key
        _check_labels(g, where=f"graphs[{t}]: " if len(graphs) > 1 else "")
    union = dict.fromkeys(v for g in graphs for v in g)  # first-appearance order
    if not union:
        raise ValueError("the graphs have no nodes: a series needs at least one node")
    try:
        return tuple(sorted(union))
    except TypeError:
        return tuple(union)


#: The self-weight rule of a series built from edges or graphs, by default: the
#: paper's equal rule over the closed in-neighbourhood (docs/design.md).
SELF_WEIGHT = "equal"


def check_self_weight(rule):
    """A self-weight rule checked: ``"equal"`` or a float in ``[0, 1]``.

    Examples
    --------
    >>> check_self_weight("equal"), check_self_weight("0.5"), check_self_weight(0)
    ('equal', 0.5, 0.0)
    """
    if isinstance(rule, str) and rule.strip().lower() == "equal":
        return "equal"
    try:
        value = float(rule)
    except (TypeError, ValueError):
        value = None
    if isinstance(rule, bool | np.bool_) or value is None or not 0.0 <= value <= 1.0:
        raise ValueError(f"self_weight must be 'equal' or a number in [0, 1], got {rule!r}")
    from ._validate import real_text  # text of a nonzero below the floats is not 0; -0 is 0

    return real_text("self_weight", rule, zero="no weight on itself")


def series_from_graphs(graphs, *, stochastic: bool = False, self_weight=None) -> EdgeListSeries:
    """A series from one NetworkX graph per step.

    Parameters
    ----------
    graphs : sequence of networkx.Graph
        ``DiGraph`` (edge ``(j, i)``: ``i`` receives from ``j``), or undirected
        ``Graph`` (edge ``{i, j}``: both directions, each with the edge's weight);
        multigraphs' parallel edges add their weights. The nodes are the union over
        the steps (sorted when their labels sort); a node missing from a step is
        isolated there (``w_ii = 1``); numpy labels (``np.int64(3)``) become plain
        Python values (``3``). Attribute ``weight`` (default 1); node
        attribute ``informative=True`` on exactly one node marks the informative
        agent; graph attribute ``synthetic=True`` on every step marks synthetic data.
    stochastic : bool, default False
        The weights are a series' rows as written by this package: a row already
        summing to 1 (within 1e-12) is kept bit for bit (see
        :func:`series_from_edges`).
    self_weight : "equal", float or None, default None
        The self-weight rule of :func:`series_from_edges` (None: the graphs'
        weights as given; the door, :func:`baygo_graph.inputs.as_series`, passes
        :data:`SELF_WEIGHT` for graphs a user hands it).

    Returns
    -------
    EdgeListSeries

    Examples
    --------
    >>> g = nx.DiGraph([("b", "a"), ("a", "b")]); g.add_node("c")
    >>> s = series_from_graphs([g, g])
    >>> s.n_steps, s.nodes
    (2, ('a', 'b', 'c'))
    >>> s.weights(0).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> series_from_graphs([g], self_weight="equal").weights(0).toarray().tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    """
    stochastic = check_bool("stochastic", stochastic)
    graphs = list(graphs)
    nodes = _node_order(graphs)  # numpy scalars as plain Python values (same hash)
    nodes = tuple(v.item() if isinstance(v, np.integer | np.str_) else v for v in nodes)
    index = {v: k for k, v in enumerate(nodes)}
    triples = []
    for t, g in enumerate(graphs):
        edges = g.edges(data="weight", default=1.0)
        check_edge_weights(f"graph {t}", edges)
        triples += [(t, index[v], index[u], w) for u, v, w in edges]  # v hears u
        if not g.is_directed():  # {u, v}: both hear each other
            triples += [(t, index[u], index[v], w) for u, v, w in edges if u != v]
    step, row, col = (np.fromiter((e[k] for e in triples), np.int64) for k in range(3))
    try:
        w = np.array([e[3] for e in triples], dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"edge weights must be numbers: {e}") from e
    flags = list(dict.fromkeys(informative_marks(graphs)))
    informative = index[flags[0]] if len(flags) == 1 else None
    synthetic = all(g.graph.get("synthetic") is True for g in graphs)
    return series_from_edges(
        step, row, col, w, n_steps=len(graphs), nodes=nodes, informative=informative,
        synthetic=synthetic, stochastic=stochastic, self_weight=self_weight,
    )  # fmt: skip


def informative_marks(graphs) -> list:
    """The nodes marked ``informative`` (a bool: ``True`` or numpy's ``True``, as a mask
    computed with numpy gives) in each graph, in order, repeats kept; any other value
    (``1``, ``"yes"``) refused in one line naming the graph and the node, never ignored.

    Examples
    --------
    >>> g = nx.DiGraph([("a", "b")]); g.nodes["a"]["informative"] = np.True_
    >>> informative_marks([g, g])
    ['a', 'a']
    """
    marks = []
    for t, g in enumerate(graphs):
        for v, flag in g.nodes(data="informative"):
            if flag is None:
                continue
            if not isinstance(flag, bool | np.bool_):
                raise ValueError(
                    f"graph {t}: node {shorten(repr(v), 40)}: informative={shorten(repr(flag), 40)}"
                    f" is not a bool ({type(flag).__name__}): mark the informative agent with True"
                )
            if flag:
                marks.append(v)
    return marks


def _check_labels(nodes, *, where: str = "") -> None:
    """Node labels are integers or text, in every form (docs/formats.md): a float, a
    bool, a tuple, a numpy float... refused in one line (``1.0`` and ``1`` are one dict
    key, ``True`` and ``1`` too, and no series file can give them back)."""
    bad = next((v for v in nodes if (isinstance(v, bool | np.bool_)
                                     or not isinstance(v, int | str | np.integer))
                and _present(v)), None)  # fmt: skip
    if bad is not None:
        raise ValueError(
            f"{where}node label {shorten(repr(bad), 40)} is a {type(bad).__name__}: node "
            "labels are integers or text (relabel the graphs, e.g. networkx.relabel_nodes(g, "
            "str))"
        )
    big = next((v for v in nodes if isinstance(v, int | np.integer) and not isinstance(v, bool)
                and not -(2**63) <= int(v) < 2**63), None)  # fmt: skip
    if big is not None:  # a text door reads such a label as text: never two kinds of one
        raise ValueError(
            f"{where}node label {shorten(repr(int(big)), 40)} is an integer beyond the signed "
            "64-bit range that integer labels have (docs/formats.md): give the labels as "
            "text (a column: .astype(str); graphs: networkx.relabel_nodes(g, str))"
        )


def _present(value) -> bool:
    """Whether ``value`` could name a node (hashable, not None or a NaN-like missing
    value): the others are named as missing or unhashable by the series itself."""
    if value is None or not isinstance(value, Hashable):
        return False
    try:
        return bool(value == value)
    except (TypeError, ValueError):  # pandas' NA
        return False


def check_edge_weights(where: str, edges) -> None:
    """Each ``(u, v, weight)`` of ``edges`` carries an edge weight (a real number >= 0 that
    a float holds: :func:`baygo_graph._validate.weight_problem`), or the first that does
    not is refused in the words of its case, naming ``where`` and its edge: the one rule
    of every graph door (a list of graphs, networkx-temporal snapshots; a text ``"2"`` was
    read as 2)."""
    for u, v, w in edges:
        if (problem := weight_problem(w)) is not None:
            raise ValueError(
                f"{where}: edge {short_repr(u, 40)} -> {short_repr(v, 40)}: weight "
                f"{short_repr(w, 40)}: {problem}"
            )


def series_from_edges(
    step, row, col, weight, *, n_steps: int, nodes, informative=None, synthetic=False,
    stochastic: bool = False, self_weight=None, time_axis=None,
) -> EdgeListSeries:  # fmt: skip
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
    stochastic : bool, default False
        True when the weights are already a series' rows (a file this package
        wrote): a row summing to 1 within 1e-12 is kept bit for bit instead of
        being divided by its sum again (which can move a weight by one rounding
        unit); other rows are divided as usual.
    self_weight : "equal", float or None, default None
        The self-weight rule (docs/design.md): the weight a node that hears
        others in a step puts on its own belief when the edges give it no
        self-loop there (a self-loop given, even of weight 0, is kept as given).
        With the node's ``d`` in-neighbours' weights normalised to sum 1, the
        rule puts ``s`` on the node and scales the others by ``1 - s`` (their
        proportions kept): ``"equal"``, ``s = 1 / (d + 1)`` - on unweighted edges
        every member of the closed in-neighbourhood weighs ``1 / (d + 1)``, the
        paper's equal rule; a number in ``[0, 1]``, that ``s``; None, no rule
        (weights as given: ``w_ii = 0``).
    time_axis : baygo_graph.io.times.TimeAxis, optional
        When each step starts (:attr:`GraphSeries.time_axis`; None: steps only).

    Returns
    -------
    EdgeListSeries
        Rows divided by their sums, then the self-weight rule; a row with no
        positive weight gets ``w_ii = 1`` (not stored: the series holds one entry
        per positive weight, never one per step and node). ``self_weight``
        records the rule.

    Examples
    --------
    >>> s = series_from_edges([0, 0, 0], [0, 0, 1], [1, 1, 0], [1.0, 2.0, 1.0],
    ...                       n_steps=1, nodes=("a", "b"))
    >>> s.weights(0).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    >>> e = ([0, 0, 0], [0, 0, 1], [1, 2, 0], [1.0, 3.0, 1.0])    # a hears b and c 1:3
    >>> series_from_edges(*e, n_steps=1, nodes="abc", self_weight="equal"
    ...                   ).weights(0).toarray().round(4).tolist()
    [[0.3333, 0.1667, 0.5], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    >>> series_from_edges(*e, n_steps=1, nodes="abc", self_weight=0.2
    ...                   ).weights(0).toarray().round(4).tolist()
    [[0.2, 0.2, 0.6], [0.8, 0.2, 0.0], [0.0, 0.0, 1.0]]
    """
    stochastic = check_bool("stochastic", stochastic)
    nodes = tuple(nodes)
    _check_labels(nodes)
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
    rid, n_rows = np.cumsum(rows) - 1, int(rows.sum())
    shares, _ = row_shares(w, rid, n_rows)
    if stochastic:  # rows written by this package: kept exactly when they sum to 1
        total = np.bincount(rid, weights=w, minlength=n_rows)
        shares = np.where(np.abs(total - 1.0)[rid] <= 1e-12, w, shares)
    w = shares
    rule = None if self_weight is None else check_self_weight(self_weight)
    if rule is not None:
        step, row, col, w = _self_weighted(step, row, col, w, rows, rid, rule)
    pos = w > 0
    entries = tuple(a[pos] for a in (step, row, col, w))
    return EdgeListSeries(
        n_steps=int(n_steps),
        n_agents=m,
        nodes=nodes,
        informative=informative,
        synthetic=bool(synthetic),
        entries=entries,
        self_weight=rule,
        time_axis=time_axis,
    )


def _self_weighted(step, row, col, w, first, rid, rule):
    """Row-normalised entries with the self-weight ``rule`` put where a row hears
    someone and has no self-loop entry (of any weight): the others scaled by ``1 - s``.

    ``first`` marks each row's first entry and ``rid`` gives every entry its row
    (entries sorted by step, row, col): nothing of size steps x nodes is formed."""
    n_rows = len(first) and int(rid[-1]) + 1
    off = row != col
    d = np.bincount(rid[off & (w > 0)], minlength=n_rows)
    own = np.bincount(rid[~off], minlength=n_rows) > 0
    target = (d > 0) & ~own
    share = 1.0 / (d + 1.0) if rule == "equal" else np.full(n_rows, float(rule))
    share = np.where(target, share, 0.0)
    w = np.where(off & target[rid], w * (1.0 - share[rid]), w)
    add = np.flatnonzero(share > 0)
    at = np.flatnonzero(first)[add]  # the first entry of each such row: its step and node
    node = row[at]
    step = np.concatenate([step, step[at]])
    row = np.concatenate([row, node])
    col = np.concatenate([col, node])
    w = np.concatenate([w, share[add]])
    order = np.lexsort((col, row, step))
    return step[order], row[order], col[order], w[order]
