"""Physical graphs as CSR ``listen`` matrices, fast enough for millions of agents.

NetworkX's ``random_regular_graph`` builds Python objects per node and edge: at
M = 10^6 it takes minutes and gigabytes. :func:`random_regular_listen` draws a
random ``D``-regular-like graph straight into a CSR matrix with a few
vectorised passes; :func:`resolve_listen` turns what a caller passes as
``physical`` (graph, sparse matrix or name) into a ``listen`` matrix.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .strategies import listen_matrix, physical_graph

__all__ = ["FAST_REGULAR_ABOVE", "random_regular_listen", "resolve_listen"]

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
