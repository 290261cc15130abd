"""experiments.runner: one task runner for compare, sweep and the reproduction."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from baygo_graph.experiments.runner import Ahead, n_workers, run_tasks, spawn_seeds


def draw(task, shared):
    """A task that depends only on its seed and the shared data (module level: picklable)."""
    seq, scale = task
    return float(np.random.default_rng(seq).normal() * scale + shared["offset"])


def noisy(task, shared):
    warnings.warn(f"task {task} is noisy", UserWarning, stacklevel=1)
    if task % 2:
        warnings.warn("odd", FutureWarning, stacklevel=1)
    return task * shared


def test_spawned_seeds_are_the_children_of_the_root():
    root, kids = spawn_seeds(11, 3)
    ref = np.random.SeedSequence(11).spawn(3)
    assert root.entropy == 11
    assert [k.generate_state(2).tolist() for k in kids] == [
        k.generate_state(2).tolist() for k in ref
    ]
    gen = np.random.default_rng(5)
    _, a = spawn_seeds(gen, 1)
    _, b = spawn_seeds(gen, 1)  # the Generator moved on: a different root
    assert a[0].generate_state(1) != b[0].generate_state(1)


def test_same_results_for_one_and_two_workers():
    _, kids = spawn_seeds(3, 9)
    tasks = [(k, i + 1.0) for i, k in enumerate(kids)]
    shared = {"offset": 10.0}
    one = run_tasks(draw, tasks, shared=shared, n_jobs=1, progress=False)
    two = run_tasks(draw, tasks, shared=shared, n_jobs=2, progress=False)
    ref = [draw(t, shared) for t in tasks]
    assert one == two == ref


def where(task, shared):
    """The process a task ran in."""
    import os
    import time

    time.sleep(0.01)
    return os.getpid()


def test_this_process_takes_tasks_beside_its_worker():
    import os

    out = run_tasks(where, list(range(40)), n_jobs=2, progress=False, first_here=False)
    assert os.getpid() in out  # this process ran tasks
    assert len(set(out)) == 2  # and one worker the others


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_warnings_are_captured_and_reemitted_once_per_category(n_jobs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run_tasks(noisy, list(range(5)), shared=3, n_jobs=n_jobs, progress=False)
    assert out == [0, 3, 6, 9, 12]
    messages = sorted((w.category.__name__, str(w.message)) for w in caught)
    assert messages == [
        ("FutureWarning", "2 warnings in 5 runs; first: odd"),
        ("UserWarning", "5 warnings in 5 runs; first: task 0 is noisy"),
    ]


def test_notes_collects_the_warnings_for_the_caller_to_say_once():
    """A caller that runs its tasks in several calls (a sweep claims batches) collects
    the warnings and says them once: a sweep of 40 runs printed 10 'k warning(s) in 4
    runs' lines, none with the total (hostile round 13, R3)."""
    notes: list = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for batch in ([0, 1], [2, 3]):
            run_tasks(noisy, batch, shared=1, n_jobs=1, progress=False, notes=notes)
    said = [m for c, m in notes if c is UserWarning]
    assert said == [f"task {t} is noisy" for t in range(4)]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_callback_once_per_task_with_its_result(n_jobs):
    seen = []
    out = run_tasks(
        noisy, list(range(6)), shared=2, n_jobs=n_jobs, progress=False, notes=[],
        on_result=lambda task, result: seen.append((task, result)),
    )  # fmt: skip
    assert sorted(seen) == [(t, 2 * t) for t in range(6)]
    assert out == [2 * t for t in range(6)]


def test_progress_bar_off_by_default_when_stderr_is_not_a_tty(capsys):
    run_tasks(noisy, [0, 2], shared=1, n_jobs=1, notes=[])
    assert capsys.readouterr().err == ""
    run_tasks(noisy, [0, 2], shared=1, n_jobs=1, notes=[], progress=True, desc="here")
    assert "here" in capsys.readouterr().err


def test_bad_n_jobs_fails_before_any_task():
    seen = []
    with pytest.raises(ValueError, match="n_jobs must be None or a non-zero integer, got 0"):
        run_tasks(noisy, [1], shared=1, n_jobs=0, on_result=lambda t, r: seen.append(t))
    assert seen == []
    assert n_workers(-1, 100) >= 1 and n_workers(3, 2) == 2


def test_empty_task_list():
    assert run_tasks(noisy, [], shared=1, n_jobs=2, progress=False) == []


def threads_here(task, shared):
    """BLAS threads and row-pass threads where the task runs."""
    from threadpoolctl import threadpool_info

    from baygo_graph.models.rows import num_threads

    blas = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
    return blas, num_threads()


def test_worker_processes_times_their_threads_never_exceed_the_cores():
    from joblib import cpu_count

    cores = cpu_count()
    out = run_tasks(threads_here, list(range(4)), n_jobs=cores, progress=False, first_here=False)
    assert all(cores * blas <= max(cores, 1) for blas, _ in out)
    assert all(cores * rows <= max(cores, 1) for _, rows in out)


def test_a_dask_task_runs_on_one_blas_and_one_row_thread():
    from baygo_graph.experiments.runner import _call

    (blas, rows), notes = _call(threads_here, 0, None, 1)
    assert (blas, rows, notes) == (1, 1, [])


# -- Batched: the tasks of one group in one call ----------------------------------------
def times_one(task, shared):
    """``task * shared``; task 13 fails (a worker's error)."""
    if task == 13:
        raise ValueError(f"task {task} is unlucky")
    warnings.warn(f"one {task}", UserWarning, stacklevel=1)
    return (task * shared, "one")


def times_many(tasks, shared):
    """The tasks of one group at once: the same numbers, marked as made together."""
    if 13 in tasks:
        raise ValueError("a group with 13 fails as a whole")
    assert len({t // 10 for t in tasks}) == 1, f"mixed groups {tasks}"
    warnings.warn(f"many {tasks}", UserWarning, stacklevel=1)
    return [(t * shared, f"many of {len(tasks)}") for t in tasks]


def tens(task):
    return task // 10


def _batched():
    from baygo_graph.experiments.runner import Batched

    return Batched(times_one, times_many, tens)


TASKS = [1, 2, 3, 4, 5, 6, 7, 21, 22, 23, 24, 25, 26, 8, 9, 30]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_batched_groups_run_together_results_per_task_in_order(n_jobs):
    seen = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run_tasks(_batched(), TASKS, shared=2, n_jobs=n_jobs, progress=False,
                        on_result=lambda t, r: seen.append(t))  # fmt: skip
    assert [r[0] for r in out] == [2 * t for t in TASKS]
    assert sorted(seen) == sorted(TASKS)  # one call back per task
    # the first task alone in this process, then consecutive tasks of one group together
    # (never across groups: times_many asserts it); a lone task takes `one`
    assert out[0][1] == "one" and out[-1][1] == "one"
    made = [r[1] for r in out]
    if n_jobs == 1:
        assert made == ["one"] + ["many of 6"] * 6 + ["many of 6"] * 6 + ["many of 2"] * 2 + ["one"]
    assert "many of 2" in made
    (w,) = [x for x in caught if issubclass(x.category, UserWarning)]
    assert str(w.message).endswith(f"in {len(TASKS)} runs; first: one 1")


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_failing_group_runs_again_task_by_task_and_names_its_task(n_jobs):
    with pytest.raises(ValueError, match="task 13 is unlucky"):
        run_tasks(_batched(), [1, 11, 12, 13, 14], shared=1, n_jobs=n_jobs, progress=False,
                  notes=[])  # fmt: skip
    out = run_tasks(_batched(), [11, 12, 14], shared=1, n_jobs=1, progress=False, notes=[])
    assert out == [(11, "one"), (12, "many of 2"), (14, "many of 2")]


def test_batched_groups_on_a_dask_cluster_give_the_same_results():
    distributed = pytest.importorskip("distributed")
    tasks = TASKS
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:  # fmt: skip
        with distributed.Client(cluster) as client:
            out = run_tasks(_batched(), tasks, shared=3, scheduler=client, progress=False,
                            notes=[], key=lambda i, t: f"task-{i}")  # fmt: skip
    assert [r[0] for r in out] == [3 * t for t in tasks]
    assert any(r[1].startswith("many") for r in out)


def threads_of_each(tasks, shared):
    return [threads_here(t, shared) for t in tasks]


def test_a_dask_group_runs_on_one_blas_and_one_row_thread():
    from baygo_graph.experiments.runner import Batched, _call_group

    fn = Batched(threads_here, threads_of_each, tens)
    out = _call_group(fn, [(0, 1), (1, 2), (2, 3)], None, 1)
    assert [(i, r) for i, r, _ in out] == [(0, (1, 1)), (1, (1, 1)), (2, (1, 1))]


def _double(task, shared):
    return 2 * task + shared


def test_the_runners_pool_leaves_joblib_parallel_working_in_the_same_process():
    """The runner's local pool is joblib's reusable executor: a pool made by loky's own
    ``get_reusable_executor`` broke the process's next ``joblib.Parallel`` (a partitioned
    analysis after a run: AttributeError '_temp_folder_manager')."""
    from joblib import Parallel, delayed

    assert run_tasks(_double, list(range(8)), shared=1, n_jobs=2) == [2 * t + 1 for t in range(8)]
    assert Parallel(n_jobs=2, backend="loky")(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]


def test_a_worker_ends_without_teardown_and_keeps_its_output():
    """Workers end with os._exit once loky's clean-up has run (no ~0.3 s teardown each):
    what a task wrote to stdout without a newline or flush still comes out."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "from baygo_graph.experiments.runner import run_tasks\n"
        "def say(task, shared):\n"
        "    import os, sys\n"
        "    sys.stdout.write(f'<task {task} in {os.getpid()}>')\n"
        "    return os.getpid()\n"
        "pids = run_tasks(say, list(range(8)), n_jobs=2, progress=False, first_here=False)\n"
        "sys.stdout.write(f'<pids {len(set(pids))} main {os.getpid()}>')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert all(f"<task {k} in " in done.stdout for k in range(8)), done.stdout
    assert "<pids 2 main " in done.stdout  # the command and its worker both ran tasks


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_task_started_ahead_runs_beside_this_process_and_gives_its_warnings(n_jobs):
    """Started ahead, a task runs on the worker run_tasks uses (with two processes) while
    this process goes on, or here when asked (one process); its result and warnings
    come back as run_tasks' would."""
    import os

    ahead = Ahead(noisy, 3, shared=2, n_jobs=n_jobs, n_tasks=4)
    here = run_tasks(where, list(range(8)), n_jobs=n_jobs, progress=False, first_here=False)
    result, notes = ahead.result()
    assert result == 6 and ahead.result() == (result, notes)
    assert notes == [(UserWarning, "task 3 is noisy"), (FutureWarning, "odd")]
    there = Ahead(where, 0, n_jobs=n_jobs, n_tasks=4).result()[0]
    assert (there == os.getpid()) is (n_jobs == 1)
    assert n_jobs == 1 or there in here  # the worker of run_tasks, kept
