"""The animation: one frame per requested step; GIF via Pillow, MP4 via ffmpeg."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.animation import FuncAnimation
from PIL import Image

from baygo_graph import as_series, simulate, synthetic_bodyfat
from baygo_graph.figures import animate_run, save_animation
from baygo_graph.figures._graph import edge_arrays
from baygo_graph.models import LinearRegression


def test_one_gif_frame_per_requested_step(baygo_run, tmp_path):
    anim = animate_run(baygo_run, steps=range(2, 7))
    assert isinstance(anim, FuncAnimation)
    assert list(anim.new_saved_frame_seq()) == [2, 3, 4, 5, 6]
    path = save_animation(anim, tmp_path / "a.gif", dpi=40)
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.n_frames == 5


def test_frame_shows_step_counter_graph_and_marked_agent(baygo_run):
    anim = animate_run(baygo_run, steps=[4])
    fig = anim.figure
    gax, pax = fig.axes[:2]
    texts = {t.get_gid(): t.get_text() for t in gax.texts if t.get_gid()}
    assert texts["step-counter"] == f"step 4 / {baygo_run.n_steps - 1}"
    _, src, dst, _ = baygo_run.step_edges(4, 5)
    assert {p.get_gid() for p in gax.patches} == {
        f"edge:{j}->{i}" for j, i in zip(src, dst, strict=True)
    }
    curve = [ln for ln in pax.get_lines() if ln.get_gid() == "curve:0"][0]
    assert curve.get_marker() == "*"
    assert "SYNTHETIC DATA" in [t.get_text() for t in fig.texts]


def _full_redraws(run, order, *, influence, dpi):
    """Each step of ``order`` drawn in full (``update`` then a draw of the whole figure),
    one figure for all, in that order: step -> RGB array."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    anim = animate_run(run, influence=influence)
    anim.figure.set_dpi(dpi)
    canvas = FigureCanvasAgg(anim.figure)
    out = {}
    for t in order:
        anim._func(t)
        canvas.draw()
        out[t] = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return out


@pytest.mark.parametrize("dpi", [40, 90])
def test_fast_frames_are_full_redraws_pixel_for_pixel(baygo_run, dpi):
    """Every fast frame (iter_frames: the GIF and MP4) equals a full redraw of its step,
    exactly, with the frames drawn forward or in reverse; full redraws do not depend on
    the frames drawn before (hostile17 V7: the cursor under the legend and an arrow
    over the SYNTHETIC DATA watermark differed, 15-186 pixels a frame)."""
    t, m = baygo_run.mse.shape
    influence = np.random.default_rng(0).dirichlet(np.ones(m), size=t)  # sizes change
    steps = list(range(t))
    fast = list(animate_run(baygo_run, influence=influence).iter_frames(dpi=dpi))
    back = list(animate_run(baygo_run, influence=influence, steps=steps[::-1])
                .iter_frames(dpi=dpi))[::-1]  # fmt: skip
    forward = _full_redraws(baygo_run, steps, influence=influence, dpi=dpi)
    reverse = _full_redraws(baygo_run, steps[::-1], influence=influence, dpi=dpi)
    assert len(fast) == len(back) == t and not np.array_equal(fast[0], fast[-1])
    for k in steps:
        assert np.array_equal(forward[k], reverse[k]), k
        assert np.array_equal(fast[k], forward[k]), k
        assert np.array_equal(back[k], forward[k]), k


def test_the_watermark_and_the_cursor_are_drawn_last(baygo_run):
    """The SYNTHETIC DATA mark over everything; the step cursor over the legend it
    crosses (as the GIF frames showed it), under the informative agent's dot."""
    anim = animate_run(baygo_run)
    fig = anim.figure
    gax, pax = fig.axes[:2]
    mark = [a for a in fig.texts if a.get_text() == "SYNTHETIC DATA"][0]
    children = [*gax.get_children(), *pax.get_children(), *fig.texts]
    assert mark.get_zorder() == max(a.get_zorder() for a in children)
    cursor = [ln for ln in pax.get_lines() if ln.get_gid() == "cursor"][0]
    assert pax.get_legend().get_zorder() < cursor.get_zorder() < pax.collections[-1].get_zorder()


def test_influence_panel_and_node_sizes(baygo_run):
    t, m = baygo_run.mse.shape
    infl = np.full((t, m), np.nan)
    infl[3] = np.linspace(0.4, 0.1, m) / np.linspace(0.4, 0.1, m).sum()
    anim = animate_run(baygo_run, steps=[3], panel="influence", influence=infl)
    gax, pax = anim.figure.axes[:2]
    sizes = [c for c in gax.collections if c.get_gid() == "nodes:others"][0].get_sizes()
    assert np.all(np.diff(sizes) < 0)
    assert "influence" in pax.get_ylabel()
    with pytest.raises(ValueError, match="influence"):
        animate_run(baygo_run, panel="influence")
    with pytest.raises(ValueError, match="shape"):
        animate_run(baygo_run, influence=np.zeros((2, 2)))


def test_bad_inputs_are_refused(baygo_run, tmp_path):
    cen = simulate(
        "cen", agents=3, steps=2, model=LinearRegression(grid=11), rng=0, data=synthetic_bodyfat()
    )
    with pytest.raises(ValueError, match="cen"):
        animate_run(cen)
    with pytest.raises(ValueError, match="steps"):
        animate_run(baygo_run, steps=[0, 99])
    with pytest.raises(TypeError, match="Run"):
        animate_run(baygo_run.mse)


def test_a_frame_is_the_same_whatever_frames_came_before(baygo_run):
    """The arrows are kept across frames (each shown with its width when its edge is in
    the step's graph, hidden when not): a step's frame has the same pixels whichever
    frames came before it (same span, so the same curve panel)."""
    steps = list(range(baygo_run.n_steps))
    series = as_series(baygo_run)
    edges = [set(zip(*edge_arrays(series.weights(t))[:2], strict=True)) for t in steps]
    assert any(a - b for a, b in zip(edges, edges[1:], strict=False))  # an arrow goes
    frames = list(animate_run(baygo_run, steps=steps).iter_frames(dpi=40))
    last = steps[-1]
    for t in (2, 5):
        few = list(animate_run(baygo_run, steps=[0, 6, t, last]).iter_frames(dpi=40))
        assert np.array_equal(frames[t], few[2])
        assert np.array_equal(frames[last], few[3])
    anim = animate_run(baygo_run, steps=steps)
    gax = anim.figure.axes[0]
    for t in (3, 0, last):  # a full redraw shows the step's arrows only
        anim._func(t)
        shown = {a.get_gid() for a in gax.get_children()
                 if str(a.get_gid()).startswith("edge:") and a.get_visible()}  # fmt: skip
        assert shown == {f"edge:{j}->{i}" for j, i in edges[t]}
