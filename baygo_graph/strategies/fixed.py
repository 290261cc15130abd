"""Fixed graphs: the same weight matrix W every step, from a graph and a weight rule.

Row ``i`` of W holds agent ``i``'s pooling weights. :func:`complete`, :func:`star`
and :func:`nocol` make the paper's baselines. By default every agent weights its
closed in-neighbourhood (itself and the agents it listens to) equally, the paper's
rule: the complete graph is plain averaging (1/M everywhere); a star's centre weights
every agent 1/M, each leaf weights itself 1/2 and the centre 1/2. The rule before
issue 19 (``"delta"``: delta on itself, 1 - delta shared by its neighbours) is a
named option; see ``docs/paper.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .._text import counted, short_repr
from .._validate import weight_problem
from ..series import FixedSeries, row_shares
from .base import Plan
from .physical import _check_nodes, listen_matrix

__all__ = [
    "COMPLETE_LIMIT",
    "DEFAULT_WEIGHTS",
    "WEIGHT_RULES",
    "FixedGraph",
    "complete",
    "nocol",
    "star",
]

#: Largest number of agents of a complete graph (M^2 pairs).
COMPLETE_LIMIT = 20_000
#: Weight rules of :class:`FixedGraph` (``"uniform"`` is another name of ``"equal"``).
WEIGHT_RULES = ("equal", "delta", "edge", "uniform")
#: The paper's rule: equal weights on each agent's closed in-neighbourhood.
DEFAULT_WEIGHTS = "equal"


@dataclass(frozen=True, eq=False)
class FixedGraph:
    """The same weights every step, from a graph and a weight rule.

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
        Nodes ``0..M-1``. Undirected: neighbours listen to each other. Directed:
        edge ``(j, i)`` means ``i`` listens to ``j``.
    weights : {"equal", "delta", "edge", "uniform"}, default "equal"
        ``"equal"`` (the paper's rule; ``"uniform"`` is the same rule under its
        former name): ``1 / (deg_i + 1)`` on the closed in-neighbourhood, so the
        complete graph averages all agents equally. ``"delta"`` (the default
        before equal weights; it reproduces those runs bit for bit):
        ``w_ii = delta`` and ``1 - delta`` shared equally among the agents ``i``
        listens to (BayGo's self-weight, a choice of ours, not the paper's).
        ``"edge"``: the graph's ``weight`` attributes of ``i``'s in-edges and
        self-loop (each 1 where the attribute is absent; a self-loop the graph
        does not have counts 1, one it has counts its own weight, 0 included),
        divided by their sum; parallel edges' weights are summed. An agent that
        listens to no one keeps ``w_ii = 1``; weights that sum to 0 are refused.
    name : str, default "graph"
        Label of the strategy in runs and tables.
    """

    graph: nx.Graph
    weights: str = DEFAULT_WEIGHTS
    name: str = "graph"

    def __post_init__(self):
        if not isinstance(self.graph, nx.Graph):
            raise TypeError(f"graph must be a networkx graph, got {type(self.graph).__name__}")
        if not isinstance(self.weights, str):
            raise TypeError(
                f"weights must be a rule name, one of {WEIGHT_RULES}, got "
                f"{type(self.weights).__name__}"
            )
        if self.weights not in WEIGHT_RULES:
            raise ValueError(f"weights must be one of {WEIGHT_RULES}, got {self.weights!r}")

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A plan that pools with :meth:`matrix` every step."""
        return _FixedPlan(self.matrix(agents, delta=delta), dtype, steps)

    def matrix(self, agents: int, *, delta: float) -> sp.csr_array:
        """The row-stochastic weight matrix W (row i: agent i's weights).

        Examples
        --------
        >>> FixedGraph(nx.path_graph(3)).matrix(3, delta=0.4).toarray().round(12).tolist()
        [[0.5, 0.5, 0.0], [0.333333333333, 0.333333333333, 0.333333333333], [0.0, 0.5, 0.5]]
        >>> g = FixedGraph(nx.path_graph(3), weights="delta")
        >>> g.matrix(3, delta=0.4).toarray().tolist()
        [[0.4, 0.6, 0.0], [0.3, 0.4, 0.3], [0.0, 0.6, 0.4]]
        """
        if self.weights in ("delta", "equal", "uniform"):  # from who hears whom
            h = listen_matrix(self.graph, agents).astype(float)
            deg = h.sum(axis=1)
            if any("weight" in d for _, _, d in self.graph.edges(data=True)):
                warnings.warn(
                    f"FixedGraph(weights={self.weights!r}) does not read the graph's 'weight' "
                    "attributes (its rule uses who hears whom): pass weights='edge' to use "
                    "them",
                    UserWarning,
                    stacklevel=2,
                )
        if self.weights == "delta":
            off = sp.diags_array(np.divide(1 - delta, deg, out=np.zeros(agents), where=deg > 0))
            self_w = np.where(deg > 0, delta, 1.0)
            w = off @ h + sp.diags_array(self_w)
        elif self.weights in ("equal", "uniform"):
            w = sp.diags_array(1.0 / (deg + 1)) @ (h + sp.eye_array(agents, format="csr"))
        else:  # from the edges' own weights
            w = _edge_matrix(self.graph, agents)
            with np.errstate(over="ignore"):  # an overflow is handled below
                total = np.asarray(w.sum(axis=1)).ravel()
            if (total == 0).any():
                i = int(np.flatnonzero(total == 0)[0])
                raise ValueError(
                    f"agent {i}'s weights (its self-loop and in-edges) sum to 0 under "
                    "weights='edge': give it a positive weight"
                )
            with np.errstate(over="ignore"):  # 1 / a subnormal total: handled below
                inv = 1.0 / total
            rows = np.repeat(np.arange(agents), np.diff(w.indptr))
            if np.isfinite(total).all() and np.isfinite(inv).all():
                shares = w.data * inv[rows]  # the bits of diag(1 / total) @ A
            else:  # huge or subnormal weights: each entry divided by its row's total
                shares, _ = row_shares(w.data, rows, agents)
            _check_no_share_vanishes(w, rows, shares, self.graph.is_directed())
            w = sp.csr_array((shares, w.indices, w.indptr), shape=(agents, agents))
        w = sp.csr_array(w)
        w.eliminate_zeros()
        w.sort_indices()
        return w


def _edge_matrix(graph, agents: int) -> sp.csr_array:
    """Rule ``"edge"`` before normalising: ``A[i, j]`` the ``weight`` of ``j -> i`` (both
    ways in an undirected graph; parallel edges summed), a present self-loop's own weight
    (0 too), 1 on the diagonal where there is none. Each weight must be a finite real
    number >= 0; a bad one is refused naming its edge. The nodes must be 0..M-1 (the
    check of :func:`listen_matrix`, which the other rules go through)."""
    _check_nodes(graph, agents)
    edges = list(graph.edges(data="weight", default=1.0))
    for u, v, x in edges:
        if (problem := weight_problem(x)) is not None:
            raise ValueError(
                f"graph edge ({u!r}, {v!r}) has a 'weight' attribute {short_repr(x)}: {problem}"
            )
    src = np.fromiter((u for u, _, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((v for _, v, _ in edges), dtype=np.int64, count=len(edges))
    val = np.fromiter((float(x) for _, _, x in edges), dtype=float, count=len(edges))
    if not graph.is_directed():  # neighbours hear each other; a self-loop once
        two = src != dst
        src, dst = np.concatenate([src, dst[two]]), np.concatenate([dst, src[two]])
        val = np.concatenate([val, val[two]])
    loops = np.zeros(agents, dtype=bool)
    loops[src[src == dst]] = True
    missing = np.flatnonzero(~loops)
    rows, cols = np.concatenate([dst, missing]), np.concatenate([src, missing])
    with np.errstate(over="ignore"):
        a = sp.csr_array(
            (np.concatenate([val, np.ones(missing.size)]), (rows, cols)), shape=(agents, agents)
        )
        a.sum_duplicates()
    if not np.isfinite(a.data).all():
        i, j = (int(k[0]) for k in np.nonzero(~np.isfinite(a.toarray())))
        raise ValueError(
            f"graph's parallel edges ({j}, {i}) have 'weight' attributes whose sum "
            "overflows: weights must sum to a finite number"
        )
    return a


def _check_no_share_vanishes(a, rows, shares, directed: bool) -> None:
    """Refuse a positive entry of ``a`` (CSR, row ``i``: agent ``i``'s weights) whose
    share of its row's total is below the smallest float: it would become 0 and drop
    its edge, never said (``5e-324`` beside a weight 1)."""
    lost = (shares == 0) & (a.data > 0)
    if lost.any():
        k = int(np.flatnonzero(lost)[0])
        i, j = int(rows[k]), int(a.indices[k])
        what = f"agent {i}'s self-weight" if i == j else f"graph edge ({j}, {i})"
        if not directed and i != j:
            what += f" (agent {i}'s side)"
        with np.errstate(over="ignore"):
            total = float(a.data[rows == i].sum())
        raise ValueError(
            f"{what} has a weight {float(a.data[k])!r} whose share of agent {i}'s total "
            f"{total!r} is below the smallest float (5e-324): "
            "it would become 0 and drop its edge: scale that agent's weights closer "
            "together"
        )


class _FixedPlan(Plan):
    def __init__(self, w, dtype, steps):
        m = w.shape[0]
        super().__init__(m)
        self.steps = steps
        self.w = w
        self.identity = w.nnz == m and bool(np.all(w.diagonal() == 1))
        # a dense product is faster than a sparse one past a quarter of the pairs
        self.apply = w.toarray().astype(dtype) if w.nnz > m * m // 4 else w
        self.stacked = {}  # runs -> the block-diagonal W of that many runs at once

    def pool(self, t, model, state, rng) -> bool:
        return self.pool_seeds([self], t, model, state, [rng])

    def pool_seeds(self, plans, t, model, state, rngs) -> bool:
        """Pool every run with the same W (the runs share the configuration): a dense W
        applied run by run, a sparse one as one block-diagonal matrix."""
        if self.identity:
            return False
        seeds = len(plans)
        if seeds == 1 or not sp.issparse(self.apply):
            model.pool_weights(state, self.apply)
            return True
        if seeds not in self.stacked:
            w = sp.block_diag([self.apply] * seeds, format="csr")
            w.sort_indices()
            self.stacked = {seeds: w}
        model.pool_weights(state, self.stacked[seeds])
        return True

    def weights(self, t: int):
        return self.w

    def series(self) -> FixedSeries:
        return FixedSeries(n_steps=self.steps, n_agents=self.w.shape[0], fixed=self.w)


def complete(agents: int, *, weights: str = DEFAULT_WEIGHTS) -> FixedGraph:
    """The fixed fully connected graph (by default plain averaging, W = 1/M).

    Examples
    --------
    >>> complete(4).matrix(4, delta=0.4).toarray()[0].tolist()
    [0.25, 0.25, 0.25, 0.25]
    >>> complete(4, weights="delta").matrix(4, delta=0.4).toarray()[0].round(12).tolist()
    [0.4, 0.2, 0.2, 0.2]
    """
    if agents > COMPLETE_LIMIT:
        raise ValueError(
            f"a complete graph on {counted(agents, 'agent')} holds {agents}^2 pairs: above "
            f"{counted(COMPLETE_LIMIT, 'agent')} use 'baygo' with a sparse physical graph "
            "(e.g. physical='regular-10')"
        )
    return FixedGraph(nx.complete_graph(agents), weights=weights, name="complete")


def star(
    agents: int, *, center: int, weights: str = DEFAULT_WEIGHTS, name: str = "star"
) -> FixedGraph:
    """The fixed star graph with the given centre.

    By default the centre weights every agent 1/M (itself included) and each leaf
    weights itself 1/2 and the centre 1/2, the paper's stars.

    Examples
    --------
    >>> star(4, center=1).matrix(4, delta=0.3).toarray().tolist()
    [[0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.0, 0.5, 0.5, 0.0], [0.0, 0.5, 0.0, 0.5]]
    """
    if not 0 <= center < agents:
        raise ValueError(f"center must be an agent id in [0, {agents}), got {center!r}")
    g = nx.star_graph(agents - 1)  # centre 0
    g = nx.relabel_nodes(g, {0: center, center: 0}) if center else g
    return FixedGraph(g, weights=weights, name=name)


def nocol(agents: int) -> FixedGraph:
    """No collaboration: W = I.

    Examples
    --------
    >>> nocol(2).matrix(2, delta=0.5).toarray().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    g = nx.empty_graph(agents)
    return FixedGraph(g, name="nocol")
