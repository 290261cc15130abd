"""The learning loop: data + model + strategy + rng -> :class:`~baygo_graph.Run`."""

from __future__ import annotations

import sys
import warnings

import networkx as nx
import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from . import __version__
from .data import paper_split, resolve_data
from .exceptions import GridResolutionWarning
from .model import batch_statistics, log_likelihood, log_prior, make_grid
from .run import Run
from .strategies import BayGo, FixedGraph, _choose, resolve_strategy

__all__ = ["draw_batches", "pool", "simulate"]

# A posterior with more mass than this on one grid cell has collapsed onto it.
_COLLAPSE = 0.99


def draw_batches(split, batch: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Each agent's mini-batch, drawn with replacement from its own samples.

    Returns
    -------
    x, y : numpy.ndarray, shape (M, batch)

    Examples
    --------
    >>> from baygo_graph.data import paper_split, synthetic_bodyfat
    >>> s = paper_split(synthetic_bodyfat(), agents=3, rng=0)
    >>> [a.shape for a in draw_batches(s, 2, np.random.default_rng(0))]
    [(3, 2), (3, 2)]
    """
    idx = (rng.random((split.agents, batch)) * split.counts[:, None]).astype(np.intp)
    return np.take_along_axis(split.x, idx, 1), np.take_along_axis(split.y, idx, 1)


def pool(logp: np.ndarray, *, choices=None, weights=None, delta: float = 0.5) -> np.ndarray:
    """Geometric pooling: ``log mu_i = sum_j w_ij log p_j`` (unnormalised).

    Either ``choices`` (BayGo: ``w_ii = delta``, ``w_i,choice = 1 - delta``,
    ``w_ii = 1`` where the choice is -1) or a (sparse) ``weights`` matrix.

    Examples
    --------
    >>> lp = np.log(np.array([[0.5, 0.5], [0.9, 0.1]]))
    >>> np.exp(pool(lp, choices=np.array([1, -1]))).round(2).tolist()
    [[0.67, 0.22], [0.9, 0.1]]
    """
    if choices is not None:
        return _pool_into(np.empty_like(logp), logp.copy(), choices, delta)
    return np.asarray(weights @ logp)


def _pool_into(out, logp, choices, delta):
    """:func:`pool` with ``choices``, written into ``out``; scales ``logp`` in place."""
    src = np.where(choices >= 0, choices, np.arange(len(choices)))
    np.take(logp, src, axis=0, out=out, mode="clip")  # "raise" would buffer `out`
    out *= 1.0 - delta
    logp *= delta
    out += logp
    return out


def _test_mse(x, y):
    """``f(m)``: test MSE of the predictions ``m[:, 0] + m[:, 1] * x`` for every row of ``m``.

    From moments of the test set, in O(M) per call instead of O(M * n_test):
    with ``u = x - mean(x)``, ``v = y - mean(y)``, ``beta = <u v> / <u u>``,
    ``MSE = c^2 + <u u> (b - beta)^2 + <(v - beta u)^2>`` where
    ``c = mean(y) - a - b mean(x)``: a sum of non-negative terms, so no
    cancellation (equal to the direct mean of squared residuals to rounding).

    Examples
    --------
    >>> x, y = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 4.0])
    >>> m = np.array([[0.5, 1.0], [0.0, 0.0]])
    >>> direct = ((m[:, :1] + m[:, 1:] * x - y) ** 2).mean(axis=1)
    >>> bool(np.allclose(_test_mse(x, y)(m), direct, rtol=1e-14))
    True
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xbar, ybar = x.mean(), y.mean()
    u, v = x - xbar, y - ybar
    suu = float(np.mean(u * u))
    beta = float(np.mean(u * v)) / suu if suu > 0 else 0.0
    rest = float(np.mean((v - beta * u) ** 2))

    def mse(m):
        a, b = m[:, 0], m[:, 1]
        c = ybar - a - b * xbar
        return c * c + suu * (b - beta) ** 2 + rest

    return mse


def _seed_record(rng):
    """A JSON-able record of the seed, and the Generator to use."""
    if isinstance(rng, np.random.Generator):
        return "generator", rng
    if isinstance(rng, np.random.SeedSequence):
        rec = {"entropy": str(rng.entropy), "spawn_key": list(rng.spawn_key)}
        return rec, np.random.default_rng(rng)
    if rng is None:
        seq = np.random.SeedSequence()
        return {"entropy": str(seq.entropy), "spawn_key": []}, np.random.default_rng(seq)
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer):
        raise TypeError(
            "rng must be an int, a numpy Generator, a SeedSequence or None, "
            f"got {type(rng).__name__}"
        )
    return int(rng), np.random.default_rng(rng)


def _check_positive_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


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
    physical: nx.Graph | None = None,
    informative: int = 0,
    prior_var=(0.5, 0.5),
    test_fraction: float = 0.2,
    informative_range=(85.0, 120.0),
    other_range=(70.0, 85.0),
    weights: str = "delta",
    keep_posteriors=(),
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
    strategy : str, networkx.Graph or strategy object, default "baygo"
        ``"baygo"``, ``"complete"``, ``"posm"``, ``"negm"``, ``"nocol"``, ``"cen"``,
        any graph with nodes ``0..agents-1`` (fixed W by the ``weights`` rule), or
        an object from :mod:`baygo_graph.strategies`.
    agents : int, default 12
        Number of agents M.
    steps : int, default 60
        Number of iterations T.
    rng : int, numpy.random.Generator, numpy.random.SeedSequence or None
        The run's only source of randomness (test split, sharing of samples,
        batches, tie-breaking). The same seed gives the same run in any process.
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
    physical : networkx.Graph, optional
        For ``"baygo"``: who can talk to whom (default complete).
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
    _check_positive_int("agents", agents, 2)
    _check_positive_int("steps", steps)
    _check_positive_int("batch", batch)
    if not 0.0 <= delta <= 1.0:
        raise ValueError(f"delta must be in [0, 1], got {delta!r}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be 'float64' or 'float32', got {dtype!r}")
    seed, rng = _seed_record(rng)
    strat = resolve_strategy(strategy, agents=agents, informative=informative, weights=weights)
    if physical is not None:
        if not isinstance(strat, BayGo) or strat.physical is not None:
            raise ValueError("physical applies to the 'baygo' strategy given by name only")
        strat = BayGo(physical)
    keep_posteriors = list(keep_posteriors)
    if not all(-steps <= int(t) < steps for t in keep_posteriors):
        raise ValueError(
            f"keep_posteriors must be steps in [-{steps}, {steps}), got {keep_posteriors!r}"
        )
    keep = {int(t) % steps for t in keep_posteriors}

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
    listen = strat.listen(agents) if isinstance(strat, BayGo) else None
    w_fixed = strat.matrix(agents, delta=delta) if isinstance(strat, FixedGraph) else None
    identity = w_fixed is not None and w_fixed.nnz == agents and np.all(w_fixed.diagonal() == 1)
    if w_fixed is not None and w_fixed.nnz > agents * agents // 4:
        w_apply = w_fixed.toarray().astype(dtype)
    else:
        w_apply = w_fixed

    learners = 1 if strat.kind == "cen" else agents
    logp = np.tile(log_prior(g, var=prior_var).astype(dtype), (learners, 1))
    # Buffers reused every step: no M x K allocation inside the loop.
    expo = np.empty_like(logp)  # exp(logp - rowmax): unnormalised posteriors
    pools = strat.kind != "cen" and not identity  # W is not the identity
    pooled = np.empty_like(logp) if pools else None
    # [1, a, b] per grid point: one pass gives normaliser and posterior mean.
    moments = np.column_stack([np.ones(g.size), g.theta]).astype(dtype)
    test_mse = _test_mse(split.x_test, split.y_test)
    mse = np.empty((steps, agents))
    entropy = np.empty((steps, agents))
    mean = np.empty((steps, agents, 2))
    choices = np.empty((steps, agents), dtype=np.int32) if strat.kind == "dynamic" else None
    kept = {}
    collapsed = None
    show = sys.stderr.isatty() if progress is None else bool(progress)

    for t in tqdm(range(steps), desc=strat.name, disable=not show, leave=False):
        x, y = draw_batches(split, batch, rng)
        stats = batch_statistics(x, y)
        if learners == 1:
            stats = stats.sum(axis=0, keepdims=True)
        # logp += log-likelihood, computed in the expo buffer (overwritten by exp below).
        logp += log_likelihood(g, stats, sigma, out=expo)
        # Local posterior, unnormalised: logp shifted to row max 0, expo = exp(logp),
        # normaliser z = row sums. KL scores and pooling need no normalised copy.
        logp -= logp.max(axis=1, keepdims=True)
        np.exp(logp, out=expo)
        if strat.kind == "dynamic":
            z = expo.sum(axis=1)
            choices[t] = _choose(
                expo, logp, listen=listen, rng=rng, row_scale=z, col_shift=np.log(z)
            )
            _pool_into(pooled, logp, choices[t], delta)
            logp, pooled = pooled, logp
        elif pools:
            if sp.issparse(w_apply):
                pooled[...] = w_apply @ logp
            else:
                np.matmul(w_apply, logp, out=pooled)
            logp, pooled = pooled, logp
        if pools:
            logp -= logp.max(axis=1, keepdims=True)
            np.exp(logp, out=expo)
        # Metrics of the (pooled) posterior expo / z, log = logp - log z.
        mom = (expo @ moments).astype(np.float64)
        z = mom[:, :1]
        m = mom[:, 1:] / z
        logz = np.log(z[:, 0])
        mean[t] = m
        entropy[t] = logz - np.einsum("mk,mk->m", expo, logp) / z[:, 0]
        mse[t] = test_mse(m)
        if t in keep:
            kept[t] = np.broadcast_to(logp - logz[:, None].astype(dtype), (agents, g.size)).copy()
        peak = 1.0 / z[:, 0]
        if collapsed is None and peak.max() > _COLLAPSE:
            collapsed = (t, int(peak.argmax()), float(peak.max()))

    if collapsed is not None:
        t, i, p = collapsed
        warnings.warn(
            f"at step {t}, agent {i}'s posterior put {p:.3f} of its mass on one grid cell: "
            f"the grid (spacing {g.spacing[0]:.3g} x {g.spacing[1]:.3g}) is too coarse for "
            "this posterior, and KL-based neighbour choices degenerate; use a finer grid "
            "or narrower bounds",
            GridResolutionWarning,
            stacklevel=2,
        )
    config = {
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
        "physical": None if listen is None else int(listen.nnz),
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
    return Run(
        strategy=strat.name,
        kind=strat.kind,
        informative=informative,
        delta=float(delta),
        mse=mse,
        entropy=entropy,
        mean=mean,
        choices=choices,
        fixed_weights=w_fixed,
        posteriors=kept,
        config=config,
    )
