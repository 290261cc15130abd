"""Reading GraphML graph series without trusting them.

The XML is parsed with :mod:`defusedxml` (DTDs, entity expansion and external
references refused, whatever the system's expat), so "billion laughs" and
external-entity files fail at once. The GraphML is then read by hand - only what
:func:`baygo_graph.write_series` writes: ``key`` declarations, one ``graph`` with
``node`` and ``edge`` elements and their ``data`` - with range checks:

* node ids are integers, each declared once; edges join declared nodes;
* direction: the graph's ``edgedefault`` (``"directed"`` when absent, the only
  other value being ``"undirected"``) and an edge's own ``directed`` attribute
  (``true``/``false``) as GraphML defines them; an undirected edge ``{u, v}`` is
  read as the two edges ``u -> v`` and ``v -> u`` (both with its weight), so that
  both agents hear each other;
* every edge has an integer ``step`` with ``0 <= step < steps``, a finite
  non-negative ``weight`` (1 when absent);
* the series length ``steps`` (graph attribute, else 1 + the largest edge step)
  is at most :data:`MAX_EMPTY_STEPS` plus the number of edges in the file: a run's
  series has at least one edge (self-loop) per step, so this never rejects a real
  run, and a file of ``n`` bytes cannot ask for more than about ``n / 40`` steps
  beyond 4096;
* the memory of the XML tree (at most :data:`TREE_BYTES_PER_FILE_BYTE` times the
  file size, measured) and of the graphs built are checked against the budget of
  :mod:`baygo_graph.limits` before they are made. The graphs' cost counts
  every attribute as it will be materialised: each node carries its own ``data``
  *and* every node ``<key>``'s ``<default>`` (GraphML inheritance), once per step
  graph; so a small file whose keys declare many defaults cannot expand
  unchecked. Edges keep only ``step`` and ``weight`` (other edge data and
  defaults are never materialised).

Why by hand and not :func:`networkx.read_graphml`: NetworkX materialises every
inherited default on every node and edge before anything can be counted, and
builds one multigraph of all steps; defusedxml does the XML parsing (the part a
library does well), this module only the counting and range checks.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.etree.ElementTree import ParseError

import defusedxml
import defusedxml.ElementTree as DET
import networkx as nx

from .._text import big_int, counted, shorten
from .._validate import INTEGER_TEXT, NUMBER_TEXT, TINY_WEIGHT, underflows
from ..exceptions import RunFormatError
from ..limits import check_budget

__all__ = ["MAX_EMPTY_STEPS", "TREE_BYTES_PER_FILE_BYTE", "read_graphml_series"]

#: Steps a series may declare beyond its number of edges (trailing/empty steps).
MAX_EMPTY_STEPS = 4096
#: Upper bound of ElementTree memory per byte of GraphML: the worst case measured
#: (tracemalloc) is about 40, for deeply nested elements ``<a><a>...``; empty or
#: attribute-only elements give about 21 (see docs/formats.md).
TREE_BYTES_PER_FILE_BYTE = 48
#: Upper estimate of the memory of one node (or edge) copy in a DiGraph (measured
#: about 300 bytes; twice that since a relabelled copy may exist beside it).
_GRAPH_ITEM_BYTES = 600
#: Upper estimate of one attribute of one node copy (measured about 36 bytes, x2).
_ATTR_BYTES = 80
_TYPES = {"boolean", "int", "long", "float", "double", "string"}


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _q(value) -> str:
    """``repr(value)`` bounded for a message (a hostile file's id can be megabytes)."""
    return shorten(repr(value), 60)


#: XML's white space, what XML Schema strips around a number or a boolean (never a
#: no-break space, which Python's ``str.strip`` and ``int()`` would also take).
XML_SPACE = " \t\r\n"
#: The special values of ``xs:double`` besides decimal numbers (any case: networkx
#: writes Python's ``inf`` and ``nan``), refused later where a value must be finite.
_SPECIAL = ("inf", "infinity", "nan")


def xml_number(text: str, kind: str):
    """The int (``kind`` int or long) or float (float, double) that ``text`` writes by XML
    Schema's rule (ASCII digits, sign, fraction, exponent, ``INF``, ``NaN``), or None:
    Python's ``int()``/``float()`` also take ``1_000``, Arabic-Indic digits and a
    no-break space, which no XML tool writes and the edge-list cells refuse.

    Examples
    --------
    >>> xml_number(" 12 ", "int"), xml_number("1e3", "double"), xml_number("1_0", "int")
    (12, 1000.0, None)
    """
    text = text.strip(XML_SPACE)
    if kind in ("int", "long"):
        return int(text) if INTEGER_TEXT.fullmatch(text) else None
    special = text.lower().lstrip("+-") in _SPECIAL
    return float(text) if NUMBER_TEXT.fullmatch(text) or special else None


def _convert(text, kind: str, where: str):
    text = text or ""
    if kind == "string":  # kept as written (only numbers and booleans are stripped)
        return text
    text = text.strip(XML_SPACE)
    try:
        if kind == "boolean":
            low = text.lower()
            if low not in ("true", "false", "1", "0"):
                raise ValueError(f"{_q(text)} is not a boolean")
            return low in ("true", "1")
        if kind in ("int", "long", "float", "double") and xml_number(text, kind) is None:
            raise ValueError(f"{_q(text)} is not a valid {kind}")
        if kind in ("int", "long"):
            return int(text)
        if kind in ("float", "double"):
            value = float(text)
            if underflows(text, value):
                raise ValueError(f"{_q(text)}: {TINY_WEIGHT}")
            return value
    except ValueError as e:  # int()'s own message quotes 200 characters of the text
        why = str(e) if kind == "boolean" or TINY_WEIGHT in str(e) else (
            f"{_q(text)} is not a valid {kind}")  # fmt: skip
        raise RunFormatError(f"{where}: {why}") from None
    return text


def _data(element, keys, domain: str, where: str, only=None) -> dict:
    """The data of ``element`` with its keys' defaults; ``only``: keep just these names."""
    out = {
        name: default
        for dom, name, _, default in keys.values()
        if dom in (domain, "all") and default is not None and (only is None or name in only)
    }
    given: dict = {}
    for child in element:
        if _local(child.tag) != "data":
            continue
        key = child.get("key")
        if key not in keys or keys[key][0] not in (domain, "all"):
            raise RunFormatError(f"{where}: data refers to undeclared {domain} key {_q(key)}")
        _, name, kind, _ = keys[key]
        if name in given:  # GraphML gives a repeat no meaning: never the last one silently
            raise RunFormatError(
                f"{where}: {_q(name)} is given twice ({_q(given[name])} and "
                f"{_q(child.text)}): keep one"
            )
        given[name] = child.text
        if only is None or name in only:
            out[name] = _convert(child.text, kind, f"{where}, {_q(name)}")
    return out


def _keys(root) -> dict:
    keys = {}
    for k in root:
        if _local(k.tag) != "key":
            continue
        kind = k.get("attr.type", "string")
        if kind not in _TYPES or k.get("id") is None:
            raise RunFormatError(f"key {_q(k.get('id'))} has unsupported type {_q(kind)}")
        domain = k.get("for", "all")
        name = k.get("attr.name", k.get("id"))
        default = next((d.text for d in k if _local(d.tag) == "default"), None)
        if default is not None:
            default = _convert(default, kind, f"default of key {_q(name)}")
        keys[k.get("id")] = (domain, name, kind, default)
    return keys


def _node_id(text, where: str, node_type=int):
    if node_type is str and text is not None:
        return str(text)
    value = xml_number(text, "int") if isinstance(text, str) else None
    if value is None:
        raise RunFormatError(f"{where}: node id {_q(text)} is not an integer")
    return value


def _directed(value, default: bool, where: str) -> bool:
    if value is None:
        return default
    if value.strip() not in ("true", "false", "1", "0"):
        raise RunFormatError(f"{where}: directed must be 'true' or 'false', got {_q(value)}")
    return value.strip() in ("true", "1")


def _edges(graph, keys, nodes, node_type=int) -> tuple[list, int]:
    """``(step, u, v, weight)`` of every edge (undirected ones both ways), and the
    number of edge elements."""
    default = graph.get("edgedefault", "directed")
    if default not in ("directed", "undirected"):
        raise RunFormatError(
            f"<graph> edgedefault must be 'directed' or 'undirected', got {_q(default)}"
        )
    edges, count = [], 0
    for e in graph:
        if _local(e.tag) != "edge":
            continue
        where = f"edge {count}"
        count += 1
        directed = _directed(e.get("directed"), default == "directed", where)
        u, v = (_node_id(e.get(end), where, node_type) for end in ("source", "target"))
        if u not in nodes or v not in nodes:
            raise RunFormatError(f"{where}: ({_q(u)}, {_q(v)}) joins an undeclared node")
        d = _data(e, keys, "edge", where, only=("step", "weight"))
        step, weight = d.get("step"), d.get("weight", 1.0)
        if isinstance(step, float) and step.is_integer():  # a whole double (what networkx
            step = int(step)  # writes for a Python float), as an edge list's 5.0
        if isinstance(step, bool) or not isinstance(step, int):
            raise RunFormatError(f"{where}: needs an integer 'step', got {_q(step)}")
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise RunFormatError(f"{where}: weight must be a number, got {_q(weight)}")
        if not math.isfinite(weight) or weight < 0:
            raise RunFormatError(f"{where}: weight must be finite and >= 0, got {_q(weight)}")
        edges.append((step, u, v, float(weight)))
        if not directed and u != v:
            edges.append((step, v, u, float(weight)))
    return edges, count


def read_graphml_series(path, *, budget=None, node_type=int, graph_data=False):
    """Read a GraphML series (one multi-digraph, edges with ``step``) into T digraphs.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`baygo_graph.write_series` (or alike).
    budget : int or str, optional
        Memory budget (see :func:`baygo_graph.limits.memory_limit`).
    node_type : {int, str}, default int
        Node ids as integers (others refused) or as the strings written.
    graph_data : bool, default False
        Also return the file's graph attributes (a dict, ``steps`` included).

    Returns
    -------
    list of networkx.DiGraph
        Step ``t``'s graph: every node (with its attributes), the edges of step ``t``;
        with ``graph_data=True`` the pair ``(graphs, graph attributes)``.

    Raises
    ------
    RunFormatError
        Unparsable or forbidden XML (DTD, entities), not GraphML, or a value out
        of range (the message says which element).
    BudgetError
        When the file or the graphs it declares exceed the memory budget.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "s.graphml"
    >>> _ = p.write_text('<graphml><key id="s" for="edge" attr.name="step" attr.type="int"/>'
    ...     '<graph><node id="0"/><node id="1"/><edge source="0" target="1">'
    ...     '<data key="s">1</data></edge></graph></graphml>')
    >>> [sorted(g.edges) for g in read_graphml_series(p)]
    [[], [(0, 1)]]
    """
    path = Path(path)
    check_budget(
        path.stat().st_size * TREE_BYTES_PER_FILE_BYTE, what=f"parsing {path.name}", limit=budget
    )
    try:
        root = DET.parse(path, forbid_dtd=True).getroot()
    except (ParseError, defusedxml.DefusedXmlException, LookupError, UnicodeError) as e:
        # LookupError: an XML declaration naming an unknown encoding (found by fuzzing)
        raise RunFormatError(f"{str(path)!r} is not readable GraphML: {e!r}") from None
    try:
        graphs, data = _series(root, budget, node_type)
    except RunFormatError as e:
        raise RunFormatError(f"{str(path)!r}: {e}") from None
    return (graphs, data) if graph_data else graphs


def _series(root, budget, node_type=int) -> tuple[list[nx.DiGraph], dict]:
    graph = next((g for g in root if _local(g.tag) == "graph"), None)
    if _local(root.tag) != "graphml" or graph is None:
        raise RunFormatError("not GraphML (no <graphml><graph>)")
    keys = _keys(root)
    ids, attrs = {}, 0  # node ids first; their data only once the budget is checked
    inherited = sum(d is not None and dom in ("node", "all") for dom, _, _, d in keys.values())
    for n in graph:
        if _local(n.tag) == "node":
            where = f"node {len(ids)}"
            i = _node_id(n.get("id"), where, node_type)
            if i in ids:
                raise RunFormatError(f"{where}: node id {i} declared twice")
            ids[i] = n
            attrs += inherited + sum(_local(c.tag) == "data" for c in n)
    edges, count = _edges(graph, keys, ids, node_type)
    last = max((e[0] for e in edges), default=-1)
    data = _data(graph, keys, "graph", "graph")
    steps = data.get("steps", last + 1)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise RunFormatError(f"graph attribute steps must be an integer >= 0, got {steps!r}")
    if steps > MAX_EMPTY_STEPS + count:
        raise RunFormatError(
            f"declares {big_int(steps)} steps for {counted(count, 'edge')}: at most "
            f"{MAX_EMPTY_STEPS} + (number of edges) steps are accepted"
        )
    low = min((e[0] for e in edges), default=0)
    if low < 0 or last >= steps:
        bad = low if low < 0 else last
        raise RunFormatError(f"an edge has step {big_int(bad)}, outside [0, {big_int(steps)})")
    # every step graph holds its own copy of every node's attribute dict
    cost = (steps + 1) * (len(ids) * _GRAPH_ITEM_BYTES + attrs * _ATTR_BYTES)
    cost += (len(edges) + steps) * _GRAPH_ITEM_BYTES
    what = f"{steps} step graphs of {counted(len(ids), 'node')} with {attrs} node attributes"
    check_budget(cost, what=what, limit=budget)
    nodes = {i: _data(n, keys, "node", f"node {k}") for k, (i, n) in enumerate(ids.items())}
    out = [nx.DiGraph() for _ in range(steps)]
    for g in out:
        g.add_nodes_from(nodes.items())
    for step, u, v, w in edges:  # parallel edges of a step add (as edge-list rows do)
        g = out[step]
        g.add_edge(u, v, weight=w + g[u][v]["weight"] if g.has_edge(u, v) else w)
    return out, data
