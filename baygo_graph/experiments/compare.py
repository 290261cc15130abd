"""Compare strategies over many seeds: one tidy table of paired runs.

:func:`compare` runs every strategy on the same replicate seeds (paired
comparison), in parallel on :func:`~baygo_graph.experiments.runner.run_tasks`,
into one tidy :class:`pandas.DataFrame`; :mod:`baygo_graph.analysis.stats`
reduces it (:func:`~baygo_graph.analysis.summarize`,
:func:`~baygo_graph.analysis.final_mse`,
:func:`~baygo_graph.analysis.paired_difference`).
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Mapping

import numpy as np

from .._text import counted
from .._validate import check_bool, seed_record
from ..analysis.comparison import Comparison
from ..defaults import DEFAULT_WINDOW, PAPER
from ..learning import refuse_renamed, simulate, simulate_seeds
from ..limits import check_results_budget
from ..models import model_settings, resolve_model
from ..strategies import (
    PAPER_STRATEGIES,
    build_strategy,
    resolve_strategy,
    strategy_factory,
    strategy_names,
)
from .runner import Batched, run_tasks, spawn_seeds

__all__ = ["COLUMNS", "compare"]

#: Columns of the tidy frame returned by :func:`compare`, in order.
COLUMNS = ("strategy", "seed", "step", "agent", "informative", "mse", "influence")

# Parameters of simulate that compare sets itself.
_OWN = frozenset({"strategy", "steps", "rng", "progress"})


# -- running -------------------------------------------------------------------
def _resolve_strategies(strategies) -> dict:
    """``{label: strategy}`` from names or a mapping of labels to strategies."""
    if isinstance(strategies, str):
        strategies = (strategies,)
    if isinstance(strategies, Mapping):
        out = dict(strategies)
        bad = [k for k in out if not isinstance(k, str)]
        if bad:
            raise TypeError(f"strategies labels must be str, got {bad[0]!r}")
    else:
        try:
            names = list(strategies)
        except TypeError:
            raise TypeError(
                "strategies must be a sequence of names or a mapping of labels to "
                f"strategies, got {type(strategies).__name__}"
            ) from None
        known = strategy_names()
        bad = [s for s in names if not isinstance(s, str) or s not in known]
        if bad:
            raise ValueError(
                f"strategies must be names of registered strategies {known} (see "
                f"baygo_graph.strategies.register), got {bad[0]!r}"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"strategies must not repeat a name, got {names!r}")
        # the factory goes to the workers: a strategy registered here is known there
        out = {s: strategy_factory(s) for s in names}
    if not out:
        raise ValueError("strategies must name at least one strategy, got none")
    return out


def _one_run(task, shared):
    """One (strategy, seed) task: the run's loss and influence arrays (T, M)."""
    return _many_runs([task], shared)[0]


def _many_runs(tasks, shared):
    """The tasks of one strategy label, one result per seed (as :func:`_one_run`)."""
    label, strategy, _ = tasks[0]
    steps, dataset, window, kwargs, keep = shared
    if not isinstance(strategy, str) and not _is_strategy(strategy) and callable(strategy):
        strategy = build_strategy(
            strategy,
            agents=kwargs.get("agents", PAPER.agents),
            informative=kwargs.get("informative", 0),
        )
    runs = simulate_seeds(strategy, seeds=[task[2] for task in tasks], steps=steps,
                         data=dataset, progress=False, **kwargs)  # fmt: skip
    return [_measured(label, run, window, keep) for run in runs]


def _measured(label, run, window, keep):
    """A run's result: label, loss and influence arrays (T, M), informative agent, the
    run itself if kept."""
    if run.series is None or window > run.n_steps:  # no graph, or no complete window
        infl = np.full(run.mse.shape, np.nan)
    else:
        from ..analysis.centrality import influence_series

        infl = influence_series(run, window=window, method="product", windows="sliding").values
        if infl.shape != run.mse.shape:
            raise RuntimeError(
                f"influence_series returned shape {infl.shape} for a run of shape {run.mse.shape}"
            )
    # a list: compare() moves the arrays into its own storage as each result arrives
    return [label, run.mse, infl, run.informative, (run if label in keep else None)]


def _label(task):
    """The group of a task: its strategy label (its seeds may run as one batch)."""
    return task[0]


#: compare's task function: one run, or the seeds of one strategy at once.
RUN_TASK = Batched(_one_run, _many_runs, _label)


def _is_strategy(obj) -> bool:
    """A strategy object (not a class or factory that makes one)."""
    return (
        not isinstance(obj, type) and callable(getattr(obj, "start", None)) and hasattr(obj, "name")
    )


class _Collect:
    """Moves each task's (T, M) arrays into (S, N, T, M) storage as the task finishes.

    The runner keeps every task's result until the end; emptying the result's
    array slots here leaves one copy of the arrays, not two.
    """

    def __init__(self, n_strategies: int, seeds: int):
        self.shape = (n_strategies, seeds)
        self.mse = self.influence = None
        self.informative = np.zeros(self.shape, dtype=np.int64)
        self.index = {}

    def __call__(self, task, result):
        s, r = self.index[id(task)]
        if self.mse is None:
            self.mse = np.empty(self.shape + result[1].shape)
            self.influence = np.empty(self.shape + result[2].shape)
        self.mse[s, r], self.influence[s, r] = result[1], result[2]
        self.informative[s, r] = result[3]
        result[1] = result[2] = None


#: simulate's own defaults, recorded where a comparison did not set them.
_SIMULATE_DEFAULTS = {name: p.default for name, p in inspect.signature(simulate).parameters.items()}


def compare(
    strategies=PAPER_STRATEGIES,
    *,
    seeds: int = 20,
    steps: int = 60,
    rng=0,
    n_jobs: int | None = None,
    progress: bool | None = None,
    return_runs: bool = False,
    influence_window: int = DEFAULT_WINDOW,
    tidy: bool = True,
    made: Mapping | None = None,
    **simulate_kwargs,
):
    """Run several strategies over many seeds into one tidy table.

    Replicate ``r`` of every strategy runs with the same child seed,
    ``SeedSequence(rng).spawn(seeds)[r]``, so strategies see the same test
    split, the same sharing of samples and the same mini-batch draws
    (a paired comparison). Tasks ``(strategy, seed)`` run in parallel with
    joblib (loky processes); the result does not depend on ``n_jobs``.

    Parameters
    ----------
    strategies : sequence of str or mapping, default the paper's six
        Registered names (:func:`baygo_graph.strategies.strategy_names`, plug-ins
        included; default :data:`~baygo_graph.strategies.PAPER_STRATEGIES`), or a
        mapping ``{label: strategy}`` whose values are anything
        :func:`~baygo_graph.simulate` accepts (a name, a NetworkX graph, a strategy
        object).
    seeds : int, default 20
        Number of replicates N per strategy.
    steps : int, default 60
        Steps T of every run.
    rng : int, numpy.random.SeedSequence, numpy.random.Generator or None, default 0
        Root of the replicate seeds. An int or SeedSequence gives the same table
        every time; a Generator is drawn from once; None uses fresh entropy
        (recorded in ``df.attrs["entropy"]``).
    n_jobs : int, optional
        Worker processes; None: all cores; 1: serial, no pool; negative counts
        back from the number of cores (joblib's rule). The first task always
        runs in the calling process, so bad arguments fail before a pool starts.
    progress : bool, optional
        Progress bar over the tasks; default: when stderr is a terminal.
    return_runs : bool or collection of str, default False
        Also return every :class:`~baygo_graph.Run` (True), or the runs of these
        strategy labels only (the others are not even sent back from the workers).
    tidy : bool, default True
        Return the tidy frame. False returns a
        :class:`~baygo_graph.analysis.Comparison` instead: the per-run
        (T, M) arrays, with the reductions of :mod:`baygo_graph.analysis.stats`
        as methods and the tidy frame on demand (``.to_frame()``); use it for
        studies whose tidy frame (S x N x T x M rows) would not fit in memory.
    made : mapping of str to sequence of Run, optional
        Runs already made for some strategy labels, one per seed in seed order (e.g.
        the first ``steps`` steps of longer runs on the same seeds, :meth:`Run.head`):
        measured here, not run again. Each must be the run ``compare`` would make:
        that label's strategy, ``steps`` steps and replicate ``r``'s seed
        (``run.config["seed"]``); anything else is refused (ValueError).
    influence_window : int, default 10
        Window w of :func:`baygo_graph.analysis.influence_series`
        (``method="product"``, ``windows="sliding"``) for the influence column:
        row ``t`` holds the influence of the product of ``W_{t-w+1} .. W_t``, so
        steps ``t < w - 1`` (all steps when ``w > steps``) are NaN, as are
        windows whose product has several closed classes (no unique influence).
    **simulate_kwargs
        Passed to :func:`~baygo_graph.simulate` (``agents``, ``data``, ``model``,
        ``delta``, ...). ``model`` (a name or object) is resolved and ``data`` read
        once here, and both are shared with the workers.

    Returns
    -------
    df : pandas.DataFrame or Comparison
        (A :class:`~baygo_graph.analysis.Comparison` with ``tidy=False``.)
        One row per (strategy, seed, step, agent), in that order, with columns
        ``strategy`` (str), ``seed`` (int, replicate 0..N-1), ``step`` (int,
        0..T-1), ``agent`` (int), ``informative`` (bool), ``mse`` (float, test
        MSE of the agent's posterior-mean prediction) and ``influence`` (float:
        the agent's share in the left Perron vector of the product of the
        window's weight matrices, see ``influence_window``; NaN where undefined,
        and for ``"cen"``).
        ``df.attrs`` holds ``synthetic``, ``data_source``, ``steps``,
        ``agents``, ``seeds``, ``strategies`` (labels in order), ``entropy``
        (of the root seed), ``influence_window``, ``model`` and ``loss`` (the
        model's loss name: the ``mse`` column holds that loss).
    runs : dict, only with ``return_runs=True``
        ``{(strategy, seed): Run}``.

    Raises
    ------
    ValueError, TypeError
        For bad arguments (named in the message); errors of
        :func:`~baygo_graph.simulate` pass through.

    Warns
    -----
    UserWarning subclasses
        Warnings raised by the runs (also in worker processes) are re-emitted
        once per category with a count and the first message.

    Examples
    --------
    >>> from baygo_graph import synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> df = compare(["nocol", "cen"], seeds=2, steps=3, agents=3, model=LinearRegression(grid=11),
    ...              data=synthetic_bodyfat(), n_jobs=1, progress=False)
    >>> df.shape, df.attrs["synthetic"], df.attrs["strategies"]
    ((36, 7), True, ['nocol', 'cen'])
    >>> df.columns.tolist()
    ['strategy', 'seed', 'step', 'agent', 'informative', 'mse', 'influence']
    >>> res = compare(["nocol", "cen"], seeds=2, steps=3, agents=3, tidy=False,
    ...               model=LinearRegression(grid=11), data=synthetic_bodyfat(), n_jobs=1,
    ...               progress=False)
    >>> res.to_frame().equals(df), res.final_mse().shape
    (True, (4, 2))
    """
    progress = check_bool("progress", progress, none=True)
    tidy = check_bool("tidy", tidy)
    labels = _resolve_strategies(strategies)
    for name, value in (("seeds", seeds), ("steps", steps), ("influence_window", influence_window)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    refuse_renamed(simulate_kwargs, "compare")
    allowed = set(inspect.signature(simulate).parameters) - _OWN
    unknown = sorted(set(simulate_kwargs) - allowed)
    if unknown:
        raise TypeError(f"compare() got an unexpected keyword argument {unknown[0]!r}")
    kwargs = dict(simulate_kwargs)
    model = kwargs["model"] = resolve_model(kwargs.get("model"))
    labels = {
        label: (
            s
            if callable(s) and not isinstance(s, str) and not _is_strategy(s)
            else resolve_strategy(
                s,
                agents=kwargs.get("agents", PAPER.agents),
                informative=kwargs.get("informative", 0),
            )
        )
        for label, s in labels.items()
    }
    root, children = spawn_seeds(rng, int(seeds))
    dataset = model.resolve_data(kwargs.pop("data", None))
    tasks = [(label, strat, children[r]) for label, strat in labels.items() for r in range(seeds)]
    made = _made_runs(made, labels, children, int(steps), kwargs)
    keep = _kept_labels(return_runs, labels)
    check_results_budget(  # the table every run adds to, before the first run
        len(labels), int(seeds), int(steps), int(kwargs.get("agents", PAPER.agents)),
        kind="tidy" if tidy else "arrays", advice="run fewer seeds or steps",
    )  # fmt: skip
    shared = (int(steps), dataset, int(influence_window), kwargs, keep)
    collect = _Collect(len(labels), int(seeds))
    collect.index = {id(t): divmod(i, int(seeds)) for i, t in enumerate(tasks)}
    results = {}
    for i, task in enumerate(tasks):  # the runs already made: measured here
        if task[0] in made:
            results[i] = _measured(task[0], made[task[0]][i % int(seeds)],
                                   int(influence_window), keep)  # fmt: skip
            collect(task, results[i])
    todo = [i for i in range(len(tasks)) if i not in results]
    # The first task runs here: bad arguments fail before any worker starts.
    out = run_tasks(
        RUN_TASK,
        [tasks[i] for i in todo],
        shared=shared,
        n_jobs=n_jobs,
        progress=progress,
        desc="compare",
        on_result=collect,
    )
    t, m = collect.mse.shape[2:]
    attrs = {
        "synthetic": bool(dataset.synthetic),
        "data_source": str(dataset.source),
        "steps": int(t),
        "agents": int(m),
        "seeds": int(seeds),
        "strategies": list(labels),
        "entropy": str(root.entropy),
        "influence_window": int(influence_window),
        "model": str(model.name),
        "loss": str(model.loss_name),
        # the set-up as run, in every teller of the table (a 21- and a 61-point grid
        # left the same record: hostile18 W2)
        "model_options": model_settings(model),
        **{
            k: _SIMULATE_DEFAULTS[k] if kwargs.get(k) is None else kwargs[k]
            for k in ("delta", "batch")
        },
    }
    result = Comparison(
        strategies=tuple(labels),
        mse=collect.mse,
        influence=collect.influence,
        informative=collect.informative,
        attrs=attrs,
    )
    if tidy:
        result = result.to_frame()
    if not (isinstance(return_runs, bool | np.bool_) and not return_runs):
        results.update(zip(todo, out, strict=True))
        keys = [(label, r) for label in labels for r in range(seeds)]
        return result, {k: results[i][4] for i, k in enumerate(keys) if k[0] in keep}
    return result


def _made_runs(made, labels, children, steps: int, kwargs) -> dict:
    """``made`` checked: each label's runs are the ones compare would make for it."""
    if made is None:
        return {}
    if not isinstance(made, Mapping):
        raise TypeError(f"made must be a mapping of strategy labels to runs, got {made!r}")
    from ..run import Run

    out = {}
    for label, runs in made.items():
        if label not in labels:
            raise ValueError(f"made names {label!r}, not one of the strategies {list(labels)}")
        runs = list(runs)
        if len(runs) != len(children):
            raise ValueError(f"made[{label!r}] must hold {counted(len(children), 'run')} (one per "
                             "seed), "
                             f"got {len(runs)}")  # fmt: skip
        for r, run in enumerate(runs):
            if not isinstance(run, Run):
                raise TypeError(f"made[{label!r}][{r}] must be a Run, got {type(run).__name__}")
            if run.n_steps != steps or run.config.get("seed") != seed_record(children[r])[0]:
                raise ValueError(
                    f"made[{label!r}][{r}] is not replicate {r}'s run of {counted(steps, 'step')} "
                    f"(it has {counted(run.n_steps, 'step')}, seed {run.config.get('seed')!r})"
                )
            want = labels[label]
            if not _is_strategy(want) and callable(want) and not isinstance(want, type):
                want = build_strategy(want, agents=kwargs.get("agents", PAPER.agents),
                                      informative=kwargs.get("informative", 0))  # fmt: skip
            want = getattr(want, "name", None)
            if want is not None and run.strategy != want:
                raise ValueError(f"made[{label!r}][{r}] is a run of {run.strategy!r}, "
                                 f"not {want!r}")  # fmt: skip
        out[label] = runs
    return out


def _kept_labels(return_runs, labels) -> frozenset:
    """The labels whose runs come back: all (True), none (False) or those named."""
    if isinstance(return_runs, bool | np.bool_):
        return frozenset(labels) if return_runs else frozenset()
    if isinstance(return_runs, str | bytes) or not isinstance(return_runs, Collection):
        raise TypeError(
            f"return_runs must be True, False or a collection of strategy labels, got "
            f"{return_runs!r}"
        )
    bad = [x for x in return_runs if not isinstance(x, str)]
    if bad:
        raise TypeError(f"return_runs must hold strategy labels (str), got {bad[0]!r}")
    unknown = sorted(set(return_runs) - set(labels))
    if unknown:
        raise ValueError(
            f"return_runs names {unknown[0]!r}, not one of the strategies {list(labels)}"
        )
    return frozenset(return_runs)
