"""reproduce.drawing: the figures of one run."""

from __future__ import annotations

import numpy as np
import pytest

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.models import LinearRegression
from baygo_graph.reproduce import run_figures


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("cen", {"mse_every_agent"}),
        ("complete", {"mse_every_agent", "graph_last_step", "graph_union", "influence",
                      "window_connectivity"}),
        ("baygo", {"mse_every_agent", "graph_last_step", "graph_union", "influence",
                   "window_connectivity", "listen_matrix", "listening_fraction"}),
    ],
)  # fmt: skip
def test_single_run_figures(strategy, expected):
    run = simulate(
        strategy,
        agents=4,
        steps=6,
        model=LinearRegression(grid=21),
        rng=1,
        data=synthetic_bodyfat(),
    )
    figs = run_figures(run, window=3)
    assert set(figs) == expected
    for fig in figs.values():
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert "SYNTHETIC DATA" in texts


def _constrained_figure():
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(6, 3), layout="constrained")
    a.plot([0, 1, 2], [2.0, 0.5, 1.0], label="one curve")
    b.bar(["x", "y"], [3, 1])
    a.set_ylabel("a rotated label")
    a.legend(loc="upper right")
    fig.suptitle("a title")
    return fig


def test_a_settled_figure_saves_the_pixels_of_a_tight_savefig():
    """The layout fixed once (_settled_box) and no layout engine left, so savefig draws
    once: the PNG is the one savefig(bbox_inches="tight") writes from a fresh figure."""
    import io

    import matplotlib.pyplot as plt

    from baygo_graph.reproduce.drawing import _settled_box

    fresh = _constrained_figure()
    buf = io.BytesIO()
    fresh.savefig(buf, format="png", dpi=50, bbox_inches="tight")
    settled = _constrained_figure()
    box = _settled_box(settled, dpi=50)
    assert settled.get_layout_engine() is None  # no second layout in savefig
    mine = io.BytesIO()
    settled.savefig(mine, format="png", dpi=50, bbox_inches=box)
    plt.close(fresh)
    plt.close(settled)
    assert mine.getvalue() == buf.getvalue()


def test_figure_png_is_fast_zlib_with_the_same_pixels():
    """The reproduction's PNG (zlib level 1, faster to encode) decodes to the pixels and
    text chunks of matplotlib's default PNG (level 6) of the same figure."""
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    from baygo_graph.reproduce.drawing import _figure_bytes, _settled_box

    fig = _constrained_figure()
    box = _settled_box(fig, dpi=60)
    mine = _figure_bytes(fig, "png", dpi=60, box=box)
    default = io.BytesIO()
    fig.savefig(default, format="png", dpi=60, bbox_inches=box)
    plt.close(fig)
    assert mine != default.getvalue()
    with Image.open(io.BytesIO(mine)) as a, Image.open(default) as b:
        assert a.mode == b.mode and a.info == b.info
        assert np.array_equal(np.asarray(a), np.asarray(b))
