"""The tellers' words: every printed reading of an analysis result, written once.

:mod:`baygo_graph.analysis` returns result objects and no prose
(:class:`~baygo_graph.analysis.BCoverage`,
:class:`~baygo_graph.analysis.InfluenceSeries`,
:class:`~baygo_graph.analysis.AnalysisReport`). This module words them, and every
teller renders from it: ``baygo analyze`` (text; its JSON is the object's
``as_dict()``), the reproduction's ``smallest_b.csv``, ``summary.json`` and
``report.md``, the figures' legends and the viewer. So one result reads the same
wherever it is shown: a seed without a B has no tail anywhere, sliding windows
never have one, an undefined influence gives its number of closed classes.

It sits in the figures' layer (it imports the analysis layer, and figures,
reproduce and the CLI import it); docs/design.md, "Results and their tellers".
"""

from __future__ import annotations

import numpy as np

from ._format import format_number
from ._text import counted

__all__ = [
    "B_COLUMNS",
    "NO_B",
    "b_counts",
    "b_row",
    "b_spread",
    "b_text",
    "held_by_text",
    "positive_top",
    "self_weight_text",
    "steps_text",
    "undefined_text",
]

#: Columns of a smallest-B row (``smallest_b.csv``, ``summary.json``), in order.
B_COLUMNS = (
    "windows",
    "smallest_b",
    "windows_checked",
    "steps_covered",
    "tail_length",
    "tail_connected",
    "reading",
)


def _all_steps(n: int) -> str:
    """The union of a run's steps, said as a count: 'the one step' for a 1-step run."""
    return "the one step" if n == 1 else f"the union of all {counted(n, 'step')}"


def steps_text(first: int, last: int, axis=None) -> str:
    """Steps ``first..last`` (both included) as a figure or a line names them, with their
    times when the series has a :class:`~baygo_graph.io.times.TimeAxis`
    (:meth:`~baygo_graph.io.times.TimeAxis.span`, the words of every teller).

    Examples
    --------
    >>> from baygo_graph.io.times import TimeAxis
    >>> steps_text(2, 5), steps_text(4, 4)
    ('steps 2..5', 'step 4')
    >>> steps_text(0, 1, TimeAxis(start="2024-05-01T00:00+02:00", bin="1D", zone="+02:00"))
    'steps 0..1, 2024-05-01 to 2024-05-02'
    """
    text = f"step {first}" if first == last else f"steps {first}..{last}"
    return f"{text}, {axis.span(first, last)}" if axis is not None else text


def b_text(cov, axis=None) -> str:
    """The reading of a :class:`~baygo_graph.analysis.BCoverage`: never a plain B for
    steps it did not check, never a tail where there is none; with the series'
    :class:`~baygo_graph.io.times.TimeAxis`, the steps covered and the tail also in the
    times' own words (:meth:`~baygo_graph.io.times.TimeAxis.span`).

    Examples
    --------
    >>> from baygo_graph.analysis import BCoverage
    >>> b_text(BCoverage(31, "aligned", "drop", 60, 1, 31, 29, False, 60, True))
    'B-connected over [0, 31) with B = 31 (1 aligned window), tail of 29 steps not connected'
    >>> b_text(BCoverage(None, "sliding", "drop", 60, 0, 0, None, None, 60, False))
    'no B up to 60 works (sliding windows): the union of all 60 steps is not strongly connected'
    """
    if cov.B is None:
        if cov.union_connected is False:
            why = f"{_all_steps(cov.steps)} is not strongly connected"
        elif cov.max_b < cov.steps:
            why = f"only B <= {cov.max_b} was tried"
        else:
            why = (
                f"{_all_steps(cov.steps)} is strongly connected, but no "
                "block length makes every block strongly connected"
            )
        return f"no B up to {cov.max_b} works ({cov.windows} windows): {why}"
    covered = f" ({axis.span(0, cov.steps_covered - 1)})" if axis and cov.steps_covered else ""
    head = (
        f"B-connected over [0, {cov.steps_covered}){covered} with B = {cov.B} "
        f"({counted(cov.windows_checked, cov.windows + ' window')})"
    )
    if not cov.tail_length:
        return head
    state = "strongly connected" if cov.tail_connected else "not connected"
    end = cov.steps_covered + cov.tail_length - 1
    tail = f" ({axis.span(cov.steps_covered, end)})" if axis else ""
    return f"{head}, tail of {counted(cov.tail_length, 'step')}{tail} {state}"


def b_row(cov) -> dict:
    """One row of a smallest-B table (``smallest_b.csv``, ``summary.json``): the fields
    of ``cov`` with NaN for "none" (no B; no tail), and its :func:`b_text` reading.

    Examples
    --------
    >>> from baygo_graph.analysis import BCoverage
    >>> row = b_row(BCoverage(None, "aligned", "drop", 60, 0, 0, None, None, 60, False))
    >>> row["smallest_b"], row["tail_length"], row["tail_connected"]
    (nan, nan, nan)
    """
    return {
        "windows": cov.windows,
        "smallest_b": np.nan if cov.B is None else cov.B,
        "windows_checked": cov.windows_checked,
        "steps_covered": cov.steps_covered,
        "tail_length": np.nan if cov.tail_length is None else cov.tail_length,
        "tail_connected": np.nan if cov.tail_connected is None else float(cov.tail_connected),
        "reading": b_text(cov),
    }


def b_counts(rows) -> dict:
    """Counts over the seeds of one window kind (rows of :func:`b_row`, a DataFrame):
    the numbers the report's B table and the smallest-B figure's legend both print.

    Returns
    -------
    dict
        ``seeds``, ``no_B``, ``with_tail`` (seeds whose B leaves a tail) and
        ``tail_not_connected`` (of those, the tails whose union is not strongly
        connected). A seed without a B has no tail; sliding windows have none.
    """
    b = rows["smallest_b"].to_numpy(dtype=float)
    out = {"seeds": len(b), "no_B": int(np.isnan(b).sum())}
    if "tail_length" in rows:
        tail = rows["tail_length"].to_numpy(dtype=float)
        conn = rows["tail_connected"].to_numpy(dtype=float)
        tail = np.where(np.isnan(b), np.nan, tail)  # no B: no tail (also in older tables)
        out["with_tail"] = int((tail > 0).sum())
        out["tail_not_connected"] = int(((tail > 0) & (conn == 0)).sum())
    return out


#: What the B tellers say where no seed of a window kind has a smallest B.
NO_B = "no seed has one"


def b_spread(stats, keys=("min", "median", "max")) -> str:
    """The smallest B over the seeds that have one, in the words of every teller (the
    claims' evidence and the report's short column read it from the claim's values, as
    summary.json holds them): ``"min 2, median 3, max 5"`` (the ``keys`` asked), or
    :data:`NO_B` when no seed has one (its values ``None``; never "n/a": nothing is
    undefined, there is no B to summarise).

    Examples
    --------
    >>> b_spread({"min": 2.0, "median": 3.0, "max": 5.0})
    'min 2, median 3, max 5'
    >>> b_spread({"min": 2.0, "median": 3.5, "max": 5.0}, keys=("median", "max"))
    'median 3.5, max 5'
    >>> b_spread({"min": None, "median": None, "max": None})
    'no seed has one'
    """
    if any(stats[k] is None or not np.isfinite(stats[k]) for k in keys):
        return NO_B
    return ", ".join(f"{k} {format_number(stats[k])}" for k in keys)


def undefined_text(n_classes) -> str:
    """Why some windows have no influence, from their numbers of closed classes.

    Examples
    --------
    >>> undefined_text([2, 2, 3])
    '3 windows have more than one closed class (2 windows with 2, 1 window with 3): groups that listen to no one outside reach separate consensuses, so no single influence vector exists'
    """  # noqa: E501
    n = np.asarray(n_classes, dtype=np.int64)
    n = n[n > 1]
    if len(n) == 0:
        return "every window has exactly one closed class"
    values, counts = np.unique(n, return_counts=True)
    parts = ", ".join(
        f"{counted(c, 'window')} with {v}"
        for v, c in zip(values.tolist(), counts.tolist(), strict=True)
    )
    verb = "has" if len(n) == 1 else "have"
    return (
        f"{counted(len(n), 'window')} {verb} more than one closed class ({parts}): groups that "
        "listen to no one outside reach separate consensuses, so no single influence vector "
        "exists"
    )


def self_weight_text(rule, delta=None) -> str:
    """The self-weight rule of a series, as printed (docs/user_series.md): its
    ``self_weight`` (a series built from edges) or, for a run, its pooling weight
    ``delta``.

    Examples
    --------
    >>> self_weight_text("equal")
    'self-weight: equal (a node that hears d others weighs itself 1/(d+1))'
    >>> self_weight_text(0.5)
    'self-weight: 0.5 (a node that hears anyone weighs itself 0.5)'
    >>> print(self_weight_text(None, delta=0.3))
    self-weight: delta = 0.3 (the run's pooling weight)
    >>> self_weight_text(None)
    'self-weight: as stored in the series (its self-loops)'
    """  # noqa: E501
    if rule is None:
        if delta is not None:
            return f"self-weight: delta = {float(delta):g} (the run's pooling weight)"
        return "self-weight: as stored in the series (its self-loops)"
    if rule == "equal":
        return "self-weight: equal (a node that hears d others weighs itself 1/(d+1))"
    return f"self-weight: {float(rule):g} (a node that hears anyone weighs itself {float(rule):g})"


def held_by_text(positive: int, agents: int) -> str:
    """Why a ranking lists only ``positive`` of ``agents`` nodes ("" when it lists all).

    Examples
    --------
    >>> held_by_text(1, 4)
    '1 node holds all the influence: the closed class of the windows (it listens to no one outside it); every other node hears it, directly or not, and its own belief carries no weight in the consensus (influence 0)'
    """  # noqa: E501
    if positive >= agents:
        return ""
    if positive == 1:
        return (
            "1 node holds all the influence: the closed class of the windows (it listens to "
            "no one outside it); every other node hears it, directly or not, and its own "
            "belief carries no weight in the consensus (influence 0)"
        )
    return (
        f"{positive} of {counted(agents, 'node')} hold all the influence: the closed classes of "
        "the "
        "windows (groups that listen to no one outside); every other node's own belief "
        "carries no weight in the consensus (influence 0)"
    )


def positive_top(nodes, values, k: int = 5, *, tol: float = 1e-12) -> list:
    """``[[label, value], ...]``: the ``k`` largest values above ``tol`` (ties by node
    order). Nodes with no influence are never listed as most influential.

    Examples
    --------
    >>> positive_top(["aaron", "alice", "victor"], [0.0, 0.0, 1.0])
    [['victor', 1.0]]
    """
    v = np.asarray(values, dtype=float)
    order = np.argsort(-v, kind="stable")[:k]
    return [[_label(nodes[i]), float(v[i])] for i in order.tolist() if v[i] > tol]


def _label(node):
    return node if isinstance(node, int | str) else str(node)
