"""The paper's claims, tested on a comparison table.

:func:`evaluate_claims` turns the numbers of :func:`baygo_graph.experiments.compare`
(the smallest B per BayGo seed, and optionally the theorem checks) into a list of
:class:`Claim`: each verdict is computed from the table by the test stated in the
claim, never written by hand. Every contrast is read both ways: its ``note`` says
in a plain sentence when the data contradict the paper's premise (a baseline the
paper calls ideal beaten significantly, a baseline significantly better than BayGo).

Two kinds of contrast, by the paper's word:

* "beats" (complete, NegM, NoCol): holds iff the 95% t-interval of the paired
  difference BayGo - baseline lies entirely below 0;
* "matches" / "close to" (PosM, Cen, Cen-stratified): an equivalence test (TOST):
  holds iff the 90% t-interval lies inside +-margin, the margin being a share
  (5% by default) of the baseline's mean final MSE. Never a one-sided "lower than".
"""

from __future__ import annotations

import numpy as np

from .._format import format_number as _fmt
from .._text import counted
from ..analysis.stats import final_mse, paired_difference
from ..analysis.tables import table_steps, table_strategies
from .consensus import TOLERANCES, belief_claim, consensus_claims
from .sentences import SENTENCES, sentence_claims
from .theorem import theorem_claims
from .verdict import Claim

__all__ = [
    "BASELINES",
    "CLAIM_KEYS",
    "CONTRASTS",
    "MIN_WINDOWS",
    "STRATEGIES",
    "Claim",
    "coverage_row",
    "coverage_rows",
    "evaluate_claims",
]

#: One line defining each strategy of the paper experiment, in table order.
BASELINES = {
    "baygo": "BayGo: each agent listens to the agent whose local posterior diverges most "
    "(KL), weights delta on itself and 1 - delta on it, re-chosen every step.",
    "complete": "Complete: fixed fully connected graph, every agent pools all others.",
    "posm": "PosM: fixed star with the informative agent at the centre.",
    "negm": "NegM: fixed star with a non-informative agent at the centre.",
    "nocol": "NoCol: no collaboration (W = I), each agent learns from its own data.",
    "cen": "Cen (the paper's ideal benchmark): one learner with all the training data, "
    "drawing agents x batch samples per step uniformly from the pooled training set.",
    "cen-stratified": "Cen-stratified: one learner drawing one batch from each agent's own "
    "set per step (the same per-agent data budget; under-weights the informative region).",
}
#: Strategies of the paper experiment, in the order of every table.
STRATEGIES = tuple(BASELINES)
#: The connectivity claim needs at least this many complete aligned windows.
MIN_WINDOWS = 4
#: Contrasts BayGo - baseline: key -> (baseline, label, the paper's word).
CONTRASTS = {
    "baygo_vs_complete": ("complete", "the complete graph", "beats"),
    "baygo_vs_posm": ("posm", "the PosM star (informative agent at the centre)", "matches"),
    "baygo_vs_negm": ("negm", "the NegM star (a non-informative agent at the centre)", "beats"),
    "baygo_vs_nocol": ("nocol", "no collaboration (NoCol)", "beats"),
    "baygo_vs_cen": ("cen", "the centralised learner Cen (pooled draws)", "matches"),
    "baygo_vs_cen_stratified": ("cen-stratified", "Cen-stratified (per-agent draws)", "matches"),
}
#: The claims of the paper that :func:`evaluate_claims` tests, in order.
CLAIM_KEYS = (
    *CONTRASTS,
    *SENTENCES,
    *(f"consensus_{name}" for name in TOLERANCES),
    "consensus_beliefs",
    "b_connectivity",
    "theorem_literal",
    "theorem_cumulative",
    "theorem_kl",
)


def _contrast_text(label, word, *, level, margin):
    pct, tost = _pct(level), _pct(1 - 2 * (1 - level))
    d = (
        f"Per seed, d = (mean over the non-informative agents of BayGo's test MSE at the "
        f"last step) - (the same for {label}), seeds paired (same child seed)."
    )
    if word == "matches":
        claim = f"BayGo matches (is close to) {label}."
        test = (
            f"{d} Equivalence (TOST at {1 - level:.2g} per side): holds iff the {tost} "
            f"t-interval of mean(d) lies inside +-{margin:.0%} of the baseline's mean final "
            f"MSE (the margin is ours, not the paper's); does not hold iff it lies entirely "
            f"outside; cannot tell iff it straddles the margin. Also read: the {pct} "
            f"interval (below 0: BayGo better, above 0: worse)."
        )
    else:
        claim = f"BayGo reaches a lower test MSE than {label}."
        test = (
            f"{d} Holds iff the {pct} t-interval of mean(d) lies entirely below 0; does "
            f"not hold iff it lies at or above 0; cannot tell iff it straddles 0."
        )
    return claim, test


def _pct(level: float) -> str:
    """``0.95`` -> ``'95%'``, ``0.9875`` -> ``'98.75%'``."""
    return f"{100 * level:.4g}%"


def _contrast_note(baseline, label, word, lo, hi, holds):
    """The plain sentence reading the contrast the other way."""
    if np.isfinite(hi) and hi < 0 and baseline == "cen-stratified":
        return (
            f"BayGo beats {label} significantly: this variant under-weights the informative "
            "region, so it is no ideal benchmark (the paper's Cen draws from the pooled set)."
        )
    if np.isfinite(hi) and hi < 0 and baseline.startswith("cen"):
        return (
            f"BayGo beats {label} significantly: the data contradict the paper's premise "
            "that the centralised learner is the ideal benchmark."
        )
    if np.isfinite(lo) and lo > 0:
        return (
            f"{label[0].upper()}{label[1:]} is significantly better than BayGo (95% interval "
            "of d above 0)."
        )
    if word == "matches" and holds is not True and np.isfinite(hi) and hi < 0:
        return f"Not a match: BayGo is significantly better than {label}."
    if word == "matches" and holds is None:
        return "Cannot tell: the interval straddles the equivalence margin (more seeds needed)."
    if word == "matches" and holds is False:
        return f"Not a match: {label} differs from BayGo by more than the margin."
    if word == "beats" and holds is None:
        return f"Cannot tell: no significant difference between BayGo and {label} yet."
    return ""


def _contrast_claim(df, key, *, level, margin):
    baseline, label, word = CONTRASTS[key]
    claim, test = _contrast_text(label, word, level=level, margin=margin)
    present = set(table_strategies(df))
    if "baygo" not in present or baseline not in present:
        return Claim(key, claim, test, None, f"not run: needs 'baygo' and {baseline!r}")
    diff = paired_difference(df, "baygo", baseline, level=level)
    narrow = paired_difference(df, "baygo", baseline, level=1 - 2 * (1 - level))
    o, i = diff.loc["final_mse_others"], diff.loc["final_mse_informative"]
    o90 = narrow.loc["final_mse_others"]
    base_mean = float(final_mse(df).xs(baseline, level="strategy")["others"].mean())
    bound = margin * base_mean
    n = int(o["n"])
    if word == "matches":  # inside the margin / entirely outside it / straddles it
        inside = bool(np.isfinite(o90["lo"]) and -bound < o90["lo"] and o90["hi"] < bound)
        outside = bool(o90["lo"] > bound or o90["hi"] < -bound)
        holds = True if inside else (False if outside else None)
    else:  # below 0 / at or above 0 / straddles 0
        holds = True if o["hi"] < 0 else (False if o["lo"] >= 0 else None)
    values = {
        "word": word,
        "mean_difference": float(o["mean"]),
        "lo": float(o["lo"]),
        "hi": float(o["hi"]),
        "lo_tost": float(o90["lo"]),
        "hi_tost": float(o90["hi"]),
        "margin": bound,
        "p_value": float(o["p_value"]),
        "wins": float(o["wins"]),
        "n": int(o["n"]),
        "baseline_mean": base_mean,
        "informative_mean_difference": float(i["mean"]),
        "informative_lo": float(i["lo"]),
        "informative_hi": float(i["hi"]),
    }
    evidence = (
        f"mean d = {_fmt(o['mean'])}, {_pct(level)} [{_fmt(o['lo'])}, {_fmt(o['hi'])}]"
        + (
            f", {_pct(1 - 2 * (1 - level))} [{_fmt(o90['lo'])}, {_fmt(o90['hi'])}] vs "
            f"margin +-{_fmt(bound)}"
            if word == "matches"
            else ""
        )
        + f" over {counted(int(o['n']), 'seed')} (baseline mean {_fmt(base_mean)}), BayGo lower in "
        f"{o['wins']:.0%} of seeds, p = {_fmt(o['p_value'])}; informative agent: "
        f"d = {_fmt(i['mean'])} [{_fmt(i['lo'])}, {_fmt(i['hi'])}]"
    )
    note = _contrast_note(baseline, label, word, o["lo"], o["hi"], holds)
    outcome = "cannot tell" if holds is None else ""
    return Claim(key, claim, test, holds, evidence, values, note, outcome=outcome, n=n)


def evaluate_claims(
    df,
    *,
    smallest_b=None,
    theorem=None,
    beliefs=None,
    level=0.95,
    margin=0.05,
    consensus_within=20,
    consensus_slack=5,
    min_windows=MIN_WINDOWS,
):
    """Test the paper's claims on a comparison table.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        The result of :func:`baygo_graph.experiments.compare`, tidy or not (the
        strategies of :data:`STRATEGIES`; a claim whose strategies are missing is
        "not evaluated").
    smallest_b : pandas.DataFrame, optional
        One row per BayGo seed and window kind, columns ``seed``, ``windows``
        (``"aligned"``/``"sliding"``) and ``smallest_b`` (NaN: no B works), as
        :func:`~baygo_graph.reproduce.reproduce` builds it with
        :func:`baygo_graph.analysis.smallest_b`. Without it the connectivity
        claim is not evaluated.
    theorem : list of TheoremCheck, optional
        :func:`baygo_graph.analysis.theorem_check` of BayGo runs (one per seed);
        without it the three theorem claims are not evaluated.
    beliefs : array_like, shape (N, T), optional
        :func:`~baygo_graph.reproduce.consensus.belief_spread` of each BayGo seed;
        without it the belief reading of consensus is not evaluated.
    level : float, default 0.95
        Confidence level of the "beats" intervals; the equivalence (TOST) uses
        the ``1 - 2 (1 - level)`` interval (90%).
    margin : float, default 0.05
        Equivalence margin, as a share of the baseline's mean final MSE.
    consensus_within, consensus_slack : int, default 20, 5
        "Consensus within about 20 steps" holds iff the median consensus step
        is at most ``consensus_within + consensus_slack`` (per tolerance of
        :data:`~baygo_graph.reproduce.consensus.TOLERANCES`).
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
    >>> [(c.key, c.verdict) for c in claims][:2]
    [('baygo_vs_complete', 'holds'), ('baygo_vs_posm', 'does not hold')]
    >>> claims[1].note.startswith("Not a match: BayGo is significantly better")
    True
    """

    claims = [_contrast_claim(df, key, level=level, margin=margin) for key in CONTRASTS]
    claims += sentence_claims(df, level=level)
    claims += consensus_claims(df, within=consensus_within, slack=consensus_slack, level=level)
    claims.append(belief_claim(beliefs, within=consensus_within, slack=consensus_slack,
                               level=level))  # fmt: skip
    claims.append(_b_claim(df, smallest_b, min_windows))
    claims += theorem_claims(theorem)
    return claims


def coverage_row(run, windows: str, *, ttc=None) -> dict:
    """One row of the smallest-B table (``smallest_b.csv``, ``summary.json``):
    :func:`baygo_graph._render.b_row` of ``analysis.smallest_b(run, windows=windows)``.

    Keys ``windows``, ``smallest_b`` (NaN: no B), ``windows_checked``,
    ``steps_covered``, ``tail_length`` and ``tail_connected`` (NaN: no tail, as
    for sliding windows and seeds without a B) and ``reading``. ``ttc``: the run's
    :func:`~baygo_graph.analysis.time_to_connectivity` when the caller has it (both
    kinds of window read it: one pass for the two rows).
    """
    from .._render import b_row
    from ..analysis import smallest_b

    return b_row(smallest_b(run, windows=windows, ttc=ttc))


def coverage_rows(run, *, ttc=None) -> list[dict]:
    """:func:`coverage_row` of ``run`` for aligned, then sliding windows, both read from
    one :func:`~baygo_graph.analysis.time_to_connectivity` pass (``ttc``: the run's,
    when the caller has it)."""
    from ..analysis import time_to_connectivity

    ttc = time_to_connectivity(run) if ttc is None else ttc
    return [coverage_row(run, kind, ttc=ttc) for kind in ("aligned", "sliding")]


def _b_claim(df, smallest_b, min_windows):
    steps = table_steps(df)
    b_max = steps // min_windows
    claim = (
        "The emergent BayGo graph is B-strongly connected: for some B, the union of the "
        "graphs of every block of B consecutive steps nB..(n+1)B-1 is strongly connected."
    )
    test = (
        f"Per seed, the smallest such B over the run's T = {counted(steps, 'step')} (aligned "
        f"windows, the paper's Remark; analysis.smallest_b). Holds iff every seed has "
        f"one and the largest is <= T // {min_windows} = {b_max} (at least "
        f"{min_windows} complete windows, so the property is seen repeatedly; this "
        f"threshold is ours, not the paper's). A B covers only its full windows "
        f"[0, k*B): the last T mod B steps (the tail) are checked separately and reported."
    )
    if smallest_b is None or smallest_b.empty:
        return Claim("b_connectivity", claim, test, None, "not measured")
    evidence, values, holds = _b_evidence(smallest_b, b_max)
    n = int(smallest_b["seed"].nunique()) if "seed" in smallest_b else None
    if b_max < 1:  # no B >= 1 meets the threshold: the run decides nothing
        why = (
            f"not tested: a run of T = {counted(steps, 'step')} cannot hold {min_windows} complete "
            f"windows of any B >= 1 (needs T >= {min_windows}; the paper: 60)"
        )
        values["not_tested"] = why
        return Claim("b_connectivity", claim, test, None, f"{why}; {evidence}", values, n=n)
    note = (
        ""
        if holds
        else "B is too large (or missing) for the property to be seen repeatedly in "
        "T steps; the smallest B grows with T (see the horizon table)."
    )
    loose = values.get("aligned", {}).get("tail_not_connected", 0)
    if loose:
        note = (
            f"{note} In {counted(loose, 'seed')} the aligned B covers only [0, k*B): the tail "
            "after "
            "it is not strongly connected (unchecked by that B)."
        ).strip()
    return Claim("b_connectivity", claim, test, holds, evidence, values, note, n=n)


def _b_evidence(table, b_max):
    from .._render import b_spread  # the words of the report's short column and B table

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
        part = (f"{kind}: smallest B: {b_spread(values[kind])}; no B in {(~ok).sum()}/"
                f"{counted(len(b), 'seed')}")  # fmt: skip
        if "tail_connected" in table:
            from .._render import b_counts  # the counts of the report's B table

            rows = table[table["windows"] == kind]
            tails = rows["tail_length"].to_numpy(dtype=float)  # NaN: no tail (no B, sliding)
            counts = b_counts(rows)
            loose, with_tail = counts["tail_not_connected"], counts["with_tail"]
            top = float(np.nanmax(tails)) if np.isfinite(tails).any() else 0.0
            values[kind] |= {"with_tail": with_tail, "tail_not_connected": loose,
                             "max_tail": top}  # fmt: skip
            if with_tail:
                part += (
                    f"; a tail after the last full window in {counted(with_tail, 'seed')} (up to "
                    f"{counted(int(np.nanmax(tails[ok])), 'step')}), not strongly connected in "
                    f"{loose}"
                )
        if "windows_checked" in table:  # a B that rests on a single window
            one = int(((table.loc[table["windows"] == kind, "windows_checked"]
                        .to_numpy(dtype=float) == 1) & ok).sum())  # fmt: skip
            values[kind]["one_window"] = one
            part += f"; B rests on one window in {one} of {counted(len(b), 'seed')}"
        parts.append(part)
        if kind == "aligned":
            holds = bool(ok.all() and found.max() <= b_max)
    return "; ".join(parts), values, holds
