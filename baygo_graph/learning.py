"""The learning loop: data + model + strategy + rng -> :class:`~baygo_graph.Run`.

It only orchestrates: the strategy's :class:`~baygo_graph.strategies.Plan` draws the
data and pools, :mod:`baygo_graph.model` evaluates the grid model, and the run
record keeps what each step measured.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ._validate import check_int, check_real, seed_record
from ._version import __version__
from .data import draw_batches, paper_split, resolve_data
from .exceptions import GridResolutionWarning
from .model import log_likelihood, log_prior, make_grid, mse_function, pool
from .run import Run
from .strategies import BayGo, resolve_strategy

__all__ = ["draw_batches", "pool", "simulate"]

# A posterior with more mass than this on one grid cell has collapsed onto it.
_COLLAPSE = 0.99


def simulate(
    strategy="baygo",
    *,
    agents: int = 12,
    steps: int = 60,
    rng=None,
    data=None,
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
    log-posterior, choose W (BayGo: each agent listens to its most divergent
    physical neighbour), pool geometrically, record test MSE, entropy and
    posterior mean. See DESIGN.md for the equations.

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
        (``config["physical_edges"]``). Or a graph that changes each step
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
    _check_args(agents=agents, steps=steps, batch=batch, delta=delta)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be 'float64' or 'float32', got {dtype!r}")
    keep = _kept_steps(keep_posteriors, steps)
    seed, rng = seed_record(rng)
    strat = resolve_strategy(strategy, agents=agents, informative=informative, weights=weights)
    if physical is not None:
        if not isinstance(strat, BayGo) or strat.physical is not None:
            raise ValueError("physical applies to the 'baygo' strategy given by name only")
        strat = BayGo(physical)
    dataset = resolve_data(data)
    split = paper_split(
        dataset,
        agents=agents,
        informative=informative,
        informative_range=informative_range,
        other_range=other_range,
        test_fraction=test_fraction,
        rng=rng,
    )
    g = make_grid(grid, bounds=bounds)
    sigma = split.sigma_ls if sigma is None else float(sigma)
    plan = strat.start(agents=agents, steps=steps, delta=delta, dtype=dtype, rng=rng)
    prior = log_prior(g, var=prior_var).astype(dtype)
    show = sys.stderr.isatty() if progress is None else bool(progress)
    rec = _loop(
        plan,
        split,
        g,
        prior,
        sigma=sigma,
        batch=batch,
        steps=steps,
        keep=keep,
        rng=rng,
        progress=show and strat.name,
        monitors=monitors,
    )
    if rec.collapsed is not None:
        _warn_collapse(*rec.collapsed, g)
    config = (
        _config(
            strat=strat,
            agents=agents,
            steps=steps,
            seed=seed,
            delta=delta,
            batch=batch,
            grid=g,
            sigma=sigma,
            informative=informative,
            prior_var=prior_var,
            test_fraction=test_fraction,
            informative_range=informative_range,
            other_range=other_range,
            weights=weights,
            dtype=dtype,
            dataset=dataset,
            split=split,
        )
        | plan.config()
        | ({"monitors": rec.monitor_config} if monitors else {})
    )
    return Run(
        strategy=strat.name,
        informative=informative,
        delta=float(delta),
        mse=rec.mse,
        entropy=rec.entropy,
        mean=rec.mean,
        series=plan.series(),
        posteriors=rec.kept,
        records=rec.records | plan.records(),
        config=config,
    )


def _config(
    *,
    strat,
    agents,
    steps,
    seed,
    delta,
    batch,
    grid,
    sigma,
    informative,
    prior_var,
    test_fraction,
    informative_range,
    other_range,
    weights,
    dtype,
    dataset,
    split,
):
    """Every parameter of the run, its seed, data and version, as JSON-able values."""
    g = grid
    return {
        "strategy": strat.name,
        "agents": agents,
        "steps": steps,
        "seed": seed,
        "delta": delta,
        "batch": batch,
        "grid": list(g.shape),
        "bounds": [list(b) for b in g.bounds],
        "sigma": sigma,
        "informative": informative,
        "prior_var": list(np.broadcast_to(np.asarray(prior_var, float), (2,))),
        "test_fraction": test_fraction,
        "informative_range": list(informative_range),
        "other_range": list(other_range),
        "weights": weights,
        "physical": None,
        "dtype": dtype.name,
        "data": {"source": dataset.source, "synthetic": dataset.synthetic, "rows": len(dataset)},
        "split": {
            "counts": split.counts.tolist(),
            "test": len(split.y_test),
            "mean": list(split.mean),
            "std": list(split.std),
        },
        "version": __version__,
    }


def _check_args(*, agents, steps, batch, delta) -> None:
    check_int("agents", agents, minimum=2)
    check_int("steps", steps, minimum=1)
    check_int("batch", batch, minimum=1)
    check_real("delta", delta, low=0.0, high=1.0)


def _kept_steps(keep_posteriors, steps) -> set:
    keep_posteriors = list(keep_posteriors)
    if not all(-steps <= int(t) < steps for t in keep_posteriors):
        raise ValueError(
            f"keep_posteriors must be steps in [-{steps}, {steps}), got {keep_posteriors!r}"
        )
    return {int(t) % steps for t in keep_posteriors}


@dataclass
class _Record:
    mse: np.ndarray
    entropy: np.ndarray
    mean: np.ndarray
    kept: dict
    collapsed: tuple | None = None
    records: dict = field(default_factory=dict)
    monitor_config: dict = field(default_factory=dict)


def _loop(plan, split, g, prior, *, sigma, batch, steps, keep, rng, progress, monitors):
    """The steps: local update, pooling by the plan, metrics. No M x K allocation inside
    (but for the monitors' copies of the local and pooled posteriors)."""
    agents = split.agents
    for mon in monitors:
        mon.start(agents=agents, steps=steps, grid=g, split=split)
    logp = np.tile(prior, (plan.learners, 1))
    expo = np.empty_like(logp)  # exp(logp - rowmax): unnormalised posteriors
    pooled = np.empty_like(logp)
    # [1, a, b] per grid point: one pass gives normaliser and posterior mean.
    moments = np.column_stack([np.ones(g.size), g.theta]).astype(prior.dtype)
    test_mse = mse_function(split.x_test, split.y_test)
    rec = _Record(
        np.empty((steps, agents)), np.empty((steps, agents)), np.empty((steps, agents, 2)), {}
    )
    bar = tqdm(range(steps), desc=progress or "", disable=not progress, leave=False)
    for t in bar:
        stats = plan.statistics(split, batch, rng)
        # logp += log-likelihood, computed in the expo buffer (overwritten by exp below).
        logp += log_likelihood(g, stats, sigma, out=expo)
        # Local posterior, unnormalised: logp shifted to row max 0, expo = exp(logp).
        logp -= logp.max(axis=1, keepdims=True)
        np.exp(logp, out=expo)
        if monitors:  # the normalised local posteriors, before pooling overwrites logp
            local = logp - np.log(expo.sum(axis=1, dtype=np.float64))[:, None]
        if plan.pool(t, expo, logp, pooled, rng):
            logp, pooled = pooled, logp
            logp -= logp.max(axis=1, keepdims=True)
            np.exp(logp, out=expo)
        # Metrics of the (pooled) posterior expo / z, log = logp - log z.
        mom = (expo @ moments).astype(np.float64)
        z = mom[:, :1]
        m = mom[:, 1:] / z
        logz = np.log(z[:, 0])
        rec.mean[t] = m
        rec.entropy[t] = logz - np.einsum("mk,mk->m", expo, logp) / z[:, 0]
        rec.mse[t] = test_mse(m)
        if t in keep:
            post = logp - logz[:, None].astype(logp.dtype)
            rec.kept[t] = np.broadcast_to(post, (agents, g.size)).copy()
        if monitors:
            post, w_t = logp - logz[:, None], plan.weights(t)
            for mon in monitors:
                mon.observe(t, local=local, posterior=post, weights=w_t)
        peak = 1.0 / z[:, 0]
        if rec.collapsed is None and peak.max() > _COLLAPSE:
            rec.collapsed = (t, int(peak.argmax()), float(peak.max()))
    for mon in monitors:
        records, config = mon.finish()
        rec.records |= records
        rec.monitor_config |= config
    return rec


def _warn_collapse(t, i, p, g) -> None:
    warnings.warn(
        f"at step {t}, agent {i}'s posterior put {p:.3f} of its mass on one grid cell: "
        f"the grid (spacing {g.spacing[0]:.3g} x {g.spacing[1]:.3g}) is too coarse for "
        "this posterior, and KL-based neighbour choices degenerate; use a finer grid "
        "or narrower bounds",
        GridResolutionWarning,
        stacklevel=3,
    )
