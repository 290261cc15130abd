"""reproduce.consensus: the consensus step at absolute and relative tolerances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baygo_graph.reproduce import TOLERANCES, consensus_steps
from baygo_graph.reproduce.consensus import consensus_claims


def spread_table(halfwidths, steps=30, agents=3):
    """BayGo MSE 1 + h(seed, t) * agent: spread 2 h; h from ``halfwidths[seed](t)``."""
    rows = [
        ("baygo", r, t, a, a == 0, 1.0 + h(t) * a)
        for r, h in enumerate(halfwidths)
        for t in range(steps)
        for a in range(agents)
    ]
    return pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative", "mse"])


def staircase(k1, k2):
    # spread 0.04 before k1 (fails all but 5% of ~1.04), 0.015 before k2, 0 after
    return lambda t: 0.02 if t < k1 else 0.0075 if t < k2 else 0.0


def test_each_tolerance_has_its_own_step():
    df = spread_table([staircase(5, 10), staircase(8, 20), staircase(2, 40)])
    steps = consensus_steps(df)
    assert list(steps.columns) == list(TOLERANCES)
    assert steps["abs_0.01"].tolist() == [10, 20, np.inf]
    assert steps["abs_0.02"].tolist() == [5, 8, 2]
    assert steps["rel_5pct"].tolist() == [0, 0, 0]


def test_brute_force_first_stable_step(rng):
    mse = rng.uniform(0, 0.03, size=(4, 12, 3)).cumsum(axis=1)[:, ::-1]  # spreads shrink
    rows = [("baygo", r, t, a, a == 0, mse[r, t, a]) for r in range(4) for t in range(12)
            for a in range(3)]  # fmt: skip
    df = pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative", "mse"])
    got = consensus_steps(df)
    for r in range(4):
        spread = np.ptp(mse[r], axis=1)
        ok = spread <= 0.02
        want = next((t for t in range(12) if ok[t:].all()), np.inf)
        assert got.loc[r, "abs_0.02"] == want


def test_claims_per_tolerance_report_median_and_share():
    df = spread_table([staircase(5, 10), staircase(8, 30), staircase(2, 40)], steps=30)
    claims = {c.key: c for c in consensus_claims(df, within=6, slack=2)}
    c01, c02 = claims["consensus_abs_0.01"], claims["consensus_abs_0.02"]
    # 3 seeds cannot pin a median down at 95%: both are "cannot tell", with N
    assert c01.values["median_step"] == np.inf and c01.verdict == "cannot tell at 3 seeds"
    assert c01.values["reached"] == pytest.approx(1 / 3)
    assert "Most seeds never reach" in c01.note
    assert c02.values["median_step"] == 5 and c02.holds is None
    assert c02.values["median_hi"] == np.inf
    assert claims["consensus_rel_5pct"].values["reached"] == 1.0


def test_bad_tolerance_kind_and_missing_strategy():
    df = spread_table([staircase(1, 2)])
    with pytest.raises(ValueError, match="kind"):
        consensus_steps(df, tolerances={"x": ("pct", 1)})
    with pytest.raises(ValueError, match="'cen'"):
        consensus_steps(df, strategy="cen")
