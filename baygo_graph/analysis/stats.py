"""Statistics of comparison tables: t-intervals over seeds, seed bands and summaries.

Pure functions of arrays and of the tidy table of
:func:`baygo_graph.experiments.compare` (one row per strategy, seed, step and
agent) or of its per-run arrays, a :class:`~baygo_graph.analysis.Comparison`
(each function then calls the same-named method, which reduces run by run):
:func:`t_interval` (mean and Student-t interval over seeds),
:func:`seed_bands` (per-step mean curves with their intervals, what the figures
draw), :func:`summarize` (one row per strategy), :func:`final_mse` (per-seed
final errors) and :func:`paired_difference` (paired contrasts of two
strategies). Intervals respect the range of their quantity (docs/design.md,
"Intervals"): signed quantities (paired differences) get the Student-t interval
``mean ± t_{n-1, (1+level)/2} · sd / sqrt(n)`` (``sd`` with ddof=1); positive ones
(an MSE) the same interval on the log scale, ``mean · exp(± t · sd / (mean ·
sqrt(n)))``, never below 0; bounded ones (shares, influence) a percentile bootstrap
over seeds, never outside their range. NaN bounds when ``n < 2``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..defaults import REFERENCE_LABEL
from ._reduce import (
    METHODS,
    band_method,
    check_level,
    check_summary_options,
    first_stable,
    half_width,
    interval,
    paired,
    ranged_interval,
)
from .comparison import Comparison

__all__ = [
    "GROUPS",
    "METHODS",
    "band_method",
    "array_band",
    "final_mse",
    "first_stable",
    "paired_difference",
    "seed_bands",
    "summarize",
    "t_interval",
]

#: Which agents a curve follows: the informative agent, the mean of the others,
#: the mean of all agents, or each agent separately.
GROUPS = ("informative", "others", "all", "each")


# -- t-intervals -------------------------------------------------------------------
def _grouped_interval(values: pd.Series, level: float, *, by, sort: bool,
                      method: str = "t") -> pd.DataFrame:  # fmt: skip
    """Mean, sd, n, lo, hi of ``values`` per group of index level(s) ``by``."""
    g = values.groupby(level=by, sort=sort, observed=True)
    out = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count()})
    if method == "t":
        half = half_width(out["sd"].to_numpy(float), out["n"].to_numpy(float), level)
        out["lo"] = out["mean"] - half
        out["hi"] = out["mean"] + half
        return out
    lo, hi = [], []
    for _, group in g:
        _, a, b = ranged_interval(group.to_numpy(float), level, method, axis=0)
        lo.append(float(a))
        hi.append(float(b))
    out["lo"], out["hi"] = lo, hi
    return out


def t_interval(values, *, level: float = 0.95, axis: int = 0):
    """Mean over ``axis`` (the seeds) and its Student-t interval, skipping NaN.

    Parameters
    ----------
    values : array_like
        Samples along ``axis``.
    level : float, default 0.95
        Coverage, in (0, 1).
    axis : int, default 0

    Returns
    -------
    mean, lo, hi : numpy.ndarray
        ``values`` reduced over ``axis``; the bounds are NaN where fewer than
        2 values are finite. Equal to ``scipy.stats.t.interval(level, n - 1,
        loc=mean, scale=scipy.stats.sem(values))``.

    Examples
    --------
    >>> mean, lo, hi = t_interval([1.0, 2.0, 6.0])
    >>> float(mean), round(float(hi), 4)
    (3.0, 9.5724)
    """
    check_level(level)
    return interval(values, level, axis=axis)


def array_band(values, *, level=0.95, method="t"):
    """The mean over the seeds of a (seeds, steps) array and its interval: a band to draw.

    Parameters
    ----------
    values : array_like, shape (N, T)
        One row per seed.
    level : float, default 0.95
    method : {"t", "log", "bootstrap"}, default "t"
        The interval by the range of the values (module docstring): ``"bootstrap"``
        for a share, ``"log"`` for a positive quantity.

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
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"values must be 2-D (seeds, steps), got shape {v.shape}")
    check_level(level)
    return ranged_interval(v, level, band_method("", method), axis=0)


_BAND_REQUIRED = ("strategy", "seed", "step", "agent", "informative")


def seed_bands(df, *, value="mse", group="informative", level=0.95, strategies=None,
               method=None):  # fmt: skip
    """Per-step mean over seeds of ``value`` and its interval.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        Tidy table with columns strategy, seed, step, agent, informative and
        ``value`` (as :func:`baygo_graph.experiments.compare` returns), or its
        per-run arrays (``tidy=False``; the result is the same).
    value : str, default "mse"
        Column to summarise (NaN entries are skipped).
    group : {"informative", "others", "all", "each"}, default "informative"
        ``"informative"``: the informative agent; ``"others"``: within each seed,
        the mean over the non-informative agents; ``"all"``: the mean over every
        agent; ``"each"``: every agent on its own (adds an ``agent`` column).
    level : float, default 0.95
        Coverage of the interval; NaN when fewer than 2 seeds.
    strategies : sequence of str, optional
        Keep only these strategies (default: all in ``df``).
    method : {"t", "log", "bootstrap"}, optional
        The interval (module docstring); default by ``value``: ``"log"`` for
        ``"mse"`` (never below 0), ``"bootstrap"`` for ``"influence"`` (within
        [0, 1]), ``"t"`` otherwise (:func:`band_method`).

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
    >>> round(float(seed_bands(df, group="others", method="t")["hi"].iloc[0]), 3)
    18.706
    >>> bool(seed_bands(df, group="others")["lo"].iloc[0] > 0)  # log scale: positive
    True
    """
    method = band_method(value, method)
    if isinstance(df, Comparison):
        return df.seed_bands(value=value, group=group, level=level, strategies=strategies,
                             method=method)  # fmt: skip
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame or a Comparison, got {type(df).__name__}")
    missing = [c for c in (*_BAND_REQUIRED, value) if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing}; expected compare()'s tidy table")
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got {group!r}")
    check_level(level)
    if strategies is not None:
        df = df[df["strategy"].isin(list(strategies))]
    if group == "informative":
        df = df[df["informative"].astype(bool)]
    elif group == "others":
        df = df[~df["informative"].astype(bool)]
    keys = ["strategy", "seed", "step"] + (["agent"] if group == "each" else [])
    per_seed = df.groupby(keys, sort=True, observed=True)[value].mean()
    outer = [k for k in keys if k != "seed"]
    out = _grouped_interval(per_seed, level, by=outer, sort=True, method=method).reset_index()
    return out[[*outer, "mean", "lo", "hi", "n"]]


# -- summaries of the tidy table ----------------------------------------------------
_REQUIRED = ("strategy", "seed", "step", "agent", "informative", "mse")


def _check_frame(df) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame or a Comparison, got {type(df).__name__}")
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing} (see experiments.compare())")
    if df.empty:
        raise ValueError("df has no rows")


def _strategy_order(df) -> list:
    listed = list(df.attrs.get("strategies", []))
    present = list(pd.unique(df["strategy"]))
    return [s for s in listed if s in present] + [s for s in present if s not in listed]


def _first_stable(ok: pd.Series) -> pd.Series:
    """Per group (all index levels but the last, ``step``): the first step from
    which ``ok`` holds at every later step of the group; NaN when it fails at
    the group's last step."""
    keys = list(ok.index.names[:-1])
    frame = ok.rename("ok").reset_index().sort_values([*keys, "step"], kind="stable")
    frame["bad"] = (~frame["ok"].astype(bool)).astype(np.int64)
    frame["bad_from_here"] = frame.iloc[::-1].groupby(keys, sort=False)["bad"].cumsum()
    groups = frame.groupby(keys, sort=False)["step"].first().index
    first = frame[frame["bad_from_here"] == 0].groupby(keys, sort=False)["step"].min()
    return first.reindex(groups).astype(float)


def final_mse(df) -> pd.DataFrame:
    """Final-step MSE of every run: the informative agent and the others' mean.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        A tidy frame as returned by :func:`~baygo_graph.experiments.compare`, or
        its per-run arrays (``tidy=False``; the result is the same).

    Returns
    -------
    pandas.DataFrame
        Index (strategy, seed); columns ``informative`` (MSE of the informative
        agent at the run's last step; mean if several are flagged) and
        ``others`` (mean over the non-informative agents at that step).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "a", "seed": 0, "step": [0, 0, 1, 1],
    ...                    "agent": [0, 1, 0, 1], "informative": [True, False] * 2,
    ...                    "mse": [9.0, 9.0, 1.0, 3.0]})
    >>> final_mse(df).to_dict("records")
    [{'informative': 1.0, 'others': 3.0}]
    """
    if isinstance(df, Comparison):
        return df.final_mse()
    _check_frame(df)
    last = df["step"] == df.groupby(["strategy", "seed"], sort=False)["step"].transform("max")
    fin = df.loc[last, ["strategy", "seed", "informative", "mse"]]
    out = fin.pivot_table(
        index=["strategy", "seed"], columns="informative", values="mse", aggfunc="mean", sort=False
    )
    out = out.reindex(columns=[True, False]).rename(columns={True: "informative", False: "others"})
    out.columns.name = None
    rank = {s: i for i, s in enumerate(_strategy_order(df))}
    pos = out.index.get_level_values("strategy").map(rank).to_numpy()
    return out.iloc[np.lexsort((out.index.get_level_values("seed").to_numpy(), pos))]


def summarize(df, *, tolerance: float = 0.05, consensus_tol: float = 0.01, level: float = 0.95):
    """One row per strategy: final errors with intervals, speed, consensus, influence.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        A tidy frame as returned by :func:`~baygo_graph.experiments.compare` (the
        ``influence`` column may be absent), or its per-run arrays (``tidy=False``;
        the result is the same).
    tolerance : float, default 0.05
        Relative tolerance of ``steps_to_cen``.
    consensus_tol : float, default 0.01
        Absolute tolerance (MSE units) of ``consensus_step``.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Index ``strategy`` (in the order of ``df.attrs["strategies"]``, else of
        appearance), columns:

        ``final_mse_informative``, ``_lo``, ``_hi``
            Mean over seeds of the informative agent's MSE at the last step, and
            the log-scale t-interval of that mean, ``mean · exp(± t_{n-1, (1+level)/2}
            · sd / (mean · sqrt(n)))`` with ``sd`` the sample standard deviation
            (ddof=1) over the ``n`` seeds: positive, like the MSE (NaN bounds when
            n = 1).
        ``final_mse_others``, ``_lo``, ``_hi``
            The same for the mean over the non-informative agents.
        ``steps_to_cen``
            With ``m_s(t)`` the strategy's MSE averaged over agents, then over
            seeds, at step ``t``, and ``c(t)`` the same for ``"cen"``: the first
            step ``t`` (0-based, as in ``df.step``) such that
            ``m_s(u) <= (1 + tolerance) · c(u)`` for every later step ``u >= t``.
            One-sided: a strategy below Cen counts as within. ``inf`` when it fails
            at the last step (never within the run), NaN (undefined) when ``df`` has no
            ``"cen"`` rows.
        ``consensus_step``
            Per seed, the first step from which ``max - min`` of the agents' MSE
            stays ``<= consensus_tol`` at every later step; the median over the
            seeds, counting a seed that never gets there as infinite (``inf`` when
            the median seed never gets there).
        ``consensus_reached``
            Fraction of seeds that reach consensus.
        ``influence_informative``
            Mean of the informative agent's ``influence`` over all seeds and
            steps where it is defined (NaN if nowhere).
        ``seeds``
            Number of seeds.

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "cen", "seed": [0, 0, 1, 1], "step": 0,
    ...                    "agent": [0, 1, 0, 1], "informative": [True, False] * 2,
    ...                    "mse": [1.0, 1.0, 3.0, 3.0]})
    >>> s = summarize(df)
    >>> s.loc["cen", ["final_mse_informative", "steps_to_cen", "consensus_step"]].tolist()
    [2.0, 0.0, 0.0]
    >>> round(float(s.loc["cen", "final_mse_informative_hi"]), 4)  # 2 exp(t(0.975, 1) / 2)
    1148.5431
    """
    if isinstance(df, Comparison):
        return df.summarize(tolerance=tolerance, consensus_tol=consensus_tol, level=level)
    _check_frame(df)
    check_summary_options(tolerance=tolerance, consensus_tol=consensus_tol, level=level)
    order = _strategy_order(df)
    out = pd.DataFrame(index=pd.Index(order, name="strategy"))

    fin = final_mse(df)
    for col, name in (("informative", "final_mse_informative"), ("others", "final_mse_others")):
        ci = _grouped_interval(fin[col].dropna(), level, by=0, sort=False, method="log")
        ci = ci.reindex(order)
        out[name] = ci["mean"]
        out[f"{name}_lo"] = ci["lo"]
        out[f"{name}_hi"] = ci["hi"]

    per_seed = df.groupby(["strategy", "seed", "step"], sort=False)["mse"]
    curve = per_seed.mean().groupby(level=["strategy", "step"], sort=False).mean()
    if REFERENCE_LABEL in order:
        cen = curve.xs(REFERENCE_LABEL, level="strategy")
        ref = cen.reindex(curve.index.get_level_values("step")).to_numpy()
        ok = pd.Series(curve.to_numpy() <= (1.0 + tolerance) * ref, index=curve.index)
        out["steps_to_cen"] = _first_stable(ok).reindex(order).fillna(np.inf)  # inf: never
    else:
        out["steps_to_cen"] = np.nan

    spread = per_seed.max() - per_seed.min()
    first = _first_stable(spread <= consensus_tol)
    by_strategy = first.groupby(level="strategy", sort=False)
    median = first.fillna(np.inf).groupby(level="strategy", sort=False).median()
    out["consensus_step"] = median.reindex(order)  # inf: the median seed never gets there
    out["consensus_reached"] = by_strategy.count() / by_strategy.size()

    if "influence" in df.columns:
        inf_rows = df.loc[df["informative"], ["strategy", "influence"]]
        out["influence_informative"] = inf_rows.groupby("strategy", sort=False)["influence"].mean()
    else:
        out["influence_informative"] = np.nan
    out["seeds"] = df.groupby("strategy", sort=False)["seed"].nunique().reindex(order)
    return out


def paired_difference(df, strategy: str, baseline: str, *, level: float = 0.95):
    """Paired difference ``strategy - baseline`` of the final MSEs over seeds.

    Seeds are paired by their replicate index (the same child seed in
    :func:`~baygo_graph.experiments.compare`); only seeds present for both strategies count.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        A tidy frame as returned by :func:`~baygo_graph.experiments.compare`, or
        its per-run arrays (``tidy=False``; the result is the same).
    strategy, baseline : str
        Labels in ``df.strategy``.
    level : float, default 0.95
        Confidence level of the t-interval of the mean difference.

    Returns
    -------
    pandas.DataFrame
        Index ``metric`` (``"final_mse_informative"``, ``"final_mse_others"``);
        columns ``mean`` (mean over seeds of the per-seed difference), ``lo``,
        ``hi`` (t-interval of that mean), ``p_value`` (two-sided paired t-test),
        ``n`` (seeds) and ``wins`` (fraction of seeds where ``strategy`` is lower).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": ["a"] * 3 + ["b"] * 3, "seed": [0, 1, 2] * 2,
    ...                    "step": 0, "agent": 0, "informative": True,
    ...                    "mse": [1.0, 2.0, 3.0, 2.0, 4.0, 3.0]})
    >>> paired_difference(df, "a", "b").loc["final_mse_informative", ["mean", "n"]].tolist()
    [-1.0, 3.0]
    """
    if isinstance(df, Comparison):
        return df.paired_difference(strategy, baseline, level=level)
    check_level(level)
    fin = final_mse(df)
    present = set(fin.index.get_level_values("strategy"))
    for name, label in (("strategy", strategy), ("baseline", baseline)):
        if label not in present:
            raise ValueError(f"{name} {label!r} is not in df (has {sorted(present)})")
    diff = (fin.xs(strategy, level="strategy") - fin.xs(baseline, level="strategy")).dropna(
        how="all"
    )
    from scipy import stats  # here, not at import: scipy.stats takes ~0.8 s to import

    rows = {
        name: paired(diff[col].dropna().to_numpy(), level, stats.ttest_1samp)
        for col, name in (("informative", "final_mse_informative"), ("others", "final_mse_others"))
    }
    out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")
    return out.astype({"n": np.int64})
