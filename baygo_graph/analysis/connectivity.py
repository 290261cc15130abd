"""B-strong connectivity of graph series: windowed unions, smallest B, time to connectivity.

Every function takes a :class:`~baygo_graph.Run`, any sequence of
``networkx.DiGraph`` on one node set, or a :class:`GraphSeries` (the array form
both are turned into, see :func:`as_series`). Convention (DESIGN.md): edge
``(j, i)`` of a step graph means agent ``i`` receives from ``j``.

Windows
-------
Steps are numbered ``0 .. T-1``. A window is a half-open step range
``[start, stop)``: it holds steps ``start, ..., stop - 1`` (``stop`` is
*exclusive*, as in Python slices). For a window length ``B``:

* ``windows="aligned"`` - ``[nB, (n+1)B)`` for ``n = 0, 1, ...`` (the paper's
  Remark: B-strong connectivity);
* ``windows="sliding"`` - ``[s, s+B)`` for every start ``s``.

When ``T`` is not a multiple of ``B`` (aligned), or for the last ``B - 1``
starts (sliding), a window would run past the end: ``incomplete="drop"`` (the
default) leaves such windows out, ``incomplete="keep"`` keeps them, cut at
``T`` (so they must be strongly connected too).

An edge counts when its weight is positive (an edge of weight 0 carries no
information); self-loops never matter for connectivity. A graph with a single
node is strongly connected.

How it is computed
------------------
Window unions are built straight from the per-step edge arrays into
``scipy.sparse`` matrices and checked with
``scipy.sparse.csgraph.connected_components(connection="strong")``.
:func:`time_to_connectivity` runs two pointers over the steps (``O(T)`` window
checks), skipping the component search whenever some agent has no in- or
out-edge in the window (kept as per-agent edge counts, updated step by step).
:func:`smallest_b` derives both window kinds from it: an aligned or sliding
window ``[s, s+B)`` is strongly connected iff ``time_to_connectivity[s] <= B``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..series import GraphSeries, as_series

__all__ = [
    "BConnectivity",
    "GraphSeries",
    "as_series",
    "b_connectivity",
    "smallest_b",
    "strongly_connected_steps",
    "time_to_connectivity",
    "window_union",
]

WINDOW_KINDS = ("aligned", "sliding")
INCOMPLETE = ("drop", "keep")


# -- checks ----------------------------------------------------------------------
def _n_strong(src: np.ndarray, dst: np.ndarray, m: int) -> int:
    """Number of strongly connected components of the digraph src -> dst on m nodes.

    Builds the canonical CSR of the *reversed* graph (same components) by
    sorting and de-duplicating ``dst * m + src``: csgraph's strong components
    must not see duplicate entries (scipy 1.17 loops forever on a CSR with a
    repeated entry, cf. scipy/scipy#4409), and this is cheaper than scipy's
    COO -> CSR conversion.
    """
    if m == 1:
        return 1
    key = np.sort(dst * m + src)
    if len(key) > 1:
        keep = np.empty(len(key), dtype=bool)
        keep[0] = True
        np.not_equal(key[1:], key[:-1], out=keep[1:])
        key = key[keep]
    rows = key // m
    itype = np.int32 if m * m < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(m + 1, dtype=itype)
    np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
    g = sp.csr_array((np.ones(len(key)), (key - rows * m).astype(itype), indptr), shape=(m, m))
    return int(connected_components(g, directed=True, connection="strong", return_labels=False))


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _check_length(name, value, upper=None, *, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1 or (upper is not None and value > upper):
        bound = f" and <= {upper} (the number of steps)" if upper is not None else ""
        raise ValueError(f"{name} must be >= 1{bound}, got {value!r}")
    return int(value)


def _window_bounds(n_steps: int, B: int, *, windows: str, incomplete: str):
    """``(start, stop)`` arrays of the windows of length ``B`` (``stop`` exclusive)."""
    if windows == "aligned":
        start = np.arange(0, n_steps, B)
    else:
        start = np.arange(n_steps)
    stop = np.minimum(start + B, n_steps)
    if incomplete == "drop":
        full = stop - start == B
        start, stop = start[full], stop[full]
    return start, stop


def window_union(graphs, start: int, stop: int) -> nx.DiGraph:
    """The union digraph of steps ``start .. stop-1`` (``stop`` exclusive).

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    start, stop : int
        ``0 <= start < stop <= T``.

    Returns
    -------
    networkx.DiGraph
        Every node of the series (original labels), an edge ``(j, i)`` wherever
        some step of the window has one (self-loops included), with attributes
        ``weight`` = the sum over the window of the normalised ``w_ij`` (so the
        union's row-normalised weights are the mean W of the window; for a
        ``Run`` these are the step graphs' edge weights) and ``count`` = the
        number of steps holding the edge. A node with no in-edge in a step has
        ``w_ii = 1`` in that step (see :func:`as_series`), hence a self-loop.

    Examples
    --------
    >>> g1 = nx.DiGraph([(0, 1)]); g1.add_node(2)
    >>> g2 = nx.DiGraph([(1, 2), (2, 0)])
    >>> u = window_union([g1, g2], 0, 2)
    >>> sorted(u.edges()), nx.is_strongly_connected(u)
    ([(0, 0), (0, 1), (1, 1), (1, 2), (2, 0), (2, 2)], True)
    >>> u.edges[0, 1]["count"], u.edges[0, 1]["weight"]
    (1, 1.0)
    """
    s = as_series(graphs)
    if not (isinstance(start, int | np.integer) and isinstance(stop, int | np.integer)):
        raise TypeError(f"start and stop must be ints, got {start!r}, {stop!r}")
    if not 0 <= start < stop <= s.n_steps:
        raise ValueError(f"need 0 <= start < stop <= {s.n_steps}, got start={start}, stop={stop}")
    total = sp.coo_array(s.weight_sum(int(start), int(stop)))
    counts = sp.csr_array((s.n_agents, s.n_agents), dtype=np.int64)
    for t in range(start, stop):
        counts = counts + sp.csr_array(s.weights(t) > 0, dtype=np.int64)
    count = np.asarray(sp.csr_array(counts)[total.row, total.col]).ravel()
    g = nx.DiGraph()
    g.add_nodes_from(s.nodes)
    nodes = s.nodes
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


# -- results ---------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BConnectivity:
    """Result of :func:`b_connectivity`.

    Attributes
    ----------
    B : int
        Window length.
    windows : {"aligned", "sliding"}
    incomplete : {"drop", "keep"}
    start, stop : numpy.ndarray of int, shape (n_windows,)
        Window ``n`` holds steps ``start[n] .. stop[n] - 1`` (``stop`` exclusive).
    strongly_connected : numpy.ndarray of bool, shape (n_windows,)
        Whether the window's union digraph is strongly connected.
    n_components : numpy.ndarray of int, shape (n_windows,)
        Number of strongly connected components of the window's union.
    first_failure : int or None
        Index of the first window that is not strongly connected (None if none).
    holds : bool
        True when every window is strongly connected: the series is
        B-strongly-connected (in the window sense asked for).
    """

    B: int
    windows: str
    incomplete: str
    start: np.ndarray = field(repr=False)
    stop: np.ndarray = field(repr=False)
    strongly_connected: np.ndarray = field(repr=False)
    n_components: np.ndarray = field(repr=False)
    first_failure: int | None
    holds: bool

    @property
    def n_windows(self) -> int:
        """Number of windows checked."""
        return len(self.start)


def b_connectivity(graphs, B: int, *, windows: str = "aligned", incomplete: str = "drop"):
    """Check every window union of length ``B`` for strong connectivity.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`as_series`.
    B : int
        Window length, ``1 <= B <= T``.
    windows : {"aligned", "sliding"}, default "aligned"
        Aligned windows ``[nB, (n+1)B)`` (the paper's Remark) or every window
        ``[s, s+B)`` of ``B`` consecutive steps.
    incomplete : {"drop", "keep"}, default "drop"
        What to do with windows that run past step ``T - 1``: leave them out, or
        keep them cut at ``T``.

    Returns
    -------
    BConnectivity

    Examples
    --------
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> half1, half2 = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> half2.add_node(1)
    >>> r = b_connectivity([half1, half2, ring], 2, windows="sliding")
    >>> r.strongly_connected.tolist(), r.first_failure, r.holds
    ([True, True], None, True)
    >>> r = b_connectivity([half1, half2, ring], 1)
    >>> r.n_components.tolist(), r.first_failure
    ([3, 3, 1], 0)
    """
    s = as_series(graphs)
    _check_choice("windows", windows, WINDOW_KINDS)
    _check_choice("incomplete", incomplete, INCOMPLETE)
    B = _check_length("B", B, s.n_steps)
    start, stop = _window_bounds(s.n_steps, B, windows=windows, incomplete=incomplete)
    if s.fixed is not None:
        n = _n_strong(*s.window_edges(0, 1), s.n_agents)
        ncomp = np.full(len(start), n, dtype=np.int64)
    else:
        ncomp = np.array(
            [
                _n_strong(*s.window_edges(a, b), s.n_agents)
                for a, b in zip(start, stop, strict=True)
            ],
            dtype=np.int64,
        )
    ok = ncomp == 1
    bad = np.flatnonzero(~ok)
    return BConnectivity(
        B=B,
        windows=windows,
        incomplete=incomplete,
        start=start,
        stop=stop,
        strongly_connected=ok,
        n_components=ncomp,
        first_failure=int(bad[0]) if len(bad) else None,
        holds=not len(bad),
    )


def strongly_connected_steps(graphs) -> np.ndarray:
    """Whether each single step graph is strongly connected.

    Returns
    -------
    numpy.ndarray of bool, shape (T,)

    Examples
    --------
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> strongly_connected_steps([ring, nx.DiGraph([(0, 1), (1, 2), (2, 1)])]).tolist()
    [True, False]
    """
    return b_connectivity(graphs, 1, windows="aligned").strongly_connected


def time_to_connectivity(graphs, *, max_length: int | None = None) -> np.ndarray:
    """For each start step, the shortest window from it whose union is strongly connected.

    ``out[s]`` is the smallest ``L`` such that the union of steps
    ``s .. s+L-1`` is strongly connected, or ``-1`` when no window starting at
    ``s`` (up to the end of the series, or up to ``max_length`` steps) is.
    ``s + out[s]`` never decreases with ``s`` where defined, and once ``-1``
    (without ``max_length``) it stays ``-1``.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    max_length : int, optional
        Give up on windows longer than this (``-1``); default: no limit.

    Returns
    -------
    numpy.ndarray of int, shape (T,)

    Notes
    -----
    Two pointers over the steps with per-agent in/out edge counts of the
    current window: at most ``2T`` window checks, and the strong-component
    search runs only when every agent has an in- and an out-edge.

    Examples
    --------
    >>> a, b = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> b.add_node(1)
    >>> time_to_connectivity([a, b, a, a]).tolist()
    [2, 2, -1, -1]
    """
    s = as_series(graphs)
    max_length = _check_length("max_length", max_length, allow_none=True)
    T, m = s.n_steps, s.n_agents
    cap = T if max_length is None else min(max_length, T)
    out = np.full(T, -1, dtype=np.int64)
    if s.fixed is not None:
        if _n_strong(*s.window_edges(0, 1), m) == 1:
            out[:] = 1
        return out
    if m == 1:
        out[:] = 1
        return out
    ptr, src, dst = s.edges
    outdeg = np.zeros(m, dtype=np.int64)
    indeg = np.zeros(m, dtype=np.int64)
    e = 0  # window is [start, e)
    for start in range(T):
        if e < start:
            e = start
        while True:
            if (
                e > start
                and outdeg.all()
                and indeg.all()
                and _n_strong(src[ptr[start] : ptr[e]], dst[ptr[start] : ptr[e]], m) == 1
            ):
                out[start] = e - start
                break
            if e == T or e - start >= cap:
                break
            outdeg += np.bincount(src[ptr[e] : ptr[e + 1]], minlength=m)
            indeg += np.bincount(dst[ptr[e] : ptr[e + 1]], minlength=m)
            e += 1
        if out[start] == -1 and e == T:
            break  # no window from here on reaches strong connectivity
        if e > start:
            outdeg -= np.bincount(src[ptr[start] : ptr[start + 1]], minlength=m)
            indeg -= np.bincount(dst[ptr[start] : ptr[start + 1]], minlength=m)
    return out


def smallest_b(
    graphs,
    *,
    windows: str = "aligned",
    incomplete: str = "drop",
    max_b: int | None = None,
):
    """The smallest B for which the series is B-strongly-connected.

    Parameters
    ----------
    graphs : Run, GraphSeries or sequence of networkx.DiGraph
    windows : {"aligned", "sliding"}, default "aligned"
        Aligned: every window ``[nB, (n+1)B)`` must be strongly connected (not
        monotone in B: B may work and B+1 not, so every B is tried). Sliding:
        every window of B consecutive steps (monotone in B).
    incomplete : {"drop", "keep"}, default "drop"
        As in :func:`b_connectivity`.
    max_b : int, optional
        Largest B tried (default T).

    Returns
    -------
    int or None
        None when no ``B <= max_b`` works (e.g. an agent nobody ever listens to).

    Notes
    -----
    Both kinds come from one :func:`time_to_connectivity` pass ``L``: window
    ``[s, s+B)`` is strongly connected iff ``1 <= L[s] <= B``. Sliding is the
    smallest B with ``max(L[0 .. T-B]) <= B``; aligned checks ``L`` at the
    starts ``0, B, 2B, ...`` for each B, in O(T log T) array operations.

    Examples
    --------
    >>> a, b = nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(2, 0)])
    >>> b.add_node(1)
    >>> series = [a, b, b, a]
    >>> smallest_b(series, windows="aligned"), smallest_b(series, windows="sliding")
    (2, 3)
    >>> smallest_b([a, a, a]) is None
    True
    """
    s = as_series(graphs)
    _check_choice("windows", windows, WINDOW_KINDS)
    _check_choice("incomplete", incomplete, INCOMPLETE)
    max_b = _check_length("max_b", max_b, allow_none=True)
    T = s.n_steps
    top = T if max_b is None else min(max_b, T)
    L = time_to_connectivity(s, max_length=top)
    never = L < 0
    if windows == "sliding":
        reach = np.where(never, np.iinfo(np.int64).max, L)
        prefix_max = np.maximum.accumulate(reach)
        bs = np.arange(1, top + 1)
        ok = prefix_max[T - bs] <= bs
        if incomplete == "keep":
            # tail windows [s, T) for s > T - B must be strongly connected too
            suffix_ok = np.append(np.logical_and.accumulate(~never[::-1])[::-1], True)
            ok &= suffix_ok[T - bs + 1]
        hit = np.flatnonzero(ok)
        return int(bs[hit[0]]) if len(hit) else None
    for B in range(1, top + 1):
        starts = np.arange(0, T - B + 1, B)
        l_full = L[starts]
        if np.any(never[starts]) or np.any(l_full > B):
            continue
        tail = (T // B) * B
        if incomplete == "keep" and tail < T and never[tail]:
            continue
        return B
    return None
