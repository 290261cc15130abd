"""horizon_table against separate runs of each length and brute-force counts."""

from __future__ import annotations

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.analysis import smallest_b
from baygo_graph.analysis.horizon import horizon_table
from baygo_graph.models import LinearRegression

DATA = bg.synthetic_bodyfat()


def test_each_horizon_equals_a_run_of_that_length():
    kw = {"agents": 6, "model": LinearRegression(grid=21), "data": DATA}
    runs = [bg.simulate("baygo", steps=60, rng=s, **kw) for s in range(3)]
    table = horizon_table(runs, [15, 30, 60], window=5)
    for s in range(3):
        for steps in (15, 30, 60):
            row = table[(table["run"] == s) & (table["steps"] == steps)].iloc[0]
            short = bg.simulate("baygo", steps=steps, rng=s, **kw)
            for windows in ("aligned", "sliding"):
                b = smallest_b(short, windows=windows).B
                got = row[f"b_{windows}"]
                assert (np.isnan(got) and b is None) or got == b
            # brute force: share of the 5 other agents choosing agent 0, per step
            share = (short.choices[:, 1:] == 0).sum(axis=1) / 5
            assert row["listening_share"] == pytest.approx(share.mean())
            assert row["seed"] == s


def test_smallest_b_cannot_shrink_with_the_horizon_when_sliding():
    runs = [
        bg.simulate("baygo", agents=8, steps=80, model=LinearRegression(grid=21), rng=s, data=DATA)
        for s in range(3)
    ]
    t = horizon_table(runs, [20, 40, 80], window=5)
    for _, g in t.groupby("run"):
        b = g.sort_values("steps")["b_sliding"].fillna(np.inf).to_numpy()
        # more windows to satisfy: a B that works for T steps is needed by T' < T ones too,
        # but a short run can have no B at all (NaN, here inf)
        finite = b[np.isfinite(b)]
        assert np.all(np.diff(finite) >= 0)


def test_bad_horizons():
    run = bg.Run.from_choices([[1, 0]] * 4)
    with pytest.raises(ValueError, match="horizons must be <="):
        horizon_table([run], [5])
    with pytest.raises(TypeError, match="horizons must be an integer"):
        horizon_table([run], [2.5])
