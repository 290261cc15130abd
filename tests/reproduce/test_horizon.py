"""The long BayGo runs of the reproduction: one task per seed, the same runs and
tables as compare's runs measured afterwards."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.analysis import horizon_table, theorem_check
from baygo_graph.experiments import compare
from baygo_graph.models import LinearRegression
from baygo_graph.reproduce.horizon import long_runs
from baygo_graph.reproduce.theorem import TruthMonitor

pytestmark = pytest.mark.filterwarnings("ignore::baygo_graph.exceptions.GridResolutionWarning")


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_long_runs_equal_compares_runs_measured_afterwards(n_jobs):
    data = bg.synthetic_bodyfat()
    kw = {"agents": 5, "model": LinearRegression(grid=11), "data": data}
    got = long_runs(seeds=3, steps=8, horizons=(8, 14), rng=4, n_jobs=n_jobs, window=3,
                    progress=False, synthetic=True, **kw)  # fmt: skip
    _, runs = compare(["baygo"], seeds=3, steps=14, rng=4, n_jobs=1, return_runs=True,
                      progress=False, monitors=[TruthMonitor(synthetic=True, until=8)], tidy=False,
                      **kw)  # fmt: skip
    want = [runs[("baygo", r)] for r in range(3)]
    for a, b in zip(got.runs, want, strict=True):
        np.testing.assert_array_equal(a.mse, b.mse)
        np.testing.assert_array_equal(a.choices, b.choices)
        for key, value in b.records.items():
            np.testing.assert_array_equal(a.records[key], value)
        assert a.config["seed"] == b.config["seed"]
    pd.testing.assert_frame_equal(got.horizon, horizon_table(want, (8, 14), window=3))
    for c, run in zip(got.checks, want, strict=True):
        ref = theorem_check(run.head(8))
        np.testing.assert_array_equal(c.rate, ref.rate)
        assert c.holds_kl == ref.holds_kl
    assert got.theorem["seed"].tolist() == [0, 1, 2]
