"""A one-call report of a graph series: what ``baygo analyze`` prints."""

from __future__ import annotations

import numpy as np

from .._format import json_number
from .centrality import influence_rank, influence_series, reference_influence
from .connectivity import (
    as_series,
    b_connectivity,
    smallest_b,
    time_to_connectivity,
)
from .table import ANALYSIS_MEASURES, analysis_table, summarize_analysis
from .topology import chosen_counts, listener_fraction

# The across-run table (table.py) is exported with the single-run report.
__all__ = ["ANALYSIS_MEASURES", "analysis_report", "analysis_table", "summarize_analysis"]

#: Default window length (steps), cut to T for shorter series.
DEFAULT_WINDOW = 10


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


def analysis_report(source, *, window: int | None = None) -> dict:
    """Connectivity, influence and audience of a graph series, as a JSON-serialisable dict.

    What ``baygo analyze`` prints.

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
    >>> s = analysis_report([ring] * 4, window=2)
    >>> s["smallest_b"], s["windows"]["aligned"]["strongly_connected"]
    ({'aligned': 1, 'sliding': 1}, 2)
    """
    s = as_series(source)
    T, m = s.n_steps, s.n_agents
    window = min(DEFAULT_WINDOW, T) if window is None else window
    if not 1 <= window <= T:
        raise ValueError(f"window must be in [1, {T}] (the number of steps), got {window}")
    ttc = time_to_connectivity(s)  # computed once: smallest B of both kinds reuse it
    out = {
        "steps": T,
        "agents": m,
        "nodes": [n if isinstance(n, int | str) else str(n) for n in s.nodes],
        "informative": s.informative,
        "synthetic": s.synthetic,
        "window": window,
        "smallest_b": {
            "aligned": smallest_b(s, windows="aligned", ttc=ttc),
            "sliding": smallest_b(s, windows="sliding", ttc=ttc),
        },
        # step t alone is strongly connected iff its time to connectivity is 1
        "step_strongly_connected_fraction": float((ttc == 1).mean()),
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
        inf = influence_series(s, window=window, method=method, windows="sliding")
        defined = ~np.isnan(inf).any(axis=1)
        entry = {"defined_windows": int(defined.sum()), "windows": int(T - window + 1)}
        mean_vec = inf[defined].mean(axis=0) if defined.any() else np.full(m, np.nan)
        entry["mean"] = [json_number(v) for v in mean_vec]
        entry["top_agent"] = int(np.nanargmax(mean_vec)) if defined.any() else None
        if agent is not None:
            rank = influence_rank(inf, agent)
            entry["informative"] = _stats(inf[:, agent])
            entry["informative"]["last"] = json_number(inf[-1, agent])
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
        delta = 0.5 if s.delta is None else s.delta
        if m >= 2 and delta < 1.0:  # delta = 1: nobody listens, no reference is unique
            out["references"] = reference_influence(m, informative=agent, delta=delta)
    return out
