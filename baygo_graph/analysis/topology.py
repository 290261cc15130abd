"""Emergent-topology statistics: who listens to whom, how often, and to the informative agent.

Every function takes a :class:`~baygo_graph.Run`, a sequence of
``networkx.DiGraph`` on one node set, or a
:class:`~baygo_graph.series.GraphSeries` (see
:func:`~baygo_graph.inputs.as_series`; a centralised run has no graph:
ValueError). Array positions are the series' node order ``series.nodes``
(``0 .. M-1`` for a run; for graphs, labels sorted when sortable, else
``list(graphs[0])`` order). Convention (docs/design.md): edge ``(j, i)`` means agent
``i`` *listens to* (receives from) agent ``j``. Only edges between different
agents with positive weight count; self-loops never do. Step ranges are
half-open, ``[start, stop)``, as in :mod:`baygo_graph.analysis.windows`.
Everything is computed with array operations on the series' edge arrays (for a
series with one W for every step, ``series.fixed``, on that W once); results are
counts and fractions, always defined (no missing values).
"""

from __future__ import annotations

import numpy as np

from .._text import counted
from .._validate import check_choice, check_int
from ..inputs import series_input
from ..limits import check_budget
from ..series import GraphSeries

__all__ = [
    "chosen_counts",
    "degree_distribution",
    "degrees",
    "listen_counts",
    "listener_fraction",
]

DIRECTIONS = ("in", "out")


def _range(s: GraphSeries, start, stop) -> tuple[int, int]:
    start = check_int("start", start)
    stop = s.n_steps if stop is None else check_int("stop", stop)
    if not 0 <= start < stop <= s.n_steps:
        raise ValueError(f"need 0 <= start < stop <= {s.n_steps}, got start={start}, stop={stop}")
    return start, stop


def _edges(s: GraphSeries, start: int, stop: int):
    """(step, src, dst) of the positive off-diagonal edges of steps [start, stop)."""
    if s.fixed is not None:
        src, dst = s.window_edges(0, 1)
        n = stop - start
        return np.repeat(np.arange(start, stop), len(src)), np.tile(src, n), np.tile(dst, n)
    ptr, src, dst = s.edges
    step = np.repeat(np.arange(start, stop), np.diff(ptr[start : stop + 1]))
    return step, src[ptr[start] : ptr[stop]], dst[ptr[start] : ptr[stop]]


@series_input
def listen_counts(source, *, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Who listens to whom: how many steps agent ``i`` listened to agent ``j``.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
    start, stop : int, optional
        The steps ``[start, stop)`` (default: all).

    Returns
    -------
    numpy.ndarray of int, shape (M, M)
        ``C[i, j]``: **row = listener** ``i``, column = the agent ``j`` it
        listened to; the diagonal is 0. Column sums are :func:`chosen_counts`.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([(0, 1), (0, 2), (2, 0)])   # 1 and 2 listen to 0, 0 to 2
    >>> listen_counts([g, g]).tolist()
    [[0, 0, 2], [2, 0, 0], [2, 0, 0]]
    """
    s = source
    start, stop = _range(s, start, stop)
    m = s.n_agents
    edges = len(s.window_edges(0, 1)[0]) if s.fixed is not None else _edge_count(s, start, stop)
    check_budget(  # the M x M counts and the edges' keys, before either exists
        8 * m * m + 16 * edges,
        what=f"listen_counts of {counted(m, 'node', spec=',')} (an M x M int64 array)",
        advice="count a subgraph of fewer nodes",
    )
    if s.fixed is not None:
        src, dst = s.window_edges(0, 1)
        once = np.bincount(dst * m + src, minlength=m * m)
        once *= stop - start
        return once.reshape(m, m)
    _, src, dst = _edges(s, start, stop)
    return np.bincount(dst * m + src, minlength=m * m).reshape(m, m)


def _edge_count(s: GraphSeries, start: int, stop: int) -> int:
    """The positive off-diagonal edges of steps ``[start, stop)``."""
    ptr = s.edges[0]
    return int(ptr[stop] - ptr[start])


@series_input
def chosen_counts(source, *, start: int = 0, stop: int | None = None) -> np.ndarray:
    """How often each agent was listened to, summed over agents and steps.

    Returns
    -------
    numpy.ndarray of int, shape (M,)
        For BayGo: how many times each agent was someone's choice. Equals
        ``Run.chosen_counts()`` over the whole run.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([(0, 1), (0, 2), (2, 0)])
    >>> chosen_counts([g, g, g]).tolist()
    [6, 0, 3]
    """
    s = source
    start, stop = _range(s, start, stop)
    if s.fixed is not None:
        src, _ = s.window_edges(0, 1)
        return np.bincount(src, minlength=s.n_agents) * (stop - start)
    _, src, _ = _edges(s, start, stop)
    return np.bincount(src, minlength=s.n_agents)


@series_input
def degrees(source, *, direction: str = "out") -> np.ndarray:
    """Per-step degree of every agent.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
    direction : {"out", "in"}, default "out"
        ``"out"``: how many agents listen to each agent (out-edges in the
        information-flow direction: the hub measure). ``"in"``: how many agents
        each one listens to (1 for every BayGo agent with a neighbour).

    Returns
    -------
    numpy.ndarray of int, shape (T, M)

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([(0, 1), (0, 2), (2, 0)])
    >>> degrees([g]).tolist(), degrees([g], direction="in").tolist()
    ([[2, 0, 1]], [[1, 1, 1]])
    """
    s = source
    check_choice("direction", direction, DIRECTIONS)
    m, T = s.n_agents, s.n_steps
    edges = len(s.window_edges(0, 1)[0]) if s.fixed is not None else _edge_count(s, 0, T)
    check_budget(  # the (T, M) degrees and the edges' keys, before either exists
        8 * T * m + 16 * edges,
        what=f"the degrees of {counted(T, 'step', spec=',')} x {counted(m, 'node', spec=',')} (a "
        "(T, M) int64 array)",
        advice="take degree_distribution or listener_fraction, which count the edges only",
    )
    if s.fixed is not None:
        src, dst = s.window_edges(0, 1)
        once = np.bincount(src if direction == "out" else dst, minlength=m)
        return np.broadcast_to(once, (T, m)).copy()
    step, src, dst = _edges(s, 0, T)
    node = src if direction == "out" else dst
    return np.bincount(step * m + node, minlength=T * m).reshape(T, m)


@series_input
def degree_distribution(
    source, *, direction: str = "in", start: int = 0, stop: int | None = None
) -> np.ndarray:
    """Distribution of the per-step degrees over all (step, agent) pairs.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
    direction : {"in", "out"}, default "in"
        ``"in"``: in-degree, the number of agents an agent listens to in a
        step; ``"out"``: the number of agents listening to it (see
        :func:`degrees`).
    start, stop : int, optional
        The steps ``[start, stop)`` (default: all).

    Returns
    -------
    numpy.ndarray of int, shape (M,)
        ``h[d]``: number of (step, agent) pairs with degree ``d`` (``0 <= d <
        M``); sums to ``(stop - start) * M``.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([(0, 1), (0, 2), (2, 0)])
    >>> degree_distribution([g], direction="out").tolist()
    [1, 1, 1]
    >>> degree_distribution([g]).tolist()
    [0, 3, 0]
    """
    s = source
    check_choice("direction", direction, DIRECTIONS)
    start, stop = _range(s, start, stop)
    m = s.n_agents
    if s.fixed is not None:  # one degree per node, the same at every step
        src, dst = s.window_edges(0, 1)
        once = np.bincount(src if direction == "out" else dst, minlength=m)
        return np.bincount(once, minlength=m) * (stop - start)
    step, src, dst = _edges(s, start, stop)  # only the (step, node) pairs with an edge:
    _, deg = np.unique(step * m + (src if direction == "out" else dst), return_counts=True)
    out = np.bincount(deg, minlength=m)  # no (T, M) array (hostile round 12, Q9)
    out[0] += (stop - start) * m - len(deg)
    return out


@series_input
def listener_fraction(source, *, agent: int | None = None) -> np.ndarray:
    """Fraction of the other agents listening to ``agent``, per step.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
    agent : int, optional
        Array index of the agent (default: the series' informative agent, from
        ``Run.informative`` or the node attribute ``informative``).

    Returns
    -------
    numpy.ndarray of float, shape (T,)
        Number of agents ``i != agent`` that listen to ``agent`` at step t,
        divided by ``M - 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([(0, 1), (0, 2), (2, 0)]); h = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> listener_fraction([g, h], agent=0).tolist()
    [1.0, 0.5]
    """
    s = source
    m = s.n_agents
    if agent is None:
        agent = s.informative
        if agent is None:
            raise ValueError(
                "agent must be given: the series marks no informative agent "
                "(no single node with attribute informative=True)"
            )
    agent = check_int("agent", agent, minimum=0, maximum=m - 1)
    if m < 2:
        raise ValueError(f"listener_fraction needs at least 2 agents, got {m}")
    if s.fixed is not None:
        src, dst = s.window_edges(0, 1)
        heard = int(np.count_nonzero(src == agent))
        return np.full(s.n_steps, heard / (m - 1))
    step, src, _ = _edges(s, 0, s.n_steps)  # the agent's column only, from its edges
    return np.bincount(step[src == agent], minlength=s.n_steps) / (m - 1)
