"""Graph series files for other tools: node-link JSON and GraphML.

* ``.json`` - ``{"format": "baygo-graph-series", "graphs": [...]}`` with one NetworkX
  node-link document per step (node labels and graph attributes as JSON keeps them);
* ``.graphml`` - one GraphML multi-digraph holding every step's edges, each with
  attributes ``step`` and ``weight``; graph attributes ``steps`` = T,
  ``node_labels`` (a JSON list of the node labels, so int and string labels read
  back as written) and ``step_graphs`` (a JSON list of each step's graph
  attributes, e.g. ``step``, ``strategy``, ``synthetic``).

GraphML is read through :mod:`.safexml` (defusedxml; range and memory checks). A
GraphML file made elsewhere (no ``node_labels``) reads back with int labels when
every label is an integer, string labels otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx

from ..exceptions import RunFormatError
from .atomic import atomic_write
from .limits import check_budget
from .safexml import read_graphml_series

__all__ = ["SERIES_FORMAT", "read_series", "write_series"]

SERIES_FORMAT = "baygo-graph-series"


def _json_scalar(value):
    """``value`` as a JSON scalar (numpy scalars via ``.item()``), or TypeError."""
    value = value.item() if hasattr(value, "item") else value
    if value is not None and not isinstance(value, bool | int | float | str):
        raise TypeError(f"graph attribute value must be a scalar, got {value!r}")
    return value


def _graphml_doc(graphs) -> nx.MultiDiGraph:
    multi = nx.MultiDiGraph()
    labels, attrs = [], []
    for n, g in enumerate(graphs):
        for node in g.nodes:
            if node not in multi:
                if not isinstance(node, int | str) or isinstance(node, bool):
                    raise TypeError(f"node labels must be int or str, got {node!r}")
                labels.append(node)
        multi.add_nodes_from(g.nodes(data=True))
        multi.add_edges_from(
            (u, v, {"step": n, "weight": float(d.get("weight", 1.0))})
            for u, v, d in g.edges(data=True)
        )
        attrs.append({str(k): _json_scalar(v) for k, v in g.graph.items()})
    multi.graph["steps"] = len(attrs)
    multi.graph["node_labels"] = json.dumps(labels)
    multi.graph["step_graphs"] = json.dumps(attrs)
    return multi


def write_series(graphs, path) -> Path:
    """Export a graph series for other tools.

    Parameters
    ----------
    graphs : Run or iterable of networkx.DiGraph
        Node labels int or str (the same set, or growing, over the steps).
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
        For ``.graphml``, when a node label is not int or str or a graph
        attribute is not a scalar.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.DiGraph([("a", "b")], step=0); g.add_node("c")
    >>> p = write_series([g, g], tempfile.mkdtemp() + "/s.graphml")
    >>> back = read_series(p)
    >>> sorted(back[0].nodes), back[1].graph["step"], list(back[0].edges)
    (['a', 'b', 'c'], 0, [('a', 'b')])
    """
    path = Path(path)
    graphs = graphs.graphs() if hasattr(graphs, "graphs") else graphs
    if path.suffix == ".json":
        docs = [nx.node_link_data(g, edges="edges") for g in graphs]
        text = json.dumps({"format": SERIES_FORMAT, "graphs": docs})
        atomic_write(path, lambda fh: fh.write(text.encode()))
    elif path.suffix == ".graphml":
        multi = _graphml_doc(graphs)
        atomic_write(path, lambda fh: nx.write_graphml(multi, fh))
    else:
        raise ValueError(f"path must end in .json or .graphml, got {str(path)!r}")
    return path


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


def read_series(path) -> list[nx.DiGraph]:
    """Read a graph series written by :func:`write_series` (or made elsewhere alike).

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series (also for hostile files:
        DTDs, entity expansion, deep nesting, out-of-range values).
    BudgetError
        When reading would exceed the memory budget (:mod:`.limits`).
    """
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(f"no graph series at {str(path)!r}")
    try:
        if path.suffix == ".json":
            check_budget(16 * path.stat().st_size, what=f"parsing {path.name}")
            doc = json.loads(path.read_text())
            if not isinstance(doc, dict) or doc.get("format") != SERIES_FORMAT:
                raise RunFormatError(f"{str(path)!r} is not a baygo graph series")
            return [nx.node_link_graph(d, directed=True, edges="edges") for d in doc["graphs"]]
        if path.suffix == ".graphml":
            return _read_graphml(path)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, nx.NetworkXError) as e:
        if isinstance(e, RunFormatError):
            raise
        raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e!r}") from None
    raise RunFormatError(f"graph series must be .json or .graphml, got {str(path)!r}")
