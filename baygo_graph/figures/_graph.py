"""Drawing primitives for communication graphs, shared by topology and animation.

A graph is drawn from a weight matrix W (row i: agent i's weights, DESIGN.md):
an arrow j -> i for every ``w_ij > 0`` with ``i != j`` (agent i listens to j),
width proportional to the weight; self-weights are not drawn.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ..analysis.weights import node_order
from ._style import INFORMATIVE_COLOR, INFORMATIVE_MARKER

__all__ = [
    "agent_layout",
    "as_weights",
    "draw_edges",
    "draw_nodes",
    "edge_arrays",
    "graph_legend",
    "node_sizes",
]

NODE_COLOR = "#56B4E9"
EDGE_COLOR = "#4D4D4D"
_BASE_SIZE = 120.0
_INFLUENCE_SIZE = 900.0
_MAX_WIDTH = 2.4


def agent_layout(m: int, *, informative: int = 0) -> np.ndarray:
    """Fixed positions: the informative agent in the centre, the others on a circle.

    Returns
    -------
    numpy.ndarray, shape (M, 2)
        Row i: position of agent i. The same for every step, so frames compare.

    Examples
    --------
    >>> pos = agent_layout(5, informative=0)
    >>> pos[0].tolist(), bool(np.allclose(np.hypot(*pos[1:].T), 1.0))
    ([0.0, 0.0], True)
    """
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    pos = np.zeros((m, 2))
    others = np.array([i for i in range(m) if i != informative], dtype=int)
    if len(others):
        angle = np.pi / 2 - 2 * np.pi * np.arange(len(others)) / len(others)
        pos[others] = np.column_stack([np.cos(angle), np.sin(angle)])
    return pos


def as_weights(graph_or_weights, *, nodelist=None) -> sp.csr_array:
    """W (row i: agent i's weights) from a DiGraph (edge (j, i) = i hears j) or a matrix.

    Weights are drawn as given (not row-normalised). Rows and columns of a
    graph follow ``nodelist``, else
    :func:`~baygo_graph.analysis.weights.node_order` (sorted labels when
    sortable, else ``list(G)`` order).

    Examples
    --------
    >>> g = nx.DiGraph([(0, 1, {"weight": 0.5})]); g.add_node(2)
    >>> as_weights(g).toarray().tolist()
    [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    if isinstance(graph_or_weights, nx.Graph):
        g = graph_or_weights
        nodes = node_order(g, nodelist)
        a = nx.to_scipy_sparse_array(g, nodelist=nodes, weight="weight", format="csr")
        if not g.is_directed():
            a = a.maximum(a.T)
        return sp.csr_array(a.T, dtype=float)
    w = graph_or_weights
    if sp.issparse(w):
        w = sp.csr_array(w, dtype=float)
    else:
        w = sp.csr_array(np.asarray(w, dtype=float))
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {w.shape}")
    return w


def node_sizes(m: int, influence=None) -> np.ndarray:
    """Marker areas: proportional to influence (NaN or None: a uniform size)."""
    if influence is None:
        return np.full(m, _BASE_SIZE + _INFLUENCE_SIZE / max(m, 1))
    inf = np.asarray(influence, dtype=float)
    if inf.shape != (m,):
        raise ValueError(f"influence must have shape ({m},), got {inf.shape}")
    inf = np.where(np.isfinite(inf), np.clip(inf, 0.0, None), 1.0 / m)
    return _BASE_SIZE + _INFLUENCE_SIZE * inf


def edge_arrays(w: sp.csr_array):
    """(src, dst, weight) of the off-diagonal entries: dst listens to src."""
    c = sp.coo_array(w)
    off = (c.row != c.col) & (c.data > 0)
    return c.col[off], c.row[off], c.data[off]


def draw_edges(ax, pos, w, *, scale=None, color=EDGE_COLOR, zorder=2):
    """Arrows src -> dst with widths proportional to weights; returns the patches."""
    from matplotlib.patches import FancyArrowPatch

    src, dst, wt = edge_arrays(w)
    top = float(wt.max()) if scale is None and len(wt) else (scale or 1.0)
    patches = []
    for j, i, x in zip(src.tolist(), dst.tolist(), wt.tolist(), strict=True):
        p = FancyArrowPatch(
            pos[j],
            pos[i],
            arrowstyle="-|>",
            mutation_scale=12,
            linewidth=0.4 + _MAX_WIDTH * x / top,
            color=color,
            alpha=0.75,
            connectionstyle="arc3,rad=0.12",
            shrinkA=9,
            shrinkB=11,
            zorder=zorder,
            gid=f"edge:{j}->{i}",
        )
        ax.add_patch(p)
        patches.append(p)
    return patches


def draw_nodes(ax, pos, *, informative, sizes, labels=True):
    """Agents as circles, the informative one as a star.

    Returns the two scatter collections (others, informative or None) and the
    list of the node-label Text artists.
    """
    m = len(pos)
    mask = np.arange(m) != informative
    others = ax.scatter(
        pos[mask, 0],
        pos[mask, 1],
        s=sizes[mask],
        c=NODE_COLOR,
        edgecolors="black",
        linewidths=0.6,
        zorder=3,
        label="non-informative agent",
        gid="nodes:others",
    )
    inf = None
    if 0 <= informative < m:
        inf = ax.scatter(
            pos[informative, 0],
            pos[informative, 1],
            s=sizes[informative] * 2.2,
            c=INFORMATIVE_COLOR,
            marker=INFORMATIVE_MARKER,
            edgecolors="black",
            linewidths=0.6,
            zorder=4,
            label=f"informative agent {informative}",
            gid="nodes:informative",
        )
    texts = []
    if labels and m <= 40:
        for i in range(m):
            txt = ax.annotate(
                str(i),
                pos[i],
                xytext=(0, 0),
                textcoords="offset points",
                ha="center",
                va="center",
                fontsize=7,
                zorder=5,
            )
            texts.append(txt)
    ax.set_aspect("equal")
    ax.set_xlim(pos[:, 0].min() - 0.25, pos[:, 0].max() + 0.25)
    ax.set_ylim(pos[:, 1].min() - 0.25, pos[:, 1].max() + 0.25)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    return others, inf, texts


def graph_legend(ax, title: str, *, handles=None):
    """The legend below a graph drawing: node kinds, with ``title`` explaining arrows."""
    kwargs = {} if handles is None else {"handles": [h for h in handles if h is not None]}
    return ax.legend(
        **kwargs,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=2,
        fontsize="x-small",
        markerscale=0.5,
        title=title,
        title_fontsize="x-small",
    )
