"""Windows of a graph series: the shared window vocabulary and window unions.

Every analysis function takes a :class:`~baygo_graph.Run`, any sequence of
``networkx.DiGraph`` on one node set, or a :class:`~baygo_graph.series.GraphSeries`
(the array form both are turned into, see :func:`~baygo_graph.inputs.as_series`;
a centralised run has no graph: ValueError). Convention (docs/design.md): edge
``(j, i)`` of a step graph means agent ``i`` receives from ``j``. Array
positions are the series' node order ``series.nodes``: ``0 .. M-1`` for a run;
for graphs, the labels sorted when they are sortable, else in ``list(graphs[0])``
order.

Windows
-------
Steps are numbered ``0 .. T-1``. A window is a half-open step range
``[start, stop)``: it holds steps ``start, ..., stop - 1`` (``stop`` is
*exclusive*, as in Python slices). For a window length ``B``:

* ``windows="aligned"`` (the default everywhere) - ``[nB, (n+1)B)`` for
  ``n = 0, 1, ...`` (the paper's Remark: B-strong connectivity);
* ``windows="sliding"`` - ``[s, s+B)`` for every ``s``.

A window that would reach outside the steps ``0 .. T-1`` is *incomplete*:
``incomplete="drop"`` (the default everywhere) leaves it out,
``incomplete="keep"`` keeps it, cut at the ends of the series.

Missing values
--------------
One convention across :mod:`baygo_graph.analysis`: a float result that is not
defined is NaN (e.g. a non-unique influence vector); "no such B / step" is None
as a Python scalar and ``-1`` only inside int arrays where the function says so
(:func:`~baygo_graph.analysis.time_to_connectivity`).

Examples
--------
>>> window_bounds(5, 2, windows="aligned", incomplete="keep")
(array([0, 2, 4]), array([2, 4, 5]))
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._validate import check_choice, check_int
from ..inputs import series_input

__all__ = [
    "INCOMPLETE",
    "WINDOWS",
    "EdgeWindow",
    "check_window_options",
    "n_strong_components",
    "window_bounds",
    "window_union",
]

#: Values of the ``windows=`` argument (the first is the default).
WINDOWS = ("aligned", "sliding")
#: Values of the ``incomplete=`` argument (the first is the default).
INCOMPLETE = ("drop", "keep")


def check_window_options(windows: str, incomplete: str) -> tuple[str, str]:
    """Check ``windows=`` and ``incomplete=`` (TypeError/ValueError naming them).

    Examples
    --------
    >>> check_window_options("sliding", "drop")
    ('sliding', 'drop')
    """
    return check_choice("windows", windows, WINDOWS), check_choice(
        "incomplete", incomplete, INCOMPLETE
    )


def window_bounds(n_steps: int, length: int, *, windows: str = "aligned", incomplete: str = "drop"):
    """``(start, stop)`` int arrays of the windows of ``length`` steps (``stop`` exclusive).

    Windows are those of the module docstring, in order of their start.

    Examples
    --------
    >>> start, stop = window_bounds(5, 3, windows="sliding")
    >>> list(zip(start.tolist(), stop.tolist()))
    [(0, 3), (1, 4), (2, 5)]
    """
    if windows == "aligned":
        start = np.arange(0, n_steps, length)
    else:
        start = np.arange(n_steps)
    stop = np.minimum(start + length, n_steps)
    if incomplete == "drop":
        full = stop - start == length
        start, stop = start[full], stop[full]
    return start, stop


def n_strong_components(src: np.ndarray, dst: np.ndarray, m: int) -> int:
    """Number of strongly connected components of the digraph ``src -> dst`` on ``m`` nodes.

    Builds the canonical CSR of the *reversed* graph (same components) from
    the distinct keys ``dst * m + src`` (sorted and de-duplicated, or, when
    there are at least M^2 / 16 raw edges, marked in one M x M mask, which
    costs the same whatever the repeats): csgraph's strong components
    must not see duplicate entries (scipy 1.17 loops forever on a CSR with a
    repeated entry, cf. scipy/scipy#4409), and this is cheaper than scipy's
    COO -> CSR conversion.

    Examples
    --------
    >>> n_strong_components(np.array([0, 1]), np.array([1, 0]), 3)
    2
    """
    if m == 1:
        return 1
    key = dst * m + src
    if m * m <= 16 * len(key):  # many repeats (e.g. a hub over a long window): one M x M mask
        seen = np.zeros(m * m, dtype=bool)
        seen[key] = True
        key = np.flatnonzero(seen)
    else:
        key = _sorted_distinct(key)
    return _components(key, m)


def _sorted_distinct(key: np.ndarray) -> np.ndarray:
    """``key`` sorted, each value once (``np.unique`` without its hashing)."""
    key = np.sort(key)
    if len(key) > 1:
        keep = np.empty(len(key), dtype=bool)
        keep[0] = True
        np.not_equal(key[1:], key[:-1], out=keep[1:])
        key = key[keep]
    return key


def _components(key: np.ndarray, m: int) -> int:
    """Strong components of the graph of the sorted distinct keys ``dst * m + src``."""
    if m == 1:
        return 1
    rows = key // m
    itype = np.int32 if m * m < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(m + 1, dtype=itype)
    np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
    g = sp.csr_array((np.ones(len(key)), (key - rows * m).astype(itype), indptr), shape=(m, m))
    return int(connected_components(g, directed=True, connection="strong", return_labels=False))


#: Windows longer than this many steps are counted by :class:`EdgeWindow` (their steps
#: repeat edges: a hub's, or a fixed core's); shorter ones by sorting their raw edges,
#: which is cheaper when few edges repeat (random choices: 1.4x faster at 8 steps).
SLIDE_AFTER = 16


class EdgeWindow:
    """The distinct edges of a window of consecutive steps, kept as the window slides.

    :meth:`move` to ``[start, stop)`` adds the steps entering and drops the
    steps leaving (one sorted merge each, a count per distinct edge), so a
    strong-component count (:meth:`n_components`) costs the window's *distinct*
    edges, not its raw ones: a hub's windows repeat the same edges in most steps
    (about 9x at 90% hub share). Windows must move forward (``start`` and
    ``stop`` never decrease); a window that does not overlap the last one is
    built afresh.

    Examples
    --------
    >>> import networkx as nx
    >>> from baygo_graph.inputs import as_series
    >>> ring, path = nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.DiGraph([(0, 1), (1, 2)])
    >>> w = EdgeWindow(as_series([path, ring, path, path]))
    >>> [w.move(a, a + 2).n_components() for a in range(3)]
    [1, 1, 3]
    """

    def __init__(self, series):
        self._ptr, self._src, self._dst = series.edges
        self._m = series.n_agents
        self.start = self.stop = 0
        self._key = np.zeros(0, dtype=np.int64)
        self._count = np.zeros(0, dtype=np.int64)
        self._steps = {}  # step -> its sorted distinct keys, while the step is in the window

    def _step(self, t: int) -> np.ndarray:
        """Step ``t``'s distinct keys, sorted (computed when it enters, reused when it leaves)."""
        key = self._steps.pop(t, None)
        if key is None:
            a, b = self._ptr[t], self._ptr[t + 1]
            key = _sorted_distinct(self._dst[a:b] * self._m + self._src[a:b])
            self._steps[t] = key
        return key

    def _add(self, t: int) -> None:
        key = self._step(t)
        pos = np.searchsorted(self._key, key)
        hit = pos < len(self._key)
        hit[hit] = self._key[pos[hit]] == key[hit]
        self._count[pos[hit]] += 1
        new = ~hit
        if new.any():  # merge: the new keys go to pos + (how many new keys precede them)
            at = pos[new] + np.arange(np.count_nonzero(new))
            size = len(self._key) + len(at)
            old = np.ones(size, dtype=bool)
            old[at] = False
            merged, counts = np.empty(size, dtype=np.int64), np.ones(size, dtype=np.int64)
            merged[at] = key[new]
            merged[old], counts[old] = self._key, self._count
            self._key, self._count = merged, counts

    def _drop(self, t: int) -> None:
        pos = np.searchsorted(self._key, self._step(t))
        self._count[pos] -= 1
        gone = pos[self._count[pos] == 0]
        if len(gone):
            keep = np.ones(len(self._key), dtype=bool)
            keep[gone] = False
            self._key, self._count = self._key[keep], self._count[keep]

    def move(self, start: int, stop: int) -> EdgeWindow:
        """Make the window ``[start, stop)``; returns ``self``."""
        if start < self.start or stop < self.stop:
            raise ValueError(
                f"windows move forward only: [{self.start}, {self.stop}) -> [{start}, {stop})"
            )
        if start >= self.stop:  # no overlap: start afresh
            self._key, self._count = self._key[:0], self._count[:0]
            self._steps.clear()
            self.start = self.stop = start
        for t in range(self.stop, stop):
            self._add(t)
        for t in range(self.start, start):
            self._drop(t)
        self.start, self.stop = start, stop
        return self

    def n_components(self) -> int:
        """Strongly connected components of the window's union (all M agents)."""
        return _components(self._key, self._m)

    def count(self, start: int, stop: int) -> int:
        """Strong components of ``[start, stop)``: slid to when longer than
        :data:`SLIDE_AFTER` steps, else from the raw edges (the window stays put)."""
        if stop - start > SLIDE_AFTER:
            return self.move(start, stop).n_components()
        a, b = self._ptr[start], self._ptr[stop]
        return n_strong_components(self._src[a:b], self._dst[a:b], self._m)


@series_input
def window_union(graphs, start: int, stop: int) -> nx.DiGraph:
    """The union digraph of the window ``[start, stop)`` (steps ``start .. stop-1``).

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`~baygo_graph.inputs.as_series`.
    start, stop : int
        ``0 <= start < stop <= T``.

    Returns
    -------
    networkx.DiGraph
        Every node of the series (original labels, in the series' node order),
        an edge ``(j, i)`` wherever some step of the window has one (self-loops
        included), with attributes ``weight`` = the sum over the window of the
        normalised ``w_ij`` (so the union's row-normalised weights are the mean W
        of the window; for a ``Run`` these are the step graphs' edge weights)
        and ``count`` = the number of steps holding the edge. A node with no
        in-edge in a step has ``w_ii = 1`` in that step (see
        :func:`~baygo_graph.inputs.as_series`), hence a self-loop.

    Examples
    --------
    >>> g1 = nx.DiGraph([(0, 1)]); g1.add_node(2)
    >>> g2 = nx.DiGraph([(1, 2), (2, 0)])
    >>> u = window_union([g1, g2], 0, 2)
    >>> sorted(u.edges()), nx.is_strongly_connected(u)
    ([(0, 0), (0, 1), (1, 1), (1, 2), (2, 0), (2, 2)], True)
    >>> u.edges[0, 1]["count"], u.edges[0, 1]["weight"]   # 1 hears 0 and itself (equal rule)
    (1, 0.5)
    """
    s = graphs
    start = check_int("start", start)
    stop = check_int("stop", stop)
    if not 0 <= start < stop <= s.n_steps:
        raise ValueError(f"need 0 <= start < stop <= {s.n_steps}, got start={start}, stop={stop}")
    total = sp.coo_array(s.weight_sum(start, stop))
    counts = sp.csr_array((s.n_agents, s.n_agents), dtype=np.int64)
    for t in range(start, stop):
        counts = counts + sp.csr_array(s.weights(t) > 0, dtype=np.int64)
    count = np.asarray(sp.csr_array(counts)[total.row, total.col]).ravel()
    g = nx.DiGraph()
    nodes = s.nodes
    g.add_nodes_from(nodes)
    g.add_edges_from(
        (nodes[j], nodes[i], {"weight": w, "count": c})
        for i, j, w, c in zip(
            total.row.tolist(),
            total.col.tolist(),
            total.data.tolist(),
            count.tolist(),
            strict=True,
        )
    )
    return g
