"""The paper's convergence bound in the reproduction: the true cell, the claim lines.

BayGo runs are made with :class:`TruthMonitor` (a
:class:`~baygo_graph.monitors.TheoremMonitor` that finds the true parameter
itself) and checked with :func:`baygo_graph.analysis.theorem_check`;
:func:`theorem_claims` turns the checks into one claim per reading of the bound.

The true parameter ``theta*``: on the synthetic stand-in it is the generating
line of :func:`baygo_graph.data.synthetic_bodyfat` (``BodyFat = 0.631 Abdomen -
39.28`` + noise, :data:`SYNTHETIC_LINE`) mapped to the split's standardised units:
with the pooled training mean ``(mx, my)`` and std ``(sx, sy)``, slope ``0.631 sx /
sy`` and intercept ``(0.631 mx - 39.28 - my) / sy`` (the clipping of the generator
is ignored). On real data it is unknown: the least-squares fit of the pooled
training set (the monitor's default).
"""

from __future__ import annotations

import numpy as np

from .._format import format_number as _fmt
from .._text import counted
from ..analysis.stats import t_interval
from ..monitors import TheoremMonitor
from .verdict import Claim

__all__ = [
    "ORIGIN",
    "READINGS",
    "SYNTHETIC_LINE",
    "TruthMonitor",
    "standardised_line",
    "theorem_claims",
]

#: (slope, intercept) of :func:`baygo_graph.data.synthetic_bodyfat`'s generating line.
SYNTHETIC_LINE = (0.631, -39.28)
#: key -> (TheoremCheck attribute prefix, how the right side is read).
READINGS = {
    "theorem_literal": (
        "",
        "literal: exponent K_t(Theta) of step t alone, KL summand at theta_k, eps = 0",
    ),
    "theorem_cumulative": (
        "_cumulative",
        "cumulative: exponent summed over steps 1..t of K_s(Theta) (the text's "
        "'decreases exponentially each iteration')",
    ),
    "theorem_kl": (
        "_kl",
        "whole KL, cumulative: sum over s <= t and j != i of w_ij KL(mu~_i || mu~_j)",
    ),
}


def standardised_line(split, line=SYNTHETIC_LINE) -> tuple[float, float]:
    """``(intercept, slope)`` of a raw-units line in the split's standardised units.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> split = SimpleNamespace(mean=(90.0, 18.0), std=(10.0, 8.0))
    >>> [round(v, 4) for v in standardised_line(split, (0.5, -27.0))]
    [0.0, 0.625]
    """
    slope, intercept = line
    (mx, my), (sx, sy) = split.mean, split.std
    return (slope * mx + intercept - my) / sy, slope * sx / sy


class TruthMonitor(TheoremMonitor):
    """:class:`~baygo_graph.monitors.TheoremMonitor` whose ``theta*`` is the
    generating line on synthetic data (:func:`standardised_line` of the run's
    split) and the least-squares fit on real data.

    Parameters
    ----------
    synthetic : bool
        Whether the run's data are :func:`~baygo_graph.data.synthetic_bodyfat`'s.
    until : int, optional
        Measure the first ``until`` steps only (see the base monitor).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> run = bg.simulate("baygo", agents=4, steps=3, model=LinearRegression(grid=11), rng=0,
    ...                   data=bg.synthetic_bodyfat(), monitors=[TruthMonitor(synthetic=True)])
    >>> run.records["theorem_lhs"].shape
    (3, 4)
    """

    def __init__(self, *, synthetic: bool, until: int | None = None):
        super().__init__(None, until=until)
        self.synthetic = bool(synthetic)

    def start(self, *, agents, steps, grid, split, model=None) -> None:
        """Set ``theta*`` from the split, then start as the base monitor; also the
        likelihood reading of the bound (:func:`~baygo_graph.analysis.likelihood_reading`,
        one sample per agent per step, agents weighted 1/M)."""
        from ..analysis.theorem import likelihood_reading

        self.theta_star = standardised_line(split) if self.synthetic else None
        super().start(agents=agents, steps=steps, grid=grid, split=split, model=model)
        self.likelihood = None
        noise = getattr(model, "noise", None)  # the regression models' likelihood sd
        sigma = noise(split) if callable(noise) else None
        if sigma and grid.theta.shape[1] == 2:
            self.likelihood = likelihood_reading(
                split.x, split.counts, sigma=sigma, theta=grid.theta, true_index=self.cell
            )

    def finish(self) -> tuple[dict, dict]:
        """The base monitor's records, and the likelihood reading in its config."""
        records, config = super().finish()
        if self.likelihood is not None:
            config["theorem"] |= {
                "likelihood_rate": self.likelihood.rate,
                "likelihood_informative_from": self.likelihood.informative_from,
            }
        return records, config


def _shares(checks, suffix):
    """Per seed: (pairs, informative pairs, informative pairs where the bound holds)."""
    pairs = np.array([c.pairs for c in checks], dtype=float)
    inf, held = np.array([c.where_informative(suffix) for c in checks], dtype=float).T
    n_inf = np.round(pairs * inf)
    return pairs, n_inf, np.round(n_inf * np.nan_to_num(held))


def _seed_bootstrap(num, den, level):
    """Percentile bootstrap over seeds of the pooled ratio sum(num) / sum(den).

    Seeds are resampled whole (the pairs of one run are not independent); resampling
    seed 0, :data:`~baygo_graph.analysis.stats.RESAMPLES` resamples. NaN with fewer
    than 2 seeds or no denominator.
    """
    from ..analysis._reduce import RESAMPLES

    n = len(num)
    if n < 2 or den.sum() <= 0:
        return float("nan"), float("nan")
    counts = np.random.default_rng(0).multinomial(n, np.full(n, 1.0 / n), size=RESAMPLES)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = (counts @ num) / (counts @ den)
    alpha = (1.0 - level) / 2
    lo, hi = np.nanquantile(ratios, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


#: Which readings are ours and which is the paper's formula (the report says so).
ORIGIN = {
    "theorem_literal": "the paper's formula as written (our only choices: the KL 'at "
    "theta_k' read as its summand, eps = 0, theta* the true cell)",
    "theorem_cumulative": "ours: the paper's exponent summed over the steps, after its "
    "text ('decreases exponentially each iteration'), not its formula",
    "theorem_kl": "ours: the whole KL divergence in place of its summand at theta_k, "
    "summed over the steps; not the paper's formula",
}


def theorem_claims(checks, *, min_holds: float = 0.95, min_informative: float = 0.05,
                   level: float = 0.95):  # fmt: skip
    """One :class:`~baygo_graph.reproduce.Claim` per reading of :data:`READINGS`,
    judged where the reading speaks.

    Per reading, over the (agent, step) pairs of every seed: the share where its right
    side is informative (< 1), and among those the share where the bound holds, with
    a ``level`` percentile-bootstrap interval over seeds (whole seeds resampled).

    * vacuous iff the right side is informative in fewer than ``min_informative`` of
      the pairs (pooled over seeds): too few pairs where the bound says anything;
    * otherwise holds iff the interval of the share that holds lies at or above
      ``min_holds``, violated (where informative) iff it lies below, cannot tell at
      N seeds iff it straddles ``min_holds`` (or fewer than 2 seeds).

    The same rule on synthetic and real data; both thresholds are ours.

    Parameters
    ----------
    checks : list of TheoremCheck or None
        :func:`baygo_graph.analysis.theorem_check` of BayGo runs, one per seed
        (None: the claims are "not evaluated").
    min_holds : float, default 0.95
    min_informative : float, default 0.05
    level : float, default 0.95

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> from baygo_graph.analysis import TheoremCheck
    >>> c = TheoremCheck(0.56, 0.55, 1.0, 1.0, 0.56, 0.55, np.zeros(2), np.ones(2), 100)
    >>> [k.verdict for k in theorem_claims([c, c, c])]
    ['violated where informative', 'vacuous', 'violated where informative']
    """
    claim = (
        "The theorem: |mu_i,t(theta*) - 1| <= (K - 1) exp(-(K(Theta) - eps)), the error "
        "falling exponentially with the iterations."
    )
    pct = f"{100 * level:.4g}%"
    out = []
    for key, (suffix, reading) in READINGS.items():
        test = (
            f"Reading {reading} ({ORIGIN[key]}). Left side 1 - mu_i,t(theta*) per agent and "
            f"step of every BayGo seed (theta*: the true cell, see the report). Judged where "
            f"it speaks: the share of (agent, step) pairs whose right side is informative "
            f"(< 1), and among those the share where the bound holds ({pct} percentile "
            f"bootstrap over seeds). Vacuous iff fewer than {min_informative:.0%} of the "
            f"pairs are informative; otherwise holds iff the interval lies at or above "
            f"{min_holds:.0%}, violated where informative iff it lies below, cannot tell iff "
            f"it straddles {min_holds:.0%} (both thresholds ours; the same rule on synthetic "
            f"and real data); rate: least-squares slope of log(error) over t, mean over "
            f"agents, {pct} t-interval over seeds."
        )
        if not checks:
            out.append(Claim(key, claim, test, None, "not measured"))
            continue
        pairs, n_inf, n_held = _shares(checks, suffix)
        informative = float(n_inf.sum() / pairs.sum())
        held = float(n_held.sum() / n_inf.sum()) if n_inf.sum() else float("nan")
        inf_lo, inf_hi = _seed_bootstrap(n_inf, pairs, level)
        lo, hi = _seed_bootstrap(n_held, n_inf, level)
        rates = np.array([np.nanmean(c.rate) for c in checks])
        rate, rate_lo, rate_hi = (float(v) for v in t_interval(rates, level=level))
        n = len(checks)
        if informative < min_informative:
            holds, outcome = None, "vacuous"
        elif np.isfinite(lo) and lo >= min_holds:
            holds, outcome = True, ""
        elif np.isfinite(hi) and hi < min_holds:
            holds, outcome = False, "violated"
        else:
            holds, outcome = None, "cannot tell"
        evidence = (
            f"right side informative (< 1) in {informative:.1%} of {int(pairs.sum())} "
            f"(agent, step) pairs ({pct} [{_pc(inf_lo)}, {_pc(inf_hi)}] over {counted(n, 'seed')})"
            + (
                f"; among those the bound holds in {held:.1%} ({pct} [{_pc(lo)}, {_pc(hi)}], "
                f"fails in {1 - held:.1%})"
                if n_inf.sum()
                else "; nowhere informative"
            )
            + f"; error rate {_fmt(rate)} [{_fmt(rate_lo)}, {_fmt(rate_hi)}] per step"
        )
        if outcome == "vacuous":
            note = (
                f"Vacuous: the right side is informative in only {informative:.1%} of the "
                f"pairs (< {min_informative:.0%}), so the bound says (almost) nothing here: "
                "not a counterexample to the theorem."
            )
        elif outcome == "violated":
            note = (
                f"Violated where informative: in the {informative:.1%} of pairs where the "
                f"bound says something, the measured error exceeds that informative bound "
                f"in {1 - held:.1%}."
            )
        elif outcome == "cannot tell":
            note = f"Cannot tell: the interval straddles {min_holds:.0%} (more seeds needed)."
        else:
            note = ""
        if np.isfinite(rate_hi) and rate_hi >= 0:
            note += " The error does not fall exponentially (rate interval reaches 0)."
        values = {"informative_share": informative, "informative_lo": inf_lo,
                  "informative_hi": inf_hi, "holds_where_informative": held,
                  "holds_lo": lo, "holds_hi": hi, "vacuous_share": 1.0 - informative,
                  "holds_share": float((n_held.sum() + (pairs - n_inf).sum()) / pairs.sum()),
                  "pairs": int(pairs.sum()), "informative_pairs": int(n_inf.sum()),
                  "min_informative": min_informative, "min_holds": min_holds,
                  "rate": rate, "rate_lo": rate_lo, "rate_hi": rate_hi, "seeds": n,
                  "origin": ORIGIN[key]}  # fmt: skip
        out.append(Claim(key, claim, test, holds, evidence, values, note.strip(),
                         outcome=outcome, n=n))  # fmt: skip
    return out


def _pc(x: float) -> str:
    return "n/a (< 2 seeds)" if not np.isfinite(x) else f"{x:.1%}"
