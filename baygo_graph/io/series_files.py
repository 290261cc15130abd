"""Graph series files for other tools: node-link JSON and GraphML.

* ``.json`` - ``{"format": "baygo-graph-series", "graphs": [...]}`` with one NetworkX
  node-link document per step;
* ``.graphml`` - one GraphML multi-digraph holding every step's edges, each with
  attributes ``step`` and ``weight`` (graph attribute ``steps`` = T).
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx

from ..exceptions import RunFormatError
from .atomic import atomic_write

__all__ = ["SERIES_FORMAT", "read_series", "write_series"]

SERIES_FORMAT = "baygo-graph-series"


def write_series(graphs, path) -> Path:
    """Export a graph series for other tools.

    Parameters
    ----------
    graphs : Run or iterable of networkx.DiGraph
    path : str or os.PathLike
        ``.json``: node-link JSON, ``{"format": "baygo-graph-series", "graphs":
        [...]}`` with one NetworkX node-link document per step. ``.graphml``: one
        GraphML multi-digraph holding every step's edges, each with attributes
        ``step`` and ``weight`` (graph attribute ``steps`` = T).

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.DiGraph([(0, 1)]); g.add_node(2)
    >>> p = write_series([g, g], tempfile.mkdtemp() + "/s.json")
    >>> [h.number_of_nodes() for h in read_series(p)]
    [3, 3]
    """
    path = Path(path)
    graphs = graphs.graphs() if hasattr(graphs, "graphs") else graphs
    if path.suffix == ".json":
        docs = [nx.node_link_data(g, edges="edges") for g in graphs]
        text = json.dumps({"format": SERIES_FORMAT, "graphs": docs})
        atomic_write(path, lambda fh: fh.write(text.encode()))
    elif path.suffix == ".graphml":
        multi = nx.MultiDiGraph()
        n = 0
        for n, g in enumerate(graphs, start=1):
            multi.add_nodes_from(g.nodes(data=True))
            multi.add_edges_from(
                (u, v, {"step": n - 1, "weight": float(d.get("weight", 1.0))})
                for u, v, d in g.edges(data=True)
            )
        multi.graph["steps"] = n
        atomic_write(path, lambda fh: nx.write_graphml(multi, fh))
    else:
        raise ValueError(f"path must end in .json or .graphml, got {str(path)!r}")
    return path


def read_series(path) -> list[nx.DiGraph]:
    """Read a graph series written by :func:`write_series` (or made elsewhere alike).

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series.
    """
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(f"no graph series at {str(path)!r}")
    try:
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            if not isinstance(doc, dict) or doc.get("format") != SERIES_FORMAT:
                raise RunFormatError(f"{str(path)!r} is not a baygo graph series")
            return [nx.node_link_graph(d, directed=True, edges="edges") for d in doc["graphs"]]
        if path.suffix == ".graphml":
            multi = nx.read_graphml(path, node_type=int, force_multigraph=True)
            steps = int(
                multi.graph.get(
                    "steps", 1 + max((d["step"] for *_, d in multi.edges(data=True)), default=-1)
                )
            )
            out = [nx.DiGraph() for _ in range(steps)]
            for g in out:
                g.add_nodes_from(multi.nodes(data=True))
            for u, v, d in multi.edges(data=True):
                out[int(d["step"])].add_edge(u, v, weight=float(d.get("weight", 1.0)))
            return out
    except (ValueError, KeyError, TypeError) as e:
        if isinstance(e, RunFormatError):
            raise
        raise RunFormatError(f"{str(path)!r} is not a readable graph series: {e}") from e
    raise RunFormatError(f"graph series must be .json or .graphml, got {str(path)!r}")
