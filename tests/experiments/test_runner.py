"""experiments.runner: one task runner for compare, sweep and the reproduction."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from baygo_graph.experiments.runner import n_workers, run_tasks, spawn_seeds


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


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_warnings_are_captured_and_reemitted_once_per_category(n_jobs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run_tasks(noisy, list(range(5)), shared=3, n_jobs=n_jobs, progress=False)
    assert out == [0, 3, 6, 9, 12]
    messages = sorted((w.category.__name__, str(w.message)) for w in caught)
    assert messages == [
        ("FutureWarning", "2 warning(s) in 5 runs; first: odd"),
        ("UserWarning", "5 warning(s) in 5 runs; first: task 0 is noisy"),
    ]


def test_warn_false_keeps_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run_tasks(noisy, [0, 1], shared=1, n_jobs=1, progress=False, warn=False) == [0, 1]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_callback_once_per_task_with_its_result(n_jobs):
    seen = []
    out = run_tasks(
        noisy, list(range(6)), shared=2, n_jobs=n_jobs, progress=False, warn=False,
        on_result=lambda task, result: seen.append((task, result)),
    )  # fmt: skip
    assert sorted(seen) == [(t, 2 * t) for t in range(6)]
    assert out == [2 * t for t in range(6)]


def test_progress_bar_off_by_default_when_stderr_is_not_a_tty(capsys):
    run_tasks(noisy, [0, 2], shared=1, n_jobs=1, warn=False)
    assert capsys.readouterr().err == ""
    run_tasks(noisy, [0, 2], shared=1, n_jobs=1, warn=False, progress=True, desc="here")
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
