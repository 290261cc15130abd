"""The comparison figures draw the same curves from a Comparison as from its tidy frame."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from baygo_graph import figures as F
from baygo_graph.analysis import Comparison

SIX = ("baygo", "complete", "posm", "negm", "nocol", "cen")


@pytest.fixture
def comparison(rng):
    shape = (len(SIX), 4, 9, 5)
    influence = rng.random(shape)
    influence[rng.random(shape) < 0.2] = np.nan
    return Comparison(
        strategies=SIX,
        mse=rng.gamma(2.0, size=shape),
        influence=influence,
        informative=rng.integers(0, 5, size=shape[:2]),
        attrs={"strategies": list(SIX), "synthetic": True, "data_source": "synthetic (test)"},
    )


def _curves(obj):
    axes = obj.axes if isinstance(obj, Figure) else [obj]
    out = {}
    for ax in axes:
        for line in ax.get_lines():
            out[(line.get_gid(), line.get_label())] = line.get_ydata()
        out[("title", ax.get_title())] = np.array([])
    plt.close(axes[0].figure)
    return out


@pytest.mark.parametrize(
    "draw",
    [
        F.plot_vs_baselines,
        F.plot_vs_complete,
        F.plot_vs_stars,
        lambda t: F.plot_agents_mse(t, strategy="posm"),
        lambda t: F.plot_agents_mse(t, strategy="baygo", seed=2),
        lambda t: F.plot_influence(t, strategies=("baygo", "negm")),
    ],
)
def test_same_curves_from_the_arrays_and_the_frame(comparison, draw):
    got, want = _curves(draw(comparison)), _curves(draw(comparison.to_frame()))
    assert got.keys() == want.keys()
    for key, y in want.items():
        np.testing.assert_allclose(np.asarray(got[key], float), np.asarray(y, float), rtol=1e-12)


def test_caption_names_the_seeds_of_a_comparison(comparison):
    assert F.frame_caption(comparison) == F.frame_caption(comparison.to_frame())
    assert "4 seeds" in F.frame_caption(comparison)
