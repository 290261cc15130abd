"""The paper's convergence bound, checked on what a run's TheoremMonitor measured.

See :class:`baygo_graph.monitors.TheoremMonitor` for the bound and our reading of
it. :func:`theorem_check` says, per reading, in how many (agent, step) pairs the
measured error ``1 - mu_{i,t}(theta*)`` lies under the bound, how often the bound is
vacuous (its right side is at least 1, which the left side never exceeds), and
the empirical exponential rate of the error over the steps. A reading is judged
where it speaks: :attr:`TheoremCheck.informative` is the share of pairs whose right
side is below 1, and :attr:`TheoremCheck.holds_informative` the share of those
where the bound holds (a vacuous pair always "holds": the left side is at most 1).

:func:`likelihood_reading` gives the second reading of the social-learning
literature: K(Theta) from the KL divergence between the likelihoods at theta* and
at theta (not between posteriors), so the right side ``(K - 1) exp(-t K(Theta))``
falls below 1, and becomes informative, only from step ``log(K - 1) / K(Theta)``.

The left side depends on the grid: ``1 - mu_{i,t}(theta*)`` is the posterior mass
off the true *cell*, and a cell's mass is about the posterior density times the
cell's area, so a finer grid (smaller cells) raises the left side towards 1 for
the same posterior, while ``K - 1`` grows as the number of cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LikelihoodReading", "TheoremCheck", "likelihood_reading", "theorem_check"]


@dataclass(frozen=True)
class TheoremCheck:
    """Both sides of the bound over a run, summarised.

    Attributes
    ----------
    holds : float
        Fraction of (agent, step) pairs where ``lhs <= rhs`` (literal reading).
    vacuous : float
        Fraction of pairs where the literal right side is >= 1.
    holds_cumulative, vacuous_cumulative : float
        The same for the cumulative reading (exponent summed over the steps).
    holds_kl, vacuous_kl : float
        The same for the whole-KL cumulative reading.
    rate : numpy.ndarray, shape (M,)
        Per agent, the least-squares slope of ``log(lhs)`` over the steps
        (negative: the error falls as ``exp(rate * t)``).
    final_error : numpy.ndarray, shape (M,)
        ``lhs`` at the last step.
    pairs : int
        Number of (agent, step) pairs checked (those with a graph).

    The shares where each reading speaks are properties: ``informative``,
    ``informative_cumulative``, ``informative_kl`` (``1 - vacuous``: right side
    below 1) and ``holds_informative``, ``holds_informative_cumulative``,
    ``holds_informative_kl`` (among those pairs, the share where the bound holds:
    ``(holds - vacuous) / (1 - vacuous)``, exact because a vacuous pair always
    holds; NaN when no pair is informative).
    """

    holds: float
    vacuous: float
    holds_cumulative: float
    vacuous_cumulative: float
    holds_kl: float
    vacuous_kl: float
    rate: np.ndarray
    final_error: np.ndarray
    pairs: int

    def where_informative(self, suffix: str = "") -> tuple[float, float]:
        """``(informative share, holds share among the informative pairs)`` of a reading.

        ``suffix``: ``""`` (literal), ``"_cumulative"`` or ``"_kl"``.

        Examples
        --------
        >>> c = TheoremCheck(0.75, 0.5, 1.0, 1.0, 0.75, 0.5, np.zeros(1), np.zeros(1), 10)
        >>> c.where_informative(), c.where_informative("_cumulative")[0]
        ((0.5, 0.5), 0.0)
        """
        if suffix not in ("", "_cumulative", "_kl"):
            raise ValueError(f"suffix must be '', '_cumulative' or '_kl', got {suffix!r}")
        holds, vacuous = getattr(self, f"holds{suffix}"), getattr(self, f"vacuous{suffix}")
        informative = 1.0 - vacuous
        if informative <= 0:
            return 0.0, float("nan")
        return informative, min(1.0, max(0.0, (holds - vacuous) / informative))

    @property
    def informative(self) -> float:
        return self.where_informative("")[0]

    @property
    def informative_cumulative(self) -> float:
        return self.where_informative("_cumulative")[0]

    @property
    def informative_kl(self) -> float:
        return self.where_informative("_kl")[0]

    @property
    def holds_informative(self) -> float:
        return self.where_informative("")[1]

    @property
    def holds_informative_cumulative(self) -> float:
        return self.where_informative("_cumulative")[1]

    @property
    def holds_informative_kl(self) -> float:
        return self.where_informative("_kl")[1]


def theorem_check(run) -> TheoremCheck:
    """Check the bound on a run made with ``monitors=[TheoremMonitor()]``.

    Parameters
    ----------
    run : Run

    Returns
    -------
    TheoremCheck

    Raises
    ------
    ValueError
        When the run has no theorem records, or no graph (a centralised learner).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> from baygo_graph.monitors import TheoremMonitor
    >>> run = bg.simulate("baygo", agents=4, steps=20, model=LinearRegression(grid=21), rng=0,
    ...                   data=bg.synthetic_bodyfat(), monitors=[TheoremMonitor()])
    >>> c = theorem_check(run)
    >>> c.pairs, 0 <= c.holds <= 1, c.rate.shape
    (80, True, (4,))
    """
    recs = getattr(run, "records", {})
    if "theorem_lhs" not in recs:
        raise ValueError(
            "run has no theorem records: simulate it with "
            "monitors=[baygo_graph.monitors.TheoremMonitor()]"
        )
    lhs = recs["theorem_lhs"]
    log_rhs, log_cum = recs["theorem_log_rhs"], recs["theorem_log_rhs_cumulative"]
    log_kl = recs["theorem_log_rhs_kl"]
    checked = ~np.isnan(log_rhs)  # +inf (an undefined exponent) counts as vacuous
    if not checked.any():
        raise ValueError(f"run of strategy {run.strategy!r} has no graph: the bound needs W")
    with np.errstate(divide="ignore"):
        log_lhs = np.log(lhs)
    steps = np.arange(lhs.shape[0], dtype=float)
    centred = steps - steps.mean()
    finite = np.isfinite(log_lhs)
    # least-squares slope per agent over the steps where the error is positive
    y = np.where(finite, log_lhs, 0.0)
    n = finite.sum(axis=0)
    tbar = (centred[:, None] * finite).sum(axis=0) / np.maximum(n, 1)
    ybar = y.sum(axis=0) / np.maximum(n, 1)
    sxy = ((centred[:, None] - tbar) * (y - ybar) * finite).sum(axis=0)
    sxx = (((centred[:, None] - tbar) ** 2) * finite).sum(axis=0)
    rate = np.divide(sxy, sxx, out=np.full(lhs.shape[1], np.nan), where=(n >= 2) & (sxx > 0))
    return TheoremCheck(
        holds=float(np.mean(log_lhs[checked] <= log_rhs[checked])),
        vacuous=float(np.mean(log_rhs[checked] >= 0)),
        holds_cumulative=float(np.mean(log_lhs[checked] <= log_cum[checked])),
        vacuous_cumulative=float(np.mean(log_cum[checked] >= 0)),
        holds_kl=float(np.mean(log_lhs[checked] <= log_kl[checked])),
        vacuous_kl=float(np.mean(log_kl[checked] >= 0)),
        rate=rate,
        final_error=lhs[-1].copy(),
        pairs=int(checked.sum()),
    )


@dataclass(frozen=True)
class LikelihoodReading:
    """The bound with K(Theta) from the likelihoods' KL divergence.

    Attributes
    ----------
    rate : float
        K(Theta): min over grid points theta != theta* of
        ``sum_j w_j E_j[KL(l(.|x, theta*) || l(.|x, theta))]`` per step (``batch``
        samples per agent), ``E_j`` over agent j's samples.
    argmin : numpy.ndarray, shape (d,)
        The grid point attaining it (a neighbour of theta*'s cell).
    cells : int
        K, the number of grid points.
    informative_from : int
        First step t at which ``(K - 1) exp(-t rate) < 1``.
    """

    rate: float
    argmin: np.ndarray
    cells: int
    informative_from: int

    def log_rhs(self, steps) -> np.ndarray:
        """``log((K - 1) exp(-t rate))`` at the given steps t."""
        return np.log(self.cells - 1) - np.asarray(steps, dtype=float) * self.rate


def likelihood_reading(x, counts, *, sigma, theta, true_index, weights=None, batch=1):
    """K(Theta) from the KL divergence between Gaussian linear-regression likelihoods.

    For ``y = a + b x + N(0, sigma^2)``, ``KL(l(.|x, theta*) || l(.|x, theta)) =
    ((a* - a) + (b* - b) x)^2 / (2 sigma^2)``; averaged over each agent's samples it
    needs only their first two moments.

    Parameters
    ----------
    x : numpy.ndarray, shape (M, n_max)
        Each agent's (standardised) features, padded (``Split.x``).
    counts : numpy.ndarray of int, shape (M,)
        Samples per agent (``Split.counts``).
    sigma : float
        Likelihood noise.
    theta : numpy.ndarray, shape (K, 2)
        Grid points (intercept, slope).
    true_index : int
        Index of theta*'s cell.
    weights : numpy.ndarray, shape (M,), optional
        Agent weights w_j (default 1/M each: the network average; our choice).
    batch : int, default 1
        Samples per agent per step.

    Returns
    -------
    LikelihoodReading

    Examples
    --------
    >>> th = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1]])
    >>> r = likelihood_reading(np.array([[1.0, -1.0]]), np.array([2]), sigma=1.0,
    ...                        theta=th, true_index=0)
    >>> round(r.rate, 6), r.informative_from
    (0.005, 139)
    """
    x = np.asarray(x, dtype=float)
    counts = np.asarray(counts)
    held = np.arange(x.shape[1]) < counts[:, None]
    m1 = np.where(held, x, 0.0).sum(axis=1) / counts
    m2 = np.where(held, x * x, 0.0).sum(axis=1) / counts
    m = len(counts)
    w = np.full(m, 1.0 / m) if weights is None else np.asarray(weights, dtype=float)
    theta = np.asarray(theta, dtype=float)
    da = theta[true_index, 0] - theta[:, 0]
    db = theta[true_index, 1] - theta[:, 1]
    kl = (da**2 + 2 * da * db * (w @ m1) + db**2 * (w @ m2)) * batch / (2 * sigma**2)
    kl[true_index] = np.inf
    k = int(np.argmin(kl))
    rate = float(kl[k])
    cells = len(theta)
    start = int(np.floor(np.log(cells - 1) / rate)) + 1 if cells > 1 else 0
    return LikelihoodReading(rate, theta[k].copy(), cells, start)
