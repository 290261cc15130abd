"""Data sets of the ``mean`` and ``logistic`` models: synthetic generators and CSV loaders.

Mean (:class:`~baygo_graph.models.GaussianMean`): :func:`gaussian_samples`, and any
CSV through :func:`load_csv`. Logistic
(:class:`~baygo_graph.models.LogisticRegression`): :func:`synthetic_labelled`,
:func:`load_labelled_csv` and :func:`check_labels` (0/1 labels). Every result is a
checked :class:`~baygo_graph.data.datasets.Dataset`; the agent splits of these data sets
are in :mod:`baygo_graph.data.labelled`, which re-exports the names here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validate import check_int, check_real
from ..exceptions import DataError
from .datasets import Dataset, read_csv_table, resolve_data

__all__ = [
    "check_labels",
    "gaussian_samples",
    "load_csv",
    "load_labelled_csv",
    "synthetic_labelled",
]


def gaussian_samples(n: int = 400, *, mu=(0.6, -0.4), sigma: float = 1.0, rng=0) -> Dataset:
    """Synthetic samples ``y_n ~ N(mu, sigma^2 I)``, ``mu`` in R or R^2.

    Parameters
    ----------
    n : int, default 400
        Number of samples (>= 10).
    mu : float or (float, float), default (0.6, -0.4)
        The true mean; its length (1 or 2) is the dimension d.
    sigma : float, default 1.0
        Noise standard deviation of every coordinate (> 0).
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator (the default makes the same data every time).

    Returns
    -------
    Dataset
        Columns ``y1`` (and ``y2`` when d = 2), ``synthetic=True``; the frame's
        ``attrs`` keep ``mu`` and ``sigma`` (the mean model scores against ``mu``).

    Examples
    --------
    >>> ds = gaussian_samples(50, mu=(1.0, 2.0), sigma=0.5, rng=1)
    >>> ds.synthetic, list(ds.frame.columns), ds.frame.attrs["mu"]
    (True, ['y1', 'y2'], [1.0, 2.0])
    >>> list(gaussian_samples(20, mu=0.5).frame.columns)
    ['y1']
    """
    check_int("n", n, minimum=10)
    mu = np.atleast_1d(np.asarray(mu, dtype=float))
    if mu.shape not in ((1,), (2,)) or not np.all(np.isfinite(mu)):
        raise ValueError(f"mu must be a finite number or a pair of them, got {mu.tolist()!r}")
    check_real("sigma", sigma, low=0.0, low_open=True)
    rng = np.random.default_rng(rng)
    values = mu + sigma * rng.standard_normal((n, len(mu)))
    frame = pd.DataFrame(values, columns=[f"y{j + 1}" for j in range(len(mu))])
    frame.attrs.update(mu=mu.tolist(), sigma=float(sigma))
    source = f"synthetic Gaussian samples (n={n}, mu={mu.tolist()}, sigma={sigma:g})"
    return Dataset(frame=frame, source=source, synthetic=True)


def load_labelled_csv(path, *, feature: str = "x", label: str = "y") -> Dataset:
    """Read a CSV with a numeric ``feature`` column and a 0/1 ``label`` column.

    Raises
    ------
    DataError
        For a missing or unreadable file, an absent column, a missing or
        non-numeric cell or a label other than 0/1, naming file, column and row.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "d.csv")
    >>> _ = open(p, "w").write("x,y\\n0.5,1\\n-1.0,0\\n")
    >>> load_labelled_csv(p).frame["y"].tolist()
    [1, 0]
    """
    return check_labels(load_csv(path, columns=(feature, label)), label)


def load_csv(path, *, columns) -> Dataset:
    """Read a CSV whose ``columns`` must be numeric, finite and complete.

    Raises
    ------
    DataError
        Naming the file, and the column and row of a bad cell.

    Examples
    --------
    >>> load_csv("no/such.csv", columns=("y1",))
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.DataError: data file 'no/such.csv' does not exist
    """
    frame = read_csv_table(path, what="data file")
    return resolve_data(Dataset(frame=frame, source=str(path)), columns=tuple(columns))


def check_labels(data, label: str) -> Dataset:
    """``data`` as a Dataset whose ``label`` column holds only 0 and 1.

    Raises
    ------
    DataError
        Naming the data's source, the column and the first bad row.

    Examples
    --------
    >>> check_labels(pd.DataFrame({"y": [0, 1, 0.5]}), "y")
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.DataError: dataframe: column 'y' must hold 0/1 labels, got 0.5 at row 2
    """
    dataset = resolve_data(data, columns=(label,))
    values = pd.to_numeric(dataset.frame[label]).to_numpy(dtype=float)
    bad = np.flatnonzero((values != 0) & (values != 1))
    if len(bad):
        raise DataError(
            f"{dataset.source}: column {label!r} must hold 0/1 labels, got "
            f"{dataset.frame[label].to_numpy()[bad[0]].tolist()!r} at row {bad[0]}"
        )
    return dataset


def synthetic_labelled(n: int = 400, *, w=(0.5, 2.0), rng=0) -> Dataset:
    """Synthetic labelled samples: ``x ~ N(0, 1)``, ``y ~ Bernoulli(sigmoid(w0 + w1 x))``.

    Parameters
    ----------
    n : int, default 400
        Number of samples (>= 10).
    w : (float, float), default (0.5, 2.0)
        True intercept and slope (raw units of ``x``); kept in ``frame.attrs["w"]``.
    rng : int, numpy.random.Generator or None, default 0

    Returns
    -------
    Dataset
        Columns ``x`` and ``y`` (0/1 int), ``synthetic=True``.

    Examples
    --------
    >>> ds = synthetic_labelled(100, rng=1)
    >>> ds.synthetic, list(ds.frame.columns), sorted(set(ds.frame["y"]))
    (True, ['x', 'y'], [0, 1])
    """
    check_int("n", n, minimum=10)
    w0, w1 = (float(v) for v in w)
    rng = np.random.default_rng(rng)
    x = rng.standard_normal(n)
    p = 0.5 * (1.0 + np.tanh(0.5 * (w0 + w1 * x)))  # sigmoid, without overflow
    y = (rng.random(n) < p).astype(int)
    frame = pd.DataFrame({"x": x, "y": y})
    frame.attrs["w"] = [w0, w1]
    return Dataset(frame=frame, source=f"synthetic labelled (n={n}, w={[w0, w1]})", synthetic=True)
