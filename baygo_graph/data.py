"""Data sets and the paper's agent split.

The bodyfat CSV is read from a path the caller gives, or from the environment
variable ``BAYGO_BODYFAT``; :func:`synthetic_bodyfat` stands in when no file is at
hand and is labelled synthetic wherever its results are shown.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .exceptions import DataError

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
]

#: Environment variable naming the bodyfat CSV when no path is given.
BODYFAT_ENV = "BAYGO_BODYFAT"
#: Largest magnitude accepted in a data column: beyond it squares and sums of
#: squares lose all precision or overflow (no body measurement comes near).
MAX_ABS_VALUE = 1e12

FEATURE = "Abdomen"
TARGET = "BodyFat"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table of samples and where it came from.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per sample, with at least the feature and target columns.
    source : str
        Human-readable origin: the CSV path, ``"dataframe"``, or a synthetic label.
    synthetic : bool
        True for data made by :func:`synthetic_bodyfat`; every output says so.
    """

    frame: pd.DataFrame = field(repr=False)
    source: str
    synthetic: bool = False

    def __len__(self) -> int:
        return len(self.frame)


def load_bodyfat(path=None, *, columns=(FEATURE, TARGET)) -> Dataset:
    """Read the bodyfat CSV.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The CSV file. When omitted, the environment variable ``BAYGO_BODYFAT``
        names it.
    columns : sequence of str, default ("Abdomen", "BodyFat")
        Columns that must be present, numeric and free of missing values.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        When no path is given and ``BAYGO_BODYFAT`` is unset, when the file is
        missing or unreadable, or when a required column is absent, non-numeric
        or has missing cells. The message names the file and the problem.

    Examples
    --------
    >>> import os
    >>> ds = load_bodyfat(os.environ["BAYGO_BODYFAT"])  # doctest: +SKIP
    >>> len(ds)  # doctest: +SKIP
    252
    """
    if path is None:
        path = os.environ.get(BODYFAT_ENV)
        if not path:
            raise DataError(
                f"no bodyfat file given: pass a path or set {BODYFAT_ENV}=/path/to/"
                "bodyfat.csv (or use synthetic_bodyfat())"
            )
    path = Path(path)
    if not path.is_file():
        raise DataError(f"bodyfat file {str(path)!r} does not exist")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError, OSError) as e:
        raise DataError(f"bodyfat file {str(path)!r} is not a readable CSV: {e}") from e
    _check_columns(frame, columns, where=repr(str(path)))
    return Dataset(frame=frame, source=str(path))


def _check_columns(frame: pd.DataFrame, columns, *, where: str) -> None:
    for col in columns:
        if col not in frame.columns:
            raise DataError(
                f"{where} has no column {col!r} (columns: {', '.join(map(str, frame.columns))})"
            )
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() & frame[col].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"{where}: column {col!r} has a non-numeric cell "
                f"{frame[col].iloc[row]!r} at row {row}"
            )
        if values.isna().any():
            row = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise DataError(f"{where}: column {col!r} has a missing value at row {row}")
        numbers = values.to_numpy(dtype=float)
        bad = ~np.isfinite(numbers) | (np.abs(numbers) > MAX_ABS_VALUE)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"{where}: column {col!r} has value {float(numbers[row])!r} at row {row}: values "
                f"must be finite numbers of magnitude <= {MAX_ABS_VALUE:g}"
            )


def synthetic_bodyfat(n: int = 252, *, rng=0) -> Dataset:
    """Make a synthetic stand-in for the bodyfat data.

    The model mimics the real data's marginal and linear fit:
    ``Abdomen ~ N(92.6, 10.8^2)`` clipped to [65, 150] cm and
    ``BodyFat = 0.631 * Abdomen - 39.28 + N(0, 4.88^2)`` clipped to [0, 50] %.
    Only these two columns are made. The result is labelled ``synthetic``.

    Parameters
    ----------
    n : int, default 252
        Number of samples.
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator. The default makes the same data set every time, so
        runs over many seeds share one synthetic data set, as they would a file.

    Returns
    -------
    Dataset
        With ``synthetic=True``.

    Examples
    --------
    >>> ds = synthetic_bodyfat(100, rng=1)
    >>> ds.synthetic, len(ds), list(ds.frame.columns)
    (True, 100, ['Abdomen', 'BodyFat'])
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 10:
        raise ValueError(f"n must be an integer >= 10, got {n!r}")
    rng = np.random.default_rng(rng)
    abdomen = np.clip(rng.normal(92.6, 10.8, n), 65.0, 150.0)
    bodyfat = np.clip(0.631 * abdomen - 39.28 + rng.normal(0.0, 4.88, n), 0.0, 50.0)
    frame = pd.DataFrame({FEATURE: abdomen.round(1), TARGET: bodyfat.round(1)})
    return Dataset(frame=frame, source=f"synthetic (n={n})", synthetic=True)


def resolve_data(data=None, *, columns=(FEATURE, TARGET)) -> Dataset:
    """Turn what a caller passes as ``data`` into a :class:`Dataset`.

    Parameters
    ----------
    data : str, os.PathLike, pandas.DataFrame, Dataset or None
        A CSV path, a table with the bodyfat column names, a ready ``Dataset``,
        or None: the file named by ``BAYGO_BODYFAT`` if it is set (a
        :class:`DataError` if it names no file), else the synthetic data of
        :func:`synthetic_bodyfat` (labelled so).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> import pandas as pd
    >>> resolve_data(pd.DataFrame({"Abdomen": [80.0, 90.0], "BodyFat": [10.0, 20.0]})).source
    'dataframe'
    """
    if isinstance(data, Dataset):
        _check_columns(data.frame, columns, where=data.source)
        return data
    if isinstance(data, pd.DataFrame):
        _check_columns(data, columns, where="the data frame")
        return Dataset(frame=data, source="dataframe")
    if isinstance(data, str | os.PathLike):
        return load_bodyfat(data, columns=columns)
    if data is None:
        env = os.environ.get(BODYFAT_ENV)
        if env:  # set but wrong is an error, not a silent fall-back to synthetic data
            if not Path(env).is_file():
                raise DataError(f"{BODYFAT_ENV}={env!r} does not name an existing file")
            return load_bodyfat(env, columns=columns)
        return synthetic_bodyfat()
    raise TypeError(
        f"data must be a CSV path, a pandas DataFrame, a Dataset or None, got {type(data).__name__}"
    )


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
    """

    counts: np.ndarray
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
        return np.take_along_axis(self.x, idx, 1), np.take_along_axis(self.y, idx, 1)

    def pooled(self) -> tuple[np.ndarray, np.ndarray]:
        """Every training sample once, agent by agent: ``(x, y)`` of shape (N,)."""
        held = np.arange(self.x.shape[1]) < self.counts[:, None]
        return self.x[held], self.y[held]


def _in_range(values: np.ndarray, bounds, closed_right: bool) -> np.ndarray:
    lo, hi = bounds
    upper = values <= hi if closed_right else values < hi
    return (values >= lo) & upper


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
    if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 2:
        raise ValueError(f"agents must be an integer >= 2, got {agents!r}")
    if not (0 <= informative < agents):
        raise ValueError(f"informative must be an agent id in [0, {agents}), got {informative!r}")
    if not (0.0 < test_fraction < 1.0):
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    for name, (lo, hi) in (("informative_range", informative_range), ("other_range", other_range)):
        if not lo < hi:
            raise ValueError(f"{name} must be an interval (lo, hi) with lo < hi, got {(lo, hi)!r}")
    dataset = resolve_data(data, columns=(feature, target))
    rng = np.random.default_rng(rng)
    fx = dataset.frame[feature].to_numpy(dtype=float)
    fy = dataset.frame[target].to_numpy(dtype=float)
    lo = min(informative_range[0], other_range[0])
    hi = max(informative_range[1], other_range[1])
    keep = np.flatnonzero((fx >= lo) & (fx <= hi))
    n_test = int(round(test_fraction * len(keep)))
    if n_test < 1 or n_test >= len(keep):
        raise ValueError(
            f"test_fraction={test_fraction} leaves {n_test} test samples out of "
            f"{len(keep)} in [{lo}, {hi}]: need at least one test and one training sample"
        )
    order = rng.permutation(keep)
    test, train = order[:n_test], order[n_test:]
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
            "non-informative agents"
        )
    others = [a for a in range(agents) if a != informative]
    shares = np.array_split(rng.permutation(rest), len(others))
    per_agent = [None] * agents
    per_agent[informative] = info
    for a, share in zip(others, shares, strict=True):
        per_agent[a] = share
    counts = np.array([len(p) for p in per_agent])
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
