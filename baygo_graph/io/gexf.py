"""Dynamic GEXF export of a run, for Gephi's timeline.

One GEXF 1.2 file (``mode="dynamic"``, ``timeformat="integer"``, time = step
``t = 0 .. T-1``):

* nodes ``0 .. M-1`` with label ``"agent i"``, the static boolean attribute
  ``informative`` and the dynamic attribute ``influence`` (the left Perron
  vector of the window of ``window`` steps ending at each step, see
  :func:`~baygo_graph.analysis.influence_series`): one ``attvalue`` per run of
  consecutive steps with the same value (6 significant digits), none where the
  influence is undefined (before step ``window - 1``, or not unique);
* one directed edge per (source, target) pair that ever exists, ``j -> i``
  meaning agent ``i`` listens to ``j`` (docs/design.md), with its ``weight``
  (``w_ij``: ``1 - delta`` for BayGo, W's entry for a fixed graph; constant over
  a run) and ``spells``: one closed interval ``[start, end]`` of steps per run
  of consecutive steps holding the edge. Self-loops are left out (the
  self-weight of agent ``i`` at step t is 1 minus its in-edges' weights).

Intervals are closed, as GEXF's ``start``/``end`` are: a spell ``[2, 4]``
means steps 2, 3 and 4.
"""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from .atomic import atomic_write

__all__ = ["edge_spells", "write_gexf"]

NS_GEXF = "http://www.gexf.net/1.2draft"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA = "http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd"


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


def edge_spells(run):
    """Every edge of ``run`` with its weight and its spells (runs of consecutive steps).

    Returns
    -------
    list of (int, int, float, list of (int, int))
        ``(source, target, weight, [(start, end), ...])`` sorted by source then
        target; intervals are closed. Self-loops are left out.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0], [1, -1], [1, 0]])
    >>> edge_spells(run)
    [(0, 1, 0.5, [(0, 0), (2, 2)]), (1, 0, 0.5, [(0, 2)])]
    """
    series = run.series
    if series.fixed is not None:
        w = series.fixed.tocoo()
        off = w.row != w.col
        src, dst, weight = w.col[off], w.row[off], w.data[off]
        order = np.lexsort((dst, src))
        span = [(0, run.n_steps - 1)]
        return [
            (int(s), int(d), float(x), list(span))
            for s, d, x in zip(src[order], dst[order], weight[order], strict=True)
        ]
    step, src, dst, weight = series.step_edges()
    keep = src != dst
    step, src, dst, weight = step[keep], src[keep], dst[keep], weight[keep]
    order = np.lexsort((step, dst, src))
    step, src, dst, weight = step[order], src[order], dst[order], weight[order]
    first, last = _runs(step, src * run.n_agents + dst)
    out = []
    for a, b in zip(first.tolist(), last.tolist(), strict=True):
        pair = (int(src[a]), int(dst[a]))
        if out and out[-1][:2] == pair:
            out[-1][3].append((int(step[a]), int(step[b])))
        else:
            out.append((*pair, float(weight[a]), [(int(step[a]), int(step[b]))]))
    return out


def _node_element(i: int, informative: bool, values: np.ndarray) -> ET.Element:
    node = ET.Element("node", id=str(i), label=f"agent {i}")
    att = ET.SubElement(node, "attvalues")
    ET.SubElement(att, "attvalue", {"for": "informative", "value": str(informative).lower()})
    defined = np.isfinite(values)
    steps = np.flatnonzero(defined)
    vals = np.array([float(f"{v:.6g}") for v in values[steps].tolist()])
    first, last = _runs(steps, vals)
    for a, b in zip(first.tolist(), last.tolist(), strict=True):
        attrs = {"for": "influence", "value": repr(float(vals[a]))}
        attrs |= {"start": str(steps[a]), "end": str(steps[b])}
        ET.SubElement(att, "attvalue", attrs)
    return node


def _description(run) -> str:
    data = ("SYNTHETIC DATA: " if run.synthetic else "data: ") + run.data_source
    return (
        f"baygo-graph run, strategy {run.strategy}, {run.n_agents} agents, "
        f"{run.n_steps} steps (time = step), {data}; edge j -> i: agent i listens to j"
    )


def write_gexf(run, path, *, influence=None) -> Path:
    """Write ``run`` as one dynamic GEXF 1.2 file (Gephi: open, then enable the timeline).

    Parameters
    ----------
    run : Run
        A dynamic or fixed-graph run (a fixed graph gives one spell per edge).
    path : str or os.PathLike
        The ``.gexf`` file to write (atomically).
    influence : array_like, shape (T, M), optional
        Each agent's influence per step, written as the dynamic node attribute
        ``influence`` (NaN steps left out); :func:`baygo_graph.export.write_series`
        computes it from the run. Default: no influence values.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``run`` is not a :class:`~baygo_graph.Run`.
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
    """
    if not hasattr(run, "series") or not hasattr(run, "mse"):
        raise TypeError(f"run must be a baygo_graph.Run, got {type(run).__name__}")
    if run.series is None:
        raise ValueError(
            f"run is a centralised run (strategy {run.strategy!r}): one central learner "
            "has no communication graph to export"
        )
    influence = np.full(run.mse.shape, np.nan) if influence is None else np.asarray(influence)
    if influence.shape != run.mse.shape:
        raise ValueError(
            f"influence must have the run's shape {run.mse.shape}, got {influence.shape}"
        )

    root = ET.Element(
        "gexf",
        {"xmlns": NS_GEXF, "xmlns:xsi": NS_XSI, "xsi:schemaLocation": SCHEMA, "version": "1.2"},
    )
    meta = ET.SubElement(root, "meta", lastmodifieddate=datetime.date.today().isoformat())
    ET.SubElement(meta, "creator").text = "baygo-graph"
    ET.SubElement(meta, "description").text = _description(run)
    graph = ET.SubElement(
        root,
        "graph",
        mode="dynamic",
        defaultedgetype="directed",
        timeformat="integer",
        start="0",
        end=str(run.n_steps - 1),
    )
    static = ET.SubElement(graph, "attributes", {"class": "node", "mode": "static"})
    attr = ET.SubElement(static, "attribute", id="informative", title="informative", type="boolean")
    ET.SubElement(attr, "default").text = "false"
    dynamic = ET.SubElement(graph, "attributes", {"class": "node", "mode": "dynamic"})
    ET.SubElement(dynamic, "attribute", id="influence", title="influence", type="double")
    nodes = ET.SubElement(graph, "nodes")
    for i in range(run.n_agents):
        nodes.append(_node_element(i, i == run.informative, influence[:, i]))
    edges = ET.SubElement(graph, "edges")
    for k, (src, dst, weight, spells) in enumerate(edge_spells(run)):
        edge = ET.SubElement(
            edges, "edge", id=str(k), source=str(src), target=str(dst), weight=repr(weight)
        )
        spell_el = ET.SubElement(edge, "spells")
        for start, end in spells:
            ET.SubElement(spell_el, "spell", start=str(start), end=str(end))
    ET.indent(root, space=" ")
    tree = ET.ElementTree(root)
    return atomic_write(
        Path(path), lambda fh: tree.write(fh, encoding="utf-8", xml_declaration=True)
    )
