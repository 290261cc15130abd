"""Drawing primitives for communication graphs, shared by topology and animation.

A graph is drawn from a weight matrix W (row i: agent i's weights, docs/design.md):
an arrow j -> i for every ``w_ij > 0`` with ``i != j`` (agent i listens to j),
width proportional to the weight; self-weights are not drawn.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

from .._text import counted, figure_label
from ..analysis.weights import node_order
from ._style import INFORMATIVE_COLOR, INFORMATIVE_MARKER

__all__ = [
    "agent_layout",
    "as_weights",
    "ARROW_PATCH_LIMIT",
    "draw_edges",
    "draw_nodes",
    "edge_arrays",
    "graph_layout",
    "graph_legend",
    "LAYOUTS",
    "node_sizes",
    "size_handles",
    "strong_edges",
]

NODE_COLOR = "#56B4E9"
EDGE_COLOR = "#4D4D4D"
_BASE_SIZE = 120.0
_INFLUENCE_SIZE = 900.0
_MAX_WIDTH = 2.4

#: Layout methods of :func:`graph_layout`.
LAYOUTS = ("auto", "spring", "coarse", "none")
#: ``"auto"`` uses the spring layout up to this many nodes, the coarse one above.
SPRING_NODES = 1000
#: Most nodes the spring layout is asked for: its cost grows as N^2 per iteration
#: (NetworkX asked 3.7 GiB and hours for 10^6 nodes).
SPRING_MAX_NODES = 5000
#: Most nodes a layout is computed for; above, ``"auto"`` places them as ``"none"`` does.
LAYOUT_MAX_NODES = 200_000
#: Coarse layout: nodes (largest weighted degree) placed by the spring layout first;
#: under 500, so NetworkX runs its dense (vectorised) spring algorithm on them.
COARSE_CORE = 400
#: Coarse layout: rounds of placing nodes next to placed neighbours.
_COARSE_ROUNDS = 60


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


def _size_scale(m: int) -> float:
    """Marker areas shrink beyond 20 agents, so the circle of agents stays apart."""
    return min(1.0, 20.0 / max(m, 1))


def node_sizes(m: int, influence=None) -> np.ndarray:
    """Marker areas: affine in influence (NaN or None: a uniform size), smaller for
    more than 20 agents."""
    if influence is None:
        return np.full(m, (_BASE_SIZE + _INFLUENCE_SIZE / max(m, 1)) * _size_scale(m))
    inf = np.asarray(influence, dtype=float)
    if inf.shape != (m,):
        raise ValueError(f"influence must have shape ({m},), got {inf.shape}")
    inf = np.where(np.isfinite(inf), np.clip(inf, 0.0, None), 1.0 / m)
    return (_BASE_SIZE + _INFLUENCE_SIZE * inf) * _size_scale(m)


def size_handles(m: int, influence) -> list:
    """Legend proxies of the node-size scale: circles for influence 1/M and the
    largest influence (rounded), sized as :func:`node_sizes` draws them."""
    from matplotlib.lines import Line2D

    inf = np.asarray(influence, dtype=float)
    top = float(np.nanmax(inf)) if np.isfinite(inf).any() else 1.0 / m
    values = sorted({round(1.0 / m, 2), round(top, 2)} - {0.0})
    sizes = (_BASE_SIZE + _INFLUENCE_SIZE * np.array(values)) * _size_scale(m)
    return [
        Line2D(
            [],
            [],
            ls="",
            marker="o",
            markersize=float(np.sqrt(a)),
            mfc="white",
            mec="black",
            mew=0.6,
            label=f"influence {v:.2f}",
        )  # fmt: skip
        for v, a in zip(values, sizes, strict=True)
    ]


def strong_edges(w: sp.csr_array, *, min_weight="auto") -> float:
    """The weight threshold of the drawn arrows.

    ``"auto"``: all arrows when there are at most ``n = 2M`` (``max(24, M)`` for
    M > 12), else the smallest weight that keeps at most n arrows (arrows of equal
    weight are kept or dropped together; the strongest group always stays); a
    number: itself.

    Examples
    --------
    >>> w = sp.csr_array(np.array([[0, .1, .2], [.3, 0, .4], [.5, .6, 0]]))
    >>> strong_edges(w), strong_edges(w, min_weight=0.35)
    (0.0, 0.35)
    >>> float(strong_edges(sp.csr_array(np.ones((3, 3)) - np.eye(3))))
    0.0
    """
    if min_weight != "auto":
        if isinstance(min_weight, bool) or not isinstance(min_weight, int | float):
            raise TypeError(f"min_weight must be a number or 'auto', got {min_weight!r}")
        return float(min_weight)
    m = w.shape[0]
    _, _, wt = edge_arrays(w)
    keep = max(24, m) if m > 12 else 2 * m
    if len(wt) <= keep:
        return 0.0
    values, counts = np.unique(wt, return_counts=True)  # ascending
    at_least = np.cumsum(counts[::-1])[::-1]  # arrows with weight >= values[k]
    fits = np.flatnonzero(at_least <= keep)
    return float(values[fits[0]] if len(fits) else values[-1])


def edge_arrays(w: sp.csr_array):
    """(src, dst, weight) of the off-diagonal entries: dst listens to src."""
    c = sp.coo_array(w)
    off = (c.row != c.col) & (c.data > 0)
    return c.col[off], c.row[off], c.data[off]


#: Above this many arrows, :func:`draw_edges` draws them as one quiver artist
#: (straight, about 100 times faster to draw than one curved patch each).
ARROW_PATCH_LIMIT = 120


def draw_edges(ax, pos, w, *, scale=None, color=EDGE_COLOR, zorder=2, min_weight=0.0,
               kept=None):  # fmt: skip
    """Arrows src -> dst, widths proportional to weights, only those with
    weight >= ``min_weight``; returns the artists.

    Up to :data:`ARROW_PATCH_LIMIT` arrows: one curved patch each (gid
    ``"edge:<j>-><i>"``); more: one straight-arrow quiver (gid ``"edges"``).
    ``kept``: a dict ``(src, dst) -> patch`` of earlier calls on the same axes (an
    animation's frames): an arrow drawn again is its patch, given its new width, shown
    and drawn in this call's order (the same picture as a fresh drawing); a kept arrow
    not drawn this time is hidden; a new one is added to ``kept``.
    """
    from matplotlib.patches import FancyArrowPatch

    src, dst, wt = edge_arrays(w)
    top = float(wt.max()) if scale is None and len(wt) else (scale or 1.0)
    keep = wt >= min_weight
    src, dst, wt = src[keep], dst[keep], wt[keep]
    if kept is not None:
        for p in kept.values():
            p.set_visible(False)
    if len(wt) > ARROW_PATCH_LIMIT:
        return [_quiver_edges(ax, pos, src, dst, wt / top, color=color, zorder=zorder)]
    patches = []
    for j, i, x in zip(src.tolist(), dst.tolist(), wt.tolist(), strict=True):
        width = 0.4 + _MAX_WIDTH * x / top
        p = None if kept is None else kept.get((j, i))
        if p is not None:
            p.set_linewidth(width)
            p.set_visible(True)
            # moved to the end, as a fresh drawing adds it: overlapping arrows are then
            # drawn in this call's order whatever frames came before
            p.remove()
            ax.add_artist(p)
            patches.append(p)
            continue
        p = FancyArrowPatch(
            pos[j],
            pos[i],
            arrowstyle="-|>",
            mutation_scale=12,
            linewidth=width,
            color=color,
            alpha=0.75,
            connectionstyle=_arc(),
            shrinkA=9,
            shrinkB=11,
            zorder=zorder,
            gid=f"edge:{j}->{i}",
        )
        # add_artist, not add_patch: the graph's limits are set from the node positions
        # (draw_nodes), and add_patch's data-limit update splits every curved arrow's
        # Bezier path again (most of an animation frame's cost)
        ax.add_artist(p)
        patches.append(p)
        if kept is not None:
            kept[(j, i)] = p
    return patches


_ARC: list = []  # the connection style of draw_edges' arrows, made once


def _arc():
    """The arrows' connection style: matplotlib's ``arc3,rad=0.2``, its curve (clipped
    and shrunk short of the nodes) kept per end points and shrinks.

    An animation draws the same arrows between the same nodes frame after frame;
    clipping each curve again was the largest cost of a frame. The curve is the one
    ``ConnectionStyle.Arc3`` returns for those values (the same pixels); only the
    arrow head and width are made per drawing.
    """
    if not _ARC:
        from functools import lru_cache

        from matplotlib.patches import ConnectionStyle

        class Arc3(ConnectionStyle.Arc3):
            def __init__(self):
                super().__init__(rad=0.2)
                self._curve = lru_cache(maxsize=4096)(self._clipped)

            def __reduce__(self):  # a pickled figure gets this process's one
                return _arc, ()

            def _clipped(self, posA, posB, shrinkA, shrinkB):
                return super().__call__(posA, posB, shrinkA=shrinkA, shrinkB=shrinkB)

            def __call__(self, posA, posB, shrinkA=2.0, shrinkB=2.0, patchA=None, patchB=None):
                if patchA is not None or patchB is not None:  # not cached: patches change
                    return super().__call__(posA, posB, shrinkA, shrinkB, patchA, patchB)
                return self._curve(tuple(map(float, posA)), tuple(map(float, posB)),
                                   float(shrinkA), float(shrinkB))  # fmt: skip

        _ARC.append(Arc3())
    return _ARC[0]


def _quiver_edges(ax, pos, src, dst, share, *, color, zorder):
    """Straight arrows src -> dst in one artist, stopped short of the nodes."""
    start, end = pos[src], pos[dst]
    span = end - start
    q = ax.quiver(
        start[:, 0] + 0.08 * span[:, 0],
        start[:, 1] + 0.08 * span[:, 1],
        0.84 * span[:, 0],
        0.84 * span[:, 1],
        angles="xy",
        scale_units="xy",
        scale=1.0,
        width=0.0015,
        headwidth=4,
        headlength=5,
        linewidths=0.2 + share,  # outline: wider for heavier edges
        edgecolors=color,
        color=color,
        alpha=0.6,
        zorder=zorder,
    )
    q.set_gid("edges")
    return q


def draw_nodes(ax, pos, *, informative, sizes, labels=True):
    """Agents as circles, the informative one as a star; ``labels``: True (array
    positions), False (none) or the node names in array order. Without an
    informative agent (a user's series) the legend says "node".

    Returns the two scatter collections (others, informative or None) and the
    list of the node-label Text artists.
    """
    m = len(pos)
    # a user's label drawn as written: never parsed as mathtext ('$x$'), a lone surrogate
    # as its escape (no font takes it), cut to 40 characters (the canvas stays its size)
    names = [str(i) for i in range(m)] if isinstance(labels, bool) else [*map(figure_label, labels)]
    mask = np.arange(m) != informative
    others = ax.scatter(
        pos[mask, 0],
        pos[mask, 1],
        s=sizes[mask],
        c=NODE_COLOR,
        edgecolors="black",
        linewidths=0.6,
        zorder=3,
        label="non-informative agent" if 0 <= informative < m else "node",
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
            label=f"informative agent {names[informative]}",
            gid="nodes:informative",
        )
    texts = []
    if labels is not False and m <= 40:
        for i in range(m):
            txt = ax.annotate(
                names[i],
                pos[i],
                xytext=(0, 0),
                textcoords="offset points",
                ha="center",
                va="center",
                fontsize=7,
                zorder=5,
                # its node is inside the axes (the limits are set from the positions
                # below): no inside-the-axes test at every draw (an animation frame)
                annotation_clip=False,
            )
            texts.append(txt)
    ax.set_aspect("equal")
    ax.set_xlim(pos[:, 0].min() - 0.25, pos[:, 0].max() + 0.25)
    ax.set_ylim(pos[:, 1].min() - 0.25, pos[:, 1].max() + 0.25)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    return others, inf, texts


def graph_legend(ax, title: str, *, handles=None, sizes=()):
    """The legend below a graph drawing: node kinds (small markers), then ``sizes``
    (e.g. :func:`size_handles`, drawn at their true size), ``title`` explaining arrows.
    """
    from matplotlib.lines import Line2D

    if handles is None:
        handles = [c for c in ax.collections if str(c.get_gid()).startswith("nodes:")]
    kinds = [
        Line2D([], [], ls="", marker=INFORMATIVE_MARKER if h.get_gid() == "nodes:informative"
               else "o", markersize=11 if h.get_gid() == "nodes:informative" else 7,
               mfc=h.get_facecolor()[0], mec="black", mew=0.6, label=h.get_label())
        for h in handles
        if h is not None
    ]  # fmt: skip
    return ax.legend(
        handles=[*kinds, *sizes],
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=2,
        fontsize="x-small",
        title=title,
        title_fontsize="x-small",
    )


def _sunflower(m: int) -> np.ndarray:
    """``m`` points spread evenly over the unit disc, in order (Vogel's spiral)."""
    k = np.arange(m) + 0.5
    r = np.sqrt(k / max(m, 1))
    angle = k * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([r * np.cos(angle), r * np.sin(angle)])


def _spring(a: sp.csr_array, seed: int) -> np.ndarray:
    g = nx.Graph()
    g.add_nodes_from(range(a.shape[0]))
    c = sp.triu(a, k=1).tocoo()
    g.add_weighted_edges_from(zip(c.row.tolist(), c.col.tolist(), c.data.tolist(), strict=True))
    pos = nx.spring_layout(g, seed=seed, weight="weight")
    return np.array([pos[i] for i in range(a.shape[0])], dtype=float).reshape(-1, 2)


def _coarse(a: sp.csr_array, seed: int) -> np.ndarray:
    """Spring layout of the :data:`COARSE_CORE` best-linked nodes, then every other
    node beside the weighted mean of its placed neighbours (ring by ring), the rest
    (unreached) on a spiral around them: O(rounds x edges + nodes)."""
    m = a.shape[0]
    rng = np.random.default_rng(seed)
    degree = np.asarray(a.sum(axis=1)).ravel()
    core = np.argsort(-degree, kind="stable")[:COARSE_CORE]
    core = np.sort(core[degree[core] > 0])
    pos = np.zeros((m, 2))
    placed = np.zeros(m, dtype=bool)
    if len(core):
        pos[core] = _spring(a[core][:, core].tocsr(), seed)
        placed[core] = True
    radius = 1.5 / np.sqrt(max(len(core), 1))
    for _ in range(_COARSE_ROUNDS):
        weight = a @ placed.astype(float)
        new = np.flatnonzero(~placed & (weight > 0))
        if not len(new):
            break
        rows = a[new]
        centre = (rows @ (pos * placed[:, None])) / weight[new, None]
        angle = rng.uniform(0.0, 2 * np.pi, len(new))
        r = radius * np.sqrt(rng.uniform(0.05, 1.0, len(new)))
        pos[new] = centre + np.column_stack([r * np.cos(angle), r * np.sin(angle)])
        placed[new] = True
        radius *= 0.8
    rest = np.flatnonzero(~placed)
    if len(rest):  # other components and lone nodes: a spiral ring around the rest
        spiral = _sunflower(len(rest))
        centre = pos[placed].mean(axis=0) if placed.any() else np.zeros(2)
        reach = np.abs(pos[placed] - centre).max() if placed.any() else 0.0
        scale = max(reach, 1.0)
        norm = np.hypot(*spiral.T)[:, None]
        ring = spiral / np.where(norm > 0, norm, 1.0) * (1.15 + 0.5 * norm)
        pos[rest] = centre + scale * (ring if placed.any() else spiral)
    return pos


def graph_layout(adjacency, *, method: str = "auto", seed: int = 0) -> tuple[np.ndarray, str]:
    """Node positions in [0, 1]^2 for a symmetric weighted adjacency matrix.

    Parameters
    ----------
    adjacency : scipy.sparse array, shape (N, N)
        Symmetric weights (larger: drawn closer); the diagonal is ignored.
    method : {"auto", "spring", "coarse", "none"}, default "auto"
        ``"spring"``: NetworkX's spring layout (cost N^2 per iteration; refused
        above :data:`SPRING_MAX_NODES` nodes). ``"coarse"``: the spring layout of
        the :data:`COARSE_CORE` nodes of largest weighted degree, every other node
        placed beside the weighted mean of its placed neighbours (ring after ring
        out from them), the nodes not reached on a spiral around them: cost
        linear in nodes and edges. ``"none"``: nodes on a spiral in their order,
        no graph read. ``"auto"``: spring up to :data:`SPRING_NODES` nodes,
        coarse up to :data:`LAYOUT_MAX_NODES`, none above.
    seed : int, default 0
        Seed of the spring layout and of the coarse layout's placement.

    Returns
    -------
    positions : numpy.ndarray, shape (N, 2)
        Row i: node i's position, both coordinates in [0.02, 0.98] (rounded to 4
        decimals).
    used : str
        The method used (``"auto"`` resolved).

    Raises
    ------
    ValueError
        If ``method`` is unknown, or ``"spring"`` is asked for more than
        :data:`SPRING_MAX_NODES` nodes.

    Examples
    --------
    >>> a = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4)))
    >>> pos, used = graph_layout(a, method="coarse")
    >>> pos.shape, used, bool(((pos >= 0.02) & (pos <= 0.98)).all())
    ((4, 2), 'coarse', True)
    >>> graph_layout(a)[1], graph_layout(a, method="none")[0].shape
    ('spring', (4, 2))
    """
    if method not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {method!r}"[:300])
    a = sp.csr_array(adjacency, dtype=float)
    m = a.shape[0]
    a.setdiag(0)
    a.eliminate_zeros()
    if method == "auto":
        method = "spring" if m <= SPRING_NODES else "coarse" if m <= LAYOUT_MAX_NODES else "none"
    if method == "spring" and m > SPRING_MAX_NODES:
        raise ValueError(
            f"layout 'spring' costs N^2 per iteration: {counted(m, 'node', spec=',')} are over "
            "its cap of "
            f"{SPRING_MAX_NODES:,}; use 'coarse' (linear in nodes and edges) or 'none'"
        )
    if m == 0:
        return np.zeros((0, 2)), method
    xy = (
        {"spring": _spring, "coarse": _coarse}[method](a, seed)
        if method != "none"
        else (_sunflower(m))
    )
    span = np.ptp(xy, axis=0)
    xy = (xy - xy.min(axis=0)) / np.where(span > 0, span, 1.0)
    return np.round(0.02 + 0.96 * xy, 4), method
