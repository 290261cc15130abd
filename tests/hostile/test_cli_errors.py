"""Class 3: no CLI command prints a traceback; errors are one line, ``baygo: error: ...``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest

import baygo_graph as bg
from baygo_graph.cli import main
from baygo_graph.cli._common import ensure_writable, output_folder
from baygo_graph.models import LinearRegression

# The child runs every case through baygo's entry point (one import for all cases)
# and reports exit code and stderr; an exception escaping main() is caught there
# and reported as a traceback.
CHILD = """
import contextlib, io, json, os, sys, traceback
from baygo_graph.cli import main
out = []
for argv, env in json.loads(sys.argv[1]):
    os.environ.update(env)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except BaseException:
            code, err = "escaped", io.StringIO(traceback.format_exc())
    for key in env:
        os.environ.pop(key)
    out.append({"argv": argv, "code": code, "err": err.getvalue()})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory, kit, small_run):
    d = tmp_path_factory.mktemp("bad")
    run = small_run
    good = run.save(d / "good")
    (d / "garbage.npz").write_bytes(b"PK\x03\x04 not really")
    (d / "half.npz").write_bytes(good.read_bytes()[:300])
    items = kit.members(good.read_bytes())
    items["choices.npy"] = kit.npy(run.choices + 7)
    (d / "range.npz").write_bytes(kit.make_zip(items))
    edges = [(0, 1, i, 1.0) for i in range(300)]
    (d / "bomb.graphml").write_text(kit.graphml(steps=10**6, edges=edges))
    (d / "dtd.graphml").write_text(kit.graphml(extra='<!DOCTYPE x [<!ENTITY a "b">]>'))
    (d / "neg.graphml").write_text(kit.graphml(steps=2, edges=[(0, 1, -1, 1.0)]))
    (d / "deep.json").write_text('{"format": "baygo-graph-series", "graphs": ' + "[" * 50_000)
    (d / "deeper.json").write_text("[" * 200_000 + "]" * 200_000)
    (d / "a_file").write_text("x")
    (d / "bad.csv").write_text("Abdomen,BodyFat\n80,10\n1e300,20\n" + "90,15\n" * 40)
    return d


def _cases(d):
    r = ["run", "--agents", "4", "--steps", "2", "--grid", "9", "--no-progress"]
    analyze = ["garbage.npz", "half.npz", "range.npz", "bomb.graphml", "dtd.graphml",
               "neg.graphml", "deep.json", "deeper.json", "nothing"]  # fmt: skip
    cases = [(["analyze", str(d / name)], {}) for name in analyze]
    cases += [
        (["run", "--agents", "100000000000"], {}),
        (["run", "--grid", "1000000"], {}),
        ([*r, "--out", str(d / "a_file" / "sub")], {}),
        ([*r, "--out", str(d / "good")], {}),  # exists, no --force
        ([*r, "--data", str(d / "bad.csv")], {}),
        (r, {"BAYGO_BODYFAT": str(d / "missing.csv")}),
        (r, {"BAYGO_MEMORY_LIMIT": "lots"}),
        (["plot", str(d / "range.npz")], {}),
        (["plot", str(d / "good"), "--out", str(d / "a_file")], {}),
        (["animate", str(d / "good"), "--steps", "99:100"], {}),
        (["compare", "--seeds", "2", "--steps", "2", "--out", str(d / "a_file")], {}),
        (["sweep", "--seeds", "1", "--steps", "2", "--out", str(d / "a_file" / "x")], {}),
    ]
    return cases


def test_no_command_prints_a_traceback(bad_inputs):
    cases = _cases(bad_inputs)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"BAYGO_DEBUG": "0"},
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(results) == len(cases)
    for r in results:
        print(r["argv"][:2], r["code"], r["err"].strip()[:150])
        assert r["code"] in (1, 2), r
        assert "Traceback" not in r["err"], r
        lines = r["err"].strip().splitlines()
        assert lines[-1].startswith("baygo: error:"), r
    # the folder of a refused --out under a file was not created, the run not replaced
    assert (bad_inputs / "good" / "run.npz").stat().st_size > 0
    assert not (bad_inputs / "a_file.d").exists()


def test_debug_shows_the_traceback(bad_inputs, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_DEBUG", raising=False)
    assert main(["--debug", "analyze", str(bad_inputs / "garbage.npz")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("baygo: error:")
    assert "BAYGO_DEBUG" not in os.environ  # --debug does not leak into the caller
    monkeypatch.setenv("BAYGO_DEBUG", "1")
    assert main(["run", "--grid", "1000000"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_ensure_writable(tmp_path):
    folder, created = ensure_writable(tmp_path / "a" / "b")
    assert folder.is_dir() and created == [tmp_path / "a", tmp_path / "a" / "b"]
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(click.ClickException) as info:
        ensure_writable(f)
    assert info.value.message == f"--out: {f}: is a file, not a folder"
    with pytest.raises(click.ClickException) as info:
        ensure_writable(f / "sub" / "deeper", option="--save-runs")
    assert info.value.message == f"--save-runs: {f}/sub/deeper: parent {f} is a file, not a folder"


def _parent_is_a_file_cases(d, run_dir):
    """(argv, the option named) of every command writing where a parent is a file."""
    x = str(d / "f" / "x")
    small = ["--seeds", "1", "--steps", "2", "--agents", "3", "--grid", "9"]
    return [
        (["run", "--agents", "3", "--steps", "2", "--grid", "9", "--out", x], "--out"),
        (["compare", *small, "--jobs", "1", "--out", x], "--out"),
        (["compare", *small, "--jobs", "1", "--save-runs", x], "--save-runs"),
        (["analyze", run_dir, run_dir, "--out", x], "--out"),
        (["sweep", *small[:4], "--out", x], "--out"),
        (["view", run_dir, "--out", x], "--out"),
        (["plot", run_dir, "--out", x], "--out"),
        (["reproduce", *small, "--out", x], "--out"),
    ]


def test_parent_is_a_file_is_said_so(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    (tmp_path / "f").write_text("x")
    run = bg.simulate(
        "baygo",
        agents=3,
        steps=2,
        model=LinearRegression(grid=9),
        rng=0,
        data=bg.synthetic_bodyfat(),
    )
    run_dir = str(run.save(tmp_path / "r").parent)
    for argv, option in _parent_is_a_file_cases(tmp_path, run_dir):
        assert main(argv) == 1, argv
        why = f"{tmp_path}/f/x: parent {tmp_path}/f is a file, not a folder"
        assert capsys.readouterr().err == f"baygo: error: {option}: {why}\n", argv
    assert main(["animate", run_dir, "--out", str(tmp_path / "f" / "a.gif")]) == 1
    why = f"{tmp_path}/f/a.gif: parent {tmp_path}/f is a file, not a folder"
    assert capsys.readouterr().err == f"baygo: error: --out: {why}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "r"]  # nothing made


def test_permission_denied_names_the_folder(tmp_path, capsys, monkeypatch):
    run = bg.simulate(
        "baygo",
        agents=3,
        steps=2,
        model=LinearRegression(grid=9),
        rng=0,
        data=bg.synthetic_bodyfat(),
    )
    run_dir = run.save(tmp_path / "r").parent
    out = tmp_path / "ro"
    out.mkdir()
    access = os.access  # as for a non-root user on a read-only folder (root may write anywhere)
    monkeypatch.setattr(os, "access", lambda p, mode: str(out) not in str(p) and access(p, mode))
    argv = ["run", "--agents", "3", "--steps", "2", "--grid", "9", "--out", str(out / "new")]
    assert main(argv) == 1
    why = f"permission denied (cannot write in {out})"  # the folder made for the check is gone
    assert capsys.readouterr().err == f"baygo: error: --out: {out}/new: {why}\n"
    assert not (out / "new").exists()  # made for the check, removed again
    assert main(["view", str(run_dir), "--out", str(out / "page.html")]) == 1
    why = f"permission denied (cannot write in {out})"
    assert capsys.readouterr().err == f"baygo: error: --out: {out}/page.html: {why}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_real_read_only_folder(tmp_path, capsys):
    out = tmp_path / "ro"
    out.mkdir(mode=0o500)
    try:
        argv = ["run", "--agents", "3", "--steps", "2", "--grid", "9", "--out", str(out / "x")]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err == f"baygo: error: --out: {out}/x: permission denied (cannot write in {out})\n"
    finally:
        out.chmod(0o700)


def test_system_errors_are_one_line_without_errno(tmp_path, capsys, monkeypatch):
    import errno

    import baygo_graph.cli.run as run_cmd

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "run.npz"))

    monkeypatch.setattr(run_cmd, "simulate", full)
    assert main(["run", "--agents", "3", "--steps", "2", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == f"baygo: error: {tmp_path}/run.npz: no space left on device\n"


def test_failed_plot_leaves_no_empty_folder(tmp_path, monkeypatch):
    run = bg.simulate(
        "cen", agents=3, steps=2, model=LinearRegression(grid=9), rng=0, data=bg.synthetic_bodyfat()
    )
    run.save(tmp_path / "r")
    import baygo_graph.reproduce as rep

    def broken(*args, **kwargs):
        raise ValueError("no figures today")

    monkeypatch.setattr(rep, "run_figures", broken)
    assert main(["plot", str(tmp_path / "r"), "--out", str(tmp_path / "figs" / "x")]) == 1
    assert not (tmp_path / "figs").exists()
    with pytest.raises(ValueError):
        with output_folder(tmp_path / "keep") as f:
            (f / "partial.png").write_text("")
            raise ValueError
    assert (tmp_path / "keep" / "partial.png").exists()  # not empty: kept


def test_run_force_replaces(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    argv = ["run", "--agents", "3", "--steps", "2", "--grid", "9", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert main([*argv, "--seed", "1"]) == 1
    assert "pass --force" in capsys.readouterr().err
    assert main([*argv, "--seed", "1", "--force"]) == 0
    assert bg.Run.load(tmp_path).config["seed"] == 1


def test_an_error_quoting_a_huge_input_is_one_bounded_line(tmp_path, capsys):
    from baygo_graph.cli import ERROR_CHARS

    huge = "x" * 100_000  # click quotes the bad value in its usage error
    assert main(["run", "--strategy", huge, "--out", str(tmp_path / "r")]) in (1, 2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("baygo: error: ")
    assert len(err) < ERROR_CHARS + 100 and "more characters)" in err
