"""Dynamic GEXF export of a run or any graph series, for Gephi's timeline.

One GEXF 1.2 file (``mode="dynamic"``, integer times written by NetworkX as
``timeformat="long"``, time = step ``t = 0 .. T-1``), written by NetworkX's own
GEXF writer (:class:`networkx.readwrite.gexf.GEXFWriter`):

* one node per node of the series, GEXF id = its label (``str(label)``); XML
  ``label``: ``"agent i"`` for a run, the label itself for other series; the
  static boolean attribute ``informative`` when the series marks an
  informative agent (none otherwise: nothing is claimed that is not known); the
  dynamic attribute ``influence`` (the left Perron vector of the window of
  ``window`` steps ending at each step, see
  :func:`~baygo_graph.analysis.influence_series`): one ``attvalue`` per run of
  consecutive steps with the same value (6 significant digits), none where the
  influence is undefined (before step ``window - 1``, or not unique);
* one directed edge per (source, target) pair that ever exists, ``j -> i``
  meaning ``i`` listens to ``j`` (``docs/design.md``), with ``weight`` (``w_ij``:
  ``1 - delta`` for BayGo, W's entry for a fixed graph; for other series the
  mean over the steps holding the edge, and then, when it varies, the dynamic
  edge attribute ``step_weight`` with the value of each spell) and ``spells``:
  one closed interval ``[start, end]`` of steps per run of consecutive steps
  holding the edge. Self-loops are left out (the self-weight of ``i`` at step
  ``t`` is 1 minus its in-edges' weights).

What NetworkX's writer cannot do, and this module adds to its XML before
writing: the ``description`` of the file (what the series is, its data source
and the SYNTHETIC DATA mark, which every output of synthetic data carries), the
graph's ``start``/``end`` and ``baygo-graph`` as creator.

Intervals are closed, as GEXF's ``start``/``end`` are: a spell ``[2, 4]``
means steps 2, 3 and 4.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import networkx as nx
import numpy as np
from networkx.readwrite.gexf import GEXFWriter

from .._text import xml_text
from .atomic import atomic_write

__all__ = ["edge_spells", "write_gexf"]


def _runs(steps: np.ndarray, key: np.ndarray):
    """Start and end (inclusive) of each run of consecutive steps with the same key.

    ``steps``/``key`` are sorted by key then step. Returns index arrays
    ``first, last`` into them.
    """
    n = len(steps)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    brk = np.ones(n, dtype=bool)
    brk[1:] = (key[1:] != key[:-1]) | (steps[1:] != steps[:-1] + 1)
    first = np.flatnonzero(brk)
    last = np.append(first[1:] - 1, n - 1)
    return first, last


def _step_weight_runs(source):
    """``(src, dst, weight, start, end)`` arrays: runs of consecutive steps of one edge
    with one weight (weights rounded to 12 significant digits), sorted by edge then
    step."""
    from ..series import as_series

    series = as_series(source)
    step, src, dst, weight = series.step_edges()
    keep = (src != dst) & (weight > 0)
    step, src, dst, weight = step[keep], src[keep], dst[keep], weight[keep]
    order = np.lexsort((step, dst, src))
    step, src, dst, weight = step[order], src[order], dst[order], weight[order]
    pair = src.astype(np.int64) * series.n_agents + dst
    _, wkey = np.unique(np.round(weight, 12), return_inverse=True)
    first, last = _runs(step, pair * (int(wkey.max(initial=0)) + 1) + wkey)
    return src[first], dst[first], weight[first], step[first], step[last], last - first + 1


def edge_spells(source):
    """Every edge of a series with its weight and its spells (runs of consecutive steps).

    Parameters
    ----------
    source : Run, GraphSeries or anything :func:`~baygo_graph.series.as_series` takes

    Returns
    -------
    list of (int, int, float, list of (int, int))
        ``(source, target, weight, [(start, end), ...])`` as array indices into
        ``series.nodes``, sorted by source then target; intervals are closed.
        ``weight`` is the edge's weight, its mean over its steps when it varies.
        Self-loops are left out.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0], [1, -1], [1, 0]])
    >>> edge_spells(run)
    [(0, 1, 0.5, [(0, 0), (2, 2)]), (1, 0, 0.5, [(0, 2)])]
    """
    return [e[:4] for e in _edge_table(source)]


def _edge_table(source) -> list:
    """``(src, dst, mean weight, spells, step weights or None)`` per edge."""
    from ..series import as_series

    series = as_series(source)
    if series.fixed is not None:
        w = series.fixed.tocoo()
        off = (w.row != w.col) & (w.data > 0)
        src, dst, weight = w.col[off], w.row[off], w.data[off]
        order = np.lexsort((dst, src))
        span = (0, series.n_steps - 1)
        return [
            (int(s), int(d), float(x), [span], None)
            for s, d, x in zip(src[order], dst[order], weight[order], strict=True)
        ]
    src, dst, weight, start, end, length = _step_weight_runs(series)
    out = []
    for s, d, w, a, b, n in zip(*(x.tolist() for x in (src, dst, weight, start, end, length)),
                                strict=True):  # fmt: skip
        if out and out[-1][:2] == (s, d):
            out[-1][3].append((a, b))
            out[-1][4].append((w, a, b, n))
        else:
            out.append((s, d, 0.0, [(a, b)], [(w, a, b, n)]))
    table = []
    for s, d, _, spells, runs in out:
        merged = []  # spells of one edge touching where only the weight changed
        for a, b in spells:
            if merged and merged[-1][1] + 1 == a:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        weights = {round(w, 12) for w, *_ in runs}
        mean = sum(w * n for w, _, _, n in runs) / sum(n for *_, n in runs)
        dynamic = None if len(weights) == 1 else [(float(w), a, b) for w, a, b, _ in runs]
        table.append((s, d, runs[0][0] if dynamic is None else mean, merged, dynamic))
    return table


def _influence_values(values: np.ndarray) -> list:
    """``[(value, start, end), ...]``: runs of equal (6 significant digits) defined values."""
    steps = np.flatnonzero(np.isfinite(values))
    vals = np.array([float(f"{v:.6g}") for v in values[steps].tolist()])
    first, last = _runs(steps, vals)
    return [
        (float(vals[a]), int(steps[a]), int(steps[b]))
        for a, b in zip(first.tolist(), last.tolist(), strict=True)
    ]


def _description(source, series) -> str:
    if hasattr(source, "strategy") and hasattr(source, "data_source"):
        data = ("SYNTHETIC DATA: " if source.synthetic else "data: ") + source.data_source
        what = f"baygo-graph run, strategy {source.strategy}"
    else:
        data = "SYNTHETIC DATA" if series.synthetic else "data: the user's series"
        what = "graph series"
    return xml_text(  # user text: control characters would make the file malformed
        f"{what}, {series.n_agents} nodes, {series.n_steps} steps (time = step), {data}; "
        "edge j -> i: i listens to j"
    )


def write_gexf(source, path, *, influence=None) -> Path:
    """Write a run or graph series as one dynamic GEXF 1.2 file (Gephi: open, then
    enable the timeline).

    Parameters
    ----------
    source : Run, GraphSeries, or anything :func:`~baygo_graph.series.as_series` takes
        A dynamic or fixed series (a fixed graph gives one spell per edge).
    path : str or os.PathLike
        The ``.gexf`` file to write (atomically).
    influence : array_like, shape (T, M), optional
        Each node's influence per step, written as the dynamic node attribute
        ``influence`` (NaN steps left out); :func:`baygo_graph.export.write_series`
        computes it. Default: no influence values.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``source`` is no series (see :func:`~baygo_graph.series.as_series`).
    ValueError
        For a centralised (``cen``) run, which has no graph, or an ``influence``
        of another shape.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0, 0], [2, 2, 1], [2, 2, 1]], informative=2)
    >>> p = write_gexf(run, tempfile.mkdtemp() + "/run.gexf")
    >>> g = nx.read_gexf(p, node_type=int)
    >>> g.edges[2, 0]["spells"], g.nodes[2]["informative"], g.nodes[2]["label"]
    ([(1, 2)], True, 'agent 2')
    >>> u = write_gexf([nx.Graph([("ann", "bob")])], tempfile.mkdtemp() + "/u.gexf")
    >>> sorted(nx.read_gexf(u).edges)
    [('ann', 'bob'), ('bob', 'ann')]
    """
    from ..series import as_series

    if hasattr(source, "strategy") and getattr(source, "series", 0) is None:
        raise ValueError(
            f"run is a centralised run (strategy {source.strategy!r}): one central learner "
            "has no communication graph to export"
        )
    series = as_series(source)
    shape = (series.n_steps, series.n_agents)
    influence = np.full(shape, np.nan) if influence is None else np.asarray(influence)
    if influence.shape != shape:
        raise ValueError(f"influence must have the series' shape {shape}, got {influence.shape}")
    is_run = hasattr(source, "strategy") and hasattr(source, "mse")
    nodes = series.nodes
    g = nx.DiGraph(mode="dynamic")
    ids = [xml_text(v) for v in nodes]  # user labels: XML 1.0 cannot hold every character
    for k, v in enumerate(nodes):
        data = {"label": f"agent {v}" if is_run else ids[k]}
        if series.informative is not None:
            data["informative"] = k == series.informative
        values = _influence_values(influence[:, k])
        if values:
            data["influence"] = values
        g.add_node(ids[k], **data)
    for s, d, weight, spells, dynamic in _edge_table(series):
        data = {"weight": float(weight), "spells": spells}
        if dynamic is not None:
            data["step_weight"] = dynamic
        g.add_edge(ids[s], ids[d], **data)
    if len(g) != len(nodes):
        raise ValueError("two node labels have the same text: GEXF ids are text; relabel")
    writer = GEXFWriter(version="1.2draft", prettyprint=True)
    writer.add_graph(g)
    # NetworkX's writer has no description, creator or graph span: set them here.
    meta = writer.xml.find("meta")
    meta.find("creator").text = "baygo-graph"
    meta.set("lastmodifieddate", datetime.date.today().isoformat())
    desc = meta.find("description")
    if desc is None:
        desc = nx.readwrite.gexf.SubElement(meta, "description")
    desc.text = _description(source, series)
    graph = writer.xml.find("graph")
    graph.set("mode", "dynamic")
    graph.set("timeformat", "long")
    graph.set("start", "0")
    graph.set("end", str(series.n_steps - 1))
    return atomic_write(Path(path), writer.write)
