"""Linear regression on a grid (the paper's model): ``y = a + b x + N(0, sigma^2)``.

The parameter ``theta = (a, b)`` (intercept, slope, standardised units) lives on a
regular grid; the prior is Gaussian N(0, diag(prior_var)); the data are the
bodyfat samples (Abdomen -> BodyFat) split as in the paper
(:func:`baygo_graph.data.paper_split`); the test loss is the test MSE of each
agent's posterior-mean prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import check_real, check_scale
from ..data import paper_split, resolve_data
from ..defaults import PAPER
from .grid import Grid, GridModel, check_options, log_normalize, make_grid

__all__ = [
    "LinearRegression",
    "RegressionSetup",
    "TestMSE",
    "batch_statistics",
    "features",
    "log_likelihood",
    "log_prior",
    "mse_function",
]


def features(grid: Grid) -> np.ndarray:
    """``[1, -2a, -2b, a^2, 2ab, b^2]`` per grid point, shape (K, 6).

    The squared residual of a batch at grid point ``(a, b)`` is the dot product of
    this row with the batch's :func:`batch_statistics`.

    Examples
    --------
    >>> features(make_grid(2, bounds=(0, 1)))[-1].tolist()
    [1.0, -2.0, -2.0, 1.0, 2.0, 1.0]
    """
    a, b = grid.theta.T
    return np.column_stack([np.ones_like(a), -2 * a, -2 * b, a * a, 2 * a * b, b * b])


def log_prior(grid: Grid, *, var=(0.5, 0.5)) -> np.ndarray:
    """Log of the Gaussian prior N(0, diag(var)) on the grid, normalised over it.

    Examples
    --------
    >>> lp = log_prior(make_grid(11))
    >>> float(np.exp(lp).sum()).__round__(12), int(np.argmax(lp))
    (1.0, 60)
    """
    v = check_scale("prior_var", var, size=2)  # finite, > 0 and in range: 1 / v stays finite
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
    m, b = x.shape
    # (M, 6, b) products summed over the batch at once: the same sums as one per column
    terms = np.empty((m, 6, b), dtype=np.result_type(x, y, float))
    np.multiply(y, y, out=terms[:, 0])
    terms[:, 1] = y
    np.multiply(x, y, out=terms[:, 2])
    terms[:, 3] = 1.0
    terms[:, 4] = x
    np.multiply(x, x, out=terms[:, 5])
    return np.add.reduce(terms, axis=2)


def log_likelihood(
    grid: Grid, stats: np.ndarray, sigma: float, *, out=None, feats=None
) -> np.ndarray:
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
    feats : numpy.ndarray, shape (K, 6), optional
        :func:`features` of ``grid``, when the caller keeps them.
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
    check_scale("sigma", float(sigma))  # and in range: 1 / sigma**2 stays finite
    feats_t = (features(grid) if feats is None else feats).T
    return _scaled_product(stats, -0.5 / sigma**2, feats_t, out)


def _scaled_product(stats, scale, feats_t, out):
    """:func:`log_likelihood` with the scale ``-1 / (2 sigma^2)`` checked already (the
    loop's every step): ``(stats * scale) @ feats_t``, ``feats_t`` the (6, K) features."""
    # The scale goes into the (M, 6) statistics: no extra pass over (M, K).
    dtype = stats.dtype if out is None else out.dtype
    scaled = (stats * scale).astype(dtype, copy=False)
    return np.matmul(scaled, feats_t.astype(dtype, copy=False), out=out)


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
    return TestMSE(xbar=xbar, ybar=ybar, suu=suu, beta=beta, rest=rest)


@dataclass(frozen=True)
class TestMSE:
    """The test MSE of :func:`mse_function` as a function of the posterior means.

    Its fields are the test set's moments; fields that are arrays (one value per row
    of the means, :meth:`stack`) give every row its own test set: each row's value is
    then the one its own test set gives, bit for bit.
    """

    xbar: float
    ybar: float
    suu: float
    beta: float
    rest: float

    __test__ = False  # not a pytest class

    def __call__(self, m):
        a, b = m[:, 0], m[:, 1]
        c = self.ybar - a - b * self.xbar
        return c * c + self.suu * (b - self.beta) ** 2 + self.rest

    @classmethod
    def stack(cls, functions, rows: int) -> TestMSE:
        """One function for the rows of several runs: ``rows`` rows per run, each run's
        test set in ``functions`` (in order).

        Examples
        --------
        >>> f = mse_function(np.array([0.0, 1.0]), np.array([1.0, 0.0]))
        >>> g = mse_function(np.array([0.0, 2.0]), np.array([2.0, 0.0]))
        >>> m = np.array([[0.1, 0.2], [0.3, 0.4]])
        >>> bool(np.array_equal(TestMSE.stack([f, g], 1)(m), [f(m[:1])[0], g(m[1:])[0]]))
        True
        """
        names = ("xbar", "ybar", "suu", "beta", "rest")
        values = np.array([[getattr(f, n) for n in names] for f in functions], dtype=float)
        return cls(*np.repeat(values, rows, axis=0).T)


@dataclass(frozen=True)
class RegressionSetup:
    """The paper's regression set-up shared by the grid and the exact model.

    The likelihood noise (:meth:`noise`), the prior and the bodyfat split
    (:meth:`split_with`); subclasses choose the splitter (padded per agent, or a
    shared pool).
    """

    sigma: float | None = None
    sigma_scale: float = 1.0
    prior_var: tuple = PAPER.prior_var
    test_fraction: float = PAPER.test_fraction
    informative_range: tuple = PAPER.informative_range
    other_range: tuple = PAPER.other_range
    dtype: str = "float64"

    def __post_init__(self):
        check_options(self)
        check_real("sigma_scale", self.sigma_scale, low=0.0, low_open=True)
        check_scale("prior_var", self.prior_var, size=2)

    def resolve_data(self, data):
        """The bodyfat data (a path, a DataFrame, a Dataset, or None: ``$BAYGO_BODYFAT``)."""
        return resolve_data(data)

    def split_with(self, splitter, data, *, agents: int, informative: int, rng):
        """``splitter(data, ...)`` with this set-up's ranges (the noise is checked here)."""
        split = splitter(
            data,
            agents=agents,
            informative=informative,
            informative_range=self.informative_range,
            other_range=self.other_range,
            test_fraction=self.test_fraction,
            rng=rng,
        )
        self.noise(split)
        return split

    def noise(self, split) -> float:
        """The likelihood noise of a run on ``split``: ``sigma`` (default ``split.sigma_ls``)
        times ``sigma_scale``."""
        scale = check_real("sigma_scale", self.sigma_scale, low=0.0, low_open=True)
        sigma = split.sigma_ls if self.sigma is None else self.sigma
        return check_scale("sigma", scale * check_scale("sigma", sigma))

    def setup_config(self, sigma: float) -> dict:
        """The set-up's entries of the run's config, with the run's noise ``sigma``."""
        return {
            "sigma": sigma,
            "prior_var": list(np.broadcast_to(np.asarray(self.prior_var, float), (2,))),
            "test_fraction": self.test_fraction,
            "informative_range": list(self.informative_range),
            "other_range": list(self.other_range),
            **({"sigma_scale": self.sigma_scale} if self.sigma_scale != 1 else {}),
        }


@dataclass(frozen=True)
class LinearRegression(RegressionSetup, GridModel):
    """The paper's model: linear regression on a 2-D grid over (intercept, slope).

    Parameters
    ----------
    grid : int or (int, int), default 61
        Grid points per axis.
    bounds : (float, float), default (-2, 2)
        Grid interval of each axis (standardised units).
    sigma : float, optional
        Likelihood noise; default: residual std of the least-squares fit on the
        training set.
    sigma_scale : float, default 1
        Factor on the likelihood noise (default or given): 0.5 makes every agent
        trust its data twice as much per sample (a sharper likelihood).
    prior_var : (float, float), default (0.5, 0.5)
        Variances of the Gaussian prior N(0, diag(prior_var)).
    test_fraction, informative_range, other_range
        The data split, see :func:`baygo_graph.data.paper_split`.

    Examples
    --------
    >>> import baygo_graph as bg
    >>> run = bg.simulate("nocol", model=LinearRegression(grid=21), agents=3, steps=2,
    ...                   rng=0, data=bg.synthetic_bodyfat())
    >>> run.config["model"], run.config["grid"]
    ('linear', [21, 21])
    """

    grid: int | tuple = PAPER.grid
    bounds: tuple = PAPER.bounds

    name = "linear"
    loss_name = "mse"

    def __post_init__(self):
        RegressionSetup.__post_init__(self)
        check_options(self, dims=2)

    def make_grid(self) -> Grid:
        return make_grid(self.grid, bounds=self.bounds)

    def grid_shape(self) -> tuple:
        return (self.grid,) * 2 if np.ndim(self.grid) == 0 else tuple(np.ravel(self.grid))

    def prepare(self, split, grid: Grid) -> dict:
        sigma, feats = self.noise(split), features(grid)
        # in the run's precision once, not every step; the product reads its transpose
        # (the (K, 6) layout: a contiguous (6, K) copy changes the last bits of BLAS sums)
        feats = feats.astype(self.dtype, copy=False)
        mse = mse_function(split.x_test, split.y_test)
        return {"sigma": sigma, "features": feats, "scale": -0.5 / sigma**2, "mse": mse}

    def start_seeds(self, splits, *, learners: int, dtype):
        """:meth:`GridModel.start_seeds`, with every run's noise scale and test MSE as
        one value per row (one likelihood product call and one loss call per step)."""
        state = GridModel.start_seeds(self, splits, learners=learners, dtype=dtype)
        if state.lanes:
            lanes = [lane.values for lane in state.lanes]
            scale = np.repeat([v["scale"] for v in lanes], learners)[:, None]
            state.values = {
                "features": lanes[0]["features"],
                "scale": scale,
                "mse": TestMSE.stack([v["mse"] for v in lanes], learners),
            }
        return state

    def log_likelihood_seeds(self, stats, *, out, state) -> np.ndarray:
        if not state.lanes:
            return self.log_likelihood(stats, out=out, state=state)
        v, rows = state.values, len(stats) // state.seeds
        scaled = (stats * v["scale"]).astype(out.dtype, copy=False)  # each row its run's
        feats_t = v["features"].T.astype(out.dtype, copy=False)
        shape = (state.seeds, rows, -1)
        np.matmul(scaled.reshape(shape), feats_t, out=out.reshape(shape))  # one BLAS call a run
        return out

    def loss_seeds(self, state, mean) -> tuple:
        if not state.lanes:
            return state.loss(mean)
        return state.values["mse"](mean), {}

    def log_prior(self, grid: Grid) -> np.ndarray:
        return log_prior(grid, var=self.prior_var)

    def split(self, data, *, agents: int, informative: int, rng):
        return self.split_with(paper_split, data, agents=agents, informative=informative, rng=rng)

    def statistics(self, x, y) -> np.ndarray:
        return batch_statistics(x, y)

    def log_likelihood(self, stats, *, out, state) -> np.ndarray:
        v = state.values
        # sigma was checked by noise() when the run started
        return _scaled_product(stats, v["scale"], v["features"].T, out)

    def loss_function(self, split, state):
        mse = state.values["mse"]
        return lambda mean: (mse(mean), {})

    def config(self, state) -> dict:
        return GridModel.config(self, state) | self.setup_config(state.values["sigma"])
