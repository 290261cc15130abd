"""Gaussian mean estimation on a grid: samples ``y ~ N(mu, sigma^2 I)``, ``mu`` in R^d.

The classic social-learning setting: every agent sees noisy samples of one
unknown mean ``mu`` (d = 1 or 2), holds a posterior over a regular grid of
candidate means (prior N(0, prior_var I)) and pools with its neighbours. The
batch statistics ``(n, sum y, sum |y|^2)`` give the exact Gaussian
log-likelihood at every grid point with one (rows, d + 2) x (d + 2, K) product.
The data are :func:`~baygo_graph.data.labelled.gaussian_samples` shared by
:func:`~baygo_graph.data.labelled.mean_split` (the informative agent's samples are
clean, the others' carry extra noise) or a user-given ``assignment``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np

from .._text import counted
from .._validate import check_int, check_real, check_scale
from ..data.labelled import assignment_split, gaussian_samples, load_csv, mean_split
from .grid import Grid, GridModel, check_options, log_normalize, make_grid

__all__ = ["GaussianMean", "mean_features", "mean_log_likelihood", "mean_statistics"]


def mean_statistics(x: np.ndarray, y: np.ndarray, *, dims: int) -> np.ndarray:
    """``(n, sum y_1, [sum y_2,] sum |y|^2)`` of each row's batch, shape (rows, d + 2).

    A 2-D sample is stored as ``(x, y)``; with ``dims=1`` only ``y`` is read.

    Examples
    --------
    >>> mean_statistics(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]), dims=2).tolist()
    [[2.0, 3.0, 7.0, 30.0]]
    """
    coords = (y,) if dims == 1 else (x, y)
    n = np.full(y.shape[0], float(y.shape[1]))
    sums = [c.sum(axis=1) for c in coords]
    sq = sum((c * c).sum(axis=1) for c in coords)
    return np.column_stack([n, *sums, sq])


def mean_features(grid: Grid, sigma: float) -> np.ndarray:
    """Per grid point ``mu``: ``[-|mu|^2/(2 s^2) - d/2 log(2 pi s^2), mu/s^2, -1/(2 s^2)]``.

    Its product with :func:`mean_statistics` is the exact log-likelihood
    ``sum_n log N(y_n | mu, s^2 I)``.

    Examples
    --------
    >>> mean_features(make_grid(2, bounds=(0, 1), dims=1), 1.0).round(3).tolist()
    [[-0.919, 0.0, -0.5], [-1.419, 1.0, -0.5]]
    """
    mu = grid.theta
    d = mu.shape[1]
    s2 = float(sigma) ** 2
    const = -0.5 * (mu * mu).sum(axis=1) / s2 - 0.5 * d * np.log(2 * np.pi * s2)
    return np.column_stack([const, mu / s2, np.full(len(mu), -0.5 / s2)])


def mean_log_likelihood(grid: Grid, stats: np.ndarray, sigma: float, *, out=None) -> np.ndarray:
    """Exact Gaussian log-likelihood of each row's batch at every grid point, (rows, K).

    Parameters
    ----------
    grid : Grid
        Over ``mu`` (d = 1 or 2 axes).
    stats : numpy.ndarray, shape (rows, d + 2)
        From :func:`mean_statistics`.
    sigma : float
        Noise standard deviation (> 0).
    out : numpy.ndarray, shape (rows, K), optional
        Where to write; its dtype is the precision of the product.

    Examples
    --------
    >>> g = make_grid(5, bounds=(-2, 2), dims=1)
    >>> ll = mean_log_likelihood(g, mean_statistics(None, np.array([[1.0, 1.2]]), dims=1), 1.0)
    >>> g.theta[ll.argmax(), 0]  # the grid point nearest the sample mean 1.1
    np.float64(1.0)
    """
    check_scale("sigma", sigma)
    feats = mean_features(grid, sigma)
    dtype = stats.dtype if out is None else out.dtype
    return np.matmul(stats.astype(dtype, copy=False), feats.astype(dtype).T, out=out)


@dataclass(frozen=True)
class GaussianMean(GridModel):
    """Estimate a Gaussian mean ``mu`` (d = 1 or 2) on a grid; the ``"mean"`` model.

    Parameters
    ----------
    dims : {1, 2}, default 1
        Dimension d of ``mu``.
    grid : int, optional
        Grid points per axis; default 241 when d = 1, 61 when d = 2.
    bounds : (float, float), default (-3, 3)
        Grid interval of each axis (data units: samples are not standardised).
    sigma : float, optional
        Noise sd the likelihood assumes; default ``split.sigma_ls`` (the clean
        samples' sd, see :func:`~baygo_graph.data.labelled.mean_split`).
    prior_var : float, default 1.0
        Variance of the prior N(0, prior_var I).
    truth : float or sequence of float, optional
        The true ``mu`` the loss is measured against. Default: ``mu`` recorded in
        the data (``frame.attrs["mu"]``, set by
        :func:`~baygo_graph.data.labelled.gaussian_samples`), else the mean of the
        held-out test samples.
    informative_share, extra_noise, test_fraction
        The split rule, see :func:`~baygo_graph.data.labelled.mean_split`.
    assignment : array of int, optional
        Each sample's agent (-1: test), replacing the rule; see
        :func:`~baygo_graph.data.labelled.assignment_split`.

    Notes
    -----
    ``loss`` (``run.mse``, ``run.config["loss"] == "sq_error"``) is the squared
    Euclidean distance between each agent's posterior mean and the target above.
    The default 2-D grid (spacing 0.1) resolves posteriors down to a standard
    deviation of about 0.1 (some 100 samples of unit noise): longer runs need more
    points or narrower ``bounds`` (:func:`~baygo_graph.simulate` warns with
    :class:`~baygo_graph.exceptions.GridResolutionWarning` when a posterior collapses).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.data.labelled import gaussian_samples
    >>> model = GaussianMean(dims=2, grid=21)
    >>> split = model.split(gaussian_samples(60), agents=3, informative=0, rng=0)
    >>> state = model.start(split, learners=3, dtype=np.float64)
    >>> model.update(state, model.statistics(split.x[:, :2], split.y[:, :2]))
    >>> model.measure(state, 0, 3).mean.shape, model.config(state)["target"]
    ((3, 2), [0.6, -0.4])
    """

    dims: int = 1
    grid: int | None = None
    bounds: tuple = (-3.0, 3.0)
    sigma: float | None = None
    prior_var: float = 1.0
    truth: object = None
    informative_share: float = 0.25
    extra_noise: float = 2.0
    test_fraction: float = 0.2
    assignment: object = None
    dtype: str = "float64"

    name = "mean"
    loss_name = "sq_error"

    def __post_init__(self):
        check_int("dims", self.dims, minimum=1, maximum=2)
        check_scale("prior_var", self.prior_var)
        check_options(self, dims=self.dims, points=self._points())
        check_real("informative_share", self.informative_share, low=0.0, high=1.0, low_open=True)
        check_real("extra_noise", self.extra_noise, low=0.0)
        if self.truth is not None:
            try:
                truth = np.asarray(self.truth, dtype=float)
            except (TypeError, ValueError):
                truth = np.empty(0)
            if truth.size != self.dims or truth.ndim > 1 or not np.all(np.isfinite(truth)):
                what = "a finite number" if self.dims == 1 else f"{self.dims} finite numbers"
                raise ValueError(f"truth must be {what} (one per coordinate), got {self.truth!r}")

    def resolve_data(self, data):
        """The samples: a Dataset, DataFrame or CSV path with ``y1`` (and ``y2``), or
        None: :func:`~baygo_graph.data.labelled.gaussian_samples` (synthetic)."""
        if data is None:
            return gaussian_samples(mu=(0.6, -0.4)[: self.dims])
        if isinstance(data, str | os.PathLike):
            return load_csv(data, columns=("y1", "y2")[: self.dims])
        return data

    def make_grid(self) -> Grid:
        return make_grid(self._points(), bounds=self.bounds, dims=self.dims)

    def _points(self):
        return self.grid if self.grid is not None else (241 if self.dims == 1 else 61)

    def grid_shape(self) -> tuple:
        pts = self._points()
        return (pts,) * self.dims if np.ndim(pts) == 0 else tuple(np.ravel(pts))

    def log_prior(self, grid: Grid) -> np.ndarray:
        return log_normalize(-0.5 * (grid.theta**2).sum(axis=1) / self.prior_var)

    def split(self, data, *, agents: int, informative: int, rng):
        data = self.resolve_data(data)
        names = ("y1", "y2")[: self.dims]
        if self.assignment is not None:
            split = assignment_split(
                data, assignment=self.assignment, columns=names, informative=informative
            )
            if split.agents != agents:
                raise ValueError(
                    f"assignment gives {counted(split.agents, 'agent')}, the run has "
                    f"agents={agents}"
                )
        else:
            split = mean_split(
                data,
                columns=names,
                agents=agents,
                informative=informative,
                informative_share=self.informative_share,
                extra_noise=self.extra_noise,
                test_fraction=self.test_fraction,
                rng=rng,
            )
        check_scale("sigma", self._sigma_of(split))
        return dataclasses.replace(
            split, extra=split.extra | {"target": self._find_target(data, split)}
        )

    def _sigma_of(self, split) -> float:
        return split.sigma_ls if self.sigma is None else float(self.sigma)

    def prepare(self, split, grid: Grid) -> dict:
        return {"sigma": self._sigma_of(split), "target": split.extra["target"]}

    def _find_target(self, data, split) -> np.ndarray:
        truth = self.truth
        if truth is None:
            truth = getattr(getattr(data, "frame", data), "attrs", {}).get("mu")
            truth = None if truth is None or len(truth) != self.dims else truth
        if truth is None:
            coords = (split.y_test,) if self.dims == 1 else (split.x_test, split.y_test)
            return np.array([c.mean() for c in coords])
        target = np.atleast_1d(np.asarray(truth, dtype=float))
        if target.shape != (self.dims,):
            raise ValueError(f"truth must have {counted(self.dims, 'coordinate')}, got {truth!r}")
        return target

    def statistics(self, x, y) -> np.ndarray:
        return mean_statistics(x, y, dims=self.dims)

    def log_likelihood(self, stats, *, out, state) -> np.ndarray:
        return mean_log_likelihood(state.space, stats, state.values["sigma"], out=out)

    def loss_function(self, split, state):
        target = state.values["target"]
        return lambda mean: (((mean - target) ** 2).sum(axis=1), {})

    def config(self, state) -> dict:
        return {
            "dims": self.dims,
            "grid": list(state.space.shape),
            "bounds": [list(b) for b in state.space.bounds],
            "sigma": state.values["sigma"],
            "prior_var": float(self.prior_var),
            "target": state.values["target"].tolist(),
            "split_rule": "assignment" if self.assignment is not None else "noise",
            "informative_share": self.informative_share,
            "extra_noise": self.extra_noise,
            "test_fraction": self.test_fraction,
        }
