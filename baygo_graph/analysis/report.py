"""A one-call report of a graph series: the object ``baygo analyze`` renders."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._format import json_number
from .._text import short_repr
from .._validate import check_int
from ..inputs import series_input
from ..limits import check_analysis_budget
from .centrality import (
    InfluenceSeries,
    NonUniqueWindows,
    influence_bytes,
    influence_order,
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
__all__ = [
    "ANALYSIS_MEASURES",
    "AnalysisReport",
    "analysis_report",
    "analysis_table",
    "summarize_analysis",
]

#: Default window length (steps), cut to T for shorter series.
DEFAULT_WINDOW = 10

#: How many nodes the report lists by influence (the rest are counted).
TOP_NODES = 5

#: Influence at or below this counts as none (a node outside every closed class).
_ZERO = 1e-12


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


def _ties(influence, agent: int, tol: float = 1e-12) -> dict:
    """How the followed node's rank is shared (competition ranking: tied nodes share the
    better rank): ``tied``, the share of the defined windows in which another node has
    its influence (within ``tol``); ``tied_with``, the mean number of such nodes;
    ``zero_windows``, the windows in which its influence is 0 (a node nobody hears ranks
    with every other such node)."""
    x = np.asarray(influence, dtype=float)
    x = x[np.isfinite(x).all(axis=1)]
    if not len(x):
        return {"tied": None, "tied_with": None, "zero_windows": 0}
    others = (np.abs(x - x[:, [agent]]) <= tol).sum(axis=1) - 1
    return {"tied": float((others > 0).mean()), "tied_with": float(others.mean()),
            "zero_windows": int((np.abs(x[:, agent]) <= tol).sum())}  # fmt: skip


def _label(node):
    return node if isinstance(node, int | str) else str(node)


def _top(nodes, values, k: int = TOP_NODES) -> list:
    """``[[label, value], ...]`` of the ``k`` largest positive values, values within
    ``_ZERO`` tied and listed in node order (:func:`influence_order`: rounding noise
    never names the top node): a node with no influence is never listed as influential."""
    v = np.asarray(values, dtype=float)
    order = influence_order(v, tol=_ZERO)[:k]
    return [[_label(nodes[i]), float(v[i])] for i in order.tolist() if v[i] > _ZERO]


@dataclass(frozen=True, eq=False)
class AnalysisReport:
    """Connectivity, influence and audience of one graph series (:func:`analysis_report`).

    Every teller renders this object: ``baygo analyze`` prints it (text through
    :mod:`baygo_graph._render`; ``--json`` is :meth:`as_dict`).

    Attributes
    ----------
    steps, agents : int
    nodes : tuple
        Node labels (array order).
    informative : int or None
        Index of the informative agent marked in the series.
    synthetic : bool
    window : int
        Window length of the per-window summary and the influence.
    stride : int
        The influence was computed on one sliding window in ``stride`` only, counted
        back from the last (so the last window is always among them).
    self_weight : str, float or None
        The series' self-weight rule (None: weights as stored, e.g. a run's).
    delta : float or None
        A run's pooling self-weight (a choice series), else None.
    smallest_b : dict
        ``{"aligned": BCoverage, "sliding": BCoverage}``.
    ttc : numpy.ndarray of int, shape (T,)
        :func:`~baygo_graph.analysis.time_to_connectivity`.
    windows : dict
        ``{"aligned": BConnectivity, "sliding": BConnectivity}`` at ``window``.
    influence : dict
        ``{"product": InfluenceSeries, "union": InfluenceSeries}`` (sliding windows).
    undefined : dict
        Per method, :class:`~baygo_graph.analysis.NonUniqueWindows` of the windows
        without a unique influence (taken from ``influence``, nothing recounted),
        or None when every window has one.
    followed : int or None
        Index of the node followed: ``focus`` when given, else the informative agent.
    focus : node label or None
        The ``focus`` node asked for (None: the informative agent, if any, is followed).
    listening : numpy.ndarray or None, shape (T,)
        Fraction of the other nodes listening to the followed node at each step.
    chosen_share : float or None
        The followed node's share of all choices.
    references : dict or None
        :func:`~baygo_graph.analysis.reference_influence` of the informative agent.
    time_axis : baygo_graph.io.times.TimeAxis or None
        The series' time axis (when each step starts; None: steps only): the JSON's
        ``time_axis`` and each window's ``first_failure_times``, the text's same words.
    """

    steps: int
    agents: int
    nodes: tuple = field(repr=False)
    informative: int | None
    synthetic: bool
    window: int
    stride: int
    self_weight: object
    delta: float | None
    smallest_b: dict = field(repr=False)
    ttc: np.ndarray = field(repr=False)
    windows: dict = field(repr=False)
    influence: dict = field(repr=False)
    undefined: dict = field(repr=False)
    followed: int | None = None
    focus: object = None
    listening: np.ndarray | None = field(default=None, repr=False)
    chosen_share: float | None = None
    references: dict | None = field(default=None, repr=False)
    time_axis: object = field(default=None, repr=False)

    @property
    def followed_key(self) -> str:
        """``"focus"`` or ``"informative"``: the JSON key of the followed node."""
        return "focus" if self.focus is not None else "informative"

    def mean_influence(self, method: str) -> np.ndarray | None:
        """Mean influence over the windows with a unique one (None: no such window)."""
        r = self.influence[method]
        return r.values[r.defined].mean(axis=0) if r.defined.any() else None

    def _covered_times(self, cov) -> dict:
        """The steps a smallest B covers, and its tail, in the times' own words (None
        without a time axis, or where there are none)."""
        axis, end = self.time_axis, cov.steps_covered + (cov.tail_length or 0) - 1
        return {
            "covered_times": axis.span(0, cov.steps_covered - 1)
            if axis and cov.steps_covered else None,
            "tail_times": axis.span(cov.steps_covered, end) if axis and cov.tail_length else None,
        }  # fmt: skip

    def as_dict(self) -> dict:
        """The report as JSON-ready data (what ``baygo analyze --json`` prints): the
        fields above, no prose; undefined values carry their reason codes."""
        nodes, key, agent = self.nodes, self.followed_key, self.followed
        ttc = self.ttc
        out = {
            "steps": self.steps,
            "agents": self.agents,
            "nodes": [_label(n) for n in nodes],
            "informative": self.informative,
            "synthetic": self.synthetic,
            "window": self.window,
            "self_weight": self.self_weight,
            "delta": self.delta,
            "smallest_b": {k: c.B for k, c in self.smallest_b.items()},
            "smallest_b_coverage": {
                k: c.as_dict() | self._covered_times(c) for k, c in self.smallest_b.items()
            },
            # step t alone is strongly connected iff its time to connectivity is 1
            "step_strongly_connected_fraction": float((ttc == 1).mean()),
            "time_to_connectivity": {
                "reached_fraction": float((ttc > 0).mean()),
                **{k: v for k, v in _stats(np.where(ttc > 0, ttc, np.nan)).items() if k != "n"},
            },
            "time_axis": None if self.time_axis is None else self.time_axis.as_dict(),
            "windows": {},
            "influence": {},
        }
        for kind, r in self.windows.items():
            fail = r.first_failure
            out["windows"][kind] = {
                "n_windows": r.n_windows,
                "strongly_connected": int(r.strongly_connected.sum()),
                "first_failure": r.first_failure,
                "first_failure_steps": None
                if r.first_failure is None
                else [int(r.start[r.first_failure]), int(r.stop[r.first_failure]) - 1],
                # the first failure's steps in the times' own words (TimeAxis.span)
                "first_failure_times": None
                if fail is None or self.time_axis is None
                else self.time_axis.span(int(r.start[fail]), int(r.stop[fail]) - 1),
                "holds": r.holds,
                "components": {k: v for k, v in _stats(r.n_components).items() if k != "n"},
            }
        if self.focus is not None:
            out["focus"] = _label(self.focus)
        for method, r in self.influence.items():
            ends = r.ends
            entry = {"defined_windows": int(r.defined.sum()), "windows": len(ends)}
            if self.stride > 1:
                entry["stride"] = self.stride
            mean_vec = self.mean_influence(method)
            if mean_vec is not None:
                positive = mean_vec > _ZERO
                entry["mean"] = [json_number(v) for v in mean_vec]
                entry["top"] = _top(nodes, mean_vec)
                entry["top_agent"] = entry["top"][0][0]
                # the nodes that share the top value (within _ZERO): top_agent is the
                # first of them in node order, not the one rounding put first
                entry["top_tied"] = int((np.abs(mean_vec - mean_vec.max()) <= _ZERO).sum())
                # nodes outside every closed class get 0: say how many hold it all
                entry["positive_nodes"] = int(positive.sum())
            else:
                entry |= {"mean": None, "top_agent": None, "top": [], "top_tied": 0,
                          "positive_nodes": 0}  # fmt: skip
            gaps = self.undefined.get(method)
            if gaps is not None and len(gaps.ends):
                values, counts = np.unique(gaps.n_classes, return_counts=True)
                damped = gaps.damped.mean(axis=0)
                entry["undefined"] = {
                    "windows": len(gaps.ends),
                    "closed_classes": {
                        str(v): int(c)
                        for v, c in zip(values.tolist(), counts.tolist(), strict=True)
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
                rank = influence_rank(r.values, agent).astype(float)
                entry[key] = _stats(r.values[:, agent])
                entry[key]["last"] = json_number(r.values[-1, agent])
                # a window where the node has no influence gives it no rank (it would
                # share the rank after the others' with every node nobody hears): every
                # teller reads the same ranks, zero_windows says how many have none
                rank[np.abs(r.values[:, agent]) <= _ZERO] = np.nan
                entry[f"{key}_rank"] = _stats(rank) | _ties(r.values, agent)
            out["influence"][method] = entry
        if agent is not None and self.listening is not None:
            frac = self.listening
            out[f"listening_to_{key}"] = {
                "mean": float(frac.mean()),
                "first": float(frac[0]),
                "last": float(frac[-1]),
                "max": float(frac.max()),
                "chosen_share": self.chosen_share,
            }
        if self.references is not None:
            out["references"] = self.references
        return out

    def __getitem__(self, key):
        warnings.warn(
            "analysis_report returns an AnalysisReport; indexing it as a dict stops working "
            "in 0.3: use report.as_dict()[...] or its attributes",
            FutureWarning,
            stacklevel=2,
        )
        return self.as_dict()[key]

    def __contains__(self, key) -> bool:
        return key in self.as_dict()


def analysis_stage_bytes(series, window: int, stride: int = 1) -> int:
    """The largest work of :func:`analysis_report` besides the arrays it keeps
    (:func:`~baygo_graph.limits.check_analysis_budget`'s ``stage``): the larger
    influence's work beside its own (T, M) result, of the sliding windows computed; each
    method's damped vectors of its undefined windows (at most 100,
    :func:`~baygo_graph.analysis.nonunique_windows`) and the report's small arrays. With
    the check's per-step terms: 1.1-1.7x of the report's tracemalloc peak over rings of
    10^4 and 10^5 nodes, a 2 x 10^5-leaf star, random contacts among 5,000 nodes and
    2-node spans of 10^5 steps (``benchmarks/bench_estimates.py``; hostile19 X3: 3.7x).

    Examples
    --------
    >>> from baygo_graph import Run
    >>> analysis_stage_bytes(Run.from_choices([[1, 0]] * 4).series, 2) > 0
    True
    """
    s = series
    t, m = s.n_steps, s.n_agents
    ends = -(-(t - window + 1) // stride)  # the sliding windows computed
    stage = max(0, influence_bytes(s, window, ends=ends) - 8 * t * m)
    return stage + 16 * min(100, ends) * m + (1 << 20)


def _focus_agent(focus, nodes) -> int:
    """The agent ``focus`` names: the node of that value and type (a NumPy scalar as the
    Python value it holds), else the one node whose text is ``focus``'s (``"1"`` from a
    command line for the node 1); a bool names no node unless the labels are bools
    (True == 1: focus=True followed node 1)."""
    plain = focus.item() if isinstance(focus, np.generic) else focus
    if isinstance(plain, bool) and not any(type(v) is bool for v in nodes):
        raise TypeError(f"focus must be a node label, got a bool {short_repr(focus)}")
    index = {v: k for k, v in enumerate(nodes)}
    try:
        k = index.get(plain)
    except TypeError:  # an unhashable focus (a list)
        k = None
    if k is not None and type(nodes[k]) is type(plain):
        return k
    near = [k for k, v in enumerate(nodes) if str(v) == str(plain)]
    if len(near) != 1:
        raise ValueError(f"focus={short_repr(focus)} is not a node of the series")
    return near[0]


@series_input
def analysis_report(
    source, *, window: int | None = None, focus=None, stride: int = 1
) -> AnalysisReport:
    """Connectivity, influence and audience of a graph series, as one result object.

    What ``baygo analyze`` prints. Nodes are named by their labels
    (``series.nodes``); no value is left undefined without a reason code.

    Parameters
    ----------
    source : Run, GraphSeries or anything :func:`~baygo_graph.inputs.as_series` takes
    window : int, optional
        Window length for the per-window summary and the influence series
        (default ``min(10, T)``).
    focus : node label, optional
        Follow this node (its influence, rank and audience). Default: the
        informative agent when the series marks one, else no node is followed.
    stride : int, default 1
        Influence of every ``stride``-th sliding window only (the counts of
        windows are then of those computed; ``"stride"`` in each method's JSON
        entry when above 1).

    Returns
    -------
    AnalysisReport
        ``as_dict()`` is the JSON. Per influence method, ``"undefined"`` gives the
        number of windows without a unique influence, their counts of closed
        classes and the alternative: the mean
        :func:`~baygo_graph.analysis.damped_influence` (PageRank-style, damping
        0.85) of those windows, its top nodes. Rankings (``"top"``) list only
        nodes with positive influence; ``"positive_nodes"`` counts them.

    Examples
    --------
    >>> import networkx as nx
    >>> ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    >>> r = analysis_report([ring] * 4, window=2)
    >>> r.smallest_b["aligned"].B, r.windows["aligned"].strongly_connected.sum()
    (1, np.int64(2))
    >>> pairs = nx.DiGraph([("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")])
    >>> u = analysis_report([pairs] * 3, window=1).as_dict()["influence"]["union"]
    >>> u["defined_windows"], u["undefined"]["windows"], u["undefined"]["closed_classes"]
    (0, 3, {'2': 3})
    """
    s = source
    T, m = s.n_steps, s.n_agents
    # numpy integers taken as ints, bools, floats and text refused (hostile21 Z3: an
    # np.int64 window made as_dict() no JSON, '3' failed in a comparison)
    window = (
        min(DEFAULT_WINDOW, T)
        if window is None
        else check_int("window", window, minimum=1, maximum=T)
    )
    stride = check_int("stride", stride, minimum=1)
    # before any window is answered: the kept arrays and the larger influence's work
    # beside its own (T, M) result (hostile18 W4: each stage refused the limit advised)
    check_analysis_budget(s, what="the analysis", stage=analysis_stage_bytes(s, window, stride))
    ttc = time_to_connectivity(s)  # computed once: smallest B of both kinds reuse it
    cover = {k: smallest_b(s, windows=k, ttc=ttc) for k in ("aligned", "sliding")}
    windows = {k: b_connectivity(s, window, windows=k) for k in ("aligned", "sliding")}
    nodes = s.nodes
    if focus is not None:
        agent = _focus_agent(focus, nodes)
        focus = nodes[agent]  # the label itself (focus=np.int64(1) was written as "1")
    else:
        agent = s.informative
    influence: dict[str, InfluenceSeries] = {}
    undefined: dict[str, NonUniqueWindows | None] = {}
    for method in ("product", "union"):
        r = influence_series(s, window=window, method=method, windows="sliding", stride=stride)
        influence[method] = r
        undefined[method] = nonunique_windows(s, influence=r) if len(r.undefined) else None
    listening = chosen_share = references = None
    if agent is not None:
        listening = np.asarray(listener_fraction(s, agent=agent), dtype=float)
        counts = chosen_counts(s)
        chosen_share = float(counts[agent] / max(counts.sum(), 1))
        if focus is None and m >= 2:
            # the paper's fixed references (equal weights): they do not depend on delta
            references = reference_influence(m, informative=agent)
    return AnalysisReport(
        steps=T,
        agents=m,
        nodes=tuple(nodes),
        informative=s.informative,
        synthetic=s.synthetic,
        window=window,
        stride=stride,
        self_weight=getattr(s, "self_weight", None),
        delta=s.delta,
        smallest_b=cover,
        ttc=ttc,
        windows=windows,
        influence=influence,
        undefined=undefined,
        followed=agent,
        focus=focus,
        listening=listening,
        chosen_share=chosen_share,
        references=references,
        time_axis=getattr(s, "time_axis", None),
    )
