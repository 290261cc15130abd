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
from ..analysis.stats import t_interval
from ..monitors import TheoremMonitor
from .verdict import Claim

__all__ = ["READINGS", "SYNTHETIC_LINE", "TruthMonitor", "standardised_line", "theorem_claims"]

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

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> run = bg.simulate("baygo", agents=4, steps=3, model=LinearRegression(grid=11), rng=0,
    ...                   data=bg.synthetic_bodyfat(), monitors=[TruthMonitor(synthetic=True)])
    >>> run.records["theorem_lhs"].shape
    (3, 4)
    """

    def __init__(self, *, synthetic: bool):
        super().__init__(None)
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


def _pooled(checks, attr):
    pairs = np.array([c.pairs for c in checks], dtype=float)
    vals = np.array([getattr(c, attr) for c in checks], dtype=float)
    return float((pairs * vals).sum() / pairs.sum())


def theorem_claims(checks, *, min_holds: float = 0.95, max_vacuous: float = 0.5):
    """One :class:`~baygo_graph.reproduce.Claim` per reading of :data:`READINGS`.

    Parameters
    ----------
    checks : list of TheoremCheck or None
        :func:`baygo_graph.analysis.theorem_check` of BayGo runs, one per seed
        (None: the claims are "not evaluated").
    min_holds : float, default 0.95
        A reading holds iff the bound holds in at least this share of the
        (agent, step) pairs, pooled over seeds, ...
    max_vacuous : float, default 0.5
        ... and its right side is below 1 (informative) in more than
        ``1 - max_vacuous`` of them: a bound above 1 says nothing.

    Returns
    -------
    list of Claim
    """

    claim = (
        "The theorem: |mu_i,t(theta*) - 1| <= (K - 1) exp(-(K(Theta) - eps)), the error "
        "falling exponentially with the iterations."
    )
    out = []
    for key, (suffix, reading) in READINGS.items():
        test = (
            f"Reading {reading}. Left side 1 - mu_i,t(theta*) per agent and step of every "
            f"BayGo seed (theta*: the true cell, see the report). Vacuous iff the right "
            f"side is >= 1 (or undefined) in more than {max_vacuous:.0%} of the (agent, "
            f"step) pairs; otherwise holds iff the bound holds in >= {min_holds:.0%} of "
            f"them, else violated (both thresholds ours); rate: least-squares slope of "
            f"log(error) over t, mean over agents, 95% t-interval over seeds."
        )
        if not checks:
            out.append(Claim(key, claim, test, None, "not measured"))
            continue
        held = _pooled(checks, f"holds{suffix}")
        vacuous = _pooled(checks, f"vacuous{suffix}")
        rates = np.array([np.nanmean(c.rate) for c in checks])
        mean, lo, hi = (float(v) for v in t_interval(rates))
        if vacuous > max_vacuous:  # the bound says nothing: neither holds nor violated
            holds, outcome = None, "vacuous"
        else:
            holds = bool(held >= min_holds)
            outcome = "" if holds else "violated"
        evidence = (
            f"bound holds in {held:.1%} of pairs, vacuous in {vacuous:.1%}; error rate "
            f"{_fmt(mean)} [{_fmt(lo)}, {_fmt(hi)}] per step over {len(checks)} seeds"
        )
        if outcome == "vacuous":
            note = (
                "Vacuous: the right side is >= 1 in most pairs, so the bound says nothing "
                "here (not a counterexample to the theorem)."
            )
        elif outcome == "violated":
            note = "Violated: the measured error exceeds an informative bound in this reading."
        else:
            note = ""
        if np.isfinite(hi) and hi >= 0:
            note += " The error does not fall exponentially (rate interval reaches 0)."
        values = {"holds_share": held, "vacuous_share": vacuous, "rate": mean,
                  "rate_lo": lo, "rate_hi": hi, "seeds": len(checks)}  # fmt: skip
        out.append(Claim(key, claim, test, holds, evidence, values, note.strip(),
                         outcome=outcome, n=len(checks)))  # fmt: skip
    return out
