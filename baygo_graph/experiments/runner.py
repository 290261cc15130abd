"""One task runner for every experiment: compare, sweep and the reproduction.

:func:`run_tasks` calls ``fn(task, shared)`` for each task, where ``shared`` (the
data set) is sent to each worker once per batch, not once per task, on local cores
(this process and loky worker processes share the tasks: a worker's start costs
about 1.5 s of CPU in imports, and a calling process that only waited left its core
to the others) or on a Dask cluster (``scheduler=``). Warnings raised
in the tasks are captured where they run and re-emitted once per category in
the calling process; a tqdm bar counts finished tasks; ``on_result`` is called
in the calling process as each task finishes (a sweep writes its task files
there). Results come back in the order of the tasks whatever the backend, so
with tasks that are pure functions of their arguments (seeds from
:func:`spawn_seeds`) the outcome does not depend on ``n_jobs``.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .._text import counted
from .._validate import root_seed_sequence
from ..models.rows import limit_threads
from .locks import die_with_parent
from .plugins import blame, import_plugins, loaded_plugins

__all__ = ["Ahead", "Batched", "n_workers", "reemit_warnings", "run_tasks", "spawn_seeds"]


@dataclass(frozen=True)
class Batched:
    """A task function that also takes several tasks in one call.

    :func:`run_tasks` given a ``Batched`` calls ``many(tasks, shared)`` on runs of
    consecutive tasks with equal ``group(task)`` (e.g. the seeds of one strategy and
    configuration, run as one seed-batched loop), and ``one(task, shared)`` on a task
    alone. ``many`` returns one result per task, in order, each equal to what ``one``
    gives that task. Results, their order, ``on_result`` and the progress bar stay per
    task; a group that raises is run again task by task, so an error names its task as
    ``one`` would. The three functions are module-level (they are pickled to workers).

    Examples
    --------
    >>> def one(task, shared):
    ...     return task * shared
    >>> def many(tasks, shared):
    ...     return [t * shared for t in tasks]
    >>> def parity(task):
    ...     return task % 2
    >>> run_tasks(Batched(one, many, parity), [1, 3, 4, 6, 7], shared=10, n_jobs=1)
    [10, 30, 40, 60, 70]
    """

    one: Callable
    many: Callable
    group: Callable


def _groups(batch, fn) -> list:
    """``batch`` (``(index, task)`` pairs) cut into runs of consecutive tasks of one
    group (one pair each for a plain function)."""
    if not isinstance(fn, Batched):
        return [[pair] for pair in batch]
    out, last = [], object()
    for pair in batch:
        key = fn.group(pair[1])
        if out and key == last:
            out[-1].append(pair)
        else:
            out.append([pair])
            last = key
    return out


def spawn_seeds(rng, n: int) -> tuple[np.random.SeedSequence, list[np.random.SeedSequence]]:
    """The root SeedSequence of ``rng`` and its ``n`` children (one per replicate).

    The caller's object is not mutated (a Generator gives one draw of entropy).

    Examples
    --------
    >>> root, kids = spawn_seeds(3, 2)
    >>> root.entropy, [k.spawn_key for k in kids]
    (3, [(0,), (1,)])
    """
    root = root_seed_sequence(rng)
    return root, root.spawn(int(n))


def n_workers(n_jobs, n_tasks: int) -> int:
    """Processes for ``n_tasks`` tasks (this one and the loky workers): joblib's rule
    for ``n_jobs``, at most one per task.

    None means all cores; a negative value counts back from the number of cores.

    Examples
    --------
    >>> n_workers(4, 2), n_workers(1, 10)
    (2, 1)
    """
    from joblib import cpu_count

    if n_jobs is None:
        n = cpu_count()
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    else:
        n = int(n_jobs) if n_jobs > 0 else max(cpu_count() + 1 + int(n_jobs), 1)
    return max(1, min(n, n_tasks))


def _call(fn, task, shared, threads):
    """Run one task, recording its warnings as ``(category, message)`` pairs; with
    ``threads``, on at most that many BLAS and row-pass threads (a Dask task)."""
    if isinstance(fn, Batched):
        fn = fn.one
    limit = contextlib.nullcontext() if threads is None else limit_threads(threads)
    with limit, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(task, shared)
        except Exception as e:  # raised by a plug-in's code: name the plug-in and the task
            named = blame(e, task)
            if named is None:
                raise
            raise named from e
    return result, [(w.category, str(w.message)) for w in caught]


def _start_worker(plugins) -> None:
    """A loky worker's start: die with the parent; end without Python's teardown; import
    the parent's plug-ins before any task (whose strategies and models may be theirs) is
    read."""
    import atexit

    die_with_parent()
    _thread_lock_for_bars()
    atexit.register(_end_worker)  # registered last: runs first at the worker's exit
    import_plugins(plugins)


def _end_worker() -> None:
    """A worker's exit, once loky's and multiprocessing's own clean-up has run (they
    run before ``atexit``): its output flushed, then ended at once. Python's teardown
    (freeing every module and object) cost ~0.3 s of CPU a worker while the command
    waited for it, and a worker holds nothing else to release."""
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _call_group(fn, group, shared, threads) -> list:
    """``(index, result, notes)`` of a group of ``(index, task)`` pairs: one ``many``
    call for a group of several tasks of a :class:`Batched` (the group's warnings go
    with its first task), else (or if that call raises) one call per task."""
    if len(group) > 1:
        limit = contextlib.nullcontext() if threads is None else limit_threads(threads)
        with limit, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                results = fn.many([task for _, task in group], shared)
            except Exception:  # each task again alone: its own error, named as before
                results = None
        if results is not None:
            if len(results) != len(group):
                raise RuntimeError(
                    f"{fn.many.__name__} returned {counted(len(results), 'result')} for "
                    f"{counted(len(group), 'task')}"
                )
            notes = [(w.category, str(w.message)) for w in caught]
            return [(i, r, notes if k == 0 else []) for k, ((i, _), r) in
                    enumerate(zip(group, results, strict=True))]  # fmt: skip
    return [(i, *_call(fn, task, shared, threads)) for i, task in group]


def _call_batch(fn, batch, shared, threads):
    """A batch of ``(index, task)`` pairs in one worker call: ``shared`` travels once;
    the tasks of one group (:class:`Batched`) in one call."""
    return [out for group in _groups(batch, fn) for out in _call_group(fn, group, shared, threads)]


def _thread_lock_for_bars() -> None:
    """tqdm's default lock is a multiprocessing RLock, a named semaphore: a worker killed
    on Ctrl-C leaves it to the resource tracker, which prints a "leaked semaphore"
    warning. A worker's (hidden) bars need only a thread lock."""
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())


def reemit_warnings(notes, n_tasks: int, *, stacklevel: int = 3) -> None:
    """Warn once per category: how many warnings the ``n_tasks`` tasks raised, and the first.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     reemit_warnings([(UserWarning, "a"), (UserWarning, "b")], 5)
    >>> [str(x.message) for x in w]
    ['2 warnings in 5 runs; first: a']
    """
    by_cat: dict = {}
    for cat, msg in notes:
        by_cat.setdefault(cat, []).append(msg)
    for cat, msgs in by_cat.items():
        warnings.warn(
            f"{counted(len(msgs), 'warning')} in {counted(n_tasks, 'run')}; first: {msgs[0]}",
            cat,
            stacklevel=stacklevel,
        )


#: Variables that cap a worker's BLAS and OpenMP threads (joblib's list: its loky
#: workers got them the same way); a value set by the user wins.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS",
                "NUMEXPR_NUM_THREADS")  # fmt: skip
#: Seconds an idle worker waits for the next run before it exits (joblib's default).
IDLE_WORKER_SECONDS = 300


def _pool(workers: int, threads: int):
    """``workers`` loky processes (the reusable pool: they stay for the next run with the
    same settings, imports paid once), each on ``threads`` BLAS and row-pass threads.

    joblib's own executor (the one its ``Parallel`` uses): the process has one reusable
    loky pool, and a pool made by loky's ``get_reusable_executor`` directly broke the
    next ``joblib.Parallel`` of the process (the partitioned analyses)."""
    import atexit
    import os

    from joblib.executor import get_memmapping_executor

    from .._interrupt import restart_dead_tracker, workers_ignore_ctrl_c

    workers_ignore_ctrl_c()  # a terminal's Ctrl-C: no import traceback of a starting worker
    env = {var: os.environ.get(var, str(threads)) for var in _THREAD_VARS}
    pool = get_memmapping_executor(workers, timeout=IDLE_WORKER_SECONDS,
                                   initializer=_start_worker, initargs=(loaded_plugins(),),
                                   env=env)  # fmt: skip
    # at exit, before the exit handlers the pool registered (last in, first run): a
    # tracker killed meanwhile is started again quietly, not by their messages
    atexit.unregister(restart_dead_tracker)
    atexit.register(restart_dead_tracker)
    return pool


def _local(fn, indexed, shared, n):
    """Results ``(index, result, notes)`` as batches finish: this process and ``n - 1``
    loky workers share the tasks (each on ``cores // n`` threads).

    The tasks are cut into small batches (the data travel once per batch, results
    still arrive steadily). A worker holds one batch at a time and gets the next from
    the front as soon as it hands one back; this process takes its batches from the
    back, so the last ones end together and no batch waits for a worker that is still
    starting."""
    if n == 1:
        for group in _groups(indexed, fn):
            yield from _call_group(fn, group, shared, None)
        return
    import queue
    from collections import deque

    from joblib import cpu_count

    from .._interrupt import restart_dead_tracker

    threads = max(1, cpu_count() // n)
    size = max(1, math.ceil(len(indexed) / (4 * n)))
    batches = deque(indexed[k : k + size] for k in range(0, len(indexed), size))
    pool = _pool(n - 1, threads)
    lock = threading.Lock()
    back: queue.SimpleQueue = queue.SimpleQueue()  # the workers' finished batches
    held = [0]  # batches given to the workers and not yet taken back here

    def hand_out(future=None):
        """The next batch from the front to a worker (at the start, or in loky's thread
        as one comes back: counted before the finished one is passed on)."""
        with lock:
            batch = batches.popleft() if batches else None
            held[0] += batch is not None
        if batch is not None:
            try:
                pool.submit(_call_batch, fn, batch, shared, None).add_done_callback(hand_out)
            except RuntimeError:  # the pool was shut down (a failed or interrupted run)
                with lock:
                    held[0] -= 1
        if future is not None:
            back.put(future)

    def arrived(block: bool):
        """The workers' finished batches (with ``block``, until none is held)."""
        while True:
            with lock:
                if not held[0]:
                    return
            try:
                future = back.get(block=block)
            except queue.Empty:
                return
            with lock:
                held[0] -= 1
            restart_dead_tracker()  # killed from outside: quietly, before its next message
            yield from future.result()

    finished = False
    try:
        for _ in range(n - 1):
            hand_out()
        while True:
            yield from arrived(False)
            with lock:
                batch = batches.pop() if batches else None
            if batch is None:
                break
            yield from _call_batch(fn, batch, shared, threads)
        yield from arrived(True)
        restart_dead_tracker()
        finished = True
    finally:
        if not finished:  # interrupted or failed: no worker outlives the run
            pool.terminate(kill_workers=True)  # as joblib aborts: temporary files too


def _dask(fn, indexed, shared, scheduler, key):
    """Results ``(index, result, notes)`` from a Dask cluster, as tasks finish."""
    from .._cluster import dask_client

    with dask_client(scheduler) as client:
        from distributed import as_completed

        plugins = loaded_plugins()
        if plugins:  # every worker, also one that joins later, imports them first
            from ._dask import PluginLoader

            client.register_plugin(PluginLoader(plugins))
        data = client.scatter(shared, broadcast=True)
        # one future per group of tasks (per task for a plain function), named by its
        # first task's key; each runs on one BLAS and row-pass thread
        futures = [
            client.submit(_call_group, fn, group, data, 1, key=key(*group[0]), pure=False)
            for group in _dask_groups(indexed, fn, client)
        ]
        for fut in as_completed(futures):
            yield from fut.result()


def _dask_groups(indexed, fn, client) -> list:
    """The groups of a Dask run: the tasks cut into batches of an equal share of twice
    the cluster's threads (a few big groups would leave threads idle), each batch cut
    into its groups (:func:`_groups`)."""
    threads = max(1, sum(client.nthreads().values()))
    size = max(1, math.ceil(len(indexed) / (2 * threads)))
    return [g for k in range(0, len(indexed), size) for g in _groups(indexed[k : k + size], fn)]


class Ahead:
    """One task started ahead on a local worker while this process goes on with other
    work; :meth:`result` waits for it. With one process (``n_jobs`` gives one worker
    for ``n_tasks`` tasks) it runs here, when :meth:`result` is first called.

    ``n_tasks`` is the size of the :func:`run_tasks` call the task belongs to, so that
    the worker pool is the one that call uses (the same workers and threads, kept).
    Warnings of the task come back as ``(category, message)`` pairs, as ``notes`` of
    :func:`run_tasks`; :meth:`cancel` stops a worker that is still on it (a failed
    or interrupted run).

    Examples
    --------
    >>> ahead = Ahead(divmod, 7, shared=4, n_jobs=1)
    >>> ahead.result()
    ((1, 3), [])
    """

    def __init__(self, fn: Callable, task, *, shared=None, n_jobs=None, n_tasks: int = 2):
        self._call = (fn, task, shared)
        self._done = None
        self._future = self._pool = None
        n = n_workers(n_jobs, n_tasks)
        if n > 1:
            from joblib import cpu_count

            self._pool = _pool(n - 1, max(1, cpu_count() // n))
            self._future = self._pool.submit(_call_batch, fn, [(0, task)], shared, None)

    def result(self) -> tuple:
        """``(fn(task, shared), notes)``, waiting for the worker if it is still on it."""
        if self._done is None:
            if self._future is None:
                self._done = _call(*self._call, None)
            else:
                from .._interrupt import restart_dead_tracker

                [(_, result, notes)] = self._future.result()
                restart_dead_tracker()
                self._done = (result, notes)
        return self._done

    def cancel(self) -> None:
        """Stop the worker if the task is still running there (as a failed run does)."""
        if self._future is not None and self._done is None and not self._future.done():
            self._pool.terminate(kill_workers=True)  # as run_tasks aborts: temporary files too


def run_tasks(
    fn: Callable,
    tasks: Sequence,
    *,
    shared=None,
    n_jobs: int | None = None,
    scheduler=None,
    progress: bool | None = None,
    desc: str = "tasks",
    on_result: Callable | None = None,
    first_here: bool = True,
    notes: list | None = None,
    key: Callable | None = None,
) -> list:
    """Run ``fn(task, shared)`` for every task; results in the order of ``tasks``.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled to the workers).
    tasks : sequence
        One item per call.
    shared : optional
        Passed to every call; sent once per worker batch (loky) or scattered
        once to the cluster (Dask).
    n_jobs : int, optional
        Local processes that run the tasks (joblib's rule, see :func:`n_workers`):
        this one and ``n_jobs - 1`` loky workers, each on ``cores // n_jobs`` BLAS
        and row-pass threads; 1 runs them all in this process.
    scheduler : str or distributed.Client, optional
        Run on this Dask cluster instead (one BLAS thread per task).
    progress : bool, optional
        tqdm bar over the tasks; default: when stderr is a terminal.
    desc : str, default "tasks"
        Label of the bar.
    on_result : callable, optional
        ``on_result(task, result)``, called here as each task finishes.
    first_here : bool, default True
        With local workers, run the first task in this process before any
        pool starts, so that bad arguments fail fast.
    notes : list, optional
        Where the tasks' warnings go, as ``(category, message)`` pairs, for a caller
        that runs its tasks in several calls to re-emit once (:func:`reemit_warnings`);
        None: re-emitted here, once per category, attributed to the caller of the
        function that called ``run_tasks``.
    key : callable, optional
        ``key(index, task)``: the Dask key of a task.

    Returns
    -------
    list
        ``fn(task, shared)`` for each task, in order.

    Examples
    --------
    >>> run_tasks(divmod, [7, 9], shared=4, n_jobs=1)
    [(1, 3), (2, 1)]
    """
    indexed = list(enumerate(tasks))
    first = bool(first_here and indexed)
    if scheduler is None:  # check n_jobs before any work
        n = n_workers(n_jobs, max(len(indexed) - first, 1))
    results: list = [None] * len(indexed)
    caught_here: list = [] if notes is None else notes
    from tqdm.auto import tqdm

    show = sys.stderr.isatty() if progress is None else bool(progress)
    with tqdm(total=len(indexed), desc=desc, disable=not show, leave=False) as bar:

        def done(i, result, caught):
            results[i] = result
            caught_here.extend(caught)
            if on_result is not None:
                on_result(indexed[i][1], result)
            bar.update()

        if scheduler is not None:
            key = key or (lambda i, task: None)
            for item in _dask(fn, indexed, shared, scheduler, key):
                done(*item)
        else:
            if first:
                done(0, *_call(fn, indexed[0][1], shared, None))
            for item in _local(fn, indexed[first:], shared, n):
                done(*item)
    if notes is None:  # attributed to the caller of the function that called run_tasks
        reemit_warnings(caught_here, len(indexed), stacklevel=4)
    return results
