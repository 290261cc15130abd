"""reproduce.drawing: the figures of one run."""

from __future__ import annotations

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
