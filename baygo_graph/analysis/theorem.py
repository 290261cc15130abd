"""The paper's convergence bound, checked on what a run's TheoremMonitor measured.

See :class:`baygo_graph.monitors.TheoremMonitor` for the bound and our reading of
it. :func:`theorem_check` says, per reading, in how many (agent, step) pairs the
measured error ``1 - mu_{i,t}(theta*)`` lies under the bound, how often the bound is
vacuous (its right side is at least 1, which the left side never exceeds), and
the empirical exponential rate of the error over the steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TheoremCheck", "theorem_check"]


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
    >>> from baygo_graph.monitors import TheoremMonitor
    >>> run = bg.simulate("baygo", agents=4, steps=20, grid=21, rng=0,
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
