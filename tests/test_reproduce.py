"""The paper reproduction: claims computed from numbers, every promised file written."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.reproduce import (
    CLAIM_KEYS,
    FIGURES,
    GALLERY,
    STRATEGIES,
    evaluate_claims,
    markdown_table,
    reproduce,
    run_figures,
)

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


def test_markdown_table_escapes_and_formats():
    text = markdown_table(pd.DataFrame({"a|b": [1.0, np.nan], "c": ["x|y", 2]}))
    lines = text.splitlines()
    assert lines[0] == "|  | a|b | c |" and lines[1] == "| --- | --- | --- |"
    assert lines[2] == "| 0 | 1 | x\\|y |" and lines[3] == "| 1 | n/a | 2 |"


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
    run = simulate(strategy, agents=4, steps=6, grid=21, rng=1, data=synthetic_bodyfat())
    figs = run_figures(run, window=3)
    assert set(figs) == expected
    for fig in figs.values():
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert "SYNTHETIC DATA" in texts


@pytest.fixture(scope="module")
def small_reproduction(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro")
    result = reproduce(
        out / "results",
        seeds=2,
        steps=5,
        grid=11,
        n_jobs=1,
        data=synthetic_bodyfat(),
        gallery=out / "gallery",
        video=False,
    )
    return out, result


def test_reproduce_writes_every_promised_file(small_reproduction):
    out, result = small_reproduction
    res = out / "results"
    for name in FIGURES:
        for ext in ("png", "pdf"):
            assert (res / "figures" / f"{name}.{ext}").stat().st_size > 1000
    assert sorted(p.stem for p in (out / "gallery").iterdir()) == sorted(GALLERY)
    with Image.open(res / "animation" / "baygo_seed0.gif") as im:
        assert im.n_frames == 5
    df = pd.read_csv(res / "results.csv")
    assert len(df) == len(STRATEGIES) * 2 * 5 * 12
    assert list(df.columns) == ["strategy", "seed", "step", "agent", "informative", "mse",
                                "influence"]  # fmt: skip
    summary = json.loads((res / "summary.json").read_text())
    assert [c["key"] for c in summary["claims"]] == list(CLAIM_KEYS)
    assert summary["config"]["synthetic"] is True
    assert {r["strategy"] for r in summary["summary"]} == set(STRATEGIES)
    assert "| baygo |" in (res / "summary.md").read_text()
    assert set(pd.read_csv(res / "smallest_b.csv")["windows"]) == {"aligned", "sliding"}
    assert result.files["report"] == res / "report.md"


def test_report_names_each_claim_with_its_computed_verdict(small_reproduction):
    out, result = small_reproduction
    report = (out / "results" / "report.md").read_text()
    assert "SYNTHETIC DATA" in report.splitlines()[2]
    for claim in result.claims:
        assert claim.verdict in ("holds", "does not hold")
        row = next(line for line in report.splitlines() if line.startswith(f"| {claim.key} |"))
        assert f"**{claim.verdict}**" in row
    for name in FIGURES:
        assert f"](figures/{name}.png)" in report
    # The verdicts are those of evaluate_claims on the written table.
    df = pd.read_csv(out / "results" / "results.csv")
    b = pd.read_csv(out / "results" / "smallest_b.csv")
    again = evaluate_claims(df, smallest_b=b)
    assert [c.verdict for c in again] == [c.verdict for c in result.claims]
