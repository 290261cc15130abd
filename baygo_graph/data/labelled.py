"""Agent splits for the ``mean`` and ``logistic`` models, and (re-exported) their data.

Mean (:class:`~baygo_graph.models.GaussianMean`): :func:`mean_split`. Logistic
(:class:`~baygo_graph.models.LogisticRegression`): :func:`region_split` (by region
of the feature space). Both: :func:`assignment_split` (the caller's choice). The
data sets (:func:`gaussian_samples`, :func:`load_labelled_csv`, :func:`load_csv`,
:func:`check_labels`, :func:`synthetic_labelled`) live in
:mod:`baygo_graph.data.labelled_datasets` and are importable from here.

Every split is a :class:`~baygo_graph.data.Split`: the mean model stores a 2-D
sample ``(y1, y2)`` as ``(x, y)`` and a 1-D sample as ``y`` (``x`` is zero);
the logistic model stores the standardised feature as ``x`` and the 0/1 label
(not standardised) as ``y``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .._validate import check_int, check_real
from .core import Dataset, Split, paper_split, resolve_data
from .labelled_datasets import (
    check_labels,
    gaussian_samples,
    load_csv,
    load_labelled_csv,
    synthetic_labelled,
)

__all__ = [
    "assignment_split",
    "check_labels",
    "load_csv",
    "gaussian_samples",
    "load_labelled_csv",
    "mean_split",
    "region_split",
    "synthetic_labelled",
]


def _pack(columns, owner: np.ndarray, agents: int) -> tuple[list, np.ndarray]:
    """Padded (agents, n_max) arrays of ``columns``' samples grouped by ``owner``."""
    counts = np.bincount(owner, minlength=agents)
    order = np.argsort(owner, kind="stable")
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    out = []
    for col in columns:
        a = np.zeros((agents, max(int(counts.max()), 1)))
        a[owner[order], slot] = col[order]
        out.append(a)
    return out, counts


def _check_assignment(assignment, n: int) -> np.ndarray:
    a = np.asarray(assignment)
    if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(
            f"assignment must be an integer array of length {n} (one entry per sample), "
            f"got shape {a.shape} and dtype {a.dtype}"
        )
    if a.min() < -1:
        raise ValueError(f"assignment entries must be agent ids >= 0 or -1 (test), got {a.min()}")
    if not (a == -1).any() or not (a >= 0).any():
        raise ValueError("assignment must mark at least one test sample (-1) and one agent's")
    return a.astype(np.intp)


def assignment_split(
    data,
    *,
    assignment,
    columns,
    standardise=(False, False),
    informative: int = 0,
    sigma: float | None = None,
) -> Split:
    """Share samples among agents as the caller says: ``assignment[n]`` is sample n's agent.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
    assignment : array of int, shape (n_samples,)
        The agent (0..M-1) holding each row of ``data``; -1 holds the row out for
        the test set. M is ``max(assignment) + 1``; every agent needs a sample.
    columns : (str,) or (str, str)
        The columns stored as ``y`` (one name; ``x`` is then zero) or ``(x, y)``.
    standardise : (bool, bool), default (False, False)
        Standardise ``x`` / ``y`` with the training samples' mean and std.
    informative : int, default 0
        The agent recorded as informative.
    sigma : float, optional
        Recorded as ``split.sigma_ls``; default: std of the training ``y``.

    Returns
    -------
    Split

    Examples
    --------
    >>> ds = gaussian_samples(12, mu=1.0)
    >>> s = assignment_split(ds, assignment=np.arange(12) % 4 - 1, columns=("y1",))
    >>> s.agents, s.counts.tolist(), len(s.y_test)
    (3, [3, 3, 3], 3)
    """
    dataset = resolve_data(data, columns=tuple(columns))
    a = _check_assignment(assignment, len(dataset))
    agents = int(a.max()) + 1
    missing = np.setdiff1d(np.arange(agents), a)
    if agents < 2 or len(missing):
        raise ValueError(
            f"assignment must give every agent 0..{agents - 1} (at least 2) a sample; "
            f"agents without one: {missing.tolist()}"
        )
    check_int("informative", informative, minimum=0, maximum=agents - 1)
    frame = dataset.frame
    cols = [frame[c].to_numpy(dtype=float) for c in columns]
    if len(cols) == 1:
        cols.insert(0, np.zeros(len(frame)))
    train, test = a >= 0, a < 0
    mean, std = [0.0, 0.0], [1.0, 1.0]
    for j, flag in enumerate(standardise):
        if flag:
            mean[j], std[j] = float(cols[j][train].mean()), float(cols[j][train].std())
            if std[j] == 0:
                raise ValueError(f"column {columns[j]!r} has zero spread: cannot standardise")
            cols[j] = (cols[j] - mean[j]) / std[j]
    (x, y), counts = _pack([c[train] for c in cols], a[train], agents)
    sigma = float(cols[1][train].std()) if sigma is None else float(sigma)
    return Split(
        x=x,
        y=y,
        counts=counts,
        x_test=cols[0][test],
        y_test=cols[1][test],
        mean=tuple(mean),
        std=tuple(std),
        sigma_ls=sigma,
        informative=int(informative),
    )


def mean_split(
    data,
    *,
    agents: int = 12,
    informative: int = 0,
    informative_share: float = 0.25,
    extra_noise: float = 2.0,
    test_fraction: float = 0.2,
    columns=None,
    rng=None,
) -> Split:
    """The mean model's rule: the informative agent's samples are clean, the others' noisy.

    A random ``test_fraction`` of the samples is held out (as drawn). Of the
    training samples, the informative agent holds a random ``informative_share``
    as drawn; the other agents share the rest at random (sizes differ by at most
    one), each of their samples with independent ``N(0, extra_noise^2 I)`` noise
    added. ``split.sigma_ls`` is the noise the mean model assumes by default: the
    standard deviation of the clean training samples around their mean, pooled over
    coordinates. A 2-D sample is stored as ``(x, y)``, a 1-D one as ``y``.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
        Columns ``y1`` (and ``y2``), e.g. from :func:`gaussian_samples`.
    agents, informative, test_fraction, rng
        As in :func:`~baygo_graph.data.paper_split`.
    informative_share : float, default 0.25
        Share of the training samples the informative agent holds, in (0, 1).
    extra_noise : float, default 2.0
        Standard deviation of the noise added to the other agents' samples (>= 0).
    columns : (str,) or (str, str), optional
        The sample's coordinates; default ``y1`` and, if present, ``y2``.

    Returns
    -------
    Split

    Examples
    --------
    >>> s = mean_split(gaussian_samples(100, mu=(0.0, 1.0)), agents=4, rng=0)
    >>> s.agents, s.counts.tolist(), len(s.y_test)
    (4, [20, 20, 20, 20], 20)
    """
    check_int("agents", agents, minimum=2)
    check_int("informative", informative, minimum=0, maximum=agents - 1)
    check_real("informative_share", informative_share, low=0.0, high=1.0, low_open=True)
    check_real("test_fraction", test_fraction, low=0.0, high=1.0, low_open=True)
    check_real("extra_noise", extra_noise, low=0.0)
    dataset = resolve_data(data, columns=("y1",) if columns is None else tuple(columns))
    names = list(columns or [c for c in ("y1", "y2") if c in dataset.frame.columns])
    dataset = resolve_data(dataset, columns=tuple(names))
    values = dataset.frame[names].to_numpy(dtype=float)
    rng = np.random.default_rng(rng)
    n = len(values)
    n_test = int(round(test_fraction * n))
    n_info = int(round(informative_share * (n - n_test)))
    if n_test < 1 or n_info < 1 or n - n_test - n_info < agents - 1:
        raise ValueError(
            f"{n} samples with test_fraction={test_fraction} and informative_share="
            f"{informative_share} leave {n_test} test, {n_info} informative and "
            f"{n - n_test - n_info} other samples: need >= 1, >= 1 and >= {agents - 1}"
        )
    order = rng.permutation(n)
    test, info, rest = np.split(order, [n_test, n_test + n_info])
    others = np.delete(np.arange(agents), informative)
    owner = np.empty(n, dtype=np.intp)
    owner[test] = -1
    owner[info] = informative
    owner[rest] = others[np.arange(len(rest)) % len(others)]
    sigma = float(np.sqrt(((values[info] - values[info].mean(0)) ** 2).mean()))
    noisy = values.copy()
    noisy[rest] += extra_noise * rng.standard_normal((len(rest), len(names)))
    return assignment_split(
        Dataset(pd.DataFrame(noisy, columns=names), dataset.source, dataset.synthetic),
        assignment=owner,
        columns=tuple(names),
        informative=informative,
        sigma=sigma if sigma > 0 else 1.0,
    )


def region_split(
    data,
    *,
    agents: int = 12,
    informative: int = 0,
    informative_range=None,
    other_range=None,
    test_fraction: float = 0.2,
    feature: str = "x",
    target: str = "y",
    rng=None,
) -> Split:
    """Share labelled samples by region of the feature space (the paper's rule).

    The informative agent holds the training samples with ``feature`` in the
    closed ``informative_range``, the others share those in the half-open
    ``other_range`` at random: :func:`~baygo_graph.data.paper_split`, with the
    label kept as 0/1 (only the feature is standardised). Default ranges: the
    feature's 30% quantile ``q`` splits its range, ``other_range = [min, q)``,
    ``informative_range = [q, max]`` (the informative agent sees the upper 70%).

    Examples
    --------
    >>> s = region_split(synthetic_labelled(), agents=4, rng=0)
    >>> s.agents, sorted(set(s.y_test.tolist())), s.std[1]
    (4, [0.0, 1.0], 1.0)
    """
    dataset = resolve_data(data, columns=(feature, target))
    check_labels(dataset, target)
    fx = dataset.frame[feature].to_numpy(dtype=float)
    q = float(np.quantile(fx, 0.3))
    split = paper_split(
        dataset,
        agents=agents,
        informative=informative,
        informative_range=(q, fx.max()) if informative_range is None else informative_range,
        other_range=(fx.min(), q) if other_range is None else other_range,
        test_fraction=test_fraction,
        feature=feature,
        target=target,
        rng=rng,
    )
    (my, sy) = split.mean[1], split.std[1]
    held = np.arange(split.y.shape[1]) < split.counts[:, None]
    return dataclasses.replace(
        split,
        y=np.where(held, np.rint(split.y * sy + my), 0.0),
        y_test=np.rint(split.y_test * sy + my),
        mean=(split.mean[0], 0.0),
        std=(split.std[0], 1.0),
    )
