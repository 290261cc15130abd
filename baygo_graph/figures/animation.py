"""The evolution of the communication graph of one run, as an animation.

:func:`animate_run` returns a :class:`matplotlib.animation.FuncAnimation` (one
frame per requested step; a fixed layout so frames compare) that renders its
frames fast; :func:`~baygo_graph.figures.video.save_animation` (re-exported
here) writes it as a GIF or an MP4.
"""

from __future__ import annotations

import numpy as np
from matplotlib.animation import FuncAnimation

from .._text import figure_label, loss_label
from .._validate import check_choice
from ..inputs import as_series
from ._graph import agent_layout, draw_edges, draw_nodes, graph_legend, node_sizes
from ._style import (
    INFLUENCE_LABEL,
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    STEP_LABEL,
    figure_style,
    loss_axis_label,
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
        cursor, dot = _curve_panel(pax, values, frames, inf, panel, loss=run.loss_name)
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


def _curve_panel(pax, values, frames, inf, panel, *, loss="mse"):
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
    # over the legend (which it crosses), as the frames have always shown it: a frame
    # then redraws no legend (iter_frames)
    cursor = pax.axvline(frames[0], color="black", lw=1.0, ls=":", gid="cursor", zorder=5.5)
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
    pax.set_ylabel(loss_axis_label(loss) if panel == "mse" else INFLUENCE_LABEL)
    pax.set_title(f"every agent's test {figure_label(loss_label(loss))}" if panel == "mse"
                  else "every agent's influence")  # fmt: skip
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

        The static part of the figure is drawn once (:class:`_Layers`); each frame
        restores it and draws, in a full redraw's order, what changes and what lies
        over it (the node labels over the nodes, the watermark over the arrows): a
        frame is a full redraw of its step, pixel for pixel, whatever frames came
        before.
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
            plan = _Layers(fig, self.dynamic, canvas)
            canvas.draw()  # a full draw sets every position (the layout is fixed)
            for t in self.steps:
                plan.draw(self._func(t))
                yield np.asarray(canvas.buffer_rgba())[..., :3].copy()
        finally:
            if dpi is not None:
                fig.set_dpi(old_dpi)


def _draw_order(container) -> list:
    """The artists a full draw of ``container`` (a Figure or an Axes) draws after its
    background patch, in order: what ``Figure.draw`` and ``Axes.draw`` sort."""
    artists = [a for a in container.get_children() if a is not container.patch]
    if hasattr(container, "spines") and not (container.axison and container.get_frame_on()):
        artists = [a for a in artists if a not in container.spines.values()]
    if hasattr(container, "xaxis") and not container.axison:
        artists = [a for a in artists if a is not container.xaxis and a is not container.yaxis]
    return sorted((a for a in artists if not a.get_animated()), key=lambda a: a.get_zorder())


#: Pixels added around every box :class:`_Layers` compares (antialiasing, half a line
#: width and a glyph's overhang stay inside; a line's whole width is added too).
_PAD = 2.0


class _Layers:
    """Which artists :meth:`RunAnimation.iter_frames` draws in each frame, and the
    background (every other artist, drawn once) it restores first.

    The artists a full draw draws are taken in its order (the figure's, each Axes'
    children by zorder). A changing artist is drawn in every frame; so is any static
    one that an artist drawn per frame before it in that order may touch: their boxes
    overlap, each padded by :data:`_PAD` pixels and cut to what its draw clips to (the
    watermark over an arrow, the node labels over the nodes). Every other artist
    touches none drawn per frame before it, so drawing it in the background first
    gives the same pixels: a frame is the full redraw of its step. A background is
    drawn per set of static artists and kept.
    """

    def __init__(self, fig, dynamic, canvas):
        self.fig, self.canvas = fig, canvas
        self.dynamic = {id(a) for a in dynamic}
        self.boxes: dict = {}  # id -> padded box of a static artist (static: it stays)
        self.backgrounds: dict = {}  # tuple of static ids -> saved region
        self.clips: dict = {}  # id -> the box its draw clips to (None: unclipped)
        from matplotlib.axis import Axis
        from matplotlib.legend import Legend
        from matplotlib.lines import Line2D
        from matplotlib.spines import Spine
        from matplotlib.text import Text

        self.unclipped = (Legend, Axis)  # their draws set no clip of their own
        self.measured = (Text, Legend, Line2D, Spine)  # boxes from their extents
        self.lines = Line2D
        self.whole = fig.bbox.frozen()

    def _order(self) -> list:
        out = []
        for a in _draw_order(self.fig):
            if a in self.fig.axes:
                if not a.get_visible():
                    continue
                if a.axison and a.get_frame_on():
                    out.append(a.patch)
                out.extend(_draw_order(a))
            else:
                out.append(a)
        return [a for a in out if a.get_visible()]

    def _clip(self, a):
        """The box ``a``'s draw clips to (padded a pixel for rounding), or None."""
        if id(a) not in self.clips:
            from matplotlib.transforms import Bbox

            clip = None
            if a.get_clip_on() and not isinstance(a, self.unclipped):
                boxes = [b for b in (a.get_clip_box(),) if b is not None]
                if a.get_clip_path() is not None:
                    boxes.append(a.get_clip_path().get_fully_transformed_path().get_extents())
                for b in boxes:
                    clip = b if clip is None else Bbox.intersection(clip, b) or Bbox.null()
            self.clips[id(a)] = None if clip is None else clip.padded(1.0)
        return self.clips[id(a)]

    def _box(self, a, renderer):
        """A box (display pixels) holding every pixel ``a`` draws; None: it draws none."""
        from matplotlib.axis import Axis
        from matplotlib.text import Text
        from matplotlib.transforms import Bbox

        clip = self._clip(a)
        if not isinstance(a, self.measured):
            if clip is not None:  # an arrow, a scatter: inside its Axes
                return clip
            if isinstance(a, Axis):  # its grid lines span its Axes, its labels lie outside
                box = Bbox.union([a.get_tightbbox(renderer) or a.axes.bbox, a.axes.bbox])
            else:  # an Axes' background, else anywhere
                box = next((ax.bbox for ax in self.fig.axes if a is ax.patch), self.whole)
            return box.padded(_PAD) if np.isfinite(box.bounds).all() else self.whole
        key = (id(a), a.get_text(), a.get_position()) if isinstance(a, Text) else None
        if key is not None and key in self.boxes:
            return self.boxes[key]
        if key is not None and not key[1]:
            box = None  # an empty text draws nothing
        else:
            box = a.get_window_extent(renderer)
            pad = _PAD + (a.get_linewidth() * renderer.points_to_pixels(1.0)
                          if isinstance(a, self.lines) else 0.0)  # fmt: skip
            box = box.padded(pad) if np.isfinite(box.bounds).all() else self.whole
            if clip is not None:
                box = Bbox.intersection(box, clip) or Bbox.null()
        if key is not None:
            self.boxes[key] = box
        return box

    def draw(self, drawn) -> None:
        """Draw this frame: the background of its static artists, then the rest."""
        renderer = self.canvas.get_renderer()
        moving = self.dynamic | {id(a) for a in drawn}
        static, frame, boxes = [], [], {}
        for a in self._order():
            changing = id(a) in moving
            if not changing and not boxes:
                static.append(a)
                continue
            if changing:
                box = self._box(a, renderer)
            elif id(a) in self.boxes:
                box = self.boxes[id(a)]
            else:
                box = self.boxes[id(a)] = self._box(a, renderer)
            if changing or (box is not None and any(box.overlaps(b) for b in boxes.values())):
                frame.append(a)
                if box is not None:
                    boxes.setdefault(tuple(box.extents), box)  # many arrows: one clip box
            else:
                static.append(a)
        key = tuple(map(id, static))
        if key not in self.backgrounds:
            renderer.clear()
            self.fig.patch.draw(renderer)
            for a in static:
                a.draw(renderer)
            self.backgrounds[key] = self.canvas.copy_from_bbox(self.fig.bbox)
        self.canvas.restore_region(self.backgrounds[key])
        for a in frame:
            a.draw(renderer)
