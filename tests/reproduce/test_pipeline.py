"""reproduce.pipeline: every promised file written, verdicts computed from the numbers."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from baygo_graph import synthetic_bodyfat
from baygo_graph.analysis import Comparison
from baygo_graph.io.results import load_results
from baygo_graph.reproduce import (
    CLAIM_KEYS,
    DEFAULT_REGIME,
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
        horizons=(5, 8),
        regimes=[DEFAULT_REGIME | {"grid": 11}, DEFAULT_REGIME | {"grid": 11, "delta": 0.3}],
        regime_seeds=2,
        regime_max_seeds=4,
        save_runs=True,
    )
    return out, result


def test_reproduce_writes_every_promised_file(small_reproduction):
    out, result = small_reproduction
    res = out / "results"
    for name in FIGURES:
        for ext in ("png", "pdf"):
            assert (res / "figures" / f"{name}.{ext}").stat().st_size > 1000
    assert sorted(p.stem for p in (out / "gallery").iterdir()) == sorted(GALLERY)
    horizon = pd.read_csv(res / "horizon.csv")
    assert horizon["steps"].tolist() == [5, 8, 5, 8]
    assert {"b_aligned", "b_sliding", "listening_share", "influence_rank"} <= set(horizon)
    theorem = pd.read_csv(res / "theorem.csv")
    assert len(theorem) == 2 and theorem["holds_kl"].between(0, 1).all()
    regimes = pd.read_csv(res / "regimes.csv")
    assert regimes["regime"].unique().tolist() == ["b1 d0.5 g11 s1", "b1 d0.3 g11 s1"]
    assert regimes.groupby("regime").size().tolist() == [len(CLAIM_KEYS)] * 2
    with Image.open(res / "animation" / "baygo_seed0.gif") as im:
        assert im.n_frames == 5
    assert not (res / "results.csv").exists()
    df = pd.read_parquet(res / "results.parquet")  # plain pandas reads it
    assert len(df) == len(STRATEGIES) * 2 * 5 * 12
    assert list(df.columns) == ["strategy", "seed", "step", "agent", "informative", "mse",
                                "influence", "data", "synthetic"]  # fmt: skip
    assert str(df["strategy"].dtype) == "category" and df["step"].dtype == np.int32
    assert df["synthetic"].all() and df["data"].astype(str).str.startswith("synthetic").all()
    assert result.files["results"] == res / "results.parquet"
    assert load_results(res / "results.parquet", columns=["mse"]).attrs["synthetic"] is True
    for name in ("smallest_b", "horizon", "theorem"):  # every table says its data
        table = pd.read_csv(res / f"{name}.csv")
        assert table["synthetic"].all() and table["data"].str.startswith("synthetic").all()
    summary = json.loads((res / "summary.json").read_text())
    assert [c["key"] for c in summary["claims"]] == list(CLAIM_KEYS)
    assert len(summary["horizon"]) == 4 and len(summary["theorem"]) == 2
    assert summary["config"]["synthetic"] is True
    # said at the top too, as every output says it (not only inside the config)
    assert summary["synthetic"] is True and summary["data"].startswith("synthetic")
    assert summary["note"].startswith("NOTE: SYNTHETIC DATA")
    assert list(summary)[:3] == ["data", "synthetic", "note"]
    assert {r["strategy"] for r in summary["summary"]} == set(STRATEGIES)
    # --save-runs: every run of the comparison, readable by the multi-run analysis
    from baygo_graph.analysis import analysis_table
    from baygo_graph.io.runs import find_runs
    from baygo_graph.run import load_runs

    found = find_runs(res)
    assert len(found) == len(STRATEGIES) * 2
    baygo = [r for r in load_runs(found).values() if r.strategy == "baygo"]
    table = analysis_table(baygo, window=3)
    assert len(table) == 2
    assert "| baygo |" in (res / "summary.md").read_text()
    assert set(pd.read_csv(res / "smallest_b.csv")["windows"]) == {"aligned", "sliding"}
    assert result.files["report"] == res / "report.md"


def test_report_names_each_claim_with_its_computed_verdict(small_reproduction):
    out, result = small_reproduction
    report = (out / "results" / "report.md").read_text()
    assert "SYNTHETIC DATA" in report.splitlines()[2]
    for claim in result.claims:
        if "not_tested" in claim.values:  # a span longer than the run's 5 steps: said so
            assert claim.verdict == "not evaluated" and claim.key in (
                "paper_complete_worsens_early", "consensus_beliefs", "consensus_abs_0.01",
                "consensus_abs_0.02", "consensus_rel_5pct")  # fmt: skip
            continue
        assert re.fullmatch(
            r"holds|does not hold|violated where informative|vacuous|cannot tell at \d+ seeds",
            claim.verdict,
        )
        row = next(line for line in report.splitlines() if line.startswith(f"| {claim.key} |"))
        assert f"**{claim.verdict}**" in row
    for name in FIGURES:
        assert f"](figures/{name}.png)" in report
    for heading in ("## The strategies", "## The paper's bound, checked", "## The horizon",
                    "## Where each claim holds"):  # fmt: skip
        assert heading in report
    assert "- **cen-stratified**:" in report
    assert "- `results.parquet`: one row per strategy, seed, step and agent, exact" in report
    # The verdicts and numbers are those of evaluate_claims on the written table (exact).
    back = Comparison.read_parquet(out / "results" / "results.parquet")
    b = pd.read_csv(out / "results" / "smallest_b.csv")
    again = evaluate_claims(back, smallest_b=b)
    # the theorem's claims and the belief reading of consensus need the runs
    keep = [i for i, c in enumerate(again)
            if not c.key.startswith("theorem_") and c.key != "consensus_beliefs"]  # fmt: skip
    assert [again[i].verdict for i in keep] == [result.claims[i].verdict for i in keep]
    belief = result.claims[CLAIM_KEYS.index("consensus_beliefs")]  # read from the runs
    assert belief.values["reading"] == "beliefs" and "median_step" in belief.values
    for mine, theirs in zip([again[i] for i in keep], [result.claims[i] for i in keep],
                            strict=True):  # fmt: skip
        for k, v in theirs.values.items():
            if isinstance(v, float):  # bit for bit: Parquet keeps float64
                assert mine.values[k] == pytest.approx(v, rel=0, abs=0, nan_ok=True), k


def test_a_results_format_that_is_not_known_is_refused_first(tmp_path):
    with pytest.raises(ValueError, match="results_format must be one of .*'feather'"):
        reproduce(tmp_path / "out", seeds=2, steps=3, results_format="feather")
    assert not (tmp_path / "out").exists()


def test_streamed_reproduction_equals_the_tidy_analysis(tmp_path, monkeypatch):
    """reproduce() works on per-run arrays; the tidy table it writes gives the same numbers,
    and a run longer than ANIMATION_FRAMES is animated on evenly spaced steps."""
    from baygo_graph.analysis import summarize
    from baygo_graph.reproduce import drawing

    monkeypatch.setattr(drawing, "ANIMATION_FRAMES", 4)
    (tmp_path / "results.parquet").write_bytes(b"an earlier run's table")
    result = reproduce(tmp_path, seeds=3, steps=7, grid=11, n_jobs=1, agents=5, horizons=(7,),
                       data=synthetic_bodyfat(), video=False, results_format="csv")  # fmt: skip
    # not a table baygo wrote: left alone (ours would be replaced, see tests/io)
    assert (tmp_path / "results.parquet").read_bytes() == b"an earlier run's table"
    with Image.open(tmp_path / "animation" / "baygo_seed0.gif") as im:
        assert im.n_frames == 4
    assert "the animation shows 4 evenly spaced steps of 7" in result.notes
    assert not (tmp_path / "runs").exists()
    assert (tmp_path / "results.csv").read_text().startswith("# NOTE: SYNTHETIC DATA")
    df = pd.read_csv(tmp_path / "results.csv", comment="#")
    assert len(df) == len(STRATEGIES) * 3 * 7 * 5
    df.attrs = {"strategies": list(STRATEGIES)}
    pd.testing.assert_frame_equal(
        summarize(df.drop(columns=["data", "synthetic"])), result.summary, rtol=1e-5,
        check_dtype=False,
    )  # fmt: skip
    b = pd.read_csv(tmp_path / "smallest_b.csv")
    again = evaluate_claims(df, smallest_b=b)
    # the CSV keeps ~6 significant digits, so the numbers (not their 4-digit text) agree
    # (the theorem's claims and the belief reading need the runs, not the table)
    keep = [i for i, c in enumerate(again)
            if not c.key.startswith("theorem_") and c.key != "consensus_beliefs"]  # fmt: skip
    assert [again[i].verdict for i in keep] == [result.claims[i].verdict for i in keep]
    for i in keep:
        mine, theirs = again[i], result.claims[i]
        for k, v in theirs.values.items():
            if isinstance(v, float):
                assert mine.values[k] == pytest.approx(v, rel=1e-4, abs=1e-6, nan_ok=True), k


def test_summary_json_is_strict_and_says_inf_not_null(small_reproduction):
    out, result = small_reproduction
    text = (out / "results" / "summary.json").read_text()

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    payload = json.loads(text, parse_constant=refuse)
    claims = {c["key"]: c for c in payload["claims"]}
    # 2 seeds never bound a median at 95%: the interval's ends are infinite, said so
    assert claims["consensus_abs_0.01"]["values"]["median_hi"] == "inf"
    assert claims["consensus_abs_0.01"]["values"]["median_lo"] == "-inf"
    assert "inf" in payload["conventions"] and set(payload["contradicted"]) <= set(CLAIM_KEYS)
    assert claims["paper_outperforms_stars"]["values"]["source"] == "abstract and conclusion"


@pytest.mark.parametrize("seeds", [10**8, 10**23])
def test_too_many_seeds_are_refused_before_any_seed_is_drawn(tmp_path, seeds):
    # hostile14 S10 / hostile15 T7: 10^8 seeds climbed past the budget while their seeds
    # were spawned; 10^23 was an OverflowError traceback
    from baygo_graph.exceptions import BudgetError

    with pytest.raises(BudgetError, match=rf"keeping the results of 7 strategies x {seeds} "
                       r"seeds x 60 steps x 12 agents .*pass fewer --seeds or "
                       r"--steps"):  # fmt: skip
        reproduce(tmp_path / "r", seeds=seeds, data=synthetic_bodyfat(), progress=False)
    assert not (tmp_path / "r").exists()


def test_the_short_b_cell_says_what_summary_json_holds(small_reproduction):
    # hostile20 Y5 end to end: report.md's short b_connectivity cell and its long row say
    # the smallest B in the words summary.json's values call for (numbers or 'no seed has one')
    from baygo_graph._format import format_number
    from baygo_graph._render import NO_B

    out, _ = small_reproduction
    report = (out / "results" / "report.md").read_text().splitlines()
    values = next(c["values"] for c in json.loads((out / "results" / "summary.json").read_text())
                  ["claims"] if c["key"] == "b_connectivity")  # fmt: skip
    short, long = [line for line in report if line.startswith("| b_connectivity |")][:2]
    a, f = values["aligned"], format_number
    none = a["median"] is None
    words = NO_B if none else f"median {f(a['median'])}, max {f(a['max'])}"
    assert f"| aligned B: {words} (limit {values['b_max']})" in short
    assert "aligned: smallest B: " + (NO_B if none else f"min {f(a['min'])}") in long
    assert "n/a" not in short.split("|")[5]


@pytest.mark.parametrize(
    ("horizons", "steps", "advice"),
    [((3, 10**8), 3, "these runs are as long as the longest --horizons: pass shorter "
      "--horizons or fewer --seeds"),
     (None, 3 * 10**7, "pass fewer --seeds or --steps")],
)  # fmt: skip
def test_the_budget_advice_names_what_sets_the_runs_length(tmp_path, horizons, steps, advice):
    # hostile21 Z10: --horizons 3,100000000 was refused with "pass fewer --seeds or
    # --steps", and --steps 2 gave the same refusal
    from baygo_graph.exceptions import BudgetError

    with pytest.raises(BudgetError) as e:
        reproduce(tmp_path / "r", seeds=1, steps=steps, agents=3, horizons=horizons,
                  data=synthetic_bodyfat())  # fmt: skip
    assert str(e.value).endswith(advice) and len(str(e.value)) < 300
    assert not (tmp_path / "r").exists()


def test_horizons_take_ascii_digits_only(tmp_path):
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    out = str(tmp_path / "x")  # never the working folder, should it run
    done = CliRunner().invoke(cli, ["reproduce", "--horizons", "\u0663,10", "--out", out])
    assert done.exit_code == 2 and "expected run lengths of 2 steps or more" in done.output
