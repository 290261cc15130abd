"""reproduce.claims: verdicts computed from the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baygo_graph.reproduce import CLAIM_KEYS, STRATEGIES, evaluate_claims

SEEDS, STEPS, AGENTS = 5, 30, 3


def claims_table(*, baygo_shift, consensus_at, rng, cen_shift=None):
    """A compare()-shaped table whose numbers make the claims come out as asked.

    Every baseline's MSE is ``1 + noise``; BayGo's is ``1 + baygo_shift + noise``
    (Cen's ``1 + cen_shift``). BayGo's agents disagree by 0.5 before step
    ``consensus_at`` and agree exactly from it on.
    """
    seed_noise = rng.uniform(0, 0.05, SEEDS)
    rows = []
    for s in STRATEGIES:
        shift = baygo_shift if s == "baygo" else (cen_shift or 0.0) if s == "cen" else 0.0
        for r in range(SEEDS):
            for t in range(STEPS):
                for a in range(AGENTS):
                    mse = 1.0 + shift + seed_noise[r] + (0.01 * r * (s == "baygo"))
                    if s == "baygo" and t < consensus_at:
                        mse += 0.5 * a
                    rows.append((s, r, t, a, a == 0, mse))
    df = pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative", "mse"])
    df.attrs = {"synthetic": True, "strategies": list(STRATEGIES)}
    return df


def b_table(aligned):
    aligned = np.asarray(aligned, dtype=float)
    return pd.DataFrame(
        {
            "seed": np.tile(np.arange(len(aligned)), 2),
            "windows": ["aligned"] * len(aligned) + ["sliding"] * len(aligned),
            "smallest_b": np.concatenate([aligned, aligned + 1]),
        }
    )


def test_claims_hold_when_the_numbers_say_so(rng):
    df = claims_table(baygo_shift=-0.2, consensus_at=25, rng=rng, cen_shift=-0.19)
    claims = evaluate_claims(df, smallest_b=b_table([3, 7, 5, 2, 7]))
    assert [c.key for c in claims] == list(CLAIM_KEYS)
    assert {c.key: c.verdict for c in claims} == dict.fromkeys(CLAIM_KEYS, "holds")
    vs_complete = claims[0].values
    assert vs_complete["hi"] < 0 and vs_complete["n"] == SEEDS
    assert vs_complete["mean_difference"] == pytest.approx(-0.2 + 0.01 * np.mean(range(SEEDS)))


def test_claims_fail_when_the_numbers_say_so(rng):
    df = claims_table(baygo_shift=0.2, consensus_at=26, rng=rng, cen_shift=0.0)
    claims = evaluate_claims(df, smallest_b=b_table([3, 8, 5, 2, 7]))
    assert {c.key: c.verdict for c in claims} == dict.fromkeys(CLAIM_KEYS, "does not hold")
    assert claims[5].values["median_step"] == 26 and claims[5].values["limit"] == 25
    assert "max 8" in claims[6].evidence and claims[6].values["b_max"] == STEPS // 4


def test_missing_b_or_a_seed_without_b_and_missing_strategies(rng):
    df = claims_table(baygo_shift=-0.2, consensus_at=0, rng=rng)
    claims = {c.key: c for c in evaluate_claims(df)}
    assert claims["b_connectivity"].verdict == "not evaluated"
    claims = {c.key: c for c in evaluate_claims(df, smallest_b=b_table([2, np.nan, 2, 2, 2]))}
    assert claims["b_connectivity"].verdict == "does not hold"
    assert "no B in 1/5 seeds" in claims["b_connectivity"].evidence
    partial = df[df["strategy"].isin(["baygo", "nocol"])]
    verdicts = {c.key: c.verdict for c in evaluate_claims(partial)}
    assert verdicts["baygo_vs_nocol"] == "holds"
    assert verdicts["baygo_vs_complete"] == "not evaluated"
