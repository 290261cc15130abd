"""The learning loop: data + model + strategy + rng -> :class:`~baygo_graph.Run`.

It only orchestrates: the model (:mod:`baygo_graph.models`) splits the data, keeps
the posteriors, updates, pools and measures them; the strategy's
:class:`~baygo_graph.strategies.Plan` draws the batches and decides whom each
agent pools with; the run record keeps what each step measured.
"""

from __future__ import annotations

import copy
import inspect
import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._validate import check_int, check_real, seed_record
from ._version import __version__
from .data import draw_batches
from .io.limits import check_budget, estimate_run_bytes
from .models import LinearRegression, pool, resolve_model
from .run import Run
from .strategies import BayGo, resolve_strategy

__all__ = ["draw_batches", "pool", "simulate"]

# config["split"]["counts"] lists every agent's count up to this many agents.
_COUNTS_LISTED = 10_000


def simulate(
    strategy="baygo",
    *,
    agents: int = 12,
    steps: int = 60,
    rng=None,
    data=None,
    model=None,
    delta: float = 0.5,
    batch: int = 1,
    grid=61,
    bounds=(-2.0, 2.0),
    sigma: float | None = None,
    physical=None,
    informative: int = 0,
    prior_var=(0.5, 0.5),
    test_fraction: float = 0.2,
    informative_range=(85.0, 120.0),
    other_range=(70.0, 85.0),
    weights: str = "delta",
    keep_posteriors=(),
    monitors=(),
    dtype="float64",
    progress: bool | None = None,
) -> Run:
    """Run the learning loop of one strategy.

    Every step, for all agents at once: draw a mini-batch, update the local
    posterior, choose W (BayGo: each agent listens to its most divergent
    physical neighbour), pool geometrically, record the test loss (``run.mse``:
    the test MSE of the linear model), entropy and posterior mean. See docs/design.md
    for the equations.

    Parameters
    ----------
    strategy : str, networkx.Graph or Strategy, default "baygo"
        ``"baygo"``, ``"complete"``, ``"posm"``, ``"negm"``, ``"nocol"``, ``"cen"``
        (one learner drawing ``agents x batch`` samples from the pooled training
        set), ``"cen-stratified"`` (one learner fed every agent's own batch), any
        graph with nodes ``0..agents-1`` (fixed W by the ``weights`` rule), or any
        :class:`~baygo_graph.strategies.Strategy` object.
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
        The samples; None reads ``BAYGO_BODYFAT`` if set, else uses the synthetic
        data set (recorded in ``run.config["data"]``).
    model : str or model object, optional
        What the agents learn (:mod:`baygo_graph.models`): a name from
        :data:`~baygo_graph.models.MODEL_NAMES` or a model object carrying its own
        options. Default: the paper's linear regression, ``"linear"``, made from
        ``grid``, ``bounds``, ``sigma``, ``prior_var``, ``test_fraction``,
        ``informative_range`` and ``other_range`` below (those apply to it only).
    delta : float, default 0.5
        Self-weight of pooling, in [0, 1].
    batch : int, default 1
        Samples per agent per step (drawn with replacement).
    grid : int or (int, int), default 61
        Grid points per parameter axis.
    bounds : (float, float), default (-2, 2)
        Grid interval of each axis (standardised units).
    sigma : float, optional
        Likelihood noise; default: residual std of the least-squares fit on the
        training set.
    physical : networkx.Graph, str, sequence of graphs, callable or PhysicalProcess, optional
        For ``"baygo"``: who can talk to whom; default complete. A graph, or a
        name (``"complete"``, ``"regular-D"``, ``"geometric[-D]"``, drawn from a
        child of ``rng``): the run's config records its edges
        (``run.records["physical_src"/"physical_dst"]``, see
        :func:`~baygo_graph.strategies.physical_at`). Or a graph that changes each step
        (``"gossip"``, ``"failures-P"``, ``"exponential"``, a sequence of graphs
        cycled, a callable ``(t, rng) -> graph``; see
        :mod:`baygo_graph.strategies.timevarying`): ``run.records`` keeps every
        step's physical edges.
    informative : int, default 0
        Id of the informative agent.
    prior_var : (float, float), default (0.5, 0.5)
        Variances of the Gaussian prior N(0, diag(prior_var)).
    test_fraction, informative_range, other_range
        The data split, see :func:`baygo_graph.data.paper_split`.
    weights : {"delta", "uniform", "edge"}, default "delta"
        Weight rule of fixed graphs, see :class:`~baygo_graph.strategies.FixedGraph`.
    keep_posteriors : iterable of int, default ()
        Steps whose log-posteriors (M, K) the run keeps (negative counts from
        the end). Nothing else of size M x K is kept.
    monitors : sequence of monitors, default ()
        Objects that measure the loop's internals every step (e.g.
        :class:`~baygo_graph.monitors.TheoremMonitor`); what they measure is kept in
        ``run.records`` and ``run.config["monitors"]``. See :mod:`baygo_graph.monitors`.
    dtype : {"float64", "float32"}, default "float64"
        Precision of the posterior arrays; metrics are float64.
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.

    Returns
    -------
    Run

    Raises
    ------
    ValueError, TypeError
        A bad option, naming it and its value.
    BudgetError
        When agents x steps x grid points would need more memory than the budget
        (:mod:`baygo_graph.io.limits`, ``BAYGO_MEMORY_LIMIT``); checked before the
        data are read or anything of that size is allocated.

    Warns
    -----
    GridResolutionWarning
        When a posterior puts more than 99% of its mass on one grid cell: the
        grid is too coarse for it (KL-based choices then degenerate).

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> run = simulate("baygo", agents=4, steps=5, grid=21, rng=0, data=synthetic_bodyfat())
    >>> run.mse.shape, run.choices.shape, run.synthetic
    ((5, 4), (5, 4), True)
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
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be 'float64' or 'float32', got {dtype!r}")
    keep = _kept_steps(keep_posteriors, steps)
    linear = {
        "grid": grid,
        "bounds": bounds,
        "sigma": sigma,
        "prior_var": prior_var,
        "test_fraction": test_fraction,
        "informative_range": informative_range,
        "other_range": other_range,
    }
    model = copy.copy(_model(model, linear))  # the caller's object is not changed
    seed, rng = seed_record(rng)
    strat = resolve_strategy(strategy, agents=agents, informative=informative, weights=weights)
    if physical is not None:
        if not isinstance(strat, BayGo) or strat.physical is not None:
            raise ValueError("physical applies to the 'baygo' strategy given by name only")
        strat = BayGo(physical)
    _check_memory(model, strat, agents=agents, steps=steps, batch=batch, dtype=dtype, keep=keep)
    dataset = model.resolve_data(data)
    split = model.split(dataset, agents=agents, informative=informative, rng=rng)
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


def _model(model, linear: dict):
    """The model object: ``linear`` options go to the default linear model only."""
    if model is None or (isinstance(model, str) and model.lower() == "linear"):
        return LinearRegression(**linear)
    changed = [
        k
        for k, v in linear.items()
        if not _same(v, inspect.signature(simulate).parameters[k].default)
    ]
    if changed:
        raise TypeError(
            f"{', '.join(changed)} apply to the linear model only; give the options of "
            f"model {model!r} on its object (see baygo_graph.models)"
        )
    return resolve_model(model)


def _same(a, b) -> bool:
    try:
        return bool(np.all(np.asarray(a, dtype=object) == np.asarray(b, dtype=object)))
    except ValueError:
        return False


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
    return config | model.config() | plan.config() | rec.config


def _check_memory(model, strat, *, agents, steps, batch, dtype, keep) -> None:
    """Refuse, before allocating, a run that needs more memory than the budget."""
    values = model.state_values() if hasattr(model, "state_values") else 1
    dense = isinstance(strat, BayGo) and strat.physical is None  # M x M KL scores
    nbytes = estimate_run_bytes(
        agents, steps, values, itemsize=dtype.itemsize, kept=len(keep), pairwise=dense
    )
    nbytes += 4 * 8 * agents * batch  # each step's draws, indices and batches
    unit = "grid points" if hasattr(model, "space") or hasattr(model, "make_grid") else "values"
    what = f"a run of {agents} agents x {steps} steps x {values} {unit} per agent"
    what += f", batch {batch}" if batch > 1 else ""
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
                grid=getattr(model, "space", None),
                split=split,
                model=model,
            )
        rec = None
        bar = tqdm(range(self.steps), desc=progress or "", disable=not progress, leave=False)
        for t in bar:
            model.update(state, plan.statistics(split, self.batch, rng, model.statistics))
            local = model.posterior_local(state) if monitors else None
            plan.pool(t, model, state, rng)
            m = model.measure(state, t, agents)
            if rec is None:
                rec = self._record(m)
            rec.loss[t], rec.entropy[t], rec.mean[t] = m.loss, m.entropy, m.mean
            for k, v in m.extra.items():
                rec.records.setdefault(k, np.empty((self.steps, agents)))[t] = v
            if t in self.keep:
                rec.kept[t] = np.broadcast_to(
                    model.posterior(state), (agents, model.space.size)
                ).copy()
            if monitors:
                post, w_t = model.posterior(state), plan.weights(t)
                for mon in monitors:
                    mon.observe(t, local=local, posterior=post, weights=w_t)
        rec.state = state
        for mon in monitors:
            records, config = mon.finish()
            rec.records |= records
            rec.config.setdefault("monitors", {}).update(config)
        return rec

    def _record(self, m) -> _Record:
        t, agents = self.steps, self.split.agents
        return _Record(
            loss=np.empty((t, agents)),
            entropy=np.empty((t, agents)),
            mean=np.empty((t, agents, m.mean.shape[1])),
        )
