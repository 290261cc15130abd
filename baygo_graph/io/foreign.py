"""Other libraries' temporal graphs as series: networkx-temporal and DyNetX objects.

Both are read without importing the libraries (the objects carry what is needed),
with their time axis kept and the memory budget checked before anything of the
series' size exists (``docs/user_series.md``):

* **networkx-temporal** (``TemporalGraph`` and its directed and multi kinds): one
  snapshot per step. When every snapshot name is an integer (``slice(attr="time")``
  on integer times) or an ISO date (``2024-05-01``: daily snapshots), the snapshots
  sit at their times, ``step = time - first time`` (in days for dates), so the
  steps without a snapshot (days nobody wrote) are kept as empty steps; any other
  names (intervals of ``slice(bins=...)``, text) give one step per snapshot in
  their order.
* **DyNetX** (``DynGraph``, ``DynDiGraph``): each interaction's closed intervals of
  presence as DyNetX stores them (``add_interaction(u, v, t=2, e=5)``: steps 2, 3
  and 4; without ``e``: step ``t`` only); times shifted to start at step 0. A time
  that is not an integer is refused in one line (never cut).

Node labels come back as plain Python values (a numpy integer label as ``int``).
"""

from __future__ import annotations

import re

import networkx as nx
import numpy as np

from .. import _text
from .._text import counted
from .._validate import INTEGER_TEXT
from ..limits import SERIES_BYTES_PER_EXPANDED, check_budget, estimate_series_bytes
from .times import _INT64, TimeAxis

__all__ = ["dynetx_series", "temporal_graph_series"]

_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # ASCII digits: int() takes others


def _plain(label):
    """A numpy scalar label as the Python value it holds."""
    return label.item() if isinstance(label, np.generic) else label


def _node_order(labels) -> tuple:
    labels = list(dict.fromkeys(_plain(v) for v in labels))
    try:
        return tuple(sorted(labels))
    except TypeError:
        return tuple(labels)


def _positions(names, n: int, what: str) -> tuple[np.ndarray, str, TimeAxis | None]:
    """The step of each of ``n`` snapshots from their names, the rule used, and the time
    axis (step 0 at the first time; None for snapshots in their order)."""
    names = [str(v) for v in (names or [])]
    if len(names) == n and n and all(INTEGER_TEXT.fullmatch(v) for v in names):
        times = [int(v) for v in names]
        rule = "integer times"
        far = next((t for t in times if not _INT64[0] <= t <= _INT64[1]), None)
        if far is not None:  # as an edge list's times
            raise ValueError(
                f"the {what} named {_text.big_int(far)} is at a time outside the 64-bit "
                "integer range of times"
            )
    elif len(names) == n and n and all(_DATE.match(v) for v in names):
        import datetime

        times = []
        for k, v in enumerate(names):
            try:
                times.append(datetime.date.fromisoformat(v).toordinal())
            except ValueError:  # as an edge list's time cell: never read as "no dates"
                raise ValueError(
                    f"{what} {k} is named {_text.quoted(v, 40)}, which is no calendar day: "
                    f"the {what}s named by dates must each name one"
                ) from None
        rule = "days"
    else:
        timed = [k for k, v in enumerate(names) if INTEGER_TEXT.fullmatch(v) or _DATE.match(v)]
        if timed:  # some names are times: said, never a silent fall-back (hostile21 Z20)
            other = next(k for k in range(n) if k not in set(timed))
            _order_warning(what, f"{what} {other} is named {_text.quoted(names[other], 40)}")
        return np.arange(n), "snapshot order", None
    first = min(times)
    steps = np.array([t - first for t in times], dtype=object)
    if len(set(times)) != n:  # two snapshots of one time: keep their order instead
        seen = set()
        twice = next(v for v, t in zip(names, times, strict=True) if t in seen or seen.add(t))
        _order_warning(what, f"two {what}s name the time {_text.quoted(twice, 40)}")
        return np.arange(n), "snapshot order", None
    if rule == "days":
        import datetime

        day = datetime.date.fromordinal(first).isoformat()
        return steps, rule, TimeAxis(start=f"{day}T00:00", bin="1D")
    return steps, rule, TimeAxis(start=str(first), bin=1)


def _order_warning(what: str, why: str) -> None:
    """Say that snapshots named partly by times are read one step each, in their order."""
    import warnings

    from ..exceptions import TimeBinWarning

    warnings.warn(
        TimeBinWarning(
            f"the {what} names are not all distinct times ({why}): one step per {what}, in "
            "their order, and no time axis"
        ),
        stacklevel=4,
    )


def _check(steps: int, nodes: int, entries: int, what: str) -> None:
    """The budget check of a series of ``entries`` edge-steps, before they are expanded:
    building it from its arrays (:func:`~baygo_graph.limits.estimate_series_bytes`)
    and the expanded arrays themselves (:data:`~baygo_graph.limits.SERIES_BYTES_PER_EXPANDED`
    an edge-step); the objects are held already (peaks measured in
    ``benchmarks/bench_foreign_memory.py``)."""
    check_budget(
        estimate_series_bytes(entries, nodes=nodes, steps=steps)
        + SERIES_BYTES_PER_EXPANDED * entries,
        what=f"{what}: {counted(steps, 'step')} x {counted(nodes, 'node')}",
        advice="make fewer, wider snapshots (bin the times)",  # the line within 300
    )  # characters, or the middle of 'what' (the steps) would be cut (limits.LINE_CHARS)


def temporal_graph_series(obj, *, self_weight="equal"):
    """A networkx-temporal ``TemporalGraph`` as a series, its empty steps kept.

    Parameters
    ----------
    obj : networkx_temporal.TemporalGraph
        Any of its kinds (directed, multi); sliced into snapshots.
    self_weight : "equal", float or None, default "equal"
        The self-weight rule (:func:`baygo_graph.series.series_from_edges`).

    Returns
    -------
    EdgeListSeries

    Examples
    --------
    >>> import networkx_temporal as tx
    >>> tg = tx.TemporalDiGraph()
    >>> for u, v, t in [(1, 2, 0), (2, 1, 3)]:
    ...     tg.add_edge(u, v, time=t)
    >>> s = temporal_graph_series(tg.slice(attr="time"))
    >>> s.n_steps, s.nodes            # times 1 and 2 had no snapshot: empty steps
    (4, (1, 2))
    """
    from ..series import check_edge_weights, informative_marks, series_from_edges

    graphs = list(obj.to_snapshots()) if hasattr(obj, "to_snapshots") else list(obj)
    if not graphs:
        raise ValueError("the temporal graph has no snapshots: a series needs at least one step")
    for t, g in enumerate(graphs):
        if not isinstance(g, nx.Graph):
            raise TypeError(f"snapshot {t} is a {type(g).__name__}, not a networkx graph")
    names = getattr(obj, "index", None)  # the snapshot names (formerly `names`)
    where, rule, axis = _positions(names, len(graphs), "snapshot")
    n_steps = int(max(where)) + 1
    nodes = _node_order(v for g in graphs for v in g)
    if not nodes:
        raise ValueError("the temporal graph has no nodes: a series needs at least one node")
    entries = sum(g.number_of_edges() * (1 if g.is_directed() else 2) for g in graphs)
    _check(n_steps, len(nodes), entries, f"networkx-temporal ({rule})")
    index = {v: k for k, v in enumerate(nodes)}
    step, row, col, weight = [], [], [], []
    for t, (at, g) in enumerate(zip(where, graphs, strict=True)):
        check_edge_weights(f"snapshot {t}", g.edges(data="weight", default=1.0))
        for u, v, w in g.edges(data="weight", default=1.0):
            pairs = [(v, u)] if g.is_directed() else [(v, u), (u, v)] if u != v else [(v, u)]
            for r, c in pairs:
                step.append(int(at))
                row.append(index[_plain(r)])
                col.append(index[_plain(c)])
                weight.append(w)
    w = np.array([float(x) for x in weight], dtype=float)
    flags = list(dict.fromkeys(_plain(v) for v in informative_marks(graphs)))
    return series_from_edges(
        step, row, col, w, n_steps=n_steps, nodes=nodes,
        informative=index[flags[0]] if len(flags) == 1 else None, self_weight=self_weight,
        time_axis=axis,
    )  # fmt: skip


def _integer_time(t, u, v):
    if isinstance(t, bool) or not isinstance(t, int | float | np.integer | np.floating):
        bad = True
    else:
        bad = not float(t).is_integer()
    if bad:
        raise ValueError(
            f"DyNetX interaction {_text.shorten(repr((_plain(u), _plain(v))), 60)} has time "
            f"{_text.shorten(repr(t), 40)}: times must be integer steps (baygo never truncates "
            "a time); give the interactions as an edge list (pandas.DataFrame) with bin="
        )
    if not _INT64[0] <= int(t) <= _INT64[1]:  # as an edge list's times
        raise ValueError(
            f"DyNetX interaction {_text.shorten(repr((_plain(u), _plain(v))), 60)} has time "
            f"{_text.big_int(int(t))}, outside the 64-bit integer range of times"
        )
    return int(t)


def dynetx_series(obj, *, self_weight="equal"):
    """A DyNetX ``DynGraph`` / ``DynDiGraph`` as a series: each interaction at the
    steps of its intervals (module docstring), times shifted to start at 0.

    ``self_weight`` is the self-weight rule
    (:func:`baygo_graph.series.series_from_edges`; default ``"equal"``).

    Examples
    --------
    >>> import dynetx as dn
    >>> g = dn.DynDiGraph()
    >>> g.add_interaction("a", "b", t=0)
    >>> g.add_interaction("a", "b", t=5)          # again at 5: not at 1..4
    >>> s = dynetx_series(g)
    >>> s.n_steps, [len(s.window_edges(t, t + 1)[0]) for t in (0, 1, 5)]
    (6, [1, 0, 1])
    """
    from ..series import series_from_edges

    adjacency = obj._succ if obj.is_directed() else obj._adj  # u -> v: v hears u
    spans = []
    for u, targets in adjacency.items():
        for v, data in targets.items():
            for a, b in data.get("t", []):
                a, b = _integer_time(a, u, v), _integer_time(b, u, v)
                if b < a:  # added and removed at once (DyNetX stores [t, e - 1])
                    raise ValueError(
                        f"DyNetX interaction {_text.shorten(repr((_plain(u), _plain(v))), 60)} "
                        f"holds no step (its interval [{a}, {b}] ends before it starts: "
                        f"removed at e={b + 1} when added at t={a}): give e > t"
                    )
                spans.append((u, v, a, b))
    nodes = _node_order(obj.nodes())
    if not nodes:
        raise ValueError("the DyNetX graph has no nodes: a series needs at least one node")
    if not spans:
        raise ValueError("the DyNetX graph has no interactions: a series needs at least one step")
    first = min(a for *_, a, _b in spans)
    n_steps = max(b for *_, b in spans) - first + 1
    length = np.array([b - a + 1 for *_, a, b in spans], dtype=object)
    entries = int(length.sum())
    _check(n_steps, len(nodes), entries, "the DyNetX graph")
    length = length.astype(np.int64)
    index = {v: k for k, v in enumerate(nodes)}
    start = np.array([a - first for *_, a, _b in spans], dtype=np.int64)
    offset = np.repeat(np.cumsum(length) - length, length)
    step = np.repeat(start, length) + (np.arange(entries) - offset)
    col = np.repeat(np.array([index[_plain(u)] for u, *_ in spans], dtype=np.int64), length)
    row = np.repeat(np.array([index[_plain(v)] for _, v, *_ in spans], dtype=np.int64), length)
    return series_from_edges(
        step,
        row,
        col,
        np.ones(entries),
        n_steps=n_steps,
        nodes=nodes,
        self_weight=self_weight,
        time_axis=TimeAxis(start=str(first), bin=1),
    )
