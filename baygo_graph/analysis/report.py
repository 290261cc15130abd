"""A one-call report of a graph series: what ``baygo analyze`` prints."""

from __future__ import annotations

import numpy as np

from .._format import json_number
from .._text import short_repr
from ..inputs import series_input
from .centrality import (
    influence_rank,
    influence_series,
    nonunique_windows,
    reference_influence,
)
from .connectivity import (
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


#: How many nodes the report lists by influence (the rest are counted).
TOP_NODES = 5


def _label(node):
    return node if isinstance(node, int | str) else str(node)


def _top(nodes, values, k: int = TOP_NODES) -> list:
    """``[[label, value], ...]`` of the ``k`` largest values (ties by node order)."""
    v = np.asarray(values, dtype=float)
    order = np.argsort(-v, kind="stable")[:k]
    return [[_label(nodes[i]), float(v[i])] for i in order.tolist()]


@series_input
def analysis_report(source, *, window: int | None = None, focus=None, stride: int = 1) -> dict:
    """Connectivity, influence and audience of a graph series, as a JSON-serialisable dict.

    What ``baygo analyze`` prints. Nodes are named by their labels
    (``series.nodes``); no value is left undefined without a reason.

    Parameters
    ----------
    source : Run, GraphSeries or anything :func:`~baygo_graph.inputs.as_series` takes
    window : int, optional
        Window length for the per-window summary and the influence series
        (default ``min(10, T)``).
    focus : node label, optional
        Follow this node (its influence, rank and audience) under the key
        ``"focus"``. Default: the informative agent when the series marks one
        (keys ``"informative"``...), else no node is followed.
    stride : int, default 1
        Influence of every ``stride``-th sliding window only (the counts of
        windows are then of those computed; ``"stride"`` in each method's entry).

    Notes
    -----
    Per influence method, ``"undefined"`` gives the number of windows without a
    unique influence, its reason (the counts of closed classes) and the
    alternative: the mean :func:`~baygo_graph.analysis.damped_influence`
    (PageRank-style, damping 0.85) of those windows, its top nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> s = analysis_report([ring] * 4, window=2)
    >>> s["smallest_b"], s["windows"]["aligned"]["strongly_connected"]
    ({'aligned': 1, 'sliding': 1}, 2)
    >>> pairs = nx.DiGraph([("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")])
    >>> r = analysis_report([pairs] * 3, window=1)["influence"]["union"]
    >>> r["defined_windows"], r["undefined"]["windows"], r["undefined"]["closed_classes"]
    (0, 3, {'2': 3})
    """
    s = source
    T, m = s.n_steps, s.n_agents
    window = min(DEFAULT_WINDOW, T) if window is None else window
    if not 1 <= window <= T:
        raise ValueError(f"window must be in [1, {T}] (the number of steps), got {window}")
    ttc = time_to_connectivity(s)  # computed once: smallest B of both kinds reuse it
    coverage = {k: smallest_b(s, windows=k, ttc=ttc, coverage=True) for k in ("aligned", "sliding")}
    out = {
        "steps": T,
        "agents": m,
        "nodes": [_label(n) for n in s.nodes],
        "informative": s.informative,
        "synthetic": s.synthetic,
        "window": window,
        "smallest_b": {k: c.B for k, c in coverage.items()},
        # what each B checked: windows, steps, the tail
        "smallest_b_coverage": {k: c.as_dict() for k, c in coverage.items()},
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
    nodes = s.nodes
    if focus is not None:
        index = {v: k for k, v in enumerate(nodes)}
        if focus not in index:
            near = [v for v in nodes if str(v) == str(focus)]
            if len(near) != 1:
                raise ValueError(f"focus={short_repr(focus)} is not a node of the series")
            focus = near[0]
        agent, key = index[focus], "focus"
        out["focus"] = _label(focus)
    else:
        agent, key = s.informative, "informative"
    out["informative"] = s.informative
    for method in ("product", "union"):
        inf = influence_series(s, window=window, method=method, windows="sliding", stride=stride)
        computed = np.arange(window - 1, T)[::stride]
        defined = np.zeros(T, dtype=bool)
        defined[computed] = ~np.isnan(inf[computed]).any(axis=1)
        n_win = len(computed)
        entry = {"defined_windows": int(defined.sum()), "windows": n_win}
        if stride > 1:
            entry["stride"] = stride
        if defined.any():
            mean_vec = inf[defined].mean(axis=0)
            entry["mean"] = [json_number(v) for v in mean_vec]
            entry["top_agent"] = _label(nodes[int(np.argmax(mean_vec))])
            entry["top"] = _top(nodes, mean_vec)
        else:
            entry["mean"] = None
            entry["top_agent"] = None
            entry["top"] = []
        if entry["defined_windows"] < n_win:
            gaps = nonunique_windows(s, window=window, method=method, ends=computed)
            values, counts = np.unique(gaps.n_classes, return_counts=True)
            damped = gaps.damped.mean(axis=0)
            entry["undefined"] = {
                "windows": len(gaps.ends),
                "reason": gaps.reason(),
                "closed_classes": {
                    str(v): int(c) for v, c in zip(values.tolist(), counts.tolist(), strict=True)
                },
                "alternative": {
                    "name": "damped influence (PageRank-style)",
                    "damping": gaps.damping,
                    "windows": len(gaps.damped_ends),
                    "top": _top(nodes, damped),
                },
            }
            if agent is not None:
                entry["undefined"]["alternative"][key] = float(damped[agent])
        if agent is not None:
            rank = influence_rank(inf, agent)
            entry[key] = _stats(inf[:, agent])
            entry[key]["last"] = json_number(inf[-1, agent])
            entry[f"{key}_rank"] = _stats(rank)
        out["influence"][method] = entry
    if agent is not None:
        frac = listener_fraction(s, agent=agent)
        counts = chosen_counts(s)
        out[f"listening_to_{key}"] = {
            "mean": float(frac.mean()),
            "first": float(frac[0]),
            "last": float(frac[-1]),
            "max": float(frac.max()),
            "chosen_share": float(counts[agent] / max(counts.sum(), 1)),
        }
        delta = 0.5 if s.delta is None else s.delta
        if key == "informative" and m >= 2 and delta < 1.0:
            # delta = 1: nobody listens, no reference is unique
            out["references"] = reference_influence(m, informative=agent, delta=delta)
    return out
