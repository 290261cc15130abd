"""reproduce.theorem: the true parameter of synthetic data in standardised units."""

from __future__ import annotations

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.data import paper_split
from baygo_graph.models import LinearRegression
from baygo_graph.reproduce import TruthMonitor, standardised_line
from baygo_graph.reproduce.theorem import SYNTHETIC_LINE


def test_standardised_line_matches_a_fit_on_noise_free_data(rng):
    split = paper_split(bg.synthetic_bodyfat(), rng=0)
    x_raw = rng.uniform(70, 120, 50)
    y_raw = SYNTHETIC_LINE[0] * x_raw + SYNTHETIC_LINE[1]
    xs = (x_raw - split.mean[0]) / split.std[0]
    ys = (y_raw - split.mean[1]) / split.std[1]
    slope, intercept = np.polyfit(xs, ys, 1)
    assert standardised_line(split) == pytest.approx((intercept, slope))


def test_synthetic_line_is_the_generators():
    # a large synthetic sample refits the line within its sampling error
    frame = bg.synthetic_bodyfat(20000, rng=1).frame
    inside = frame[(frame["Abdomen"] > 75) & (frame["Abdomen"] < 110)]  # clipping-free range
    slope, intercept = np.polyfit(inside["Abdomen"], inside["BodyFat"], 1)
    assert slope == pytest.approx(SYNTHETIC_LINE[0], abs=0.01)
    assert intercept == pytest.approx(SYNTHETIC_LINE[1], abs=1.0)


@pytest.mark.parametrize("synthetic", [True, False])
def test_truth_monitor_sets_theta_star_from_the_split(synthetic):
    run = bg.simulate("baygo", agents=4, steps=3, model=LinearRegression(grid=11),
                      rng=0, data=bg.synthetic_bodyfat(),
                      monitors=[TruthMonitor(synthetic=synthetic)])  # fmt: skip
    theta = run.config["monitors"]["theorem"]["theta_star"]
    mean, std = run.config["split"]["mean"], run.config["split"]["std"]
    line = standardised_line(type("Split", (), {"mean": mean, "std": std})())
    if synthetic:
        assert theta == pytest.approx(line)
    else:  # the least-squares fit: near the generating line, not on it
        assert theta != pytest.approx(line, abs=1e-3)
        assert theta == pytest.approx(line, abs=0.3)
