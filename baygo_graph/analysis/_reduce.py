"""Array reductions behind :class:`~baygo_graph.analysis.Comparison`.

Intervals of a mean over seeds (NaN bounds when n < 2, NaN values skipped), by the
range of the quantity (:data:`METHODS`, docs/design.md "Intervals"):

* ``"t"``: Student-t, ``mean ± t_{n-1, (1+level)/2} · sd / sqrt(n)`` (``sd`` with
  ddof=1): signed quantities such as paired differences;
* ``"log"``: the t-interval on the log scale (delta method), ``mean · exp(± t ·
  sd / (mean · sqrt(n)))``: positive quantities (an MSE); never below 0;
* ``"bootstrap"``: percentile bootstrap of the mean, seeds resampled
  (:data:`RESAMPLES` resamples, resampling seed 0: the same numbers every time):
  bounded quantities (shares, proportions); never outside the values' range.

Also the first step from which a condition holds to the end, and the band frame of
per-seed curves: the definitions of :mod:`baygo_graph.analysis.stats`, on arrays.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

__all__ = [
    "METHODS",
    "RESAMPLES",
    "band_frame",
    "band_method",
    "bootstrap_interval",
    "check_level",
    "check_summary_options",
    "first_stable",
    "half_width",
    "interval",
    "paired",
    "positive_interval",
    "ranged_interval",
]

#: Interval methods by the range of the quantity: signed, positive, bounded.
METHODS = ("t", "log", "bootstrap")
#: Resamples of :func:`bootstrap_interval`.
RESAMPLES = 2000

#: The interval of each per-step value by its range: MSE positive, influence a share.
_VALUE_METHOD = {"mse": "log", "influence": "bootstrap"}


def band_method(value: str, method: str | None = None) -> str:
    """The interval method of a value: ``method`` if given, else by the value's range
    (``"mse"``: ``"log"``, ``"influence"``: ``"bootstrap"``, anything else ``"t"``).

    Examples
    --------
    >>> band_method("mse"), band_method("influence"), band_method("mse", "t")
    ('log', 'bootstrap', 't')
    """
    if method is None:
        return _VALUE_METHOD.get(value, "t")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def interval(values: np.ndarray, level: float, axis: int = -1):
    """Mean, lo, hi over ``axis`` skipping NaN (NaN bounds where fewer than 2 values).

    Examples
    --------
    >>> m, lo, hi = interval(np.array([[1.0, 2.0, 6.0]]), 0.95)
    >>> float(m[0]), round(float(hi[0]), 4)
    (3.0, 9.5724)
    """
    mean, sd, n = _moments(values, axis)
    half = half_width(sd, n, level)
    return mean, mean - half, mean + half


def positive_interval(values: np.ndarray, level: float, axis: int = -1):
    """Mean, lo, hi over ``axis`` of a positive quantity: the log-scale t-interval.

    ``mean · exp(± t_{n-1} · sd / (mean · sqrt(n)))`` (delta method on ``log(mean)``):
    both bounds are positive, and ``lo · hi = mean²``. NaN bounds where fewer than 2
    values or a mean that is not positive.

    Examples
    --------
    >>> m, lo, hi = positive_interval(np.array([0.01, 0.02]), 0.95)
    >>> float(m), bool(lo > 0), round(float(lo * hi), 6)
    (0.015, True, 0.000225)
    """
    mean, sd, n = _moments(values, axis)
    half = half_width(sd, n, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.exp(np.where(mean > 0, half / mean, np.nan))
    return mean, mean / factor, mean * factor


def bootstrap_interval(values: np.ndarray, level: float, *, resamples: int = RESAMPLES):
    """Mean, lo, hi over axis 0 (the seeds): percentile bootstrap of the mean.

    Seeds are resampled with replacement (multinomial counts drawn with resampling
    seed 0, so the same values give the same interval); NaN entries are skipped in
    each resample's mean. The bounds lie within the range of the values (a share
    stays in [0, 1]). NaN bounds where fewer than 2 values are finite.

    Examples
    --------
    >>> m, lo, hi = bootstrap_interval(np.array([0.0, 0.0, 0.1, 0.9]), 0.95)
    >>> float(m), float(lo) >= 0.0, float(hi) <= 0.9
    (0.25, True, True)
    """
    v = np.asarray(values, dtype=float)
    n_seeds = v.shape[0]
    flat = v.reshape(n_seeds, -1)
    ok = np.isfinite(flat)
    counts = (
        np.random.default_rng(0)
        .multinomial(n_seeds, np.full(n_seeds, 1.0 / n_seeds), size=resamples)
        .astype(float)
    )  # (B, N)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        means = (counts @ np.where(ok, flat, 0.0)) / (counts @ ok)  # (B, X)
        alpha = (1.0 - level) / 2
        lo, hi = np.nanquantile(means, [alpha, 1.0 - alpha], axis=0)
        mean = np.nanmean(flat, axis=0)
    few = ok.sum(axis=0) < 2
    lo[few] = hi[few] = np.nan
    shape = v.shape[1:]
    return mean.reshape(shape), lo.reshape(shape), hi.reshape(shape)


def ranged_interval(values: np.ndarray, level: float, method: str, axis: int = 0):
    """Mean, lo, hi over ``axis`` by ``method`` of :data:`METHODS`.

    Examples
    --------
    >>> x = np.array([[1.0], [3.0], [2.0]])
    >>> [round(float(v[0]), 3) for v in ranged_interval(x, 0.95, "t")]
    [2.0, -0.484, 4.484]
    >>> [round(float(v[0]), 3) for v in ranged_interval(x, 0.95, "log")]
    [2.0, 0.578, 6.926]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "t":
        return interval(values, level, axis=axis)
    if method == "log":
        return positive_interval(values, level, axis=axis)
    return bootstrap_interval(np.moveaxis(np.asarray(values, dtype=float), axis, 0), level)


def check_level(level) -> None:
    """Refuse a confidence level that is not a number in (0, 1)."""
    if isinstance(level, bool) or not isinstance(level, int | float | np.number):
        raise TypeError(f"level must be a number, got {type(level).__name__}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def check_summary_options(*, tolerance, consensus_tol, level) -> None:
    """The options of ``summarize``: tolerances finite numbers >= 0, level in (0, 1)."""
    for name, value in (("tolerance", tolerance), ("consensus_tol", consensus_tol)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
        if not 0.0 <= value < np.inf:
            raise ValueError(f"{name} must be in [0, inf), got {value!r}")
    check_level(level)


def _moments(values, axis):
    v = np.asarray(values, dtype=float)
    n = np.isfinite(v).sum(axis=axis).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(v, axis=axis), np.nanstd(v, axis=axis, ddof=1), n


def half_width(sd, n, level: float) -> np.ndarray:
    """``t_{n-1, (1+level)/2} · sd / sqrt(n)``; NaN where ``n < 2``."""
    n = np.asarray(n, dtype=float)
    sd = np.asarray(sd, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        # scipy.stats.t.ppf is this function (bit for bit); scipy.stats costs ~0.5 s of
        # CPU to import, in every process that draws a band
        from scipy.special import stdtrit

        q = stdtrit(np.where(n > 1, n - 1, np.nan), 0.5 + level / 2)
        return q * sd / np.sqrt(n)


def first_stable(ok: np.ndarray) -> np.ndarray:
    """Along the last axis (steps): the first step from which ``ok`` holds to the end.

    NaN where ``ok`` fails at the last step.

    Examples
    --------
    >>> first_stable(np.array([[True, False, True, True], [True, True, True, False]]))
    array([ 2., nan])
    """
    ok = np.asarray(ok, dtype=bool)
    t = ok.shape[-1]
    bad_tail = np.cumsum(~ok[..., ::-1], axis=-1)[..., ::-1]  # failures from here on
    first = np.argmax(bad_tail == 0, axis=-1).astype(float)
    first[~ok[..., -1]] = np.nan
    return first if t else np.full(ok.shape[:-1], np.nan)


def band_frame(per_seed: np.ndarray, order: list, level: float, *, each: bool,
               method: str = "t") -> pd.DataFrame:  # fmt: skip
    """The frame of :func:`baygo_graph.analysis.seed_bands` from (S, N, T[, M]) curves.

    Rows by strategy (in ``order``), step[, agent]; columns strategy, step,
    [agent,] mean, lo, hi, n; the interval by ``method`` (:data:`METHODS`).
    """
    n_s, _, t = per_seed.shape[:3]
    m = per_seed.shape[3] if each else 1
    n = np.isfinite(per_seed).sum(axis=1).astype(float)  # (S, T[, M])
    if n_s:
        mean, lo, hi = ranged_interval(per_seed, level, method, axis=1)
    else:
        mean = lo = hi = np.empty(per_seed.shape[:1] + per_seed.shape[2:])
    cols = {
        "strategy": np.repeat(np.array(order, dtype=object), t * m).astype(str),
        "step": np.tile(np.repeat(np.arange(t, dtype=np.int64), m), n_s),
    }
    if each:
        cols["agent"] = np.tile(np.arange(m, dtype=np.int64), n_s * t)
    cols |= {
        "mean": mean.ravel(),
        "lo": lo.ravel(),
        "hi": hi.ravel(),
        "n": n.ravel().astype(np.int64),
    }
    return pd.DataFrame(cols)


def paired(d: np.ndarray, level: float, ttest) -> dict:
    """Mean, t-interval, paired t-test p-value, n and win rate of differences ``d``."""
    n = len(d)
    if not n:
        return {
            "mean": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "p_value": np.nan,
            "n": 0,
            "wins": np.nan,
        }
    mean, lo, hi = (float(x) for x in interval(d, level, axis=0))
    spread = np.ptp(d) > 1e-12 * max(1.0, float(np.abs(d).max()))
    p = float(ttest(d, 0.0).pvalue) if n > 1 and spread else np.nan
    return {"mean": mean, "lo": lo, "hi": hi, "p_value": p, "n": n, "wins": float((d < 0).mean())}
