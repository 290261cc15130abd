"""A user's own file in an output folder, under a name a command writes: every command
that writes a folder refuses it in one line naming it and saying --force, replaces it
with --force, and replaces without --force only what baygo wrote there (one rule:
``baygo_graph.io.atomic.check_replace``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from shared import run_main

from baygo_graph.io.atomic import RECORD_NAME

EDGES = "source,target,time\nann,bob,0\nbob,cy,0\ncy,ann,1\nann,cy,2\nbob,ann,2\n"
SMALL = ["--agents", 3, "--grid", 9]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two saved runs (for `analyze RUN RUN --out`)."""
    folder = tmp_path_factory.mktemp("runs")
    for seed in (0, 1):
        argv = ["run", "--steps", 4, *SMALL, "--seed", seed, "--out", folder / f"b{seed}"]
        assert run_main(argv) == 0
    return folder


def _commands(tmp_path, runs):
    """(argv writing into ``out``, a file name it writes there) per command."""
    edges = tmp_path / "contacts.csv"
    edges.write_text(EDGES)
    compare = ["compare", "--seeds", 2, "--steps", 3, *SMALL, "--jobs", 1,
               "--strategies", "baygo,complete"]  # fmt: skip
    return {
        "compare": ([*compare, "--out"], "summary.md"),
        "compare-csv": ([*compare, "--csv", "--out"], "results.csv"),
        "analyze": (["analyze", runs / "b0", runs / "b1", "--window", 2, "--out"], "table.csv"),
        "plot": (["plot", edges, "--window", 2, "--out"], "graph_union.png"),
        "sweep": (
            ["sweep", "--param", "delta=0.5", "--seeds", 1, "--steps", 2, "--jobs", 1, "--out"],
            "results.parquet",
        ),  # fmt: skip
        "run": (["run", "--steps", 2, *SMALL, "--out"], "run.npz"),
    }


@pytest.mark.parametrize("command", ["compare", "compare-csv", "analyze", "plot", "sweep", "run"])
def test_a_users_file_is_refused_then_replaced_with_force(tmp_path, runs, capsys, command):
    argv, name = _commands(tmp_path, runs)[command]
    out = tmp_path / "out"
    out.mkdir()
    mine = out / name
    mine.write_bytes(b"my own file, not baygo's")
    assert run_main([*argv, out]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("baygo: error: "), err
    assert str(mine) in err and "--force" in err and len(err) <= 320
    assert mine.read_bytes() == b"my own file, not baygo's"  # untouched
    assert run_main([*argv, out, "--force"]) == 0, capsys.readouterr().err
    assert mine.read_bytes() != b"my own file, not baygo's"
    record = json.loads((out / RECORD_NAME).read_text())["files"]
    assert name in record


@pytest.mark.parametrize("command", ["compare", "analyze", "plot"])
def test_baygo_replaces_its_own_files_but_not_once_edited(tmp_path, runs, capsys, command):
    argv, name = _commands(tmp_path, runs)[command]
    out = tmp_path / "out"
    assert run_main([*argv, out]) == 0
    first = (out / name).read_bytes()
    assert run_main([*argv, out]) == 0  # its own file: no --force needed
    assert (out / name).exists()
    (out / name).write_bytes(first + b"\nmy comment")  # the user edits it: theirs now
    capsys.readouterr()
    assert run_main([*argv, out]) == 1
    err = capsys.readouterr().err
    assert "changed since baygo wrote it (pass --force" in err and str(out / name) in err
    assert (out / name).read_bytes().endswith(b"my comment")


def test_a_users_file_of_another_name_is_never_touched(tmp_path, runs, capsys):
    argv, _ = _commands(tmp_path, runs)["compare-csv"]
    out = tmp_path / "out"
    out.mkdir()
    # a results.parquet baygo did not write: --csv would remove "our" other-format table
    (out / "results.parquet").write_bytes(b"PAR1 the user's own")
    assert run_main([*argv, out]) == 0
    assert (out / "results.parquet").read_bytes() == b"PAR1 the user's own"


def test_a_damaged_record_makes_nothing_replaceable(tmp_path, runs, capsys):
    argv, name = _commands(tmp_path, runs)["compare"]
    out = tmp_path / "out"
    assert run_main([*argv, out]) == 0
    (out / RECORD_NAME).write_text("{not json")
    assert run_main([*argv, out]) == 1  # the safe side: asks for --force
    assert "--force" in capsys.readouterr().err
    assert run_main([*argv, out, "--force"]) == 0
    assert name in json.loads((out / RECORD_NAME).read_text())["files"]


def test_reproduce_checks_its_files_before_the_work(tmp_path, capsys, monkeypatch):
    import baygo_graph.reproduce as reproduce

    def never(*args, **kwargs):
        raise AssertionError("the experiment ran before the output folder was checked")

    monkeypatch.setattr(reproduce, "reproduce", never)
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").write_text("my report")
    argv = ["reproduce", "--seeds", 2, "--steps", 3, "--agents", 3, "--grid", 5, "--out", out]
    assert run_main(argv) == 1
    err = capsys.readouterr().err
    assert str(out / "report.md") in err and "--force" in err
    assert (out / "report.md").read_text() == "my report"


def test_the_run_file_of_a_run_folder_given_is_an_input(runs, tmp_path, capsys):
    import shutil

    folder = tmp_path / "r0"
    shutil.copytree(runs / "b0", folder)
    before = (folder / "run.npz").read_bytes()
    for given in (folder, tmp_path / "link"):
        if given != folder:
            given.symlink_to(folder)
        assert run_main(["view", given, "--out", folder / "run.npz", "--force"]) == 1
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        assert f"is the input {given} (its run.npz)" in err
        assert (folder / "run.npz").read_bytes() == before


def test_the_output_folders_record_is_checked_before_the_work(tmp_path, capsys):
    compare = ["compare", "--seeds", 2, "--steps", 3, *SMALL, "--jobs", 1,
               "--strategies", "baygo,complete", "--out"]  # fmt: skip
    victim = tmp_path / "victim.json"
    victim.write_text("mine")
    for name, plant in (("link", lambda p: p.symlink_to(victim)), ("folder", Path.mkdir)):
        out = tmp_path / name
        out.mkdir()
        plant(out / RECORD_NAME)
        assert run_main([*compare, out]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"--out: {out / RECORD_NAME}: is" in err, err
        assert sorted(p.name for p in out.iterdir()) == [RECORD_NAME]  # nothing written
    assert victim.read_text() == "mine"


@pytest.mark.parametrize("name", ["x.png", "results.csv", "run.npz", ".hidden"])
def test_view_writes_only_html_names(tmp_path, capsys, name):
    (tmp_path / "c.csv").write_text(EDGES)
    assert run_main(["view", tmp_path / "c.csv", "--out", tmp_path / name, "--force"]) == 2
    err = capsys.readouterr().err
    assert "give a name ending in .html" in err and not (tmp_path / name).exists()


@pytest.mark.parametrize("spelling", ["same", "hard link", "symbolic link"])
def test_an_input_is_never_an_output_even_with_force(tmp_path, capsys, spelling):
    """`compare --data out/results.csv --csv --out out --force` read the data and wrote
    its results over them (hostile round 6): every path the command reads is
    protected, whatever its spelling."""
    out = tmp_path / "out"
    out.mkdir()
    target = out / "results.csv"
    rng = np.random.default_rng(0)
    abdomen = rng.uniform(70, 120, 80)
    rows = [f"{a:.1f},{0.6 * a - 35 + rng.normal(0, 4):.1f}" for a in abdomen]
    target.write_text("Abdomen,BodyFat\n" + "\n".join(rows) + "\n")
    before = target.read_bytes()
    given = {
        "same": target,
        "hard link": tmp_path / "hard.csv",
        "symbolic link": tmp_path / "s.csv",
    }
    if spelling == "hard link":
        given[spelling].hardlink_to(target)
    elif spelling == "symbolic link":
        given[spelling].symlink_to(target)
    argv = ["compare", "--seeds", 1, "--steps", 3, "--agents", 3, "--grid", 9, "--jobs", 1,
            "--strategies", "baygo,nocol", "--data", given[spelling], "--csv", "--out", out,
            "--force"]  # fmt: skip
    assert run_main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"baygo: error: --out: {target}: is the input ") and "\n" not in err
    assert target.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["results.csv"]  # nothing else written


@pytest.mark.parametrize("kind", ["user file", "link", "empty"])
def test_a_file_at_the_lock_name_is_left_alone(tmp_path, runs, capsys, kind):
    """A user's `.baygo.lock` was taken as the lock and deleted; a link there gave the
    OS's words (hostile round 6, G6). baygo's own lock file is empty: an empty file
    there is a stale lock and is used."""
    out = tmp_path / "figs"
    out.mkdir()
    lock = out / ".baygo.lock"
    victim = tmp_path / "victim.txt"
    victim.write_text("my notes")
    if kind == "user file":
        lock.write_text("user lock file")
    elif kind == "link":
        lock.symlink_to(victim)
    else:
        lock.touch()
    code = run_main(["plot", runs / "b0", "--out", out])
    err = capsys.readouterr().err.strip()
    if kind == "empty":
        assert code == 0 and not lock.exists()
        return
    assert code == 1 and err.startswith(f"baygo: error: --out: {lock}: ") and "\n" not in err
    assert ("symbolic link" in err) == (kind == "link")
    assert victim.read_text() == "my notes"
    assert lock.is_symlink() if kind == "link" else lock.read_text() == "user lock file"
    assert sorted(p.name for p in out.iterdir()) == [".baygo.lock"]


@pytest.mark.parametrize("named", [False, True])
def test_run_never_saves_over_its_data(tmp_path, capsys, named):
    """`run --data rd/run.npz --out rd --force` said 'a run is already saved there (pass
    --force ...)' though --force was given, after the work (hostile round 6, G3)."""
    rng = np.random.default_rng(0)
    rows = [f"{a:.1f},{0.6 * a - 35 + rng.normal(0, 4):.1f}" for a in rng.uniform(70, 120, 60)]
    data = tmp_path / ("d.npz" if named else "rd/run.npz")
    data.parent.mkdir(exist_ok=True)
    data.write_text("Abdomen,BodyFat\n" + "\n".join(rows) + "\n")
    before = data.read_bytes()
    out = data if named else data.parent
    argv = ["run", "--agents", 3, "--steps", 2, "--grid", 9, "--data", data, "--out", out]
    assert run_main([*argv, "--force"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"baygo: error: --out: {data}: is the input {data} of this command; " + (
        "write the output elsewhere"
    )
    assert data.read_bytes() == before
    own = tmp_path / "own.npz"  # its own earlier output is no input: replaced with --force
    assert run_main(["run", "--agents", 3, "--steps", 2, "--grid", 9, "--out", own]) == 0
    assert run_main(["run", "--agents", 3, "--steps", 2, "--grid", 9, "--out", own, "--force"]) == 0


@pytest.mark.parametrize("kind", ["deep", "huge"])
def test_a_damaged_record_lists_nothing_and_is_rewritten(tmp_path, monkeypatch, kind):
    """A record nested 100,000 deep raised RecursionError after the work, with a file
    written and unsaid; an oversized one was read whole (hostile round 8, L2, L3): both
    are damaged records now, which list nothing, and the next write rewrites them."""
    from baygo_graph.io import atomic

    record = tmp_path / RECORD_NAME
    if kind == "deep":
        record.write_text("[" * 100_000 + "]" * 100_000)
    else:
        monkeypatch.setattr(atomic, "RECORD_MAX_BYTES", 1000)
        record.write_text(json.dumps({"files": {"a.txt": "0" * 2000}}))
    assert atomic._read_record(tmp_path) == {}
    with atomic.output_record(tmp_path):
        atomic.atomic_write(tmp_path / "b.txt", lambda fh: fh.write(b"x"))
    assert list(json.loads(record.read_text())["files"]) == ["b.txt"]


def test_a_control_character_in_an_output_path_is_escaped_in_its_wrote_line(tmp_path, runs, capsys):
    """`--out $'nl\\nname'` printed `wrote nl` and `name/report.txt` on two lines
    (hostile round 8, L13): each file's line is one line naming it exactly."""
    out = tmp_path / "nl\nname"
    assert run_main(["analyze", runs / "b0", "--out", out]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "report." in line]
    assert said == [f"wrote {tmp_path}/nl\\nname/report.txt",
                    f"wrote {tmp_path}/nl\\nname/report.json"]  # fmt: skip
    assert (out / "report.txt").is_file()
