"""Connectivity figures: per-window components and the smallest B over seeds."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest

from baygo_graph.analysis import b_connectivity
from baygo_graph.figures import plot_smallest_b, plot_window_connectivity
from baygo_graph.figures.connectivity import BROKEN_COLOR, CONNECTED_COLOR


@pytest.mark.parametrize("windows", ["aligned", "sliding"])
def test_one_bar_per_window_with_its_components(baygo_run, windows):
    res = b_connectivity(baygo_run, 2, windows=windows)
    ax = plot_window_connectivity(res)
    bars = ax.patches
    assert len(bars) == res.n_windows
    np.testing.assert_array_equal([b.get_x() for b in bars], res.start)
    np.testing.assert_array_equal([b.get_height() for b in bars], res.n_components)
    for bar, ok in zip(bars, res.strongly_connected, strict=True):
        assert mpl.colors.same_color(
            bar.get_facecolor()[:3], CONNECTED_COLOR if ok else BROKEN_COLOR
        )
    assert f"{windows} windows of 2 steps:" in ax.get_title()  # B: the smallest B only


def test_smallest_b_dots_none_and_median():
    t = pd.DataFrame(
        {
            "seed": [0, 1, 2, 0, 1, 2],
            "windows": ["aligned"] * 3 + ["sliding"] * 3,
            "smallest_b": [4.0, 4.0, np.nan, 5.0, 9.0, 6.0],
        }
    )
    ax = plot_smallest_b(t, steps=20, limit=5)
    got = {c.get_gid(): c.get_offsets() for c in ax.collections}
    np.testing.assert_array_equal(got["b:aligned"][:, 0], [4, 4])
    assert got["b:aligned"][1, 1] > got["b:aligned"][0, 1]  # equal values stacked
    np.testing.assert_array_equal(got["none:aligned"][:, 0], [20.5])
    np.testing.assert_array_equal(got["b:sliding"][:, 0], [5, 6, 9])
    med = {ln.get_gid(): ln.get_xdata()[0] for ln in ax.get_lines()}
    assert med == {"median:aligned": 4.0, "median:sliding": 6.0, "limit": 5}
    with pytest.raises(ValueError, match="smallest_b"):
        plot_smallest_b(t.drop(columns="smallest_b"))


@pytest.mark.parametrize(
    ("label", "drawn"),
    [("a\tb", "a⇥b"), ("a\nb", "a↵b"), ("a\r\nb", "a↵b"), ("a b", "a b"), ("$x$", r"\$x\$")],
)
def test_a_label_is_drawn_as_written_a_tab_as_a_visible_mark(label, drawn):
    """ "a\\tb" was drawn "a b", the label "a b" (hostile18 W8): every figure draws node
    and strategy names through figure_label."""
    import matplotlib.pyplot as plt

    from baygo_graph._text import figure_label
    from baygo_graph.figures._graph import draw_nodes

    assert figure_label(label) == drawn
    fig, ax = plt.subplots()
    draw_nodes(ax, np.array([[0.0, 0.0], [1.0, 1.0]]), informative=0, sizes=np.full(2, 30.0),
               labels=[label, "other"])  # fmt: skip
    assert drawn in [t.get_text() for t in ax.texts]
    plt.close(fig)
