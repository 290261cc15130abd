"""The gallery's figures, checked as a reader would: no legend over the data, a
caption naming the data and the seeds, the watermark clear of the informative agent."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from baygo_graph import figures as F
from baygo_graph import synthetic_bodyfat
from baygo_graph.analysis import (
    analysis_table,
    b_connectivity,
    influence,
    influence_series,
    listen_counts,
    listener_fraction,
    reference_influence,
    window_matrix,
)
from baygo_graph.experiments import compare
from baygo_graph.figures import CAPTION_GID, SYNTHETIC_GID
from baygo_graph.models import LinearRegression


def captions(fig) -> list:
    """The source captions of ``fig`` (Text artists with gid CAPTION_GID)."""
    return [t for t in fig.findobj(Text) if t.get_gid() == CAPTION_GID]


def data_points(ax) -> np.ndarray:
    """Display coordinates of every plotted point: line vertices, scatter offsets,
    the top corners of bars (visible patches with data transform)."""
    pts = [np.empty((0, 2))]
    for line in ax.get_lines():
        xy = np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy):
            pts.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            pts.append(coll.get_offset_transform().transform(np.asarray(coll.get_offsets())))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and patch.get_height():
            x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            pts.append(patch.get_transform().transform([[x, y + h], [x + w, y + h]]))
    return np.vstack(pts)


def _renderer(fig):
    """Draw ``fig`` on an Agg canvas and return its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def legend_overlaps(fig) -> list[tuple[int, int]]:
    """``(axes index, points inside its legend box)`` for every legend over data."""
    renderer = _renderer(fig)
    out = []
    for k, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        pts = data_points(ax)
        inside = (
            (pts[:, 0] >= box.x0)
            & (pts[:, 0] <= box.x1)
            & (pts[:, 1] >= box.y0)
            & (pts[:, 1] <= box.y1)
        )
        if inside.any():
            out.append((k, int(inside.sum())))
    return out


def test_the_helper_sees_a_legend_over_data():
    fig, ax = plt.subplots()
    ax.plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50), label="diagonal")
    ax.legend(loc="center")
    ((k, n),) = legend_overlaps(fig)
    assert k == 0 and n >= 1
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    assert legend_overlaps(fig) == []
    plt.close(fig)


@pytest.fixture(scope="module")
def gallery():
    """Every figure kind of the gallery, from small runs of synthetic data."""
    data = synthetic_bodyfat(rng=0)
    df, runs = compare(["baygo", "complete", "posm", "negm", "nocol", "cen"], seeds=3,
                       steps=20, agents=6, model=LinearRegression(grid=21),
                       data=data, n_jobs=1, progress=False, rng=0,
                       return_runs=True)  # fmt: skip
    run = runs["baygo", 0]
    cap = F.run_caption(run)
    refs = reference_influence(6)
    union = window_matrix(run, 10, 20, method="union")
    pi = np.asarray(influence(union, on_nonunique="nan"), dtype=float)
    table = analysis_table(runs, window=5)
    baygo = table[table["strategy"] == "baygo"]
    bs = pd.DataFrame(
        [(k, kind, row[f"b_{kind}"]) for k, row in baygo.iterrows() for kind in
         ("aligned", "sliding")], columns=["seed", "windows", "smallest_b"],
    )  # fmt: skip
    figs = {
        "mse_vs_cen_nocol": F.plot_vs_baselines(df).figure,
        "mse_vs_complete": F.plot_vs_complete(df).figure,
        "mse_vs_stars": F.plot_vs_stars(df),
        "mse_every_agent": F.plot_agents_mse(df, strategy="baygo").figure,
        "mse_one_run": F.plot_agents_mse(run).figure,
        "influence": F.plot_influence(df, references=refs).figure,
        "influence_one_run": F.plot_influence_series(
            influence_series(run, window=5, windows="sliding").values, references=refs, caption=cap
        ).figure,
        "listening_fraction": F.plot_listening_fraction(
            listener_fraction(run)[None, :], chance=0.2, caption=cap
        ).figure,
        "listen_matrix": F.plot_listen_matrix(listen_counts(run), caption=cap).figure,
        "graph_union": F.draw_graph(union, influence=pi, synthetic=True, caption=cap).figure,
        "window_connectivity": F.plot_window_connectivity(
            b_connectivity(run, 5, windows="aligned"), caption=cap
        ).figure,
        "smallest_b": F.plot_smallest_b(bs, steps=20, caption=F.analysis_caption(table)).figure,
        "analysis": F.plot_analysis_table(table),
    }
    out = os.environ.get("BAYGO_GALLERY_OUT")  # to look at them: a folder for the PNGs
    if out:
        for name, fig in figs.items():
            fig.savefig(Path(out) / f"{name}.png", dpi=70, bbox_inches="tight")
    yield figs
    for fig in figs.values():
        plt.close(fig)


NAMES = ["mse_vs_cen_nocol", "mse_vs_complete", "mse_vs_stars", "mse_every_agent",
         "mse_one_run", "influence", "influence_one_run", "listening_fraction",
         "listen_matrix", "graph_union", "window_connectivity", "smallest_b",
         "analysis"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_no_legend_over_data(gallery, name):
    assert legend_overlaps(gallery[name]) == []


@pytest.mark.parametrize("name", NAMES)
def test_caption_names_data_and_seeds(gallery, name):
    (caption,) = captions(gallery[name])
    text = caption.get_text()
    assert text.startswith("data: synthetic; ") and "seed" in text, text


def test_window_connectivity_names_its_seed(gallery):
    (caption,) = captions(gallery["window_connectivity"])
    assert caption.get_text() == "data: synthetic; root seed 0, replicate 0"


def test_watermark_clear_of_the_informative_agent(gallery):
    fig = gallery["graph_union"]
    renderer = _renderer(fig)
    ax = fig.axes[0]
    (mark,) = [t for t in ax.texts if t.get_gid() == SYNTHETIC_GID]
    (star,) = [c for c in ax.collections if c.get_gid() == "nodes:informative"]
    xy = star.get_offset_transform().transform(star.get_offsets())[0]
    assert not mark.get_window_extent(renderer).contains(*xy)
