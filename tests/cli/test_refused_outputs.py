"""An output refused before any work is one line in every command, with nothing before
it: the SYNTHETIC note goes with the work it qualifies (newcomer8 6c: `reproduce` printed
the note, then the refusal of the user's own summary.md, where README says one line)."""

from __future__ import annotations

import pytest

from baygo_graph.cli import main

SMALL = ["--steps", "2", "--agents", "3", "--grid", "5"]


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("run") / "r"
    assert main(["run", *SMALL, "--out", str(run)]) == 0
    return run


@pytest.mark.parametrize(
    ("args", "taken"),
    [
        (["run", *SMALL, "--out", "{d}"], "run.npz"),
        (["compare", *SMALL, "--seeds", "1", "--out", "{d}"], "summary.md"),
        (["sweep", "--steps", "2", "--seeds", "1", "--param", "agents=3", "--out", "{d}"],
         "results.parquet"),
        (["reproduce", "--steps", "2", "--seeds", "1", "--out", "{d}"], "summary.md"),
        (["plot", "{r}", "--out", "{d}"], "graph_union.png"),
        (["analyze", "{r}", "--out", "{d}"], "report.txt"),
        (["view", "{r}", "--out", "{d}/v.html"], "v.html"),
        (["animate", "{r}", "--out", "{d}/a.gif"], "a.gif"),
    ],
)  # fmt: skip
def test_a_refused_output_is_the_one_line(tmp_path, capsys, monkeypatch, saved_run, args,
                                          taken):  # fmt: skip
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)  # synthetic: the note is due
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / taken).write_text("mine")
    capsys.readouterr()
    code = main([a.format(d=folder, r=saved_run) for a in args])
    out, err = capsys.readouterr()
    assert code == 1 and out == "", out
    assert err.startswith("baygo: error: --out: ") and err.count("\n") == 1, err
    assert (folder / taken).read_text() == "mine"
