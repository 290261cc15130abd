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


def test_heads_are_compares_runs_bit_for_bit():
    """The reproduction's BayGo runs are the long runs' heads: every field of
    compare's run, bit for bit (records and config included)."""
    import dataclasses

    kw = {"agents": 5, "model": LinearRegression(grid=11), "data": bg.synthetic_bodyfat()}
    _, runs = compare(["baygo"], seeds=3, steps=8, rng=4, n_jobs=1, return_runs=True,
                      progress=False, tidy=False, keep_posteriors=[0, 7], **kw)  # fmt: skip
    got = long_runs(seeds=3, steps=8, horizons=(8, 14), rng=4, n_jobs=1, window=3,
                    progress=False, synthetic=True, keep_posteriors=[0, 7],
                    **kw).heads(8)  # fmt: skip
    for r, head in enumerate(got):
        want = runs[("baygo", r)]
        for f in dataclasses.fields(want):
            a, b = getattr(head, f.name), getattr(want, f.name)
            if f.name == "series":
                for t in range(8):
                    assert (a.weights(t) != b.weights(t)).nnz == 0
                np.testing.assert_array_equal(a.choices, b.choices)
            elif f.name == "posteriors":
                assert a.keys() == b.keys() == {0, 7}
                for t in a:
                    np.testing.assert_array_equal(a[t], b[t])
            elif isinstance(b, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b, f.name


def test_head_ttc_is_each_heads_own_time_to_connectivity():
    """The long runs' time to connectivity, cut to a head, is the head's own (what the
    claims' smallest-B table reads), at every head length; the horizon table made with
    it is the one made without."""
    from baygo_graph.analysis import time_to_connectivity

    lr = long_runs(seeds=3, steps=10, horizons=(5, 10, 40), agents=5, n_jobs=1, window=3,
                   model=LinearRegression(grid=11), progress=False,
                   data=bg.synthetic_bodyfat(), synthetic=True)  # fmt: skip
    for steps in (1, 5, 10, 23, 40):
        for head, ttc in zip(lr.heads(steps), lr.head_ttc(steps), strict=True):
            assert np.array_equal(ttc, time_to_connectivity(head))
    again = horizon_table(lr.runs, (5, 10, 40), window=3)
    pd.testing.assert_frame_equal(again, horizon_table(lr.runs, (5, 10, 40), window=3,
                                                       ttc=lr.ttc))  # fmt: skip
