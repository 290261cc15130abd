"""The learning loop: data + model + strategy + rng -> :class:`~baygo_graph.Run`.

It only orchestrates: the model (:mod:`baygo_graph.models`) splits the data, keeps
the posteriors, updates, pools and measures them; the strategy's
:class:`~baygo_graph.strategies.Plan` draws the batches and decides whom each
agent pools with; the run record keeps what each step measured.
"""

from __future__ import annotations

import copy
import functools
import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._text import counted
from ._validate import (
    check_bool,
    check_finite_step,
    check_int,
    check_real,
    held_float_warnings,
    seed_record,
)
from ._version import __version__
from .data import draw_batches
from .exceptions import BudgetError
from .limits import arrays_nbytes, estimate_run_bytes, memory_budget
from .models import pool, resolve_model
from .models.grid import GridModel
from .models.rows import blas_limit, blas_threads
from .run import Run
from .strategies import DEFAULT_STRATEGY, capabilities, resolve_strategy

__all__ = [
    "RENAMED_KEYWORDS",
    "SEEDS_AT_ONCE_BYTES",
    "draw_batches",
    "pool",
    "refuse_renamed",
    "simulate",
    "simulate_seeds",
]

# config["split"]["counts"] lists every agent's count up to this many agents.
_COUNTS_LISTED = 10_000


#: Keywords :func:`simulate` took before model and strategy objects carried them, and
#: their spelling now: passing one is a TypeError that names it.
RENAMED_KEYWORDS = {
    **{
        name: f"model=LinearRegression({name}=...) (the model object carries it)"
        for name in (
            "grid",
            "bounds",
            "sigma",
            "prior_var",
            "test_fraction",
            "informative_range",
            "other_range",
            "dtype",
        )
    },
    "physical": "strategy=BayGo(physical=...) (or strategy.with_physical(...))",
    "weights": "strategy=FixedGraph(graph, weights=...) (or star(M, center=..., weights=...))",
}


def refuse_renamed(keywords, where: str) -> None:
    """A TypeError naming the new spelling of the first renamed keyword in ``keywords``.

    Examples
    --------
    >>> refuse_renamed({"agents": 4}, "simulate")
    >>> refuse_renamed({"grid": 21}, "simulate")
    Traceback (most recent call last):
    ...
    TypeError: simulate() no longer takes grid=: pass model=LinearRegression(grid=...) (the model object carries it)
    """  # noqa: E501
    old = sorted(set(keywords) & set(RENAMED_KEYWORDS))
    if old:
        raise TypeError(f"{where}() no longer takes {old[0]}=: pass {RENAMED_KEYWORDS[old[0]]}")


def _renamed_refused(func):
    """Refuse the keywords of :data:`RENAMED_KEYWORDS` with their new spelling, before
    Python's own "unexpected keyword" error; the signature stays the function's."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        refuse_renamed(kwargs, func.__name__)
        return func(*args, **kwargs)

    return wrapper


@_renamed_refused
def simulate(
    strategy=DEFAULT_STRATEGY,
    *,
    agents: int = 12,
    steps: int = 60,
    rng=None,
    data=None,
    model=None,
    delta: float = 0.5,
    batch: int = 1,
    informative: int = 0,
    keep_posteriors=(),
    monitors=(),
    progress: bool | None = None,
) -> Run:
    """Run the learning loop of one strategy.

    Every step, for all agents at once: draw a mini-batch, update the local
    posterior, let the strategy choose W (BayGo: each agent listens to its most
    divergent physical neighbour), pool geometrically, record the model's test loss
    (``run.loss``, named by ``run.loss_name``; ``"mse"`` for the linear model),
    entropy and posterior mean. See the design page (``docs/design.md``) for the
    equations.

    Parameters
    ----------
    strategy : str, networkx.Graph or Strategy, default "baygo"
        A registered name (:func:`~baygo_graph.strategies.strategy_names`:
        ``"baygo"``, ``"complete"``, ``"posm"``, ``"negm"``, ``"nocol"``,
        ``"cen"``, ``"cen-stratified"`` and plug-ins added with
        :func:`baygo_graph.strategies.register`), any graph with nodes
        ``0..agents-1`` (fixed W), or any :class:`~baygo_graph.strategies.Strategy`
        object carrying its own options (e.g. ``BayGo(physical="regular-4")``,
        ``FixedGraph(graph, weights="uniform")``).
    agents : int, default 12
        Number of agents M.
    steps : int, default 60
        Number of iterations T.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        The run's only source of randomness (test split, sharing of samples,
        batches, tie-breaking). The same seed gives the same run in any process;
        ``run.config["seed"]`` records a seed that reproduces it (a Generator
        gives one draw of entropy, which is recorded).
    data : str, os.PathLike, pandas.DataFrame, Dataset or None
        The samples; None: the model's default (the linear model reads
        ``BAYGO_BODYFAT`` if set, else uses the synthetic data set; recorded in
        ``run.config["data"]``).
    model : str or model object, optional
        What the agents learn (:class:`~baygo_graph.models.Model`): a registered
        name (:func:`~baygo_graph.models.model_names`) or a model object carrying
        its own options (grid, bounds, noise, prior, split, ``dtype``). Default:
        the paper's linear regression, ``LinearRegression()``.
    delta : float, default 0.5
        Self-weight of pooling, in [0, 1].
    batch : int, default 1
        Samples per agent per step (drawn with replacement).
    informative : int, default 0
        Id of the informative agent.
    keep_posteriors : iterable of int, default ()
        Steps whose log-posteriors (M, K) the run keeps (negative counts from
        the end). Nothing else of size M x K is kept.
    monitors : sequence of monitors, default ()
        Objects that measure the loop's internals every step (e.g.
        :class:`~baygo_graph.monitors.TheoremMonitor`); what they measure is kept in
        ``run.records`` and ``run.config["monitors"]``. See :mod:`baygo_graph.monitors`.
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.

    Returns
    -------
    Run

    Raises
    ------
    ValueError, TypeError
        A bad option, naming it and its value; a keyword of earlier versions
        (``grid=``, ``physical=``, ... :data:`RENAMED_KEYWORDS`) names its spelling
        now.
    BudgetError
        When agents x steps x grid points would need more memory than the budget
        (:mod:`baygo_graph.limits`, ``BAYGO_MEMORY_LIMIT``); checked before the
        data are read or anything of that size is allocated.

    Warns
    -----
    GridResolutionWarning
        When a posterior puts more than 99% of its mass on one grid cell: the
        grid is too coarse for it (KL-based choices then degenerate).

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("baygo", agents=4, steps=5, model=LinearRegression(grid=21), rng=0,
    ...                data=synthetic_bodyfat())
    >>> run.loss.shape, run.loss_name, run.choices.shape, run.synthetic
    ((5, 4), 'mse', (5, 4), True)
    """
    progress = check_bool("progress", progress, none=True)
    (run,) = _simulate(strategy, [rng], agents=agents, steps=steps, data=data, model=model,
                       delta=delta, batch=batch, informative=informative,
                       keep_posteriors=keep_posteriors, monitors=monitors, progress=progress,
                       copy_monitors=False, at_once=1)  # fmt: skip
    return run


@_renamed_refused
def simulate_seeds(
    strategy=DEFAULT_STRATEGY,
    *,
    seeds,
    agents: int = 12,
    steps: int = 60,
    data=None,
    model=None,
    delta: float = 0.5,
    batch: int = 1,
    informative: int = 0,
    keep_posteriors=(),
    monitors=(),
    progress: bool | None = None,
    at_once: int | None = None,
) -> list:
    """Run one configuration over several seeds, many seeds per loop: one run per seed.

    ``simulate_seeds(s, seeds=[a, b, ...], **options)[i]`` is the run
    ``simulate(s, rng=seeds[i], **options)`` gives, bit for bit (losses, entropies,
    means, choices, records, kept posteriors, config). The runs are made together:
    every element-wise pass and argmin of a step covers all of them at once (their
    posteriors are the row blocks of one array), so the per-step cost of Python and
    numpy calls is paid once for ``at_once`` seeds; each seed keeps its own
    generator and draws in its own order, each matrix product is its own BLAS call.
    It saves calls, not passes over the posteriors: much on small grids and for
    centralised runs (0.3-0.6x the CPU time per seed at grid 31), a few per cent at
    the paper's size; see the performance page of the docs (``docs/scaling.md``).

    Parameters
    ----------
    strategy
        As :func:`simulate`.
    seeds : sequence
        One ``rng`` of :func:`simulate` per run (int, SeedSequence, Generator, or
        a run's ``config["seed"]`` record).
    agents, steps, data, model, delta, batch, informative, keep_posteriors, progress
        As :func:`simulate`; the same for every seed.
    monitors : sequence of monitors, default ()
        As :func:`simulate`; every run measures with its own copy
        (:func:`copy.deepcopy`) of each monitor given, which stays unchanged.
    at_once : int, optional
        Seeds per loop (>= 1); default: as many as keep the loop's posterior
        buffers within :data:`SEEDS_AT_ONCE_BYTES` (cache-sized: 2 seeds of the
        paper's run, 9 at grid 31, 29 centralised runs) and the memory budget.
        The exact model and strategies whose plans pool one run at a time (a
        plug-in that overrides ``Plan.pool`` only) always run one seed at a time.

    Returns
    -------
    list of Run
        One per seed, in the order of ``seeds``.

    Raises
    ------
    ValueError, TypeError, BudgetError
        As :func:`simulate`; the memory budget is checked for the runs made together,
        and for the results of every seed (they are all returned), before any run
        (before ``seeds`` is read, when it has a length).
    NonFiniteError
        As :func:`simulate`, naming the step and agent: a run of a loop that goes
        non-finite stops the call (the runs made before it are not returned).

    Examples
    --------
    >>> import numpy as np
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> opts = dict(agents=4, steps=5, model=LinearRegression(grid=21), data=synthetic_bodyfat())
    >>> runs = simulate_seeds("baygo", seeds=[0, 1, 2], **opts)
    >>> [bool(np.array_equal(r.mse, simulate("baygo", rng=s, **opts).mse)) for s, r in
    ...  zip([0, 1, 2], runs)]
    [True, True, True]
    """
    progress = check_bool("progress", progress, none=True)
    if isinstance(seeds, str | bytes | dict) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of seeds (one per run), got {seeds!r}")
    flat = not isinstance(seeds, np.ndarray) or seeds.ndim == 1  # never np.ndim(a range)
    if isinstance(seeds, set | frozenset) or not flat:
        raise TypeError(
            "seeds must be an ordered sequence of seeds, one per run (a list, tuple, range or "
            f"1-d array: the runs come back in its order), got {type(seeds).__name__}"
            + ("" if flat else f" of shape {seeds.shape}")
        )
    if at_once is not None:
        check_int("at_once", at_once, minimum=1)
    return _simulate(strategy, seeds, agents=agents, steps=steps, data=data, model=model,
                     delta=delta, batch=batch, informative=informative,
                     keep_posteriors=keep_posteriors, monitors=monitors, progress=progress,
                     copy_monitors=True, at_once=at_once)  # fmt: skip


#: Bytes of posterior buffers (3 x seeds x learners x grid points, 2.5 MiB) one loop of
#: :func:`simulate_seeds` holds by default: past a few MiB the passes of a step no
#: longer find their data in the caches, and a batch gets slower per seed than one run
#: (measured on the paper's run and at grid 31; ``docs/scaling.md``).
SEEDS_AT_ONCE_BYTES = 5 << 19


def _simulate(strategy, seeds, *, monitors, copy_monitors, at_once, agents, steps, data,
              model, delta, batch, informative, keep_posteriors, progress) -> list:  # fmt: skip
    """The runs of ``seeds`` (one loop for up to ``at_once`` of them; None: chosen)."""
    if isinstance(monitors, str) or not isinstance(monitors, list | tuple):
        raise TypeError(f"monitors must be a list or tuple of monitors, got {monitors!r}")
    agents, steps, batch, informative = _check_args(
        agents=agents,
        steps=steps,
        batch=batch,
        delta=delta,
        informative=informative,
        monitors=monitors,
    )
    keep = _kept_steps(keep_posteriors, steps)
    model = resolve_model(model)
    dtype = np.dtype(getattr(model, "dtype", "float64"))
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be 'float64' or 'float32', got {dtype!r}")
    strat = resolve_strategy(strategy, agents=agents, informative=informative)
    sizes = {"agents": agents, "steps": steps, "batch": batch, "dtype": dtype, "keep": keep}

    # what the process holds, measured once: every check of this call adds its estimates
    # to it (the memory a loop frees stays resident for the next: measuring again would
    # count it twice)
    sizes["budget"] = memory_budget()

    def check_all(n):  # every run's results and the first loop, before any data is read
        if n:
            together = 1 if at_once is None else min(int(at_once), n)
            _check_memory(model, strat, seeds=together, runs=n, **sizes)

    if hasattr(seeds, "__len__"):  # before reading them: range(10**9) is refused here
        check_all(len(seeds))
    # (record, generator) of each run; simulate_seeds' errors name the seed
    records = [_seed_record(rng, i if copy_monitors else None) for i, rng in enumerate(seeds)]
    if not hasattr(seeds, "__len__"):
        check_all(len(records))
    if not records:
        return []
    if at_once is not None:
        at_once = min(int(at_once), len(records))
    dataset = model.resolve_data(data)
    show = sys.stderr.isatty() if progress is None else bool(progress)
    runs, lo = [], 0

    def split_of(rng):
        return model.split(dataset, agents=agents, informative=informative, rng=rng)

    def plan_of(rng):
        return _start_plan(strat, rng, agents=agents, steps=steps, delta=delta, dtype=dtype)

    while lo < len(records):
        # (seed record, generator, split, plan) of each run of this loop; the first one
        # as simulate makes it, whose plan says how many learners (and so seeds) fit
        seed, rng = records[lo]
        made = [[seed, rng, split_of(rng), None]]
        split = arrays_nbytes(made[0][2])  # one run's data split
        _check_memory(model, strat, split=split, runs=len(records), **sizes)
        made[0][3] = plan_of(rng)
        if at_once is None:
            learners = getattr(made[0][3], "learners", agents)
            at_once = _at_once(model, strat, len(records), learners=learners, split=split,
                               **sizes)  # fmt: skip
        rest = [[seed, rng, split_of(rng), None] for seed, rng in records[lo + 1 : lo + at_once]]
        if rest:
            made += rest
            split = sum(arrays_nbytes(m[2]) for m in made)
            _check_memory(model, strat, seeds=len(made), split=split, runs=len(records), **sizes)
            for one in rest:
                one[3] = plan_of(one[1])
        lo += len(made)
        together = _batches_seeds(model) and getattr(made[0][3], "seeds_at_once", False)
        groups = [made] if together else [[one] for one in made]
        for group in groups:
            mons = [copy.deepcopy(monitors) if copy_monitors else monitors for _ in group]
            loop = _Loop([g[3] for g in group], model, [g[2] for g in group], batch=batch,
                         steps=steps, keep=keep, monitors=mons)  # fmt: skip
            recs = loop.run([g[1] for g in group], dtype=dtype, progress=show and strat.name)
            for (seed, _, split, plan), rec in zip(group, recs, strict=True):
                runs.append(_make_run(strat, model, plan, rec, dataset, split, seed=seed,
                                      agents=agents, steps=steps, delta=delta, batch=batch,
                                      informative=informative, dtype=dtype))  # fmt: skip
    return runs


#: The step methods a model's ``start_seeds`` works with: a subclass that overrides one
#: of them below the class that defines ``start_seeds`` runs one seed at a time.
_SEEDS_STEP = ("start", "update", "most_divergent", "pool_choices", "pool_weights", "measure",
               "posterior", "posterior_local")  # fmt: skip
#: A model's own batched hooks (not the generic ones of GridModel, which call the model's
#: methods run by run) and what each one stands for.
_SEEDS_HOOKS = {
    "start_seeds": ("prepare",),
    "log_likelihood_seeds": ("log_likelihood", "prepare"),
    "loss_seeds": ("loss_function", "prepare"),
}


def _batches_seeds(model) -> bool:
    """Whether ``model`` makes several runs in one state (``start_seeds``): none of the
    methods its batched hooks stand for is overridden below the class of the hook."""
    kind = type(model)

    def owner(name):
        return next((k for k in kind.__mro__ if name in vars(k)), None)

    first = owner("start_seeds")
    if first is None:
        return False
    if any(owner(n) not in first.__mro__ for n in _SEEDS_STEP if owner(n) is not None):
        return False
    for hook, relied in _SEEDS_HOOKS.items():
        mine = owner(hook)
        if mine is None or mine is GridModel:  # the generic hook: the model's own methods
            continue
        if any(owner(n) not in mine.__mro__ for n in relied if owner(n) is not None):
            return False
    return True


def _seed_record(rng, i: int | None) -> tuple:
    """:func:`seed_record` of ``rng``; an error names ``seeds[i]`` (``i`` not None: one
    of the seeds of :func:`simulate_seeds`)."""
    if i is None:
        return seed_record(rng)
    try:
        return seed_record(rng)
    except (TypeError, ValueError) as e:
        raise type(e)(f"seeds[{i}]: {e}".replace(": rng must", ": each seed must")) from None


def _start_plan(strat, rng, *, agents, steps, delta, dtype):
    """The strategy's plan of one run, checked."""
    plan = strat.start(agents=agents, steps=steps, delta=delta, dtype=dtype, rng=rng)
    if not all(callable(getattr(plan, m, None)) for m in ("statistics", "pool", "series")):
        raise TypeError(
            f"strategy {strat.name!r}: start() must return a baygo_graph.strategies.Plan, "
            f"got {type(plan).__name__}"
        )
    return plan


def _at_once(model, strat, seeds: int, *, learners: int, split: int = 0, **sizes) -> int:
    """Seeds per loop: as many as keep the runs' posterior buffers within
    :data:`SEEDS_AT_ONCE_BYTES` and the memory budget, with the results of all ``seeds``
    and a data split of ``split`` bytes each (at least one)."""
    values = model.state_values() if hasattr(model, "state_values") else 1
    per_seed = 3 * max(1, learners) * values * sizes["dtype"].itemsize  # logp, expo, spare
    n = max(1, min(seeds, SEEDS_AT_ONCE_BYTES // per_seed))
    while n > 1 and not _within_budget(model, strat, seeds=n, runs=seeds, split=n * split,
                                       **sizes):  # fmt: skip
        n //= 2
    return n


def _within_budget(model, strat, **kwargs) -> bool:
    try:
        _check_memory(model, strat, **kwargs)
    except BudgetError:
        return False
    return True


def _make_run(strat, model, plan, rec, dataset, split, *, seed, agents, steps, delta, batch,
              informative, dtype) -> Run:  # fmt: skip
    """The :class:`Run` of one seed from its loop record."""
    model.finish(rec.state)
    weights = getattr(strat, "weights", None)
    config = _config(strat, model, plan, rec, dataset, split, agents=agents, steps=steps,
                     seed=seed, delta=delta, batch=batch, informative=informative,
                     weights=weights, dtype=dtype)  # fmt: skip
    return Run(
        strategy=strat.name,
        informative=informative,
        delta=float(delta),
        mse=rec.loss,
        entropy=rec.entropy,
        mean=rec.mean,
        series=plan.series(),
        posteriors=rec.kept,
        records=rec.records | plan.records(),
        config=config,
    )


def _config(strat, model, plan, rec, dataset, split, *, agents, steps, seed, delta, batch,
            informative, weights, dtype) -> dict:  # fmt: skip
    """The run's record of how it was made: options, data, split, model, strategy, loop."""
    config = {
        "strategy": strat.name,
        "model": model.name,
        "loss": model.loss_name,
        "agents": agents,
        "steps": steps,
        "seed": seed,
        "delta": delta,
        "batch": batch,
        "informative": informative,
        "weights": weights,
        "physical": None,
        "dtype": dtype.name,
        "data": {"source": dataset.source, "synthetic": dataset.synthetic, "rows": len(dataset)},
        "split": _split_record(split),
        "version": __version__,
    }
    return config | model.config(rec.state) | plan.config() | rec.config


#: Bytes of a run's record besides its arrays (config, series and run objects), about.
_RUN_OVERHEAD = 16 << 10


def _result_bytes(model, *, agents, steps, keep) -> int:
    """Bytes one returned run holds: its per-step arrays (loss, entropy, mean, choices),
    kept posteriors and records."""
    values = model.state_values() if hasattr(model, "state_values") else 1
    dims = len(model.grid_shape()) if hasattr(model, "grid_shape") else 2
    one = steps * agents * (8 + 8 + 8 * dims + 4) + len(keep) * agents * values * 8
    return one + _RUN_OVERHEAD


def _check_memory(model, strat, *, agents, steps, batch, dtype, keep, seeds=1, runs=1,
                  split=0, budget=None):  # fmt: skip
    """Refuse, before allocating, runs that need more memory than the budget allows on
    top of what the process held when the call began (``budget``, a
    :class:`~baygo_graph.limits.Budget`; default: measured now): ``seeds`` runs made
    together (their loop's arrays, :func:`~baygo_graph.limits.estimate_run_bytes`), the
    results of all ``runs`` (>= ``seeds``; every one is returned) and ``split`` bytes of
    the loop's data splits."""
    values = model.state_values() if hasattr(model, "state_values") else 1
    dense = capabilities(strat).pairwise  # M x M scores each step
    pair_bytes = getattr(model, "pair_bytes", 8)
    loop = estimate_run_bytes(
        agents, steps, values, itemsize=dtype.itemsize, kept=len(keep), pairwise=dense,
        pair_bytes=pair_bytes, seeds=seeds,
    )  # fmt: skip
    loop += 4 * 8 * agents * batch * seeds  # each step's draws, indices and batches
    result = _result_bytes(model, agents=agents, steps=steps, keep=keep)
    # every run's results; the loop's runs hold theirs twice at its end (the loop's
    # record of all of them, and each run's copy of its columns)
    runs = max(int(runs), seeds)
    nbytes = loop + runs * result + int(split)
    unit = "grid points" if hasattr(model, "space") or hasattr(model, "make_grid") else "values"
    size = f"{counted(agents, 'agent')} x {counted(steps, 'step')} x {values} {unit}"
    size += f", batch {batch}" if batch > 1 else ""
    pairs = agents * agents * pair_bytes if dense else 0
    if runs == 1:
        what, advice = f"a run of {size} per agent", ""
        if pairs > nbytes // 2:  # the complete physical graph's M^2 pairs dominate
            advice = "a sparse physical graph (e.g. regular-10) avoids the M^2 pairs"
    else:  # every run is returned: fewer per call is the way
        what = f"{counted(runs, 'run', spec=',')} of {size}" + (
            f" ({seeds} at once)" if seeds > 1 else ""
        )
        advice = "pass fewer seeds or a smaller at_once" if seeds > 1 else "pass fewer seeds"
    (budget or memory_budget()).check(nbytes, what=what, advice=advice)


def _split_record(split) -> dict:
    """The split for the config: every agent's count up to 10,000 agents, a summary above."""
    counts = split.counts
    rec = {"test": len(split.y_test), "mean": list(split.mean), "std": list(split.std)}
    if len(counts) <= _COUNTS_LISTED:
        return {"counts": counts.tolist()} | rec
    summary = {"informative": int(counts[split.informative]), "min": int(counts.min())}
    return {"counts_summary": summary | {"max": int(counts.max())}} | rec


def _check_args(*, agents, steps, batch, delta, informative, monitors) -> tuple:
    """``(agents, steps, batch, informative)`` as Python ints (a numpy uint8 would do the
    budget's arithmetic in its own width and overflow: hostile16 U3), each checked."""
    agents = check_int("agents", agents, minimum=2)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    check_real("delta", delta, low=0.0, high=1.0)
    informative = check_int("informative", informative, minimum=0, maximum=agents - 1)
    for mon in monitors:
        if not all(callable(getattr(mon, m, None)) for m in ("start", "observe", "finish")):
            raise TypeError(
                "monitors must be a sequence of objects with start, observe and finish "
                f"(see baygo_graph.monitors), got {mon!r}"
            )
    return agents, steps, batch, informative


def _kept_steps(keep_posteriors, steps) -> set:
    if isinstance(keep_posteriors, str | bool) or not hasattr(keep_posteriors, "__iter__"):
        raise TypeError(f"keep_posteriors must be a sequence of steps, got {keep_posteriors!r}")
    keep_posteriors = list(keep_posteriors)
    for t in keep_posteriors:
        check_int("keep_posteriors[...]", t)
    if not all(-steps <= int(t) < steps for t in keep_posteriors):
        raise ValueError(
            f"keep_posteriors must be steps in [-{steps}, {steps}), got {keep_posteriors!r}"
        )
    return {int(t) % steps for t in keep_posteriors}


@dataclass
class _Record:
    """What the loop keeps: per-step measures (T, M), kept posteriors, monitor records."""

    loss: np.ndarray
    entropy: np.ndarray
    mean: np.ndarray
    state: object = None
    kept: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)


def _watched_steps(monitors, steps: int) -> int:
    """Steps ``0 .. n - 1`` some monitor observes: ``steps`` unless every monitor stops
    earlier (its ``until``); 0 without monitors. The loop skips the local posteriors,
    the posteriors and W of a later step (a monitor ignores them: same records)."""
    untils = [getattr(mon, "until", None) for mons in monitors for mon in mons]
    if not untils:
        return 0
    return steps if None in untils else min(steps, max(untils))


@dataclass
class _Loop:
    """The steps of one or more runs of one configuration (one plan, split, generator
    and monitors each): local update, pooling by the plans through the model, measures.

    The runs' posteriors are the row blocks of one model state (``model.start_seeds``)
    when there are several: every step's passes cover them all at once.
    """

    plans: list
    model: object
    splits: list
    batch: int
    steps: int
    keep: set
    monitors: list  # each run's monitors

    def run(self, rngs, *, dtype, progress) -> list:
        plans, model, splits = self.plans, self.model, self.splits
        agents, learners = splits[0].agents, plans[0].learners
        if len(splits) == 1:
            state = model.start(splits[0], learners=learners, dtype=dtype)
        else:
            state = model.start_seeds(splits, learners=learners, dtype=dtype)
        lanes = getattr(state, "per_seed", None) or [state]
        for lane, split, mons in zip(lanes, splits, self.monitors, strict=True):
            for mon in mons:
                mon.start(
                    agents=agents,
                    steps=self.steps,
                    grid=getattr(lane, "space", None),
                    split=split,
                    model=model,
                )
        # BLAS threads by the size of one run's products (each run's product is its own
        # BLAS call): one for small ones
        values = model.state_values() if hasattr(model, "state_values") else 1
        flops = 2 * learners * max(learners, 8) * values
        with blas_limit(blas_threads(flops)):
            recs = self._steps(plans, model, splits, state, rngs, progress)
        for rec, lane, mons in zip(recs, lanes, self.monitors, strict=True):
            rec.state = lane
            for mon in mons:
                records, config = mon.finish()
                rec.records |= records
                rec.config.setdefault("monitors", {}).update(config)
        return recs

    def _steps(self, plans, model, splits, state, rngs, progress) -> list:
        agents, seeds = splits[0].agents, len(plans)
        watch = _watched_steps(self.monitors, self.steps)  # monitors observe steps < watch
        lead, statistics = plans[0], model.statistics
        rec = None
        bar = range(self.steps)  # a progress bar only when asked (a disabled one costs 0.1 ms)
        if progress:
            bar = tqdm(bar, desc=progress, leave=False)
        outside = np.geterr()  # numpy's settings for what runs between the steps
        # one hold for the whole loop, released step by step: a NaN step raises
        # NonFiniteError alone, a finite one gets its warnings back (held_float_warnings)
        with held_float_warnings() as held:
            for t in bar:
                watched = t < watch
                if seeds == 1 and not hasattr(lead, "statistics_seeds"):  # a plan of its own
                    stats = lead.statistics(splits[0], self.batch, rngs[0], statistics)
                else:  # each run draws from its own generator, in its own order
                    stats = lead.statistics_seeds(plans, splits, self.batch, rngs, statistics)
                model.update(state, stats)
                local = model.posterior_local(state) if watched else None
                if seeds == 1 and not hasattr(lead, "pool_seeds"):  # a plan of its own kind
                    lead.pool(t, model, state, rngs[0])
                else:
                    lead.pool_seeds(plans, t, model, state, rngs)
                m = model.measure(state, t, agents)
                if rec is None:
                    rec = self._record(m, seeds)
                if not (np.isfinite(m.entropy).all() and np.isfinite(m.mean).all()):
                    for s in range(seeds):  # never a NaN run: the first such run says where
                        block = slice(s * agents, (s + 1) * agents)
                        check_finite_step(t, entropy=m.entropy[block], mean=m.mean[block])
                held.release(step=t)
                rec.loss[t], rec.entropy[t], rec.mean[t] = m.loss, m.entropy, m.mean
                for k, v in m.extra.items():
                    rec.records.setdefault(k, np.empty((self.steps, seeds * agents)))[t] = v
                if t in self.keep or watched:
                    with np.errstate(**outside):  # as outside the loop: not held
                        self._observe(t, model, plans, state, rec, local, watched=watched)
        return [rec] if seeds == 1 else [self._part(rec, s) for s in range(seeds)]

    def _part(self, rec: _Record, s: int) -> _Record:
        """Run ``s``'s record of the loop's record of every run (agents ``s * M ...``)."""
        block = slice(s * self.splits[0].agents, (s + 1) * self.splits[0].agents)
        return _Record(
            loss=rec.loss[:, block].copy(),
            entropy=rec.entropy[:, block].copy(),
            mean=rec.mean[:, block].copy(),
            kept={t: post[s] for t, post in rec.kept.items()},
            records={k: v[:, block].copy() for k, v in rec.records.items()},
        )

    def _observe(self, t, model, plans, state, rec, local, *, watched) -> None:
        """Keep step ``t``'s posteriors if asked (of several runs: a list, one per run),
        and show them to the monitors if ``watched``."""
        agents = self.splits[0].agents
        post = model.posterior(state)
        rows = len(post) // len(plans)
        kept = []
        for s, (plan, mons) in enumerate(zip(plans, self.monitors, strict=True)):
            mine = post[s * rows : (s + 1) * rows] if len(plans) > 1 else post
            if t in self.keep:
                kept.append(np.broadcast_to(mine, (agents, mine.shape[1])).copy())
            if mons and watched:
                before = local[s * rows : (s + 1) * rows] if len(plans) > 1 else local
                w_t = plan.weights(t)
                for mon in mons:
                    mon.observe(t, local=before, posterior=mine, weights=w_t)
        if kept:
            rec.kept[t] = kept[0] if len(plans) == 1 else kept

    def _record(self, m, seeds: int) -> _Record:
        """The record of every run of the loop: run ``s``'s agents are columns
        ``s * M`` to ``(s + 1) * M``."""
        t, agents = self.steps, self.splits[0].agents * seeds
        return _Record(
            loss=np.empty((t, agents)),
            entropy=np.empty((t, agents)),
            mean=np.empty((t, agents, m.mean.shape[1])),
        )
