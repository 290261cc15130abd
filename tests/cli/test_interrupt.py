"""Ctrl-C in the middle of a command: each finished file was said as it was finished
(``wrote PATH``, flushed), so after ``baygo: aborted`` the user knows which files are
whole (hostile round 6, G4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph._interrupt import TRACKER_NOTE
from baygo_graph.io.atomic import LOCK_NAME, RECORD_NAME
from baygo_graph.models import LinearRegression

MAIN = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process (POSIX)")
@pytest.mark.parametrize(
    ("sig", "line", "code"),
    [
        (signal.SIGINT, "baygo: aborted", 130),
        (signal.SIGTERM, "baygo: aborted (SIGTERM)", 143),
        (signal.SIGHUP, "baygo: aborted (SIGHUP)", 129),
    ],
)
def test_ctrl_c_after_the_first_figure_keeps_the_wrote_lines_of_the_finished_files(
    tmp_path, sig, line, code
):
    """Also SIGTERM (`timeout`, a batch system's time limit): it left a half-written
    temporary file and no line, exit 143 (hostile round 8, L4); and SIGHUP (the terminal
    closed, an ssh connection dropped): the same, exit 129 (hostile round 9, M5)."""
    run = tmp_path / "run"
    simulate("baygo", agents=4, steps=6, model=LinearRegression(grid=9), rng=1,
             data=synthetic_bodyfat(60)).save(run)  # fmt: skip
    out = tmp_path / "figs"
    formats = [a for f in ("png", "pdf", "svg") for a in ("--format", f)]
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", MAIN, "plot", str(run), "--out", str(out), *formats],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # also under nohup
    )  # fmt: skip
    try:
        first = proc.stdout.readline()
        while first and not first.startswith("wrote "):  # the synthetic-data note first
            first = proc.stdout.readline()
        # said as soon as it was finished: most figures are not drawn yet (21 files)
        finished = [p for p in out.iterdir() if p.name not in (RECORD_NAME, LOCK_NAME)]
        proc.send_signal(sig)
        rest, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert first.startswith("wrote "), (first, proc.stderr)
    assert len(finished) < 21, "the first 'wrote' line came only once every file was written"
    if proc.returncode == 0:
        pytest.skip("the plot finished before the signal")
    assert proc.returncode == code and err.splitlines() == [line], err  # one line, no blank
    said = [first, *rest.splitlines()]
    wrote = {Path(line.strip().removeprefix("wrote ")) for line in said if line.startswith("wrote")}
    on_disk = {p for p in out.iterdir() if p.name not in (RECORD_NAME, LOCK_NAME)}
    assert not [p for p in on_disk if p.name.endswith(".tmp")]  # no half-written file
    assert Path(first.strip().removeprefix("wrote ")) in wrote
    assert wrote == on_disk  # exactly the finished files: no more, no fewer
    assert all(p.stat().st_size > 0 for p in wrote)


@pytest.mark.skipif(sys.platform == "win32", reason="a closed pipe (POSIX)")
def test_a_reader_that_stops_reading_does_not_stop_the_command(tmp_path):
    """`baygo plot RUN | head -1`: the pipe closes after the first line; the figures are
    still all written and no file is blamed ('--out: x.png: broken pipe')."""
    run = tmp_path / "run"
    simulate("baygo", agents=4, steps=4, model=LinearRegression(grid=9), rng=1,
             data=synthetic_bodyfat(60)).save(run)  # fmt: skip
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", MAIN, "plot", str(run), "--out", str(tmp_path / "figs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert "pipe" not in err.lower()
    assert len(list((tmp_path / "figs").glob("*.png"))) == 7


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_standard_output_that_cannot_be_written_is_named_and_the_files_are_written(
    tmp_path,
):
    """`baygo analyze RUN --out R > /dev/full` (a redirect onto a full disk) stopped at its
    first line with "[Errno 28] No space left on device", naming nothing, and wrote no file
    (hostile round 9, M10)."""
    run = tmp_path / "run"
    simulate("baygo", agents=4, steps=4, model=LinearRegression(grid=9), rng=1,
             data=synthetic_bodyfat(60)).save(run)  # fmt: skip
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-c", MAIN, "analyze", str(run), "--out", str(tmp_path / "r")],
            stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "baygo: error: standard output: no space left on device: what this command printed "
        "there was cut short (the files it wrote are whole)"
    )
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        RECORD_NAME, "report.json", "report.txt"
    ]  # fmt: skip
    assert (tmp_path / "r" / "report.txt").read_text().startswith("NOTE: SYNTHETIC")


def _sigint_blocked_or_ignored() -> bool:
    with open("/proc/self/status") as fh:
        fields = dict(line.split(":", 1) for line in fh if ":" in line)
    bit = 1 << (signal.SIGINT - 1)
    return bool(int(fields["SigBlk"], 16) & bit or int(fields["SigIgn"], 16) & bit)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
@pytest.mark.skipif(
    signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
    reason="SIGINT is ignored in this test process (nohup ... &, cron, some CI runners): "
    "there is no Ctrl-C to keep from the workers",
)
def test_workers_never_see_a_terminals_ctrl_c_from_their_first_instruction():
    """hostile7 K14: a terminal's Ctrl-C reaches every process of the group; loky workers
    still importing joblib/numpy (before baygo_graph ignores it there) printed import
    tracebacks. They start with Ctrl-C blocked; the command stops them."""
    from joblib.externals.loky import get_reusable_executor

    from baygo_graph._interrupt import workers_ignore_ctrl_c

    workers_ignore_ctrl_c()
    executor = get_reusable_executor(max_workers=1, reuse=False)
    try:
        assert executor.submit(_sigint_blocked_or_ignored).result(timeout=120)
    finally:
        executor.shutdown(wait=True, kill_workers=True)
    assert not _sigint_blocked_or_ignored()  # the command itself still hears Ctrl-C


@pytest.mark.skipif(sys.platform == "win32", reason="signals to a process (POSIX)")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_once_the_work_is_done_is_ignored(tmp_path, sig):
    """A SIGTERM while `baygo sweep --jobs 2` exited (its worker pool joined at exit) ran
    the start-up handler there: 'baygo: aborted (SIGTERM)', a 13-line 'Exception ignored'
    traceback and exit code 0 (hostile round 12, Q6). Once the command has returned, every
    stop signal is ignored: the exit finishes, silent, with the command's code."""
    code = (
        "import os, signal, sys; sys.argv[0] = 'baygo'\n"
        "from baygo_graph.cli import main\n"
        "rc = main(['--version'])\n"
        f"os.kill(os.getpid(), {int(sig)})\n"  # as it would come during the exit
        "print('exited', rc)\n"
        "sys.exit(rc)\n"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines()[-1] == "exited 0"


@pytest.mark.skipif(sys.platform == "win32", reason="loky's resource tracker (POSIX)")
@pytest.mark.parametrize("command", [True, False])
def test_the_commands_resource_tracker_cleans_up_after_a_stop_without_a_warning(command):
    """After a Ctrl-C that stopped a parallel sweep's workers mid-task, loky's resource
    tracker cleaned up a semaphore they left and said so in two warnings printed after
    'baygo: aborted' (1 run in ~20 of the sweep's Ctrl-C test under load). In a baygo
    command it cleans up silently; from Python (not the command) it still warns."""
    code = (
        "import os, sys\n"
        + ("os.environ['BAYGO_CLI_PID'] = str(os.getpid())\n" if command else "")
        + "from baygo_graph._interrupt import workers_ignore_ctrl_c\n"
        "workers_ignore_ctrl_c()\n"
        "from joblib.externals.loky.backend.synchronize import Lock\n"
        "lock = Lock()\n"
        "os._exit(0)\n"  # as a process stopped before it released what it made
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)  # fmt: skip
    # the tracker shares the process's stderr: it is read to its end, the tracker's too
    if command:
        assert proc.stderr == ""
    else:
        assert "leaked semlock objects" in proc.stderr


_DROPPED = """
import signal, sys, weakref
from baygo_graph import _interrupt

class Held:
    pass

def callback(ref):  # Python drops what a weakref callback raises ("Exception ignored")
    signal.raise_signal(signal.SIGTERM)
    for _ in range(100):  # the handler runs here, inside the callback
        pass

def drop_one():
    held = Held()
    ref = weakref.ref(held, callback)
    del held
    import time
    time.sleep(20)  # the command's work goes on: the stop lands here
    print("ran on", flush=True)
"""


def test_a_stop_dropped_inside_a_callback_still_stops_the_command():
    # hostile14 S7: a SIGTERM whose exception landed in one of matplotlib's weakref
    # callbacks was printed as "Exception ignored ..." and lost: the command ran on to
    # exit code 0 (and once said "aborted" first)
    code = (
        _DROPPED
        + """
try:
    with _interrupt.stop_on_signals():
        drop_one()
except _interrupt.Terminated as e:
    print("stopped", e.signum)
"""
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=os.environ | {"BAYGO_CLI_PID": ""})  # fmt: skip
    assert proc.stdout == f"stopped {int(signal.SIGTERM)}\n", proc
    assert proc.stderr == ""  # no "Exception ignored in" block
    # while the command starts: one line, 128 + the signal, whatever the callback did
    code = (
        _DROPPED
        + """
_interrupt.never_lose_a_stop()
signal.signal(signal.SIGTERM, _interrupt.aborted_while_starting)
drop_one()
"""
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=os.environ | {"BAYGO_CLI_PID": ""})  # fmt: skip
    assert (proc.returncode, proc.stdout) == (128 + signal.SIGTERM, ""), proc
    assert proc.stderr == "baygo: aborted (SIGTERM)\n"


def test_other_unraisable_exceptions_go_to_the_hook_before(capsys):
    import weakref

    from baygo_graph import _interrupt

    seen = []
    before = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with _interrupt.stop_on_signals():

            class Held:
                pass

            def callback(ref):
                raise RuntimeError("a callback's own error")

            held = Held()
            ref = weakref.ref(held, callback)  # noqa: F841
            del held
        assert sys.unraisablehook == seen.append  # restored after the block
    finally:
        sys.unraisablehook = before
    assert [type(a.exc_value) for a in seen] == [RuntimeError]


def test_a_stop_wrapped_on_its_way_is_a_stop(monkeypatch, capsys):
    # hostile14 S7: a SIGTERM landing while matplotlib imports is wrapped by Python in
    # "RuntimeError: Error calling __set_name__ ..." (the stop as its cause): a traceback
    import baygo_graph.cli as cli_module
    from baygo_graph._interrupt import Terminated

    def wrapped(**kwargs):
        try:
            raise Terminated(signal.SIGTERM)
        except Terminated as e:
            raise RuntimeError("Error calling __set_name__ on '_axis_method_wrapper'") from e

    monkeypatch.setattr(cli_module.cli, "main", wrapped)
    assert cli_module.main(["run"]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "baygo: aborted (SIGTERM)\n"


def test_a_stop_swallowed_on_its_way_stops_at_the_next_file(monkeypatch, capsys):
    # a bare `except:` in a library swallowed the stop: the command stops before it
    # names its next file, not at its end with exit code 0
    import baygo_graph.cli as cli_module
    from baygo_graph._interrupt import deferred_interrupt

    done = []

    def swallowing(**kwargs):
        try:
            signal.raise_signal(signal.SIGTERM)
        except BaseException:  # noqa: S110 - what the library did
            pass
        done.append("went on")
        with deferred_interrupt():  # a file named, recorded and said
            done.append("file")
        done.append("after the file")
        return 0

    monkeypatch.setattr(cli_module.cli, "main", swallowing)
    assert cli_module.main(["run"]) == 128 + signal.SIGTERM
    assert done == ["went on", "file"]
    assert capsys.readouterr().err == "baygo: aborted (SIGTERM)\n"
    # the next command of this process starts afresh
    monkeypatch.setattr(cli_module.cli, "main", lambda **kwargs: 0)
    assert cli_module.main(["run"]) == 0


def test_a_stop_dropped_while_the_command_starts_ends_it_before_any_work(tmp_path):
    code = """
import signal, sys
sys.argv[0] = "baygo"
from baygo_graph import _interrupt  # the script's handlers, as from its first moment
try:
    signal.raise_signal(signal.SIGTERM)  # while importing: a library's bare except
except BaseException:
    pass
from baygo_graph.cli import main
sys.exit(main(["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", "r"]))
"""
    env = {k: v for k, v in os.environ.items() if k != "BAYGO_CLI_PID"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=env)  # fmt: skip
    assert (proc.returncode, proc.stdout) == (128 + signal.SIGTERM, ""), proc
    assert proc.stderr == "baygo: aborted (SIGTERM)\n"
    assert not (tmp_path / "r").exists()


#: A plug-in whose strategy, in the command's own process (not in a worker), kills loky's
#: resource tracker once (SIGKILL: the OOM killer, a `kill -9`), mid-run.
_KILLS_THE_TRACKER = """
import multiprocessing, os, signal
import baygo_graph as bg
from baygo_graph.strategies import ChoiceStrategy

KILLED = []

class KillsTracker(ChoiceStrategy):
    name = "killstracker"
    def choose(self, t, *, model, state, listen, rng, choices):
        from joblib.externals.loky.backend import resource_tracker
        pid = resource_tracker._resource_tracker._pid
        if multiprocessing.parent_process() is None and pid is not None and not KILLED:
            KILLED.append(pid)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)  # dead before the run goes on
        return model.most_divergent(state, listen=listen, rng=rng)

bg.strategies.register("killstracker", KillsTracker)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="loky's resource tracker (POSIX)")
def test_a_resource_tracker_killed_from_outside_costs_one_line(tmp_path):
    """Killing loky's resource tracker while `compare --jobs 2` ran printed 38 lines (a
    UserWarning "died unexpectedly, relaunching", then a KeyError traceback per temporary
    file and semaphore the relaunched tracker never heard of), exit 0 (hostile round 13,
    R2): one line now, and the results are those of a run nothing disturbed."""
    plugin = tmp_path / "plug.py"
    plugin.write_text(_KILLS_THE_TRACKER)
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("PYTHONWARNINGS", None)
    outs = []
    for name, kill in (("killed", True), ("calm", False)):
        strategies = "killstracker,nocol" if kill else "nocol"
        args = ["--plugin", str(plugin), "compare", "--strategies", strategies, "--seeds", "6",
                "--steps", "4", "--agents", "4", "--grid", "5", "--jobs", "2",
                "--no-progress", "--out", str(tmp_path / name)]  # fmt: skip
        proc = subprocess.run([sys.executable, "-c", MAIN, *args], capture_output=True,
                              text=True, env=env, timeout=300, cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outs.append(proc)
    lines = [s for s in outs[0].stderr.splitlines() if "resource tracker" in s]
    assert lines == [f"baygo: note: {TRACKER_NOTE}"]
    assert "Traceback" not in outs[0].stderr and "KeyError" not in outs[0].stderr
    assert "Warning" not in outs[0].stderr, outs[0].stderr
    import pandas as pd

    killed = pd.read_parquet(tmp_path / "killed" / "results.parquet")
    calm = pd.read_parquet(tmp_path / "calm" / "results.parquet")
    killed = killed[killed["strategy"] == "nocol"].reset_index(drop=True)
    cols = ["seed", "step", "agent", "mse", "influence"]
    pd.testing.assert_frame_equal(killed[cols], calm[cols])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_before_the_animations_first_frame_is_one_line(tmp_path, sig):
    """A stop between `animate`'s animation and its first frame printed matplotlib's
    "UserWarning: Animation was deleted without rendering anything" block after
    `baygo: aborted` (hostile16 U5): the stop lands, deterministically, right after the
    animation is made."""
    run = simulate("baygo", agents=3, steps=4, rng=0, model=LinearRegression(grid=5),
                   data=synthetic_bodyfat())  # fmt: skip
    run.save(tmp_path / "r")
    code = f"""
import signal, sys
sys.argv[0] = "baygo"
from baygo_graph.cli import main
from baygo_graph.figures import animation
def stop(self, value):  # the signal, once the animation exists and before any frame
    signal.raise_signal({int(sig)})
animation.RunAnimation.steps = property(lambda self: [], stop)
sys.exit(main(["animate", "r", "--out", "a.gif"]))
"""
    env = {k: v for k, v in os.environ.items() if k != "BAYGO_CLI_PID"}
    proc = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)  # fmt: skip
    name = "" if sig == signal.SIGINT else f" ({signal.Signals(sig).name})"
    assert proc.returncode == 128 + sig, proc
    assert proc.stderr.splitlines()[-1] == f"baygo: aborted{name}", proc.stderr
    assert "Warning" not in proc.stderr and proc.stderr.count("\n") <= 2, proc.stderr
    assert not (tmp_path / "a.gif").exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_inside_the_import_is_one_line_and_its_exit_code(tmp_path, sig):
    """A stop while the `baygo` script still imported the package, inside a class body's
    `__set_name__` (a dataclass field), came out wrapped as a 20-line RuntimeError
    traceback with exit code 1 (hostile16 U10): the starting phase ends the process at
    once, with its one line."""
    script = tmp_path / "baygo"  # the script's name: the package installs its handlers
    script.write_text(f"""
import signal
import baygo_graph._interrupt
class Descriptor:
    def __set_name__(self, owner, name):
        signal.raise_signal({int(sig)})
class Like:
    references = Descriptor()
from baygo_graph.cli import main
print("imported")
""")
    env = {k: v for k, v in os.environ.items() if k != "BAYGO_CLI_PID"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=env)  # fmt: skip
    name = "" if sig == signal.SIGINT else f" ({signal.Signals(sig).name})"
    assert (proc.returncode, proc.stdout) == (128 + sig, ""), proc
    assert proc.stderr == f"baygo: aborted{name}\n"


def test_a_ctrl_c_right_after_main_hands_sigint_back_is_one_line(monkeypatch, capsys):
    """A Ctrl-C the moment main() gives SIGINT back to Python (after the starting handler)
    is one line and 130, never a KeyboardInterrupt traceback (hostile16 U12): simulated by
    a KeyboardInterrupt raised as the handler is switched."""
    import signal

    from baygo_graph._interrupt import aborted_while_starting
    from baygo_graph.cli import main

    real = signal.signal

    def switch(signum, handler):
        previous = real(signum, handler)
        if signum == signal.SIGINT and handler is signal.default_int_handler:
            monkeypatch.setattr(signal, "signal", real)
            raise KeyboardInterrupt  # the Ctrl-C that lands right here
        return previous

    before = real(signal.SIGINT, aborted_while_starting)
    try:
        monkeypatch.setattr(signal, "signal", switch)
        code = main(["--help"])
    finally:
        real(signal.SIGINT, before)
    assert code == 130
    assert capsys.readouterr().err.strip() == "baygo: aborted"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_background_command_says_its_stop_while_it_starts(tmp_path, sig):
    """A command started in the background of a script (`baygo ... &`: SIGINT ignored)
    died of SIGTERM silently while it imported, returncode -15, where the docs promise
    the line and exit code 143 (hostile18 W7). SIGTERM and SIGHUP are taken wherever
    they are the default; an ignored Ctrl-C stays ignored."""
    script = tmp_path / "baygo"  # the script's name: the package installs its handlers
    script.write_text(f"""
import signal
import baygo_graph._interrupt
signal.raise_signal({int(sig)})
print("imported")
""")
    env = {k: v for k, v in os.environ.items() if k != "BAYGO_CLI_PID"}

    def deaf():  # what a non-interactive shell gives `cmd &`
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=env, preexec_fn=deaf)  # fmt: skip
    if sig == signal.SIGINT:  # ignored by whoever started it: still ignored
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "imported\n", ""), proc
        return
    assert (proc.returncode, proc.stdout) == (128 + sig, ""), proc
    assert proc.stderr == f"baygo: aborted ({signal.Signals(sig).name})\n"
