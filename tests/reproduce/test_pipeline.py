"""reproduce.pipeline: every promised file written, verdicts computed from the numbers."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from PIL import Image

from baygo_graph import synthetic_bodyfat
from baygo_graph.reproduce import (
    CLAIM_KEYS,
    FIGURES,
    GALLERY,
    STRATEGIES,
    evaluate_claims,
    reproduce,
)


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
