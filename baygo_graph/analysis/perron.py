"""Influence of one weight matrix: closed classes and the left Perron vector.

An agent's **influence** is the left Perron vector ``pi`` of the row-stochastic
weight matrix W (``pi^T W = pi^T``, ``sum(pi) = 1``; docs/design.md). In pooling,
``x_t = W_t x_{t-1}`` (log-posteriors, row ``i`` = agent ``i``), so the long-run
consensus is ``pi^T x_0``: ``pi_j`` is the share of agent ``j``'s initial belief
in it. On a digraph in our convention (edge ``(j, i)``: ``i`` receives from
``j`` with weight ``w_ij``) it is eigenvector centrality of the *reversed*
graph, ``nx.eigenvector_centrality(G.reverse(), weight="weight")`` rescaled to
sum 1.

Uniqueness
----------
``pi`` is unique iff W has exactly one *closed class*: a strongly connected
set of agents that listens to nobody outside it (in the information-flow
direction: a source component, which no edge enters; on a digraph, an
attracting component of ``G.reverse()``). ``pi`` is zero outside that class. A
single BayGo step (every agent listens to exactly one other) usually has
several closed classes; then there is no unique influence vector, and
:func:`influence` raises :class:`~baygo_graph.exceptions.NotUniqueError` (or
returns NaNs with ``on_nonunique="nan"``), never a silent choice.

Computation: the closed classes come from
``scipy.sparse.csgraph.connected_components(connection="strong")`` on W's
nonzero pattern; ``pi`` restricted to the closed class C solves
``pi_C^T (I - W_CC) = 0`` with ``sum(pi_C) = 1`` (one equation replaced by the
normalisation; W_CC is irreducible, so the system is nonsingular): a dense
LAPACK solve for classes of up to 1000 agents, exact up to rounding whether
the class is periodic or not. Larger classes iterate W's jump chain
(:func:`~baygo_graph.analysis._window_solver.chain_perron`: lazy, to an
estimated max-abs error of 1e-13; a sparse direct solve fills in and took 56 s
at M = 10^4), and fall back to an exact solve when that iteration does not
converge.

Node order and missing values
-----------------------------
For a graph, array positions follow ``nodelist``, else
:func:`~baygo_graph.analysis.weights.node_order` (labels sorted when sortable,
else ``list(G)`` order). A non-unique influence is NaN (with
``on_nonunique="nan"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx  # noqa: F401  (used by the doctests)
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from .._validate import check_choice
from ..exceptions import NotUniqueError
from ._window_solver import chain_perron, class_perron
from .weights import weight_matrix

__all__ = [
    "ClassInfluence",
    "DAMPING",
    "ON_NONUNIQUE",
    "class_influence",
    "closed_classes",
    "damped_influence",
    "influence",
    "perron_vector",
]

#: Default damping of :func:`damped_influence` (PageRank's usual 0.85; our choice).
DAMPING = 0.85

#: Values of ``on_nonunique=`` (influence's default first).
ON_NONUNIQUE = ("raise", "nan")
# Closed classes up to this size are solved densely.
_DENSE_MAX = 1000


def _closed(w: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """SCC labels of W's pattern and the labels of the closed classes."""
    n, labels = connected_components(w, directed=True, connection="strong")
    coo = sp.coo_array(w)
    cross = labels[coo.row] != labels[coo.col]
    leaves = np.zeros(n, dtype=bool)  # class listens to someone outside it
    leaves[labels[coo.row[cross]]] = True
    return labels, np.flatnonzero(~leaves)


def closed_classes(graph_or_weights, *, nodelist=None) -> list[np.ndarray]:
    """The closed classes of W: strongly connected sets that listen to no one outside.

    Parameters
    ----------
    graph_or_weights : networkx.DiGraph or array_like or sparse matrix
        As in :func:`influence`.
    nodelist : list, optional
        Node order of a graph (default
        :func:`~baygo_graph.analysis.weights.node_order`: sorted labels when
        sortable, else ``list(G)`` order).

    Returns
    -------
    list of numpy.ndarray of int
        Each class as sorted array positions in that node order, ordered by
        their smallest member. For a digraph with positive weights the classes,
        as sets of nodes, are ``nx.attracting_components(G.reverse())``: no edge
        enters them from outside (edges of weight 0 do not count here).

    Examples
    --------
    >>> g = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2), (0, 4), (2, 4)])
    >>> [c.tolist() for c in closed_classes(g)]
    [[0, 1], [2, 3]]
    >>> h = nx.DiGraph([("x", 1), (1, "x"), ("x", "y")])   # unsortable labels
    >>> from baygo_graph.analysis.weights import node_order
    >>> order = node_order(h)
    >>> [{order[k] for k in c} for c in closed_classes(h)] == [{"x", 1}]
    True
    """
    w = weight_matrix(graph_or_weights, nodelist=nodelist)
    labels, closed = _closed(w)
    out = [np.flatnonzero(labels == c) for c in closed]
    return sorted(out, key=lambda c: c[0])


@dataclass(frozen=True, eq=False, repr=False)
class ClassInfluence:
    """One closed class of W and its members' shares of the class's consensus.

    Unpacks (and indexes) as the pair ``(members, share)`` that
    :func:`class_influence` gave before it named the nodes, so ``for members,
    share in class_influence(w)`` keeps working.

    Attributes
    ----------
    members : numpy.ndarray of int
        Sorted array positions of the class (the node order of the analysis API).
    share : numpy.ndarray of float
        ``share[k]``: the share of ``members[k]`` in the class's consensus (sum 1).
    labels : tuple
        The node labels of ``members``, in the same order (positions for a matrix).
    """

    members: np.ndarray
    share: np.ndarray
    labels: tuple

    def __iter__(self):
        return iter((self.members, self.share))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, k):
        return (self.members, self.share)[k]

    def __repr__(self) -> str:
        return f"ClassInfluence({self.as_dict()!r})"

    def as_dict(self) -> dict:
        """``{label: share}`` of the class's members."""
        return dict(zip(self.labels, self.share.tolist(), strict=True))


def class_influence(graph_or_weights, *, nodelist=None) -> list[ClassInfluence]:
    """Influence within each closed class: the alternative when W has several.

    Each closed class ``C`` (see :func:`closed_classes`) listens to no one
    outside, so its agents reach a consensus of their own, ``pi_C^T x_0``: the
    left Perron vector of ``W_CC``, summing to 1 within ``C``. With one closed
    class this is :func:`influence` restricted to it.

    Parameters
    ----------
    graph_or_weights, nodelist
        As in :func:`influence`.

    Returns
    -------
    list of ClassInfluence
        One per class, ordered by smallest member: ``members`` (array
        positions, as :func:`influence` and :func:`closed_classes` index),
        ``share`` and the members' node ``labels``; ``as_dict()`` gives ``{label:
        share}``. Each unpacks as ``(members, share)``.

    Examples
    --------
    >>> w = np.array([[0.5, 0.5, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0.5, 0.5, 0]])
    >>> [(c.tolist(), p.round(4).tolist()) for c, p in class_influence(w)]
    [([0, 1], [0.6667, 0.3333]), ([2], [1.0])]
    >>> g = nx.DiGraph([("ana", "ben"), ("ben", "ana"), ("cy", "dee"), ("dee", "cy")])
    >>> [c.as_dict() for c in class_influence(g)]
    [{'ana': 0.5, 'ben': 0.5}, {'cy': 0.5, 'dee': 0.5}]
    """
    from .weights import node_order  # the labels of the positions (graphs only)

    w = weight_matrix(graph_or_weights, nodelist=nodelist)
    graph = isinstance(graph_or_weights, nx.Graph)
    order = node_order(graph_or_weights, nodelist) if graph else range(w.shape[0])
    labels, closed = _closed(w)
    out = []
    for c in closed:
        members = np.flatnonzero(labels == c)
        sub = sp.csr_array(w[members][:, members])
        out.append(ClassInfluence(members, perron_vector(sub), tuple(order[k] for k in members)))
    return sorted(out, key=lambda pair: pair.members[0])


def damped_influence(graph_or_weights, *, nodelist=None, damping: float = DAMPING) -> np.ndarray:
    """A damped, always-defined influence: PageRank of the listening graph.

    The left Perron vector of ``damping * W + (1 - damping) / M`` (every agent
    also listens to everyone with a small total weight ``1 - damping``): unique
    for any W, and equal to ``networkx.pagerank(G, alpha=damping)`` on the
    listening graph ``G`` of W (:func:`~baygo_graph.analysis.listening_graph`:
    an edge ``i -> j`` of weight ``w_ij``, listener to source, for every nonzero
    entry, **self-loops included**). A node that listens to no one has
    ``w_ii = 1``: its self-loop keeps its mass (it is not a dangling node, whose
    mass PageRank would spread over everyone), so on the bare reversed digraph
    without that self-loop PageRank gives another vector. It is **not** the
    influence of the pooling model (which is undefined when W has several
    closed classes): it is the documented stand-in for ranking agents then
    (``docs/user_series.md``). Solved exactly: ``pi^T (I - damping W) =
    (1 - damping) / M``.

    Parameters
    ----------
    graph_or_weights, nodelist
        As in :func:`influence`.
    damping : float, default 0.85
        In ``[0, 1)``; 0.85 is PageRank's usual value, our choice.

    Returns
    -------
    numpy.ndarray, shape (M,)
        Positive, summing to 1.

    Examples
    --------
    >>> damped_influence(np.eye(2)).tolist()           # two closed classes: equal shares
    [0.5, 0.5]
    >>> g = nx.DiGraph([(0, 1), (1, 0), (0, 2)])       # 1 and 2 listen to 0
    >>> pr = nx.pagerank(nx.DiGraph([(1, 0), (0, 1), (2, 0)]), alpha=0.85)
    >>> np.allclose(damped_influence(g), [pr[0], pr[1], pr[2]])
    True
    >>> from baygo_graph.analysis import listening_graph
    >>> h = nx.DiGraph([(3, 0), (3, 1), (0, 2)])       # 3 listens to no one
    >>> pr = nx.pagerank(listening_graph(h), alpha=0.85)
    >>> np.allclose(damped_influence(h), [pr[k] for k in range(4)])
    True
    """
    if not 0.0 <= float(damping) < 1.0:
        raise ValueError(f"damping must be in [0, 1), got {damping!r}")
    w = weight_matrix(graph_or_weights, nodelist=nodelist)
    m = w.shape[0]
    a = sp.csc_array(sp.eye_array(m) - float(damping) * w.T)
    pi = spla.spsolve(a, np.full(m, (1.0 - float(damping)) / m))
    pi = np.atleast_1d(np.asarray(pi, dtype=float))
    return pi / pi.sum()


def perron_vector(w: sp.csr_array, *, on_nonunique: str = "raise", classes=None) -> np.ndarray:
    """Left Perron vector of a canonical row-stochastic CSR W (from :func:`weight_matrix`).

    No checks: :func:`influence` is the checked entry point. ``classes``: W's
    ``(labels, closed)`` when the caller has them (:func:`_closed`), not recounted.

    Examples
    --------
    >>> perron_vector(weight_matrix([[0.5, 0.5], [1.0, 0.0]])).round(4).tolist()
    [0.6667, 0.3333]
    """
    m = w.shape[0]
    labels, closed = _closed(w) if classes is None else classes
    if len(closed) != 1:
        if on_nonunique == "nan":
            return np.full(m, np.nan)
        raise NotUniqueError(
            f"influence is not unique: W has {len(closed)} closed classes (strongly "
            "connected groups of agents that listen to no one outside), it needs exactly 1"
        )
    members = np.flatnonzero(labels == closed[0])
    out = np.zeros(m)
    k = len(members)
    if k == 1:
        out[members] = 1.0
        return out
    sub = w if k == m else w[members][:, members]  # every node: W itself, no copy
    # pi^T (I - W_CC) = 0  <=>  (I - W_CC)^T pi = 0; replace the last equation by sum(pi) = 1.
    if k <= _DENSE_MAX:
        a = np.eye(k) - sub.toarray().T
        a[-1, :] = 1.0
        rhs = np.zeros(k)
        rhs[-1] = 1.0
        pi = np.linalg.solve(a, rhs)
    else:  # the jump chain's power iteration; an exact solve only if it is too slow
        off = sp.csr_array(sub - sp.diags_array(sub.diagonal()))
        off.eliminate_zeros()
        pi, rate = chain_perron(off)
        if pi is None:
            pi = class_perron(sub, gap=1.0 - rate if np.isfinite(rate) else None)
    pi = np.where(np.abs(pi) < 1e-15, 0.0, pi)
    if np.any(pi < -1e-9):  # cannot happen for a stochastic closed class
        raise ArithmeticError("influence solve lost accuracy (negative entries)")
    pi = np.clip(pi, 0.0, None)
    out[members] = pi / pi.sum()
    return out


def influence(graph_or_weights, *, nodelist=None, on_nonunique: str = "raise") -> np.ndarray:
    """The influence vector: left Perron vector of W, summing to 1.

    Parameters
    ----------
    graph_or_weights : networkx.DiGraph, array_like or scipy sparse matrix
        A digraph in our convention (edge ``(j, i)``: ``i`` receives from ``j``
        with attribute ``weight`` = ``w_ij``, 1 where absent; every edge weight
        finite and >= 0): row ``i`` of W is node ``i``'s in-edge weights
        (self-loop included) divided by their sum, and a node with no in-edge
        gets ``w_ii = 1``. An undirected graph counts each edge both ways. Or W
        itself: square, non-negative, rows summing to 1 (within 1e-9).
    nodelist : list, optional
        Order of the nodes of a graph in the result (default
        :func:`~baygo_graph.analysis.weights.node_order`: sorted labels when
        sortable, else ``list(G)`` order).
    on_nonunique : {"raise", "nan"}, default "raise"
        What to do when W has several closed classes (no unique vector): raise
        :class:`~baygo_graph.exceptions.NotUniqueError` (its message names the
        number of classes), or return an all-NaN vector.

    Returns
    -------
    numpy.ndarray, shape (M,)
        ``pi`` with ``pi @ W == pi`` and ``pi.sum() == 1``; zero outside the
        closed class.

    Raises
    ------
    NotUniqueError
        With ``on_nonunique="raise"`` when W has more than one closed class.
    ValueError, TypeError
        For a bad matrix (not square, negative, rows not summing to 1) or graph.

    See Also
    --------
    closed_classes, influence_series

    Examples
    --------
    The star with agent 0 at the centre and the delta rule (PosM): the centre
    holds half of the influence whatever M and delta.

    >>> from baygo_graph.strategies import star
    >>> influence(star(4, center=0, weights="delta").matrix(4, delta=0.3)).round(4).tolist()
    [0.5, 0.1667, 0.1667, 0.1667]

    The same from a digraph (i receives from j along edge (j, i)):

    >>> g = nx.DiGraph([(0, 1), (1, 0), (0, 2), (2, 0)])
    >>> influence(g).tolist()
    [0.5, 0.25, 0.25]

    Two agents that only listen to themselves: two closed classes.

    >>> influence(np.eye(2), on_nonunique="nan").tolist()
    [nan, nan]
    """
    check_choice("on_nonunique", on_nonunique, ON_NONUNIQUE)
    return perron_vector(
        weight_matrix(graph_or_weights, nodelist=nodelist), on_nonunique=on_nonunique
    )
