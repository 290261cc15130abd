"""How the weight matrix W is chosen each step.

Row ``i`` of W holds agent ``i``'s pooling weights: ``w_ij`` is how much agent
``i`` listens to agent ``j``. Strategies:

* :class:`BayGo` - every step, agent ``i`` listens to the physical neighbour ``s``
  whose local posterior diverges most from its own, ``argmax_j KL(p_i || p_j)``,
  with ``w_ii = delta`` and ``w_is = 1 - delta``.
* :class:`FixedGraph` - the same W every step, from a NetworkX graph and a
  weight rule (:func:`complete`, :func:`star` and :func:`nocol` make the paper's
  baselines).
* :class:`Centralised` - one learner that sees every agent's batch.

Use :func:`resolve_strategy` to turn a name (``"baygo"``, ``"complete"``,
``"posm"``, ``"negm"``, ``"nocol"``, ``"cen"``) or a graph into one of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp

__all__ = [
    "STRATEGY_NAMES",
    "WEIGHT_RULES",
    "BayGo",
    "Centralised",
    "FixedGraph",
    "complete",
    "kl_choices",
    "kl_matrix",
    "listen_matrix",
    "nocol",
    "physical_graph",
    "resolve_strategy",
    "star",
]

#: Names understood by :func:`resolve_strategy`.
STRATEGY_NAMES = ("baygo", "complete", "posm", "negm", "nocol", "cen")
#: Weight rules of :class:`FixedGraph`.
WEIGHT_RULES = ("delta", "uniform", "edge")

# Relative tolerance under which two KL scores of one agent count as a tie.
_TIE_RTOL = 1e-12
# Largest number of values gathered at once on the sparse KL path (~4 MB: stays in cache).
_CHUNK_VALUES = 1 << 19


def listen_matrix(graph, agents: int) -> sp.csr_array:
    """Who may listen to whom, as a boolean CSR matrix ``H[i, j]`` (i hears j).

    An undirected graph lets neighbours hear each other; in a directed graph an
    edge ``(j, i)`` means ``i`` receives from ``j`` (DESIGN.md). Self-loops are
    dropped. The graph's nodes must be exactly ``0 .. agents-1``.

    Examples
    --------
    >>> listen_matrix(nx.path_graph(3), 3).toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    _check_nodes(graph, agents)
    a = nx.to_scipy_sparse_array(graph, nodelist=range(agents), weight=None, format="csr")
    h = sp.csr_array(a.T if graph.is_directed() else a, dtype=bool)
    h.setdiag(False)
    h.eliminate_zeros()
    h.sort_indices()
    return h


def _check_nodes(graph, agents: int) -> None:
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"graph must be a networkx graph, got {type(graph).__name__}")
    if set(graph.nodes) != set(range(agents)):
        raise ValueError(
            f"graph must have exactly the nodes 0..{agents - 1} (one per agent), "
            f"got {graph.number_of_nodes()} nodes: {sorted(graph.nodes, key=str)[:6]}..."
        )


def physical_graph(name: str, agents: int, *, seed: int = 0):
    """Make a physical graph by name: ``"complete"``, ``"regular-D"``, ``"geometric"``.

    ``"regular-D"``: random D-regular graph; ``"geometric"`` (or
    ``"geometric-D"``): random geometric graph on the unit square with mean
    degree about D (default 10), radius ``sqrt(D / (pi (M - 1)))``.
    ``"complete"`` gives None (BayGo's default, every pair can talk).

    Examples
    --------
    >>> physical_graph("regular-4", 10).number_of_edges()
    20
    >>> physical_graph("complete", 10) is None
    True
    """
    key = str(name).lower()
    if key == "complete":
        return None
    try:
        if key.startswith("regular-"):
            degree = int(key.split("-", 1)[1])
            if degree >= agents or degree * agents % 2:
                raise ValueError
            return nx.random_regular_graph(degree, agents, seed=seed)
        if key == "geometric" or key.startswith("geometric-"):
            degree = float(key.split("-", 1)[1]) if "-" in key else 10.0
            radius = float(np.sqrt(degree / (np.pi * (agents - 1))))
            return nx.random_geometric_graph(agents, radius, seed=seed)
    except ValueError:
        pass
    raise ValueError(
        f"physical must be 'complete', 'regular-D' (D < agents, D * agents even) or "
        f"'geometric[-D]', got {name!r} for {agents} agents"
    )


def kl_matrix(logp: np.ndarray) -> np.ndarray:
    """Dense matrix of ``KL(p_i || p_j)`` between normalised log-posteriors.

    Parameters
    ----------
    logp : numpy.ndarray, shape (M, K)
        Normalised log-posteriors, one row per agent.

    Returns
    -------
    numpy.ndarray, shape (M, M)

    Examples
    --------
    >>> lp = np.log([[0.5, 0.5], [0.9, 0.1]])
    >>> kl_matrix(lp).round(4).tolist()
    [[0.0, 0.5108], [0.3681, 0.0]]
    """
    p = np.exp(logp)
    cross = p @ logp.T
    return np.diag(cross)[:, None] - cross


def _segment_argmin(scores, indptr, columns, rng) -> np.ndarray:
    """Per CSR row, the column of the smallest finite score; ties at random; -1 if none."""
    rows = len(indptr) - 1
    out = np.full(rows, -1, dtype=np.int64)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if len(nonempty) == 0:
        return out
    starts = indptr[nonempty]
    lengths = np.diff(indptr)[nonempty]
    rowmin = np.minimum.reduceat(scores, starts)
    scale = np.maximum.reduceat(np.where(np.isfinite(scores), np.abs(scores), 0.0), starts)
    ok = np.isfinite(rowmin)
    row_of = np.repeat(np.arange(len(nonempty)), lengths)
    base = indptr[nonempty[0]]
    tie = scores[base : indptr[-1]] <= (rowmin + _TIE_RTOL * np.maximum(scale, 1.0))[row_of]
    n_ties = np.add.reduceat(tie.astype(np.int64), starts - base)
    # k-th tie of each row, k uniform in [0, n_ties); one draw per row with a tie only.
    pick = np.zeros(len(nonempty), dtype=np.int64)
    multi = np.flatnonzero(ok & (n_ties > 1))
    if len(multi):
        pick[multi] = rng.integers(0, n_ties[multi])
    rank = np.cumsum(tie) - 1
    first = np.concatenate([[0], np.cumsum(n_ties)[:-1]])
    chosen = tie & (rank == (first + pick)[row_of])
    sel = np.flatnonzero(chosen)
    out_rows = nonempty[row_of[sel]]
    out[out_rows] = columns[base + sel]
    out[nonempty[~ok]] = -1
    return out


def _dense_argmin(scores, rng, *, mask_diagonal=False) -> np.ndarray:
    """:func:`_segment_argmin` for a dense (M, N) score matrix (every row full).

    Same result and same draws from ``rng`` as the CSR version, with a few
    passes over the 2-D array instead of flat index arithmetic. With
    ``mask_diagonal`` the diagonal is set to +inf here (complete graph), and
    each row's scale (largest finite ``|score|``) comes from its min and max
    over the other entries: two reductions instead of a masked ``abs`` pass.
    """
    if mask_diagonal:
        np.fill_diagonal(scores, -np.inf)
        rowmax = scores.max(axis=1)
        np.fill_diagonal(scores, np.inf)
        rowmin = scores.min(axis=1)
        with np.errstate(invalid="ignore"):
            scale = np.maximum(np.abs(rowmin), np.abs(rowmax))
        odd = np.flatnonzero(~(np.isfinite(rowmin) & np.isfinite(rowmax)))
        if len(odd):  # a non-finite score off the diagonal: the general formula
            sub = scores[odd]
            scale[odd] = np.abs(sub, where=np.isfinite(sub), out=np.zeros_like(sub)).max(axis=1)
    else:
        rowmin = scores.min(axis=1)
        finite = np.isfinite(scores)
        scale = np.abs(scores, where=finite, out=np.zeros_like(scores)).max(axis=1)
    ok = np.isfinite(rowmin)
    tie = scores <= (rowmin + _TIE_RTOL * np.maximum(scale, 1.0))[:, None]
    n_ties = np.count_nonzero(tie, axis=1)
    out = np.argmax(tie, axis=1).astype(np.int64)  # first tie: rank 0
    multi = np.flatnonzero(ok & (n_ties > 1))
    if len(multi):
        pick = rng.integers(0, n_ties[multi])
        out[multi] = np.argmax(np.cumsum(tie[multi], axis=1) > pick[:, None], axis=1)
    out[~ok] = -1
    return out


def _edge_cross(prob, logp, listen) -> np.ndarray:
    """``sum_k prob[i, k] logp[j, k]`` for every stored edge ``(i, j)`` of ``listen``.

    Rows are grouped by degree ``d``; each chunk of rows gathers only the
    ``logp`` rows of its neighbours, (b, d, K), and multiplies them by its own
    ``prob`` rows with one batched matrix-vector product. Chunks are small
    enough to stay in cache, so the work and memory traffic scale with the
    number of edges times K, not with M^2.
    """
    indptr, cols = listen.indptr, listen.indices
    deg = np.diff(indptr)
    k = prob.shape[1]
    cross = np.empty(len(cols), dtype=np.result_type(prob, logp))
    for d in np.unique(deg[deg > 0]):
        rows = np.flatnonzero(deg == d)
        step = max(1, _CHUNK_VALUES // (int(d) * k))
        for lo in range(0, len(rows), step):  # chunks of rows, bounded memory
            r = rows[lo : lo + step]
            pos = indptr[r][:, None] + np.arange(d)
            cross[pos] = np.matmul(logp[cols[pos]], prob[r, :, None])[..., 0]
    return cross


def _choose(prob, logp, *, listen, rng, row_scale=None, col_shift=None) -> np.ndarray:
    """:func:`kl_choices` on scores ``(prob @ logp.T) / row_scale[i] - col_shift[j]``.

    With ``prob`` = unnormalised ``exp(logp)`` (row sums ``row_scale``) and
    ``logp`` shifted by a per-row constant (``col_shift`` = the log-normaliser),
    these are the cross terms of the normalised posteriors (the rows of
    ``prob`` sum to ``row_scale``), so no M x K normalisation pass is needed.
    """
    m = prob.shape[0]
    if listen is None or listen.nnz > m * m // 4:
        if row_scale is not None and prob.shape[1] < m:
            # fewer grid points than agents: normalising the (M, K) inputs is
            # cheaper than correcting the (M, M) scores
            prob = prob / row_scale[:, None]
            logp = logp - col_shift[:, None]
            row_scale = None
        cross = prob @ logp.T
        if row_scale is not None:
            cross /= row_scale[:, None]
            cross -= col_shift[None, :]
        if listen is None:
            return _dense_argmin(cross, rng, mask_diagonal=True)
        cross[~listen.toarray()] = np.inf
        return _dense_argmin(cross, rng)
    cross = _edge_cross(prob, logp, listen)
    if row_scale is not None:
        cross /= np.repeat(row_scale, np.diff(listen.indptr))
        cross -= col_shift[listen.indices]
    return _segment_argmin(cross, listen.indptr, listen.indices, rng)


def kl_choices(prob, logp, *, listen=None, rng) -> np.ndarray:
    """BayGo's graph step: each agent's most divergent allowed neighbour.

    ``s_i = argmax_{j in S_i} KL(p_i || p_j)``. Since ``KL(p_i || p_j) =
    sum_k p_ik log p_ik - sum_k p_ik log p_jk`` and the first term does not
    depend on ``j``, this is the ``j`` with the smallest cross term
    ``sum_k p_ik log p_jk``: one (M, K) x (K, M) product on the complete graph,
    and one dot product per edge of a sparse ``listen`` graph (work scales with
    its number of edges; rows are processed in cache-sized chunks). Scores
    within a relative 1e-12 of the best count as ties and are broken uniformly
    at random with ``rng``.

    Parameters
    ----------
    prob, logp : numpy.ndarray, shape (M, K)
        Normalised posteriors and their logs.
    listen : scipy.sparse.csr_array of bool, shape (M, M), optional
        ``listen[i, j]`` is True when ``i`` may listen to ``j``; default: the
        complete graph. A dense path is used when it holds over a quarter of all
        pairs.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int, shape (M,)
        Chosen neighbour of each agent, ``-1`` for an agent with no neighbour.

    Examples
    --------
    >>> lp = np.log([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    >>> kl_choices(np.exp(lp), lp, rng=np.random.default_rng(0)).tolist()
    [1, 2, 1]
    """
    return _choose(prob, logp, listen=listen, rng=rng)


@dataclass(frozen=True, eq=False)
class BayGo:
    """The BayGo rule: listen to the most divergent physical neighbour.

    Parameters
    ----------
    physical : networkx.Graph or networkx.DiGraph, optional
        Who can talk to whom (nodes ``0..M-1``; in a digraph, edge ``(j, i)`` lets
        ``i`` hear ``j``). Default: the complete graph.
    """

    physical: nx.Graph | None = None
    name: str = field(default="baygo", init=False)
    kind: str = field(default="dynamic", init=False)

    def listen(self, agents: int) -> sp.csr_array | None:
        """The ``listen`` matrix for :func:`kl_choices` (None: complete graph)."""
        return None if self.physical is None else listen_matrix(self.physical, agents)


@dataclass(frozen=True, eq=False)
class FixedGraph:
    """The same weights every step, from a graph and a weight rule.

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
        Nodes ``0..M-1``. Undirected: neighbours listen to each other. Directed:
        edge ``(j, i)`` means ``i`` listens to ``j``.
    weights : {"delta", "uniform", "edge"}, default "delta"
        ``"delta"``: ``w_ii = delta`` and ``1 - delta`` shared equally among the
        agents ``i`` listens to (BayGo's self-weight, so strategies differ only in
        whom they listen to). ``"uniform"``: ``1 / (deg_i + 1)`` on the closed
        neighbourhood. ``"edge"``: the graph's ``weight`` attributes of ``i``'s
        in-edges and self-loop (1 where absent), divided by their sum. An agent
        that listens to no one keeps ``w_ii = 1``.
    name : str, default "graph"
        Label of the strategy in runs and tables.
    """

    graph: nx.Graph
    weights: str = "delta"
    name: str = "graph"
    kind: str = field(default="fixed", init=False)

    def __post_init__(self):
        if not isinstance(self.graph, nx.Graph):
            raise TypeError(f"graph must be a networkx graph, got {type(self.graph).__name__}")
        if self.weights not in WEIGHT_RULES:
            raise ValueError(f"weights must be one of {WEIGHT_RULES}, got {self.weights!r}")

    def matrix(self, agents: int, *, delta: float) -> sp.csr_array:
        """The row-stochastic weight matrix W (row i: agent i's weights).

        Examples
        --------
        >>> FixedGraph(nx.path_graph(3)).matrix(3, delta=0.5).toarray().tolist()
        [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]]
        """
        h = listen_matrix(self.graph, agents).astype(float)
        deg = h.sum(axis=1)
        eye = sp.eye_array(agents, format="csr")
        if self.weights == "delta":
            off = sp.diags_array(np.divide(1 - delta, deg, out=np.zeros(agents), where=deg > 0))
            self_w = np.where(deg > 0, delta, 1.0)
            w = off @ h + sp.diags_array(self_w)
        elif self.weights == "uniform":
            w = sp.diags_array(1.0 / (deg + 1)) @ (h + eye)
        else:
            a = nx.to_scipy_sparse_array(self.graph, nodelist=range(agents), format="csr")
            if not self.graph.is_directed():
                a = a.maximum(a.T)
            w = sp.csr_array(a.T, dtype=float)
            w = w + sp.diags_array(np.where(w.diagonal() == 0, 1.0, 0.0))
            if (w.data < 0).any():
                raise ValueError("graph has a negative 'weight' attribute: weights must be >= 0")
            w = sp.diags_array(1.0 / w.sum(axis=1)) @ w
        w = sp.csr_array(w)
        w.eliminate_zeros()
        w.sort_indices()
        return w


@dataclass(frozen=True)
class Centralised:
    """One learner that sees the union of every agent's batch each step (Cen)."""

    name: str = field(default="cen", init=False)
    kind: str = field(default="cen", init=False)


def complete(agents: int, *, weights: str = "delta") -> FixedGraph:
    """The fixed fully connected graph.

    Examples
    --------
    >>> complete(4).matrix(4, delta=0.4).toarray()[0].round(12).tolist()
    [0.4, 0.2, 0.2, 0.2]
    """
    return FixedGraph(nx.complete_graph(agents), weights=weights, name="complete")


def star(agents: int, *, center: int, weights: str = "delta", name: str = "star") -> FixedGraph:
    """The fixed star graph with the given centre.

    Examples
    --------
    >>> star(3, center=1).matrix(3, delta=0.5).toarray().tolist()
    [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]]
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


def resolve_strategy(strategy, *, agents: int, informative: int = 0, weights: str = "delta"):
    """Turn a strategy name or graph into a strategy object.

    Parameters
    ----------
    strategy : str, networkx.Graph, BayGo, FixedGraph or Centralised
        A name from :data:`STRATEGY_NAMES` (``"posm"``: star with the informative
        agent at the centre; ``"negm"``: star centred on the first
        non-informative agent, ``(informative + 1) % agents``), a graph (fixed,
        see :class:`FixedGraph`), or a strategy object (returned as is).
    agents : int
    informative : int, default 0
    weights : str, default "delta"
        Weight rule for fixed graphs made here.

    Examples
    --------
    >>> resolve_strategy("negm", agents=12).graph.degree(1)
    11
    """
    if isinstance(strategy, BayGo | FixedGraph | Centralised):
        return strategy
    if isinstance(strategy, nx.Graph):
        return FixedGraph(strategy, weights=weights)
    if not isinstance(strategy, str):
        raise TypeError(
            "strategy must be a name, a networkx graph or a strategy, "
            f"got {type(strategy).__name__}"
        )
    key = strategy.lower().replace("_", "-")
    key = {"star-posm": "posm", "star-negm": "negm", "centralised": "cen"}.get(key, key)
    if key == "baygo":
        return BayGo()
    if key == "complete":
        return complete(agents, weights=weights)
    if key == "posm":
        return star(agents, center=informative, weights=weights, name="posm")
    if key == "negm":
        return star(agents, center=(informative + 1) % agents, weights=weights, name="negm")
    if key == "nocol":
        return nocol(agents)
    if key == "cen":
        return Centralised()
    raise ValueError(f"strategy must be one of {STRATEGY_NAMES} or a graph, got {strategy!r}")
