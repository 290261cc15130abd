"""Array reductions behind :class:`~baygo_graph.analysis.Comparison`.

Student-t intervals over seeds (``mean ± t_{n-1, (1+level)/2} · sd / sqrt(n)``,
``sd`` with ddof=1, NaN bounds when n < 2, NaN values skipped), the first step
from which a condition holds to the end, and the band frame of per-seed curves:
the definitions of :mod:`baygo_graph.analysis.stats`, on arrays.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "band_frame",
    "check_level",
    "check_summary_options",
    "first_stable",
    "half_width",
    "interval",
    "paired",
]


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
        q = stats.t.ppf(0.5 + level / 2, np.where(n > 1, n - 1, np.nan))
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


def band_frame(per_seed: np.ndarray, order: list, level: float, *, each: bool) -> pd.DataFrame:
    """The frame of :func:`baygo_graph.analysis.seed_bands` from (S, N, T[, M]) curves.

    Rows by strategy (in ``order``), step[, agent]; columns strategy, step,
    [agent,] mean, lo, hi, n.
    """
    n_s, _, t = per_seed.shape[:3]
    m = per_seed.shape[3] if each else 1
    mean, sd, n = _moments(np.moveaxis(per_seed, 1, -1), -1)  # (S, T[, M])
    half = half_width(sd, n, level)
    cols = {
        "strategy": np.repeat(np.array(order, dtype=object), t * m).astype(str),
        "step": np.tile(np.repeat(np.arange(t, dtype=np.int64), m), n_s),
    }
    if each:
        cols["agent"] = np.tile(np.arange(m, dtype=np.int64), n_s * t)
    cols |= {
        "mean": mean.ravel(),
        "lo": (mean - half).ravel(),
        "hi": (mean + half).ravel(),
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
