"""Mean curves with t-intervals over seeds, the summary a curve-with-band draws.

This is the only arithmetic in :mod:`baygo_graph.figures`: the per-step mean over
seeds of a column of the tidy comparison table and its Student-t interval (what
``seaborn.lineplot`` would compute, made explicit and exact).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

__all__ = ["GROUPS", "array_band", "seed_bands"]

#: Which agents a curve follows: the informative agent, the mean of the others,
#: the mean of all agents, or each agent separately.
GROUPS = ("informative", "others", "all", "each")

_REQUIRED = ("strategy", "seed", "step", "agent", "informative")


def _check_frame(df, value: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in (*_REQUIRED, value) if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing}; expected compare()'s tidy table")


def seed_bands(df, *, value="mse", group="informative", level=0.95, strategies=None):
    """Per-step mean over seeds of ``value`` and its t-interval.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table with columns strategy, seed, step, agent, informative and
        ``value`` (as :func:`baygo_graph.analysis.compare` returns).
    value : str, default "mse"
        Column to summarise (NaN entries are skipped).
    group : {"informative", "others", "all", "each"}, default "informative"
        ``"informative"``: the informative agent; ``"others"``: within each seed,
        the mean over the non-informative agents; ``"all"``: the mean over every
        agent; ``"each"``: every agent on its own (adds an ``agent`` column).
    level : float, default 0.95
        Coverage of the interval ``mean ± t_{n-1} · sd / sqrt(n)``; NaN when
        fewer than 2 seeds.
    strategies : sequence of str, optional
        Keep only these strategies (default: all in ``df``).

    Returns
    -------
    pandas.DataFrame
        Columns strategy, [agent,] step, mean, lo, hi, n (seeds with a value).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "a", "seed": [0, 1, 0, 1], "step": 0,
    ...                    "agent": [0, 0, 1, 1], "informative": [True, True, False, False],
    ...                    "mse": [1.0, 3.0, 5.0, 7.0]})
    >>> seed_bands(df)[["mean", "n"]].values.tolist()
    [[2.0, 2.0]]
    >>> round(float(seed_bands(df, group="others")["hi"].iloc[0]), 3)
    18.706
    """
    from scipy import stats

    _check_frame(df, value)
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got {group!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if strategies is not None:
        df = df[df["strategy"].isin(list(strategies))]
    if group == "informative":
        df = df[df["informative"].astype(bool)]
    elif group == "others":
        df = df[~df["informative"].astype(bool)]
    keys = ["strategy", "seed", "step"] + (["agent"] if group == "each" else [])
    per_seed = df.groupby(keys, sort=True, observed=True)[value].mean()
    outer = [k for k in keys if k != "seed"]
    g = per_seed.groupby(level=outer, sort=True, observed=True)
    out = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count()})
    n = out["n"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = stats.t.ppf(0.5 + level / 2, np.where(n > 1, n - 1, np.nan))
        half = q * out["sd"].to_numpy() / np.sqrt(n)
    out["lo"] = out["mean"] - half
    out["hi"] = out["mean"] + half
    out = out.reset_index()
    return out[[*outer, "mean", "lo", "hi", "n"]]


def array_band(values, *, level=0.95):
    """Mean over the first axis (seeds) and its t-interval, skipping NaN.

    Parameters
    ----------
    values : array_like, shape (N, T)
        One row per seed.
    level : float, default 0.95

    Returns
    -------
    mean, lo, hi : numpy.ndarray, shape (T,)
        Bounds are NaN where fewer than 2 seeds have a value.

    Examples
    --------
    >>> m, lo, hi = array_band([[1.0, 2.0], [3.0, np.nan]])
    >>> m.tolist(), bool(np.isnan(hi[1]))
    ([2.0, 2.0], True)
    """
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"values must be 2-D (seeds, steps), got shape {v.shape}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    n = np.isfinite(v).sum(axis=0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(v, axis=0)
        sd = np.nanstd(v, axis=0, ddof=1)
        q = stats.t.ppf(0.5 + level / 2, np.where(n > 1, n - 1, np.nan))
        half = q * sd / np.sqrt(n)
    return mean, mean - half, mean + half
