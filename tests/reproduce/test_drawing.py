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
