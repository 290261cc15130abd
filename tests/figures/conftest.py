"""Small inputs shared by the figure tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.models import LinearRegression

STRATEGIES = ("baygo", "complete", "posm", "negm", "nocol", "cen")


def make_table(rng, *, strategies=STRATEGIES, seeds=4, steps=6, agents=3, synthetic=True):
    """A tidy table shaped like compare()'s, with random MSE and influence."""
    rows = [
        (s, r, t, a, a == 0)
        for s in strategies
        for r in range(seeds)
        for t in range(steps)
        for a in range(agents)
    ]
    df = pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative"])
    df["mse"] = rng.uniform(0.2, 1.0, len(df))
    df["influence"] = rng.uniform(0.0, 1.0, len(df))
    df.attrs = {"synthetic": synthetic, "steps": steps, "agents": agents, "seeds": seeds}
    return df


@pytest.fixture
def table(rng):
    return make_table(rng)


@pytest.fixture
def table_maker():
    """The table builder itself, for tests that need other shapes."""
    return make_table


@pytest.fixture
def t_reference():
    """Mean and Student-t interval of a sample, the reference for band extents."""
    return t_band


@pytest.fixture(scope="module")
def baygo_run():
    return simulate(
        "baygo", agents=5, steps=8, model=LinearRegression(grid=21), rng=3, data=synthetic_bodyfat()
    )


def t_band(values, level=0.95):
    """Reference mean and t-interval of a 1-D sample (dense numpy + scipy)."""
    from scipy import stats

    v = np.asarray(values, dtype=float)
    n = len(v)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * v.std(ddof=1) / np.sqrt(n)
    return v.mean(), v.mean() - half, v.mean() + half
