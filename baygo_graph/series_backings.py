"""The three backings of a graph series, behind one interface (:class:`GraphSeries`).

* :class:`ChoiceSeries` - BayGo-like steps, one chosen in-neighbour per agent
  (``w_ii = delta``, ``w_i,choice = 1 - delta``; ``-1``: no choice, ``w_ii = 1``);
* :class:`FixedSeries` - the same W every step (fixed graphs, NoCol);
* :class:`EdgeListSeries` - any weighted digraphs (e.g. read from NetworkX or a file),
  held as their nonzero weight entries sorted by step.

:func:`series_from_arrays` rebuilds any of them from the arrays they are stored
as. Everything here is re-exported by :mod:`baygo_graph.series`, which also turns
runs and NetworkX digraphs into series (:func:`~baygo_graph.inputs.as_series`).

Convention (docs/design.md): edge ``(j, i)`` of a step graph means agent ``i`` receives
from ``j`` with weight ``w_ij``; W is row-stochastic. Windows are half-open step
ranges ``[start, stop)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ._text import counted, shorten
from ._validate import check_real

__all__ = [
    "ChoiceSeries",
    "EdgeListSeries",
    "FixedSeries",
    "GraphSeries",
    "StepRows",
    "series_from_arrays",
]


class StepRows(NamedTuple):
    """Every step's W of a series as one base matrix and the rows that replace its rows
    (:meth:`GraphSeries.step_rows`): the arrays grow with the series' entries, not with
    its steps (a long sparse span has few).

    Row ``row[r]`` of ``W_t`` at step ``t = step[r]`` holds the entries
    ``col[ptr[r]:ptr[r + 1]]`` with weights ``w[ptr[r]:ptr[r + 1]]`` (columns sorted, no
    zeros: possibly none); every other row of every step is ``base``'s row.
    """

    #: The canonical W (float64 CSR: columns sorted, duplicates summed, no stored zero)
    #: of a step none of whose rows is listed (the identity, or a fixed series' W).
    base: sp.csr_array
    #: ``(step, row)`` of each replaced row, sorted by step then row (int64).
    step: np.ndarray
    row: np.ndarray
    #: Row ``r``'s entries are ``ptr[r]:ptr[r + 1]`` of ``col`` and ``w``.
    ptr: np.ndarray
    col: np.ndarray
    w: np.ndarray


def _identity(m: int) -> sp.csr_array:
    idx = np.arange(m, dtype=np.int64)
    return sp.csr_array((np.ones(m), idx, np.arange(m + 1, dtype=np.int64)), shape=(m, m))


def _step_rows(m: int, step, row, col, w) -> StepRows:
    """:class:`StepRows` over the identity from entries ``(step, row, col, w)`` (each
    listed row replaced whole): sorted by step, row and column, repeats added (in the
    order given), zeros dropped after the rows are known (a row of zeros stays listed,
    empty)."""
    step, row, col = (np.asarray(a, dtype=np.int64) for a in (step, row, col))
    w = np.asarray(w, dtype=np.float64)
    same = np.zeros(len(step), dtype=bool)
    if len(step) > 1 and not np.all(_lex_le((step, row, col))):
        order = np.lexsort((col, row, step))  # stable: repeats keep the order given
        step, row, col, w = step[order], row[order], col[order], w[order]
    same[1:] = (step[1:] == step[:-1]) & (row[1:] == row[:-1]) & (col[1:] == col[:-1])
    if same.any():  # repeated (step, row, col): added up, as a CSR matrix sums them
        group = np.cumsum(~same) - 1
        w = np.bincount(group, weights=w)
        keep = ~same
        step, row, col = step[keep], row[keep], col[keep]
    first = np.ones(len(step), dtype=bool)
    first[1:] = (step[1:] != step[:-1]) | (row[1:] != row[:-1])
    rid = np.cumsum(first) - 1
    nz = w != 0
    ptr = np.zeros(int(first.sum()) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rid[nz], minlength=len(ptr) - 1), out=ptr[1:])
    return StepRows(_identity(m), step[first], row[first], ptr, col[nz], w[nz])


def _lex_le(keys) -> np.ndarray:
    """Whether each consecutive pair of ``keys`` (a tuple of equal-length arrays, most
    significant first) is in order (``<=``)."""
    le = np.ones(len(keys[0]) - 1, dtype=bool)
    tie = np.ones(len(keys[0]) - 1, dtype=bool)
    for k in keys:
        le &= ~tie | (k[1:] >= k[:-1])
        tie &= k[1:] == k[:-1]
    return le


def _check_node_labels(nodes: tuple, m: int) -> None:
    """M distinct labels, none missing (None or NaN: a JSON null, an empty cell).

    A missing label is refused rather than read as a node: NetworkX refuses None
    as a node, and NaN is not equal to itself, so neither can name one node
    (docs/user_series.md).
    """
    if len(nodes) != m:
        raise ValueError(
            f"nodes must hold one label per node ({m}), got {counted(len(nodes), 'label')}"
        )
    missing = next((k for k, v in enumerate(nodes) if _missing(v)), None)
    if missing is not None:
        raise ValueError(
            f"nodes[{missing}] is {nodes[missing]!r}: a node needs a label (a JSON null or "
            "an empty cell names no node)"
        )
    try:
        distinct = len(set(nodes)) == m
    except TypeError:
        bad = next(v for v in nodes if _unhashable(v))
        raise TypeError(
            f"node labels must be hashable (text or integers), got {shorten(repr(bad), 60)}"
        ) from None
    if not distinct:
        seen: set = set()
        twice = next(v for v in nodes if v in seen or seen.add(v))
        raise ValueError(f"node label {shorten(repr(twice), 60)} appears twice in nodes")


def _missing(v) -> bool:
    """None, a float NaN, or a pandas/numpy missing value (``pd.NA``, ``pd.NaT``, ``np.nan``)."""
    if v is None or (isinstance(v, float) and v != v):
        return True
    if type(v).__module__.startswith(("pandas", "numpy")):
        try:
            import pandas as pd

            return bool(pd.isna(v)) if pd.api.types.is_scalar(v) else False
        except (TypeError, ValueError):
            return False
    return False


def _unhashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return True
    return False


def _stack_checked(series) -> tuple[int, int]:
    """``(T, M)`` of a series whose dense (T, M, M) stack fits the memory budget (else
    BudgetError, before it exists: hostile round 12, Q9)."""
    from .limits import check_budget

    t, m = series.n_steps, series.n_agents
    check_budget(
        8 * t * m * m,
        what=f"the dense W of {counted(t, 'step', spec=',')} x {counted(m, 'node', spec=',')}",
    )
    return t, m


@dataclass(frozen=True, eq=False)
class GraphSeries:
    """A series of T weighted step digraphs on M nodes (base class).

    Attributes
    ----------
    n_steps : int
        Number of steps T.
    n_agents : int
        Number of nodes M; node ``k`` of the arrays is ``nodes[k]``.
    nodes : tuple
        Node labels in array order (``0 .. M-1`` for a run).
    informative : int or None
        Array index of the informative agent, None when unknown.
    delta : float or None
        Self-weight of a choice series; None otherwise.
    synthetic : bool
        True when the series comes from a run on synthetic data.
    time_axis : baygo_graph.io.times.TimeAxis or None
        When each step starts, on the clock of the times it was read from (step 0's
        start, the bin and its origin: dated contacts, Unix or integer times); None:
        steps only (a run, a list of graphs). Kept by :meth:`head` and by the series
        files; no part of the weights (digests do not read it).
    """

    n_steps: int
    n_agents: int
    nodes: tuple = field(default=(), repr=False)
    informative: int | None = None
    delta: float | None = None
    synthetic: bool = False
    time_axis: object = field(default=None, repr=False)

    def __post_init__(self):
        if not self.nodes:
            object.__setattr__(self, "nodes", tuple(range(self.n_agents)))
            return
        object.__setattr__(self, "nodes", tuple(self.nodes))
        _check_node_labels(self.nodes, self.n_agents)

    #: W when every step has the same weights, else None (analysis shortcuts).
    fixed = None
    #: The (T, M) choice array of a choice series, else None.
    choices = None

    def step_edges(self, start: int = 0, stop: int | None = None):
        """Every off-diagonal entry of steps ``[start, stop)`` as flat arrays.

        Returns
        -------
        step, src, dst, weight : numpy.ndarray
            Edge ``(src[e], dst[e])`` of step ``step[e]``: ``dst`` receives from
            ``src`` with weight ``w[dst, src]``, sorted by step.
        """
        raise NotImplementedError

    def _bounds(self, start, stop) -> tuple[int, int]:
        stop = self.n_steps if stop is None else int(stop)
        if not 0 <= start <= stop <= self.n_steps:
            raise ValueError(f"need 0 <= start <= stop <= {self.n_steps}, got {start}, {stop}")
        return int(start), stop

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ptr, src, dst)``: off-diagonal positive-weight edges, sorted by step.

        Step ``t``'s edges are ``src[ptr[t]:ptr[t+1]] -> dst[ptr[t]:ptr[t+1]]``.
        """
        step, src, dst, w = self.step_edges(0, self.n_steps)
        pos = w > 0
        step, src, dst = step[pos], src[pos], dst[pos]
        ptr = np.searchsorted(step, np.arange(self.n_steps + 1))
        return ptr, src.astype(np.int64), dst.astype(np.int64)

    def window_edges(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)`` of every positive off-diagonal edge of steps ``[start, stop)``.

        Edges repeated over steps appear once per step (a fixed series gives its
        edges once for any non-empty window).
        """
        ptr, src, dst = self.edges
        return src[ptr[start] : ptr[stop]], dst[ptr[start] : ptr[stop]]

    def weights(self, t: int) -> sp.csr_array:
        """Row-stochastic W of step ``t`` (row ``i``: agent ``i``'s weights)."""
        return self.weight_sum(int(t), int(t) + 1)

    def weight_sum(self, start: int, stop: int) -> sp.csr_array:
        """Sum of W over steps ``[start, stop)`` (divide by ``stop - start`` for the mean)."""
        m = self.n_agents
        step, src, dst, w = self.step_edges(start, stop)
        off = np.bincount(dst, weights=w, minlength=m)
        rows = np.concatenate([dst, np.arange(m)])
        cols = np.concatenate([src, np.arange(m)])
        vals = np.concatenate([w, (stop - start) - off])
        return _csr(vals, rows, cols, m)

    def weight_stack(self) -> np.ndarray:
        """Every W_t as one dense array of shape (T, M, M) (for small M only; checked
        against the memory budget before it exists)."""
        t, m = _stack_checked(self)
        out = np.zeros((t, m, m))
        step, src, dst, w = self.step_edges(0, t)
        np.add.at(out, (step, dst, src), w)
        idx = np.arange(m)
        out[:, idx, idx] = 1.0 - out.sum(axis=2)
        return out

    def step_rows(self) -> StepRows:
        """Every step's W as one base matrix and the rows that differ from it, in arrays
        that grow with the series' entries, never with its steps.

        ``W_t`` (:meth:`weights`, in canonical form) is ``base`` with the rows listed
        for step ``t`` replaced: what writers and digests use to visit a long sparse
        span without building a matrix per step.

        Returns
        -------
        StepRows

        Examples
        --------
        >>> s = ChoiceSeries.from_choices([[1, -1], [-1, -1]], delta=0.25)
        >>> r = s.step_rows()
        >>> r.step.tolist(), r.row.tolist(), r.col.tolist(), r.w.tolist()
        ([0], [0], [0, 1], [0.25, 0.75])
        """
        # W_t = the off-diagonal entries and w_ii = 1 - their row sum (weight_sum):
        # a row with no entry at a step is the identity's
        step, src, dst, w = self.step_edges(0, self.n_steps)
        order = np.lexsort((dst, step))  # stable: each row's edges in the order given
        step, src, dst, w = step[order], src[order], dst[order], w[order]
        first = np.ones(len(step), dtype=bool)
        first[1:] = (step[1:] != step[:-1]) | (dst[1:] != dst[:-1])
        off = np.bincount(np.cumsum(first) - 1, weights=w)
        at, node = step[first], dst[first]
        return _step_rows(self.n_agents, np.concatenate([step, at]), np.concatenate([dst, node]),
                          np.concatenate([src, node]), np.concatenate([w, 1.0 - off]))  # fmt: skip

    def arrays(self) -> tuple[str, dict]:
        """``(kind, arrays)`` to store the series; :func:`series_from_arrays` inverts it."""
        raise NotImplementedError

    def graph(self, t: int) -> nx.DiGraph:
        """The weighted digraph of step ``t``, on the node labels ``nodes``.

        Edge ``(j, i)``: ``i`` receives from ``j`` with ``weight = w_ij`` (self-loops
        included); node attribute ``informative`` when the series marks one;
        graph attributes ``step`` and ``synthetic``.

        Examples
        --------
        >>> s = ChoiceSeries.from_choices([[1, 0]], delta=0.5, nodes=("a", "b"))
        >>> sorted(s.graph(0).edges(data="weight"))
        [('a', 'a', 0.5), ('a', 'b', 0.5), ('b', 'a', 0.5), ('b', 'b', 0.5)]
        """
        if not 0 <= int(t) < self.n_steps:
            raise ValueError(f"t must be a step in [0, {self.n_steps}), got {t!r}")
        w = sp.coo_array(self.weights(int(t)))
        nodes = self.nodes
        g = nx.DiGraph(step=int(t), synthetic=self.synthetic)
        if self.informative is None:
            g.add_nodes_from(nodes)
        else:
            g.add_nodes_from(nodes, informative=False)
            g.nodes[nodes[self.informative]]["informative"] = True
        g.add_weighted_edges_from(
            (nodes[c], nodes[r], x)
            for c, r, x in zip(w.col.tolist(), w.row.tolist(), w.data.tolist(), strict=True)
        )
        return g

    def graphs(self, start: int = 0, stop: int | None = None):
        """Iterate the step graphs of steps ``[start, stop)`` lazily (see :meth:`graph`)."""
        start, stop = self._bounds(start, stop)
        for t in range(start, stop):
            yield self.graph(t)

    def head(self, steps: int) -> GraphSeries:
        """The series of the first ``steps`` steps.

        Examples
        --------
        >>> ChoiceSeries.from_choices([[1, 0], [-1, 0]]).head(1).choices.tolist()
        [[1, 0]]
        """
        if not 1 <= steps <= self.n_steps:
            raise ValueError(f"steps must be in [1, {self.n_steps}], got {steps!r}")
        kind, arrays = self.arrays()
        if kind == "dynamic":
            arrays = {"choices": arrays["choices"][:steps]}
        elif kind == "edges":
            keep = arrays["e_step"] < steps
            arrays = {k: v[keep] for k, v in arrays.items()}
        meta = {f.name: getattr(self, f.name) for f in dataclasses.fields(GraphSeries)}
        return series_from_arrays(kind, arrays, **(meta | {"n_steps": steps}))


def _csr(vals, rows, cols, m) -> sp.csr_array:
    out = sp.csr_array((vals, (rows, cols)), shape=(m, m))
    out.eliminate_zeros()
    out.sort_indices()
    return out


@dataclass(frozen=True, eq=False)
class ChoiceSeries(GraphSeries):
    """One chosen in-neighbour per agent and step (BayGo).

    Examples
    --------
    >>> s = ChoiceSeries.from_choices([[1, 0, -1]], delta=0.5)
    >>> s.weights(0).toarray().tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    """

    choices: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_choices(cls, choices, *, delta: float = 0.5, **meta) -> ChoiceSeries:
        """A checked choice series from a (T, M) array of agent ids (-1: none)."""
        delta = check_real("delta", delta, low=0.0, high=1.0)
        choices = np.asarray(choices)
        if choices.ndim != 2 or not np.issubdtype(choices.dtype, np.integer):
            raise ValueError(f"choices must be a 2-D integer array (T, M), got {choices.shape}")
        if 0 in choices.shape:
            raise ValueError(
                f"choices must hold at least one step and one agent, got {choices.shape}"
            )
        t, m = choices.shape
        if choices.size and (choices.min() < -1 or choices.max() >= m):
            raise ValueError(
                f"choices must be agent ids in [-1, {m}), got {choices.min()}..{choices.max()}"
            )
        choices = choices.astype(np.int32)
        return cls(n_steps=t, n_agents=m, delta=float(delta), choices=choices, **meta)

    def step_edges(self, start: int = 0, stop: int | None = None):
        start, stop = self._bounds(start, stop)
        ch = self.choices[start:stop]
        t, dst = np.nonzero(ch >= 0)
        return t + start, ch[t, dst].astype(np.int64), dst, np.full(len(t), 1.0 - self.delta)

    def weights(self, t: int) -> sp.csr_array:
        # canonical CSR built directly (one or two entries a row, sorted by column): the
        # loop's monitors ask for every step's W
        choice = self.choices[int(t)].astype(np.int64)
        m, delta = self.n_agents, self.delta
        own = np.arange(m)
        other = (choice >= 0) & (choice != own)  # a chosen neighbour: two entries
        diag = np.where(choice < 0, 1.0, np.where(other, delta, delta + (1.0 - delta)))
        indptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(1 + other, out=indptr[1:])
        pos = indptr[:-1] + (other & (choice < own))  # the diagonal after a lower column
        indices = np.empty(indptr[-1], dtype=np.int64)
        data = np.empty(indptr[-1])
        indices[pos], data[pos] = own, diag
        rows = np.flatnonzero(other)
        at = indptr[rows] + (choice[rows] > rows)
        indices[at], data[at] = choice[rows], 1.0 - delta
        return sp.csr_array((data, indices, indptr), shape=(m, m))

    def step_rows(self) -> StepRows:
        # the rows weights() builds: an agent with no choice keeps the identity's row
        choices = self.choices
        t, i = np.nonzero(choices >= 0)
        c = choices[t, i].astype(np.int64)
        delta = self.delta
        other = c != i
        diag = np.where(other, delta, delta + (1.0 - delta))
        t, i, o = t.astype(np.int64), i.astype(np.int64), np.flatnonzero(other)
        return _step_rows(self.n_agents, np.concatenate([t, t[o]]), np.concatenate([i, i[o]]),
                          np.concatenate([i, c[o]]),
                          np.concatenate([diag, np.full(len(o), 1.0 - delta)]))  # fmt: skip

    def arrays(self) -> tuple[str, dict]:
        return "dynamic", {"choices": self.choices}


@dataclass(frozen=True, eq=False)
class FixedSeries(GraphSeries):
    """The same row-stochastic W at every step."""

    fixed: sp.csr_array | None = field(default=None, repr=False)

    @cached_property
    def _off(self):
        w = sp.coo_array(self.fixed)
        keep = w.row != w.col
        return w.col[keep].astype(np.int64), w.row[keep].astype(np.int64), w.data[keep]

    def step_edges(self, start: int = 0, stop: int | None = None):
        start, stop = self._bounds(start, stop)
        src, dst, w = self._off
        n = stop - start
        return np.repeat(np.arange(start, stop), len(src)), *(np.tile(a, n) for a in (src, dst, w))

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """No per-step copies: every step's edges are :meth:`window_edges` of any window."""
        zero = np.zeros(self.n_steps + 1, dtype=np.int64)
        return zero, np.zeros(0, np.int64), np.zeros(0, np.int64)

    def window_edges(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        src, dst, w = self._off
        keep = w > 0
        src, dst = src[keep], dst[keep]
        return (src, dst) if stop > start else (src[:0], dst[:0])

    def weights(self, t: int) -> sp.csr_array:
        return self.fixed.copy()

    def weight_sum(self, start: int, stop: int) -> sp.csr_array:
        return sp.csr_array(self.fixed * float(stop - start))

    def weight_stack(self) -> np.ndarray:
        t, m = self.n_steps, self.n_agents
        return np.broadcast_to(self.fixed.toarray(), (t, m, m))

    def step_rows(self) -> StepRows:
        base = sp.csr_array(self.fixed, dtype=np.float64, copy=True)
        base.eliminate_zeros()
        base.sum_duplicates()
        base.sort_indices()
        none = np.zeros(0, dtype=np.int64)
        return StepRows(base, none, none, np.zeros(1, dtype=np.int64), none, np.zeros(0))

    def arrays(self) -> tuple[str, dict]:
        w = self.fixed
        return "fixed", {"w_data": w.data, "w_indices": w.indices, "w_indptr": w.indptr}


@dataclass(frozen=True, eq=False)
class EdgeListSeries(GraphSeries):
    """Any weighted digraphs: the nonzero entries ``(step, row, col, w)`` of every W_t.

    Rows are normalised (row-stochastic) and sorted by step. A row with no entry at
    a step is ``w_ii = 1`` there (a node nobody reaches keeps its own belief), left
    implicit: the entries grow with the edges, not with steps x nodes (files of an
    earlier version, which stored those entries, read the same). ``self_weight``
    names the self-weight rule applied when the series was built from edges
    (:func:`~baygo_graph.series.series_from_edges`; None: weights as stored).

    Examples
    --------
    >>> s = EdgeListSeries(n_steps=2, n_agents=2, entries=(np.array([1]), np.array([0]),
    ...                    np.array([1]), np.array([1.0])))
    >>> s.weight_sum(0, 2).toarray().tolist()
    [[1.0, 1.0], [0.0, 2.0]]
    """

    entries: tuple | None = field(default=None, repr=False)
    self_weight: object = None

    def step_edges(self, start: int = 0, stop: int | None = None):
        start, stop = self._bounds(start, stop)
        step, row, col, w = self.entries
        lo, hi = np.searchsorted(step, [start, stop])
        step, row, col, w = step[lo:hi], row[lo:hi], col[lo:hi], w[lo:hi]
        off = row != col
        return step[off], col[off], row[off], w[off]

    def weight_sum(self, start: int, stop: int) -> sp.csr_array:
        step, row, col, w = self.entries
        m = self.n_agents
        lo, hi = np.searchsorted(step, [start, stop])
        step, row, col, w = step[lo:hi], row[lo:hi], col[lo:hi], w[lo:hi]
        # each row sums to 1 in the steps where it has entries, else w_ii = 1 (implicit)
        first = np.ones(len(step), dtype=bool)
        np.not_equal(step[1:] * m + row[1:], step[:-1] * m + row[:-1], out=first[1:])
        own = (stop - start) - np.bincount(row[first], minlength=m)
        idle = np.flatnonzero(own)
        return _csr(
            np.concatenate([w, own[idle].astype(float)]),
            np.concatenate([row, idle]),
            np.concatenate([col, idle]),
            m,
        )

    def weight_stack(self) -> np.ndarray:
        t, m = _stack_checked(self)
        out = np.zeros((t, m, m))
        step, row, col, w = self.entries
        np.add.at(out, (step, row, col), w)
        idle = out.sum(axis=2) == 0  # no entry: w_ii = 1
        tt, ii = np.nonzero(idle)
        out[tt, ii, ii] = 1.0
        return out

    def step_rows(self) -> StepRows:
        # a row with entries at a step is those entries; a row with none, the identity's
        return _step_rows(self.n_agents, *self.entries)

    def arrays(self) -> tuple[str, dict]:
        step, row, col, w = self.entries
        return "edges", {"e_step": step, "e_row": row, "e_col": col, "e_weight": w}


def series_from_arrays(kind: str, arrays: dict, **meta) -> GraphSeries:
    """Rebuild a series stored with :meth:`GraphSeries.arrays` (``n_steps``, ``n_agents``
    and the other attributes as keywords).

    Examples
    --------
    >>> s = ChoiceSeries.from_choices([[1, 0]], delta=0.5)
    >>> kind, arrays = s.arrays()
    >>> series_from_arrays(kind, arrays, n_steps=1, n_agents=2, delta=0.5).choices.tolist()
    [[1, 0]]
    """
    if kind == "dynamic":
        return ChoiceSeries(choices=arrays["choices"], **meta)
    if kind == "fixed":
        m = meta["n_agents"]
        w = sp.csr_array((arrays["w_data"], arrays["w_indices"], arrays["w_indptr"]), shape=(m, m))
        return FixedSeries(fixed=w, **meta)
    if kind == "edges":
        keys = ("e_step", "e_row", "e_col", "e_weight")
        return EdgeListSeries(entries=tuple(arrays[k] for k in keys), **meta)
    raise ValueError(f"kind must be 'dynamic', 'fixed' or 'edges', got {kind!r}")
