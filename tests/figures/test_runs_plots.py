"""The multi-run figure (analysis.png): dots, medians and labels that never overlap."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from baygo_graph.figures import SYNTHETIC_GID, plot_analysis_table

MEASURES = ("b_aligned", "b_sliding", "listening_share", "influence", "influence_rank")


def analysis_like(strategies, runs=8, seed=0):
    rng = np.random.default_rng(seed)
    rows = [
        {
            "strategy": s,
            "seed": f"12/{r}",
            "data": "bodyfat.csv",
            "synthetic": True,
            "b_aligned": np.nan if s == "nocol" else float(rng.integers(1, 40)),
            "b_sliding": float(rng.integers(1, 40)),
            "listening_share": rng.uniform(),
            "influence": rng.uniform(),
            "influence_rank": float(rng.integers(1, 200)),
        }
        for s in strategies
        for r in range(runs)
    ]
    return pd.DataFrame(rows)


def visible_texts(fig):
    """Every label, title, note and caption of the figure (not the watermark)."""
    texts = [fig._suptitle, fig._supxlabel]
    for a in fig.axes:
        texts += [a.title, a.xaxis.label, a.yaxis.label]
        lo, hi = sorted(a.get_xlim())  # tick labels outside the view are not drawn
        texts += [t for t in a.get_xticklabels() if lo <= t.get_position()[0] <= hi]
        lo, hi = sorted(a.get_ylim())
        texts += [t for t in a.get_yticklabels() if lo <= t.get_position()[1] <= hi]
        texts += [t for t in a.texts if t.get_gid() != SYNTHETIC_GID]
    return [t for t in texts if t is not None and t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize(
    "strategies",
    [
        ["baygo", "complete", "posm", "negm", "nocol", "cen"],
        ["baygo", *(f"a-rather-long-strategy-name-{k}" for k in range(11))],
    ],
)
def test_labels_never_overlap(strategies):
    fig = plot_analysis_table(analysis_like(strategies))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in visible_texts(fig)]
    assert len(boxes) > 5 * 2 + len(strategies)
    clashes = [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]
    assert clashes == []
    canvas = fig.bbox
    outside = [t for t, b in boxes if b.x0 < canvas.x0 - 1 or b.x1 > canvas.x1 + 1]
    assert outside == []
    plt.close(fig)


def test_dots_medians_and_missing_runs():
    table = analysis_like(["baygo", "nocol"], runs=5)
    fig = plot_analysis_table(table, measures=["b_aligned", "influence"])
    b_ax, inf_ax = fig.axes
    for s in ("baygo", "nocol"):
        values = table.loc[table.strategy == s, "influence"].to_numpy()
        (dots,) = [c for c in inf_ax.collections if c.get_gid() == f"runs:{s}"]
        assert sorted(dots.get_offsets()[:, 0]) == pytest.approx(sorted(values))
        (median,) = [ln for ln in inf_ax.get_lines() if ln.get_gid() == f"median:{s}"]
        assert median.get_xdata()[0] == pytest.approx(np.median(values))
        (iqr,) = [ln for ln in inf_ax.get_lines() if ln.get_gid() == f"iqr:{s}"]
        assert list(iqr.get_xdata()) == pytest.approx(np.percentile(values, [25, 75]))
    (note,) = [t for t in b_ax.texts if t.get_gid() == "none:nocol"]
    assert note.get_text() == "5 without a value"
    assert not [ln for ln in b_ax.get_lines() if ln.get_gid() == "median:nocol"]
    assert [t.get_text() for t in b_ax.get_yticklabels()] == ["BayGo (5 runs)", "NoCol (5 runs)"]
    assert [t.get_text() for t in fig.texts if t.get_gid() == SYNTHETIC_GID] == ["SYNTHETIC DATA"]
    plt.close(fig)


def test_one_synthetic_run_marks_the_figure():
    table = analysis_like(["baygo", "posm"], runs=3)
    table["synthetic"] = False
    fig = plot_analysis_table(table)
    assert not [t for t in fig.texts if t.get_gid() == SYNTHETIC_GID]
    table.loc[4, "synthetic"] = True
    fig = plot_analysis_table(table)
    assert [t.get_text() for t in fig.texts if t.get_gid() == SYNTHETIC_GID] == ["SYNTHETIC DATA"]
    plt.close("all")
