"""Logistic regression on a grid: ``p(y = 1 | x) = sigmoid(w0 + w1 x)``.

Binary classification with one standardised feature; the parameter
``w = (w0, w1)`` lives on a regular 2-D grid with a Gaussian prior. The logistic
likelihood has no finite sufficient statistic, so the batch "statistics" are the
batch's log-likelihood at every grid point, (rows, K): additive over samples like
any sufficient statistic (a central learner may sum them), computed for all rows
and grid points at once in chunks of bounded memory with a stable log-sigmoid.
The data are any labelled CSV (:func:`~baygo_graph.data.labelled.load_labelled_csv`)
or :func:`~baygo_graph.data.labelled.synthetic_labelled`, shared by region of the
feature space (:func:`~baygo_graph.data.labelled.region_split`) or by a user-given
``assignment``. The test loss is the log-loss of each agent's posterior-mean
predictor; ``run.records["error_rate"]`` its test error rate.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

from .._text import counted
from .._validate import check_scale
from ..data.labelled import (
    assignment_split,
    check_labels,
    load_labelled_csv,
    region_split,
    synthetic_labelled,
)
from .grid import Grid, GridModel, check_options, log_normalize, make_grid

__all__ = ["LogisticRegression", "classification_metrics", "logistic_log_likelihood"]

#: Elements of the largest temporary (rows x batch x K) array.
_CHUNK = 1 << 21


def logistic_log_likelihood(grid: Grid, x, y, *, chunk: int = _CHUNK) -> np.ndarray:
    """``sum_n log p(y_n | x_n, w)`` for each row's batch at every grid point ``w``.

    ``log p(y | x, w) = log sigmoid(s (w0 + w1 x))`` with ``s = 2 y - 1``, computed
    as ``-logaddexp(0, -s (w0 + w1 x))`` (no overflow). Rows are processed in
    chunks so that no temporary exceeds ``chunk`` elements.

    Parameters
    ----------
    grid : Grid
        Over ``(w0, w1)``.
    x, y : numpy.ndarray, shape (rows, b)
        Each row's batch: standardised feature and 0/1 label.
    chunk : int
        Largest temporary, in elements.

    Returns
    -------
    numpy.ndarray, shape (rows, K), float64

    Examples
    --------
    >>> g = make_grid(3, bounds=(-1, 1))
    >>> ll = logistic_log_likelihood(g, np.array([[2.0]]), np.array([[1.0]]))
    >>> g.theta[ll.argmax()].tolist(), bool(np.isclose(ll[0, 4], np.log(0.5)))
    ([1.0, 1.0], True)
    """
    x = np.asarray(x, dtype=float)
    s = 2.0 * np.asarray(y, dtype=float) - 1.0
    rows, b = x.shape
    w0, w1 = grid.theta[:, 0], grid.theta[:, 1]
    out = np.empty((rows, grid.size))
    step = max(1, chunk // max(1, b * grid.size))
    for r in range(0, rows, step):  # chunks of rows, each vectorised over (rows, b, K)
        xs, ss = x[r : r + step, :, None], s[r : r + step, :, None]
        z = ss * (w0 + w1 * xs)
        np.logaddexp(0.0, -z, out=z)
        np.negative(z.sum(axis=1), out=out[r : r + step])
    return out


def classification_metrics(x, y, w) -> tuple[np.ndarray, np.ndarray]:
    """Test log-loss and error rate of the predictors ``sigmoid(w0 + w1 x)``, one per row of ``w``.

    The log-loss is ``mean_n -log p(y_n | x_n, w)`` (nats); a sample counts as an
    error when ``(w0 + w1 x > 0) != y`` (a tie predicts 0).

    Examples
    --------
    >>> loss, err = classification_metrics([-1.0, 1.0], [0, 1], np.array([[0.0, 1.0]]))
    >>> loss.round(4).tolist(), err.tolist()
    ([0.3133], [0.0])
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    z = w[:, :1] + w[:, 1:] * x  # (M, n_test)
    loss = np.logaddexp(0.0, -(2.0 * y - 1.0) * z).mean(axis=1)
    error = ((z > 0) != (y > 0.5)).mean(axis=1)
    return loss, error


@dataclass(frozen=True)
class LogisticRegression(GridModel):
    """Logistic regression on a 2-D grid over ``(w0, w1)``; the ``"logistic"`` model.

    Parameters
    ----------
    feature, label : str, default "x", "y"
        Columns of the data: a numeric feature (standardised with the training
        samples' mean and std) and a 0/1 label.
    grid : int, default 41
        Grid points per axis.
    bounds : (float, float), default (-4, 4)
        Grid interval of each axis.
    prior_var : float, default 4.0
        Variance of the prior N(0, prior_var I) on ``(w0, w1)``.
    informative_range, other_range : (float, float), optional
        Feature regions (raw units) of the informative agent and of the others, see
        :func:`~baygo_graph.data.labelled.region_split` (default: split at the 30%
        quantile).
    test_fraction : float, default 0.2
    assignment : array of int, optional
        Each sample's agent (-1: test), replacing the region rule; see
        :func:`~baygo_graph.data.labelled.assignment_split`.

    Notes
    -----
    ``loss`` (``run.mse``, ``run.config["loss"] == "log_loss"``) is the test
    log-loss of the plug-in predictor ``sigmoid(m0 + m1 x)`` at each agent's
    posterior mean ``m``; ``run.records["error_rate"]`` is its test error rate.

    Examples
    --------
    >>> from baygo_graph.data.labelled import synthetic_labelled
    >>> model = LogisticRegression(grid=11)
    >>> split = model.split(synthetic_labelled(), agents=3, informative=0, rng=0)
    >>> state = model.start(split, learners=3, dtype=np.float64)
    >>> model.update(state, model.statistics(split.x[:, :2], split.y[:, :2]))
    >>> m = model.measure(state, 0, 3)
    >>> m.loss.shape, sorted(m.extra)
    ((3,), ['error_rate'])
    """

    feature: str = "x"
    label: str = "y"
    grid: int | tuple = 41
    bounds: tuple = (-4.0, 4.0)
    prior_var: float = 4.0
    informative_range: tuple | None = None
    other_range: tuple | None = None
    test_fraction: float = 0.2
    assignment: object = None
    dtype: str = "float64"

    name = "logistic"
    loss_name = "log_loss"

    def __post_init__(self):
        check_scale("prior_var", self.prior_var)
        check_options(self, dims=2)

    def resolve_data(self, data):
        """The samples: a Dataset, DataFrame or CSV path with the feature and label, or
        None: :func:`~baygo_graph.data.labelled.synthetic_labelled` (synthetic)."""
        if data is None:
            return synthetic_labelled()
        if isinstance(data, str | os.PathLike):
            return load_labelled_csv(data, feature=self.feature, label=self.label)
        return data

    def make_grid(self) -> Grid:
        return make_grid(self.grid, bounds=self.bounds)

    @functools.cached_property
    def _space(self) -> Grid:
        # the grid is a function of the options: made once for the batch log-likelihoods
        return self.make_grid()

    def grid_shape(self) -> tuple:
        return (self.grid,) * 2 if np.ndim(self.grid) == 0 else tuple(np.ravel(self.grid))

    def log_prior(self, grid: Grid) -> np.ndarray:
        return log_normalize(-0.5 * (grid.theta**2).sum(axis=1) / self.prior_var)

    def split(self, data, *, agents: int, informative: int, rng):
        data = self.resolve_data(data)
        if self.assignment is None:
            return region_split(
                data,
                agents=agents,
                informative=informative,
                informative_range=self.informative_range,
                other_range=self.other_range,
                test_fraction=self.test_fraction,
                feature=self.feature,
                target=self.label,
                rng=rng,
            )
        split = assignment_split(
            data,
            assignment=self.assignment,
            columns=(self.feature, self.label),
            standardise=(True, False),
            informative=informative,
        )
        if split.agents != agents:
            raise ValueError(
                f"assignment gives {counted(split.agents, 'agent')}, the run has agents={agents}"
            )
        check_labels(data, self.label)
        return split

    def statistics(self, x, y) -> np.ndarray:
        return logistic_log_likelihood(self._space, x, y)

    def log_likelihood(self, stats, *, out, state) -> np.ndarray:
        out[...] = stats
        return out

    def loss_function(self, split, state):
        x, y = split.x_test, split.y_test

        def metrics(mean):
            loss, error = classification_metrics(x, y, mean)
            return loss, {"error_rate": error}

        return metrics

    def config(self, state) -> dict:
        return {
            "feature": self.feature,
            "label": self.label,
            "grid": list(state.space.shape),
            "bounds": [list(b) for b in state.space.bounds],
            "prior_var": float(self.prior_var),
            "split_rule": "assignment" if self.assignment is not None else "region",
            "informative_range": None
            if self.informative_range is None
            else list(self.informative_range),
            "other_range": None if self.other_range is None else list(self.other_range),
            "test_fraction": self.test_fraction,
        }
