"""Graph series files for other tools: node-link JSON and GraphML (written and read),
GEXF and edge lists (read; GEXF is written by :mod:`baygo_graph.io.gexf`, edge
lists are read by :mod:`baygo_graph.io.edgelist`).

* ``.json`` - ``{"format": "baygo-graph-series", "graphs": [...]}`` with one NetworkX
  node-link document per step (node labels and graph attributes as JSON keeps them);
* ``.graphml`` - one GraphML multi-digraph holding every step's edges, each with
  attributes ``step`` and ``weight``; graph attributes ``steps`` = T,
  ``node_labels`` (a JSON list of the node labels, so int and string labels read
  back as written) and ``step_graphs`` (a JSON list of each step's graph
  attributes, e.g. ``step``, ``strategy``, ``synthetic``).

Node labels are ints or strings. JSON keeps every such label apart and exactly
(``1`` and ``"1"``, NUL, any code point). GraphML is XML 1.0: a label that it cannot
hold (a character outside XML 1.0's, e.g. NUL) or two labels with the same text
(``1`` and ``"1"``) are refused before anything is written (``ValueError`` naming
the label), as are node attributes GraphML would not give back (such characters,
or a carriage return in a string value).

Reading gives one :class:`networkx.DiGraph` per step. An undirected edge ``{u, v}``
(GraphML ``edgedefault="undirected"`` or an edge's ``directed="false"``; a JSON
document with ``"directed": false``; an undirected graph given to
:func:`write_series`) becomes the two edges ``u -> v`` and ``v -> u`` with its
attributes: both agents hear each other (what ``Graph.to_directed()`` gives).
Parallel edges of a step (multigraphs) keep the last one's attributes.

GraphML is read through :mod:`.safexml` (defusedxml; range and memory checks). A
GraphML file made elsewhere (no ``node_labels``) reads back with int labels when
every label is an integer, string labels otherwise. JSON is read in one pass
after a memory-budget check on the file size; node ids must be ints or strings
(a JSON ``null`` names no node and is refused), each declared once, edges must
join declared nodes and their ``weight`` (when present) be a finite number
``>= 0``. A step's edges are its ``"edges"`` list or, as NetworkX's node-link
data before 3.6 (and ``node_link_data(g, edges="links")``) write them, its
``"links"`` list (one of the two, not both).
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import re
from pathlib import Path
from xml.etree.ElementTree import ParseError

import networkx as nx
import numpy as np

from .._text import shorten
from ..exceptions import RunFormatError
from ..limits import JSON_BYTES_PER_FILE_BYTE, check_budget
from .atomic import atomic_write
from .edgelist import EDGE_LIST_SUFFIXES, read_edge_list
from .filekind import describe_file
from .safexml import read_graphml_series

__all__ = ["SERIES_FORMAT", "SERIES_SUFFIXES", "read_series", "write_series"]

SERIES_FORMAT = "baygo-graph-series"
#: Suffixes :func:`read_series` reads as saved series (edge lists: :mod:`.edgelist`).
SERIES_SUFFIXES = (".json", ".graphml", ".gexf")
#: A character XML 1.0 cannot hold.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


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
    bad = _NOT_XML.search(text) or (None if cr else re.search("\r", text))
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


def _graphml_doc(graphs) -> nx.MultiDiGraph:
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
        if not g.is_directed():
            edges += [(v, u, w) for u, v, w in edges if u != v]
        multi.add_edges_from((u, v, {"step": n, "weight": float(w)}) for u, v, w in edges)
        attrs.append({str(k): _json_scalar(v) for k, v in g.graph.items()})
    multi.graph["steps"] = len(attrs)
    multi.graph["node_labels"] = json.dumps(labels)
    multi.graph["step_graphs"] = json.dumps(attrs)
    return multi


def _json_text(graphs) -> str:
    docs = []
    for g in graphs:
        for node in g.nodes:
            _check_label(node)
        docs.append(nx.node_link_data(g, edges="edges"))
    return json.dumps({"format": SERIES_FORMAT, "graphs": docs})


def write_series(graphs, path) -> Path:
    """Export a graph series for other tools.

    Parameters
    ----------
    graphs : Run or iterable of networkx.DiGraph
        Node labels int or str (the same set, or growing, over the steps). An
        undirected graph is written as its two-way digraph (``to_directed()``).
    path : str or os.PathLike
        ``.json``: node-link JSON, ``{"format": "baygo-graph-series", "graphs":
        [...]}`` with one NetworkX node-link document per step. ``.graphml``: one
        GraphML multi-digraph holding every step's edges, each with attributes
        ``step`` and ``weight`` (graph attributes ``steps`` = T, ``node_labels``
        and ``step_graphs``: JSON lists of the labels and of each step's graph
        attributes).

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Raises
    ------
    TypeError
        When a node label is not int or str, or (``.graphml``) a graph attribute
        is not a scalar.
    ValueError
        For ``.graphml``, a label or node attribute GraphML cannot give back (a
        character outside XML 1.0, two labels with the same text such as ``1`` and
        ``"1"``, a carriage return in a string attribute); nothing is written.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.DiGraph([("a", "b")], step=0); g.add_node("c")
    >>> p = write_series([g, g], tempfile.mkdtemp() + "/s.graphml")
    >>> back = read_series(p)
    >>> sorted(back[0].nodes), back[1].graph["step"], list(back[0].edges)
    (['a', 'b', 'c'], 0, [('a', 'b')])
    >>> write_series([nx.DiGraph([(1, "1")])], tempfile.mkdtemp() + "/c.graphml")
    Traceback (most recent call last):
    ...
    ValueError: node labels 1 and '1' are both written as GraphML node id '1'; ...
    """
    path = Path(path)
    graphs = graphs.graphs() if hasattr(graphs, "graphs") else graphs
    graphs = (_plain_int_labels(g) for g in graphs)
    if path.suffix.lower() == ".json":
        text = _json_text(graphs)
        atomic_write(path, lambda fh: fh.write(text.encode()))
    elif path.suffix.lower() == ".graphml":
        multi = _graphml_doc(graphs)
        atomic_write(path, lambda fh: nx.write_graphml(multi, fh))
    else:
        raise ValueError(f"path must end in .json or .graphml, got {str(path)!r}")
    return path


def _plain_int_labels(g):
    """``g`` with numpy integer labels as Python ints (what JSON and GraphML write)."""
    ints = {n: int(n) for n in g if isinstance(n, np.integer)}
    return nx.relabel_nodes(g, ints) if ints else g


def _labels(ids, written) -> dict:
    """GraphML's string node ids -> the labels written (``node_labels``), else ints
    when every id parses as one, else the strings."""
    if written is None:
        try:
            return {n: int(n) for n in ids}
        except ValueError:
            return {n: n for n in ids}
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
        raise RunFormatError(f"step_graphs lists {got} steps, steps is {steps}")
    scalar = bool | int | float | str | None
    if not all(isinstance(a, dict) and all(isinstance(v, scalar) for v in a.values())
               for a in attrs):  # fmt: skip
        raise RunFormatError("step_graphs must hold one dict of scalars per step")
    return attrs


def _read_graphml(path) -> list[nx.DiGraph]:
    """Through :mod:`.safexml` (defusedxml, range and memory checks), labels restored."""
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
    return out


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
    # undirected: both ways, in the file's order (the last {u, v} wins both ways)
    both = (e for u, v, d in pairs for e in ((u, v, d), (v, u, d)))
    g.add_edges_from(pairs if directed else both)
    if len(g) != len(ids):
        declared = set(ids)
        k, (u, v, _) = next((k, e) for k, e in enumerate(pairs) if not {e[0], e[1]} <= declared)
        bad = u if u not in declared else v
        raise RunFormatError(
            f"{where}: edge {k} joins the undeclared node {shorten(repr(bad), 60)}"
        )
    weights = [d["weight"] for _, _, d in pairs if "weight" in d]
    if not set(map(type, weights)) <= {int, float} or not all(
        math.isfinite(w) and w >= 0 for w in weights
    ):
        bad = next(w for w in weights if type(w) not in (int, float) or not 0 <= w < math.inf)
        raise RunFormatError(f"{where}: edge weight must be finite and >= 0, got {bad!r:.60}")
    return g


def _read_json(path: Path) -> list[nx.DiGraph]:
    check_budget(JSON_BYTES_PER_FILE_BYTE * path.stat().st_size, what=f"parsing {path.name}")
    doc = json.loads(path.read_text())
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
    return out


def _gexf_times(data: dict, where: str) -> list[tuple]:
    """The closed ``(start, end)`` intervals of a GEXF element (None: unbounded)."""
    if "spells" in data:
        spells = data["spells"]
    elif "start" in data or "end" in data:
        spells = [(data.get("start"), data.get("end"))]
    else:
        return [(None, None)]
    out = []
    for a, b in spells:
        for v in (a, b):
            if v is not None and (
                isinstance(v, bool) or not isinstance(v, int | float) or not float(v).is_integer()
            ):
                raise RunFormatError(
                    f"{where}: time {v!r} is not an integer step; baygo reads GEXF files "
                    "with timeformat integer (or whole-number doubles) only"
                )
        a, b = (None if a is None else int(a)), (None if b is None else int(b))
        if a is not None and b is not None and a > b:
            raise RunFormatError(f"{where}: its spell starts at step {a} after it ends ({b})")
        out.append((a, b))
    return out


def _check_gexf_nodes(root) -> None:
    """Every ``<node>`` has an ``id``, every ``<edge>`` a ``source`` and ``target``
    among them: GEXF requires edges between declared nodes (NetworkX's reader would
    add an undeclared one silently, or fail on a missing id with "None cannot be a
    node")."""
    ids = set()
    for k, node in enumerate(e for e in root.iter() if _local(e.tag) == "node"):
        if node.get("id") is None:
            raise RunFormatError(f"node {k} (<node> element) has no id")
        if node.get("id") in ids:
            raise RunFormatError(
                f"node {k} repeats the id {shorten(repr(node.get('id')), 60)}: two nodes "
                "cannot share one"
            )
        ids.add(node.get("id"))
    for k, edge in enumerate(e for e in root.iter() if _local(e.tag) == "edge"):
        for end in ("source", "target"):
            value = edge.get(end)
            if value is None:
                raise RunFormatError(f"edge {k} (<edge> element) has no {end}")
            if value not in ids:
                raise RunFormatError(
                    f"edge {k} ({end} {shorten(repr(value), 60)}) joins a node not declared "
                    "in <nodes>: GEXF requires declared nodes"
                )


def _local(tag) -> str:
    """An element's tag without its namespace."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _read_gexf(path: Path) -> list[nx.DiGraph]:
    """A static or dynamic GEXF file as one DiGraph per step.

    The XML is first parsed with defusedxml (DTDs and entities refused), then
    read by NetworkX's GEXF reader. Times are integer steps (closed intervals);
    a static file, or an edge without spells, is one step / every step. Node ids
    read back as ints when every id is an integer, strings otherwise; node
    attributes (e.g. ``informative``) are kept, dynamic ones left out.
    """
    import defusedxml.ElementTree as DET

    check_budget(16 * path.stat().st_size, what=f"parsing {path.name}")
    root = DET.parse(path).getroot()  # refuses DTDs, entity expansion, external references
    _check_gexf_nodes(root)
    g = nx.read_gexf(path)
    try:
        mapping = {n: int(n) for n in g}
    except ValueError:
        mapping = {n: n for n in g}
    edges = [
        (mapping[u], mapping[v], d.get("weight", 1.0), _gexf_times(d, f"edge {u}->{v}"))
        for u, v, d in g.edges(data=True)
    ]
    bounds = [t for *_, spells in edges for s in spells for t in s if t is not None]
    first, last = (min(bounds), max(bounds)) if bounds else (0, 0)
    steps = last - first + 1
    check_budget(600 * steps * max(len(g), 1), what=f"{steps} step graphs of {path.name}")
    static = {
        mapping[n]: {k: v for k, v in d.items() if not isinstance(v, list) and k != "label"}
        for n, d in g.nodes(data=True)
    }
    out = []
    for _ in range(steps):
        h = nx.DiGraph()
        h.add_nodes_from(static.items())
        out.append(h)
    two_way = not g.is_directed()
    for u, v, w, spells in edges:
        for a, b in spells:
            for t in range(first if a is None else a, (last if b is None else b) + 1):
                out[t - first].add_edge(u, v, weight=w)
                if two_way:
                    out[t - first].add_edge(v, u, weight=w)
    return out


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


def read_series(path, **options) -> list[nx.DiGraph]:
    """Read a graph series file: ``.json``, ``.graphml``, ``.gexf`` or an edge list.

    ``.json`` and ``.graphml`` as written by :func:`write_series` (or made
    elsewhere alike); ``.gexf`` static or dynamic with integer times (module
    docstring); ``.csv`` / ``.tsv`` / ``.parquet`` edge lists through
    :func:`baygo_graph.io.edgelist.read_edge_list` (``options``: its column
    names and ``bin``). :func:`baygo_graph.series.as_series` reads the same
    files straight into a series (faster for edge lists).

    Returns
    -------
    list of networkx.DiGraph
        One per step; undirected edges as two directed ones (module docstring).

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series (also for hostile files:
        DTDs, entity expansion, deep nesting, out-of-range values).
    BudgetError
        When reading would exceed the memory budget (:mod:`.limits`).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.MultiGraph(steps=1); g.add_edge(0, 1, step=0, weight=0.5)
    0
    >>> p = Path(tempfile.mkdtemp()) / "u.graphml"; nx.write_graphml(g, p)  # undirected
    >>> [sorted(h.edges(data="weight")) for h in read_series(p)]
    [[(0, 1, 0.5), (1, 0, 0.5)]]
    """
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(f"no graph series at {str(path)!r}")
    suffix = path.suffix.lower()
    if suffix in EDGE_LIST_SUFFIXES:
        return read_edge_list(path, **options).graphs()
    if options:
        raise ValueError(f"{sorted(options)}: edge-list options, but {path.name} is no edge list")
    if suffix not in SERIES_SUFFIXES:
        kind = describe_file(path)
        also = f" ({str(path)!r} is {kind})" if kind else ""
        raise RunFormatError(
            f"graph series must be .json, .graphml, .gexf or an edge list "
            f"({', '.join(EDGE_LIST_SUFFIXES)}), got {str(path)!r}{also}"
        )
    readers = {".json": _read_json, ".graphml": _read_graphml, ".gexf": _read_gexf}
    try:
        with _no_gc():
            return readers[suffix](path)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError,
            nx.NetworkXError, ParseError) as e:  # fmt: skip
        if isinstance(e, RunFormatError):
            if repr(str(path)) in str(e):
                raise
            raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from None
        raise RunFormatError(
            f"{str(path)!r} is not a readable graph series: {shorten(repr(e), 300)}"
        ) from None
