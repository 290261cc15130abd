"""Every teller of a smallest B renders the same result object and tells the same B,
tail and reason per seed: ``smallest_b.csv``, ``summary.json``, report.md's B table,
the smallest-B figure's legend and ``baygo analyze`` (text and JSON)."""

from __future__ import annotations

import io
import json

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from shared import digraph

from baygo_graph._format import json_clean, json_default
from baygo_graph._render import b_counts, b_text
from baygo_graph._text import counted, csv_frame
from baygo_graph.analysis import analysis_report, smallest_b
from baygo_graph.cli.analyze import _text
from baygo_graph.figures import plot_smallest_b
from baygo_graph.reproduce.claims import coverage_row
from baygo_graph.reproduce.report import _smallest_b_table

M = 3
RING = digraph(M, [(0, 1), (1, 2), (2, 0)])
HALF_A, HALF_B = digraph(M, [(0, 1), (1, 2)]), digraph(M, [(2, 0)])
BROKEN = digraph(M, [(0, 1), (1, 0)])  # agent 2 hears no one and no one hears it
#: Three seeds of 9 steps: aligned B = 2 with a tail not connected; no B at all; B = 1
#: with no tail. Sliding windows never leave a tail.
SEEDS = {
    0: [HALF_A, HALF_B] * 4 + [BROKEN],
    1: [BROKEN] * 9,
    2: [RING] * 9,
}
KINDS = ("aligned", "sliding")


def _none(x) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x))


def test_every_teller_tells_the_same_b_tail_and_reason(tmp_path):
    covs = {(s, k): smallest_b(g, windows=k) for s, g in SEEDS.items() for k in KINDS}
    # the result objects themselves: the three cases are what they claim to be
    assert covs[0, "aligned"].B == 2 and covs[0, "aligned"].tail_length == 1
    assert covs[0, "aligned"].tail_connected is False
    assert covs[1, "aligned"].B is None and covs[1, "aligned"].tail_length is None
    assert covs[2, "aligned"].B == 1 and covs[2, "aligned"].tail_length == 0
    assert all(covs[s, "sliding"].tail_length is None for s in SEEDS)

    # the reproduction's table: smallest_b.csv and summary.json are written from it
    table = pd.DataFrame(
        [{"seed": s} | coverage_row(g, k) for s, g in SEEDS.items() for k in KINDS]
    )
    csv = pd.read_csv(io.StringIO(csv_frame(table).to_csv(index=False, float_format="%.6g")))
    records = json.loads(json.dumps(json_clean(table.to_dict(orient="records")),
                                    default=json_default))  # fmt: skip
    # baygo analyze of each seed (text and JSON render one AnalysisReport)
    reports = {s: analysis_report(g, window=2) for s, g in SEEDS.items()}
    texts = {s: "\n".join(_text(r, f"seed {s}")) for s, r in reports.items()}
    dicts = {
        s: json.loads(json.dumps(r.as_dict(), default=json_default)) for s, r in reports.items()
    }

    for n, (s, k) in enumerate((s, k) for s in SEEDS for k in KINDS):
        cov, reading = covs[s, k], b_text(covs[s, k])
        row, rec = csv.iloc[n], records[n]
        assert (row["seed"], row["windows"]) == (s, k) == (rec["seed"], rec["windows"])
        want_b, want_tail = cov.B, cov.tail_length
        # B: the same number, or "none" everywhere
        assert _none(row["smallest_b"]) == _none(rec["smallest_b"]) == (want_b is None)
        if want_b is not None:
            assert row["smallest_b"] == rec["smallest_b"] == want_b
        # tail: the same length, or no tail at all (no B; sliding windows)
        assert _none(row["tail_length"]) == _none(rec["tail_length"]) == (want_tail is None)
        if want_tail is not None:
            assert row["tail_length"] == rec["tail_length"] == want_tail
        assert _none(row["tail_connected"]) == (cov.tail_connected is None)
        # the reason (reading): the same words in the CSV, the JSON and the CLI text
        assert row["reading"] == rec["reading"] == reading
        assert f"{k}: {reading}" in texts[s]
        if want_b is None or k == "sliding" or not want_tail:
            assert "tail" not in reading
        js = dicts[s]["smallest_b_coverage"][k]
        assert (js["B"], js["tail_length"], js["tail_connected"]) == (
            want_b,
            want_tail,
            cov.tail_connected,
        )
        assert dicts[s]["smallest_b"][k] == want_b

    # report.md's B table and the figure's legend count the same seeds
    rep = _smallest_b_table(table)
    ax = plot_smallest_b(table, steps=9)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    for k in KINDS:
        rows = table[table["windows"] == k]
        counts = b_counts(rows)
        want = {
            "seeds": len(SEEDS),
            "no_B": sum(covs[s, k].B is None for s in SEEDS),
            "with_tail": sum(bool(covs[s, k].tail_length) for s in SEEDS),
            "tail_not_connected": sum(covs[s, k].tail_connected is False for s in SEEDS),
        }
        assert counts == want
        assert rep.loc[k, "seeds"] == want["seeds"] and rep.loc[k, "no_B"] == want["no_B"]
        assert rep.loc[k, "with a tail"] == want["with_tail"]
        assert rep.loc[k, "tail not connected"] == want["tail_not_connected"]
        label = next(t for t in legend if t.startswith(f"{k} ("))
        assert label.startswith(f"{k} ({len(SEEDS) - want['no_B']}/{len(SEEDS)} seeds)")
        if want["with_tail"]:
            assert (
                f"tail after [0, k*B) in {want['with_tail']}, not connected in "
                f"{want['tail_not_connected']}"
            ) in label
        else:
            assert "tail" not in label  # sliding windows: no tail is ever told
        assert f"{k}: no B ({counted(want['no_B'], 'seed')})" in legend
    # the case the issue found: aligned, one tail not connected, the no-B seed not counted
    assert (rep.loc["aligned", "with a tail"], rep.loc["sliding", "with a tail"]) == (1, 0)


def test_a_step_never_reached_is_never_in_every_teller(tmp_path, capsys):
    """One value, one word (hostile18 W1): a consensus step or steps-to-Cen no seed reaches
    within the run is ``inf`` in the summary object, "never" in the console table,
    summary.md and the claims' evidence, "inf" in summary.json (never null, which says
    undefined), and an interval side without a bound is "no bound"."""
    from baygo_graph.analysis import summarize
    from baygo_graph.cli import main
    from baygo_graph.experiments import compare
    from baygo_graph.models import LinearRegression
    from baygo_graph.reproduce.consensus import _median_claim
    from baygo_graph.reproduce.report import summary_markdown

    kw = {"seeds": 2, "steps": 3, "agents": 3, "model": LinearRegression(grid=9), "n_jobs": 1,
          "progress": False}  # fmt: skip
    s = summarize(compare(["nocol", "cen"], **kw))
    assert s.loc["nocol", "consensus_step"] == np.inf  # agents apart: never within 0.01
    assert s.loc["nocol", "steps_to_cen"] == np.inf
    md = summary_markdown(s)
    assert "| nocol |" in md and md.split("| nocol |")[1].split("\n")[0].count("never") == 2
    assert "consensus step (median; MSE spread <= 0.01)" in md  # the tolerance is named
    out = tmp_path / "C"
    args = ["compare", "--strategies", "nocol,cen", "--seeds", "2", "--steps", "3",
            "--agents", "3", "--grid", "9", "--jobs", "1"]  # fmt: skip
    assert main([*args, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("| nocol"))
    assert row.count("never") == 2, row
    assert row in (out / "summary.md").read_text()
    record = json.loads((out / "summary.json").read_text())
    assert record["summary"]["nocol"]["consensus_step"] == "inf"
    assert record["summary"]["nocol"]["steps_to_cen"] == "inf"
    assert "null: undefined (NaN)" in record["conventions"]
    claim = _median_claim("k", "c", "t", np.array([np.inf, np.inf, np.inf]), limit=5,
                          level=0.95, what="w", extra={}, run=10)  # fmt: skip
    assert "median consensus step never, 95% [no bound, no bound]" in claim.evidence
    assert json_clean(claim.values)["median_step"] == "inf"
    assert "n/a" not in claim.evidence


def test_the_multi_run_table_carries_what_each_aligned_b_leaves(tmp_path, capsys):
    """`baygo analyze RUNS` gave a plain smallest B (text, table.csv, summary.csv, --json,
    smallest_b.png) for runs whose own report reads "B-connected over [0, 6) with B = 3,
    tail of 2 steps not connected" (hostile18 W3): every teller now says the tail."""
    from matplotlib.image import imread

    from baygo_graph.analysis import analysis_table
    from baygo_graph.cli import main
    from baygo_graph.figures import plot_table_smallest_b
    from baygo_graph.run import load_runs

    runs = tmp_path / "runs"
    args = ["compare", "--seeds", "3", "--steps", "8", "--agents", "4", "--grid", "21",
            "--strategies", "baygo,complete", "--save-runs", str(runs), "--jobs", "1"]  # fmt: skip
    assert main(args) == 0
    table = analysis_table(load_runs([runs]), window=4)
    expected = []  # each run's own report, the one source
    for label in table["run"]:
        report = analysis_report(load_runs([runs / label])[label], window=4)
        cov = report.smallest_b["aligned"]
        expected.append((cov.tail_length or 0, cov.tail_connected))
    tails = list(zip(table["b_aligned_tail"].fillna(0), table["b_aligned_tail_connected"],
                     strict=True))  # fmt: skip
    assert [t for t, _ in tails] == [t for t, _ in expected]
    assert any(t > 0 and c == 0 for t, c in tails), tails  # the case W3 is about
    loose = sum(1 for t, c in tails if t > 0 and c == 0)
    out = tmp_path / "A"
    capsys.readouterr()
    assert main(["analyze", str(runs), "--window", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    cells = [line for line in text.splitlines() if line.startswith("| baygo-seed")]
    assert sum("not conn." in c for c in cells) == loose, cells
    saved = pd.read_csv(out / "table.csv")
    assert {"b_aligned_tail", "b_aligned_tail_connected"} <= set(saved.columns)
    summary = pd.read_csv(out / "summary.csv")
    row = summary[(summary["strategy"] == "baygo") & (summary["measure"] == "b_aligned")]
    assert int(row["tail_not_connected"].iloc[0]) == loose
    assert main(["analyze", str(runs), "--window", "4", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert {"b_aligned_tail", "b_aligned_tail_connected"} <= set(record["runs"][0])
    ax = plot_table_smallest_b(table, strategy="baygo")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(f"not connected in {loose}" in t for t in legend), legend
    assert ax.get_title().startswith("baygo: "), ax.get_title()
    plt.close(ax.figure)
    assert imread(out / "smallest_b.png").size


def test_an_undefined_summary_value_is_na_as_in_every_other_table(tmp_path, capsys):
    """The multi-run summary said "-" for a measure no run has, where compare, reproduce
    and the claims say "n/a" (JSON null): one word for undefined in every teller."""
    from baygo_graph.cli import main

    runs = tmp_path / "runs"
    args = ["compare", "--seeds", "2", "--steps", "4", "--agents", "3", "--grid", "9",
            "--strategies", "nocol", "--save-runs", str(runs), "--jobs", "1"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    assert main(["analyze", str(runs), "--window", "2"]) == 0
    text = capsys.readouterr().out
    rows = [[c.strip() for c in line.split("|")] for line in text.splitlines()]
    row = next(r for r in rows if r[1:3] == ["nocol", "b_aligned"])
    assert row[3] == "n/a", row  # no run has a B: no median
    assert "(n/a: no run with a value" in text
    assert main(["analyze", str(runs), "--window", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    b = next(r for r in record["summary"] if r["measure"] == "b_aligned")
    assert b["median"] is None and b["missing"] == 2
