"""``baygo analyze``: connectivity and influence report for a saved run or a graph series."""

from __future__ import annotations

import math
from pathlib import Path

import click
import numpy as np

from ..exceptions import RunFormatError
from ._common import emit, synthetic_banner

__all__ = ["analyze", "analyze_summary"]

SERIES_SUFFIXES = (".json", ".graphml")
DEFAULT_WINDOW = 10


def _load(path: Path):
    """A Run (folder or .npz) or a list of digraphs (.json / .graphml)."""
    from ..run import Run, read_series

    if path.suffix in SERIES_SUFFIXES:
        return read_series(path)
    return Run.load(path)


def _num(x):
    """JSON-safe number: NaN -> None, numpy scalars -> Python."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _stats(values) -> dict:
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) == 0:
        return {"mean": None, "median": None, "min": None, "max": None, "n": 0}
    return {
        "mean": float(v.mean()),
        "median": float(np.median(v)),
        "min": float(v.min()),
        "max": float(v.max()),
        "n": len(v),
    }


def analyze_summary(source, *, window: int | None = None) -> dict:
    """The report of ``baygo analyze`` as a JSON-serialisable dict.

    Parameters
    ----------
    source : Run or sequence of networkx.DiGraph
    window : int, optional
        Window length for the per-window summary and the influence series
        (default ``min(10, T)``).

    Examples
    --------
    >>> import networkx as nx
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> s = analyze_summary([ring] * 4, window=2)
    >>> s["smallest_b"], s["windows"]["aligned"]["strongly_connected"]
    ({'aligned': 1, 'sliding': 1}, 2)
    """
    from ..analysis import (
        as_series,
        b_connectivity,
        chosen_counts,
        influence_rank,
        influence_series,
        listener_fraction,
        reference_influence,
        smallest_b,
        strongly_connected_steps,
        time_to_connectivity,
    )

    s = as_series(source)
    T, m = s.n_steps, s.n_agents
    window = min(DEFAULT_WINDOW, T) if window is None else window
    if not 1 <= window <= T:
        raise ValueError(f"--window must be in [1, {T}] (the number of steps), got {window}")
    ttc = time_to_connectivity(s)
    out = {
        "steps": T,
        "agents": m,
        "nodes": [n if isinstance(n, int | str) else str(n) for n in s.nodes],
        "informative": s.informative,
        "synthetic": s.synthetic,
        "window": window,
        "smallest_b": {
            "aligned": smallest_b(s, windows="aligned"),
            "sliding": smallest_b(s, windows="sliding"),
        },
        "step_strongly_connected_fraction": float(strongly_connected_steps(s).mean()),
        "time_to_connectivity": {
            "reached_fraction": float((ttc > 0).mean()),
            **{k: v for k, v in _stats(np.where(ttc > 0, ttc, np.nan)).items() if k != "n"},
        },
        "windows": {},
        "influence": {},
    }
    for kind in ("aligned", "sliding"):
        r = b_connectivity(s, window, windows=kind)
        out["windows"][kind] = {
            "n_windows": r.n_windows,
            "strongly_connected": int(r.strongly_connected.sum()),
            "first_failure": r.first_failure,
            "first_failure_steps": None
            if r.first_failure is None
            else [int(r.start[r.first_failure]), int(r.stop[r.first_failure]) - 1],
            "holds": r.holds,
            "components": {k: v for k, v in _stats(r.n_components).items() if k != "n"},
        }
    agent = s.informative
    for method in ("product", "union"):
        inf = influence_series(s, window=window, method=method)
        defined = ~np.isnan(inf).any(axis=1)
        entry = {"defined_windows": int(defined.sum()), "windows": int(T - window + 1)}
        mean_vec = inf[defined].mean(axis=0) if defined.any() else np.full(m, np.nan)
        entry["mean"] = [_num(v) for v in mean_vec]
        entry["top_agent"] = int(np.nanargmax(mean_vec)) if defined.any() else None
        if agent is not None:
            rank = influence_rank(inf, agent)
            entry["informative"] = _stats(inf[:, agent])
            entry["informative"]["last"] = _num(inf[-1, agent])
            entry["informative_rank"] = _stats(rank)
        out["influence"][method] = entry
    if agent is not None:
        frac = listener_fraction(s, agent=agent)
        counts = chosen_counts(s)
        out["listening_to_informative"] = {
            "mean": float(frac.mean()),
            "first": float(frac[0]),
            "last": float(frac[-1]),
            "max": float(frac.max()),
            "chosen_share": float(counts[agent] / max(counts.sum(), 1)),
        }
        if m >= 2:
            delta = 0.5 if s.delta is None else s.delta
            out["references"] = reference_influence(m, informative=agent, delta=delta)
    return out


def _fmt(x, spec=".3f"):
    return "n/a" if x is None else format(x, spec)


def _text(summary: dict, label: str) -> str:
    s = summary
    b = s["smallest_b"]
    lines = [banner for banner in [synthetic_banner(s["synthetic"])] if banner]
    inf_agent = s["informative"]
    lines.append(
        f"{label}: {s['steps']} steps, {s['agents']} agents, informative agent: "
        f"{'not marked' if inf_agent is None else s['nodes'][inf_agent]}"
    )
    lines.append(
        "smallest B (B-strong connectivity): aligned "
        f"{b['aligned'] if b['aligned'] is not None else 'none'}, sliding "
        f"{b['sliding'] if b['sliding'] is not None else 'none'}"
        + ("  (no window length up to T works)" if b["sliding"] is None else "")
    )
    ttc = s["time_to_connectivity"]
    lines.append(
        f"single steps strongly connected: {s['step_strongly_connected_fraction']:.0%}; "
        f"time to strong connectivity from a start step: median {_fmt(ttc['median'], '.0f')}, "
        f"max {_fmt(ttc['max'], '.0f')} steps ({ttc['reached_fraction']:.0%} of starts reach it)"
    )
    w = s["window"]
    for kind, r in s["windows"].items():
        fail = (
            "none"
            if r["first_failure"] is None
            else f"window {r['first_failure']} (steps {r['first_failure_steps'][0]}"
            f"..{r['first_failure_steps'][1]})"
        )
        lines.append(
            f"{kind} windows of {w}: {r['strongly_connected']}/{r['n_windows']} strongly "
            f"connected, first failure {fail}, components median "
            f"{_fmt(r['components']['median'], '.0f')} max {_fmt(r['components']['max'], '.0f')}"
        )
    for method, r in s["influence"].items():
        head = (
            f"influence ({method} of {w}-step sliding windows; unique in "
            f"{r['defined_windows']}/{r['windows']})"
        )
        if "informative" in r:
            i, k = r["informative"], r["informative_rank"]
            lines.append(
                f"{head}: informative agent mean {_fmt(i['mean'])} "
                f"[{_fmt(i['min'])}, {_fmt(i['max'])}], last {_fmt(i['last'])}, "
                f"mean rank {_fmt(k['mean'], '.1f')} of {s['agents']}"
            )
        else:
            lines.append(f"{head}: most influential on average: agent {r['top_agent']}")
    if "listening_to_informative" in s:
        f = s["listening_to_informative"]
        lines.append(
            f"fraction of the other agents listening to the informative agent: mean "
            f"{f['mean']:.2f} (first step {f['first']:.2f}, last {f['last']:.2f}, "
            f"max {f['max']:.2f}); share of all choices {f['chosen_share']:.2f}"
        )
    if "references" in s:
        r = s["references"]
        lines.append(
            "reference influence of the informative agent: PosM "
            f"{r['posm']:.3f}, NegM {r['negm']:.3f}, complete {r['complete']:.3f}"
        )
    return "\n".join(lines)


@click.command()
@click.argument("run_dir", metavar="RUN_DIR", type=click.Path(path_type=Path))
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window length for per-window connectivity and influence "
    f"(default min({DEFAULT_WINDOW}, T)).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def analyze(run_dir, window, as_json):
    """Connectivity and influence report for RUN_DIR.

    RUN_DIR is a run folder or .npz written by `baygo run --out`, or a graph
    series (.json node-link or .graphml) written by write_series or elsewhere.
    Reports the smallest B for aligned and sliding windows, a per-window
    summary, the informative agent's influence (window product and union) and
    the fraction of agents listening to it.
    """
    try:
        source = _load(run_dir)
        summary = analyze_summary(source, window=window)
    except (RunFormatError, ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    summary["source"] = str(run_dir)
    label = str(run_dir)
    if not isinstance(source, list):
        summary |= {"strategy": source.strategy, "data": source.data_source}
        label = f"{source.strategy} run {run_dir} (data {source.data_source})"
    emit(summary, as_json=as_json, text=_text(summary, label))
