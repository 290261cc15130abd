"""The BayGo loop on the exact Gaussian model: :func:`simulate_exact`, M up to millions.

Same data split, same batches and the same order of random draws as
:func:`baygo_graph.simulate` (draw batches, then choose), so a grid run and an
exact run on one seed see the same samples; the posteriors are the closed-form
Gaussians of :mod:`baygo_graph.models.exact` instead of log-weights on a grid.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from . import __version__
from .data import paper_split, resolve_data
from .fast_physical import resolve_listen
from .model import batch_statistics
from .models.exact import exact_choices, exact_metrics, exact_pool, exact_prior, exact_update
from .run import Run
from .strategies import BayGo, FixedGraph, resolve_strategy

__all__ = ["SharedSplit", "shared_split", "simulate_exact"]

# config["split"]["counts"] lists every agent's count up to this many agents.
_COUNTS_LISTED = 10_000
# Largest M for a complete graph (M^2 pairs).
_COMPLETE_LIMIT = 20_000


@dataclass(frozen=True, eq=False)
class SharedSplit:
    """The paper's split in O(M + N) memory: a pool of samples and each agent's slice.

    Agent ``i`` holds the samples ``pool[members[offsets[i] : offsets[i] + counts[i]]]``.

    Attributes
    ----------
    x_pool, y_pool : numpy.ndarray, shape (N,)
        Standardised training samples.
    members : numpy.ndarray of int, shape (sum(counts),)
    offsets, counts : numpy.ndarray of int, shape (M,)
    x_test, y_test : numpy.ndarray
    mean, std, sigma_ls, informative
        As in :class:`baygo_graph.data.Split`.

    Examples
    --------
    >>> from baygo_graph.data import synthetic_bodyfat
    >>> s = shared_split(synthetic_bodyfat(), agents=5, rng=0)
    >>> [a.shape for a in s.draw(3, np.random.default_rng(0))]
    [(5, 3), (5, 3)]
    """

    x_pool: np.ndarray = field(repr=False)
    y_pool: np.ndarray = field(repr=False)
    members: np.ndarray = field(repr=False)
    offsets: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    x_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    mean: tuple[float, float]
    std: tuple[float, float]
    sigma_ls: float
    informative: int

    @property
    def agents(self) -> int:
        """Number of agents M."""
        return len(self.counts)

    def draw(self, batch: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's mini-batch, with replacement from its own samples, shape (M, batch).

        The same draws and values as :func:`baygo_graph.learning.draw_batches` on
        the padded split.
        """
        idx = (rng.random((self.agents, batch)) * self.counts[:, None]).astype(np.intp)
        idx += self.offsets[:, None]
        pick = self.members[idx]
        return self.x_pool[pick], self.y_pool[pick]


def shared_split(data, *, agents: int, informative: int = 0, rng=None, **kwargs) -> SharedSplit:
    """:func:`baygo_graph.data.paper_split` in O(M + N) memory, for any number of agents.

    While there are at least as many shared samples as non-informative agents,
    the split is exactly ``paper_split``'s (same draws from ``rng``, same samples
    per agent). With more agents than that (e.g. M = 10^6 agents and the
    bodyfat data's ~50 shared samples, where ``paper_split`` refuses), every
    non-informative agent holds one sample, dealt round-robin from the same
    random order: each sample is held by ``floor`` or ``ceil`` of
    ``(M - 1) / N_shared`` agents.

    Parameters
    ----------
    data, agents, informative, rng
        As in ``paper_split``; ``kwargs`` are its other options.

    Examples
    --------
    >>> from baygo_graph.data import synthetic_bodyfat
    >>> s = shared_split(synthetic_bodyfat(), agents=100_000, rng=0)
    >>> s.agents, int(s.counts[1:].max()), s.members.nbytes < 10**6
    (100000, 1, True)
    """
    if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 2:
        raise ValueError(f"agents must be an integer >= 2, got {agents!r}")
    if not 0 <= informative < agents:
        raise ValueError(f"informative must be an agent id in [0, {agents}), got {informative!r}")
    # Two agents: row 0 the informative samples, row 1 all shared ones in the random
    # order paper_split deals them from; the draws do not depend on the agent count.
    two = paper_split(data, agents=2, informative=0, rng=rng, **kwargs)
    n_info, n_rest = (int(c) for c in two.counts)
    x_pool = np.concatenate([two.x[0, :n_info], two.x[1, :n_rest]])
    y_pool = np.concatenate([two.y[0, :n_info], two.y[1, :n_rest]])
    others = agents - 1
    if others <= n_rest:  # np.array_split sizes: the first n_rest % others get one more
        size, extra = divmod(n_rest, others)
        sizes = np.full(others, size, dtype=np.int64)
        sizes[:extra] += 1
        rest_members = np.arange(n_rest, dtype=np.int64)
    else:  # round-robin: one sample each
        sizes = np.ones(others, dtype=np.int64)
        rest_members = np.arange(others, dtype=np.int64) % n_rest
    counts = np.insert(sizes, informative, n_info)
    members = np.concatenate([np.arange(n_info), n_info + rest_members])
    # informative agent's slice first in `members`, then the others in id order
    rest_offsets = n_info + np.cumsum(sizes) - sizes
    offsets = np.insert(rest_offsets, informative, 0)
    return SharedSplit(
        x_pool=x_pool,
        y_pool=y_pool,
        members=members,
        offsets=offsets,
        counts=counts,
        x_test=two.x_test,
        y_test=two.y_test,
        mean=two.mean,
        std=two.std,
        sigma_ls=two.sigma_ls,
        informative=int(informative),
    )


def _seed_record(rng):
    """A JSON-able record of the seed, and the Generator to use (as ``simulate``)."""
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


def _check_args(strategy, physical, agents, steps, batch, delta):
    for name, value, low in (("agents", agents, 2), ("steps", steps, 1), ("batch", batch, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if not 0.0 <= delta <= 1.0:
        raise ValueError(f"delta must be in [0, 1], got {delta!r}")
    # complete graphs hold M^2 pairs (BayGo's scores, a fixed W): refuse before building them
    complete = strategy == "complete" or (
        strategy == "baygo" and (physical is None or physical == "complete")
    )
    if complete and agents > _COMPLETE_LIMIT:
        raise ValueError(
            f"a complete graph on {agents} agents holds {agents}^2 pairs: above "
            f"{_COMPLETE_LIMIT} agents use 'baygo' with a sparse physical graph "
            f"(e.g. physical='regular-10'), got strategy={strategy!r}, physical={physical!r}"
        )


def simulate_exact(
    strategy="baygo",
    *,
    agents: int = 12,
    steps: int = 60,
    rng=None,
    data=None,
    delta: float = 0.5,
    batch: int = 1,
    physical=None,
    physical_seed: int = 0,
    sigma: float | None = None,
    prior_var=(0.5, 0.5),
    informative: int = 0,
    test_fraction: float = 0.2,
    informative_range=(85.0, 120.0),
    other_range=(70.0, 85.0),
    weights: str = "delta",
    progress: bool | None = None,
) -> Run:
    """Run the learning loop of one strategy on the exact Gaussian model.

    Every step, for all agents at once: draw a mini-batch (as
    :func:`baygo_graph.simulate`), conjugate update, choose W (BayGo: each agent
    listens to the physical neighbour with the largest closed-form
    ``KL(N_i || N_j)``), Gaussian geometric pooling, record test MSE, entropy
    (differential, nats) and posterior mean. Memory is O(M + edges) besides the
    (T, M) records.

    Parameters
    ----------
    strategy : str, networkx.Graph or strategy object, default "baygo"
        As in :func:`baygo_graph.simulate` (fixed graphs use their sparse W).
    agents, steps, rng, data, delta, batch, sigma, prior_var, informative,
    test_fraction, informative_range, other_range, weights
        As in :func:`baygo_graph.simulate`; the split is :func:`shared_split`
        (``paper_split``'s when that exists, shared samples beyond).
    physical : None, str, networkx.Graph or sparse matrix
        BayGo's physical graph, see :func:`baygo_graph.fast_physical.resolve_listen`:
        ``"regular-D"`` is NetworkX's random regular graph up to 50,000 agents and a
        union of random cycles above. Default: complete (only up to 20,000 agents).
    physical_seed : int, default 0
        Seed of a physical graph given by name (not drawn from ``rng``, so the
        batches match a grid run given the same graph).
    progress : bool, optional
        Show a progress bar; default: when stderr is a terminal.

    Returns
    -------
    Run
        ``config["model"] == "exact"``; no posteriors are kept.

    Examples
    --------
    >>> from baygo_graph import synthetic_bodyfat
    >>> run = simulate_exact(agents=1000, steps=3, rng=0, physical="fast-regular-4",
    ...                      data=synthetic_bodyfat())
    >>> run.mse.shape, run.choices.shape, run.config["model"]
    ((3, 1000), (3, 1000), 'exact')
    """
    _check_args(strategy, physical, agents, steps, batch, delta)
    seed, rng = _seed_record(rng)
    strat = resolve_strategy(strategy, agents=agents, informative=informative, weights=weights)
    if physical is not None and (not isinstance(strat, BayGo) or strat.physical is not None):
        raise ValueError("physical applies to the 'baygo' strategy given by name only")
    if isinstance(strat, BayGo):
        listen = resolve_listen(
            physical if physical is not None else strat.physical, agents, seed=physical_seed
        )
    else:
        listen = None
    w_fixed = strat.matrix(agents, delta=delta) if isinstance(strat, FixedGraph) else None
    identity = w_fixed is not None and w_fixed.nnz == agents and np.all(w_fixed.diagonal() == 1)

    dataset = resolve_data(data)
    split = shared_split(
        dataset,
        agents=agents,
        informative=informative,
        informative_range=informative_range,
        other_range=other_range,
        test_fraction=test_fraction,
        rng=rng,
    )
    sigma = split.sigma_ls if sigma is None else float(sigma)
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")
    learners = 1 if strat.kind == "cen" else agents
    state = exact_prior(learners, prior_var)
    mse = np.empty((steps, agents))
    entropy = np.empty((steps, agents))
    mean = np.empty((steps, agents, 2))
    choices = np.empty((steps, agents), dtype=np.int32) if strat.kind == "dynamic" else None
    show = sys.stderr.isatty() if progress is None else bool(progress)
    for t in tqdm(range(steps), desc=f"{strat.name} (exact)", disable=not show, leave=False):
        x, y = split.draw(batch, rng)
        stats = batch_statistics(x, y)
        if learners == 1:
            stats = stats.sum(axis=0, keepdims=True)
        state = exact_update(state, stats, sigma)
        if strat.kind == "dynamic":
            choices[t] = exact_choices(state, listen, rng)
            state = exact_pool(state, choices=choices[t], delta=delta)
        elif w_fixed is not None and not identity:
            state = exact_pool(state, weights=w_fixed)
        mse[t], entropy[t], mean[t] = exact_metrics(state, x_test=split.x_test, y_test=split.y_test)

    config = _config(
        strat,
        split,
        dataset,
        listen,
        seed=seed,
        sigma=sigma,
        steps=steps,
        delta=delta,
        batch=batch,
        prior_var=prior_var,
        weights=weights,
        test_fraction=test_fraction,
        informative_range=informative_range,
        other_range=other_range,
        physical_seed=physical_seed,
    )
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
        config=config,
    )


def _config(strat, split, dataset, listen, *, seed, prior_var, **options) -> dict:
    """The run's JSON-able record (the keys of ``simulate``'s, grid ones None)."""
    counts = split.counts
    split_rec = {"test": len(split.y_test), "mean": list(split.mean), "std": list(split.std)}
    if len(counts) <= _COUNTS_LISTED:
        split_rec["counts"] = counts.tolist()
    else:
        split_rec["counts_summary"] = {
            "informative": int(counts[split.informative]),
            "min": int(counts.min()),
            "max": int(counts.max()),
            "pool": len(split.x_pool),
        }
    return {
        "model": "exact",
        "strategy": strat.name,
        "agents": len(counts),
        "seed": seed,
        **options,
        "grid": None,
        "bounds": None,
        "informative": split.informative,
        "prior_var": list(np.broadcast_to(np.asarray(prior_var, float), (2,))),
        "informative_range": list(options["informative_range"]),
        "other_range": list(options["other_range"]),
        "physical": None if listen is None else int(listen.nnz),
        "dtype": "float64",
        "data": {"source": dataset.source, "synthetic": dataset.synthetic, "rows": len(dataset)},
        "split": split_rec,
        "version": __version__,
    }
