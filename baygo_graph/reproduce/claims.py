"""The paper's claims, tested on a comparison table.

:func:`evaluate_claims` turns the numbers of :func:`baygo_graph.experiments.compare`
(and the smallest B per BayGo seed) into a list of :class:`Claim`: each verdict
is computed from the table by the test stated in the claim, never written by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._format import format_number as _fmt
from ..analysis.stats import final_mse, paired_difference, summarize

__all__ = ["CLAIM_KEYS", "MIN_WINDOWS", "STRATEGIES", "Claim", "evaluate_claims"]

#: Strategies of the paper experiment, in the order of every table.
STRATEGIES = ("baygo", "complete", "posm", "negm", "nocol", "cen")
#: The connectivity claim needs at least this many complete aligned windows.
MIN_WINDOWS = 4
#: The claims of the paper that :func:`evaluate_claims` tests, in order.
CLAIM_KEYS = (
    "baygo_vs_complete",
    "baygo_vs_posm",
    "baygo_vs_negm",
    "baygo_vs_nocol",
    "baygo_vs_cen",
    "consensus",
    "b_connectivity",
)


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and whether this run's numbers support it.

    Attributes
    ----------
    key : str
        Identifier, one of :data:`CLAIM_KEYS`.
    claim : str
        What the paper says, in one sentence.
    test : str
        The exact test applied to the numbers.
    holds : bool or None
        The verdict; None when the numbers needed are missing.
    evidence : str
        The numbers the verdict rests on.
    values : dict
        The same numbers, machine-readable.
    """

    key: str
    claim: str
    test: str
    holds: bool | None
    evidence: str
    values: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"does not hold"`` or ``"not evaluated"``."""
        if self.holds is None:
            return "not evaluated"
        return "holds" if self.holds else "does not hold"


def _paired_claim(df, key, baseline, label, *, level, margin, noninferior=False, name=None):
    pct = f"{level:.0%}"
    if noninferior:
        claim = (
            f"BayGo's non-informative agents come close to {label}, the ideal "
            f"benchmark: their final test MSE is at most {margin:.0%} above it."
        )
        test = (
            f"Per seed, d = (mean over the non-informative agents of BayGo's test MSE at "
            f"the last step) - (the same for {label}), seeds paired (same child seed). "
            f"Holds iff the upper end of the {pct} t-interval of mean(d) is below "
            f"{margin:.0%} of {name or label}'s mean final MSE (non-inferiority)."
        )
    else:
        claim = f"BayGo reaches a lower test MSE than {label}."
        test = (
            f"Per seed, d = (mean over the non-informative agents of BayGo's test MSE at "
            f"the last step) - (the same for {label}), seeds paired (same child seed). "
            f"Holds iff the {pct} t-interval of mean(d) lies entirely below 0."
        )
    present = set(df["strategy"].unique())
    if "baygo" not in present or baseline not in present:
        return Claim(key, claim, test, None, f"not run: needs 'baygo' and {baseline!r}")
    diff = paired_difference(df, "baygo", baseline, level=level)
    o, i = diff.loc["final_mse_others"], diff.loc["final_mse_informative"]
    fin = final_mse(df)
    base_mean = float(fin.xs(baseline, level="strategy")["others"].mean())
    values = {
        "mean_difference": float(o["mean"]),
        "lo": float(o["lo"]),
        "hi": float(o["hi"]),
        "p_value": float(o["p_value"]),
        "wins": float(o["wins"]),
        "n": int(o["n"]),
        "baseline_mean": base_mean,
        "informative_mean_difference": float(i["mean"]),
        "informative_lo": float(i["lo"]),
        "informative_hi": float(i["hi"]),
    }
    if noninferior:
        bound = margin * base_mean
        holds = bool(np.isfinite(o["hi"]) and o["hi"] < bound)
        values["margin"] = bound
        tail = f"; margin {margin:.0%} x {_fmt(base_mean)} = {_fmt(bound)}"
    else:
        holds = bool(np.isfinite(o["hi"]) and o["hi"] < 0)
        tail = ""
        if not holds and np.isfinite(o["hi"]) and o["hi"] < margin * base_mean:
            tail = f"; within {margin:.0%} of {label} (comparable)"
    evidence = (
        f"mean d = {_fmt(o['mean'])} [{_fmt(o['lo'])}, {_fmt(o['hi'])}] over {int(o['n'])} "
        f"seeds, BayGo lower in {o['wins']:.0%} of seeds{tail}; informative agent: "
        f"d = {_fmt(i['mean'])} [{_fmt(i['lo'])}, {_fmt(i['hi'])}]"
    )
    return Claim(key, claim, test, holds, evidence, values)


def evaluate_claims(
    df,
    *,
    smallest_b=None,
    summary=None,
    level=0.95,
    margin=0.05,
    consensus_within=20,
    consensus_slack=5,
    consensus_tol=0.01,
    min_windows=MIN_WINDOWS,
):
    """Test the paper's claims on a comparison table.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`baygo_graph.experiments.compare` (all six
        strategies for every claim to be evaluated).
    smallest_b : pandas.DataFrame, optional
        One row per BayGo seed and window kind, columns ``seed``, ``windows``
        (``"aligned"``/``"sliding"``) and ``smallest_b`` (NaN: no B works), as
        :func:`~baygo_graph.reproduce.reproduce` builds it with
        :func:`baygo_graph.analysis.smallest_b`. Without it the connectivity
        claim is not evaluated.
    summary : pandas.DataFrame, optional
        :func:`baygo_graph.analysis.summarize` of ``df`` (computed when None).
    level : float, default 0.95
        Confidence level of the paired intervals.
    margin : float, default 0.05
        Relative non-inferiority margin of the comparison with Cen.
    consensus_within, consensus_slack : int, default 20, 5
        "Consensus within about 20 steps" holds iff the median consensus step
        is at most ``consensus_within + consensus_slack``.
    consensus_tol : float, default 0.01
        Tolerance (MSE units) of the consensus step (see ``summarize``).
    min_windows : int, default 4
        The connectivity claim needs ``B <= T // min_windows`` (at least that
        many complete aligned windows in the run).

    Returns
    -------
    list of Claim
        In the order of :data:`CLAIM_KEYS`.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=r, step=0, agent=a, informative=a == 0,
    ...              mse=1.0 + 0.1 * r if s == "baygo" else 2.0 + 0.3 * r)
    ...         for s in STRATEGIES for r in range(3) for a in range(2)]
    >>> claims = evaluate_claims(pd.DataFrame(rows))
    >>> [c.verdict for c in claims][:4]
    ['holds', 'holds', 'holds', 'holds']
    """
    if summary is None:
        summary = summarize(df, consensus_tol=consensus_tol, level=level)
    claims = [
        _paired_claim(df, "baygo_vs_complete", "complete", "the complete graph",
                      level=level, margin=margin),
        _paired_claim(df, "baygo_vs_posm", "posm",
                      "the star with the informative agent at the centre (PosM)",
                      level=level, margin=margin),
        _paired_claim(df, "baygo_vs_negm", "negm",
                      "the star with a non-informative agent at the centre (NegM)",
                      level=level, margin=margin),
        _paired_claim(df, "baygo_vs_nocol", "nocol", "no collaboration (NoCol)",
                      level=level, margin=margin),
        _paired_claim(df, "baygo_vs_cen", "cen", "the centralised learner (Cen)",
                      level=level, margin=margin, noninferior=True, name="Cen"),
    ]  # fmt: skip

    # Consensus.
    limit = consensus_within + consensus_slack
    claim = f"Under BayGo all agents reach consensus within about {consensus_within} steps."
    test = (
        f"Per seed, the consensus step is the first step from which max - min of the "
        f"agents' test MSE stays <= {consensus_tol:g} (MSE units) at every later step "
        f"(never: infinite). Holds iff the median over seeds is <= {limit} "
        f"({consensus_within} steps + {consensus_slack} of slack for 'about')."
    )
    if "baygo" in summary.index:
        step = float(summary.loc["baygo", "consensus_step"])
        reached = float(summary.loc["baygo", "consensus_reached"])
        holds = bool(np.isfinite(step) and step <= limit)
        evidence = (
            f"median consensus step {_fmt(step)} (limit {limit}); consensus reached in "
            f"{reached:.0%} of seeds"
        )
        claims.append(
            Claim("consensus", claim, test, holds, evidence,
                  {"median_step": step, "reached": reached, "limit": limit})
        )  # fmt: skip
    else:
        claims.append(Claim("consensus", claim, test, None, "not run: needs 'baygo'"))

    # B-strong connectivity.
    steps = int(df["step"].max()) + 1
    b_max = steps // min_windows
    claim = (
        "The emergent BayGo graph is B-strongly connected: for some B, the union of the "
        "graphs of every block of B consecutive steps nB..(n+1)B-1 is strongly connected."
    )
    test = (
        f"Per seed, the smallest such B over the run's T = {steps} steps (aligned "
        f"windows, the paper's Remark; analysis.smallest_b). Holds iff every seed has "
        f"one and the largest is <= T // {min_windows} = {b_max} (at least "
        f"{min_windows} complete windows, so the property is seen repeatedly)."
    )
    if smallest_b is None or smallest_b.empty:
        claims.append(Claim("b_connectivity", claim, test, None, "not measured"))
    else:
        evidence, values, holds = _b_evidence(smallest_b, b_max)
        claims.append(Claim("b_connectivity", claim, test, holds, evidence, values))
    return claims


def _b_evidence(table, b_max):
    parts, values = [], {"b_max": b_max}
    holds = None
    for kind in ("aligned", "sliding"):
        b = table.loc[table["windows"] == kind, "smallest_b"].to_numpy(dtype=float)
        if not len(b):
            continue
        ok = np.isfinite(b)
        found = b[ok]
        values[kind] = {
            "seeds": int(len(b)),
            "none": int((~ok).sum()),
            "min": float(found.min()) if ok.any() else None,
            "median": float(np.median(found)) if ok.any() else None,
            "max": float(found.max()) if ok.any() else None,
        }
        rng_txt = (
            f"min {_fmt(found.min())}, median {_fmt(np.median(found))}, max {_fmt(found.max())}"
            if ok.any()
            else "no seed has one"
        )
        parts.append(f"{kind}: smallest B {rng_txt}; no B in {(~ok).sum()}/{len(b)} seeds")
        if kind == "aligned":
            holds = bool(ok.all() and found.max() <= b_max)
    return "; ".join(parts), values, holds
