"""Series files in and out: :func:`read_series` and :func:`write_series`, the one pair.

:func:`read_series` is the door's reader (:func:`baygo_graph.inputs.read_series`):
any series file or edge list becomes a :class:`~baygo_graph.series.GraphSeries`.
:func:`write_series` takes anything the door takes and picks the format from the
file's suffix: node-link JSON, GraphML, or dynamic GEXF for Gephi's timeline, which
carries each agent's influence over time, computed here with
:func:`baygo_graph.analysis.influence_series`. Every file written reads back to the
same labels, steps and weights (``docs/formats.md``).
"""

from __future__ import annotations

from pathlib import Path

from ._text import quoted_path
from ._validate import check_int
from .analysis import influence_series
from .analysis.centrality import influence_bound
from .inputs import as_series, read_series
from .io.atomic import check_target, input_files, protected_inputs
from .io.gexf import (
    GEXF_BYTES_FIXED,
    GEXF_BYTES_PER_NODE,
    GEXF_BYTES_PER_STEP,
    GEXF_DIGEST_BYTES,
    gexf_ids,
    write_gexf,
)
from .io.series_files import WRITE_BYTES_PER_RECORD, write_graphml, write_json
from .limits import following
from .run import Run

__all__ = ["read_series", "write_series"]

#: The suffixes :func:`write_series` writes.
WRITTEN_SUFFIXES = (".json", ".graphml", ".gexf")


def write_series(source, path, *, window: int = 10, overwrite: bool = False) -> Path:
    """Write a run or graph series to ``path``: ``.json``, ``.graphml`` or ``.gexf``.

    Parameters
    ----------
    source : Run, GraphSeries, graphs, edge list or path
        Anything :func:`~baygo_graph.inputs.as_series` takes (runs, series, lists
        of ``nx.DiGraph``/``nx.Graph``, a DataFrame edge list, a file); node
        labels are kept.
    path : str or os.PathLike
        ``.json``: node-link JSON, one document per step; ``.graphml``: one GraphML
        multi-digraph with every step's edges (attributes ``step``, ``weight``);
        ``.gexf``: one dynamic GEXF 1.2 graph (edges with spells and per-step
        weights, self-weights and influence as dynamic node attributes, the
        informative agent as a node attribute). Each step's W is written (a run's
        step graphs also carry its ``strategy``); :func:`read_series` gives the
        same labels, steps and weights back.
    window : int, default 10
        For ``.gexf``: window of the influence (sliding, product of ``window`` step
        matrices, cut to T).
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work, as :meth:`~baygo_graph.Run.save`): a Gephi project or notes of the same
        name are never lost by mistake. A symbolic link at ``path``, and the file
        ``source`` names (any spelling, a link to it), are refused either way.

    Returns
    -------
    pathlib.Path
        The file written (atomically).

    Raises
    ------
    FileExistsError
        When a file is at ``path`` and ``overwrite`` is False.
    PermissionError
        When ``path`` is the file ``source`` names, before any work.
    TypeError
        When a node label is not int or str (``.json``, ``.graphml``), or the
        input is no series.
    ValueError
        For a centralised run (no graph); for ``.graphml`` and ``.gexf``, when a
        label or node attribute cannot be read back (two labels with the same text
        such as ``1`` and ``"1"``, a character outside XML 1.0): nothing is
        written (``.json`` keeps every int and str label).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> from baygo_graph import Run, read_series
    >>> folder = tempfile.mkdtemp()
    >>> run = Run.from_choices([[1, 0, 0], [2, 2, 1]])
    >>> read_series(write_series(run, folder + "/s.json")).n_steps
    2
    >>> g = nx.read_gexf(write_series(run, folder + "/s.gexf", window=1), node_type=int)
    >>> sorted(g.nodes[0])
    ['influence', 'informative', 'label', 'self_weight']
    >>> import pandas as pd
    >>> contacts = pd.DataFrame({"source": ["ann", "bob"], "target": ["bob", "ann"],
    ...                          "time": [0, 1]})
    >>> sorted(nx.read_gexf(write_series(contacts, folder + "/c.gexf")).nodes)
    ['ann', 'bob']
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in WRITTEN_SUFFIXES:
        raise ValueError(f"path must end in .json, .graphml or .gexf, got {quoted_path(path, 120)}")
    with protected_inputs(input_files(source), whose="this call"):
        check_target(path, overwrite=overwrite)  # never the file read; before the work
        return _write(source, path, suffix, window=window, overwrite=overwrite)


def _write_need(suffix: str, window: int):
    """``need(steps, nodes, rows)`` of :func:`~baygo_graph.limits.following`: the write of
    a series of that shape to ``suffix`` (for GEXF, its influence, or the influence held
    beside the writer's own work), so a refusal of the read advises for both."""

    def need(steps, nodes, rows):
        if suffix != ".gexf":
            fmt = "JSON" if suffix == ".json" else "GraphML"
            return WRITE_BYTES_PER_RECORD[fmt] * (steps * nodes + 4 * rows)
        w = max(1, min(window, steps))
        writer = GEXF_BYTES_FIXED + GEXF_DIGEST_BYTES + GEXF_BYTES_PER_STEP * steps
        writer += GEXF_BYTES_PER_NODE * nodes
        return max(influence_bound(steps, nodes, rows=rows, window=w), 8 * steps * nodes + writer)

    return need


def _write(source, path: Path, suffix: str, *, window, overwrite: bool) -> Path:
    window = check_int("window", window, minimum=1)
    run = source if isinstance(source, Run) else None
    if run is not None and run.series is None:
        raise ValueError(
            f"run is a centralised run (strategy {run.strategy!r}): one central learner "
            "has no communication graph to export"
        )
    with following(_write_need(suffix, window), goal="to write it too"):
        series = as_series(source)  # a refusal of the read advises for the write too
    if suffix != ".gexf":
        attrs = {"strategy": run.strategy} if run is not None else None
        write = write_json if suffix == ".json" else write_graphml
        return write(series, path, attrs=attrs, overwrite=overwrite)
    gexf_ids(series)  # labels GEXF cannot give back: refused before the influence is computed
    window = min(window, series.n_steps)
    influence = influence_series(series, window=window, windows="sliding").values
    return write_gexf(series, path, influence=influence, run=run, overwrite=overwrite)
