"""Export a run or a graph series for other tools: node-link JSON, GraphML, dynamic GEXF.

:func:`write_series` picks the format from the file's suffix. The GEXF file (for
Gephi's timeline) carries each agent's influence over time, computed here with
:func:`baygo_graph.analysis.influence_series`; the other formats carry the graphs.
"""

from __future__ import annotations

from pathlib import Path

from ._validate import check_int
from .analysis import influence_series
from .io.gexf import write_gexf
from .io.series_files import write_series as _write_graphs

__all__ = ["write_series"]


def write_series(graphs, path, *, window: int = 10) -> Path:
    """Write a run or graph series to ``path``: ``.json``, ``.graphml`` or ``.gexf``.

    Parameters
    ----------
    graphs : Run or iterable of networkx.DiGraph
        ``.gexf`` needs a :class:`~baygo_graph.Run` (its series, metadata and
        influence).
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
        When a node label is not int or str (``.json``, ``.graphml``), or ``.gexf``
        is given no Run.
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
    """
    path = Path(path)
    if path.suffix.lower() != ".gexf":
        return _write_graphs(graphs, path)
    window = check_int("window", window, minimum=1)
    if not hasattr(graphs, "series"):
        raise TypeError(f"a .gexf file needs a Run, got {type(graphs).__name__}")
    influence = None
    if graphs.series is not None:
        window = min(window, graphs.n_steps)
        influence = influence_series(graphs, window=window, windows="sliding")
    return write_gexf(graphs, path, influence=influence)
