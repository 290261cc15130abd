"""The learning loop: data + model + strategy + rng -> :class:`~baygo_graph.Run`.

It only orchestrates: the model (:mod:`baygo_graph.models`) splits the data, keeps
the posteriors, updates, pools and measures them; the strategy's
:class:`~baygo_graph.strategies.Plan` draws the batches and decides whom each
agent pools with; the run record keeps what each step measured.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._validate import (
    check_finite_step,
    check_int,
    check_real,
    held_float_warnings,
    seed_record,
)
from ._version import __version__
from .data import draw_batches
from .limits import arrays_nbytes, check_budget, estimate_run_bytes
from .models import pool, resolve_model
from .models.rows import blas_limit, blas_threads
from .run import Run
from .strategies import DEFAULT_STRATEGY, capabilities, resolve_strategy

__all__ = ["RENAMED_KEYWORDS", "draw_batches", "pool", "refuse_renamed", "simulate"]

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
    if isinstance(monitors, str) or not isinstance(monitors, list | tuple):
        raise TypeError(f"monitors must be a list or tuple of monitors, got {monitors!r}")
    _check_args(
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
    seed, rng = seed_record(rng)
    strat = resolve_strategy(strategy, agents=agents, informative=informative)
    _check_memory(model, strat, agents=agents, steps=steps, batch=batch, dtype=dtype, keep=keep)
    dataset = model.resolve_data(data)
    split = model.split(dataset, agents=agents, informative=informative, rng=rng)
    _check_memory(model, strat, agents=agents, steps=steps, batch=batch, dtype=dtype, keep=keep,
                  split=split)  # fmt: skip
    plan = strat.start(agents=agents, steps=steps, delta=delta, dtype=dtype, rng=rng)
    if not all(callable(getattr(plan, m, None)) for m in ("statistics", "pool", "series")):
        raise TypeError(
            f"strategy {strat.name!r}: start() must return a baygo_graph.strategies.Plan, "
            f"got {type(plan).__name__}"
        )
    show = sys.stderr.isatty() if progress is None else bool(progress)
    loop = _Loop(plan, model, split, batch=batch, steps=steps, keep=keep, monitors=monitors)
    rec = loop.run(rng, dtype=dtype, progress=show and strat.name)
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


def _check_memory(model, strat, *, agents, steps, batch, dtype, keep, split=None) -> None:
    """Refuse, before allocating, a run that needs more memory than the budget (with
    ``split``: the run's arrays plus the split's, which already exist)."""
    values = model.state_values() if hasattr(model, "state_values") else 1
    dense = capabilities(strat).pairwise  # M x M scores each step
    nbytes = estimate_run_bytes(
        agents, steps, values, itemsize=dtype.itemsize, kept=len(keep), pairwise=dense
    )
    nbytes += 4 * 8 * agents * batch  # each step's draws, indices and batches
    unit = "grid points" if hasattr(model, "space") or hasattr(model, "make_grid") else "values"
    what = f"a run of {agents} agents x {steps} steps x {values} {unit} per agent"
    what += f", batch {batch}" if batch > 1 else ""
    if split is not None:
        nbytes += arrays_nbytes(split)
        what += " with its data split"
    check_budget(nbytes, what=what)


def _split_record(split) -> dict:
    """The split for the config: every agent's count up to 10,000 agents, a summary above."""
    counts = split.counts
    rec = {"test": len(split.y_test), "mean": list(split.mean), "std": list(split.std)}
    if len(counts) <= _COUNTS_LISTED:
        return {"counts": counts.tolist()} | rec
    summary = {"informative": int(counts[split.informative]), "min": int(counts.min())}
    return {"counts_summary": summary | {"max": int(counts.max())}} | rec


def _check_args(*, agents, steps, batch, delta, informative, monitors) -> None:
    agents = check_int("agents", agents, minimum=2)
    check_int("steps", steps, minimum=1)
    check_int("batch", batch, minimum=1)
    check_real("delta", delta, low=0.0, high=1.0)
    check_int("informative", informative, minimum=0, maximum=agents - 1)
    for mon in monitors:
        if not all(callable(getattr(mon, m, None)) for m in ("start", "observe", "finish")):
            raise TypeError(
                "monitors must be a sequence of objects with start, observe and finish "
                f"(see baygo_graph.monitors), got {mon!r}"
            )


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


@dataclass
class _Loop:
    """The steps: local update, pooling by the plan through the model, measures."""

    plan: object
    model: object
    split: object
    batch: int
    steps: int
    keep: set
    monitors: tuple = ()

    def run(self, rng, *, dtype, progress) -> _Record:
        plan, model, split, monitors = self.plan, self.model, self.split, self.monitors
        agents = split.agents
        state = model.start(split, learners=plan.learners, dtype=dtype)
        for mon in monitors:
            mon.start(
                agents=agents,
                steps=self.steps,
                grid=getattr(state, "space", None),
                split=split,
                model=model,
            )
        # BLAS threads by the size of the step's products: one for small ones
        values = model.state_values() if hasattr(model, "state_values") else 1
        flops = 2 * plan.learners * max(plan.learners, 8) * values
        with blas_limit(blas_threads(flops)):
            rec = self._steps(plan, model, split, state, rng, progress)
        rec.state = state
        for mon in monitors:
            records, config = mon.finish()
            rec.records |= records
            rec.config.setdefault("monitors", {}).update(config)
        return rec

    def _steps(self, plan, model, split, state, rng, progress) -> _Record:
        monitors, agents = self.monitors, split.agents
        rec = None
        bar = tqdm(range(self.steps), desc=progress or "", disable=not progress, leave=False)
        outside = np.geterr()  # numpy's settings for what runs between the steps
        # one hold for the whole loop, released step by step: a NaN step raises
        # NonFiniteError alone, a finite one gets its warnings back (held_float_warnings)
        with held_float_warnings() as held:
            for t in bar:
                model.update(state, plan.statistics(split, self.batch, rng, model.statistics))
                local = model.posterior_local(state) if monitors else None
                plan.pool(t, model, state, rng)
                m = model.measure(state, t, agents)
                if rec is None:
                    rec = self._record(m)
                rec.loss[t], rec.entropy[t], rec.mean[t] = m.loss, m.entropy, m.mean
                if not (np.isfinite(m.entropy).all() and np.isfinite(m.mean).all()):
                    check_finite_step(t, entropy=m.entropy, mean=m.mean)  # never a NaN run
                held.release(step=t)
                for k, v in m.extra.items():
                    rec.records.setdefault(k, np.empty((self.steps, agents)))[t] = v
                if t in self.keep or monitors:
                    with np.errstate(**outside):  # as outside the loop: not held
                        self._observe(t, model, plan, state, rec, local)
        return rec

    def _observe(self, t, model, plan, state, rec, local) -> None:
        """Keep step ``t``'s posteriors if asked, and show them to the monitors."""
        agents = self.split.agents
        if t in self.keep:
            post = model.posterior(state)
            rec.kept[t] = np.broadcast_to(post, (agents, post.shape[1])).copy()
        if self.monitors:
            post, w_t = model.posterior(state), plan.weights(t)
            for mon in self.monitors:
                mon.observe(t, local=local, posterior=post, weights=w_t)

    def _record(self, m) -> _Record:
        t, agents = self.steps, self.split.agents
        return _Record(
            loss=np.empty((t, agents)),
            entropy=np.empty((t, agents)),
            mean=np.empty((t, agents, m.mean.shape[1])),
        )
