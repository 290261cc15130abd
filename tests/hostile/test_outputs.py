"""Outputs that never clobber: links planted in output folders, an output that is an
input, replacing without --force, a full disk, two processes on one folder, Ctrl-C,
and option values thousands of characters long."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import run_main

from baygo_graph.io.atomic import TMP_NAME

EDGES = "source,target,time\nann,bob,0\nbob,cy,0\ncy,ann,1\nann,cy,2\nbob,ann,2\n"


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baygo: error: "), err
    assert len(lines[0]) <= 320
    return lines[0]


@pytest.fixture
def edges(tmp_path):
    path = tmp_path / "contacts.csv"
    path.write_text(EDGES)
    return path


def test_plot_never_writes_through_a_planted_link(edges, tmp_path, capsys):
    figs = tmp_path / "figs"
    figs.mkdir()
    victim = tmp_path / "victim.png"
    victim.write_bytes(b"holiday photo")
    (figs / "graph_union.png").symlink_to("../victim.png")
    assert run_main(["plot", edges, "--out", figs, "--window", 2]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "graph_union.png" in line and "symbolic link" in line
    assert victim.read_bytes() == b"holiday photo"
    assert (figs / "graph_union.png").is_symlink()
    assert not [p for p in figs.iterdir() if TMP_NAME.match(p.name)]


def test_compare_never_writes_through_a_planted_link(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.md"
    victim.write_text("my notes")
    (out / "summary.md").symlink_to("../victim.md")
    argv = ["compare", "--seeds", 2, "--steps", 3, "--agents", 3, "--grid", 9, "--jobs", 1,
            "--strategies", "baygo,complete", "--out", out]  # fmt: skip
    assert run_main(argv) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "summary.md" in line and "symbolic link" in line
    assert victim.read_text() == "my notes"


def test_a_linked_figures_folder_leading_outside_is_refused(tmp_path):
    import matplotlib.pyplot as plt

    from baygo_graph.reproduce.drawing import save_figures

    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "figures").symlink_to(elsewhere)
    fig, _ = plt.subplots()
    with pytest.raises(OSError, match="outside the output folder"):
        save_figures({"mse": fig}, out, gallery=None, files={})
    assert list(elsewhere.iterdir()) == []


def test_view_refuses_its_own_input_and_asks_for_force_elsewhere(edges, tmp_path, capsys):
    before = edges.read_bytes()
    assert run_main(["view", edges, "--out", edges]) == 1  # never advises --force (L11)
    line = one_error_line(capsys.readouterr().err)
    assert "is the input" in line and "--force" not in line
    assert run_main(["view", edges, "--out", tmp_path / "." / edges.name, "--force"]) == 1
    assert "is the input" in one_error_line(capsys.readouterr().err)
    link = tmp_path / "link.csv"
    link.symlink_to(edges)
    assert run_main(["view", link, "--out", edges, "--force"]) == 1  # by file, not by name
    assert "is the input" in one_error_line(capsys.readouterr().err)
    assert edges.read_bytes() == before
    page = tmp_path / "page.html"
    page.write_text("an older page")
    assert run_main(["view", edges, "--out", page]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert str(page) in line and "pass --force" in line
    assert page.read_text() == "an older page"
    assert run_main(["view", edges, "--out", page, "--force"]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_animate_asks_for_force(tmp_path, capsys):
    from baygo_graph import simulate, synthetic_bodyfat
    from baygo_graph.models import LinearRegression

    run = simulate(
        "baygo", agents=3, steps=3, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    folder = run.save(tmp_path / "run").parent
    gif = tmp_path / "a.gif"
    gif.write_bytes(b"mine")
    assert run_main(["animate", folder, "--out", gif, "--dpi", 20]) == 1
    assert "pass --force" in one_error_line(capsys.readouterr().err)
    assert gif.read_bytes() == b"mine"
    assert run_main(["animate", folder, "--out", gif, "--dpi", 20, "--force"]) == 0
    assert gif.read_bytes()[:3] == b"GIF"


def test_a_full_disk_during_plot_keeps_the_old_figure_and_names_it(
    edges, tmp_path, capsys, monkeypatch
):
    from matplotlib.figure import Figure

    figs = tmp_path / "figs"
    assert run_main(["plot", edges, "--out", figs, "--window", 2]) == 0
    capsys.readouterr()
    old = {p.name: p.read_bytes() for p in figs.iterdir()}
    real = Figure.savefig

    def fills_the_disk(self, fname, *args, **kwargs):
        real(self, fname, *args, **kwargs)  # bytes reach the temporary file, then:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", fills_the_disk)
    assert run_main(["plot", edges, "--out", figs, "--window", 2]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "no space left on device" in line and str(figs / "graph_last_step.png") in line
    assert {p.name: p.read_bytes() for p in figs.iterdir()} == old  # nothing cut, no tmp


_HOLD = textwrap.dedent(
    """
    import sys, time
    from baygo_graph.io.atomic import output_lock
    with output_lock(sys.argv[1]):
        print("held", flush=True)
        time.sleep(60)
    """
)


@pytest.mark.parametrize("command", ["reproduce", "compare", "sweep"])
def test_an_output_folder_in_use_is_refused_in_one_line(tmp_path, capsys, monkeypatch, command):
    """sweep too (hostile round 9, M6: it wrote its table over a running compare's)."""
    import importlib

    # a sweep waits a little for another sweep's brief table write before it refuses
    monkeypatch.setattr(importlib.import_module("baygo_graph.experiments.sweep"),
                        "_START_WAIT", 0.5)  # fmt: skip
    out = tmp_path / "X"
    out.mkdir()
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdout=subprocess.PIPE,
                              env=env)  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == b"held"
        argv = {
            "reproduce": ["reproduce", "--seeds", 2, "--steps", 4, "--agents", 3, "--grid", 5,
                          "--jobs", 1, "--no-video", "--save-runs", "--out", out],
            "compare": ["compare", "--seeds", 2, "--steps", 3, "--agents", 3, "--grid", 9,
                        "--jobs", 1, "--out", out],
            "sweep": ["sweep", "--param", "delta=0.3", "--param", "agents=3", "--param",
                      "grid=9", "--seeds", 1, "--steps", 3, "--jobs", 1, "--out", out],
        }[command]  # fmt: skip
        t0 = time.perf_counter()
        assert run_main(argv) == 1
        line = one_error_line(capsys.readouterr().err)
        assert f"--out: {out}: in use by another baygo process" in line
        assert time.perf_counter() - t0 < 30  # refused before the work
        assert list(out.iterdir()) == [out / ".baygo.lock"]  # the holder's lock only
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize(("option", "code"), [("--focus", 1), ("--bin", 2)])
def test_a_huge_option_value_gives_a_short_line_naming_it(edges, capsys, option, code):
    # a --bin no file takes is a usage error (2); a --focus the file lacks is not (1)
    assert run_main(["analyze", edges, option, "x" * 5000]) == code
    line = one_error_line(capsys.readouterr().err)
    # the guard's bound: 300 characters after the prefix (a long temporary path took 301)
    assert len(line.removeprefix("baygo: error: ")) <= 300
    assert {"--focus": "focus=", "--bin": "Invalid value for '--bin'"}[option] in line
    assert "more characters" in line


def test_the_error_guard_caps_any_line_and_keeps_the_words_around_a_value(capsys):
    from baygo_graph.cli import ERROR_CHARS, _bounded

    assert ERROR_CHARS <= 300
    line = _bounded("bad value '" + "y" * 10_000 + "' for --thing: use a number")
    assert len(line) <= 300 and line.endswith("for --thing: use a number")
    assert len(_bounded("z" * 10_000)) <= ERROR_CHARS + 40


_SWEEP = [
    "sweep", "--param", "delta=0.3,0.5,0.7", "--param", "agents=4", "--param", "grid=9",
    "--seeds", "60", "--steps", "8", "--jobs", "2",
]  # fmt: skip


def _interrupted_sweep(argv0, out, *, group: bool, sig=signal.SIGINT):
    """Start a parallel sweep, Ctrl-C it (or send ``sig``) once its first task file exists
    (``group``: as a terminal does, every process of its group), and return (exit code,
    stderr)."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [*argv0, *_SWEEP, "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=group,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        t0 = time.perf_counter()
        while not list((out / "tasks").glob("*.json")) and time.perf_counter() - t0 < 120:
            time.sleep(0.05)
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    if proc.returncode == 0 and not err:  # it finished first: the signal came after its
        pytest.skip("the sweep finished before the signal (a loaded machine): a signal "
                    "after the work is done is ignored, as documented")  # fmt: skip
    return proc.returncode, err.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_in_a_parallel_sweep_is_quiet_and_leaves_no_half_file(tmp_path):
    out = tmp_path / "sw"
    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    returncode, text = _interrupted_sweep([sys.executable, "-c", code], out, group=False)
    assert returncode == 130 and text == "baygo: aborted\n", text  # one line, no blank
    time.sleep(0.5)  # the resource tracker reports (or not) as the last process ends
    left = [p for p in out.rglob("*") if TMP_NAME.match(p.name) or p.suffix == ".tmp"]
    assert left == []
    for task in (out / "tasks").glob("*.json"):  # every file kept is whole
        import json

        assert json.loads(task.read_text())["id"] == task.stem


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group")
def test_ctrl_c_of_the_terminal_reaches_workers_too_and_prints_one_line(tmp_path):
    """A terminal's Ctrl-C goes to the whole process group: the command's loky workers
    (which inherit the script's argv) printed their own 'baygo: aborted' or import
    tracebacks beside the command's line (hostile round 5, H20); they ignore it now."""
    import shutil

    script = shutil.which("baygo")  # the script itself: its workers get its argv
    if script is None:
        pytest.skip("the baygo script is not installed (pip install -e .)")
    returncode, text = _interrupted_sweep([script], tmp_path / "sw", group=True)
    assert returncode == 130 and text == "baygo: aborted\n", text  # one line, no blank


@pytest.mark.skipif(sys.platform == "win32", reason="SIGHUP to a process group")
def test_a_closed_terminals_sighup_to_the_group_prints_one_line(tmp_path):
    """SIGHUP (a closed terminal, a dropped ssh session) to the whole group of a parallel
    sweep: loky's resource tracker, which ignores only SIGINT and SIGTERM, died of it and
    printed a "process died unexpectedly" warning and six KeyError tracebacks, 32-42 lines
    (hostile round 12, Q11); it starts with SIGHUP blocked now, like the workers."""
    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    argv0 = [sys.executable, "-c", code]
    returncode, text = _interrupted_sweep(argv0, tmp_path / "sw", group=True, sig=signal.SIGHUP)
    assert returncode == 129 and text == "baygo: aborted (SIGHUP)\n", text


@given(
    before=st.text(alphabet=st.characters(blacklist_characters="'\""), max_size=80),
    value=st.text(alphabet=st.characters(blacklist_characters="'\\"), max_size=3000),
    after=st.text(alphabet=st.characters(blacklist_characters="'\""), max_size=60),
)
@settings(max_examples=60, deadline=None)
def test_short_line_bounds_any_message(before, value, after):
    """However long the quoted value, the line stays short; short quoted text is kept."""
    from baygo_graph._text import short_line

    line = short_line(f"{before}'{value}'{after}")
    assert len(line) <= 300 + len(" (99999999 more characters)")
    if len(before) + len(value) + len(after) + 2 <= 300 and len(value) + 2 <= 60:
        assert line == f"{before}'{value}'{after}"
