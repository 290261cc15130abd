"""Parameter grid, prior and likelihood of the linear-Gaussian model, in the log domain.

The model is ``y = a + b x + N(0, sigma^2)`` with parameter ``theta = (a, b)``
(intercept, slope) on a regular grid of K points. Every function works on all
agents and all grid points at once: agents on the first axis, grid points on the
last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = [
    "Grid",
    "batch_statistics",
    "log_likelihood",
    "log_normalize",
    "log_prior",
    "make_grid",
    "pool",
    "pool_into",
    "mse_function",
]


@dataclass(frozen=True, eq=False)
class Grid:
    """A regular grid over (intercept, slope).

    Attributes
    ----------
    axes : tuple of numpy.ndarray
        The grid values of each parameter.
    theta : numpy.ndarray, shape (K, 2)
        Every grid point, intercept varying slowest.
    """

    axes: tuple[np.ndarray, np.ndarray] = field(repr=False)
    theta: np.ndarray = field(repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """Points per axis."""
        return tuple(len(a) for a in self.axes)

    @property
    def size(self) -> int:
        """Number of grid points K."""
        return len(self.theta)

    @property
    def spacing(self) -> tuple[float, float]:
        """Distance between neighbouring points on each axis."""
        return tuple(float(a[1] - a[0]) for a in self.axes)

    @cached_property
    def features(self) -> np.ndarray:
        """``[1, -2a, -2b, a^2, 2ab, b^2]`` per grid point, shape (K, 6).

        The squared residual of a batch at grid point ``(a, b)`` is the dot
        product of this row with the batch's :func:`batch_statistics`.
        """
        a, b = self.theta.T
        return np.column_stack([np.ones_like(a), -2 * a, -2 * b, a * a, 2 * a * b, b * b])

    @property
    def bounds(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """(low, high) of each axis."""
        return tuple((float(a[0]), float(a[-1])) for a in self.axes)


def make_grid(points=61, *, bounds=(-2.0, 2.0)) -> Grid:
    """Make the parameter grid.

    Parameters
    ----------
    points : int or (int, int), default 61
        Points per axis (>= 2), the same for both axes when an int.
    bounds : (float, float) or ((float, float), (float, float)), default (-2, 2)
        Closed interval of each axis, the same for both when one pair is given.

    Returns
    -------
    Grid

    Examples
    --------
    >>> g = make_grid(5, bounds=(-1, 1))
    >>> g.size, g.spacing, g.theta[:2].tolist()
    (25, (0.5, 0.5), [[-1.0, -1.0], [-1.0, -0.5]])
    """
    pts = (points, points) if np.ndim(points) == 0 else tuple(points)
    if len(pts) != 2 or any(
        isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 2 for p in pts
    ):
        raise ValueError(f"points must be an int >= 2 or a pair of them, got {points!r}")
    bnds = np.asarray(bounds, dtype=float)
    if bnds.shape == (2,):
        bnds = np.stack([bnds, bnds])
    if bnds.shape != (2, 2) or not np.all(bnds[:, 0] < bnds[:, 1]):
        raise ValueError(f"bounds must be (lo, hi) or two of them with lo < hi, got {bounds!r}")
    axes = tuple(np.linspace(lo, hi, p) for (lo, hi), p in zip(bnds, pts, strict=True))
    a, b = np.meshgrid(*axes, indexing="ij")
    return Grid(axes=axes, theta=np.column_stack([a.ravel(), b.ravel()]))


def log_normalize(logp: np.ndarray) -> np.ndarray:
    """Normalise log-weights along the last axis, in place when possible.

    A max-shift log-sum-exp written with numpy: several times faster than
    :func:`scipy.special.logsumexp` on large arrays.

    Examples
    --------
    >>> p = log_normalize(np.log(np.array([[1.0, 3.0]])))
    >>> np.exp(p).round(3).tolist()
    [[0.25, 0.75]]
    """
    logp -= logp.max(axis=-1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=-1, keepdims=True))
    return logp


def log_prior(grid: Grid, *, var=(0.5, 0.5)) -> np.ndarray:
    """Log of the Gaussian prior N(0, diag(var)) on the grid, normalised over it.

    Examples
    --------
    >>> lp = log_prior(make_grid(11))
    >>> float(np.exp(lp).sum()).__round__(12), int(np.argmax(lp))
    (1.0, 60)
    """
    v = np.broadcast_to(np.asarray(var, dtype=float), (2,))
    if not np.all(v > 0):
        raise ValueError(f"prior variances must be positive, got {var!r}")
    return log_normalize(-0.5 * (grid.theta**2 / v).sum(axis=1))


def batch_statistics(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sufficient statistics of each agent's batch for the linear-Gaussian likelihood.

    Parameters
    ----------
    x, y : numpy.ndarray, shape (M, b)
        Each agent's batch.

    Returns
    -------
    numpy.ndarray, shape (M, 6)
        ``(sum y^2, sum y, sum x y, n, sum x, sum x^2)`` per agent.
    """
    n = np.full(x.shape[0], float(x.shape[1]))
    return np.column_stack([(y * y).sum(1), y.sum(1), (x * y).sum(1), n, x.sum(1), (x * x).sum(1)])


def log_likelihood(grid: Grid, stats: np.ndarray, sigma: float, *, out=None) -> np.ndarray:
    """Gaussian log-likelihood of each agent's batch at every grid point.

    ``sum_n log N(y_n | a + b x_n, sigma^2)`` up to a constant that does not
    depend on the grid point, computed from the batch statistics with one
    (M, 6) x (6, K) product: no loop over agents, samples or grid points.

    Parameters
    ----------
    grid : Grid
    stats : numpy.ndarray, shape (M, 6)
        From :func:`batch_statistics`.
    sigma : float
        Noise standard deviation (> 0).
    out : numpy.ndarray, shape (M, K), optional
        Where to write the result; its dtype (else that of ``stats``) is the
        precision of the product.

    Returns
    -------
    numpy.ndarray, shape (M, K)

    Examples
    --------
    >>> g = make_grid(3, bounds=(-1, 1))
    >>> ll = log_likelihood(g, batch_statistics(np.array([[1.0]]), np.array([[1.0]])), 1.0)
    >>> int(np.argmax(ll[0])), g.theta[np.argmax(ll[0])].tolist()  # a + b = 1 fits
    (5, [0.0, 1.0])
    """
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")
    # The scale goes into the (M, 6) statistics: no extra pass over (M, K).
    dtype = stats.dtype if out is None else out.dtype
    scaled = (stats * (-0.5 / sigma**2)).astype(dtype, copy=False)
    return np.matmul(scaled, grid.features.astype(dtype, copy=False).T, out=out)


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
        return pool_into(np.empty_like(logp), logp.copy(), choices, delta)
    return np.asarray(weights @ logp)


def pool_into(out, logp, choices, delta):
    """:func:`pool` with ``choices``, written into ``out``; scales ``logp`` in place."""
    src = np.where(choices >= 0, choices, np.arange(len(choices)))
    np.take(logp, src, axis=0, out=out, mode="clip")  # "raise" would buffer `out`
    out *= 1.0 - delta
    logp *= delta
    out += logp
    return out


def mse_function(x, y):
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
    >>> bool(np.allclose(mse_function(x, y)(m), direct, rtol=1e-14))
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
