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


def test_fast_frames_match_a_full_redraw(baygo_run):
    anim = animate_run(baygo_run, steps=[1, 5])
    frames = list(anim.iter_frames(dpi=50))
    assert len(frames) == 2 and frames[0].shape[2] == 3
    assert not np.array_equal(frames[0], frames[1])
    fig = anim.figure
    fig.set_dpi(50)
    anim._func(5)
    fig.canvas.draw()
    full = np.asarray(fig.canvas.buffer_rgba())[..., :3]
    assert full.shape == frames[1].shape
    assert np.mean(np.abs(full.astype(int) - frames[1].astype(int)) > 8) < 0.01


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
