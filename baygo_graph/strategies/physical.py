"""Physical graphs: who may talk to whom, by graph or by name.

An undirected graph lets neighbours hear each other; in a directed graph an edge
``(j, i)`` means ``i`` receives from ``j`` (DESIGN.md). Every graph's nodes are the
agents ``0 .. M-1``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

__all__ = ["edge_record", "listen_matrix", "physical_graph", "resolve_physical"]


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


def resolve_physical(physical, agents: int, *, rng) -> sp.csr_array | None:
    """The ``listen`` matrix of a physical graph given as a graph, a name or None.

    Parameters
    ----------
    physical : networkx.Graph, str or None
        A graph on ``0 .. agents-1``, a name for :func:`physical_graph` (drawn with
        a seed from a child of ``rng``, ``rng.spawn(1)``, which leaves ``rng``'s
        own stream unchanged), or None for the complete graph.
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
    if physical is None:
        return None
    if isinstance(physical, str):
        seed = int(rng.spawn(1)[0].integers(2**32))
        physical = physical_graph(physical, agents, seed=seed)
        if physical is None:
            return None
    return listen_matrix(physical, agents)


def edge_record(listen: sp.csr_array | None) -> list | None:
    """The directed edges ``[j, i]`` (``i`` may hear ``j``) of a listen matrix, for a config.

    Examples
    --------
    >>> edge_record(listen_matrix(nx.path_graph(3), 3))
    [[1, 0], [0, 1], [2, 1], [1, 2]]
    """
    if listen is None:
        return None
    coo = sp.coo_array(listen)
    order = np.lexsort((coo.col, coo.row))
    return np.column_stack([coo.col[order], coo.row[order]]).tolist()
