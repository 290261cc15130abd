"""hostile round 14, S4 (the writers' side): a refusal naming a long path cut through its
own words ("is the inp... (67 more characters) ...ddd of this command"): every path in
an output's or a results file's message is shortened on its own, in its middle, the file
name and the reason kept whole."""

from __future__ import annotations

import pytest

from baygo_graph.cli import main

DEEP = "/".join(["project_" + "d" * 40] * 3)  # 146 characters, as a real project's path


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["view", "IN", "--out", "PAGE"], "v.html: exists (pass --force to replace it)"),
        (["view", "IN", "--out", "IN"], "of this command; write the output elsewhere"),
        (["analyze", "IN", "--out", "IN"], "c.csv: is a file, not a folder"),
        (["compare", "--data", "BAD", "--csv", "--steps", "2"], "r.parquet"),
    ],
)
def test_a_long_path_never_cuts_the_reason(tmp_path, capsys, args, words):
    folder = tmp_path / DEEP
    folder.mkdir(parents=True)
    (folder / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    (folder / "v.html").write_text("mine")
    (folder / "r.parquet").write_bytes(b"garbage")
    names = {"IN": folder / "c.csv", "PAGE": folder / "v.html", "BAD": folder / "r.parquet"}
    code = main([str(names.get(a, a)) for a in args])
    err = capsys.readouterr().err
    assert code in (1, 2) and err.count("\n") == 1, err
    assert len(err) <= 301 and words in err and "more characters" not in err, err
    assert (folder / "v.html").read_text() == "mine"


def test_a_results_file_refusal_keeps_its_name_and_reason(tmp_path):
    from baygo_graph.exceptions import DataError
    from baygo_graph.io.results import load_results

    bad = tmp_path / DEEP / "results.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"garbage")
    with pytest.raises(DataError) as e:
        load_results(bad)
    text = str(e.value)
    assert text.startswith("'") and "/results.parquet' is not a Parquet file" in text
    assert len(text) <= 240, text  # the path at most 120 characters, the reason whole


def test_a_sweep_too_big_for_the_budget_is_refused_before_its_task_list(tmp_path,
                                                                        monkeypatch):  # fmt: skip
    """--seeds 10^8 built 2 x 10^8 task dicts (15-27 MB a second past the budget, no line;
    hostile round 14, S10): counted first, refused in one line naming the count."""
    import importlib

    from baygo_graph.exceptions import BudgetError
    from baygo_graph.experiments import sweep

    module = importlib.import_module("baygo_graph.experiments.sweep")
    made = []
    monkeypatch.setattr(module, "_make_tasks", lambda *a, **k: made.append(1) or [])
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "400M")
    with pytest.raises(BudgetError, match=r"^a sweep of 200000000 tasks \(2 strategies x "
                       r"100000000 seeds\) needs about "):  # fmt: skip
        sweep({"agents": [3]}, strategies=["baygo", "complete"], seeds=10**8, steps=2,
              out=tmp_path / "sw", n_jobs=1, progress=False)  # fmt: skip
    assert made == [] and not (tmp_path / "sw").exists()
