"""The paper's own sentences about its figures and conclusions, tested on the data.

Each quantitative sentence of the paper becomes a :class:`~baygo_graph.reproduce.Claim`
whose ``values["source"]`` says where in the paper it comes from (the sentences are
quoted in docs/paper.md, "The paper's sentences"), with a three-way verdict:

* ``paper_complete_worsens_early``: the fully connected graph's informative agent
  "worsens during the first 20 iterations";
* ``paper_baygo_informative_decreases``: BayGo's informative agent "keeps decreasing
  at each time step";
* ``paper_outperforms_stars``: BayGo "outperforms" the star topologies (abstract and
  conclusion), a superiority test against PosM and against NegM; the equivalence
  test "matches PosM" stays beside it (:data:`~baygo_graph.reproduce.CONTRASTS`).
"""

from __future__ import annotations

import numpy as np

from .._format import format_number as _fmt
from .._text import counted
from ..analysis.stats import paired_difference, t_interval
from ..analysis.tables import table_steps, table_strategies
from .verdict import Claim

__all__ = ["SENTENCES", "sentence_claims"]

#: key -> (where in the paper, the sentence as the paper says it).
SENTENCES = {
    "paper_complete_worsens_early": (
        "results, on the figure of BayGo against the fully connected graph",
        "the fully connected graph's informative agent worsens during the first 20 iterations",
    ),
    "paper_baygo_informative_decreases": (
        "results, on the figure of BayGo against the fully connected graph",
        "BayGo's informative agent keeps decreasing at each time step",
    ),
    "paper_outperforms_stars": (
        "abstract and conclusion",
        "BayGo outperforms the star topologies (PosM and NegM)",
    ),
}


def _informative_curves(df, strategy: str) -> np.ndarray:
    """(seeds, steps) MSE of the informative agent of ``strategy``'s runs."""
    if hasattr(df, "curves"):  # a Comparison
        return df.curves(value="mse", group="informative")[df.index(strategy)]
    sub = df[(df["strategy"] == strategy) & df["informative"].astype(bool)]
    return sub.groupby(["seed", "step"])["mse"].mean().unstack("step").to_numpy(dtype=float)


def _claim(key, test, holds, evidence, values, note="", n=None):
    where, sentence = SENTENCES[key]
    claim = f"The paper ({where}): {sentence}."
    values = values | {"source": where, "sentence": sentence}
    outcome = "cannot tell" if holds is None and n else ""
    return Claim(key, claim, test, holds, evidence, values, note, outcome=outcome, n=n)


def _worsens_early(df, *, level, early):
    key = "paper_complete_worsens_early"
    pct = f"{100 * level:.4g}%"
    steps = table_steps(df)
    last = min(early, steps) - 1
    test = (
        f"Per seed, d = (the complete graph's informative agent's test MSE after "
        f"{last + 1} iterations, step {last}) - (the same after the first, step 0). Holds "
        f"iff the {pct} t-interval of mean(d) lies above 0 (it worsens); does not hold iff "
        f"it lies at or below 0; cannot tell iff it straddles 0."
    )
    if "complete" not in table_strategies(df) or steps < 2:
        return _claim(key, test, None, "not run: needs 'complete' and >= 2 steps", {})
    if steps < early:  # the sentence speaks of iterations the run does not have
        why = (f"not tested: a run of T = {counted(steps, 'step')} is shorter than the sentence's "
               "first "
               f"{early} iterations (needs T >= {early}; the paper: 60)")  # fmt: skip
        return _claim(key, test, None, why, {"steps": steps, "not_tested": why})
    c = _informative_curves(df, "complete")
    d = c[:, last] - c[:, 0]
    mean, lo, hi = (float(v) for v in t_interval(d, level=level))
    holds = True if lo > 0 else (False if hi <= 0 else None)
    rises = int((d > 0).sum())
    evidence = (
        f"mean MSE {_fmt(c[:, 0].mean())} at step 0 -> {_fmt(c[:, last].mean())} at step "
        f"{last}; d = {_fmt(mean)}, {pct} [{_fmt(lo)}, {_fmt(hi)}] over "
        f"{counted(len(d), 'seed')}; it "
        f"rises in {rises} of {counted(len(d), 'seed')}"
    )
    note = "The data contradict the sentence: the error falls." if holds is False else ""
    values = {"mean_difference": mean, "lo": lo, "hi": hi, "start": float(c[:, 0].mean()),
              "end": float(c[:, last].mean()), "step": last, "seeds_rising": rises}  # fmt: skip
    return _claim(key, test, holds, evidence, values, note, n=len(d))


def _keeps_decreasing(df, *, level):
    key = "paper_baygo_informative_decreases"
    steps = table_steps(df)
    each = 1 - (1 - level) / max(steps - 1, 1)
    test = (
        f"Per step t = 1..T-1, the step change d_t = MSE(t) - MSE(t-1) of BayGo's "
        f"informative agent, paired over seeds, with its t-interval at "
        f"{100 * each:.4g}% (Bonferroni over the {counted(steps - 1, 'step')}). Holds iff every "
        f"step's interval lies below 0 (a fall at each step); does not hold iff some "
        f"step's interval lies above 0 (a significant rise); cannot tell otherwise. Also "
        f"read: the steps at which the seed mean rises."
    )
    if "baygo" not in table_strategies(df) or steps < 2:
        return _claim(key, test, None, "not run: needs 'baygo' and >= 2 steps", {})
    c = _informative_curves(df, "baygo")
    d = np.diff(c, axis=1)  # (seeds, T - 1)
    mean, lo, hi = t_interval(d, level=each, axis=0)
    rises = int((mean > 0).sum())
    up, down = int((lo > 0).sum()), int((hi < 0).sum())
    holds = False if up else (True if down == d.shape[1] else None)
    evidence = (
        f"the seed mean rises at {rises} of {counted(d.shape[1], 'step')}; significant rises at "
        f"{counted(up, 'step')}, significant falls at {down} (each at {100 * each:.4g}%, "
        f"{counted(c.shape[0], 'seed')})"
    )
    note = (
        f"The data contradict the sentence: the error rises significantly at {counted(up, 'step')}."
        if holds is False
        else (
            f"The seed mean rises at {counted(rises, 'step')}." if holds is None and rises else ""
        )
    )
    values = {"steps_rising": rises, "steps": int(d.shape[1]), "significant_rises": up,
              "significant_falls": down, "level_each": each}  # fmt: skip
    return _claim(key, test, holds, evidence, values, note, n=int(c.shape[0]))


def _outperforms_stars(df, *, level):
    key = "paper_outperforms_stars"
    pct = f"{100 * level:.4g}%"
    test = (
        f"Superiority against each star: per seed, d = (mean over the non-informative "
        f"agents of BayGo's test MSE at the last step) - (the same for the star), seeds "
        f"paired. Holds iff the {pct} t-interval of mean(d) lies below 0 for PosM and for "
        f"NegM (both; an intersection-union test, so no correction); does not hold iff "
        f"for either star it lies at or above 0; cannot tell otherwise. Beside the "
        f"equivalence test baygo_vs_posm ('matches'), not instead of it."
    )
    present = set(table_strategies(df))
    if not {"baygo", "posm", "negm"} <= present:
        return _claim(key, test, None, "not run: needs 'baygo', 'posm' and 'negm'", {})
    parts, values, states, n = [], {}, [], 0
    for star in ("posm", "negm"):
        o = paired_difference(df, "baygo", star, level=level).loc["final_mse_others"]
        lo, hi, n = float(o["lo"]), float(o["hi"]), int(o["n"])
        states.append(True if hi < 0 else (False if lo >= 0 else None))
        values[star] = {"mean_difference": float(o["mean"]), "lo": lo, "hi": hi,
                        "wins": float(o["wins"]), "n": n}  # fmt: skip
        parts.append(
            f"vs {star}: d = {_fmt(o['mean'])}, {pct} [{_fmt(lo)}, {_fmt(hi)}], BayGo lower "
            f"in {o['wins']:.0%} of {counted(n, 'seed')}"
        )
    holds = False if False in states else (True if all(states) else None)
    undecided = [s for s, v in zip(("PosM", "NegM"), states, strict=True) if v is None]
    note = (
        "The data contradict the sentence: a star is at least as good as BayGo."
        if holds is False
        else (
            f"Not shown: no significant difference from {' and '.join(undecided)}."
            if holds is None
            else ""
        )
    )
    return _claim(key, test, holds, "; ".join(parts), values, note, n=n)


def sentence_claims(df, *, level: float = 0.95, early: int = 20) -> list:
    """One :class:`~baygo_graph.reproduce.Claim` per sentence of :data:`SENTENCES`.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        A result of :func:`baygo_graph.experiments.compare`.
    level : float, default 0.95
    early : int, default 20
        The "first 20 iterations" of the early-worsening sentence.

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=r, step=t, agent=a, informative=a == 0,
    ...              mse=(1.0 + 0.1 * r) / (1 + t) + (s != "baygo"))
    ...         for s in ("baygo", "complete", "posm", "negm") for r in range(4)
    ...         for t in range(3) for a in range(2)]
    >>> [c.verdict for c in sentence_claims(pd.DataFrame(rows), early=3)]
    ['does not hold', 'holds', 'holds']
    >>> sentence_claims(pd.DataFrame(rows))[0].evidence[:52]  # 3 steps, not 20
    'not tested: a run of T = 3 steps is shorter than the'
    """
    return [
        _worsens_early(df, level=level, early=early),
        _keeps_decreasing(df, level=level),
        _outperforms_stars(df, level=level),
    ]
