"""`baygo sweep`: table on disk, JSON summary, resume, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from baygo_graph.cli import main

ARGS = [
    "sweep",
    "--param", "delta=0.3,0.7",
    "--param", "agents=4",
    "--param", "grid=9",
    "--strategies", "baygo,complete",
    "--seeds", "2",
    "--steps", "3",
    "--jobs", "1",
]  # fmt: skip


def call(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_sweep_writes_the_table_and_prints_json(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    code, out, _ = call([*ARGS, "--out", str(tmp_path), "--json"], capsys)
    assert code == 0
    summary = json.loads(out)
    assert summary["tasks"] == 8 and summary["synthetic"] is True
    assert summary["table"] == f"{tmp_path}/results.parquet"
    table = pd.read_parquet(tmp_path / "results.parquet")
    assert len(table) == 8 and set(table["strategy"]) == {"baygo", "complete"}
    assert str(table["strategy"].dtype) == "category" and table["seed"].dtype == "int32"
    groups = summary["mean_over_seeds"]
    assert len(groups) == 4  # 2 strategies x 2 deltas, averaged over 2 seeds
    first = table[(table.strategy == "baygo") & (table.delta == 0.3)]
    assert groups[0]["strategy"] == "baygo" and groups[0]["delta"] == 0.3
    assert groups[0]["final_mse_others_mean"] == pytest.approx(
        first["final_mse_others_mean"].mean(), rel=1e-9
    )
    files = sorted((tmp_path / "tasks").iterdir())
    stamps = [f.stat().st_mtime_ns for f in files]
    # run again with --csv: resumes, nothing redone, same table, now as CSV only
    code, out, _ = call([*ARGS, "--out", str(tmp_path), "--json", "--csv"], capsys)
    assert code == 0 and json.loads(out)["mean_over_seeds"] == groups
    assert [f.stat().st_mtime_ns for f in sorted((tmp_path / "tasks").iterdir())] == stamps
    assert sorted(p.name for p in tmp_path.glob("results.*")) == ["results.csv"]
    csv = pd.read_csv(tmp_path / "results.csv")
    np.testing.assert_array_equal(csv["final_mse_others_mean"], table["final_mse_others_mean"])


def test_text_summary_says_synthetic(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    code, out, _ = call([*ARGS, "--out", str(tmp_path)], capsys)
    assert code == 0
    note, first = out.splitlines()[:2]  # the note before the work, the table once written
    assert first == f"wrote {tmp_path / 'results.parquet'} (8 rows)"  # all of this sweep
    assert note.startswith("NOTE: SYNTHETIC") and out.count("SYNTHETIC") == 1
    assert "8 runs (2 seeds)" in out and "mean final MSE over seeds" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--param", "delta"], "expected NAME=V1,V2"),
        (["--param", "speed=1,2"], "unknown parameter 'speed'"),
        (["--param", "agents=4.5"], "must hold int values"),
        (["--strategies", "baygo,ring"], "unknown strategy 'ring'; choose from"),
        (["--param", "physical=lattice"], "physical must be"),
        (["--seeds", "0"], "'--seeds': 0 is not in the range"),
        (["--seed", str(10**23)], "not in the range 0<=x<=9223372036854775807"),
    ],
)
def test_bad_arguments_exit_non_zero_with_one_line(extra, message, tmp_path, capsys):
    code, out, err = call([*ARGS, *extra, "--out", str(tmp_path)], capsys)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("baygo: error:") and message in err


def test_out_is_required(capsys):
    code, _, err = call(ARGS, capsys)
    assert code != 0 and "--out" in err


def test_failed_sweep_leaves_no_folder_it_made(tmp_path, capsys, monkeypatch):
    import importlib

    sweep_mod = importlib.import_module("baygo_graph.experiments.sweep")
    # a bad value: refused before anything is made
    code, _, err = call([*ARGS, "--param", "grid=1", "--out", str(tmp_path / "a" / "b")], capsys)
    assert code == 2 and "grid=1: grid must be an integer >= 2, got 1" in err  # usage error
    assert not (tmp_path / "a").exists()

    def unreachable(*args, **kwargs):  # e.g. a Dask scheduler that does not answer
        raise OSError("Timed out trying to connect to tcp://10.0.0.1:8786")

    monkeypatch.setattr(sweep_mod, "run_tasks", unreachable)
    code, _, err = call([*ARGS, "--out", str(tmp_path / "a" / "b")], capsys)
    assert err == "baygo: error: Timed out trying to connect to tcp://10.0.0.1:8786\n"
    assert code == 1 and not (tmp_path / "a").exists()


def test_a_task_row_that_contradicts_its_task_is_redone(tmp_path, capsys):
    """hostile7 K19: on resume a row whose delta was flipped (0.3 -> 0.2) gave a table row
    for delta 0.2, a value never run; an edited row could claim another strategy, seed or
    data. A row is trusted only when its parameters and data are its task's."""
    args = ["sweep", "--param", "delta=0.3,0.5", "--param", "agents=3", "--param", "grid=5",
            "--seeds", "1", "--steps", "2", "--jobs", "1", "--no-progress", "--out",
            str(tmp_path), "--json"]  # fmt: skip
    assert call(args, capsys)[0] == 0
    first = pd.read_parquet(tmp_path / "results.parquet")
    rows = {json.loads(p.read_text())["delta"]: p for p in (tmp_path / "tasks").glob("*.json")}
    flipped = json.loads(rows[0.3].read_text()) | {"delta": 0.2}
    rows[0.3].write_text(json.dumps(flipped))
    claimed = json.loads(rows[0.5].read_text())
    claimed |= {"synthetic": not claimed["synthetic"], "data": "other.csv"}
    rows[0.5].write_text(json.dumps(claimed))
    assert call(args, capsys)[0] == 0
    table = pd.read_parquet(tmp_path / "results.parquet")
    assert sorted(table["delta"]) == [0.3, 0.5]
    assert set(table["data"]) == set(first["data"])
    assert set(table["synthetic"]) == set(first["synthetic"])
    np.testing.assert_array_equal(table.sort_values("delta")["final_mse_others_mean"],
                                  first.sort_values("delta")["final_mse_others_mean"])  # fmt: skip


def test_the_wrote_line_says_the_rows_of_a_shared_folder(tmp_path, capsys):
    """Two sweeps into one folder both said `wrote OUT/results.parquet`, the table then
    holding one sweep's rows (hostile round 8, L9): it holds both, and says so."""
    base = ["sweep", "--param", "agents=4", "--param", "grid=9", "--strategies", "baygo",
            "--seeds", "2", "--steps", "3", "--jobs", "1", "--out", str(tmp_path)]  # fmt: skip
    code, out, _ = call([*base, "--param", "delta=0.3"], capsys)
    assert code == 0 and f"wrote {tmp_path}/results.parquet (2 rows)\n" in out
    code, out, err = call([*base, "--param", "delta=0.7", "--json"], capsys)
    assert code == 0 and json.loads(out)["tasks"] == 2  # this sweep's
    assert f"wrote {tmp_path}/results.parquet (4 rows: 2 of this sweep, 2 of other sweeps " \
        "in this folder)\n" in err  # fmt: skip
    table = pd.read_parquet(tmp_path / "results.parquet")
    assert sorted(table["delta"]) == [0.3, 0.3, 0.7, 0.7]
    assert not (tmp_path / ".baygo.lock").exists()  # taken for the table write, removed


def test_sweep_checks_its_scheduler_before_any_work(tmp_path, capsys):
    """`sweep --scheduler ADDR` was checked only when Dask dialled it (hostile round 8 L7,
    for reproduce); one check for every --scheduler."""
    for bad in ("synchronous", "tcp://host", "", "tcp://host:99999"):
        code, _, err = call([*ARGS, "--scheduler", bad, "--out", str(tmp_path / "s")], capsys)
        assert code == 2 and err == (  # a usage error: no scheduler has such an address
            f"baygo: error: Invalid value for '--scheduler': {bad!r} is not a scheduler address "
            "(tcp://HOST:PORT); for local workers use --jobs\n"
        )
    assert not (tmp_path / "s").exists()  # refused before the folder was made


@pytest.mark.parametrize("as_csv", [False, True])
def test_a_sweep_never_replaces_another_commands_table(tmp_path, capsys, as_csv):
    """`sweep --out X` after (or while) `compare --out X` replaced the compare's
    results table with its own, without --force (hostile round 9, M6)."""
    import hashlib

    csv = ["--csv"] if as_csv else []
    compare = ["compare", "--seeds", "2", "--steps", "3", "--agents", "3", "--grid", "9",
               "--jobs", "1", "--strategies", "baygo,nocol", "--out", str(tmp_path)]  # fmt: skip
    compare += csv
    assert call(compare, capsys)[0] == 0
    table = tmp_path / ("results.csv" if as_csv else "results.parquet")
    digest = hashlib.sha256(table.read_bytes()).hexdigest()
    for sweep_csv in ([], ["--csv"]):  # its table over the compare's, or beside it
        code, _, err = call([*ARGS, "--out", str(tmp_path), *sweep_csv], capsys)
        assert code == 1 and err.startswith(f"baygo: error: --out: {table}: is not a sweep's")
        assert hashlib.sha256(table.read_bytes()).hexdigest() == digest
        assert not (tmp_path / "tasks").exists()  # refused before the work
    code, out, _ = call([*ARGS, "--out", str(tmp_path), "--force"], capsys)
    assert code == 0 and f"wrote {tmp_path / 'results.parquet'} (8 rows)" in out


def test_a_scheduler_that_does_not_answer_is_refused_before_any_work(tmp_path, capsys):
    """A well-formed address with nothing listening was dialled only after the work, a
    30 s time-out in Dask's words (hostile round 9, M4)."""
    import socket

    with socket.socket() as free:  # a port nothing listens on: bound, never listening
        free.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{free.getsockname()[1]}"
        code, _, err = call([*ARGS, "--scheduler", address, "--out", str(tmp_path / "s")],
                            capsys)  # fmt: skip
    assert code == 1 and err.startswith(
        f"baygo: error: --scheduler: no Dask scheduler answers at {address} (connection refused)"
    )
    assert not (tmp_path / "s").exists()


def test_sweep_takes_the_samples_its_advice_names(tmp_path, capsys, monkeypatch):
    """`sweep --param agents=400` advised `--samples 4000`, an option sweep did not have
    (hostile round 9, M11)."""
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    many = ["sweep", "--param", "agents=400", "--seeds", "1", "--steps", "2", "--jobs", "1",
            "--out", str(tmp_path / "s")]  # fmt: skip
    code, _, err = call(many, capsys)
    assert code == 1 and err.rstrip().endswith("CLI --samples 4000)")
    code, out, _ = call([*many, "--samples", "4000", "--json"], capsys)
    assert code == 0 and json.loads(out)["data"] == "synthetic (n=4000)"
    code, _, err = call([*many, "--samples", "4000", "--model", "mean"], capsys)
    assert code == 2 and "--samples sizes the bodyfat data; --model mean" in err


_KILLED = """
import multiprocessing, os, signal
import baygo_graph as bg
from baygo_graph.strategies import ChoiceStrategy

class Killed(ChoiceStrategy):
    name = "killedworker"

    def choose(self, t, *, model, state, listen, rng, choices):
        if t == 2 and multiprocessing.parent_process() is not None:  # in a worker only
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer does
        return model.most_divergent(state, listen=listen, rng=rng)

bg.strategies.register("killedworker", Killed)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL (POSIX)")
def test_a_worker_killed_mid_run_is_one_line(tmp_path):
    """A loky worker killed while a sweep runs (the OOM killer, a crash in compiled code)
    gave a 46-55-line traceback ending in TerminatedWorkerError (hostile round 13, R2):
    one line now, naming what happened and what to do, exit code 1. (In a process of its
    own: the plug-in stays loaded in the process that loads it.)"""
    plugin = tmp_path / "killed_plugin.py"
    plugin.write_text(_KILLED)
    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = ["--plugin", str(plugin), "sweep", "--strategies", "killedworker", "--seeds",
            "6", "--steps", "6", "--param", "agents=4", "--param", "grid=5", "--jobs", "2",
            "--out", str(tmp_path / "k"), "--no-progress"]  # fmt: skip
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, env=env, timeout=300)  # fmt: skip
    err = done.stderr.splitlines()
    assert done.returncode == 1 and len(err) == 1, done.stderr
    assert err[0].startswith("baygo: error: a worker process died") and "SIGKILL" in err[0]
    assert len(err[0]) <= 300


def test_a_sweeps_warnings_are_said_once_for_the_command(tmp_path, capsys):
    """A sweep claims its tasks in batches (4 x jobs) and said each batch's warnings:
    40 runs gave 10 'k warning(s) in 4 runs' lines, none with the total (hostile round
    13, R3); one line per category now, counting every run."""
    from baygo_graph.cli import main

    argv = ["sweep", "--strategies", "baygo", "--seeds", "12", "--steps", "8", "--param",
            "agents=4", "--param", "grid=5", "--jobs", "1", "--out", str(tmp_path / "w"),
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if " in 12 runs" in line]
    assert len(notes) == 1 and " in 12 runs; first: " in notes[0], notes


@pytest.mark.parametrize("seeds", ["150000", "3000000", "10000", "99999999999999999999999"])
@pytest.mark.parametrize("command", ["sweep-one", "sweep-many", "reproduce"])
def test_a_budget_refusal_keeps_its_numbers_whole(tmp_path, capsys, monkeypatch, seeds,
                                                  command):  # fmt: skip
    """sweep's and reproduce's budget refusals were 313-character lines cut through the
    budget's own numbers ("... this process alr... (75 more characters) ...": hostile16
    U1): every one, at the fewest and the most tasks, fits one line whole."""
    from baygo_graph.cli import main

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "300000000")  # a long spelling of 300M
    monkeypatch.setattr("baygo_graph.limits.process_memory", lambda: 161_400_000)
    monkeypatch.setattr("baygo_graph.limits.physical_memory", lambda: 25_200_000_000)
    many = ["--param", "agents=3,4,5,6,7,8,9,10", "--param", "delta=0.1,0.2,0.3,0.4,0.5,0.6",
            "--param", "batch=1,2,3,4,5", "--strategies", "baygo,nocol,complete"]  # fmt: skip
    argv = {
        "sweep-one": ["sweep", "--param", "agents=3", "--strategies", "baygo"],
        "sweep-many": ["sweep", *many],
        "reproduce": ["reproduce", "--agents", "3", "--grid", "5", "--no-video"],
    }[command] + ["--seeds", seeds, "--steps", "3", "--jobs", "1", "--out", str(tmp_path / "o")]
    if seeds == "10000" and command != "sweep-many":
        return  # within the budget: it would run
    assert main(argv) == 1
    (line,) = capsys.readouterr().err.splitlines()
    message = line.removeprefix("baygo: error: ")
    assert len(message) <= 300 and "more characters)" not in line, line
    assert " held, " in line and ("over the memory budget of 286.1 MiB (BAYGO_MEMORY_LIMIT="
                                  "300000000)" in line or "more than this machine's memory (23.5 "
                                  "GiB; the budget: 286.1 MiB)" in line)  # fmt: skip
    assert line.endswith(("to run it", "values", "--steps"))
    assert not (tmp_path / "o").exists()
