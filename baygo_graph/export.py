"""Export a run or a graph series for other tools: node-link JSON, GraphML, dynamic GEXF.

:func:`write_series` picks the format from the file's suffix. The GEXF file (for
Gephi's timeline) carries each agent's influence over time, computed here with
:func:`baygo_graph.analysis.influence_series`; the other formats carry the graphs.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from ._validate import check_int
from .analysis import influence_series
from .io.gexf import write_gexf
from .io.series_files import write_series as _write_graphs
from .series import as_series

__all__ = ["write_series"]


def write_series(graphs, path, *, window: int = 10) -> Path:
    """Write a run or graph series to ``path``: ``.json``, ``.graphml`` or ``.gexf``.

    Parameters
    ----------
    graphs : Run, GraphSeries, graphs, edge list or path
        Anything :func:`~baygo_graph.series.as_series` takes (runs, series, lists
        of ``nx.DiGraph``/``nx.Graph``, a DataFrame edge list, a file); node
        labels are kept.
    path : str or os.PathLike
        ``.json``: node-link JSON, one document per step; ``.graphml``: one GraphML
        multi-digraph with every step's edges (attributes ``step``, ``weight``);
        ``.gexf``: one dynamic GEXF 1.2 graph (edges with spells, the informative
        agent as a node attribute, influence as a dynamic node attribute).
    window : int, default 10
        For ``.gexf``: window of the influence (sliding, product of ``window`` step
        matrices, cut to T).

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Raises
    ------
    TypeError
        When a node label is not int or str (``.json``, ``.graphml``), or the
        input is no series.
    ValueError
        For ``.graphml``, when a label or node attribute cannot be read back (two
        labels with the same text such as ``1`` and ``"1"``, a character outside
        XML 1.0): nothing is written (``.json`` keeps every int and str label).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> from baygo_graph import Run, read_series
    >>> folder = tempfile.mkdtemp()
    >>> run = Run.from_choices([[1, 0, 0], [2, 2, 1]])
    >>> [h.number_of_nodes() for h in read_series(write_series(run, folder + "/s.json"))]
    [3, 3]
    >>> g = nx.read_gexf(write_series(run, folder + "/s.gexf", window=1), node_type=int)
    >>> sorted(g.nodes[0])
    ['influence', 'informative', 'label']
    >>> import pandas as pd
    >>> contacts = pd.DataFrame({"source": ["ann", "bob"], "target": ["bob", "ann"],
    ...                          "time": [0, 1]})
    >>> sorted(nx.read_gexf(write_series(contacts, folder + "/c.gexf")).nodes)
    ['ann', 'bob']
    """
    path = Path(path)
    if path.suffix.lower() != ".gexf":
        if not hasattr(graphs, "graphs") and not _is_graph_list(graphs):
            graphs = as_series(graphs)  # an edge list, a file...: its step graphs
        return _write_graphs(graphs, path)
    window = check_int("window", window, minimum=1)
    if hasattr(graphs, "strategy") and getattr(graphs, "series", 0) is None:
        return write_gexf(graphs, path)  # a centralised run: write_gexf says why not
    series = as_series(graphs)
    window = min(window, series.n_steps)
    influence = influence_series(series, window=window, windows="sliding")
    return write_gexf(graphs if hasattr(graphs, "strategy") else series, path, influence=influence)


def _is_graph_list(graphs) -> bool:
    return isinstance(graphs, list | tuple) and all(isinstance(g, nx.Graph) for g in graphs)
