"""What the command line says: two series given to analyze, an error in a plug-in's code
inside a worker, the package's warnings, and error lines for option values thousands of
characters long (each one line of at most ~300 characters naming the bad input)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
from shared import run_main

from baygo_graph.cli import ERROR_CHARS

EDGES = "source,target,time\nann,bob,0\nbob,cy,0\ncy,ann,1\nann,cy,2\nbob,ann,2\n"
SMALL = ["--agents", "3", "--grid", "9"]


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baygo: error: "), err
    assert len(lines[0]) <= ERROR_CHARS + 40, len(lines[0])
    return lines[0]


def test_two_series_given_to_analyze_say_what_is_wrong(tmp_path, capsys):
    for name in ("a.csv", "c.csv"):
        (tmp_path / name).write_text(EDGES)
    assert run_main(["analyze", tmp_path / "a.csv", tmp_path / "c.csv"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "no saved run" not in line
    assert f"{tmp_path / 'a.csv'} is an edge list" in line and "one series at a time" in line
    assert run_main(["analyze", tmp_path / "gone", tmp_path / "a.csv"]) == 1
    assert f"{tmp_path / 'gone'}: no such file or folder" in one_line(capsys.readouterr().err)


def test_an_error_in_a_plugins_code_inside_a_worker_names_the_plugin(tmp_path):
    plugin = tmp_path / "my_strategy.py"
    plugin.write_text(textwrap.dedent("""
        from baygo_graph.strategies import BayGo, register

        class Broken(BayGo):
            def start(self, **kwargs):
                raise RuntimeError("no network here")

        register("broken", lambda **kwargs: Broken())
    """))  # fmt: skip
    argv = ["--plugin", str(plugin), "compare", "--strategies", "baygo,broken", "--seeds", "2",
            "--steps", "3", *SMALL, "--jobs", "2", "--no-progress"]  # fmt: skip
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    code = f"from baygo_graph.cli import main; raise SystemExit(main({argv!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stderr
    line = one_line(done.stderr)
    assert f"plug-in {plugin}" in line and "strategy 'broken'" in line
    assert "RuntimeError: no network here (line 6, in start)" in line


def test_package_warnings_are_one_note_line_each(capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    # a coarse grid: GridResolutionWarning; a sparse geometric graph: a UserWarning
    assert run_main(["run", "--model", "mean", "--agents", "3", "--steps", "30",
                     "--grid", "5"]) == 0  # fmt: skip
    assert run_main(["run", "--physical", "geometric-0.3", "--agents", "6", "--steps", "2",
                     "--grid", "9"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("baygo: note: ")]
    assert len(notes) == 2, err
    assert "too coarse for this posterior" in notes[0] and "no one to listen to" in notes[1]
    assert "Warning:" not in err and ".py:" not in err  # no Python warning block
    assert len(err.splitlines()) == 2


LONG = "x" * 5000


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--steps", "2", *SMALL, "--out", f"{LONG}.npz"],
        ["run", "--steps", "2", *SMALL, "--out", LONG],
        ["compare", "--seeds", "1", "--steps", "2", *SMALL, "--out", LONG],
        ["compare", "--seeds", "1", "--steps", "2", *SMALL, "--strategies", LONG],
        ["analyze", "RUN", f"{LONG}.csv"],
        ["analyze", "RUN", "RUN", "--out", LONG],
        ["plot", "RUN", "--out", LONG],
        ["view", "RUN", "--out", f"{LONG}.html"],
        ["sweep", "--param", f"delta={LONG}", "--out", "OUT"],
        ["run", "--steps", "2", *SMALL, "--model-option", LONG],
    ],
    ids=[
        "run-npz",
        "run-out",
        "compare-out",
        "strategies",
        "analyze-inputs",
        "analyze-out",
        "plot-out",
        "view-out",
        "sweep-param",
        "model-option",
    ],  # fmt: skip
)
def test_a_long_option_value_gives_one_short_line_naming_it(tmp_path, capsys, argv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    if "RUN" in argv:
        assert run_main(["run", "--steps", "2", *SMALL, "--out", "r0"]) == 0
        capsys.readouterr()
    argv = ["r0" if a == "RUN" else a for a in argv]
    assert run_main(argv) != 0
    line = one_line(capsys.readouterr().err)
    assert "xxxxxxxxxx" in line  # the bad value is named (shortened), not lost


def test_run_metadata_thousands_of_characters_long_is_shortened(tmp_path, capsys):
    import baygo_graph as bg
    from baygo_graph.figures._style import source_text
    from baygo_graph.models import LinearRegression

    run = bg.simulate("complete", agents=3, steps=2, model=LinearRegression(grid=9), rng=0)
    run.config["data"] = {"source": "y" * 100_000, "synthetic": False}
    run.save(tmp_path / "long")
    assert run_main(["analyze", tmp_path / "long"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "yyyyyyyyyy" in first and len(first) < 600, len(first)
    assert len(source_text("y" * 100_000)) < 120  # figure captions too


def test_an_influence_below_a_thousandth_keeps_its_digits(tmp_path, capsys):
    ring = "source,target,time\n" + "".join(f"{i},{(i + 1) % 3000},0\n" for i in range(3000))
    (tmp_path / "ring.csv").write_text(ring)
    assert run_main(["analyze", tmp_path / "ring.csv"]) == 0
    out = capsys.readouterr().out
    assert "0 3.33e-04" in out and " 0.000" not in out


@pytest.mark.parametrize("delay", [0.3, 1.5])
def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path, delay):
    import shutil
    import signal
    import time

    script = shutil.which("baygo")
    if script is None:
        pytest.skip("the baygo script is not installed")
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("BAYGO_BODYFAT", None)
    # work of minutes: the signal comes while it imports, or while it computes
    argv = [sys.executable, script, "compare", "--seeds", "20", "--steps", "300", "--agents",
            "12", "--grid", "31", "--jobs", "1", "--no-progress"]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path)  # fmt: skip
    time.sleep(delay)  # while it imports, or already running: the same line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("finished before the signal")
    assert err.splitlines() == ["baygo: aborted"], err  # one line, no blank before it
    assert proc.returncode == 130


@pytest.mark.parametrize("limit", [40, 60, 90, 140])
def test_a_value_cut_before_keeps_its_count_when_cut_again(limit):
    # short_line cuts a long value in its middle with a count, then fit_head cut that
    # value's middle again through the count: "(999... characters)"
    from baygo_graph._text import fit_head

    value = "x" * 30 + "... (999880 more characters) ..." + "y" * 30
    text = fit_head(f"got '{value}'; see --help", limit)
    head, n, tail = re.fullmatch(r"got '(x*)\.\.\. \((\d+) more characters\) \.\.\.(y*)'; "
                                 r"see --help", text).groups()  # fmt: skip
    assert int(n) + len(head) + len(tail) == 999880 + 60  # every character counted
    assert head and tail  # both ends of the value stay
