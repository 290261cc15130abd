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
  package version, and the definition of the strategy and of the model: their
  declared ``version`` or the text of the plug-in or module that defines them,
  :func:`~baygo_graph.experiments.plugins.definition`), so an edited plug-in
  re-runs its tasks. A sweep started again on the same folder skips every task
  whose file is there, so an interrupted sweep keeps what finished and resumes
  without redoing it.
* ``tasks/<id>.claim`` - an OS file lock held while a task runs (see
  :mod:`baygo_graph.experiments.locks`; released by the kernel if the process
  dies). Concurrent sweeps on one folder skip locked tasks and wait for them;
  each task is computed once.
* ``results.parquet`` - the table of every finished task in the folder's
  ``tasks/`` run by this sweep's code, data and model (a task of an edited
  plug-in, another version, other data or another model is left out, its row kept
  in ``tasks/``) (one row per task: categorical strategy, physical, data, model and
  loss; int32 counts; float64 results; the data source and synthetic flag in
  every row and in the file's metadata), rebuilt from ``tasks/`` and rewritten
  (atomically) at the end of each sweep while it holds the folder's lock
  (:func:`~baygo_graph.io.atomic.output_lock`, for the table write only): two
  sweeps of different parameters sharing a folder leave one table of both, the
  last written (the returned frame holds this sweep's rows only, and ``baygo
  sweep`` says how many rows are of other sweeps); ``results.csv`` instead with
  ``results_format="csv"`` (``baygo sweep --csv``). The other format's table,
  e.g. the ``results.csv`` of a folder written by an earlier version, is
  removed when the new one is written (it was rewritten at the end of every
  sweep anyway): one folder never holds two tables that disagree. Resuming
  reads ``tasks/``, never the table, so any folder resumes.

Seeds: seed ``s`` of a sweep with root seed ``rng`` is the ``s``-th child of
``numpy.random.SeedSequence(rng)`` (``SeedSequence.spawn``), for every
parameter combination and strategy alike (common random numbers: the same data
split and batches where the parameters allow). Each task is a pure function of
its id, so the table is the same whatever the backend and the number of
workers (apart from the ``seconds`` column, the run's wall time).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import stat
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._cluster import check_scheduler
from .._text import counted, csv_frame
from .._validate import check_bool, check_int, check_real, is_plain_row
from .._version import __version__
from ..data import Dataset
from ..defaults import PAPER
from ..exceptions import GridResolutionWarning
from ..io.atomic import atomic_text, atomic_write, check_target, make_folders, output_lock
from ..io.results import (
    RESULTS_FILES,
    check_results_format,
    check_tables,
    remove_stale_results,
    source_metadata,
)
from ..learning import simulate
from ..models import resolve_model
from ..strategies import (
    DEFAULT_STRATEGY,
    build_strategy,
    capabilities,
    physical_graph,
    strategy_factory,
    strategy_names,
)
from .locks import claim, release
from .plugins import definition
from .runner import reemit_warnings, run_tasks

__all__ = ["PARAMETERS", "fingerprint", "sweep", "task_id", "write_table"]

#: Parameters a sweep can vary, with their types and the value used when absent
#: (``grid``: the model's own grid when not varied; ``physical``: only strategies
#: whose capabilities take a physical graph keep it).
PARAMETERS = {
    "delta": (float, PAPER.delta),
    "agents": (int, PAPER.agents),
    "batch": (int, PAPER.batch),
    "grid": (int, PAPER.grid),
    "physical": (str, "complete"),
    "steps": (int, PAPER.steps),
}
#: Smallest value of each integer parameter (delta is checked to lie in [0, 1]).
_MINIMUM = {"agents": 2, "batch": 1, "grid": 2, "steps": 1}
_TASKS = "tasks"
#: Bytes a sweep holds per task while it runs: the task (about 620 B measured with
#: tracemalloc for 40,000 tasks), its id in the set of ids, its table row and the
#: table's share; counted against the memory budget before the task list is made.
SWEEP_BYTES_PER_TASK = 2048
#: Table columns stored as dictionary-encoded text (a pandas ``category``) in Parquet.
_CATEGORIES = ("strategy", "physical", "data", "model", "loss")
#: Table columns stored as int32 in Parquet (nullable: ``grid`` may be empty).
_INT32 = ("agents", "batch", "grid", "steps", "seed")
#: Task files larger than this (bytes) are not rows of ours: redone, never parsed.
_ROW_MAX = 65_536
#: Row fields that must be real numbers (a task file with a text here is redone).
_ROW_NUMBERS = ("final_mse_informative", "final_mse_others_mean", "seconds", "seed")
#: Seconds between checks while concurrent sweeps finish the tasks they claimed.
_POLL = 2.0
#: Seconds a sweep waits for its folder's lock (another sweep's table write) before
#: it gives up writing the table (its task rows stay: a resume writes it).
_TABLE_WAIT = 120.0
#: Seconds a sweep waits for its folder's lock before any work (another sweep's table
#: write is brief): a folder another baygo command holds is refused then, not after it.
_START_WAIT = 10.0
#: The order of a sweep's table.
_TABLE_KEYS = [*PARAMETERS, "strategy", "seed"]


def fingerprint(dataset: Dataset, model) -> str:
    """What a sweep's task ids hold of the data and the model: a hash of the data set's
    every column and value, and of the model's name, class, options and definition
    (:func:`~baygo_graph.experiments.plugins.definition`).

    Examples
    --------
    >>> from baygo_graph import synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> a = fingerprint(synthetic_bodyfat(), LinearRegression())
    >>> a == fingerprint(synthetic_bodyfat(), LinearRegression(grid=21)), len(a)
    (False, 16)
    """
    h = hashlib.sha1()
    frame = dataset.frame
    h.update(json.dumps([str(c) for c in frame.columns]).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    kind = type(model)
    h.update(f"{model.name}|{kind.__module__}.{kind.__qualname__}|{_options(model)}".encode())
    h.update(definition(model).encode())
    return h.hexdigest()[:16]


def _options(model) -> str:
    """The model's options as text (a dataclass's fields; else nothing more is known)."""
    if dataclasses.is_dataclass(model):
        fields = {f.name: getattr(model, f.name) for f in dataclasses.fields(model) if f.init}
        return json.dumps(fields, sort_keys=True, default=repr)
    return ""


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


def _check_grid(grid: dict, *, label=lambda name: f"grid[{name!r}]") -> dict:
    """The grid's values converted and checked; ``label(name)`` names a parameter in a
    message (the CLI: its ``--param`` name)."""
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
            raise ValueError(f"{label(name)} must list at least one value, got {values!r}")
        kind = PARAMETERS[name][0]
        try:
            converted = [kind(v) for v in vals]
            if kind is int and any(float(v) != c for v, c in zip(vals, converted, strict=True)):
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError(
                f"{label(name)} must hold {kind.__name__} values, got {values!r}"
            ) from None
        for v in converted:  # checked here, not in the workers after the folder is made
            if name == "delta":
                check_real(label(name), v, low=0.0, high=1.0)
            elif name in _MINIMUM:
                check_int(label(name), v, minimum=_MINIMUM[name])
        out[name] = list(dict.fromkeys(converted))  # drop repeats, keep order
    return out


def _check_data_and_graphs(params: dict, dataset: Dataset, model) -> None:
    """Fail early: too many agents for the data, a physical graph that cannot be made."""
    agent_counts = params.get("agents", [PARAMETERS["agents"][1]])
    for agents in agent_counts:
        model.split(dataset, agents=agents, informative=0, rng=np.random.default_rng(0))
    with warnings.catch_warnings():  # the tasks draw their own graphs (and warn there)
        warnings.simplefilter("ignore")
        for physical in params.get("physical", []):
            for agents in agent_counts:
                physical_graph(physical, agents)


def _check_strategies(strategies) -> dict:
    """``{name: factory}`` of the registered strategies named (factories go to workers)."""
    names = [strategies] if isinstance(strategies, str) else list(strategies)
    known = strategy_names()
    bad = [s for s in names if s not in known]
    if not names or bad:
        raise ValueError(
            f"strategies must be names from {known} (or registered with "
            f"baygo_graph.strategies.register), got {strategies!r}"
        )
    return {name: strategy_factory(name) for name in dict.fromkeys(names)}


def _takes_physical(factory, agents: int) -> bool:
    return capabilities(build_strategy(factory, agents=agents)).physical


def _root_entropy(rng) -> int:
    if isinstance(rng, np.random.SeedSequence):
        if rng.spawn_key:
            raise ValueError("rng must be a root SeedSequence (no spawn_key)")
        return int(rng.entropy)
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0:
        raise ValueError(f"rng must be a non-negative int or a SeedSequence, got {rng!r}")
    return int(rng)


def _check_tasks_budget(grid: dict, strategies, n_seeds: int) -> None:
    """The sweep's tasks (strategies x seeds x every combination of the grid's values)
    counted against the memory budget before one is made: a --seeds of 10^8 grew the
    process by 15-27 MB a second with no line (hostile round 14, S10)."""
    from ..limits import check_budget

    combos = math.prod(len(v) for v in grid.values())
    n = len(strategies) * n_seeds * combos

    def count(k, word, words=None):  # a count past 12 digits as 1e+23: the line stays whole
        return counted(k, word, words) if k < 10**12 else f"{k:.3g} {words or word + 's'}"

    sizes = ((len(strategies), "strategy", "strategies"), (n_seeds, "seed", None),
             (combos, "parameter set", None))  # fmt: skip
    factors = [count(k, word, words) for k, word, words in sizes if k > 1]
    check_budget(  # short words: the budget and its numbers fit in one line (hostile16 U1)
        n * SWEEP_BYTES_PER_TASK,
        what=f"a sweep of {count(n, 'task')}"
        + (f" ({' x '.join(factors)})" if len(factors) > 1 else ""),
        advice="pass fewer --seeds, --strategies or --param values",
    )


def _make_tasks(grid, strategies, n_seeds, root, steps, fingerprint, model) -> list[dict]:
    params = {name: grid.get(name, [default]) for name, (_, default) in PARAMETERS.items()}
    if steps is not None:
        params["steps"] = [int(steps)] if "steps" not in grid else params["steps"]
    if "grid" not in grid:  # the model's own grid
        params["grid"] = [_model_grid(model)]
    names = list(params)
    defined = {name: definition(factory) for name, factory in strategies.items()}
    tasks, seen = [], set()
    physical = {}  # (strategy, agents) -> takes a physical graph
    for combo in itertools.product(*(params[n] for n in names)):
        base = dict(zip(names, combo, strict=True))
        for strategy, factory in strategies.items():
            task = dict(base, strategy=strategy)
            task["definition"] = defined[strategy]
            key = (strategy, base["agents"])
            if key not in physical:
                physical[key] = _takes_physical(factory, base["agents"])
            if not physical[key]:
                task["physical"] = None  # a physical graph restricts only who takes one
            for seed in range(n_seeds):
                full = dict(task, seed=seed, root_seed=root, data=fingerprint, version=__version__)
                tid = task_id(full)
                if tid not in seen:
                    seen.add(tid)
                    tasks.append(dict(full, id=tid))
    return tasks


def _model_grid(model):
    grid = getattr(model, "grid", None)
    return int(grid) if isinstance(grid, int | np.integer) else None


def _run_task(task: dict, shared) -> dict:
    """Run one task and return its table row (executed in a worker)."""
    dataset, model, factories = shared
    if task["grid"] is not None and task["grid"] != _model_grid(model):
        model = resolve_model(model, grid=task["grid"])
    seq = np.random.SeedSequence(task["root_seed"], spawn_key=(task["seed"],))
    graph_seed = int(
        np.random.SeedSequence(task["root_seed"], spawn_key=(task["seed"], 1)).generate_state(1)[0]
    )
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GridResolutionWarning)
        physical = None
        if task["physical"] is not None:
            physical = physical_graph(task["physical"], task["agents"], seed=graph_seed)
        strategy = build_strategy(
            factories[task["strategy"]], agents=task["agents"], physical=physical
        )
        run = simulate(
            strategy,
            agents=task["agents"],
            steps=task["steps"],
            rng=seq,
            data=dataset,
            model=model,
            delta=task["delta"],
            batch=task["batch"],
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
        model=run.config.get("model"),
        loss=run.loss_name,
    )
    return row


def _claim_tasks(todo, task_dir: Path, done: dict, limit: int, dataset=None) -> list[dict]:
    """Up to ``limit`` tasks of ``todo`` this process claims (none another live sweep
    holds or finished): claimed a few at a time, so concurrent sweeps share the work."""
    mine = []
    for task in todo:
        if len(mine) >= limit:
            break
        path = task_dir / f"{task['id']}.claim"
        if not claim(path):
            continue
        found = _read_done(task_dir, [task], dataset)
        if found:  # finished by a concurrent sweep just before the claim
            release(path)
            done |= found
        else:
            mine.append(task)
    return mine


def _small_regular_file(path: Path) -> str:
    """The text of ``path`` if it is a regular file of fewer than ``_ROW_MAX`` bytes; a
    FIFO, device or symlink to one (whose size says 0) is never opened for reading, and
    at most ``_ROW_MAX`` bytes are read whatever the size claims."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)  # non-blocking: opening a FIFO cannot hang
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        data = fh.read(_ROW_MAX)
    if len(data) >= _ROW_MAX:
        raise ValueError(f"{path.name} is {_ROW_MAX} bytes or more")
    return data.decode("utf-8")


#: What a finished task's row must repeat of its task to be trusted on a resume.
_ROW_TASK_KEYS = ("strategy", *PARAMETERS, "seed", "root_seed")


#: The key of a task file holding the SHA-256 of its row (:func:`_row_text`).
_ROW_DIGEST = "row_sha256"
_SAID: set = set()  # task files said to be changed (each once)


def _row_digest(row: dict) -> str:
    return hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()


def _row_text(row: dict) -> str:
    """A task file's text: the row and the SHA-256 of its canonical JSON, so that a
    changed number (a flipped byte that leaves valid JSON) is found when it is read."""
    return json.dumps(row | {_ROW_DIGEST: _row_digest(row)})


def _read_done(folder: Path, tasks, dataset=None) -> dict[str, dict]:
    """Rows of the finished ``tasks`` found in ``folder``: a row is trusted only when it
    repeats its task's parameters, seed and root seed (and, given the sweep's
    ``dataset``, its data source and synthetic flag) and its file the SHA-256 of the row
    (:func:`_row_text`); anything else (unreadable, one digit changed, another strategy
    or data claimed) is redone (hostile7 K19, hostile12 Q18), a changed file said."""
    done = {}
    for task in tasks:
        task = task if isinstance(task, dict) else {"id": task}  # ids alone: the id checked
        tid = task["id"]
        path = folder / f"{tid}.json"
        try:
            row = json.loads(_small_regular_file(path)) if path.exists() else None
        except (OSError, ValueError, RecursionError):  # e.g. nested a million deep
            continue
        digest = row.pop(_ROW_DIGEST, None) if isinstance(row, dict) else None
        if not (isinstance(row, dict) and row.get("id") == tid
                and is_plain_row(row, _ROW_NUMBERS)):  # fmt: skip
            continue
        if digest != _row_digest(row):  # changed or damaged since written: never its numbers
            if path.resolve() in _SAID:  # once, though the folder is read again
                continue
            _SAID.add(path.resolve())
            warnings.warn(
                f"{_TASKS}/{path.name} does not match the digest written with it (changed or "
                "damaged after a sweep wrote it): its numbers are not taken (a sweep of that "
                "task runs it again)",
                UserWarning,
                stacklevel=2,
            )
            continue
        same = all(k in row and row[k] == task[k] for k in _ROW_TASK_KEYS if k in task)
        if dataset is not None:
            same = same and row.get("data") == dataset.source
            same = same and row.get("synthetic") is bool(dataset.synthetic)
        if same:
            done[tid] = row
    return done


def sweep(
    grid: dict,
    *,
    strategies=(DEFAULT_STRATEGY,),
    seeds: int = 5,
    out,
    steps: int | None = None,
    data=None,
    model=None,
    n_jobs: int | None = None,
    scheduler=None,
    progress: bool | None = None,
    rng=0,
    results_format: str = "parquet",
) -> pd.DataFrame:
    """Run every (parameters, strategy, seed) combination and tabulate final MSEs.

    Parameters
    ----------
    grid : dict of str -> list
        Values of each parameter to combine (Cartesian product): ``"delta"``,
        ``"agents"``, ``"batch"``, ``"grid"`` (points per axis, set on the model),
        ``"steps"`` and ``"physical"`` (a physical graph by name, see
        :func:`~baygo_graph.strategies.physical_graph`, for every strategy whose
        ``capabilities.physical`` is true; the others ignore it and run once, with
        ``physical`` empty in the table). Parameters not given take the defaults
        in :data:`PARAMETERS` (``grid``: the model's own).
    strategies : str or list of str, default ("baygo",)
        Registered strategy names (:func:`baygo_graph.strategies.strategy_names`,
        plug-ins included).
    seeds : int, default 5
        Number of seeds; seed ``s`` is child ``s`` of ``SeedSequence(rng)``.
    out : str or os.PathLike
        Folder for the per-task files and the table (created if needed).
        Tasks already there are not run again.
    steps : int, optional
        Steps T of every run when ``grid`` has no ``"steps"`` (default 60).
    data : optional
        As in :func:`baygo_graph.simulate`; read once here and sent to workers.
    model : str or model object, optional
        As in :func:`baygo_graph.simulate` (default: the linear model); its name,
        class and options are part of every task's id.
    n_jobs : int, optional
        Local worker processes (joblib, loky backend); default: all cores.
        1 runs in this process.
    scheduler : str or distributed.Client, optional
        Address of a Dask scheduler (e.g. ``"tcp://10.0.0.5:8786"``) or a
        client: run the tasks on that cluster instead (needs the ``dask`` extra). An
        address is checked, and must answer, before any work
        (:func:`~baygo_graph._cluster.check_scheduler`).
    progress : bool, optional
        Progress bar over tasks; default: when stderr is a terminal.
    rng : int or numpy.random.SeedSequence, default 0
        Root seed of the sweep.
    results_format : {"parquet", "csv"}, default "parquet"
        The table on disk: ``out/results.parquet`` or ``out/results.csv`` (the
        other one, if present, is removed), of every finished task in ``out/tasks/``
        of this code, data and model: the returned frame, and the rows of any other
        such sweep run in ``out``.

    Returns
    -------
    pandas.DataFrame
        One row per task of this sweep, sorted by parameters, strategy and seed: ``id``,
        ``strategy``, the parameters, ``seed``, ``final_mse_informative``,
        ``final_mse_others_mean``, ``seconds`` (run wall time),
        ``grid_warning`` (a GridResolutionWarning was raised), ``data``,
        ``synthetic``, ``root_seed``, ``model`` and ``loss`` (the model's loss
        name: the ``final_mse_*`` columns hold that loss).

    Raises
    ------
    FileExistsError
        ``out`` holds a results table that is not a sweep's (of ``compare`` or
        ``reproduce``, or the user's): never replaced (``baygo sweep --force`` does).
    OSError
        ``EBUSY``: another baygo command holds ``out`` (its ``.baygo.lock``).
    ConnectionError
        No Dask scheduler answers at the ``scheduler`` address.

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
    progress = check_bool("progress", progress, none=True)
    check_results_format(results_format)
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
    check_scheduler(scheduler, reach=True)  # before any work, not when Dask dials it
    root = _root_entropy(rng)
    model = resolve_model(model)
    dataset = model.resolve_data(data)
    _check_data_and_graphs(params, dataset, model)
    data_id = fingerprint(dataset, model)
    _check_tasks_budget(params, names, int(seeds))  # before the list exists
    tasks = _make_tasks(params, names, int(seeds), root, steps, data_id, model)

    folder = Path(out)
    task_dir = folder / _TASKS
    check_target(task_dir / "task.json", within=folder, overwrite=True)  # linked: refused
    created = [p for p in [task_dir, *task_dir.parents] if not p.exists()]
    make_folders(task_dir)
    try:
        with output_lock(folder, wait=_START_WAIT):  # another command's folder: refused now
            check_tables(folder, kind="sweep")
        shared = (dataset, model, names)
        done = _run_all(tasks, task_dir, shared, n_jobs, scheduler, progress)
    except BaseException:
        _remove_empty(created)  # a sweep that failed early leaves no empty folder behind
        raise
    table = _sorted(pd.DataFrame([done[t["id"]] for t in tasks]))
    with output_lock(folder, wait=_TABLE_WAIT):  # one table write at a time, of every row
        check_tables(folder, kind="sweep")  # one another command wrote meanwhile is kept too
        found = _read_done(task_dir, [p.stem for p in task_dir.glob("*.json")])
        rest = [row for tid, row in sorted(found.items()) if tid not in done]
        defined = {t["strategy"]: t["definition"] for t in tasks}
        others = [row for row in rest if _same_code(row, defined, data_id)]
        full = _sorted(pd.concat([table, pd.DataFrame(others)], ignore_index=True)) if others \
            else table  # fmt: skip
        _write_table(full, folder, results_format=results_format, overwrite=True,
                     note=_table_note(len(full), len(table), len(others),
                                      len(rest) - len(others)))  # fmt: skip
    return table


def _same_code(row: dict, defined: dict, data_id: str) -> bool:
    """Whether the finished task ``row`` of another sweep ran this sweep's code, data and
    model: its id is the one this sweep gives its parameters, strategy, seed and root seed
    (a row of an edited plug-in, another baygo version, other data or another model is
    not, nor one of a strategy not registered here). ``defined``: strategy name ->
    definition, filled as strategies are met."""
    name = row.get("strategy")
    if name not in defined:
        known = isinstance(name, str) and name in strategy_names()
        defined[name] = definition(strategy_factory(name)) if known else None
    if defined[name] is None or not all(p in row for p in PARAMETERS):
        return False
    task = {p: row[p] for p in PARAMETERS} | {
        "strategy": name, "definition": defined[name], "seed": row.get("seed"),
        "root_seed": row.get("root_seed"), "data": data_id, "version": __version__,
    }  # fmt: skip
    return task_id(task) == row["id"]


def _table_note(rows: int, mine: int, others: int, left_out: int) -> str:
    """What a sweep's ``wrote`` line says of its table: its rows, this sweep's and other
    sweeps' of the same code, and the task rows of other code left out.

    Examples
    --------
    >>> _table_note(8, 4, 4, 0), _table_note(2, 2, 0, 2)
    ('(8 rows: 4 of this sweep, 4 of other sweeps in this folder)', '(2 rows; 2 task rows \
of other code, data or model left out, kept in tasks/)')
    """
    text = f"{counted(rows, 'row')}"
    if others:
        text += f": {mine} of this sweep, {others} of other sweeps in this folder"
    if left_out:
        text += (f"; {counted(left_out, 'task row')} of other code, data or "
                 "model left out, kept in tasks/")  # fmt: skip
    return f"({text})"


def _sorted(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` in the order of a sweep's table (parameters, strategy, seed)."""
    return table.sort_values(_TABLE_KEYS, na_position="first", kind="stable").reset_index(drop=True)


def write_table(
    table: pd.DataFrame, folder, *, results_format: str = "parquet", overwrite: bool = False
) -> Path:
    """Write a sweep's table as ``folder/results.parquet`` (or ``results.csv``), atomically,
    and remove the other format's table when baygo wrote it (an earlier version's).

    In Parquet the text columns are dictionary-encoded (read back as pandas
    ``category``), the counts int32 (int64 when a value does not fit), the results
    float64; the key-value metadata
    holds ``data_source`` and ``synthetic``.

    Examples
    --------
    >>> import tempfile
    >>> t = pd.DataFrame({"strategy": ["baygo"], "seed": [0], "data": ["synthetic"],
    ...                   "synthetic": [True]})
    >>> path = write_table(t, tempfile.mkdtemp())
    >>> back = pd.read_parquet(path)
    >>> path.name, str(back["strategy"].dtype), str(back["seed"].dtype)
    ('results.parquet', 'category', 'int32')
    """
    return _write_table(table, folder, results_format=results_format, overwrite=overwrite)


def _write_table(
    table: pd.DataFrame, folder, *, results_format: str, overwrite: bool, note: str = ""
) -> Path:
    """:func:`write_table`, its ``wrote`` line followed by ``note``."""
    check_results_format(results_format)
    folder = Path(folder)
    path = folder / RESULTS_FILES[results_format]
    if results_format == "csv":
        atomic_text(path, csv_frame(table).to_csv(index=False), note=note, overwrite=overwrite)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        narrow = table.copy()
        for col in _CATEGORIES:
            if col in narrow:
                narrow[col] = narrow[col].astype("category")
        small = np.iinfo(np.int32)
        for col in _INT32:  # int32 where every value fits (never wrapped), else int64
            if col in narrow:
                values = pd.to_numeric(narrow[col])
                fits = values.dropna().between(small.min, small.max).all()
                kind = "int32" if fits else "int64"
                narrow[col] = values.astype(kind.capitalize() if values.isna().any() else kind)
        arrow = pa.Table.from_pandas(narrow, preserve_index=False)
        synthetic = bool(table["synthetic"].any()) if "synthetic" in table else False
        sources = sorted(map(str, table["data"].unique())) if "data" in table else []
        source = " + ".join(sources) or "unknown"  # sweeps of two data sets share a folder
        arrow = arrow.replace_schema_metadata(
            (arrow.schema.metadata or {})
            | source_metadata(source, synthetic)
            | {b"baygo.table": b"sweep"}  # marks the table as ours (is_our_table)
        )
        atomic_write(
            path,
            lambda fh: pq.write_table(arrow, fh, compression="zstd", write_page_checksum=True),
            note=note,
            overwrite=overwrite,
        )
    remove_stale_results(folder, keep=path.name)
    return path


def _remove_empty(created: list[Path]) -> None:
    """Remove the folders of ``created`` (innermost first) while they are empty."""
    for path in created:
        try:
            path.rmdir()
        except OSError:  # holds a finished task (kept for a resume) or is gone
            return


def _run_all(tasks, task_dir: Path, shared, n_jobs, scheduler, progress) -> dict[str, dict]:
    """Run the tasks not yet finished in ``task_dir``; every task's row by id."""
    dataset = shared[0]
    done = _read_done(task_dir, tasks, dataset)

    def keep(task, row):  # as each task finishes: its file, atomically, then the claim
        # named by the task's digest: the sweep's own bookkeeping, not in the folder's record
        atomic_text(task_dir / f"{row['id']}.json", _row_text(row), record=False,
                    within=task_dir.parent, overwrite=True)  # fmt: skip
        release(task_dir / f"{row['id']}.claim")
        done[row["id"]] = row

    jobs = (os.cpu_count() or 1) if n_jobs in (None, -1) else int(n_jobs)
    chunk = 4 * jobs if scheduler is None else max(1, len(tasks))
    notes: list = []  # every batch's warnings, said once for the command
    ran = 0
    while todo := [t for t in tasks if t["id"] not in done]:
        mine = _claim_tasks(todo, task_dir, done, chunk, dataset)
        if not mine:  # the rest is claimed by live concurrent sweeps: wait for them
            time.sleep(_POLL)
        else:
            try:
                run_tasks(
                    _run_task,
                    mine,
                    shared=shared,
                    n_jobs=jobs,
                    scheduler=scheduler,
                    progress=progress,
                    desc="sweep",
                    on_result=keep,
                    first_here=False,
                    notes=notes,
                    key=lambda i, task: f"baygo-sweep-{task['id']}",
                )
                ran += len(mine)
            finally:  # interrupted: give back what did not finish
                for task in mine:
                    release(task_dir / f"{task['id']}.claim")
        done |= _read_done(task_dir, [t for t in todo if t["id"] not in done], dataset)
    reemit_warnings(notes, ran, stacklevel=3)
    return done
