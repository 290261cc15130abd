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

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from .._validate import check_choice, check_int
from ..inputs import series_input

__all__ = [
    "INCOMPLETE",
    "WINDOWS",
    "EdgeWindow",
    "Reach",
    "ReachWindow",
    "active_steps",
    "check_window_options",
    "condense",
    "n_strong_components",
    "window_bounds",
    "window_components",
    "window_groups",
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
    n_steps = check_int("n_steps", n_steps, minimum=0)
    length = check_int("length", length, minimum=1)
    check_choice("windows", windows, ("aligned", "sliding"))
    check_choice("incomplete", incomplete, ("drop", "keep"))
    if windows == "aligned":
        start = np.arange(0, n_steps, length)
    else:
        start = np.arange(n_steps)
    stop = np.minimum(start + length, n_steps)
    if incomplete == "drop":
        full = stop - start == length
        start, stop = start[full], stop[full]
    return start, stop


def active_steps(series) -> np.ndarray:
    """Steps with a positive edge between two nodes: every other step's W is the identity.

    Parameters
    ----------
    series : GraphSeries
        Or anything with ``n_steps`` and ``edges`` (a partition's steps).

    Returns
    -------
    numpy.ndarray of bool, shape (T,)

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> empty = nx.DiGraph()
    >>> empty.add_nodes_from([0, 1])
    >>> active_steps(as_series([empty, nx.DiGraph([(0, 1)]), empty])).tolist()
    [False, True, False]
    """
    if getattr(series, "fixed", None) is not None:  # one W for every step
        src, dst = series.window_edges(0, 1)
        return np.full(series.n_steps, bool(len(src)))
    ptr, src, dst = series.edges
    count = np.diff(ptr)
    loop = src == dst  # a self-choice of a choice series
    if loop.any():
        count = count - np.bincount(
            np.repeat(np.arange(series.n_steps), count)[loop], minlength=series.n_steps
        )
    return count > 0


def window_groups(series, start, stop) -> tuple[np.ndarray, np.ndarray]:
    """Windows that hold the same active steps (:func:`active_steps`), which share every
    answer: the other steps' W is the identity, so such windows have the same union
    graph and the same product; windows of one length the same mean W too (and any
    length the same closed classes and influence of it).

    Parameters
    ----------
    series : GraphSeries
    start, stop : numpy.ndarray of int, shape (N,)
        The windows ``[start[n], stop[n])``, in order: neither ever decreases.

    Returns
    -------
    first : numpy.ndarray of int, shape (K,)
        The first window of each group, in order: answer these ...
    group : numpy.ndarray of int, shape (N,)
        ... and window ``n`` has the answer of window ``first[group[n]]``.

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> empty = nx.DiGraph()
    >>> empty.add_nodes_from([0, 1])
    >>> s = as_series([nx.DiGraph([(0, 1)]), empty, empty, empty, nx.DiGraph([(1, 0)])])
    >>> start, stop = window_bounds(5, 2, windows="sliding")
    >>> first, group = window_groups(s, start, stop)
    >>> first.tolist(), group.tolist()      # [1, 3) and [2, 4) hold no active step
    ([0, 1, 3], [0, 1, 1, 2])
    """
    count = np.zeros(series.n_steps + 1, dtype=np.int64)
    np.cumsum(active_steps(series), out=count[1:])
    lo, hi = count[np.asarray(start)], count[np.asarray(stop)]
    new = np.ones(len(lo), dtype=bool)
    np.not_equal(lo[1:], lo[:-1], out=new[1:])
    new[1:] |= hi[1:] != hi[:-1]
    return np.flatnonzero(new), np.cumsum(new) - 1


def n_strong_components(src: np.ndarray, dst: np.ndarray, m: int) -> int:
    """Number of strongly connected components of the digraph ``src -> dst`` on ``m`` nodes.

    Repeated edges are allowed (:func:`condense` removes them).

    Examples
    --------
    >>> n_strong_components(np.array([0, 1]), np.array([1, 0]), 3)
    2
    """
    return condense(m, raw=[(src, dst)], keep=False).n


# -- reachability summaries: window unions without deletions ---------------------------
_NO_EDGES = np.zeros(0, dtype=np.int32)

#: Entries a :func:`condense` call is worth (its fixed cost, ~50 microseconds of numpy
#: and scipy calls, in edges read). :class:`ReachWindow` condenses a piece of a window
#: only when the raw edges it spares exceed the piece's own cost plus this: a window of
#: a few thousand edges is answered from its raw edges in one call.
CONDENSE_OVERHEAD = 2**14


@dataclass(frozen=True, eq=False)
class Reach:
    """Who reaches whom in a union of steps: its condensation.

    The strong components of a union of step graphs depend only on who reaches whom
    in each part, and a part's condensation keeps exactly that: the strong component
    (class) of every node and the distinct edges between classes. So a union is
    condensed from the condensations of its parts (:func:`condense`), whatever their
    raw edges, and a union of windows never needs an edge taken out
    (:class:`ReachWindow`).

    Attributes
    ----------
    n : int
        Number of classes (strong components; all M nodes count).
    labels : numpy.ndarray of int32, shape (M,), or None
        Class of each node, ``0 .. n-1``; None when every node is its own class
        (``n == M``, class ``k`` is node ``k``).
    src, dst : numpy.ndarray of int32
        The distinct edges ``src -> dst`` between classes (the condensation's acyclic
        graph); empty when :func:`condense` was asked not to keep them.

    Examples
    --------
    >>> r = condense(4, raw=[(np.array([0, 1, 2]), np.array([1, 0, 3]))])
    >>> r.n, r.labels.tolist(), r.src.tolist(), r.dst.tolist()
    (3, [0, 0, 2, 1], [2], [1])
    """

    n: int
    labels: np.ndarray | None = field(default=None, repr=False)
    src: np.ndarray = field(default_factory=lambda: _NO_EDGES, repr=False)
    dst: np.ndarray = field(default_factory=lambda: _NO_EDGES, repr=False)

    def cost(self, m: int) -> int:
        """Entries a :func:`condense` call reads for this piece: M labels and its edges."""
        return (0 if self.labels is None else m) + len(self.src)


def condense(m: int, parts=(), raw=(), *, keep: bool = True) -> Reach:
    """The :class:`Reach` of the union of ``parts`` (Reach) and ``raw`` edge lists on ``m`` nodes.

    One ``scipy.sparse.csgraph.connected_components(connection="strong")`` call on
    the quotient by the classes of one part (the labelled one with fewest): every
    other labelled part adds its classes as extra nodes, each tied both ways to
    the classes of its members (so each of its classes stays strongly connected),
    and its edges between classes; raw edges ``(src, dst)`` (node positions,
    repeats allowed) go through the quotient. Strong components of the union are
    those of that graph: each part's classes are strongly connected in the union,
    and its edges between classes reach what its raw edges reached. Cost: the
    edges read, plus O(M) per labelled part beyond the first. Repeated edges are
    removed first, by one sort of their keys (csgraph must not see repeats: scipy
    1.17 loops forever on a CSR with a repeated entry). A part with one class makes
    the union strongly connected at once.

    Parameters
    ----------
    m : int
        Number of nodes M.
    parts : sequence of Reach or None
        Condensed pieces (None: nothing).
    raw : sequence of (src, dst) int arrays
        Edges ``src[e] -> dst[e]``.
    keep : bool, default True
        Keep the edges between classes (False: only ``n`` and ``labels``, for a
        one-off question).

    Returns
    -------
    Reach

    Examples
    --------
    >>> a = condense(3, raw=[(np.array([0, 1]), np.array([1, 2]))])   # 0 -> 1 -> 2
    >>> b = condense(3, raw=[(np.array([2]), np.array([0]))])         # 2 -> 0
    >>> a.n, b.n, condense(3, [a, b]).n
    (3, 3, 1)
    """
    parts = [p for p in parts if p is not None]
    if m == 1 or any(p.n == 1 for p in parts):
        return Reach(1, None if m == 1 else np.zeros(m, dtype=np.int32))
    labelled = [p for p in parts if p.labels is not None]
    flat = [(p.src, p.dst) for p in parts if p.labels is None] + [tuple(r) for r in raw]
    base = min(labelled, key=lambda p: p.n) if labelled else None
    lab = None if base is None else base.labels
    rows, cols = ([], []) if base is None else ([base.src], [base.dst])
    for src, dst in flat:
        rows.append(src if lab is None else lab[src])
        cols.append(dst if lab is None else lab[dst])
    nodes = m if base is None else base.n  # the quotient's nodes, then the glued classes
    for p in labelled:
        if p is not base:
            glued = p.labels + np.int32(nodes)
            rows += [lab, glued, p.src + np.int32(nodes)]
            cols += [glued, lab, p.dst + np.int32(nodes)]
            nodes += p.n
    r = np.concatenate(rows) if rows else _NO_EDGES
    c = np.concatenate(cols) if cols else _NO_EDGES
    loop = r == c
    if loop.any():
        r, c = r[~loop], c[~loop]
    if not len(r):  # no edge between classes: the classes as they are
        return Reach(m) if base is None else Reach(base.n, lab)
    r, c = _distinct(r, c, nodes)
    indptr = np.zeros(nodes + 1, dtype=np.int32 if len(r) < 2**31 else np.int64)
    np.cumsum(np.bincount(r, minlength=nodes), out=indptr[1:])
    g = sp.csr_array((np.ones(len(r)), c, indptr), shape=(nodes, nodes))  # csgraph's dtype
    n, comp = connected_components(g, directed=True, connection="strong")
    if n == 1:
        return Reach(1, np.zeros(m, dtype=np.int32))
    if base is None and n == m:  # every node its own class: the classes are the nodes
        labels, comp = None, None
    else:
        labels = comp[:m] if base is None else comp[lab]
    if not keep:
        return Reach(int(n), labels)
    if comp is not None:  # the distinct edges between the new classes
        r, c = comp[r], comp[c]
        out = r != c
        r, c = _distinct(r[out], c[out], n)
    return Reach(int(n), labels, r, c)


def _distinct(r: np.ndarray, c: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pairs ``(r, c)`` (values below ``n``) as int32 arrays, sorted by
    ``(r, c)`` (a canonical CSR's order): one sort of the keys ``r * n + c``.

    csgraph must not see a repeated edge. scipy's COO -> CSR removes repeats by
    sorting each row, which is slow on the row of a class that holds most nodes
    (~M entries); one ``numpy.sort`` of the keys is cheaper, and cheaper than hashing
    (``pandas.unique``, ``numpy.unique``) on these keys, measured."""
    key = _sorted_distinct(r.astype(np.int64) * n + c)
    row = key // n
    return row.astype(np.int32), (key - row * n).astype(np.int32)


def window_components(series, start: int, stop: int) -> int:
    """Strong components of the union of steps ``[start, stop)`` of a series (all M nodes).

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> path, back = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> back.add_node(1)
    >>> s = as_series([path, back])
    >>> window_components(s, 0, 1), window_components(s, 0, 2)
    (3, 1)
    """
    start = check_int("start", start, minimum=0, maximum=series.n_steps - 1)
    stop = check_int("stop", stop, minimum=start + 1, maximum=series.n_steps)
    return condense(series.n_agents, raw=[series.window_edges(start, stop)], keep=False).n


class ReachWindow:
    """Strong components of the union of a window of steps ``[lo, hi)`` moving forward.

    A union cannot take an edge out, so the window is held as two halves that
    never need to (the two-stacks sliding-window aggregation, on condensations,
    :class:`Reach`): a front ``[lo, mid)`` whose suffixes ``[j, mid)`` are
    condensed at checkpoints ``j``, and a back ``[mid, hi)`` condensed as it
    grows. :meth:`reach` condenses the nearest front checkpoint, the back and the
    raw steps left between them, in one :func:`condense` call. When ``lo`` passes
    ``mid``, the front is rebuilt over ``[lo, hi)`` (a step enters a front once:
    O(T) condensations over a pass). A piece is condensed only when the raw
    edges it spares exceed its own cost plus :data:`CONDENSE_OVERHEAD` (so a small
    window, a few agents over a few steps, is answered straight from its raw
    edges, the cheaper way there), the back only once its raw steps are read a
    second time (windows that do not overlap, e.g. aligned ones, are each read
    once, in one call), and a connected suffix ends the front (every longer one is
    connected too). A window that does not overlap the last one starts afresh.

    Parameters
    ----------
    series : GraphSeries
    overhead : int, optional
        :data:`CONDENSE_OVERHEAD` unless given; a negative value condenses every
        step into the pieces (tests).

    Examples
    --------
    >>> from baygo_graph.inputs import as_series
    >>> ring, path = nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.DiGraph([(0, 1), (1, 2)])
    >>> w = ReachWindow(as_series([path, ring, path, path]))
    >>> [w.move(a, a + 2).n_components() for a in range(3)]
    [1, 1, 3]
    """

    def __init__(self, series, *, overhead: int | None = None):
        self._m = series.n_agents
        self._ptr, self._src, self._dst = series.edges
        self._overhead = CONDENSE_OVERHEAD if overhead is None else int(overhead)
        self.lo = self.hi = 0
        self._reset(0)

    def _reset(self, at: int) -> None:
        self._mid = self._k = at
        self._front = [(at, None)]  # (j, Reach of [j, mid)), j decreasing
        self._back = None  # Reach of [mid, k); the steps [k, hi) are raw
        self._read = -1  # k when the raw back was last read (read twice: condense it)

    def _raw(self, a: int, b: int):
        i, j = self._ptr[a], self._ptr[b]
        return self._src[i:j], self._dst[i:j]

    def _limit(self, piece) -> int:
        return self._overhead + (0 if piece is None else piece.cost(self._m))

    def move(self, lo: int, hi: int) -> ReachWindow:
        """Make the window ``[lo, hi)`` (``lo`` and ``hi`` never decrease); returns ``self``."""
        if lo < self.lo or hi < self.hi or hi < lo:
            raise ValueError(f"windows move forward only: [{self.lo}, {self.hi}) -> [{lo}, {hi})")
        if lo >= self.hi:
            self._reset(lo)
        self.lo, self.hi = lo, hi
        return self

    def _flip(self) -> None:
        """The front becomes ``[lo, hi)``, condensed at checkpoints from ``hi`` down."""
        lo, hi, ptr = self.lo, self.hi, self._ptr
        front, j, cur = [(hi, None)], hi, None
        while j > lo:
            if self._overhead < 0:
                i = j - 1
            else:  # the last step i whose raw edges [i, j) outgrow the checkpoint's worth
                i = int(np.searchsorted(ptr, ptr[j] - self._limit(cur), side="left")) - 1
                if i < lo:
                    break
            cur = condense(self._m, [cur], [self._raw(i, j)])
            front.append((i, cur))
            j = i
            if cur.n == 1:
                break
        self._front, self._mid, self._back, self._k = front, hi, None, hi

    def reach(self) -> Reach:
        """The :class:`Reach` of the window's union (edges between classes not kept)."""
        if self.lo > self._mid:
            self._flip()
        k, hi = self._k, self.hi
        if hi > k and (
            self._overhead < 0
            or (self._read == k and self._ptr[hi] - self._ptr[k] > self._limit(self._back))
        ):
            self._back = condense(self._m, [self._back], [self._raw(k, hi)])
            self._k = k = hi
        self._read = k
        front = self._front
        while front[-1][0] < self.lo:
            front.pop()
        j, part = front[-1]
        parts = [p for p in (part, self._back) if p is not None]
        raw = [self._raw(a, b) for a, b in ((self.lo, j), (k, hi)) if b > a]
        if len(parts) == 1 and not raw:
            return parts[0]
        return condense(self._m, parts, raw, keep=False)

    def n_components(self) -> int:
        """Strong components of the window's union (all M nodes)."""
        return self.reach().n


def _sorted_distinct(key: np.ndarray) -> np.ndarray:
    """``key`` sorted, each value once (``np.unique`` without its hashing)."""
    key = np.sort(key)
    if len(key) > 1:
        keep = np.empty(len(key), dtype=bool)
        keep[0] = True
        np.not_equal(key[1:], key[:-1], out=keep[1:])
        key = key[keep]
    return key


def _key_graph(key: np.ndarray, m: int, data=None) -> sp.csr_array:
    """The CSR (rows ``dst``, columns ``src``) of the sorted distinct keys ``dst * m + src``."""
    rows = key // m
    # int32 positions whenever they fit (csgraph and the transpose copy int64 ones)
    itype = np.int32 if max(m, len(key)) < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(m + 1, dtype=itype)
    np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
    data = np.ones(len(key)) if data is None else data
    return sp.csr_array((data, (key - rows * m).astype(itype), indptr), shape=(m, m))


def _strongly_connected(key: np.ndarray, m: int) -> bool:
    """Whether the graph of the sorted distinct keys ``dst * m + src`` is strongly connected:
    every agent reaches agent 0 and is reached from it (two breadth-first searches, about
    3x cheaper than counting the strong components of a window of 10^6 edges)."""
    if m == 1:
        return True
    if len(key) < m:  # some agent hears no one
        return False
    g = _key_graph(key, m)  # edges dst -> src: who reaches agent 0
    if len(breadth_first_order(g, 0, directed=True, return_predecessors=False)) < m:
        return False
    back = sp.csr_array(g.T)
    return len(breadth_first_order(back, 0, directed=True, return_predecessors=False)) == m


class EdgeWindow:
    """The distinct edges of a window of consecutive steps, kept as the window slides.

    :meth:`move` to ``[start, stop)`` adds the steps entering and drops the
    steps leaving (one sorted merge each, a count per distinct edge), so the
    window's matrix and its strong connectivity (:meth:`strongly_connected`) cost
    the window's *distinct* edges, not its raw ones: a hub's windows repeat the
    same edges in most steps (about 9x at 90% hub share). The union influence
    slides it (it needs the summed weights); the connectivity questions of
    :mod:`baygo_graph.analysis.connectivity` use :class:`ReachWindow`, which needs
    no deletions. A move that changes more steps than the new
    window holds (e.g. to a window that does not overlap the last one) builds
    the window afresh from its raw edges (one sort). Windows must move forward
    (``start`` and ``stop`` never decrease).

    With ``weighted=True`` the window also keeps, per distinct edge, the sum of
    its weights over the window's steps (:meth:`matrix`: the off-diagonal part
    of ``sum_t W_t``, what the union influence needs), and :attr:`removed`
    counts the distinct edges that left since it was last reset (0: the
    window's pattern only grew, so a strongly connected window stayed so).

    Examples
    --------
    >>> import networkx as nx
    >>> from baygo_graph.inputs import as_series
    >>> ring, path = nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.DiGraph([(0, 1), (1, 2)])
    >>> w = EdgeWindow(as_series([path, ring, path, path]))
    >>> [w.move(a, a + 2).strongly_connected() for a in range(3)]
    [True, True, False]
    >>> u = EdgeWindow(as_series([path, ring, path], self_weight=0), weighted=True).move(0, 2)
    >>> u.matrix().toarray().tolist()     # row i: what i heard from j over the window
    [[0.0, 0.0, 1.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """

    def __init__(self, series, *, weighted: bool = False):
        self._m = series.n_agents
        if weighted:
            step, src, dst, w = series.step_edges(0, series.n_steps)
            pos = w > 0
            step, self._w = step[pos], np.asarray(w[pos], dtype=float)
            self._src, self._dst = src[pos].astype(np.int64), dst[pos].astype(np.int64)
            self._ptr = np.searchsorted(step, np.arange(series.n_steps + 1))
        else:
            self._ptr, self._src, self._dst = series.edges
            self._w = None
        self.start = self.stop = 0
        self.removed = 0
        self._key = np.zeros(0, dtype=np.int64)
        self._count = np.zeros(0, dtype=np.int64)
        self._sum = None if self._w is None else np.zeros(0)
        self._steps = {}  # step -> its sorted distinct keys (and sums), while in the window

    def _raw(self, a: int, b: int):
        """Keys ``dst * M + src`` (and weights) of the raw edges of steps ``[a, b)``."""
        lo, hi = self._ptr[a], self._ptr[b]
        key = self._dst[lo:hi] * self._m + self._src[lo:hi]
        return key, (None if self._w is None else self._w[lo:hi])

    def _step(self, t: int):
        """Step ``t``'s distinct keys, sorted, and their summed weights (None unweighted);
        computed when it enters, reused when it leaves."""
        out = self._steps.pop(t, None)
        if out is None:
            key, w = self._raw(t, t + 1)
            if w is None:
                out = (_sorted_distinct(key), None)
            else:
                order = np.argsort(key, kind="stable")
                key, w = key[order], w[order]
                first = _run_starts(key)
                out = (key[first], np.add.reduceat(w, first) if len(key) else w)
            self._steps[t] = out
        return out

    def _add(self, t: int) -> None:
        key, w = self._step(t)
        pos = np.searchsorted(self._key, key)
        hit = pos < len(self._key)
        hit[hit] = self._key[pos[hit]] == key[hit]
        self._count[pos[hit]] += 1
        if w is not None:
            self._sum[pos[hit]] += w[hit]
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
            if w is not None:
                sums = np.empty(size)
                sums[at], sums[old] = w[new], self._sum
                self._sum = sums

    def _drop(self, t: int) -> None:
        key, w = self._step(t)
        pos = np.searchsorted(self._key, key)
        self._count[pos] -= 1
        if w is not None:
            self._sum[pos] -= w
        gone = pos[self._count[pos] == 0]
        if len(gone):
            self.removed += len(gone)
            keep = np.ones(len(self._key), dtype=bool)
            keep[gone] = False
            self._key, self._count = self._key[keep], self._count[keep]
            if w is not None:
                self._sum = self._sum[keep]

    def _fresh(self, start: int, stop: int) -> None:
        """Build ``[start, stop)`` from its raw edges: one sort, a count of the steps
        holding each distinct edge (and their summed weights)."""
        self._steps.clear()
        self.removed += len(self._key)
        key, w = self._raw(start, stop)
        steps = np.repeat(np.arange(stop - start), np.diff(self._ptr[start : stop + 1]))
        order = np.lexsort((steps, key))
        key, steps = key[order], steps[order]
        first = _run_starts(key)
        new_step = _run_starts(key, steps)  # a (key, step) pair counts once
        self._key = key[first]
        self._count = np.add.reduceat(new_step.astype(np.int64), first) if len(key) else key
        if w is not None:
            self._sum = np.add.reduceat(w[order], first) if len(key) else w[:0]

    def move(self, start: int, stop: int) -> EdgeWindow:
        """Make the window ``[start, stop)``; returns ``self``."""
        if start < self.start or stop < self.stop:
            raise ValueError(
                f"windows move forward only: [{self.start}, {self.stop}) -> [{start}, {stop})"
            )
        if start >= self.stop or (stop - self.stop) + (start - self.start) > stop - start:
            self._fresh(start, stop)
        else:
            for t in range(self.stop, stop):
                self._add(t)
            for t in range(self.start, start):
                self._drop(t)
        self.start, self.stop = start, stop
        return self

    def strongly_connected(self) -> bool:
        """Whether the window's union is strongly connected (all M agents)."""
        return _strongly_connected(self._key, self._m)

    def matrix(self) -> sp.csr_array:
        """The summed off-diagonal weights of the window (``weighted=True``), as a CSR
        of shape (M, M): row ``i``, column ``j`` is what ``i`` heard from ``j``."""
        if self._sum is None:
            raise ValueError("matrix() needs an EdgeWindow built with weighted=True")
        return _key_graph(self._key, self._m, self._sum.copy())


def _run_starts(key: np.ndarray, other: np.ndarray | None = None) -> np.ndarray:
    """Positions where a run of equal ``key`` (and ``other``) values starts: int indices
    without ``other``, a bool mask with it."""
    change = np.empty(len(key), dtype=bool)
    change[:1] = True
    np.not_equal(key[1:], key[:-1], out=change[1:])
    if other is not None:
        change[1:] |= other[1:] != other[:-1]
        return change
    return np.flatnonzero(change)


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
