"""reproduce.report and the shared formatting: Markdown tables, numbers, JSON cleaning."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from baygo_graph import _format
from baygo_graph.reproduce import markdown_table
from baygo_graph.reproduce.claims import Claim
from baygo_graph.reproduce.report import claims_table, summary_markdown


def test_markdown_table_escapes_and_formats():
    text = markdown_table(pd.DataFrame({"a|b": [1.0, np.nan], "c": ["x|y", 2]}))
    lines = text.splitlines()
    assert lines[0] == "|  | a\\|b | c |" and lines[1] == "| --- | --- | --- |"
    assert lines[2] == "| 0 | 1 | x\\|y |" and lines[3] == "| 1 | n/a | 2 |"


def test_markdown_table_is_the_shared_one():
    assert markdown_table is _format.markdown_table


@pytest.mark.parametrize(
    ("value", "spec", "missing", "text"),
    [
        (1.23456, ".4g", "n/a", "1.235"),
        (np.float32(0.5), ".2f", "-", "0.50"),
        (np.int64(12), ".4g", "n/a", "12"),
        (7, ".1f", "-", "7"),
        (float("nan"), ".4g", "n/a", "n/a"),
        (float("-inf"), ".3f", "-", "-"),
        (None, ".3f", "n/a", "n/a"),
        (np.float64(1e-7), ".4g", "n/a", "1e-07"),
    ],
)
def test_format_number(value, spec, missing, text):
    assert _format.format_number(value, spec, missing=missing) == text


def test_json_cleaning_gives_standard_json():
    payload = {"a": [np.float64(np.nan), 1.5, np.inf], 3: {"b": np.float32(0.25)}, "n": np.int64(2)}
    text = json.dumps(_format.json_clean(payload), default=_format.json_default)
    # NaN (undefined) is null; an infinity is "inf", never null (which reads as missing)
    assert json.loads(text) == {"a": [None, 1.5, "inf"], "3": {"b": 0.25}, "n": 2}
    assert "NaN" not in text and "Infinity" not in text
    assert _format.json_number(np.float64(2.0), integer=True) == 2
    assert _format.json_number(float("nan")) is None
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        _format.json_default(object())


def test_summary_and_claims_tables():
    idx = pd.Index(["baygo", "cen"], name="strategy")
    summary = pd.DataFrame(
        {
            "final_mse_informative": [1.0, 2.0], "final_mse_informative_lo": [0.5, np.nan],
            "final_mse_informative_hi": [1.5, np.nan], "final_mse_others": [3.0, 4.0],
            "final_mse_others_lo": [2.0, 3.0], "final_mse_others_hi": [4.0, 5.0],
            "steps_to_cen": [np.inf, 0.0], "consensus_step": [4.0, 0.0],
            "consensus_reached": [0.5, 1.0], "influence_informative": [0.25, np.nan],
        },
        index=idx,
    )  # fmt: skip
    lines = summary_markdown(summary).splitlines()
    assert lines[2].startswith("| baygo | 1 [0.5, 1.5] | 3 [2, 4] | never | 4 | 50% | 0.25 |")
    assert lines[3].startswith("| cen | 2 [n/a, n/a] | 4 [3, 5] | 0 | 0 | 100% | n/a |")
    claims = [Claim("k", "a | b", "t", None, "e"), Claim("m", "c", "t", False, "f", note="n | o")]
    lines = claims_table(claims).splitlines()
    assert lines[0] == "| key | claim | result | evidence | reading the other way |"
    assert lines[2] == "| k | a \\| b | **not evaluated** | e |  |"
    assert lines[3] == "| m | c | **does not hold** | f | n \\| o |"


def test_tails_are_counted_only_for_seeds_that_have_a_b():
    # seed 0: B = 7 with a tail of 3 steps, not connected; seed 1: no B (no tail at all;
    # tables of earlier versions gave it the whole run as "tail": never counted); seed 2:
    # B = 5, no tail. One unconnected tail, in one seed. Sliding windows: no tail.
    from baygo_graph.reproduce.claims import _b_evidence
    from baygo_graph.reproduce.report import _smallest_b_table

    rows = [
        ("aligned", 7.0, 3, 0.0),
        ("aligned", np.nan, 24, 0.0),
        ("aligned", 5.0, 0, np.nan),
        ("sliding", 6.0, np.nan, np.nan),
        ("sliding", np.nan, np.nan, np.nan),
        ("sliding", 4.0, np.nan, np.nan),
    ]
    b = pd.DataFrame(rows, columns=["windows", "smallest_b", "tail_length", "tail_connected"])
    table = _smallest_b_table(b)
    assert table.loc["aligned", "with a tail"] == 1
    assert table.loc["aligned", "tail not connected"] == 1
    assert table.loc["sliding", "with a tail"] == 0
    assert table.loc["sliding", "tail not connected"] == 0
    _, values, _ = _b_evidence(b, 6)
    assert values["aligned"]["with_tail"] == 1
    assert values["aligned"]["tail_not_connected"] == 1
    assert values["sliding"]["tail_not_connected"] == 0


@pytest.mark.parametrize(
    ("median", "lo", "hi", "expected"),
    [
        (2.0, -np.inf, np.inf, "median step 2 [no bound, no bound], limit 25"),
        (np.inf, 3.0, np.inf, "median step never [3, no bound], limit 25"),
        (np.nan, np.nan, np.nan, "median step n/a [n/a, n/a], limit 25"),
        (4.0, 3.0, 6.5, "median step 4 [3, 6.5], limit 25"),
    ],
)
def test_the_short_claims_column_says_steps_in_the_words_of_every_teller(median, lo, hi, expected):
    # hostile18 W1's last teller: the 'effect [interval]' column said '[n/a, n/a]' for an
    # interval with no bound, where the long table said '[no bound, no bound]'
    from baygo_graph.reproduce.report import _effect

    values = {"median_step": median, "median_lo": lo, "median_hi": hi, "limit": 25}
    assert _effect(Claim("consensus_rel_5pct", "c", "t", None, "e", values=values)) == expected


_B_CASES = {  # aligned B per seed (NaN: no B), tail length, tail connected; sliding: no tail
    "every seed has one": ([4.0, 6.0, 5.0], [0, 2, 0], [np.nan, 0.0, np.nan]),
    "some seeds have one": ([4.0, np.nan, 7.0], [0, np.nan, 3], [np.nan, np.nan, 1.0]),
    "no seed has one": ([np.nan, np.nan, np.nan], [np.nan] * 3, [np.nan] * 3),
}


@pytest.mark.parametrize("case", list(_B_CASES))
def test_every_b_teller_says_the_smallest_b_in_the_same_words(case):
    # hostile20 Y5: the short column said 'aligned B median n/a, max n/a' where the long
    # table and summary.json said 'no seed has one'. Every teller of the smallest B over
    # seeds (the short column, the long evidence, the report's B and horizon tables) says
    # what summary.json's values hold: the numbers, or 'no seed has one', never n/a.
    from types import SimpleNamespace

    from baygo_graph._render import NO_B
    from baygo_graph.reproduce.claims import _b_evidence
    from baygo_graph.reproduce.report import _effect, _horizon_section, _smallest_b_table

    b, tail, connected = _B_CASES[case]
    table = pd.DataFrame({"windows": ["aligned"] * 3 + ["sliding"] * 3, "smallest_b": b + b,
                          "tail_length": tail + [np.nan] * 3,
                          "tail_connected": connected + [np.nan] * 3,
                          "windows_checked": [2.0] * 6})  # fmt: skip
    evidence, values, holds = _b_evidence(table, 3)
    values = json.loads(json.dumps(_format.json_clean(values)))  # as summary.json holds them
    short = _effect(Claim("b_connectivity", "c", "t", holds, evidence, values=values))
    found = [x for x in b if np.isfinite(x)]
    a = values["aligned"]
    assert a["none"] == 3 - len(found)
    b_table = _smallest_b_table(table)
    horizon = pd.DataFrame({"steps": 9, "b_aligned": b, "b_sliding": b, "listening_share": 0.5,
                            "influence": 0.3, "influence_rank": 1.0})  # fmt: skip
    lines = "\n".join(_horizon_section(SimpleNamespace(horizon=horizon))).splitlines()
    row = next(r for r in lines if r.startswith("| 9 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    if not found:
        assert a["median"] is None and a["max"] is None  # JSON null, said in words below
        assert short.startswith(f"aligned B: {NO_B} (limit 3)")
        for kind in ("aligned", "sliding"):
            assert f"{kind}: smallest B: {NO_B}; no B in 3/3 seeds" in evidence
            assert b_table.loc[kind, ["min", "median", "max"]].tolist() == [NO_B] * 3
        assert cells[1:4] == [NO_B] * 3 and cells[5:8] == [NO_B] * 3 and cells[9] == NO_B
    else:
        assert (a["min"], a["median"], a["max"]) == (min(found), np.median(found), max(found))
        f = _format.format_number
        assert short.startswith(f"aligned B: median {f(a['median'])}, max {f(a['max'])} (limit 3)")
        assert (f"aligned: smallest B: min {f(a['min'])}, median {f(a['median'])}, "
                f"max {f(a['max'])}; no B in {a['none']}/3 seeds") in evidence  # fmt: skip
        assert b_table.loc["aligned", "median"] == a["median"]
        assert cells[1] == f(a["median"])
        assert ("no B in 1/3 seeds" in short) is (a["none"] == 1)
        assert ("tail not connected in 1" in short) is (a["tail_not_connected"] == 1)
    assert "n/a" not in short and "n/a" not in evidence
    assert "n/a" not in markdown_table(b_table)
