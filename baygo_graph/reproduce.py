"""The paper reproduction: every strategy over many seeds -> figures, tables, report.

:func:`reproduce` runs :func:`baygo_graph.analysis.compare` for all six
strategies, measures the emergent BayGo graphs with the analysis layer, draws
every figure of :mod:`baygo_graph.figures`, and writes a folder::

    OUT/
      report.md            figures and numbers together, the claims table
      results.csv          tidy table: strategy, seed, step, agent, informative, mse, influence
      summary.md/.json     one row per strategy (final MSE with 95% intervals, ...),
                           the claims, smallest B per seed, timings
      smallest_b.csv       smallest B per seed and window kind
      figures/*.png, *.pdf the figures
      animation/baygo_seed0.gif (and .mp4 when an ffmpeg writer is available)

:func:`evaluate_claims` turns the numbers into the claims table: each claim's
verdict is computed from the table by a test stated in the report, never
written by hand.
"""

from __future__ import annotations

import json
import math
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from ._io import atomic_text

__all__ = [
    "CLAIM_KEYS",
    "Claim",
    "Reproduction",
    "evaluate_claims",
    "markdown_table",
    "reproduce",
    "run_figures",
    "run_influence",
]

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


@dataclass(frozen=True)
class Reproduction:
    """What :func:`reproduce` did.

    Attributes
    ----------
    out : pathlib.Path
        The output folder.
    files : dict of str to pathlib.Path
        Every file written, by role (``"report"``, ``"results"``, ``"figure:<name>:png"``...).
    claims : list of Claim
    summary : pandas.DataFrame
        :func:`baygo_graph.analysis.summarize` of the comparison.
    synthetic : bool
        True when the data were synthetic.
    timings : dict of str to float
        Wall time (s) of each stage and ``"total"``.
    notes : list of str
        Messages for the user (e.g. why no MP4 was written).
    """

    out: Path
    files: dict
    claims: list
    summary: pd.DataFrame = field(repr=False)
    synthetic: bool
    timings: dict
    notes: list = field(default_factory=list)


# -- claims --------------------------------------------------------------------
def _fmt(x, digits=4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if isinstance(x, int | np.integer):
        return str(int(x))
    return f"{x:.{digits}g}"


def _paired_claim(df, key, baseline, label, *, level, margin, noninferior=False, name=None):
    from .analysis import paired_difference

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
    from .analysis import final_mse

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
        The tidy table of :func:`baygo_graph.analysis.compare` (all six
        strategies for every claim to be evaluated).
    smallest_b : pandas.DataFrame, optional
        One row per BayGo seed and window kind, columns ``seed``, ``windows``
        (``"aligned"``/``"sliding"``) and ``smallest_b`` (NaN: no B works), as
        :func:`reproduce` builds it with
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
    >>> rows = [dict(strategy=s, seed=r, step=0, agent=a, informative=a == 0,
    ...              mse=1.0 + 0.1 * r if s == "baygo" else 2.0 + 0.3 * r)
    ...         for s in STRATEGIES for r in range(3) for a in range(2)]
    >>> claims = evaluate_claims(pd.DataFrame(rows))
    >>> [c.verdict for c in claims][:4]
    ['holds', 'holds', 'holds', 'holds']
    """
    from .analysis import summarize

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


# -- markdown ------------------------------------------------------------------
def markdown_table(frame, *, index=True, digits=4) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (no extra dependency).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1.23456, None]}, index=["x", "y"])))
    |  | a |
    | --- | --- |
    | x | 1.235 |
    | y | n/a |
    """
    cols = list(frame.columns)
    head = ([frame.index.name or ""] if index else []) + [str(c) for c in cols]

    def cell(v):
        if isinstance(v, float | np.floating):
            return _fmt(float(v), digits)
        if v is None:
            return "n/a"
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for idx, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        cells = ([str(idx)] if index else []) + [cell(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- measuring the emergent graphs ------------------------------------------------
@dataclass(frozen=True)
class _Measures:
    """What the analysis layer says about the BayGo runs (inputs of the figures)."""

    smallest_b: pd.DataFrame
    windows: object  # b_connectivity result of the showcase seed
    listen_counts: np.ndarray  # (M, M) summed over seeds
    fraction: np.ndarray  # (N, T)
    references: object
    union: object  # weight matrix of the showcase union window
    union_influence: np.ndarray | None
    union_span: tuple


def _measure_baygo(runs, seeds, *, window):
    """Connectivity, topology and influence of every BayGo run, via the analysis layer."""
    from . import analysis

    rows = []
    for r in range(seeds):
        run = runs[("baygo", r)]
        for kind in ("aligned", "sliding"):
            b = analysis.smallest_b(run, windows=kind)
            rows.append({"seed": r, "windows": kind, "smallest_b": np.nan if b is None else b})
    table = pd.DataFrame(rows)
    show = runs[("baygo", 0)]
    t = show.n_steps
    windows = analysis.b_connectivity(show, max(1, min(window, t)), windows="aligned")
    counts = sum(
        np.asarray(analysis.listen_counts(runs[("baygo", r)]), dtype=float) for r in range(seeds)
    )
    fraction = np.stack(
        [np.asarray(analysis.listener_fraction(runs[("baygo", r)]), float) for r in range(seeds)]
    )
    references = analysis.reference_influence(
        show.n_agents, informative=show.informative, delta=show.delta
    )
    start = max(0, t - window)
    union, union_influence = _union_and_influence(show, start, t)
    return _Measures(table, windows, counts, fraction, references, union, union_influence,
                     (start, t - 1))  # fmt: skip


# -- figures -----------------------------------------------------------------------
#: Figures written by :func:`reproduce`: file stem -> caption.
FIGURES = {
    "mse_vs_cen_nocol": "BayGo (informative and non-informative agents) vs the centralised "
    "learner Cen and no collaboration NoCol.",
    "mse_vs_complete": "BayGo vs the fixed complete graph.",
    "mse_vs_stars": "BayGo vs the star graphs PosM (informative agent at the centre) and "
    "NegM (a non-informative agent at the centre).",
    "mse_every_agent": "Every agent's test MSE under BayGo (mean over seeds): consensus.",
    "influence": "Influence of the informative agent under BayGo over time, with the "
    "PosM / NegM / complete-graph reference levels.",
    "listening_fraction": "Fraction of the other agents that listen to the informative agent "
    "at each step.",
    "listen_matrix": "Who listens to whom under BayGo, summed over steps and seeds.",
    "graph_union": "The emergent graph of one BayGo run: union of its last steps, arrow "
    "widths from the mean weights, node sizes from influence.",
    "window_connectivity": "Strongly connected components of the union graph of each aligned "
    "window (B = the influence window, 10 steps by default) of one BayGo run.",
    "smallest_b": "Smallest B for which each seed's BayGo graph series is B-strongly "
    "connected, aligned and sliding windows.",
}
#: Figures copied to the README gallery.
GALLERY = ("mse_vs_cen_nocol", "mse_vs_complete", "mse_vs_stars", "mse_every_agent",
           "influence", "graph_union")  # fmt: skip


def _make_figures(df, measures, *, synthetic, steps, agents):
    from . import figures as F

    made = {
        "mse_vs_cen_nocol": F.plot_vs_baselines(df),
        "mse_vs_complete": F.plot_vs_complete(df),
        "mse_vs_stars": F.plot_vs_stars(df),
        "mse_every_agent": F.plot_agents_mse(df, strategy="baygo"),
        "influence": F.plot_influence(df, references=measures.references),
        "listening_fraction": F.plot_listening_fraction(
            measures.fraction, chance=1.0 / (agents - 1), synthetic=synthetic
        ),
        "listen_matrix": F.plot_listen_matrix(measures.listen_counts, synthetic=synthetic),
        "graph_union": F.draw_graph(
            measures.union,
            influence=measures.union_influence,
            synthetic=synthetic,
            title=f"BayGo, seed 0: union of steps {measures.union_span[0]}.."
            f"{measures.union_span[1]}",
        ),
        "window_connectivity": F.plot_window_connectivity(measures.windows, synthetic=synthetic),
        "smallest_b": F.plot_smallest_b(
            measures.smallest_b, steps=steps, limit=steps // MIN_WINDOWS, synthetic=synthetic
        ),
    }
    return {name: ax.figure for name, ax in made.items()}


def _save_figures(figs, out: Path, *, gallery: Path | None, files: dict) -> None:
    import matplotlib.pyplot as plt

    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    for name, fig in figs.items():
        for ext in ("png", "pdf"):
            path = fig_dir / f"{name}.{ext}"
            fig.savefig(path, dpi=130, bbox_inches="tight")
            files[f"figure:{name}:{ext}"] = path
        if gallery is not None and name in GALLERY:
            gallery.mkdir(parents=True, exist_ok=True)
            path = gallery / f"{name}.png"
            fig.savefig(path, dpi=80, bbox_inches="tight")
            files[f"gallery:{name}"] = path
        plt.close(fig)


def _union_and_influence(run, start, stop):
    """Mean W of steps ``start .. stop-1`` (the union graph's weights) and its
    influence vector (None where it is not unique)."""
    from .analysis import influence, window_matrix

    union = window_matrix(run, start, stop, method="union")
    pi = np.asarray(influence(union, on_nonunique="nan"), dtype=float)
    return union, (None if np.isnan(pi).any() else pi)


def run_influence(run, *, window=10):
    """Per-step influence of one run as in :func:`~baygo_graph.analysis.compare`.

    The left Perron vector of the product of the weight matrices over the
    sliding window of ``window`` steps (at most T) ending at each step (NaN
    where not unique); None for the centralised learner.
    """
    if run.kind == "cen":
        return None
    from .analysis import influence_series

    window = min(int(window), run.n_steps)
    return np.asarray(
        influence_series(run, window=window, method="product", windows="sliding"), dtype=float
    )


def run_figures(run, *, window=10) -> dict:
    """The figures of one run (``baygo plot``): name -> matplotlib Figure.

    Every agent's MSE; for runs with a graph also the last step's graph, the
    union of the last ``window`` steps, the influence series with the
    reference levels, the per-window connectivity; for BayGo runs also who
    listens to whom and the informative agent's audience.
    """
    from . import analysis
    from . import figures as F

    syn = run.synthetic
    figs = {"mse_every_agent": F.plot_agents_mse(run).figure}
    if run.kind == "cen":
        return figs
    t, m = run.n_steps, run.n_agents
    infl = run_influence(run, window=window)
    refs = analysis.reference_influence(m, informative=run.informative, delta=run.delta)
    figs["graph_last_step"] = F.draw_graph(
        run.graph(t - 1), influence=infl[t - 1], synthetic=syn, title=f"step {t - 1}"
    ).figure
    start = max(0, t - window)
    union, u_infl = _union_and_influence(run, start, t)
    figs["graph_union"] = F.draw_graph(
        union, influence=u_infl, informative=run.informative, synthetic=syn,
        title=f"union of steps {start}..{t - 1}",
    ).figure  # fmt: skip
    figs["influence"] = F.plot_influence_series(
        infl, informative=run.informative, references=refs, synthetic=syn,
        title=f"Influence (product of W over sliding windows of {window} steps)",
    ).figure  # fmt: skip
    windows = analysis.b_connectivity(run, max(1, min(window, t)), windows="aligned")
    figs["window_connectivity"] = F.plot_window_connectivity(windows, synthetic=syn).figure
    if run.kind == "dynamic":
        figs["listen_matrix"] = F.plot_listen_matrix(
            analysis.listen_counts(run), informative=run.informative, synthetic=syn
        ).figure
        figs["listening_fraction"] = F.plot_listening_fraction(
            analysis.listener_fraction(run), chance=1.0 / (m - 1), synthetic=syn
        ).figure
    return figs


# -- writing -------------------------------------------------------------------------
def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if not np.isfinite(o) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON-serialisable: {type(o).__name__}")


def _clean(obj):
    """NaN/inf -> None, recursively, so the JSON is standard."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if isinstance(obj, float | np.floating):
        return float(obj) if np.isfinite(obj) else None
    return obj


def _claims_table(claims) -> str:
    frame = pd.DataFrame(
        {
            "claim": [c.claim for c in claims],
            "result": [f"**{c.verdict}**" for c in claims],
            "evidence": [c.evidence for c in claims],
        },
        index=pd.Index([c.key for c in claims], name="key"),
    )
    return markdown_table(frame)


def _summary_markdown(summary) -> str:
    """The summary table with intervals in one cell: ``mean [lo, hi]``."""

    def ci(col):
        return [
            f"{_fmt(m)} [{_fmt(lo)}, {_fmt(hi)}]"
            for m, lo, hi in zip(
                summary[col], summary[f"{col}_lo"], summary[f"{col}_hi"], strict=True
            )
        ]

    frame = pd.DataFrame(index=summary.index)
    frame["final MSE, informative agent"] = ci("final_mse_informative")
    frame["final MSE, non-informative (mean)"] = ci("final_mse_others")
    frame["steps to within 5% of Cen"] = summary["steps_to_cen"]
    frame["consensus step (median)"] = summary["consensus_step"]
    frame["seeds reaching consensus"] = [f"{v:.0%}" for v in summary["consensus_reached"]]
    frame["influence of informative agent (mean)"] = summary["influence_informative"]
    return markdown_table(frame)


def _report(
    *, claims, summary, measures, config, synthetic, data_source, timings, files, notes, out
) -> str:
    from .cli._common import synthetic_banner

    rel = {k: v.relative_to(out).as_posix() for k, v in files.items() if _inside(v, out)}
    lines = ["# BayGo paper reproduction", ""]
    if synthetic:
        lines += [
            "> **" + synthetic_banner(True) + "**",
            ">",
            "> Every number and figure below comes from the synthetic stand-in, not from "
            "the bodyfat data: the claims table says nothing about the paper.",
            "",
        ]
    lines += [
        f"- data: `{data_source}`" + (" (synthetic)" if synthetic else ""),
        f"- {config['seeds']} seeds x {len(STRATEGIES)} strategies "
        f"({', '.join(STRATEGIES)}), T = {config['steps']} steps, M = {config['agents']} "
        f"agents, grid {config['grid']} x {config['grid']}, root seed {config['rng']}",
        f"- wall time {timings['total']:.1f} s (runs {timings['compare']:.1f} s, analysis "
        f"{timings['analysis']:.1f} s, figures {timings['figures']:.1f} s, animation "
        f"{timings['animation']:.1f} s) on {config['machine']}",
        f"- baygo-graph {__version__}; command: `{config['command']}`",
        "",
        "## The paper's claims",
        "",
        "Each verdict is computed from the numbers of this run by the test below it; "
        "'d' is a per-seed paired difference BayGo - baseline of the final-step test "
        "MSE (mean over the non-informative agents), intervals are Student-t over seeds.",
        "",
        _claims_table(claims),
        "",
        "How each claim is tested:",
        "",
    ]
    lines += [f"- **{c.key}** ({c.verdict}): {c.test}" for c in claims]
    lines += [
        "",
        "## Summary per strategy",
        "",
        f"Final = step T-1 = {config['steps'] - 1}; `mean [lo, hi]`: mean over seeds and "
        "its 95% t-interval; MSE in standardised units; influence: the informative "
        "agent's share of the left Perron vector of the product of W over sliding "
        f"windows of {config['influence_window']} steps, mean over seeds and steps.",
        "",
        _summary_markdown(summary),
        "",
        "## Smallest B over seeds (BayGo)",
        "",
    ]
    b = measures.smallest_b
    desc = (
        b.groupby("windows")["smallest_b"]
        .agg(
            seeds="size",
            no_B=lambda s: int(s.isna().sum()),
            min="min",
            median="median",
            max="max",
        )
        .reindex(["aligned", "sliding"])
        .dropna(how="all")
    )
    lines += [markdown_table(desc), ""]
    lines += ["## Figures", ""]
    for name, caption in FIGURES.items():
        key = f"figure:{name}:png"
        if key in rel:
            pdf = rel.get(f"figure:{name}:pdf")
            lines += [f"### {name}", "", f"{caption}" + (f" ([PDF]({pdf}))" if pdf else ""),
                      "", f"![{name}]({rel[key]})", ""]  # fmt: skip
    anims = [k for k in rel if k.startswith("animation:")]
    if anims:
        lines += ["## Animation", ""]
        lines += [f"- [{rel[k]}]({rel[k]})" for k in sorted(anims)]
        lines += [""]
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    lines += ["## Files", ""]
    lines += [f"- `{rel[k]}`" for k in sorted(rel) if not k.startswith("figure:")]
    return "\n".join(lines) + "\n"


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


# -- the pipeline --------------------------------------------------------------------
def reproduce(
    out,
    *,
    seeds: int = 20,
    steps: int = 60,
    data=None,
    n_jobs: int | None = None,
    rng: int = 0,
    agents: int = 12,
    grid: int = 61,
    influence_window: int = 10,
    gallery=None,
    video: bool = True,
    progress: bool | None = None,
    log=None,
    command: str = "reproduce(...)",
) -> Reproduction:
    """Run the paper experiment and write figures, tables and a report into ``out``.

    Parameters
    ----------
    out : str or os.PathLike
        Output folder (created; files in it are overwritten).
    seeds : int, default 20
        Replicates per strategy.
    steps : int, default 60
        Steps T per run.
    data : str, os.PathLike, DataFrame, Dataset or None
        The bodyfat data; None: ``$BAYGO_BODYFAT``, else synthetic (labelled).
    n_jobs : int, optional
        Worker processes of :func:`~baygo_graph.analysis.compare` (None: all cores).
    rng : int, default 0
        Root seed of the replicates.
    agents : int, default 12
    grid : int, default 61
        Grid points per axis (small values only for quick checks).
    influence_window : int, default 10
        Window of the influence series (and of the drawn union graph).
    gallery : str or os.PathLike, optional
        Also write small PNGs of :data:`GALLERY` there (the README's gallery).
    video : bool, default True
        Also write an MP4 of the animation when an ffmpeg writer is available.
    progress : bool, optional
        Progress bar of the runs (default: when stderr is a terminal).
    log : callable, optional
        Called with one line of text per stage (the CLI passes ``click.echo``).
    command : str
        The command line recorded in the report.

    Returns
    -------
    Reproduction
    """
    from .analysis import compare, summarize
    from .figures import animate_run, ffmpeg_path, save_animation

    log = log or (lambda msg: None)
    t_start = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    gallery = None if gallery is None else Path(gallery)
    timings, files, notes = {}, {}, []

    influence_window = min(int(influence_window), int(steps))
    log(f"running {len(STRATEGIES)} strategies x {seeds} seeds, {steps} steps ...")
    t0 = time.perf_counter()
    df, runs = compare(
        STRATEGIES,
        seeds=seeds,
        steps=steps,
        rng=rng,
        n_jobs=n_jobs,
        progress=progress,
        return_runs=True,
        influence_window=influence_window,
        data=data,
        agents=agents,
        grid=grid,
    )
    timings["compare"] = time.perf_counter() - t0
    synthetic = bool(df.attrs.get("synthetic", False))
    data_source = str(df.attrs.get("data_source", "unknown"))

    log("measuring the emergent graphs ...")
    t0 = time.perf_counter()
    summary = summarize(df)
    measures = _measure_baygo(runs, seeds, window=influence_window)
    claims = evaluate_claims(df, smallest_b=measures.smallest_b, summary=summary)
    timings["analysis"] = time.perf_counter() - t0

    log("drawing the figures ...")
    t0 = time.perf_counter()
    figs = _make_figures(df, measures, synthetic=synthetic, steps=steps, agents=agents)
    _save_figures(figs, out, gallery=gallery, files=files)
    timings["figures"] = time.perf_counter() - t0

    log("animating BayGo seed 0 ...")
    t0 = time.perf_counter()
    show = runs[("baygo", 0)]
    infl = (
        df[(df["strategy"] == "baygo") & (df["seed"] == 0)]
        .pivot(index="step", columns="agent", values="influence")
        .to_numpy()
    )
    anim = animate_run(show, influence=infl)
    anim_dir = out / "animation"
    files["animation:gif"] = save_animation(anim, anim_dir / "baygo_seed0.gif")
    if video:
        if ffmpeg_path() is None:
            from .figures.animation import VIDEO_HINT

            notes.append(f"no MP4 written: {VIDEO_HINT}")
        else:
            files["animation:mp4"] = save_animation(anim, anim_dir / "baygo_seed0.mp4")
    import matplotlib.pyplot as plt

    plt.close(anim.figure)
    timings["animation"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    files["results"] = out / "results.csv"
    df.to_csv(files["results"], index=False, float_format="%.6g")
    files["smallest_b"] = out / "smallest_b.csv"
    measures.smallest_b.to_csv(files["smallest_b"], index=False)
    timings["write"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - t_start

    config = {
        "seeds": seeds,
        "steps": steps,
        "agents": agents,
        "grid": grid,
        "rng": rng,
        "n_jobs": n_jobs,
        "influence_window": influence_window,
        "data": data_source,
        "synthetic": synthetic,
        "version": __version__,
        "machine": f"{platform.machine()}, {_cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "command": command,
    }
    files["summary_md"] = atomic_text(
        out / "summary.md",
        ("**SYNTHETIC DATA**\n\n" if synthetic else "")
        + _summary_markdown(summary)
        + "\n\n"
        + _claims_table(claims)
        + "\n",
    )
    payload = {
        "config": config,
        "summary": summary.reset_index().to_dict(orient="records"),
        "claims": [asdict(c) | {"verdict": c.verdict} for c in claims],
        "smallest_b": measures.smallest_b.to_dict(orient="records"),
        "timings_s": timings,
    }
    files["summary_json"] = out / "summary.json"
    atomic_text(files["summary_json"], json.dumps(_clean(payload), indent=2, default=_json_default))
    files["report"] = out / "report.md"
    atomic_text(
        files["report"],
        _report(
            claims=claims,
            summary=summary,
            measures=measures,
            config=config,
            synthetic=synthetic,
            data_source=data_source,
            timings=timings,
            files=files,
            notes=notes,
            out=out,
        ),
    )
    return Reproduction(
        out=out,
        files=files,
        claims=claims,
        summary=summary,
        synthetic=synthetic,
        timings=timings,
        notes=notes,
    )


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
