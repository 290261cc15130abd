"""Physical graphs: who may talk to whom, by graph or by name.

An undirected graph lets neighbours hear each other; in a directed graph an edge
``(j, i)`` means ``i`` receives from ``j`` (DESIGN.md). Every graph's nodes are the
agents ``0 .. M-1``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

__all__ = [
    "FAST_REGULAR_ABOVE",
    "edge_arrays",
    "listen_matrix",
    "physical_graph",
    "random_regular_listen",
    "resolve_listen",
    "resolve_physical",
]


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


def edge_arrays(listen: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """The directed edges ``src -> dst`` (``dst`` may hear ``src``) of a listen matrix.

    Examples
    --------
    >>> src, dst = edge_arrays(listen_matrix(nx.path_graph(3), 3))
    >>> list(zip(src.tolist(), dst.tolist()))
    [(1, 0), (0, 1), (2, 1), (1, 2)]
    """
    dst = np.repeat(np.arange(listen.shape[0]), np.diff(listen.indptr))
    itype = np.int32 if listen.shape[0] < 2**31 else np.int64
    return listen.indices.astype(itype), dst.astype(itype)


#: ``"regular-D"`` uses :func:`random_regular_listen` above this many agents.
FAST_REGULAR_ABOVE = 50_000


def random_regular_listen(agents: int, degree: int, *, rng=None) -> sp.csr_array:
    """A random ``degree``-regular-like undirected graph as a symmetric boolean CSR matrix.

    The union of ``degree // 2`` random Hamiltonian cycles (agents in the order of
    a random permutation, each linked to the next, the last to the first), plus
    one random perfect matching when ``degree`` is odd. Every agent then has
    ``degree`` links; the few that coincide (about ``degree^2 / 2`` in all,
    whatever M) are merged, so a handful of agents have a lower degree. Such a
    union of cycles approximates the uniform random regular graph (for large M
    the two are contiguous: any property that holds with high probability for
    one does for the other) without its rejection sampling. No self-loops.

    Parameters
    ----------
    agents : int
        Number of agents M (>= 3; even when ``degree`` is odd).
    degree : int
        Target degree D, 1 <= D < M.
    rng : int, numpy.random.Generator or None
        Seed or generator of the permutations.

    Returns
    -------
    scipy.sparse.csr_array of bool, shape (M, M)
        ``listen[i, j]``: ``i`` may listen to ``j``; sorted indices, int32 when M fits.

    Examples
    --------
    >>> h = random_regular_listen(1000, 10, rng=0)
    >>> bool((h != h.T).nnz == 0), int(h.diagonal().sum()), int(h.sum(axis=1).max())
    (True, 0, 10)
    """
    for name, value, low in (("agents", agents, 3), ("degree", degree, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if degree >= agents or (degree % 2 and agents % 2):
        raise ValueError(
            f"degree must be < agents and degree * agents even, got degree={degree!r} "
            f"for {agents} agents"
        )
    rng = np.random.default_rng(rng)
    itype = np.int32 if agents < 2**31 else np.int64
    nb = np.empty((agents, degree), dtype=itype)  # row i: i's links, D of them
    for k in range(degree // 2):
        perm = rng.permutation(agents).astype(itype)
        nb[perm, 2 * k] = np.roll(perm, 1)
        nb[perm, 2 * k + 1] = np.roll(perm, -1)
    if degree % 2:
        perm = rng.permutation(agents).astype(itype)
        nb[perm[0::2], -1] = perm[1::2]
        nb[perm[1::2], -1] = perm[0::2]
    nb.sort(axis=1)
    keep = np.ones(nb.shape, dtype=bool)
    keep[:, 1:] = nb[:, 1:] != nb[:, :-1]  # merge links drawn twice
    indptr = np.zeros(agents + 1, dtype=itype)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    cols = nb[keep]
    data = np.ones(len(cols), dtype=bool)
    return sp.csr_array((data, cols, indptr), shape=(agents, agents))


def resolve_listen(physical, agents: int, *, seed: int = 0) -> sp.csr_array | None:
    """Turn a ``physical`` argument into a ``listen`` matrix (None: complete graph).

    Parameters
    ----------
    physical : None, str, networkx.Graph or scipy sparse matrix
        None or ``"complete"``: every pair (returns None). A name of
        :func:`baygo_graph.strategies.physical_graph` (``"regular-D"``,
        ``"geometric[-D]"``): drawn with ``seed``; ``"regular-D"`` for more than
        :data:`FAST_REGULAR_ABOVE` agents, and ``"fast-regular-D"`` always, use
        :func:`random_regular_listen` instead of NetworkX (an approximation of
        the random regular graph, see there). A graph: :func:`listen_matrix`. A
        sparse (M, M) matrix: ``listen[i, j]`` true when ``i`` may hear ``j``.
    agents : int
    seed : int, default 0
        Seed of a graph drawn by name.

    Examples
    --------
    >>> resolve_listen("regular-4", 10).nnz, resolve_listen("fast-regular-4", 10).shape
    (40, (10, 10))
    >>> resolve_listen(nx.path_graph(3), 3).toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    if physical is None:
        return None
    if isinstance(physical, nx.Graph):
        return listen_matrix(physical, agents)
    if sp.issparse(physical):
        if physical.shape != (agents, agents):
            raise ValueError(
                f"physical must be ({agents}, {agents}) as a sparse matrix, got {physical.shape}"
            )
        h = sp.csr_array(physical, dtype=bool)
        h.setdiag(False)
        h.eliminate_zeros()
        h.sort_indices()
        return h
    if not isinstance(physical, str):
        raise TypeError(
            "physical must be a name, a networkx graph, a sparse matrix or None, "
            f"got {type(physical).__name__}"
        )
    key = physical.lower()
    fast = key.startswith("fast-regular-")
    if fast or (key.startswith("regular-") and agents > FAST_REGULAR_ABOVE):
        try:
            degree = int(key.rsplit("-", 1)[1])
        except ValueError:
            raise ValueError(
                f"physical must be 'regular-D' with an integer D, got {physical!r}"
            ) from None
        return random_regular_listen(agents, degree, rng=seed)
    graph = physical_graph(physical, agents, seed=seed)
    return None if graph is None else listen_matrix(graph, agents)


def resolve_physical(physical, agents: int, *, rng) -> sp.csr_array | None:
    """The ``listen`` matrix of a physical graph given as a graph, a name, a matrix or None.

    Parameters
    ----------
    physical : networkx.Graph, str, scipy sparse matrix or None
        See :func:`resolve_listen`; a name is drawn with a seed from a child of
        ``rng`` (``rng.spawn(1)``), which leaves ``rng``'s own stream unchanged.
    agents : int
    rng : numpy.random.Generator
        Used only for a name.

    Returns
    -------
    scipy.sparse.csr_array of bool or None
        None for the complete graph.

    Examples
    --------
    >>> h = resolve_physical("regular-2", 5, rng=np.random.default_rng(0))
    >>> h.sum(axis=1).tolist()
    [2, 2, 2, 2, 2]
    >>> resolve_physical(None, 5, rng=None) is None
    True
    """
    if isinstance(physical, str):
        return resolve_listen(physical, agents, seed=int(rng.spawn(1)[0].integers(2**32)))
    return resolve_listen(physical, agents)
