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


@pytest.mark.skipif(
    not hasattr(__import__("matplotlib.ft2font").ft2font, "__libraqm_version__"),
    reason="matplotlib before 3.11 lays text out left to right (docs/formats.md)",
)
@pytest.mark.parametrize("label", ["שלום", "سلام"])
def test_a_right_to_left_label_is_drawn_in_reading_order(label):
    """hostile18 W8: "שלום" was drawn ש-ל-ו-ם from the left (a reader sees "םולש");
    matplotlib 3.11's layout is bidirectional: a node label's first letter is drawn
    rightmost, found on the rendered figure by its own glyph."""
    import matplotlib.pyplot as plt

    from baygo_graph.figures._graph import draw_nodes

    def drawn(text):  # the text alone, in the label's font, on a blank canvas
        fig = plt.figure(figsize=(3, 1), dpi=100)
        fig.text(0.5, 0.5, text, fontsize=40, ha="center", va="center")
        fig.canvas.draw()
        ink = 255.0 - np.asarray(fig.canvas.buffer_rgba())[..., :3].mean(axis=2)
        plt.close(fig)
        rows, cols = np.nonzero(ink > 40)
        return ink[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]

    fig, ax = plt.subplots()
    draw_nodes(ax, np.array([[0.0, 0.0], [1.0, 1.0]]), informative=0, sizes=np.full(2, 30.0),
               labels=[label, "x"])  # fmt: skip
    assert label in [t.get_text() for t in ax.texts]  # as written, no reordering of ours
    plt.close(fig)
    word, first, last = drawn(label), drawn(label[0]), drawn(label[-1])
    if first.shape[0] > word.shape[0] or last.shape[0] > word.shape[0]:
        pytest.skip("a letter taller than the word (its joined form): not comparable")

    def where(glyph):  # the column of the word at which the glyph fits best
        h, w = glyph.shape
        windows = np.lib.stride_tricks.sliding_window_view(word, (h, w))
        cost = np.abs(windows - glyph).sum(axis=(2, 3)).min(axis=0)
        return int(cost.argmin())

    assert where(first) > where(last), "the first letter is not drawn rightmost"
