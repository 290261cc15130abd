"""Every figure and animation writer says SYNTHETIC DATA as text in the files it writes
from synthetic data, and never in those from real data (newcomer7: a GIF carried the mark
only as drawn pixels, unlike PNG/PDF/SVG/HTML/JSON)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import pytest
from matplotlib.animation import FuncAnimation

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph._text import SYNTHETIC_TEXT
from baygo_graph.figures import animate_run, save_animation, to_html
from baygo_graph.figures import video as video_module
from baygo_graph.figures._style import mark_synthetic
from baygo_graph.io.atomic import atomic_figure
from baygo_graph.models import LinearRegression

MARK = SYNTHETIC_TEXT.encode()


@pytest.fixture(scope="module")
def runs():
    """``{synthetic: run}``: the synthetic stand-in, and the same numbers as a frame that
    says nothing of where it came from (the package reads it as real data)."""
    data = synthetic_bodyfat()
    real = data.frame.copy()
    real.attrs = {}
    made = {
        flag: simulate(
            "baygo",
            agents=3,
            steps=3,
            rng=0,
            model=LinearRegression(grid=5),
            data=data if flag else real,
        )  # fmt: skip
        for flag in (True, False)
    }
    assert [made[f].synthetic for f in (True, False)] == [True, False]
    return made


def _figure(run):
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot(run.mse[:, 0])
    mark_synthetic(ax, run.synthetic)
    return fig


def _plain_animation(run):
    """A matplotlib animation with no frame iterator (save_animation's other path)."""
    fig = _figure(run)
    return FuncAnimation(fig, lambda k: [], frames=2, blit=False)


def _write(kind, run, folder):
    path = folder / f"out.{kind.split('-')[0]}"
    if kind in ("png", "pdf", "svg"):
        atomic_figure(_figure(run), path, dpi=20)
    elif kind in ("gif", "mp4"):
        save_animation(animate_run(run, steps=range(2)), path, dpi=20)
    elif kind in ("gif-plain", "mp4-plain"):
        save_animation(_plain_animation(run), path, dpi=20)
    elif kind == "gif+mp4":  # one rendering, two files
        return [
            p.read_bytes()
            for p in save_animation(
                animate_run(run, steps=range(2)), [folder / "a.gif", folder / "a.mp4"], dpi=20
            )
        ]
    else:  # the viewer: its title, and the whole page (hostile17 V5: the page's data
        # held the words for its script on a real run too)
        page = to_html(run, path.with_suffix(".html")).read_text()
        return [re.search(r"<title>(.*?)</title>", page).group(1).encode(), page.encode()]
    return [path.read_bytes()]


@pytest.mark.parametrize(
    "kind", ["png", "pdf", "svg", "gif", "gif-plain", "mp4", "mp4-plain", "gif+mp4", "html"]
)
def test_synthetic_outputs_say_so_as_text_and_real_ones_do_not(runs, tmp_path, kind):
    if "mp4" in kind and video_module.ffmpeg_path() is None:
        pytest.skip("no ffmpeg writer here (the optional extra baygo-graph[video])")
    for synthetic, run in runs.items():
        folder = tmp_path / str(synthetic)
        folder.mkdir()
        for content in _write(kind, run, folder):
            assert (MARK in content) is synthetic, (kind, synthetic)


def test_a_gifs_mark_is_its_comment(runs, tmp_path):
    from PIL import Image

    for synthetic, run in runs.items():
        path = save_animation(animate_run(run, steps=range(2)), tmp_path / f"{synthetic}.gif")
        with Image.open(path) as image:
            assert image.info.get("comment") == (MARK if synthetic else None)
