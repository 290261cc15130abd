"""Consensus under BayGo, read two ways: the agents' test MSE and their beliefs.

The consensus step of a run is the first step from which a spread stays within a
tolerance at every later step (never: infinite). Two readings (docs/design.md,
"Consensus"):

* **MSE reading**: the spread (max - min) of the agents' test MSE, at the
  tolerances :data:`TOLERANCES` (absolute 0.01 and 0.02 MSE units, and 5% of the
  agents' mean MSE), so no verdict rests on one threshold. Equal MSE does not mean
  agreement: two agents with different beliefs can predict equally badly;
* **belief reading**: the *belief spread* (:func:`belief_spread`), the largest
  Euclidean distance between two agents' posterior means of the parameter
  (intercept, slope, in standardised units), at the tolerance
  :data:`BELIEF_TOLERANCE`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._format import step_text
from .._text import counted
from ..analysis.stats import first_stable
from ..analysis.tables import table_array, table_seeds, table_steps, table_strategies
from .verdict import Claim

__all__ = [
    "BELIEF_TOLERANCE",
    "TOLERANCES",
    "belief_claim",
    "belief_spread",
    "consensus_claims",
    "consensus_steps",
]

#: name -> (kind, value): "abs" compares the spread with value, "rel" with
#: value x the agents' mean MSE at the step.
TOLERANCES = {"abs_0.01": ("abs", 0.01), "abs_0.02": ("abs", 0.02), "rel_5pct": ("rel", 0.05)}
#: Tolerance of the belief reading, in standardised parameter units: about one grid
#: spacing of the paper's grid (4 / 60) and one posterior sd of a coefficient given
#: the whole data set (ours, not the paper's).
BELIEF_TOLERANCE = 0.05


def belief_spread(mean) -> np.ndarray:
    """Per step, the largest Euclidean distance between two agents' posterior means.

    Parameters
    ----------
    mean : array_like, shape (T, M, d)
        Posterior means per step and agent (``Run.mean``).

    Returns
    -------
    numpy.ndarray, shape (T,)

    Examples
    --------
    >>> m = np.array([[[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]])
    >>> belief_spread(m).tolist()
    [5.0]
    """
    m = np.asarray(mean, dtype=float)
    if m.ndim != 3:
        raise ValueError(f"mean must have shape (T, M, d), got {m.shape}")
    sq = (m * m).sum(axis=2)  # (T, M): |a - b|^2 = |a|^2 + |b|^2 - 2 a.b
    d2 = sq[:, :, None] + sq[:, None, :] - 2 * np.einsum("tid,tjd->tij", m, m)
    return np.sqrt(np.maximum(d2.max(axis=(1, 2)), 0.0))


def _describe(kind, value) -> str:
    return f"{value:g} (MSE units)" if kind == "abs" else f"{value:.0%} of the agents' mean MSE"


def consensus_steps(df, *, strategy: str = "baygo", tolerances=None) -> pd.DataFrame:
    """Per seed and tolerance, the consensus step of ``strategy``'s runs.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        A result of :func:`baygo_graph.experiments.compare`.
    strategy : str, default "baygo"
    tolerances : dict, optional
        As :data:`TOLERANCES` (the default).

    Returns
    -------
    pandas.DataFrame
        Index ``seed``, one column per tolerance name: the consensus step (inf:
        never within the run).

    Examples
    --------
    >>> rows = [dict(strategy="baygo", seed=0, step=t, agent=a, mse=1.0 + (t < 3) * 0.015 * a)
    ...         for t in range(5) for a in range(2)]
    >>> consensus_steps(pd.DataFrame(rows)).loc[0].tolist()
    [3.0, 0.0, 0.0]
    """
    tolerances = TOLERANCES if tolerances is None else dict(tolerances)
    if strategy not in table_strategies(df):
        raise ValueError(f"strategy {strategy!r} is not in df")
    arr = table_array(df, strategy)  # (N, T, M)
    spread = np.nanmax(arr, axis=2) - np.nanmin(arr, axis=2)
    mean = np.nanmean(arr, axis=2)
    out = {}
    for name, (kind, value) in tolerances.items():
        if kind not in ("abs", "rel"):
            raise ValueError(f"tolerances kind must be 'abs' or 'rel', got {kind!r} for {name!r}")
        ok = spread <= (value if kind == "abs" else value * mean)
        first = first_stable(ok)  # first step from which ok holds to the end
        out[name] = np.where(np.isnan(first), np.inf, first)  # steps are 0..T-1
    return pd.DataFrame(out, index=pd.Index(_seed_labels(df, strategy), name="seed"))


def consensus_claims(
    df, *, within: int = 20, slack: int = 5, strategy: str = "baygo", level: float = 0.95
):
    """One :class:`~baygo_graph.reproduce.Claim` per tolerance of :data:`TOLERANCES`.

    Three-way, from the distribution-free ``level`` confidence interval of the
    median consensus step (order statistics, :func:`scipy.stats.quantile_test`):
    holds iff the interval lies at or below the limit, does not hold iff it lies
    above, cannot tell iff it straddles the limit.
    """
    limit = within + slack
    claims = []
    present = strategy in table_strategies(df)
    table = consensus_steps(df, strategy=strategy) if present else None
    for name, (kind, value) in TOLERANCES.items():
        key = f"consensus_{name}"
        claim = f"Under BayGo all agents reach consensus within about {counted(within, 'step')}."
        test = (
            f"MSE reading: per seed, the consensus step is the first step from which max - "
            f"min of the agents' test MSE stays <= {_describe(kind, value)} at every later "
            f"step (never: infinite). Holds iff the {100 * level:.4g}% interval of the median "
            f"over seeds (order statistics) lies at or below {limit} ({counted(within, 'step')} + "
            f"{slack} of "
            f"slack for 'about', our reading of the paper's word); does not hold iff it "
            f"lies above; cannot tell iff it straddles {limit}."
        )
        if table is None:
            claims.append(Claim(key, claim, test, None, f"not run: needs {strategy!r}"))
            continue
        steps = table[name].to_numpy()
        claims.append(_median_claim(key, claim, test, steps, limit=limit, level=level,
                                    run=table_steps(df),
                                    what=f"tolerance {_describe(kind, value)}",
                                    extra={"kind": kind, "tolerance": value,
                                           "reading": "mse"}))  # fmt: skip
    return claims


def _median_claim(key, claim, test, steps, *, limit, level, what, extra, run):
    """Three-way verdict from the order-statistics interval of the median step.

    A seed that never reaches consensus in a ``run`` of steps ending before step
    ``limit`` is censored, not late: a verdict that rests on such seeds is not
    decided by this run.
    """
    from scipy.stats import quantile_test

    median = float(np.median(steps))
    reached = float(np.isfinite(steps).mean())
    if len(steps) >= 2:
        ci = quantile_test(steps, q=limit, p=0.5).confidence_interval(level)
        # too few seeds for this level: scipy gives NaN, i.e. no bound on that side
        lo = -np.inf if np.isnan(ci.low) else float(ci.low)
        hi = np.inf if np.isnan(ci.high) else float(ci.high)
    else:
        lo, hi = -np.inf, np.inf
    holds = True if hi <= limit else (False if lo > limit else None)
    # the seeds that decide are ones the run ended on before the limit: a lower bound
    # there (does not hold), or a median there (too few seeds to bound it: more seeds
    # would not settle it either; hostile17 V6)
    censored = (holds is False and not np.isfinite(lo)) or (
        holds is None and not np.isfinite(median)
    )
    short = censored and run - 1 < limit
    evidence = (
        f"{what}: median consensus step {step_text(median)}, {100 * level:.4g}% "
        f"[{step_text(lo, bound=True)}, {step_text(hi, bound=True)}] (limit {limit}); reached "
        f"in {reached:.0%} of {counted(len(steps), 'seed')}"
    )
    values = {"median_step": median, "median_lo": lo, "median_hi": hi, "reached": reached,
              "limit": limit} | extra  # fmt: skip
    note = "" if holds or reached >= 0.5 else "Most seeds never reach consensus here."
    if short:  # the seeds above the limit are only seeds the run ended on
        why = (
            f"not tested: the run of T = {counted(run, 'step')} ends before step {limit}, so a "
            "seed "
            f"that has not reached consensus by step {run - 1} may still reach it by step "
            f"{limit} (needs T > {limit}; the paper: 60)"
        )
        holds, note, values["not_tested"] = None, f"N{why[1:]}.", why
    elif holds is None:
        note = (note + " Cannot tell: the interval straddles the limit.").strip()
    outcome = "cannot tell" if holds is None and not short else ""
    return Claim(key, claim, test, holds, evidence, values, note, outcome=outcome,
                 n=len(steps))  # fmt: skip


def belief_claim(spreads, *, within: int = 20, slack: int = 5, level: float = 0.95,
                 tolerance: float = BELIEF_TOLERANCE):  # fmt: skip
    """The consensus claim read from beliefs: :func:`belief_spread` per seed and step.

    Parameters
    ----------
    spreads : array_like, shape (N, T), or None
        The belief spread of each BayGo seed (None: "not evaluated").
    within, slack, level
        As :func:`consensus_claims`.
    tolerance : float, default :data:`BELIEF_TOLERANCE`

    Returns
    -------
    Claim
        Key ``"consensus_beliefs"``.

    Examples
    --------
    >>> s = np.tile(np.r_[np.ones(10), np.full(40, 0.01)], (8, 1))
    >>> belief_claim(s).verdict, belief_claim(s).values["median_step"]
    ('holds', 10.0)
    """
    limit = within + slack
    claim = f"Under BayGo all agents reach consensus within about {counted(within, 'step')}."
    test = (
        f"Belief reading: per seed, the consensus step is the first step from which the "
        f"belief spread (largest Euclidean distance between two agents' posterior means "
        f"of (intercept, slope), standardised units) stays <= {tolerance:g} at every "
        f"later step (never: infinite; the tolerance is ours). Holds iff the "
        f"{100 * level:.4g}% interval of the median over seeds (order statistics) lies at "
        f"or below {limit} ({counted(within, 'step')} + {slack} of slack for 'about'); does not "
        "hold "
        f"iff it lies above; cannot tell iff it straddles {limit}."
    )
    if spreads is None:
        return Claim("consensus_beliefs", claim, test, None, "not measured")
    spreads = np.asarray(spreads, dtype=float)
    first = first_stable(spreads <= tolerance)
    steps = np.where(np.isnan(first), np.inf, first)
    return _median_claim("consensus_beliefs", claim, test, steps, limit=limit, level=level,
                         run=spreads.shape[-1],
                         what=f"belief spread <= {tolerance:g}",
                         extra={"kind": "belief", "tolerance": tolerance,
                                "reading": "beliefs"})  # fmt: skip


def _seed_labels(df, strategy) -> np.ndarray:
    """The seeds of ``strategy`` in the table (sorted), or 0..N-1 of a Comparison."""
    if isinstance(df, pd.DataFrame):
        return np.sort(df.loc[df["strategy"] == strategy, "seed"].unique())
    return np.arange(table_seeds(df))
