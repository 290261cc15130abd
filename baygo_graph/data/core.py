"""The paper's agent split, and (re-exported from :mod:`baygo_graph.data.datasets`) the data sets.

:func:`paper_split` gives the informative agent the training samples in one
feature range and shares those of another range among the other agents; a
:class:`Split` holds each agent's standardised samples and the held-out test
set. The data sets (:class:`Dataset`, :func:`load_bodyfat`,
:func:`synthetic_bodyfat`, :func:`resolve_data`) live in
:mod:`baygo_graph.data.datasets` and are importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._text import counted
from ..exceptions import DataError  # noqa: F401  (importable from here, as before the split)
from ..limits import check_budget
from .datasets import (
    BODYFAT_ENV,
    FEATURE,
    MAX_ABS_VALUE,
    TARGET,
    Dataset,
    load_bodyfat,
    resolve_data,
    synthetic_bodyfat,
    synthetic_samples,
)

__all__ = [
    "SplitBase",
    "draw_batches",
    "BODYFAT_ENV",
    "MAX_ABS_VALUE",
    "Dataset",
    "Split",
    "load_bodyfat",
    "paper_split",
    "resolve_data",
    "synthetic_bodyfat",
    "synthetic_samples",
]


@dataclass(frozen=True, eq=False)
class SplitBase:
    """What every agent split holds besides the agents' samples.

    Attributes
    ----------
    counts : numpy.ndarray of int, shape (M,)
        Number of samples each agent holds (all >= 1).
    x_test, y_test : numpy.ndarray, shape (n_test,)
        Standardised held-out samples.
    mean, std : tuple of float
        (feature, target) statistics of the pooled training set used to
        standardise.
    sigma_ls : float
        Residual standard deviation of the least-squares fit on the pooled
        (standardised) training set: the default likelihood noise.
    informative : int
        Id of the informative agent.
    extra : dict
        Facts a model records about the split for its run (e.g. the Gaussian-mean
        model's target).
    """

    counts: np.ndarray
    x_test: np.ndarray = field(repr=False)
    y_test: np.ndarray = field(repr=False)
    mean: tuple[float, float]
    std: tuple[float, float]
    sigma_ls: float
    informative: int
    extra: dict = field(default_factory=dict, kw_only=True, repr=False)

    @property
    def agents(self) -> int:
        """Number of agents M."""
        return len(self.counts)


@dataclass(frozen=True, eq=False, kw_only=True)
class Split(SplitBase):
    """Standardised training data per agent and a held-out test set.

    Agents' samples are stored padded: row ``i`` of ``x``/``y`` holds agent
    ``i``'s ``counts[i]`` samples first, then zeros. See :class:`SplitBase` for
    the other attributes.

    Attributes
    ----------
    x, y : numpy.ndarray, shape (M, n_max)
        Standardised feature and target of each agent's training samples.
    """

    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)

    def draw(self, batch: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's mini-batch, with replacement from its own samples, shape (M, batch)."""
        idx = (rng.random((self.agents, batch)) * self.counts[:, None]).astype(np.intp)
        rows = np.arange(self.agents)[:, None]  # the gather of take_along_axis, less overhead
        return self.x[rows, idx], self.y[rows, idx]

    def pooled(self) -> tuple[np.ndarray, np.ndarray]:
        """Every training sample once, agent by agent: ``(x, y)`` of shape (N,)."""
        held = np.arange(self.x.shape[1]) < self.counts[:, None]
        return self.x[held], self.y[held]


def paper_split(
    data,
    *,
    agents: int = 12,
    informative: int = 0,
    informative_range=(85.0, 120.0),
    other_range=(70.0, 85.0),
    test_fraction: float = 0.2,
    feature: str = FEATURE,
    target: str = TARGET,
    rng=None,
) -> Split:
    """Split samples among agents as in the paper.

    Samples with the feature in ``[other_range[0], informative_range[1]]`` are
    kept; a random ``test_fraction`` of them is held out. The remaining training
    samples are standardised with their own mean and std (feature and target).
    The informative agent holds every training sample with the feature in the
    closed interval ``informative_range``; the other ``agents - 1`` agents share
    those in the half-open ``other_range`` at random (sizes differ by at most one).

    Parameters
    ----------
    data : str, os.PathLike, pandas.DataFrame or Dataset
        See :func:`resolve_data`.
    agents : int, default 12
        Number of agents M (>= 2).
    informative : int, default 0
        Id of the informative agent.
    informative_range : (float, float), default (85, 120)
        Closed feature interval of the informative agent's samples.
    other_range : (float, float), default (70, 85)
        Half-open feature interval shared by the other agents.
    test_fraction : float, default 0.2
        Fraction of the kept samples held out, in (0, 1).
    feature, target : str
        Column names.
    rng : int, numpy.random.Generator or None
        Seed or generator for the test split and the sharing.

    Returns
    -------
    Split

    Raises
    ------
    ValueError
        For bad parameters, or when an agent would be left with no sample
        (the message names the agent and the interval).

    Examples
    --------
    >>> split = paper_split(synthetic_bodyfat(), agents=4, rng=0)
    >>> split.agents, split.informative, bool(split.counts.min() >= 1)
    (4, 0, True)
    """
    _check_options(agents, informative, test_fraction, informative_range, other_range)
    dataset = resolve_data(data, columns=(feature, target))
    rng = np.random.default_rng(rng)
    fx = dataset.frame[feature].to_numpy(dtype=float)
    fy = dataset.frame[target].to_numpy(dtype=float)
    lo = min(informative_range[0], other_range[0])
    hi = max(informative_range[1], other_range[1])
    train, test = _hold_out(fx, (lo, hi), test_fraction, rng)
    x_tr, y_tr = fx[train], fy[train]
    mean = (float(x_tr.mean()), float(y_tr.mean()))
    std = (float(x_tr.std()), float(y_tr.std()))
    if std[0] == 0 or std[1] == 0:
        raise ValueError("the training samples have zero spread: cannot standardise")

    def standardise(x, y):
        return (x - mean[0]) / std[0], (y - mean[1]) / std[1]

    xs, ys = standardise(x_tr, y_tr)
    slope, intercept = np.polyfit(xs, ys, 1)
    sigma_ls = float(np.sqrt(np.mean((ys - intercept - slope * xs) ** 2)))
    per_agent = _agent_rows(
        x_tr,
        agents=agents,
        informative=informative,
        ranges=(informative_range, other_range),
        feature=feature,
        rng=rng,
    )
    counts = np.array([len(p) for p in per_agent])
    check_budget(  # the padded arrays, before they exist (docs/formats.md)
        2 * 8 * agents * int(counts.max()),
        what=f"the data split (padded arrays of {counted(agents, 'agent')} x {int(counts.max())} "
        "samples)",
    )
    x = np.zeros((agents, counts.max()))
    y = np.zeros((agents, counts.max()))
    for a, idx in enumerate(per_agent):  # set-up only, not the hot path
        x[a, : len(idx)] = xs[idx]
        y[a, : len(idx)] = ys[idx]
    xt, yt = standardise(fx[test], fy[test])
    return Split(
        x=x,
        y=y,
        counts=counts,
        x_test=xt,
        y_test=yt,
        mean=mean,
        std=std,
        sigma_ls=sigma_ls,
        informative=int(informative),
    )


def _check_options(agents, informative, test_fraction, informative_range, other_range) -> None:
    """The checks of :func:`paper_split`'s options, before any data is read."""
    if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 2:
        raise ValueError(f"agents must be an integer >= 2, got {agents!r}")
    if not (0 <= informative < agents):
        raise ValueError(f"informative must be an agent id in [0, {agents}), got {informative!r}")
    if not (0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    for name, (lo, hi) in (("informative_range", informative_range), ("other_range", other_range)):
        if not lo < hi:
            raise ValueError(f"{name} must be an interval (lo, hi) with lo < hi, got {(lo, hi)!r}")


def _hold_out(fx: np.ndarray, bounds, test_fraction: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """``(train, test)`` rows with ``fx`` in the closed ``bounds``, a random share held out."""
    lo, hi = bounds
    keep = np.flatnonzero((fx >= lo) & (fx <= hi))
    n_test = int(round(test_fraction * len(keep)))
    if n_test < 1 or n_test >= len(keep):
        raise ValueError(
            f"test_fraction={test_fraction} leaves {n_test} test samples out of "
            f"{len(keep)} in [{lo}, {hi}]: need at least one test and one training sample"
        )
    order = rng.permutation(keep)
    return order[n_test:], order[:n_test]


def _agent_rows(x_tr, *, agents, informative, ranges, feature, rng) -> list[np.ndarray]:
    """Each agent's training rows: the informative agent's range, the rest shared at random."""
    informative_range, other_range = ranges
    info = np.flatnonzero(_in_range(x_tr, informative_range, closed_right=True))
    rest = np.flatnonzero(_in_range(x_tr, other_range, closed_right=False))
    rest = rest[~np.isin(rest, info)]
    if len(info) == 0:
        raise ValueError(
            f"agent {informative} (informative) has no training sample with {feature} "
            f"in [{informative_range[0]}, {informative_range[1]}]"
        )
    if len(rest) < agents - 1:  # checked before building any per-agent list
        empty = len(rest) + (len(rest) >= informative)
        raise ValueError(
            f"agent {empty} has no training sample: only {len(rest)} samples with "
            f"{feature} in [{other_range[0]}, {other_range[1]}) for {agents - 1} "
            "non-informative agents; use fewer agents or more data (synthetic: "
            f"synthetic_bodyfat({10 * agents}), CLI --samples {10 * agents})"
        )
    others = [a for a in range(agents) if a != informative]
    shares = np.array_split(rng.permutation(rest), len(others))
    per_agent = [None] * agents
    per_agent[informative] = info
    for a, share in zip(others, shares, strict=True):
        per_agent[a] = share
    return per_agent


def _in_range(values: np.ndarray, bounds, closed_right: bool) -> np.ndarray:
    lo, hi = bounds
    upper = values <= hi if closed_right else values < hi
    return (values >= lo) & upper


def draw_batches(split, batch: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Each agent's mini-batch, drawn with replacement from its own samples (``split.draw``).

    Returns
    -------
    x, y : numpy.ndarray, shape (M, batch)

    Examples
    --------
    >>> s = paper_split(synthetic_bodyfat(), agents=3, rng=0)
    >>> [a.shape for a in draw_batches(s, 2, np.random.default_rng(0))]
    [(3, 2), (3, 2)]
    """
    return split.draw(batch, rng)
