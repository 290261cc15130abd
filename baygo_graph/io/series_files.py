"""Graph series files: node-link JSON and GraphML (written and read), GEXF (read;
written by :mod:`baygo_graph.io.gexf`). Every reader returns a
:class:`~baygo_graph.series.GraphSeries`; every writer takes one (the door,
:mod:`baygo_graph.inputs`, turns other inputs into a series first).

* ``.json`` - ``{"format": "baygo-graph-series", "row_stochastic": true, "digest":
  "baygo-digest sha256:...", "graphs": [...]}`` with one NetworkX node-link document
  per step (node labels and graph attributes as JSON keeps them);
* ``.graphml`` - one GraphML multi-digraph holding every step's edges, each with
  attributes ``step`` and ``weight``; graph attributes ``steps`` = T,
  ``node_labels`` (a JSON list of the node labels, so int and string labels read
  back as written), ``step_graphs`` (a JSON list of each step's graph
  attributes, e.g. ``step``, ``strategy``, ``synthetic``) and ``row_stochastic``.

The writers write each step's W (self-loops included) and mark the file
``row_stochastic``: reading it back keeps every row that sums to 1 bit for bit, so
a round trip gives the same labels, steps and weights exactly. They also write the
series' SHA-256 (:func:`~baygo_graph.io.gexf.series_digest`; JSON: the key
``digest``, GraphML: the graph data ``digest``), and the readers refuse a file whose
series does not give it back (one flipped bit). Files made
elsewhere are row-normalised on reading (:func:`~baygo_graph.series.series_from_graphs`).
A series read from dated contacts keeps its time axis
(:class:`~baygo_graph.io.times.TimeAxis`: JSON, the key ``time_axis``; GraphML, the graph
data ``time_axis``; GEXF, the ``<keywords>`` after ``baygo-time-axis``); a file without
one reads as steps only (``time_axis`` None).

Node labels are ints or strings. JSON keeps every such label apart and exactly
(``1`` and ``"1"``, NUL, any code point). GraphML is XML 1.0: a label that it cannot
hold (a character outside XML 1.0's, e.g. NUL) or two labels with the same text
(``1`` and ``"1"``) are refused before anything is written (``ValueError`` naming
the label), as are node attributes GraphML would not give back (such characters,
or a carriage return in a string value).

An undirected edge ``{u, v}`` (GraphML ``edgedefault="undirected"`` or an edge's
``directed="false"``; a JSON document with ``"directed": false``) becomes the two
edges ``u -> v`` and ``v -> u`` with its attributes: both agents hear each other
(what ``Graph.to_directed()`` gives). Every edge element is one contact, as a row
of an edge list is: parallel edges of a step (a multigraph's, or one pair listed
twice, in either order when undirected) add their weights, in every format (JSON,
GraphML, GEXF, edge lists); their other attributes are the last one's.

GraphML is read through :mod:`.safexml` (defusedxml; range and memory checks). A
GraphML or GEXF file made elsewhere (no ``node_labels``) reads back with int labels
when every id is an integer written the canonical way (``7``, not ``007``, ``+7``,
``-0`` or ``\u0667``), text labels otherwise: no two ids become one node. JSON is
read in one pass after a memory-budget check on the file size; node ids must be ints
or strings (a JSON ``null`` names no node and is refused), each declared once, edges
must join declared nodes and their ``weight`` (when present) be a finite number
``>= 0``. A step's edges are its ``"edges"`` list or, as NetworkX's node-link
data before 3.6 (and ``node_link_data(g, edges="links")``) write them, its
``"links"`` list (one of the two, not both).
"""

from __future__ import annotations

import contextlib
import dataclasses
import decimal
import gc
import json
import math
import re
from pathlib import Path
from xml.etree.ElementTree import ParseError

import networkx as nx
import numpy as np

from .._text import NOT_XML, a_kind, big_int, counted, short_repr, shorten
from .._validate import underflows, weight_problem
from ..exceptions import RunFormatError
from ..limits import JSON_BYTES_PER_FILE_BYTE, check_budget, estimate_series_bytes
from ..series import SELF_WEIGHT, GraphSeries, series_from_edges, series_from_graphs
from .archives import first_bad_utf8
from .atomic import atomic_write, check_target
from .filekind import misnamed_message, missing_message
from .gexf import DIGEST_KEY, TIME_AXIS_KEY, int_ids, series_digest
from .safexml import XML_SPACE, read_graphml_series, xml_number
from .times import TimeAxis
from .times import _exact as _exact_time

__all__ = [
    "SERIES_FORMAT",
    "SERIES_SUFFIXES",
    "read_gexf",
    "read_graphml",
    "read_json",
    "write_graphml",
    "write_json",
]

SERIES_FORMAT = "baygo-graph-series"
#: Suffixes of saved series (edge lists: :mod:`.edgelist`).
SERIES_SUFFIXES = (".json", ".graphml", ".gexf")
#: Bytes a writer builds in memory per record, a node at a step (each has its self-weight)
#: or an edge at a step, before the file is written (measured with tracemalloc: at most
#: ~720 for JSON's node-link documents, ~1,720 for GraphML's multigraph and XML; as
#: resident memory above the process, 460-740 B for JSON and 2,140-2,340 B for GraphML:
#: 2,048 let a GraphML write at the budget's edge peak at 1.04x it).
WRITE_BYTES_PER_RECORD = {"JSON": 1024, "GraphML": 3072}


def _json_scalar(value):
    """``value`` as a JSON scalar (numpy scalars via ``.item()``), or TypeError."""
    value = value.item() if hasattr(value, "item") else value
    if value is not None and not isinstance(value, bool | int | float | str):
        raise TypeError(f"graph attribute value must be a scalar, got {value!r}")
    return value


def _check_label(node) -> None:
    if not isinstance(node, int | str) or isinstance(node, bool):
        raise TypeError(f"node labels must be int or str, got {node!r}")


def _xml_text(text: str, what: str, *, cr: bool = True) -> None:
    """ValueError when GraphML cannot give ``text`` back (``cr``: ``\\r`` allowed)."""
    bad = NOT_XML.search(text) or (None if cr else re.search("\r", text))
    if bad:
        raise ValueError(
            f"{what} holds {bad.group()!r}, which GraphML (XML 1.0) cannot give back; "
            "write .json, which keeps it, or change it"
        )


def _check_graphml_node(node, data: dict, seen: dict | None) -> None:
    """A new label (``seen``: XML text, no other label with the same text) and the
    node's string attributes."""
    if seen is not None:
        text = str(node)
        _xml_text(text, f"node label {node!r}")
        other = seen.setdefault(text, node)
        if other != node:
            raise ValueError(
                f"node labels {other!r} and {node!r} are both written as GraphML node id "
                f"{text!r}; write .json, which keeps them apart, or relabel"
            )
    for key, value in data.items():
        _xml_text(str(key), f"node {node!r}: attribute name {key!r}")
        if isinstance(value, str):
            _xml_text(value, f"node {node!r}: attribute {key!r} = {value!r}", cr=False)


def _graphml_doc(graphs, stochastic: bool, digest: str | None = None, axis=None) -> nx.MultiDiGraph:
    multi = nx.MultiDiGraph()
    labels, attrs, seen = [], [], {}
    for n, g in enumerate(graphs):
        for node, data in g.nodes(data=True):
            _check_label(node)
            new = node not in multi
            labels += [node] if new else []
            _check_graphml_node(node, data, seen if new else None)
        multi.add_nodes_from(g.nodes(data=True))
        edges = list(g.edges(data="weight", default=1.0))
        multi.add_edges_from((u, v, {"step": n, "weight": float(w)}) for u, v, w in edges)
        attrs.append({str(k): _json_scalar(v) for k, v in g.graph.items()})
    multi.graph["steps"] = len(attrs)
    multi.graph["node_labels"] = json.dumps(labels)
    multi.graph["step_graphs"] = json.dumps(attrs)
    if stochastic:
        multi.graph["row_stochastic"] = True
    if digest is not None:
        multi.graph["digest"] = DIGEST_KEY + digest
    if axis is not None:
        multi.graph["time_axis"] = json.dumps(axis.as_dict())
    return multi


def _json_text(graphs, digest: str, axis=None) -> str:
    docs = []
    for g in graphs:
        for node in g.nodes:
            _check_label(node)
        docs.append(nx.node_link_data(g, edges="edges"))
    doc = {"format": SERIES_FORMAT, "row_stochastic": True, "digest": DIGEST_KEY + digest}
    if axis is not None:
        doc["time_axis"] = axis.as_dict()
    return json.dumps(doc | {"graphs": docs})


def _check_write_budget(series, fmt: str, path) -> None:
    """BudgetError before a JSON or GraphML document of ``series`` is built: both hold
    every node at every step (its self-weight) and every edge at every step."""
    if not isinstance(series, GraphSeries):
        raise TypeError(f"series must be a GraphSeries, got {type(series).__name__}")
    t, m = series.n_steps, series.n_agents
    if series.fixed is not None:
        edges = t * len(series.window_edges(0, 1)[0])
    else:
        edges = len(series.edges[1])
    check_budget(
        WRITE_BYTES_PER_RECORD[fmt] * (t * m + edges),
        what=f"writing {shorten(repr(Path(path).name), 60)} as {fmt} ({counted(t, 'step')} x "
        f"{counted(m, 'node')}, "
        f"{edges} edge-steps)",
        advice="write fewer steps (series.head(n)) or .gexf (each node once)",
    )


def _step_graphs(series, attrs):
    if not isinstance(series, GraphSeries):
        raise TypeError(f"series must be a GraphSeries, got {type(series).__name__}")
    for g in series.graphs():
        g = _plain_int_labels(g)
        g.graph.update(attrs or {})
        yield g


def write_json(series, path, *, attrs=None, overwrite: bool = False) -> Path:
    """Write a series as node-link JSON: ``{"format": "baygo-graph-series",
    "row_stochastic": true, "digest": ..., "graphs": [...]}``, one NetworkX node-link
    document per step (its W: edge ``j -> i`` with ``weight`` = ``w_ij``, self-loops
    included).

    Parameters
    ----------
    series : GraphSeries
        Node labels int or str.
    path : str or os.PathLike
    attrs : dict, optional
        Graph attributes added to every step (e.g. ``{"strategy": "baygo"}``).
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work: every writer's rule).

    Returns
    -------
    pathlib.Path
        The file written (atomically); :func:`read_json` gives the series back
        exactly (labels, steps, weights).

    Raises
    ------
    BudgetError
        Before anything is built, when the document (every node and edge at every
        step, :data:`WRITE_BYTES_PER_RECORD`) would exceed the memory budget.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph.series import series_from_graphs
    >>> s = series_from_graphs([nx.DiGraph([("a", "b")]), nx.DiGraph([(1, "a")])])
    >>> back = read_json(write_json(s, tempfile.mkdtemp() + "/s.json"))
    >>> back.nodes == s.nodes, back.n_steps
    (True, 2)
    """
    check_target(path, overwrite=overwrite)
    _check_write_budget(series, "JSON", path)
    text = _json_text(_step_graphs(series, attrs), series_digest(series), series.time_axis)
    return atomic_write(Path(path), lambda fh: fh.write(text.encode()), overwrite=overwrite)


def write_graphml(series, path, *, attrs=None, overwrite: bool = False) -> Path:
    """Write a series as one GraphML multi-digraph holding every step's edges (W,
    self-loops included), each with attributes ``step`` and ``weight``; graph
    attributes ``steps`` = T, ``node_labels`` and ``step_graphs`` (JSON lists of the
    labels and of each step's graph attributes), ``row_stochastic``.

    Parameters
    ----------
    series : GraphSeries
    path : str or os.PathLike
    attrs : dict, optional
        Graph attributes added to every step.
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work: every writer's rule).

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Raises
    ------
    ValueError
        For a label or node attribute GraphML cannot give back (a character
        outside XML 1.0, two labels with the same text such as ``1`` and ``"1"``, a
        carriage return in a string attribute); nothing is written.
    BudgetError
        Before anything is built, as :func:`write_json`.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph.series import series_from_graphs
    >>> s = series_from_graphs([nx.DiGraph([("a", "b")])])
    >>> read_graphml(write_graphml(s, tempfile.mkdtemp() + "/s.graphml")).nodes
    ('a', 'b')
    >>> write_graphml(series_from_graphs([nx.DiGraph([(1, "1")])]),
    ...               tempfile.mkdtemp() + "/c.graphml")
    Traceback (most recent call last):
    ...
    ValueError: node labels 1 and '1' are both written as GraphML node id '1'; ...
    """
    check_target(path, overwrite=overwrite)
    _check_write_budget(series, "GraphML", path)
    multi = _graphml_doc(_step_graphs(series, attrs), True, series_digest(series), series.time_axis)
    return atomic_write(Path(path), lambda fh: nx.write_graphml(multi, fh), overwrite=overwrite)


def _plain_int_labels(g):
    """``g`` with numpy integer labels as Python ints (what JSON and GraphML write)."""
    ints = {n: int(n) for n in g if isinstance(n, np.integer)}
    return nx.relabel_nodes(g, ints) if ints else g


def _labels(ids, written) -> dict:
    """GraphML's string node ids -> the labels written (``node_labels``), else ints
    when every id parses as one, else the strings."""
    if written is None:
        return int_ids(ids)
    labels = json.loads(written)
    ok = isinstance(labels, list) and all(
        isinstance(n, int | str) and not isinstance(n, bool) for n in labels
    )
    mapping = {str(n): n for n in labels} if ok else {}
    if not ok or len(mapping) != len(labels) or set(mapping) != set(ids):
        raise RunFormatError("graph attribute node_labels does not list the file's node ids")
    return mapping


def _step_attrs(written, steps: int) -> list[dict]:
    attrs = json.loads(written) if written is not None else [{}] * steps
    if not isinstance(attrs, list) or len(attrs) != steps:
        got = len(attrs) if isinstance(attrs, list) else type(attrs).__name__
        raise RunFormatError(f"step_graphs lists {counted(got, 'step')}, steps is {big_int(steps)}")
    scalar = bool | int | float | str | None
    if not all(isinstance(a, dict) and all(isinstance(v, scalar) for v in a.values())
               for a in attrs):  # fmt: skip
        raise RunFormatError("step_graphs must hold one dict of scalars per step")
    return attrs


def _read_graphml(path) -> tuple[list[nx.DiGraph], bool, object, object]:
    """The file's step graphs (through :mod:`.safexml`: defusedxml, range and memory
    checks; labels restored), whether it marks its weights ``row_stochastic``, the
    digest written with it (None for a file made elsewhere) and its time axis (None)."""
    graphs, data = read_graphml_series(path, node_type=str, graph_data=True)
    ids = list(graphs[0].nodes) if graphs else []
    mapping = _labels(ids, data.get("node_labels"))
    attrs = _step_attrs(data.get("step_graphs"), len(graphs))
    same = all(k == v for k, v in mapping.items())
    out = []
    for g, a in zip(graphs, attrs, strict=True):
        g = g if same else nx.relabel_nodes(g, mapping, copy=True)
        g.graph.clear()
        g.graph.update(a)
        out.append(g)
    axis = data.get("time_axis")
    if axis is not None:
        try:
            axis = json.loads(axis)
        except (TypeError, ValueError):
            raise RunFormatError("its graph data 'time_axis' is not JSON") from None
    return out, data.get("row_stochastic") is True, data.get("digest"), axis


#: How far a row of a file that says it holds W (``row_stochastic``) may sum from 1:
#: shortest float text round-trips exactly; sums of many rounded terms move a little.
ROW_SUM_TOLERANCE = 1e-9


def _check_rows(graphs) -> None:
    """A file that says it holds each step's W: every row with an in-edge sums to 1."""
    for t, g in enumerate(graphs):
        sums: dict = {}
        for u, v, w in g.edges(data="weight", default=1.0):
            pairs = ((u, v), (v, u)) if not g.is_directed() and u != v else ((u, v),)
            for _, hearer in pairs:
                sums[hearer] = sums.get(hearer, 0.0) + (w if isinstance(w, int | float) else 0)
        bad = next((n for n, x in sums.items() if abs(x - 1) > ROW_SUM_TOLERANCE), None)
        if bad is not None:
            raise RunFormatError(
                f"step {t}: node {shorten(repr(bad), 40)}'s weights sum to {sums[bad]:.6g}, not "
                "1, though the file says it holds row-stochastic weights (row_stochastic)"
            )


class _KeepsItsWeights(ValueError):
    """``self_weight`` given for a file that holds each step's W: an option error, not a
    fault of the file (never wrapped as "not a readable graph series")."""


def _rule(stochastic: bool, self_weight, path: Path):
    """The self-weight rule of a series file: None (its weights as stored) for a file
    that holds each step's W (written by :func:`baygo_graph.write_series`); the rule
    given, else the default, for one made elsewhere (edges, as from an edge list)."""
    if not stochastic:
        return SELF_WEIGHT if self_weight is None else self_weight
    if self_weight is not None:
        raise _KeepsItsWeights(
            f"self_weight={shorten(str(self_weight), 20)}: {shorten(repr(path.name), 80)} "
            "holds each step's weights (written by write_series), which it keeps; the "
            "self-weight rule applies to series built from edges"
        )
    return None


def _from_graphs(graphs, stochastic: bool, rule=None) -> GraphSeries:
    if not graphs:
        raise RunFormatError("it holds no step: a series needs at least one")
    if stochastic:
        _check_rows(graphs)
    try:
        return series_from_graphs(graphs, stochastic=stochastic, self_weight=rule)
    except (ValueError, TypeError) as e:
        raise RunFormatError(str(e)) from None


def _kind(value, kinds, what: str):
    if not isinstance(value, kinds):
        raise RunFormatError(f"{what} must be a {kinds.__name__}, got {value!r:.60}")
    return value


def _edges_key(doc: dict, where: str) -> str:
    """``"edges"``, or ``"links"``: NetworkX's node-link key before 3.6 (and with
    ``edges="links"``)."""
    keys = [k for k in ("edges", "links") if k in doc]
    if len(keys) != 1:
        raise RunFormatError(
            f"{where}: needs one list of edges, 'edges' or 'links' (NetworkX node-link data), "
            + ("got both" if keys else "got neither")
        )
    return keys[0]


def _check_ids(ids: list, what: str) -> None:
    """Node ids (and edge ends) are ints or strings; a JSON null names no node."""
    if not set(map(type, ids)) <= {int, str}:
        bad = next(n for n in ids if type(n) not in (int, str))
        why = " (a JSON null names no node)" if bad is None else ""
        raise RunFormatError(f"{what} {shorten(repr(bad), 60)} is not an int or a string{why}")


def _json_step(doc, t: int) -> nx.DiGraph:
    """One node-link document as a DiGraph, with the checks of the module docstring."""
    where = f"graph {t}"
    _kind(doc, dict, where)
    directed = _kind(doc.get("directed", True), bool, f"{where}: 'directed'")
    multigraph = _kind(doc.get("multigraph", False), bool, f"{where}: 'multigraph'")
    if "nodes" not in doc:
        raise RunFormatError(f"{where}: no 'nodes' list")
    nodes = _kind(doc["nodes"], list, f"{where}: 'nodes'")
    key = _edges_key(doc, where)
    edges = _kind(doc[key], list, f"{where}: {key!r}")
    g = nx.DiGraph()
    g.graph.update(_kind(doc.get("graph", {}), dict, f"{where}: 'graph'"))
    said = g.graph.get("step", t)  # write_series writes each graph's step: its position
    if type(said) is not int or said != t:  # a gap, a repeat, a reversal: never taken
        raise RunFormatError(  # silently by list order (hostile22 Q14)
            f"{where} says step {shorten(repr(said), 40)}: the graphs of a JSON series are "
            "its steps in list order (0, 1, 2, ...): give one graph per step, empty ones too"
        )
    for k, d in enumerate(nodes):
        if "id" not in _kind(d, dict, f"{where}: node {k}"):
            raise RunFormatError(f"{where}: node {k} has no 'id'")
    ids = [d.pop("id") for d in nodes]
    _check_ids(ids, f"{where}: node id")
    g.add_nodes_from(ids)
    if len(g) != len(ids):
        raise RunFormatError(f"{where}: a node id is declared twice")
    node_data = g.nodes
    for n, d in zip(ids, nodes, strict=True):
        if d:
            node_data[n].update(d)
    if multigraph:
        for d in edges:
            d.pop("key", None)
    for k, d in enumerate(edges):
        missing = [e for e in ("source", "target") if e not in _kind(d, dict, f"{where}: edge {k}")]
        if missing:
            raise RunFormatError(f"{where}: edge {k} has no {missing[0]!r}")
    pairs = [(d.pop("source"), d.pop("target"), d) for d in edges]
    _check_ids([u for u, _, _ in pairs], f"{where}: edge source")
    _check_ids([v for _, v, _ in pairs], f"{where}: edge target")
    for u, v, d in pairs:  # the words of each case (weight_problem), naming the edge
        if "weight" not in d:
            continue
        w = d["weight"]
        if isinstance(w, _Written):  # a number no double holds, as written
            value, problem = shorten(w.text, 40), weight_problem(decimal.Decimal(w.text))
        else:
            value, problem = short_repr(w, 40), weight_problem(w)
        if problem is not None:
            raise RunFormatError(
                f"{where}: edge ({short_repr(u, 30)}, {short_repr(v, 30)}) has a weight "
                f"{value}: {problem}"
            )
    # undirected: both ways (a self-loop once); every edge is one contact: parallel
    # edges of the step add their weights, as rows of an edge list do
    both = (e for u, v, d in pairs for e in ((u, v, d), (v, u, d))[: 1 + (u != v)])
    adj = g.adj
    for u, v, d in pairs if directed else both:
        if u in adj and v in adj[u]:
            have = adj[u][v]
            w = have.get("weight", 1) + d.get("weight", 1)
            have.update(d)
            have["weight"] = w
        else:
            g.add_edge(u, v, **d)
    if len(g) != len(ids):
        declared = set(ids)
        k, (u, v, _) = next((k, e) for k, e in enumerate(pairs) if not {e[0], e[1]} <= declared)
        bad = u if u not in declared else v
        raise RunFormatError(
            f"{where}: edge {k} joins the undeclared node {shorten(repr(bad), 60)}"
        )
    return g


class _Written(float):
    """A JSON number no double holds, with its text: nonzero as written and 0.0 as a
    double (``1e-400``), or finite as written and inf as a double (``1e999``)."""

    text: str


def _json_float(text: str) -> float:
    """JSON's ``parse_float``: the double, or a :class:`_Written` that remembers its text
    (JSON's own ``Infinity`` and ``NaN`` are constants, never given here)."""
    value = float(text)
    if underflows(text, value) or math.isinf(value):
        value = _Written(value)
        value.text = text
    return value


def _json_object(pairs: list) -> dict:
    """A JSON object, refused when it gives one key twice: ``json`` keeps the last value
    silently (an edge's ``"weight": 1, "weight": 5`` read as 5, a second ``"graphs"``
    list replacing the first; hostile round 14, S12)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: dict = {}
        for key, value in pairs:
            if key in seen:
                one, two = (_json_shown(v) for v in (seen[key], value))
                raise RunFormatError(f"an object gives the key {shorten(repr(key), 40)} twice "
                                     f"({one} and {two}): which holds? keep one")  # fmt: skip
            seen[key] = value
    return out


def _json_shown(value) -> str:
    if isinstance(value, list | dict):
        return f"{a_kind('list' if isinstance(value, list) else 'object')} of {len(value)}"
    return shorten(repr(value), 40)


def _read_json(path: Path) -> tuple[list[nx.DiGraph], bool, object, object]:
    """The file's step graphs, whether it marks its weights ``row_stochastic``, the
    digest written with it (None for a file made elsewhere) and its time axis (None)."""
    check_budget(JSON_BYTES_PER_FILE_BYTE * path.stat().st_size, what=f"parsing {path.name}")
    try:
        doc = json.loads(  # a byte-order mark is no error
            path.read_text(encoding="utf-8-sig"), parse_float=_json_float,
            object_pairs_hook=_json_object,
        )  # fmt: skip
    except RunFormatError as e:
        raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != SERIES_FORMAT:
        raise RunFormatError(f"{str(path)!r} is not a baygo graph series")
    out = []
    try:
        docs = _kind(doc.get("graphs"), list, "'graphs'")
        for t in range(len(docs)):
            step, docs[t] = docs[t], None  # each parsed step freed once built
            out.append(_json_step(step, t))
    except RunFormatError as e:
        raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from None
    return out, doc.get("row_stochastic") is True, doc.get("digest"), doc.get("time_axis")


#: GEXF's boolean texts (what NetworkX's reader accepts).
_GEXF_BOOL = {"true": True, "false": False, "1": True, "0": False}
#: The titles of an edge attribute that is the edge's weight: GEXF's own ``weight``
#: (Gephi's dynamic weights: ``<attvalue for="weight" start= end=>``) and the
#: ``step_weight`` that :func:`baygo_graph.io.gexf.write_gexf` writes.
_WEIGHT_TITLES = ("weight", "step_weight")


def _gexf_time(text: str, where: str) -> int:
    """A GEXF time as an exact integer step (``3``, ``3.0``, ``1e3``), else one line."""
    value = _exact_time(text)
    if isinstance(value, str) or not -(2**63) <= value < 2**63:
        raise RunFormatError(
            f"{where}: time {shorten(repr(text), 40)} is not an integer step; baygo reads "
            "GEXF files with integer times (timeformat integer or long, or whole doubles)"
        )
    return value


#: Timing that GEXF 1.3 also writes inline, as text (``spells="<[5,5]>"``): never
#: guessed at, refused naming the element (its ``<spells>``/``<timestamps>`` are read).
_INLINE_TIMING = ("spells", "timestamps")


def _interval(el, where: str, *, attrs=("start", "end")) -> tuple:
    """The closed steps ``(first, last)`` of an element's ``start``/``end`` (or the
    exclusive ``startopen``/``endopen``, or GEXF 1.3's ``timestamp``: that one step);
    None where it names no bound."""
    inline = next((k for k in _INLINE_TIMING if el.get(k) is not None), None)
    if inline is not None:
        child = "<spell start=.. end=../>" if inline == "spells" else "<timestamp value=../>"
        raise RunFormatError(
            f"{where}: the inline {inline}={shorten(repr(el.get(inline)), 30)} form is not read: "
            f"give <{inline}>{child}</{inline}>, or start/end"
        )
    stamp = el.get("timestamp")
    if stamp is not None:
        if any(el.get(k) is not None for k in (*attrs, "startopen", "endopen")):
            raise RunFormatError(f"{where}: both a timestamp and start/end given")
        step = _gexf_time(stamp, where)
        return step, step
    a, b = (el.get(k) for k in attrs)
    a_open, b_open = el.get("startopen"), el.get("endopen")
    if (a is not None and a_open is not None) or (b is not None and b_open is not None):
        raise RunFormatError(f"{where}: both start and startopen (or end and endopen) given")
    first = _gexf_time(a, where) if a is not None else (
        _gexf_time(a_open, where) + 1 if a_open is not None else None)  # fmt: skip
    last = _gexf_time(b, where) if b is not None else (
        _gexf_time(b_open, where) - 1 if b_open is not None else None)  # fmt: skip
    if first is not None and last is not None and first > last:
        raise RunFormatError(
            f"{where}: its interval starts at step {first} after it ends ({last}): it holds no step"
        )
    return first, last


def _children(el, tag: str) -> list:
    return [c for c in el if _local(c.tag) == tag]


def _spells(el, where: str) -> list[tuple]:
    """An edge's intervals of presence: its ``<spell>`` (GEXF 1.1: ``<slice>``) and
    GEXF 1.3 ``<timestamp>`` elements (one step each), else its own
    ``start``/``end`` or ``timestamp`` (none: every step)."""
    spells = [s for box in _children(el, "spells") + _children(el, "slices")
              for s in box if _local(s.tag) in ("spell", "slice")]  # fmt: skip
    stamps = [s for box in _children(el, "timestamps") for s in box
              if _local(s.tag) == "timestamp"]  # fmt: skip
    if not spells and not stamps:
        return [_interval(el, where)]
    _interval(el, where)  # an inline form beside the elements is refused too
    out = [_interval(s, f"{where} spell {k}") for k, s in enumerate(spells)]
    for k, s in enumerate(stamps):
        value = s.get("value")
        if value is None:
            raise RunFormatError(f"{where} timestamp {k}: no value")
        out.append((_gexf_time(value, f"{where} timestamp {k}"),) * 2)
    return out


def _attributes(graph) -> dict:
    """``{(class, id): title}`` of the graph's ``<attribute>`` declarations."""
    out = {}
    for box in _children(graph, "attributes"):
        for a in _children(box, "attribute"):
            out[(box.get("class"), a.get("id"))] = a.get("title")
    return out


def _attvalues(el, ids: set, where: str) -> list[tuple]:
    """``(value text, first, last)`` of an element's attvalues for one of ``ids``."""
    return [
        (a.get("value"), *_interval(a, f"{where} attvalue {k}"))
        for box in _children(el, "attvalues")
        for k, a in enumerate(_children(box, "attvalue"))
        if a.get("for") in ids
    ]


def _weight(text, where: str) -> float:
    w = xml_number(text, "double") if isinstance(text, str) else None
    if w is None:
        problem = "it is not a number: weights are real numbers >= 0"
    else:  # the number as written, for the words of its case (weight_problem)
        problem = weight_problem(decimal.Decimal(text.strip(XML_SPACE)))
    if problem is not None:
        raise RunFormatError(f"{where}: weight {shorten(repr(text), 40)}: {problem}")
    return w


def _runs(values: list[tuple], first: int, last: int, where: str) -> list[tuple]:
    """Timed values ``(w, a, b)`` with open ends closed at the file's first/last step,
    sorted; two that share a step are refused (which would hold?)."""
    runs = sorted((w, first if a is None else a, last if b is None else b) for w, a, b in values)
    runs.sort(key=lambda r: r[1])
    for (_, _, b), (_, a2, _) in zip(runs, runs[1:], strict=False):
        if a2 <= b:
            raise RunFormatError(f"{where}: two weights are given for step {a2}")
    return runs


def _union(intervals: list[tuple]) -> list[tuple]:
    """Closed intervals as the sorted disjoint ones holding the same steps (an edge's
    spells and timestamps: one that overlaps or repeats another adds no second contact;
    an empty one, start after end, holds none).

    Examples
    --------
    >>> _union([(2, 4), (1, 3), (2, 2), (7, 7), (9, 8)])
    [(1, 4), (7, 7)]
    """
    out: list[list] = []
    for a, b in sorted(i for i in intervals if i[0] <= i[1]):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _pieces(a: int, b: int, runs: list[tuple], static: float) -> list[tuple]:
    """Steps ``a..b`` cut into ``(weight, first, last)``: each timed weight where it
    holds, ``static`` in between."""
    out, t = [], a
    for w, s, e in runs:
        if e < t:
            continue
        if s > b:
            break
        if s > t:
            out.append((static, t, s - 1))
        out.append((w, max(s, t), min(e, b)))
        t = min(e, b) + 1
        if t > b:
            break
    if t <= b:
        out.append((static, t, b))
    return out


def _heard_loops(selfs: list, spans: list) -> list:
    """Self-loop spans ``(n, n, w, a, b)``, those of weight 1 cut to the steps where their
    node hears someone (a span of ``spans`` ends at it): a row holding its self-loop 1
    alone is the identity's, which a series leaves implicit. write_gexf writes ``w_ii = 1``
    over each idle stretch; expanded step by step, two contacts 10^6 steps apart would be
    2 x 10^6 entries (hostile round 13, R6's reader side). The series' W is the same."""
    import bisect

    heard: dict = {}
    for _, v, _, a, b in spans:
        heard.setdefault(v, []).append((a, b))
    merged = {}
    for v, spells in heard.items():  # each node's steps with an in-edge, as sorted intervals
        out = []
        for a, b in sorted(spells):
            if out and a <= out[-1][1] + 1:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        merged[v] = ([a for a, _ in out], [b for _, b in out])
    kept = []
    for n, _, w, a, b in selfs:
        if w != 1.0:
            kept.append((n, n, w, a, b))
            continue
        starts, ends = merged.get(n, ([], []))
        k = bisect.bisect_left(ends, a)  # the first interval ending at or after a
        while k < len(starts) and starts[k] <= b:
            kept.append((n, n, w, max(a, starts[k]), min(b, ends[k])))
            k += 1
    return kept


def _gexf_nodes(graph, titles: dict) -> tuple[list, list, list]:
    """Node ids (file order, unique), the informative ones and the timed self-weights."""
    informative = {i for (c, i), t in titles.items() if c == "node" and t == "informative"}
    selfs = {i for (c, i), t in titles.items() if c == "node" and t == "self_weight"}
    ids, seen, flags, loops = [], set(), [], []
    boxes = _children(graph, "nodes")
    for k, node in enumerate(n for box in boxes for n in box.iter() if _local(n.tag) == "node"):
        i = node.get("id")
        if i is None:
            raise RunFormatError(f"node {k} (<node> element) has no id")
        if i in seen:
            raise RunFormatError(
                f"node {k} repeats the id {shorten(repr(i), 60)}: two nodes cannot share one"
            )
        seen.add(i)
        ids.append(i)
        where = f"node {shorten(repr(i), 40)}"
        marks = _attvalues(node, informative, where)
        bad = next((v for v, *_ in marks if str(v).strip().lower() not in _GEXF_BOOL), None)
        if bad is not None:  # never dropped silently (one rule with graphs, GraphML)
            raise RunFormatError(
                f"{where}: informative={shorten(repr(bad), 40)} is not a boolean (true, false, "
                "1 or 0): mark the informative agent true"
            )
        if any(_GEXF_BOOL[str(v).strip().lower()] for v, *_ in marks):
            flags.append(i)
        loops += [(i, _weight(v, where), a, b) for v, a, b in _attvalues(node, selfs, where)]
    return ids, flags, loops


def _read_gexf(path: Path, self_weight=None) -> GraphSeries:
    """A static or dynamic GEXF file as a series (rules: ``docs/formats.md``, "GEXF").

    The XML is parsed with defusedxml (DTDs and entities refused) and read here:
    times are integer steps, intervals closed (``startopen``/``endopen``
    exclusive); a spell or value with no start (end) holds from the file's first
    (to its last) step: the graph's ``start``/``end`` when given, else the
    smallest (largest) time the file names. An edge holds at the steps of its
    spells (none: every step); its weight at a step is the ``weight`` attvalue
    (Gephi's dynamic weight) or ``step_weight`` attvalue (ours) whose interval
    holds the step, else its ``weight`` attribute, else 1. Undirected and mutual
    edges hold both ways; parallel edges add. A node's ``self_weight`` attvalues
    give its self-loop; ``informative`` is kept. Node ids read back as ints when
    every id is an integer written the canonical way, as text otherwise.
    """
    import defusedxml.ElementTree as DET

    check_budget(16 * path.stat().st_size, what=f"parsing {path.name}")
    try:  # defusedxml refuses DTDs, entity expansion, external references
        root = DET.parse(path).getroot()
    except LookupError as e:  # the XML declaration's encoding (one flipped bit: "ttf-8")
        name = str(e).removeprefix("unknown encoding: ")
        raise RunFormatError(
            f"its XML declaration names the unknown encoding {shorten(repr(name), 40)}"
        ) from None
    graph = next(iter(_children(root, "graph")), None)
    if _local(root.tag) != "gexf" or graph is None:
        raise RunFormatError("not GEXF (no <gexf><graph>)")
    default = graph.get("defaultedgetype", "undirected")  # GEXF's default
    if default not in ("directed", "undirected", "mutual"):
        raise RunFormatError(
            f"<graph> defaultedgetype must be directed, undirected or mutual, got "
            f"{shorten(repr(default), 40)}"
        )
    titles = _attributes(graph)
    weight_ids = {i for (c, i), t in titles.items() if c == "edge" and t in _WEIGHT_TITLES}
    if ("edge", "weight") not in titles:
        weight_ids.add("weight")  # Gephi's undeclared dynamic weight
    ids, flags, loops = _gexf_nodes(graph, titles)
    known = set(ids)
    edges = []  # (u, v, two-way, static weight, presence intervals, timed weights)
    elements = [e for box in _children(graph, "edges") for e in _children(box, "edge")]
    for k, e in enumerate(elements):
        ends = [e.get("source"), e.get("target")]
        for end, value in zip(("source", "target"), ends, strict=True):
            if value is None:
                raise RunFormatError(f"edge {k} (<edge> element) has no {end}")
            if value not in known:
                raise RunFormatError(
                    f"edge {k} ({end} {shorten(repr(value), 60)}) joins a node not declared "
                    "in <nodes>: GEXF requires declared nodes"
                )
        where = f"edge {k} ({shorten(ends[0], 30)} -> {shorten(ends[1], 30)})"
        kind = e.get("type", default)
        if kind not in ("directed", "undirected", "mutual"):  # never guessed two-way
            raise RunFormatError(
                f"{where}: type must be directed, undirected or mutual, got "
                f"{shorten(repr(kind), 40)}"
            )
        static = _weight(e.get("weight", "1"), where)
        timed = [(_weight(v, where), a, b) for v, a, b in _attvalues(e, weight_ids, where)]
        untimed = [w for w, a, b in timed if a is None and b is None]
        if len(untimed) > 1:  # each holds at every step: which one? (as for timed ones)
            raise RunFormatError(f"{where}: two weights are given for every step "
                                 f"({untimed[0]!r} and {untimed[1]!r}): keep one")  # fmt: skip
        static = untimed[0] if untimed else static
        timed = [t for t in timed if t[1:] != (None, None)]
        edges.append((*ends, kind != "directed", static, _spells(e, where), timed, where))
    bounds = [t for *_, spells, timed, _ in edges for _, *ab in [(0, *s) for s in spells] + timed
              for t in ab if t is not None]  # fmt: skip
    bounds += [t for *_, a, b in loops for t in (a, b) if t is not None]
    bounds += [t for t in _interval(graph, "<graph>") if t is not None]
    first, last = (min(bounds), max(bounds)) if bounds else (0, 0)
    spans = []  # (u, v, weight, first, last)
    for u, v, two_way, static, spells, timed, where in edges:
        runs = _runs(timed, first, last, where)
        closed = [(first if a is None else a, last if b is None else b) for a, b in spells]
        for a, b in _union(closed):  # an edge holds at a step or not: overlaps count once
            pieces = _pieces(a, b, runs, static)
            spans += [(u, v, w, s, t) for w, s, t in pieces]
            if two_way and u != v:
                spans += [(v, u, w, s, t) for w, s, t in pieces]
    selfs = [(n, n, w, first if a is None else a, last if b is None else b) for n, w, a, b in loops]
    for n in dict.fromkeys(n for n, *_ in loops):  # one self-weight a step, as for a weight
        _runs([(w, a, b) for m, _, w, a, b in selfs if m == n], first, last,
              f"node {shorten(repr(n), 40)} self_weight")  # fmt: skip
    spans += _heard_loops([x for x in selfs if x[3] <= x[4]], spans)
    steps = last - first + 1
    entries = sum(b - a + 1 for *_, a, b in spans)
    check_budget(  # counted before the spells are expanded (one spell may claim millions):
        estimate_series_bytes(entries, nodes=len(ids), steps=steps),  # the tree is held
        what=f"{path.name}: {counted(steps, 'step')} x {counted(len(ids), 'node')} and {entries} "
        "edge-steps (its spells)",
    )
    mapping = int_ids(ids)
    index = {n: k for k, n in enumerate(ids)}
    length = np.array([b - a + 1 for *_, a, b in spans], dtype=np.int64)
    offset = np.repeat(np.cumsum(length) - length, length)
    step = np.repeat(np.array([a - first for *_, a, _ in spans], dtype=np.int64), length)
    step += np.arange(entries, dtype=np.int64) - offset
    row = np.repeat(np.array([index[v] for _, v, *_ in spans], dtype=np.int64), length)
    col = np.repeat(np.array([index[u] for u, *_ in spans], dtype=np.int64), length)
    weight = np.repeat(np.array([w for _, _, w, *_ in spans], dtype=float), length)
    meta = {_local(e.tag): (e.text or "") for e in root.iter() if _local(e.tag) in _META}
    synthetic = meta.get("creator") == "baygo-graph" and "SYNTHETIC DATA" in meta.get(
        "description", ""
    )  # the mark write_gexf puts on every file of synthetic data
    order = np.argsort(step, kind="stable")
    stochastic = bool(selfs) or meta.get("creator") == "baygo-graph"  # write_gexf: W
    series = series_from_edges(
        step[order], row[order], col[order], weight[order], n_steps=steps,
        nodes=[mapping[n] for n in ids], informative=index[flags[0]] if len(flags) == 1 else None,
        stochastic=stochastic, synthetic=synthetic,
        self_weight=_rule(stochastic, self_weight, path),
    )  # fmt: skip
    written = re.search(re.escape(DIGEST_KEY) + r"([0-9a-f]{64})", meta.get("keywords", ""))
    axis = meta.get("keywords", "").partition(TIME_AXIS_KEY)[2] if written is not None else ""
    if axis:
        try:
            axis = json.loads(axis)
        except ValueError:
            raise RunFormatError(f"its <keywords> {TIME_AXIS_KEY.strip()} is not JSON") from None
    if not axis and bounds and meta.get("creator") != "baygo-graph":  # made elsewhere: its
        axis = {"start": str(first), "bin": 1}  # integer times, step 0 at the first one
    series = with_time_axis(series, axis or None)
    if written is not None:  # the axis is part of what the digest covers
        _check_digest(series, DIGEST_KEY + written.group(1), "the <keywords> baygo-digest")
        described = meta.get("description", "")
        if series.time_axis is not None and (
            series.time_axis.describe() not in described or described.count("1 step = ") != 1
        ):  # one axis, the one its <keywords> hold (a second sentence: hostile20's nit)
            raise RunFormatError(
                "its <description> does not state the one time axis its <keywords> hold ("
                "the file was changed or damaged after write_series wrote it): write it again"
            )
    return series


def with_time_axis(series, written) -> GraphSeries:
    """``series`` with the time axis its file wrote (:meth:`.times.TimeAxis.as_dict`;
    None: a file without one reads as before, steps only); a damaged one refused."""
    if written is None:
        return series
    try:
        axis = TimeAxis.from_dict(written)
    except ValueError as e:
        raise RunFormatError(f"its time_axis cannot be read ({e})") from None
    return dataclasses.replace(series, time_axis=axis)


def _check_digest(series, written, where: str) -> None:
    """Refuse a series that does not give back the digest its file was written with
    (:func:`~baygo_graph.io.gexf.series_digest`: one flipped bit of a label, a weight,
    a key name); ``written`` None: a file made elsewhere, read as it is."""
    if written is None:
        return
    ok = isinstance(written, str) and re.fullmatch(re.escape(DIGEST_KEY) + "[0-9a-f]{64}", written)
    if not ok or written != DIGEST_KEY + series_digest(series):
        if (
            ok
            and series.time_axis is not None
            and written == DIGEST_KEY + series_digest(dataclasses.replace(series, time_axis=None))
        ):  # all but the axis match: a digest of before the axis was covered (hostile20 Y7)
            raise RunFormatError(
                "its digest leaves out its time axis (written by a baygo before the digest "
                "covered it, or the axis changed since): write it again, or remove "
                f"{where} to read it as it is"
            )
        raise RunFormatError(
            "its series does not match the digest written with it (the file was changed "
            f"or damaged after write_series wrote it): write it again, or remove {where} to "
            "read it as it is"
        )


def _local(tag) -> str:
    """An element's tag without its namespace."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


_META = ("creator", "description", "keywords")


@contextlib.contextmanager
def _no_gc():
    """Garbage collection paused: reading makes millions of dicts (no reference
    cycles), and the collector's passes over them would double the time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _read(path, reader) -> GraphSeries:
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(missing_message(path, "graph series", "graph series"))
    if why := misnamed_message(path, renamable=False):  # gzip bytes named .json (Q13)
        raise RunFormatError(why)
    try:
        with _no_gc():
            return reader(path)
    except _KeepsItsWeights:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError,
            nx.NetworkXError, ParseError) as e:  # fmt: skip
        if why := _not_utf8(path, e):
            raise RunFormatError(f"{str(path)!r} {why}") from None
        if isinstance(e, RunFormatError):
            if repr(str(path)) in str(e):
                raise
            raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from None
        raise RunFormatError(
            f"{str(path)!r} is not a readable graph series: {shorten(repr(e), 300)}"
        ) from None


def _not_utf8(path: Path, error) -> str | None:
    """For a JSON file that is not UTF-8, or an XML one that says it is (or says no
    encoding) and is not well-formed: where its first byte that is not UTF-8 is."""
    if isinstance(error, ParseError):
        with open(path, "rb") as fh:
            head = fh.read(200)
        declared = re.search(rb"encoding=[\"']([^\"']+)", head)
        if declared and declared.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
            return None
    elif not isinstance(error, UnicodeDecodeError):
        return None
    found = first_bad_utf8(path)
    if found is None:
        return None
    line, column, bad = found
    return f"line {line}, column {column}: byte 0x{bad:02x} is not UTF-8: save the file as UTF-8"


def _with_rule(read_graphs, self_weight, where: str):
    def reader(p):
        graphs, stochastic, digest, axis = read_graphs(p)
        series = with_time_axis(
            _from_graphs(graphs, stochastic, _rule(stochastic, self_weight, p)), axis
        )
        _check_digest(series, digest, where)  # the axis is part of what it covers
        return series

    return reader


def read_json(path, *, self_weight=None) -> GraphSeries:
    """Read a node-link JSON series (:func:`write_json`, or made elsewhere alike).

    ``self_weight``: the self-weight rule of a file made elsewhere (default
    ``"equal"``, :func:`baygo_graph.series.series_from_edges`); a file that holds
    each step's W (``row_stochastic``) keeps it, and refuses the option.

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series.
    BudgetError
        When reading would exceed the memory budget (:mod:`baygo_graph.limits`).
    """
    return _read(path, _with_rule(_read_json, self_weight, "the key 'digest'"))


def read_graphml(path, *, self_weight=None) -> GraphSeries:
    """Read a GraphML series (:func:`write_graphml`, or made elsewhere: module docstring).

    ``self_weight``: as :func:`read_json`.

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series (also for hostile files:
        DTDs, entity expansion, deep nesting, out-of-range values).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.MultiGraph(steps=1); g.add_edge(0, 1, step=0, weight=0.5)
    0
    >>> p = Path(tempfile.mkdtemp()) / "u.graphml"; nx.write_graphml(g, p)  # undirected
    >>> [sorted(h.edges(data="weight")) for h in read_graphml(p, self_weight=0).graphs()]
    [[(0, 1, 1.0), (1, 0, 1.0)]]
    >>> read_graphml(p).self_weight  # made elsewhere: the default rule, as for edges
    'equal'
    """
    return _read(path, _with_rule(_read_graphml, self_weight, "the graph data 'digest'"))


def read_gexf(path, *, self_weight=None) -> GraphSeries:
    """Read a static or dynamic GEXF file with integer times (``_read_gexf``).

    ``self_weight``: as :func:`read_json` (a file of :func:`baygo_graph.write_series`,
    creator ``baygo-graph``, holds each step's W).

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series.
    """
    return _read(path, lambda p: _read_gexf(p, self_weight))
