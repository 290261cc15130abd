"""The emergent topology: graph drawings, who listens to whom, the hub's audience.

Inputs are what :mod:`baygo_graph.analysis.topology` and
:mod:`baygo_graph.analysis.centrality` return (count matrices, per-step
fractions, influence vectors) or a graph / weight matrix; nothing is recomputed.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from .._text import counted
from ..limits import FIGURE_BYTES_PER_CELL, check_figure_budget
from ..series import node_order
from ._bands import array_band
from ._graph import (
    agent_layout,
    as_weights,
    draw_edges,
    draw_nodes,
    edge_arrays,
    graph_legend,
    node_sizes,
    size_handles,
    strong_edges,
)
from ._style import (
    AGENT_LABEL,
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    STEP_LABEL,
    figure_style,
    mark_synthetic,
    new_axes,
    source_caption,
    strategy_color,
)

__all__ = ["draw_graph", "plot_listen_matrix", "plot_listening_fraction"]


def _informative_of(graph, informative):
    if informative is not None:
        return int(informative)
    if isinstance(graph, nx.Graph):
        order = node_order(graph)
        flagged = [k for k, n in enumerate(order) if graph.nodes[n].get("informative")]
        return flagged[0] if flagged else -1  # no flag on a graph: no informative star
    return 0


def draw_graph(
    graph,
    *,
    influence=None,
    informative=None,
    pos=None,
    ax=None,
    synthetic=None,
    title=None,
    caption=None,
    legend=True,
    min_weight="auto",
):
    """Draw a step graph or a windowed union: who listens to whom, and how much.

    Parameters
    ----------
    graph : networkx.DiGraph, scipy sparse matrix or array_like
        A digraph with the convention of docs/design.md (edge ``(j, i)``: agent i receives
        from j with attribute ``weight = w_ij``; nodes ``0..M-1``), e.g.
        :meth:`Run.graph` or a windowed union from the analysis layer; or the
        weight matrix W itself (row i: agent i's weights).
    influence : array_like, shape (M,), optional
        Node sizes proportional to it (e.g. :func:`baygo_graph.analysis.influence`);
        NaN or None: equal sizes.
    informative : int, optional
        The informative agent's array position (default: the node flagged
        ``informative``; for a graph with no flagged node none; for a matrix 0),
        drawn as a star in :data:`~baygo_graph.figures.INFORMATIVE_COLOR`.
    pos : array_like, shape (M, 2), optional
        Node positions (default :func:`agent_layout`, informative in the centre).
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, optional
        Label "SYNTHETIC DATA" (default: the graph's ``synthetic`` attribute).
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).
    title : str, optional
    legend : bool, default True
        Legend below the drawing: node kinds, the node-size scale (with
        ``influence``) and how many arrows are shown.
    min_weight : float or "auto", default "auto"
        Draw only arrows with ``w_ij >= min_weight``. ``"auto"``: every arrow when
        there are few, else at most the 2M strongest (M for M > 12; see
        :func:`~baygo_graph.figures._graph.strong_edges`), so a union over many
        steps stays readable.

    Returns
    -------
    matplotlib.axes.Axes
        Arrows are patches with gid ``"edge:<j>-><i>"`` and linewidth increasing
        with ``w_ij``; the nodes are two scatter collections (gids
        ``"nodes:others"``, ``"nodes:informative"``). Self-weights are not drawn.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5]])
    >>> ax = draw_graph(w, informative=0)
    >>> sorted(p.get_gid() for p in ax.patches)
    ['edge:0->1', 'edge:0->2', 'edge:1->0']
    """
    w = as_weights(graph)
    m = w.shape[0]
    inf_agent = _informative_of(graph, informative)
    pos = agent_layout(m, informative=inf_agent) if pos is None else np.asarray(pos, float)
    if pos.shape != (m, 2):
        raise ValueError(f"pos must have shape ({m}, 2), got {pos.shape}")
    if synthetic is None and isinstance(graph, nx.Graph):
        synthetic = bool(graph.graph.get("synthetic", False))
    with figure_style():
        ax = new_axes(ax, figsize=(5.2, 5.2))
        threshold = strong_edges(w, min_weight=min_weight)
        drawn = sum(getattr(a, "N", 1) for a in draw_edges(ax, pos, w, min_weight=threshold))
        names = node_order(graph) if isinstance(graph, nx.Graph) else True
        draw_nodes(ax, pos, informative=inf_agent, sizes=node_sizes(m, influence), labels=names)
        if title is None and isinstance(graph, nx.Graph) and "step" in graph.graph:
            title = f"step {graph.graph['step']}"
        if title:
            ax.set_title(title)
        if legend:
            n_edges = len(edge_arrays(w)[0])
            shown = "" if drawn == n_edges else (
                f"\n{drawn} strongest of {n_edges} arrows shown (w_ij ≥ {threshold:.3g})"
            )  # fmt: skip
            graph_legend(
                ax,
                "arrow j→i: agent i listens to agent j (width: w_ij)"
                + ("; size: influence" if influence is not None else "")
                + shown,
                sizes=size_handles(m, influence) if influence is not None else (),
            )
        # The watermark in the top-left corner, clear of the informative agent.
        mark_synthetic(ax, bool(synthetic), xy=(0.2, 0.86), fontsize=13, rotation=45)
        source_caption(ax, caption)
    return ax


def plot_listen_matrix(
    counts, *, informative=0, normalize=True, ax=None, synthetic=False, caption=None
):
    """Heat map of who listens to whom.

    Parameters
    ----------
    counts : array_like, shape (M, M)
        ``counts[i, j]``: how often agent i listened to agent j (rows: listeners,
        as in W), e.g. summed over steps and seeds by the analysis layer.
    informative : int, default 0
        Its row and column labels are marked with a star in the informative colour.
    normalize : bool, default True
        Show each row as shares of that listener's choices (rows sum to 1).
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.images[0]`` holds the drawn matrix.

    Raises
    ------
    BudgetError
        Before anything is copied or drawn, when the image
        (:data:`~baygo_graph.limits.FIGURE_BYTES_PER_CELL` a cell) would exceed the
        memory budget.

    Examples
    --------
    >>> ax = plot_listen_matrix([[0, 4], [2, 2]], normalize=True)
    >>> ax.images[0].get_array().tolist()
    [[0.0, 1.0], [0.5, 0.5]]
    """
    shape = np.shape(counts)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"counts must be a square (M, M) matrix, got shape {shape}")
    m = shape[0]
    check_figure_budget(  # before its float copy
        m * m, FIGURE_BYTES_PER_CELL, what=f"the figure of a {m} x {m} matrix",
        advice="plot the rows and columns of fewer agents",
    )  # fmt: skip
    c = np.asarray(counts, dtype=float)
    if normalize:
        tot = c.sum(axis=1, keepdims=True)
        c = np.divide(c, tot, out=np.zeros_like(c), where=tot > 0)
    with figure_style():
        ax = new_axes(ax, figsize=(5.6, 4.8))
        im = ax.imshow(c, cmap="viridis", origin="upper", aspect="equal", vmin=0)
        ax.figure.colorbar(
            im, ax=ax, label="share of the listener's choices" if normalize else "count"
        )
        labels = [f"{INFORMATIVE_MARKER}{i}" if i == informative else str(i) for i in range(m)]
        step = max(1, m // 24)
        ticks = np.arange(0, m, step)
        ax.set_xticks(ticks, [labels[i] for i in ticks], fontsize="small")
        ax.set_yticks(ticks, [labels[i] for i in ticks], fontsize="small")
        for lab in (*ax.get_xticklabels(), *ax.get_yticklabels()):
            if lab.get_text().startswith(INFORMATIVE_MARKER):
                lab.set_color(INFORMATIVE_COLOR)
                lab.set_fontweight("bold")
        ax.set_xlabel(f"listened to ({AGENT_LABEL} j)")
        ax.set_ylabel(f"listener ({AGENT_LABEL} i)")
        ax.grid(False)
        ax.set_title("Who listens to whom")
        mark_synthetic(ax, bool(synthetic))
        source_caption(ax, caption)
    return ax


def plot_listening_fraction(
    fraction, *, level=0.95, chance=None, ax=None, synthetic=False, label="BayGo", caption=None
):
    """Fraction of the other agents listening to the informative agent, per step.

    Parameters
    ----------
    fraction : array_like, shape (T,) or (N, T)
        One run, or one row per seed (then the mean and a percentile-bootstrap band
        over seeds, within [0, 1]).
    level : float, default 0.95
    chance : float, optional
        A reference level drawn as a dotted line (e.g. ``1 / (M - 1)``, the
        fraction if every agent chose uniformly at random).
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).
    label : str, default "BayGo"

    Returns
    -------
    matplotlib.axes.Axes
        The mean line has gid ``"fraction"`` and the star marker; the band
        ``"band:fraction"``; the reference ``"chance"``.

    Examples
    --------
    >>> ax = plot_listening_fraction([[0.2, 0.5], [0.4, 0.7]], chance=0.1)
    >>> ax.get_lines()[0].get_ydata().round(2).tolist()
    [0.3, 0.6]
    """
    f = np.asarray(fraction, dtype=float)
    if f.ndim == 1:
        f = f[None, :]
    if f.ndim != 2:
        raise ValueError(f"fraction must be 1-D or 2-D (seeds, steps), got shape {f.shape}")
    mean, lo, hi = array_band(f, level=level, method="bootstrap")  # a share: within [0, 1]
    steps = np.arange(f.shape[1])
    with figure_style():
        ax = new_axes(ax, figsize=(7.6, 4.2))
        color = strategy_color("baygo")
        if f.shape[0] > 1:
            ax.fill_between(steps, lo, hi, color=color, alpha=0.2, lw=0, gid="band:fraction")
        ax.plot(
            steps,
            mean,
            color=color,
            marker=INFORMATIVE_MARKER,
            markevery=max(1, len(steps) // 10),
            markerfacecolor=INFORMATIVE_COLOR,
            markersize=9,
            label=label if f.shape[0] == 1 else f"{label}: mean over {counted(f.shape[0], 'seed')}",
            gid="fraction",
        )
        if chance is not None:
            ax.axhline(
                chance, color="black", ls=":", lw=1.2, label=f"chance ({chance:.3g})", gid="chance"
            )
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlim(0, max(len(steps) - 1, 1))
        ax.set_xlabel(STEP_LABEL)
        ax.set_ylabel("fraction of other agents listening\nto the informative agent")
        title = "Audience of the informative agent"
        if f.shape[0] > 1:
            title += f" (shaded: {level:.0%} bootstrap interval over seeds)"
        ax.set_title(title)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        mark_synthetic(ax, bool(synthetic))
        source_caption(ax, caption)
    return ax
