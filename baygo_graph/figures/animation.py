"""The evolution of the communication graph of one run, as an animation.

:func:`animate_run` returns a :class:`matplotlib.animation.FuncAnimation` (one
frame per requested step; a fixed layout so frames compare) that renders its
frames fast; :func:`~baygo_graph.figures.video.save_animation` (re-exported
here) writes it as a GIF or an MP4.
"""

from __future__ import annotations

import numpy as np
from matplotlib.animation import FuncAnimation

from .._validate import check_choice
from ..inputs import as_series
from ._graph import agent_layout, draw_edges, draw_nodes, graph_legend, node_sizes
from ._style import (
    INFLUENCE_LABEL,
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    MSE_LABEL,
    STEP_LABEL,
    figure_style,
    mark_synthetic,
    run_caption,
    source_caption,
    strategy_label,
)
from .video import VIDEO_HINT, ffmpeg_path, save_animation  # noqa: F401  (re-exported)

__all__ = ["RunAnimation", "animate_run", "ffmpeg_path", "save_animation"]

#: Values of ``panel=`` in :func:`animate_run`.
PANELS = ("mse", "influence")


def _frames(run, steps) -> list[int]:
    t = run.n_steps
    if steps is None:
        return list(range(t))
    if isinstance(steps, slice):
        return list(range(t))[steps]
    out = [int(s) for s in np.atleast_1d(np.asarray(steps))]
    bad = [s for s in out if not 0 <= s < t]
    if bad:
        raise ValueError(f"steps must lie in [0, {t}) for this run, got {bad[0]!r}")
    return out


def animate_run(
    run,
    *,
    steps=None,
    panel="mse",
    influence=None,
    pos=None,
    interval=250,
    figsize=(10.0, 4.8),
):
    """Animate a run's communication graph, one frame per step.

    Each frame shows the step's graph (arrow j -> i: agent i listens to j, width
    from ``w_ij``; informative agent drawn as a star; node sizes from
    ``influence`` when given), a step counter, and beside it every agent's test
    MSE (``panel="mse"``) or every agent's influence (``panel="influence"``) up to
    the current step.

    Parameters
    ----------
    run : Run
        A run with a communication graph (``run.series``; a centralised run
        has none: ValueError). Edges are drawn from ``run.series.weights(t)``.
    steps : iterable of int or slice, optional
        Steps to show, one frame each (default: every step).
    panel : {"mse", "influence"}, default "mse"
        What the right-hand panel shows.
    influence : array_like, shape (T, M), optional
        Per-step influence (e.g. from
        :func:`baygo_graph.analysis.centrality.influence_series`, NaN where
        undefined); sizes the nodes and feeds ``panel="influence"``.
    pos : array_like, shape (M, 2), optional
        Fixed node positions (default: informative agent centred, others on a circle).
    interval : int, default 250
        Milliseconds between frames.
    figsize : (float, float), default (10, 4.8)

    Returns
    -------
    RunAnimation
        A :class:`~matplotlib.animation.FuncAnimation` (its figure is
        ``anim.figure``); frames are the requested steps.

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("baygo", agents=4, steps=6, model=LinearRegression(grid=21),
    ...                rng=0, data=synthetic_bodyfat())
    >>> anim = animate_run(run, steps=range(2, 5))
    >>> list(anim.new_saved_frame_seq())
    [2, 3, 4]
    """
    series, frames, influence = _checked(run, steps, panel, influence)
    t_all, m = series.n_steps, series.n_agents
    inf = run.informative
    pos = agent_layout(m, informative=inf) if pos is None else np.asarray(pos, dtype=float)
    values = run.mse if panel == "mse" else influence

    with figure_style():
        import matplotlib.pyplot as plt

        fig, (gax, pax) = plt.subplots(
            1, 2, figsize=figsize, width_ratios=(1, 1.25), layout="constrained"
        )
        nodes, counter = _graph_panel(gax, pos, inf, influence, frames[0], run.strategy)
        cursor, dot = _curve_panel(pax, values, frames, inf, panel)
        mark_synthetic(fig, run.synthetic)
        source_caption(fig, run_caption(run))
        others_sc, inf_sc, labels = nodes
        static_nodes = [a for a in (others_sc, inf_sc, *labels) if a is not None]
        state = {"edges": []}
        arrows: dict = {}  # (src, dst) -> its patch, shown in the frames that have it

        def update(t):
            for p in state["edges"]:
                if p not in arrows.values():  # a quiver (many arrows): made per frame
                    p.remove()
            state["edges"] = draw_edges(gax, pos, series.weights(t), kept=arrows)
            if influence is not None:
                sizes = node_sizes(m, influence[t])
                others_sc.set_sizes(np.delete(sizes, inf))
                if inf_sc is not None:
                    inf_sc.set_sizes([sizes[inf] * 2.2])
            counter.set_text(f"step {t} / {t_all - 1}")
            cursor.set_xdata([t, t])
            dot.set_offsets([[t, values[t, inf]]])
            return [*state["edges"], *static_nodes, counter, cursor, dot]

        anim = RunAnimation(
            fig,
            update,
            frames=frames,
            init_func=lambda: [],
            interval=interval,
            blit=False,
            repeat=True,
            cache_frame_data=False,
        )
        anim.steps = list(frames)
        anim.dynamic = [counter, cursor, dot, *static_nodes]
        update(frames[0])
        # Fix the layout once: constrained layout per frame would triple the cost.
        fig.canvas.draw()
        fig.set_layout_engine("none")
    return anim


def _checked(run, steps, panel, influence):
    """``(series, frames, influence)`` after checking :func:`animate_run`'s arguments."""
    from ..run import Run

    if not isinstance(run, Run):
        raise TypeError(f"run must be a baygo_graph.Run, got {type(run).__name__}")
    series = as_series(run)  # ValueError for a centralised run: no graph to animate
    check_choice("panel", panel, PANELS)
    frames = _frames(run, steps)
    if not frames:
        raise ValueError("steps selects no step of the run")
    t_all, m = series.n_steps, series.n_agents
    if influence is not None:
        influence = np.asarray(influence, dtype=float)
        if influence.shape != (t_all, m):
            raise ValueError(f"influence must have shape ({t_all}, {m}), got {influence.shape}")
    elif panel == "influence":
        raise ValueError("panel='influence' needs the influence array")
    return series, frames, influence


def _graph_panel(gax, pos, inf, influence, first, strategy):
    """Nodes, legend, step counter and title of the graph panel."""
    m = len(pos)
    sizes0 = node_sizes(m, None if influence is None else influence[first])
    others_sc, inf_sc, labels = draw_nodes(gax, pos, informative=inf, sizes=sizes0)
    graph_legend(
        gax,
        "arrow j→i: agent i listens to agent j"
        + ("; node size: influence" if influence is not None else ""),
        handles=(others_sc, inf_sc),
    )
    counter = gax.text(
        0.02,
        0.98,
        "",
        transform=gax.transAxes,
        ha="left",
        va="top",
        fontsize=11,
        fontweight="bold",
        gid="step-counter",
    )
    gax.set_title(f"{strategy_label(strategy)}: communication graph")
    return (others_sc, inf_sc, labels), counter


def _curve_panel(pax, values, frames, inf, panel):
    """Right panel: every agent's curve over the frames' span, a cursor and a dot."""
    m = values.shape[1]
    x = np.arange(values.shape[0])
    lo, hi = frames[0], frames[-1]
    seg = slice(min(lo, hi), max(lo, hi) + 1)
    span = values[seg]
    finite = span[np.isfinite(span)]
    for i in range(m):
        is_inf = i == inf
        pax.plot(
            x[seg],
            values[seg, i],
            color=INFORMATIVE_COLOR if is_inf else "#7F7F7F",
            lw=2.2 if is_inf else 0.8,
            alpha=1.0 if is_inf else 0.5,
            marker=INFORMATIVE_MARKER if is_inf else "",
            markevery=max(1, (seg.stop - seg.start) // 10),
            markersize=9,
            label=f"agent {i} (informative)"
            if is_inf
            else ("other agents" if i == (1 if inf == 0 else 0) else "_nolegend_"),
            gid=f"curve:{i}",
        )
    cursor = pax.axvline(frames[0], color="black", lw=1.0, ls=":", gid="cursor")
    dot = pax.scatter(
        [frames[0]],
        [values[frames[0], inf]],
        s=80,
        c=INFORMATIVE_COLOR,
        marker=INFORMATIVE_MARKER,
        zorder=6,
        edgecolors="black",
        linewidths=0.5,
    )
    pax.set_xlim(seg.start, max(seg.stop - 1, seg.start + 1))
    if finite.size:
        pad = 0.05 * (finite.max() - finite.min() or 1.0)
        # Headroom above the curves for the legend (two rows), so it covers no data.
        pax.set_ylim(finite.min() - pad, finite.max() + 6 * pad)
    pax.set_xlabel(STEP_LABEL)
    pax.set_ylabel(MSE_LABEL if panel == "mse" else INFLUENCE_LABEL)
    pax.set_title("every agent's test MSE" if panel == "mse" else "every agent's influence")
    pax.legend(fontsize="small", loc="upper right", ncols=2)
    return cursor, dot


class RunAnimation(FuncAnimation):
    """A :class:`~matplotlib.animation.FuncAnimation` that can render its frames fast.

    Attributes
    ----------
    steps : list of int
        The run step shown by each frame, in order.
    dynamic : list of matplotlib.artist.Artist
        Artists that change between frames (besides the edges ``update`` returns).
    """

    steps: list
    dynamic: list

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # rendered by iter_frames or save, never by a window's timer: one that a stop
        # (Ctrl-C, SIGTERM) drops before its first frame is no mistake, and matplotlib's
        # "Animation was deleted without rendering anything" would follow the command's
        # one line (hostile16 U5)
        self._draw_was_started = True

    @property
    def figure(self):
        """The animated :class:`~matplotlib.figure.Figure`."""
        return self._fig

    def iter_frames(self, *, dpi=None):
        """Yield every frame as an RGB ``uint8`` array (H, W, 3), in order.

        The static part of the figure is drawn once; each frame restores it and
        draws only what changes (the same picture as a full redraw).
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = self._fig
        old_dpi = fig.dpi
        if dpi is not None:
            fig.set_dpi(dpi)
        canvas = fig.canvas
        if not hasattr(canvas, "copy_from_bbox"):
            canvas = FigureCanvasAgg(fig)
        try:
            moving = self._func(self.steps[0]) if self.steps else []
            hidden = list({id(a): a for a in (*moving, *self.dynamic)}.values())
            for a in hidden:
                a.set_visible(False)
            canvas.draw()
            background = canvas.copy_from_bbox(fig.bbox)
            for a in hidden:
                a.set_visible(True)
            for t in self.steps:
                canvas.restore_region(background)
                drawn = self._func(t)
                order = sorted(
                    {id(a): a for a in (*drawn, *self.dynamic)}.values(),
                    key=lambda a: a.get_zorder(),
                )
                for a in order:
                    fig.draw_artist(a)
                yield np.asarray(canvas.buffer_rgba())[..., :3].copy()
        finally:
            if dpi is not None:
                fig.set_dpi(old_dpi)
