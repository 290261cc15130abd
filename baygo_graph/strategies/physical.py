"""Physical graphs: who may talk to whom, by graph or by name.

An undirected graph lets neighbours hear each other; in a directed graph an edge
``(j, i)`` means ``i`` receives from ``j`` (docs/design.md). Every graph's nodes are the
agents ``0 .. M-1``.
"""

from __future__ import annotations

import math
import re
import warnings

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .._text import counted

__all__ = [
    "FAST_REGULAR_ABOVE",
    "check_physical",
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
    edge ``(j, i)`` means ``i`` receives from ``j`` (docs/design.md). Self-loops are
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
            f"got {counted(graph.number_of_nodes(), 'node')}: {sorted(graph.nodes, key=str)[:6]}..."
        )


def physical_graph(name: str, agents: int, *, seed: int = 0):
    """Make a physical graph by name: ``"complete"``, ``"regular-D"``, ``"geometric"``.

    ``"regular-D"``: random D-regular graph, an integer ``1 <= D < M`` with
    ``D * M`` even (every agent has D neighbours). ``"geometric"`` (or
    ``"geometric-D"``): random geometric graph on the unit square with mean
    degree about D (default 10; a finite number > 0), radius
    ``sqrt(D / (pi (M - 1)))``; a D large enough for a radius over ``sqrt(2)``
    gives the complete graph. A geometric graph may leave an agent with no
    neighbour (small D, or an agent far from the others): that agent listens to
    no one (``w_ii = 1``) and a UserWarning says how many there are.
    ``"complete"`` gives None (BayGo's default, every pair can talk). A name
    refused (unknown, a bad D, fewer than 2 agents) is a ValueError naming it.

    Examples
    --------
    >>> physical_graph("regular-4", 10).number_of_edges()
    20
    >>> physical_graph("complete", 10) is None
    True
    >>> physical_graph("regular-0", 10)
    Traceback (most recent call last):
    ...
    ValueError: physical must be 'regular-D' with an integer D in [1, 9] and D * agents even, \
got 'regular-0' (D = 0: no agent would have a neighbour) for 10 agents
    """
    key = check_physical(name, agents)
    if key == "complete":
        return None
    if key.startswith("regular-"):
        return nx.random_regular_graph(_regular_degree(name, agents), agents, seed=seed)
    degree = _geometric_degree(name, agents)
    radius = float(np.sqrt(degree / (np.pi * (agents - 1))))
    graph = nx.random_geometric_graph(agents, radius, seed=seed)
    alone = sum(1 for _, d in graph.degree if d == 0)
    warn_alone(
        f"the physical graph drawn for {name!r}",
        alone,
        agents,
        advice="a larger D leaves fewer alone",
        stacklevel=2,
    )
    return graph


def check_physical(name, agents: int) -> str:
    """``name`` lower-cased, once :func:`physical_graph` would take it for ``agents``
    agents (a ValueError naming it otherwise), without drawing the graph.

    Examples
    --------
    >>> check_physical("Regular-4", 10)
    'regular-4'
    """
    key = _check_name(name, agents)
    if "regular-" in key:
        _regular_degree(name, agents)
    elif key.startswith("geometric"):
        _geometric_degree(name, agents)
    return key


def _check_name(name, agents) -> str:
    """``name`` lower-cased, after checking ``agents`` and the name's family."""
    if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 2:
        raise ValueError(
            f"physical {name!r} needs an integer number of agents >= 2 (an agent alone "
            f"has no one to hear), got agents={agents!r}"
        )
    key = str(name).lower()
    if key == "complete" or key == "geometric" or _FAMILY.fullmatch(key):
        return key
    raise ValueError(
        "physical must be 'complete', 'regular-D' (an integer 1 <= D < agents, D * agents "
        f"even) or 'geometric[-D]' (a mean degree D > 0), got {name!r} for "
        f"{counted(agents, 'agent')}"
    )


_FAMILY = re.compile(r"(fast-)?regular-.*|geometric-.*")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _regular_degree(name: str, agents: int) -> int:
    """The degree D of ``"regular-D"`` or ``"fast-regular-D"``, checked for ``agents`` agents.

    D must be an integer with ``1 <= D < agents`` (every agent has a neighbour, no
    agent is linked twice to another) and ``D * agents`` even (the graph has
    ``D * agents / 2`` links); anything else is a ValueError naming ``name``.

    Examples
    --------
    >>> _regular_degree("fast-regular-4", 10)
    4
    >>> _regular_degree("regular-3", 5)
    Traceback (most recent call last):
    ...
    ValueError: physical must be 'regular-D' with an integer D in [1, 4] and D * agents even, \
got 'regular-3' (D * agents = 15 is odd) for 5 agents
    """
    name = str(name)
    text = name[name.lower().index("regular-") + len("regular-") :]
    head = (
        f"physical must be 'regular-D' with an integer D in [1, {agents - 1}] and D * agents "
        f"even, got {name!r}"
    )
    if not _INTEGER.fullmatch(text.strip()):
        raise ValueError(f"{head} (D = {text!r} is not an integer) for {counted(agents, 'agent')}")
    degree = int(text)
    if degree < 1:
        why = f"D = {degree}: no agent would have a neighbour"
    elif degree >= agents:
        why = f"D = {degree}: an agent has only {agents - 1} others"
    elif degree * agents % 2:
        why = f"D * agents = {degree * agents} is odd"
    else:
        return degree
    raise ValueError(f"{head} ({why}) for {counted(agents, 'agent')}")


def _geometric_degree(name: str, agents: int) -> float:
    """The mean degree D of ``"geometric-D"`` (10 for ``"geometric"``): finite, > 0."""
    name = str(name)
    if "-" not in name:
        return 10.0
    text = name.split("-", 1)[1]
    try:
        degree = float(text)
    except ValueError:
        degree = None
    if degree is None or not math.isfinite(degree) or degree <= 0:
        raise ValueError(
            "physical must be 'geometric-D' with a finite mean degree D > 0, got "
            f"{name!r} (D = {text!r}) for {counted(agents, 'agent')}"
        )
    return degree


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
        Number of agents M (>= 2; even when ``degree`` is odd).
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
    for name, value, low in (("agents", agents, 2), ("degree", degree, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if degree >= agents or (degree % 2 and agents % 2):
        raise ValueError(
            f"degree must be < agents and degree * agents even, got degree={degree!r} "
            f"for {counted(agents, 'agent')}"
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
        sparse (M, M) matrix: ``listen[i, j]`` true (or > 0) when ``i`` may
        hear ``j``; a NaN, infinite or negative entry is refused naming it.
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
        return _warn_alone(listen_matrix(physical, agents), "graph")
    if sp.issparse(physical):
        if physical.shape != (agents, agents):
            raise ValueError(
                f"physical must be ({agents}, {agents}) as a sparse matrix, got {physical.shape}"
            )
        _check_entries(physical)
        h = sp.csr_array(physical, dtype=bool)
        h.setdiag(False)
        h.eliminate_zeros()
        h.sort_indices()
        return _warn_alone(h, "matrix")
    if not isinstance(physical, str):
        raise TypeError(
            "physical must be a name, a networkx graph, a sparse matrix or None, "
            f"got {type(physical).__name__}"
        )
    key = physical.lower()
    fast = key.startswith("fast-regular-")
    if fast or (key.startswith("regular-") and agents > FAST_REGULAR_ABOVE):
        _check_name(physical, agents)
        degree = _regular_degree(physical, agents)
        try:
            return random_regular_listen(agents, degree, rng=seed)
        except ValueError as e:
            raise ValueError(f"physical {physical!r}: {e}") from None
    graph = physical_graph(physical, agents, seed=seed)
    return None if graph is None else listen_matrix(graph, agents)


def _check_entries(matrix) -> None:
    """Refuse a physical matrix entry that says neither "may listen" (a number > 0,
    True) nor "may not" (0, False): NaN, an infinity or a negative number, named by its
    row, column and value. Such a matrix likely holds weights (or a bug), and reading
    every nonzero as "may listen" would change the graph without a word."""
    coo = sp.coo_array(matrix)
    kind = coo.dtype.kind
    if kind not in "biuf":
        raise TypeError(
            "physical as a sparse matrix must hold booleans or real numbers (nonzero: i may "
            f"listen to j), got dtype {coo.dtype}"
        )
    if kind == "f":
        bad = ~np.isfinite(coo.data) | (coo.data < 0)
    elif kind == "i":
        bad = coo.data < 0
    else:
        return
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"physical matrix entry (row {int(coo.row[k])}, col {int(coo.col[k])}) is "
            f"{coo.data[k].item()!r}: entries are 0 (i may not listen to j) or a number > 0 "
            f"(i may listen to j); NaN, infinities and negatives are refused "
            f"({counted(int(bad.sum()), 'such entry', 'such entries')})"
        )


def warn_alone(what: str, alone: int, agents: int, *, span: str = "", advice: str = "",
               stacklevel: int = 2) -> None:  # fmt: skip
    """The one warning for agents left with no one to listen to (a drawn geometric
    graph, a user's graph, matrix, sequence or process): ``what`` leaves ``alone`` of
    ``agents`` agents alone ``span`` (e.g. "in every one of its 3 graphs"); nothing
    when ``alone`` is 0.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_alone("the physical graph given", 1, 5)
    >>> str(w[0].message)
    'the physical graph given leaves 1 of 5 agents with no one to listen to: they keep their own belief at every step (w_ii = 1)'
    """  # noqa: E501
    if alone:
        warnings.warn(
            f"{what} leaves {alone} of {counted(agents, 'agent')} with no one to listen to"
            f"{' ' + span if span else ''}: they keep their own belief at every step "
            f"(w_ii = 1){'; ' + advice if advice else ''}",
            UserWarning,
            stacklevel=stacklevel + 1,
        )


def _warn_alone(listen: sp.csr_array, given: str) -> sp.csr_array:
    """``listen``, with :func:`warn_alone` when a user's graph or matrix leaves agents
    with no one to listen to."""
    alone = int(np.count_nonzero(np.diff(listen.indptr) == 0))
    warn_alone(f"the physical {given} given", alone, listen.shape[0], stacklevel=3)
    return listen


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
