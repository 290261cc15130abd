"""Class 6: file modes, stale temporary files, overwrite, sweep claims and workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import baygo_graph as bg
from baygo_graph.experiments.locks import claim, held, release
from baygo_graph.io.atomic import atomic_text, atomic_write, clean_stale_tmp, umask_mode


@pytest.fixture
def umask027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_files_follow_the_umask(tmp_path, umask027, saved_runs):
    assert umask_mode() == 0o640
    p = atomic_write(tmp_path / "a.bin", lambda fh: fh.write(b"x"))
    assert p.stat().st_mode & 0o777 == 0o640
    run = saved_runs["cen"][0]
    assert run.save(tmp_path / "r").stat().st_mode & 0o777 == 0o640


def test_stale_tmp_files_are_removed_by_writers(tmp_path):
    dead = _dead_pid()
    old, fresh, alive = (
        tmp_path / f".a.npz.baygo-{dead}-abcd1234.tmp",
        tmp_path / f".b.json.baygo-{dead}-efgh5678.tmp",
        tmp_path / f".c.json.baygo-{os.getpid()}-ijkl9012.tmp",
    )
    # the user's own files, named like temporary files of other tools (or of ours,
    # in the older naming): never touched, however old
    users = [tmp_path / n for n in ("keep.tmp", ".notes.tmp", ".a.npz.x1.tmp", ".x.baygo-1.tmp")]
    for p in (old, fresh, alive, *users):
        p.write_bytes(b"half")
    two_hours_ago = time.time() - 7200
    for p in (old, alive, *users):
        os.utime(p, (two_hours_ago, two_hours_ago))
    atomic_write(tmp_path / "c.bin", lambda fh: fh.write(b"x"))
    assert not old.exists() and fresh.exists() and alive.exists()
    assert all(p.read_bytes() == b"half" for p in users)
    assert clean_stale_tmp(tmp_path, older_than=0) == [fresh]
    assert alive.exists() and all(p.exists() for p in users)  # a live writer's file is kept
    assert clean_stale_tmp(tmp_path / "missing") == []


def test_atomic_write_names_a_file_in_the_way(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError) as info:
        atomic_text(tmp_path / "f" / "a" / "b.json", "{}")
    assert str(info.value) == f"{tmp_path}/f/a/b.json: parent {tmp_path}/f is a file, not a folder"
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError) as info:
        atomic_text(tmp_path / "d", "{}")
    assert str(info.value) == f"{tmp_path}/d: is a folder, not a file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "f"]  # no temporary file left
    assert list((tmp_path / "d").iterdir()) == []


def test_save_refuses_to_overwrite(tmp_path, saved_runs):
    a, b = saved_runs["cen"][0], saved_runs["fixed"][0]
    path = a.save(tmp_path)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        b.save(tmp_path)
    assert bg.Run.load(path) == a
    b.save(tmp_path, overwrite=True)
    assert bg.Run.load(path) == b


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_claims(tmp_path):
    p = tmp_path / "t.claim"
    assert claim(p) and not claim(p) and held(p)
    release(p)
    assert not held(p) and claim(p)
    release(p)
    release(p)  # not held: nothing happens
    # a claim file left behind by a dead process (or the user's file) does not block
    p.write_text(json.dumps({"pid": 1, "host": "elsewhere", "time": time.time()}))
    assert claim(p)
    release(p)


HOLD = """
import sys, time
from baygo_graph.experiments.locks import claim
assert claim(sys.argv[1])
print("held", flush=True)
time.sleep(60)
"""


def test_a_killed_holder_gives_its_claim_back(tmp_path):
    p = tmp_path / "k.claim"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(p)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "held"
        assert not claim(p)  # another live process holds it
    finally:
        child.kill()
        child.wait()
    assert claim(p)  # the kernel released the dead holder's lock: no staleness guess
    release(p)


RACE = """
import sys, time
from baygo_graph.experiments.locks import claim
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
print(int(claim(sys.argv[1])), flush=True)
sys.stdin.read()  # a claim lasts as long as its holder: hold it until every racer tried
"""


def test_one_process_wins_a_claim(tmp_path):
    start = time.time() + 3.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(tmp_path / "x.claim"), str(start)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    wins = [int(p.stdout.readline()) for p in procs]
    for p in procs:
        p.communicate(timeout=120)
    assert sorted(wins) == [0, 0, 0, 1]


SWEEP = """
import importlib, json, sys, time
from baygo_graph import synthetic_bodyfat
sw = importlib.import_module("baygo_graph.experiments.sweep")
real = sw._run_task
def logged(task, dataset):
    with open(sys.argv[2], "a") as fh:
        fh.write(task["id"] + "\\n")
    time.sleep(0.4)  # long enough for the two sweeps to overlap
    return real(task, dataset)
sw._run_task = logged
table = sw.sweep({"delta": [0.3, 0.5, 0.7]}, strategies=["baygo", "nocol"], seeds=2, steps=3,
                 out=sys.argv[1], data=synthetic_bodyfat(), n_jobs=1, progress=False)
print(json.dumps(sorted(table["id"])))
"""


def test_concurrent_identical_sweeps_share_the_work(tmp_path):
    out, logs = tmp_path / "sweep", [tmp_path / "a.log", tmp_path / "b.log"]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SWEEP, str(out), str(log)], stdout=subprocess.PIPE, text=True
        )
        for log in logs
    ]
    tables = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    ran = [line for log in logs if log.exists() for line in log.read_text().split()]
    assert tables[0] == tables[1] and len(tables[0]) == 12
    assert sorted(ran) == tables[0]  # every task computed exactly once
    print(f"tasks run by each sweep: {[len(log.read_text().split()) for log in logs]}")
    assert not list((out / "tasks").glob("*.claim"))  # every lock given back


def _children(parent: int) -> set[int]:
    """Pids of the live processes whose parent is ``parent`` (from /proc)."""
    kids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            kids.add(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


GATED_SWEEP = """
import importlib, os, sys, time
from pathlib import Path
from baygo_graph import synthetic_bodyfat
sw = importlib.import_module("baygo_graph.experiments.sweep")
FOLDER = Path(sys.argv[1])
def gated(task, shared):  # in a worker: say it started, wait for the gate, run a tiny task
    from baygo_graph.experiments.sweep import _run_task  # the worker's own, unpatched
    with open(FOLDER / "started", "a") as fh:
        fh.write(f"{os.getpid()}\\n")
    while not (FOLDER / "gate").exists():
        time.sleep(0.05)
    return _run_task(task, shared)
sw._run_task = gated
sw.sweep({"delta": [0.1 * i for i in range(1, 10)]}, seeds=2, steps=3,
         out=FOLDER / "out", data=synthetic_bodyfat(), n_jobs=2, progress=False)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_interrupted_sweep_leaves_no_process(tmp_path, sig):
    """Workers stopped mid-task (each waits at a gate the test opens only after the
    signal), then every process of the sweep gone. Tiny tasks: an orphaned worker ends
    in seconds however loaded the machine (400-step tasks took over 300 s there)."""
    import signal

    log = open(tmp_path / "stderr.txt", "w")  # noqa: SIM115 - a worker may outlive the parent
    child = subprocess.Popen([sys.executable, "-c", GATED_SWEEP, str(tmp_path)], stderr=log)
    started = tmp_path / "started"

    def in_tasks() -> set[str]:
        return set(started.read_text().split()) if started.exists() else set()

    seen, deadline = set(), time.time() + 300  # workers start slowly on a loaded machine
    while time.time() < deadline and len(in_tasks()) < 2 and child.poll() is None:
        seen |= _children(child.pid)
        time.sleep(0.1)
    seen |= _children(child.pid)
    workers = {k for p in seen for k in _children(p)} | seen  # loky workers and trackers
    assert len(in_tasks()) == 2, "the sweep's two processes never were in a task together"
    # n_jobs=2: the sweep's own process takes tasks beside its one worker
    assert {int(p) for p in in_tasks()} <= workers | {child.pid}
    child.send_signal(getattr(signal, sig))
    (tmp_path / "gate").touch()  # after the signal: tasks in flight (and any later) end now
    child.wait(timeout=300)
    log.close()
    deadline = time.time() + 300  # a cap only: tiny tasks, the wait ends as they end
    while any(_alive(p) for p in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)]
    if sig == "SIGINT":
        assert not list((tmp_path / "out" / "tasks").glob("*.claim"))  # claims given back


def test_two_sweeps_of_different_parameters_at_once_leave_one_table_of_both(tmp_path):
    """Both said `wrote swc/results.parquet`, the table then holding one sweep's rows and
    an empty lock file left (hostile round 8, L9). Whatever the timing, the later table
    write (under the folder's lock) sees every task of the earlier sweep finished."""
    import pandas as pd

    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    out = tmp_path / "swc"
    base = ["sweep", "--param", "agents=4", "--param", "grid=9", "--strategies", "baygo",
            "--seeds", "2", "--steps", "3", "--jobs", "1", "--out", str(out)]  # fmt: skip
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, *base, "--param", f"delta={deltas}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for deltas in ("0.1,0.2", "0.3,0.4")
    ]
    said = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], said
    wrote = [line for text, _ in said for line in text.splitlines() if line.startswith("wrote")]
    assert len(wrote) == 2
    assert all(line.startswith(f"wrote {out}/results.parquet (") for line in wrote)
    assert f"wrote {out}/results.parquet (8 rows: 4 of this sweep, 4 of other sweeps in this " \
        "folder)" in wrote  # fmt: skip
    table = pd.read_parquet(out / "results.parquet")
    assert sorted(table["delta"]) == [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4]
    assert sorted(p.name for p in out.iterdir()) == [".baygo-files.json", "results.parquet",
                                                     "tasks"]  # fmt: skip
