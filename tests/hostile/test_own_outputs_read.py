"""newcomer8 17a-c: baygo's own outputs handed to a reading command (the results folder,
results.parquet, summary.json...) were refused with no pointer, and the results table
was told to name edge-list columns; a file with no suffix got no advice. Each now says
what it is and what reads it, in one line, for every file baygo writes that no command
reads, through every reading command."""

from __future__ import annotations

import pytest
from shared import run_main

import baygo_graph as bg
from baygo_graph.io.runs import find_runs

SMALL = ["--agents", 3, "--grid", 9, "--steps", 3]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A comparison (Parquet and CSV), a run, its analysis and a two-run analysis."""
    d = tmp_path_factory.mktemp("own")
    compare = ["compare", "--seeds", 2, *SMALL, "--jobs", 1, "--strategies", "baygo,complete"]
    assert run_main([*compare, "--out", d / "C"]) == 0
    assert run_main([*compare, "--csv", "--out", d / "V"]) == 0
    for k in (0, 1):
        assert run_main(["run", *SMALL, "--seed", k, "--out", d / f"R{k}"]) == 0
    assert run_main(["analyze", d / "R0", "--out", d / "A"]) == 0
    assert run_main(["analyze", d / "R0", d / "R1", "--out", d / "M"]) == 0
    return d


FILES = {
    "C/results.parquet": "results table of a comparison",
    "V/results.csv": "results table of a comparison",
    "C/summary.json": "a report baygo wrote",
    "C/summary.md": "a report baygo wrote",
    "A/report.json": "a report baygo wrote",
    "A/report.txt": "a report baygo wrote",
    "M/table.csv": "a report baygo wrote",
    "M/summary.csv": "a report baygo wrote",
    "C": "it holds baygo's outputs (results.parquet, summary.json, summary.md), not runs",
    "A": "it holds baygo's outputs (report.json, report.txt), not runs",
}


@pytest.mark.parametrize("command", ["analyze", "plot", "view"])
@pytest.mark.parametrize("name", list(FILES))
def test_baygos_own_outputs_say_what_they_are(outputs, tmp_path, capsys, command, name):
    out = tmp_path / ("o.html" if command == "view" else "o")
    assert run_main([command, outputs / name, "--out", out]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and len(err) <= 300, err
    assert FILES[name] in err, err
    assert "--source" not in err  # never the edge-list columns' advice


def test_a_file_of_that_name_baygo_did_not_write_is_read_as_its_kind(outputs, tmp_path, capsys):
    """The name alone decides nothing: a user's own table.csv is an edge list."""
    path = tmp_path / "table.csv"
    path.write_text("source,target,time\na,b,0\nb,a,1\n")
    assert run_main(["analyze", path, "--out", tmp_path / "o"]) == 0


def test_a_file_with_no_suffix_is_told_how_to_name_its_kind(tmp_path, capsys):
    path = tmp_path / "contacts"
    path.write_text("1 2 100\n2 3 100\n3 1 101\n")
    assert run_main(["analyze", path]) == 1
    err = capsys.readouterr().err
    assert "has no suffix naming its kind: rename it (NAME.txt for SNAP rows" in err, err
    assert run_main(["analyze", path, "--columns", "source,target,time"]) == 0


@pytest.mark.parametrize("command", ["plot", "view", "animate"])
@pytest.mark.parametrize("given", ["S", "S/runs"])
def test_a_folder_of_saved_runs_names_them_to_the_one_run_commands(
    tmp_path, capsys, command, given
):
    """hostile19 X4: `view C/runs` said only "no saved run at 'C/runs/run.npz'" though
    `analyze C/runs` reads the runs inside; the refusal now names them."""
    runs = tmp_path / "S" / "runs"
    compare = ["compare", "--seeds", 2, *SMALL, "--jobs", 1, "--strategies", "baygo"]
    assert run_main([*compare, "--out", tmp_path / "S", "--save-runs", runs]) == 0
    capsys.readouterr()
    out = ["--out", tmp_path / ("o.html" if command == "view" else "o")]
    assert run_main([command, tmp_path / given, *(out if command != "animate" else [])]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and len(err) <= 300, err
    assert "the folder holds 2 saved runs in its sub-folders" in err, err
    assert "baygo-seed0" in err and "baygo analyze" in err, err


def test_a_deep_tree_or_a_folder_named_like_a_run_is_said_in_one_line(tmp_path, capsys):
    """hostile20 Y1, Y2: a tree too deep for Python's walk (about 950 levels) ended in
    'maximum recursion depth exceeded'; a folder named run.npz was counted as a run. The
    walk keeps its own stack now: a run 1,200 levels down is found."""
    (tmp_path / "odd" / "sub" / "run.npz").mkdir(parents=True)
    assert run_main(["view", tmp_path / "odd", "--out", tmp_path / "o.html"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("baygo: error: no saved run at") and "holds" not in err, err
    deep = tmp_path / "deep"
    bottom = deep
    for _ in range(1200):  # Path.mkdir(parents=True) itself recurses
        bottom = bottom / "d"
        bottom.mkdir(parents=True)
    try:
        assert run_main(["view", deep, "--out", tmp_path / "o.html"]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "recursion" not in err, err
        assert err.startswith("baygo: error: no saved run at"), err
        assert run_main(["analyze", deep, "--out", tmp_path / "a"]) == 1
        err = capsys.readouterr().err.strip()
        assert "no saved run in" in err and "or its sub-folders" in err, err
        bg.Run.from_choices([[1, 0], [1, 0]]).save(bottom)
        assert [p.parent for p in find_runs(deep)] == [bottom]
    finally:  # pytest's clean-up of old tmp folders (shutil.rmtree) recurses: removed here
        while bottom != tmp_path:
            for f in bottom.iterdir():
                f.unlink()
            bottom.rmdir()
            bottom = bottom.parent


@pytest.mark.parametrize("runs", [0, 2])
def test_sub_folders_that_cannot_be_read_are_said(tmp_path, capsys, monkeypatch, runs):
    """hostile20 (nit): unreadable sub-folders were skipped without a word by the hint of
    plot/view/animate and by analyze ("no saved run in 'UNR3' or its sub-folders" where
    one sat in the unreadable folder)."""
    import os

    top = tmp_path / "top"
    for k in range(runs):  # two different runs (copies are refused)
        bg.Run.from_choices([[1, 0], [1, -k]]).save(top / f"r{k}")
    for name in ("locked1", "locked2"):
        (top / name).mkdir(parents=True)
    scandir = os.scandir

    def refusing(path):
        if os.path.basename(path).startswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    assert run_main(["plot", top, "--out", tmp_path / "p"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "2 sub-folders could not be read" in err, err
    if runs:
        assert "holds 2 saved runs in its sub-folders (r0, r1; 2 sub-folders could" in err
        assert run_main(["analyze", top, "--out", tmp_path / "a"]) == 0
        err = capsys.readouterr().err
        assert "baygo: note: 2 sub-folders could not be read below" in err, err
    else:
        assert run_main(["analyze", top, "--out", tmp_path / "a"]) == 1
        err = capsys.readouterr().err.strip()
        assert "or its sub-folders (2 sub-folders could not be read)" in err, err


def test_every_function_the_advice_names_exists():
    """newcomer10 7d: the advice for baygo's own results table named
    baygo_graph.load_results, which does not exist (AttributeError when followed)."""
    import importlib
    import re

    from baygo_graph.io import filekind

    text = open(filekind.__file__, encoding="utf-8").read()
    text = text.replace("{kind}", "parquet") + text.replace("{kind}", "csv")
    named = set(re.findall(r"\bbaygo_graph(?:\.\w+)+", text))
    assert "baygo_graph.io.results.load_results" in named
    for dotted in named:  # as pasted after `import baygo_graph` (hostile23 R6: the
        obj = importlib.import_module("baygo_graph")  # submodule was not imported)
        for attr in dotted.split(".")[1:]:
            obj = getattr(obj, attr)  # AttributeError: the advice names nothing
