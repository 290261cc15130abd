"""Parameter sweeps: many (parameters, strategy, seed) runs, in parallel, resumable.

:func:`sweep` runs the Cartesian product of parameter values x strategies x
seeds, on local cores (joblib) or on a Dask cluster (``scheduler=ADDRESS``), and
collects one tidy table with a row per (parameters, strategy, seed).

Tasks run on :func:`~baygo_graph.experiments.runner.run_tasks`. Storage
(folder ``out``):

* ``tasks/<id>.json`` - one small file per finished task, written atomically
  (temporary file + rename) by the process that launched the sweep as soon as
  the task's result arrives. ``<id>`` hashes everything that determines the run
  (parameters, strategy, seed index, root seed, steps, data fingerprint,
  package version). A sweep started again on the same folder skips every task
  whose file is there, so an interrupted sweep keeps what finished and resumes
  without redoing it.
* ``tasks/<id>.claim`` - an OS file lock held while a task runs (see
  :mod:`baygo_graph.experiments.locks`; released by the kernel if the process
  dies). Concurrent sweeps on one folder skip locked tasks and wait for them;
  each task is computed once.
* ``results.csv`` - the table of the sweep's tasks, rewritten (atomically) at
  the end.

Seeds: seed ``s`` of a sweep with root seed ``rng`` is the ``s``-th child of
``numpy.random.SeedSequence(rng)`` (``SeedSequence.spawn``), for every
parameter combination and strategy alike (common random numbers: the same data
split and batches where the parameters allow). Each task is a pure function of
its id, so the table is the same whatever the backend and the number of
workers (apart from the ``seconds`` column, the run's wall time).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._text import csv_frame
from .._validate import check_int, check_real, is_plain_row
from .._version import __version__
from ..data import Dataset, paper_split, resolve_data
from ..exceptions import GridResolutionWarning
from ..io.atomic import atomic_text
from ..learning import simulate
from ..strategies import STRATEGY_NAMES, physical_graph
from .locks import claim, release
from .runner import run_tasks

__all__ = ["PARAMETERS", "sweep", "task_id"]

#: Parameters a sweep can vary, with their types and the value used when absent.
PARAMETERS = {
    "delta": (float, 0.5),
    "agents": (int, 12),
    "batch": (int, 1),
    "grid": (int, 61),
    "physical": (str, "complete"),
    "steps": (int, 60),
}
#: Smallest value of each integer parameter (delta is checked to lie in [0, 1]).
_MINIMUM = {"agents": 2, "batch": 1, "grid": 2, "steps": 1}
_TASKS = "tasks"
_TABLE = "results.csv"
#: Task files larger than this (bytes) are not rows of ours: redone, never parsed.
_ROW_MAX = 65_536
#: Row fields that must be real numbers (a task file with a text here is redone).
_ROW_NUMBERS = ("final_mse_informative", "final_mse_others_mean", "seconds", "seed")
#: Seconds between checks while concurrent sweeps finish the tasks they claimed.
_POLL = 2.0


def _data_fingerprint(dataset: Dataset) -> str:
    frame = dataset.frame[["Abdomen", "BodyFat"]].to_numpy(dtype=float)
    return hashlib.sha1(np.ascontiguousarray(frame).tobytes()).hexdigest()[:16]


def task_id(task: dict) -> str:
    """The identity of a task: a hash of everything that determines its run.

    Examples
    --------
    >>> a = task_id({"strategy": "baygo", "seed": 0, "delta": 0.5})
    >>> a == task_id({"delta": 0.5, "seed": 0, "strategy": "baygo"}), len(a)
    (True, 16)
    """
    blob = json.dumps(task, sort_keys=True, default=str)
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


def _check_grid(grid: dict) -> dict:
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict of parameter -> list of values, got {type(grid)}")
    out = {}
    for name, values in grid.items():
        if name not in PARAMETERS:
            raise ValueError(
                f"grid has an unknown parameter {name!r}: choose from {sorted(PARAMETERS)} "
                "(strategies go in strategies=)"
            )
        vals = [values] if isinstance(values, str | int | float) else list(values)
        if not vals:
            raise ValueError(f"grid[{name!r}] must list at least one value, got {values!r}")
        kind = PARAMETERS[name][0]
        try:
            converted = [kind(v) for v in vals]
            if kind is int and any(float(v) != c for v, c in zip(vals, converted, strict=True)):
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(
                f"grid[{name!r}] must hold {kind.__name__} values, got {values!r}"
            ) from None
        for v in converted:  # checked here, not in the workers after the folder is made
            if name == "delta":
                check_real(f"grid[{name!r}]", v, low=0.0, high=1.0)
            elif name in _MINIMUM:
                check_int(f"grid[{name!r}]", v, minimum=_MINIMUM[name])
        out[name] = list(dict.fromkeys(converted))  # drop repeats, keep order
    return out


def _check_data_and_graphs(params: dict, dataset: Dataset) -> None:
    """Fail early: too many agents for the data, a physical graph that cannot be made."""
    agent_counts = params.get("agents", [PARAMETERS["agents"][1]])
    for agents in agent_counts:
        paper_split(dataset, agents=agents, rng=0)
    with warnings.catch_warnings():  # the tasks draw their own graphs (and warn there)
        warnings.simplefilter("ignore")
        for physical in params.get("physical", []):
            for agents in agent_counts:
                physical_graph(physical, agents)


def _check_strategies(strategies) -> list[str]:
    names = [strategies] if isinstance(strategies, str) else list(strategies)
    bad = [s for s in names if s not in STRATEGY_NAMES]
    if not names or bad:
        raise ValueError(f"strategies must be names from {STRATEGY_NAMES}, got {strategies!r}")
    return list(dict.fromkeys(names))


def _root_entropy(rng) -> int:
    if isinstance(rng, np.random.SeedSequence):
        if rng.spawn_key:
            raise ValueError("rng must be a root SeedSequence (no spawn_key)")
        return int(rng.entropy)
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0:
        raise ValueError(f"rng must be a non-negative int or a SeedSequence, got {rng!r}")
    return int(rng)


def _make_tasks(grid, strategies, n_seeds, root, steps, fingerprint) -> list[dict]:
    params = {name: grid.get(name, [default]) for name, (_, default) in PARAMETERS.items()}
    if steps is not None:
        params["steps"] = [int(steps)] if "steps" not in grid else params["steps"]
    names = list(params)
    tasks, seen = [], set()
    for combo in itertools.product(*(params[n] for n in names)):
        base = dict(zip(names, combo, strict=True))
        for strategy in strategies:
            task = dict(base, strategy=strategy)
            if strategy != "baygo":
                task["physical"] = None  # the physical graph only restricts BayGo
            for seed in range(n_seeds):
                full = dict(task, seed=seed, root_seed=root, data=fingerprint, version=__version__)
                tid = task_id(full)
                if tid not in seen:
                    seen.add(tid)
                    tasks.append(dict(full, id=tid))
    return tasks


def _run_task(task: dict, dataset: Dataset) -> dict:
    """Run one task and return its table row (executed in a worker)."""
    seq = np.random.SeedSequence(task["root_seed"], spawn_key=(task["seed"],))
    graph_seed = int(
        np.random.SeedSequence(task["root_seed"], spawn_key=(task["seed"], 1)).generate_state(1)[0]
    )
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GridResolutionWarning)
        physical = None
        if task["strategy"] == "baygo":
            physical = physical_graph(task["physical"], task["agents"], seed=graph_seed)
        run = simulate(
            task["strategy"],
            agents=task["agents"],
            steps=task["steps"],
            rng=seq,
            data=dataset,
            delta=task["delta"],
            batch=task["batch"],
            grid=task["grid"],
            physical=physical,
            progress=False,
        )
    seconds = time.perf_counter() - t0
    for w in caught:  # passed on to the runner, which reports them once
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    final = run.mse[-1]
    row = {k: task[k] for k in ("id", "strategy", *PARAMETERS, "seed")}
    row.update(
        final_mse_informative=float(final[run.informative]),
        final_mse_others_mean=float(np.delete(final, run.informative).mean()),
        seconds=seconds,
        grid_warning=any(issubclass(w.category, GridResolutionWarning) for w in caught),
        data=run.data_source,
        synthetic=run.synthetic,
        root_seed=task["root_seed"],
    )
    return row


def _claim_tasks(todo, task_dir: Path, done: dict, limit: int) -> list[dict]:
    """Up to ``limit`` tasks of ``todo`` this process claims (none another live sweep
    holds or finished): claimed a few at a time, so concurrent sweeps share the work."""
    mine = []
    for task in todo:
        if len(mine) >= limit:
            break
        path = task_dir / f"{task['id']}.claim"
        if not claim(path):
            continue
        found = _read_done(task_dir, {task["id"]})
        if found:  # finished by a concurrent sweep just before the claim
            release(path)
            done |= found
        else:
            mine.append(task)
    return mine


def _read_done(folder: Path, ids: set[str]) -> dict[str, dict]:
    """Rows of finished tasks found in ``folder`` (unreadable files are redone)."""
    done = {}
    for tid in ids:
        path = folder / f"{tid}.json"
        try:
            row = json.loads(path.read_text()) if path.stat().st_size < _ROW_MAX else None
        except (OSError, ValueError, RecursionError):  # e.g. nested a million deep
            continue
        if isinstance(row, dict) and row.get("id") == tid and is_plain_row(row, _ROW_NUMBERS):
            done[tid] = row
    return done


def sweep(
    grid: dict,
    *,
    strategies=("baygo",),
    seeds: int = 5,
    out,
    steps: int | None = None,
    data=None,
    n_jobs: int | None = None,
    scheduler=None,
    progress: bool | None = None,
    rng=0,
) -> pd.DataFrame:
    """Run every (parameters, strategy, seed) combination and tabulate final MSEs.

    Parameters
    ----------
    grid : dict of str -> list
        Values of each parameter to combine (Cartesian product): ``"delta"``,
        ``"agents"``, ``"batch"``, ``"grid"`` (points per axis), ``"steps"`` and
        ``"physical"`` (BayGo's physical graph by name, see
        :func:`~baygo_graph.strategies.physical_graph`; other strategies ignore
        it and run once, with ``physical`` empty in the table). Parameters not given take the
        defaults in :data:`PARAMETERS`.
    strategies : str or list of str, default ("baygo",)
        Strategy names (:data:`baygo_graph.strategies.STRATEGY_NAMES`).
    seeds : int, default 5
        Number of seeds; seed ``s`` is child ``s`` of ``SeedSequence(rng)``.
    out : str or os.PathLike
        Folder for the per-task files and ``results.csv`` (created if needed).
        Tasks already there are not run again.
    steps : int, optional
        Steps T of every run when ``grid`` has no ``"steps"`` (default 60).
    data : optional
        As in :func:`baygo_graph.simulate`; read once here and sent to workers.
    n_jobs : int, optional
        Local worker processes (joblib, loky backend); default: all cores.
        1 runs in this process.
    scheduler : str or distributed.Client, optional
        Address of a Dask scheduler (e.g. ``"tcp://10.0.0.5:8786"``) or a
        client: run the tasks on that cluster instead (needs the ``dask`` extra).
    progress : bool, optional
        Progress bar over tasks; default: when stderr is a terminal.
    rng : int or numpy.random.SeedSequence, default 0
        Root seed of the sweep.

    Returns
    -------
    pandas.DataFrame
        One row per task, sorted by parameters, strategy and seed: ``id``,
        ``strategy``, the parameters, ``seed``, ``final_mse_informative``,
        ``final_mse_others_mean``, ``seconds`` (run wall time),
        ``grid_warning`` (a GridResolutionWarning was raised), ``data``,
        ``synthetic``, ``root_seed``.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph import synthetic_bodyfat
    >>> with tempfile.TemporaryDirectory() as d:
    ...     table = sweep({"delta": [0.3, 0.7], "agents": [4]}, strategies=["baygo", "nocol"],
    ...                   seeds=2, steps=3, out=d, data=synthetic_bodyfat(), n_jobs=1,
    ...                   progress=False)
    ...     again = sweep({"delta": [0.3, 0.7], "agents": [4]}, strategies=["baygo", "nocol"],
    ...                   seeds=2, steps=3, out=d, data=synthetic_bodyfat(), n_jobs=1,
    ...                   progress=False)  # resumes: nothing left to run
    >>> len(table), table.equals(again)
    (8, True)
    """
    params = _check_grid(grid)
    names = _check_strategies(strategies)
    if isinstance(seeds, bool) or not isinstance(seeds, int | np.integer) or seeds < 1:
        raise ValueError(f"seeds must be an integer >= 1, got {seeds!r}")
    if steps is not None and (
        isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1
    ):
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    if n_jobs is not None and (
        isinstance(n_jobs, bool)
        or not isinstance(n_jobs, int | np.integer)
        or n_jobs == 0
        or n_jobs < -1
    ):
        raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs!r}")
    root = _root_entropy(rng)
    dataset = resolve_data(data)
    _check_data_and_graphs(params, dataset)
    tasks = _make_tasks(params, names, int(seeds), root, steps, _data_fingerprint(dataset))

    folder = Path(out)
    task_dir = folder / _TASKS
    created = [p for p in [task_dir, *task_dir.parents] if not p.exists()]
    task_dir.mkdir(parents=True, exist_ok=True)
    try:
        done = _run_all(tasks, task_dir, dataset, n_jobs, scheduler, progress)
    except BaseException:
        _remove_empty(created)  # a sweep that failed early leaves no empty folder behind
        raise
    table = pd.DataFrame([done[t["id"]] for t in tasks])
    keys = [*PARAMETERS, "strategy", "seed"]
    table = table.sort_values(keys, na_position="first", kind="stable").reset_index(drop=True)
    atomic_text(folder / _TABLE, csv_frame(table).to_csv(index=False))
    return table


def _remove_empty(created: list[Path]) -> None:
    """Remove the folders of ``created`` (innermost first) while they are empty."""
    for path in created:
        try:
            path.rmdir()
        except OSError:  # holds a finished task (kept for a resume) or is gone
            return


def _run_all(tasks, task_dir: Path, dataset, n_jobs, scheduler, progress) -> dict[str, dict]:
    """Run the tasks not yet finished in ``task_dir``; every task's row by id."""
    done = _read_done(task_dir, {t["id"] for t in tasks})

    def keep(task, row):  # as each task finishes: its file, atomically, then the claim
        atomic_text(task_dir / f"{row['id']}.json", json.dumps(row))
        release(task_dir / f"{row['id']}.claim")
        done[row["id"]] = row

    jobs = (os.cpu_count() or 1) if n_jobs in (None, -1) else int(n_jobs)
    chunk = 4 * jobs if scheduler is None else max(1, len(tasks))
    while todo := [t for t in tasks if t["id"] not in done]:
        mine = _claim_tasks(todo, task_dir, done, chunk)
        if not mine:  # the rest is claimed by live concurrent sweeps: wait for them
            time.sleep(_POLL)
        else:
            try:
                run_tasks(
                    _run_task,
                    mine,
                    shared=dataset,
                    n_jobs=jobs,
                    scheduler=scheduler,
                    progress=progress,
                    desc="sweep",
                    on_result=keep,
                    first_here=False,
                    key=lambda i, task: f"baygo-sweep-{task['id']}",
                )
            finally:  # interrupted: give back what did not finish
                for task in mine:
                    release(task_dir / f"{task['id']}.claim")
        done |= _read_done(task_dir, {t["id"] for t in todo} - done.keys())
    return done
