"""The one door in: anything that holds a temporal network becomes a graph series.

Every input of the package enters here, through one table of input kinds
(:data:`KINDS`): the Python API (:func:`as_series`, :func:`read_series`), the
analysis functions (:func:`series_input`, which converts their first argument
once), the figures, the exports and the command line (:func:`load`). A kind
names how to recognise its input (file-name endings, a look at the file's first
bytes, or a test on an in-memory object), which options it takes, and the reader
that turns it into a :class:`~baygo_graph.series.GraphSeries`;
:func:`register_kind` adds one.

The label and time policy of every kind is stated in ``docs/formats.md``
("Labels and times"): labels are kept as written (text stays text, never
stripped or merged by numeric value; integers stay integers where the source is
typed), times are never truncated (a non-integer step time is refused in one line
unless a rule bins it), and a repeated interaction is placed only where the
source places it.

Convention (docs/design.md): edge ``(j, i)`` of a step graph means agent ``i``
receives from ``j`` with weight ``w_ij``; W is row-stochastic.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Iterable, Sized
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from ._text import counted, short_list, shorten
from ._validate import check_bool
from .exceptions import BudgetError
from .io import archives, edgelist, foreign, series_files
from .io.filekind import own_output_message
from .limits import (
    EDGE_LIST_BYTES_PER_NODE,
    EDGE_LIST_BYTES_PER_ROW,
    EDGE_LIST_BYTES_PER_STEP,
    LIMIT_ENV,
    memory_budget,
)
from .run import Run
from .series import SELF_WEIGHT, GraphSeries, series_from_graphs

__all__ = [
    "KINDS",
    "InputKind",
    "as_series",
    "kind_of",
    "load",
    "read_series",
    "register_kind",
    "series_input",
]

#: The options of edge-list kinds (``docs/user_series.md``; the time rules:
#: :mod:`baygo_graph.io.times`; ``columns``: a headerless file's columns by position).
EDGE_LIST_OPTIONS = frozenset(
    {"source", "target", "time", "weight", "bin", "directed", "origin", "time_format",
     "self_weight"}
)  # fmt: skip
EDGE_FILE_OPTIONS = EDGE_LIST_OPTIONS | {"columns"}
#: The option of every kind built from edges or graphs: the self-weight rule.
GRAPH_OPTIONS = frozenset({"self_weight"})


@dataclass(frozen=True)
class InputKind:
    """One kind of input behind the door.

    Attributes
    ----------
    name : str
        What errors call it, e.g. ``"edge list"``.
    read : callable
        ``read(path_or_object, **options) -> GraphSeries`` (or a
        :class:`~baygo_graph.Run` for the kind ``"run"``).
    suffixes : tuple of str
        Lower-case file-name endings read as this kind (``".csv"``, ``".txt.gz"``);
        the longest ending that matches wins.
    sniff : callable, optional
        ``sniff(path) -> bool`` for files whose name says nothing; asked in
        registration order when no suffix matches.
    accepts : callable, optional
        ``accepts(obj) -> bool`` for in-memory objects (not paths).
    options : frozenset of str
        The keyword options the reader takes; any other is refused in one line.
    """

    name: str
    read: Callable
    suffixes: tuple[str, ...] = ()
    sniff: Callable[[Path], bool] | None = None
    accepts: Callable[[object], bool] | None = None
    options: frozenset = frozenset()


#: The input kinds, in the order they are asked (:func:`register_kind`).
KINDS: dict[str, InputKind] = {}


def register_kind(
    name: str,
    read: Callable,
    *,
    suffixes: Iterable[str] = (),
    sniff: Callable | None = None,
    accepts: Callable | None = None,
    options: Iterable[str] = (),
) -> InputKind:
    """Add (or replace) a kind of input behind the door.

    Parameters
    ----------
    name : str
        The kind's name in messages.
    read : callable
        ``read(path_or_object, **options) -> GraphSeries``.
    suffixes : iterable of str, optional
        File-name endings (any case; ``".txt.gz"`` beats ``".gz"``).
    sniff : callable, optional
        ``sniff(path) -> bool``: for files whose ending no kind claims.
    accepts : callable, optional
        ``accepts(obj) -> bool``: for in-memory objects.
    options : iterable of str, optional
        Keyword options ``read`` takes.

    Returns
    -------
    InputKind

    Examples
    --------
    >>> import tempfile
    >>> def read_pairs(path):
    ...     lines = Path(path).read_text().split()
    ...     g = nx.DiGraph(pair.split(">") for pair in lines)
    ...     return series_from_graphs([g])
    >>> kind = register_kind("pairs", read_pairs, suffixes=[".pairs"])
    >>> p = Path(tempfile.mkdtemp()) / "x.pairs"; _ = p.write_text("a>b b>c")
    >>> as_series(p).nodes
    ('a', 'b', 'c')
    >>> del KINDS["pairs"]
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str, got {name!r}")
    if not callable(read):
        raise TypeError(f"read must be callable, got {type(read).__name__}")
    suffixes = tuple(str(s).lower() for s in suffixes)
    if any(not s.startswith(".") for s in suffixes):
        raise ValueError(f"suffixes must start with '.', got {suffixes!r}")
    kind = InputKind(name, read, suffixes, sniff, accepts, frozenset(options))
    KINDS[name] = kind
    return kind


def _is_path(x) -> bool:
    return isinstance(x, str | os.PathLike)


def _is_frame(x) -> bool:
    return type(x).__module__.startswith("pandas") and hasattr(x, "columns")


def _is_run(x) -> bool:
    return isinstance(x, Run)


def _path_kind(path: Path, *, columns=None) -> InputKind:
    """The kind of a file or folder: a folder or ``.npz`` is a run, then the longest
    suffix, then the sniffers; a missing file of no known ending is read as a run
    (whose reader says it is missing). A file whose columns are named by position
    (``columns=``) is an edge list whatever its name."""
    name = path.name.lower()
    if columns is not None and not path.is_dir():
        return KINDS["edge list"]
    if path.is_dir() or name.endswith(".npz"):
        return KINDS["run"]
    matches = [(len(s), k) for k in KINDS.values() for s in k.suffixes if name.endswith(s)]
    if matches:
        return max(matches, key=lambda m: m[0])[1]
    if not path.is_file():
        return KINDS["run"]
    for kind in KINDS.values():
        if kind.sniff is not None and kind.sniff(path):
            return kind
    return KINDS["run"]  # its reader names what the file looks like, and what reads what


def _object_kind(obj) -> InputKind:
    for kind in KINDS.values():
        if kind.accepts is not None and kind.accepts(obj):
            return kind
    table = _table_like(obj)
    raise TypeError(
        "graphs must be a Run, a series, a sequence of networkx graphs, an edge list "
        f"(pandas.DataFrame) or a path, got {type(obj).__name__}"
        + (f" (a {table} table: pass it as a pandas.DataFrame, e.g. .to_pandas())" if table else "")
    )


def _table_like(obj) -> str | None:
    """The library of a table that is not a pandas DataFrame (polars, pyarrow...), or
    None: such a table is an edge list, never a sequence of graphs (iterating a polars
    DataFrame gives its columns)."""
    if _is_frame(obj) or not (hasattr(obj, "to_pandas") or hasattr(obj, "__dataframe__")):
        return None
    return type(obj).__module__.split(".")[0]


def kind_of(source, *, columns=None) -> InputKind:
    """The kind :func:`as_series` reads ``source`` as (a path or an object).

    Examples
    --------
    >>> kind_of("contacts.csv").name, kind_of("runs/baygo-seed0").name
    ('edge list', 'run')
    >>> sorted(kind_of("contacts.csv").options)[:3]
    ['bin', 'columns', 'directed']
    >>> kind_of("tij.dat_", columns="time,source,target").name  # columns named: an edge list
    'edge list'
    """
    if isinstance(source, GraphSeries) or _is_run(source):
        return InputKind("series", _identity)
    if _is_path(source):
        return _path_kind(Path(source), columns=columns)
    return _object_kind(source)


def _check_options(given: dict, kind: InputKind, what: str) -> None:
    extra = {k: v for k, v in given.items() if k not in kind.options}
    if not extra:
        return
    names = ", ".join(f"{k}={shorten(repr(v), 40)}" for k, v in extra.items())
    graph_kind = kind.options <= GRAPH_OPTIONS  # built from graphs: only a self-weight
    if kind.options and not (graph_kind and set(extra) <= EDGE_LIST_OPTIONS):
        raise ValueError(f"{names}: not an option of {what} (a {kind.name}), which takes "
                         f"{short_list(sorted(kind.options), 10)}")  # fmt: skip
    noun = "edge-list options" if set(extra) <= EDGE_LIST_OPTIONS else "options"
    raise ValueError(f"{names}: {noun}, but the input is {what}, not an edge list")


def _dispatch(graphs, given: dict):
    """The kind of ``graphs`` and its reader's answer (a Run stays a Run)."""
    if isinstance(graphs, GraphSeries) or _is_run(graphs):
        _check_options(given, InputKind("series", _identity), type(graphs).__name__)
        return graphs
    if _is_path(graphs):
        path = Path(graphs)
        if why := own_output_message(path):  # a table or report baygo wrote: what reads it
            from .exceptions import RunFormatError

            raise RunFormatError(why)
        kind = _path_kind(path, columns=given.get("columns"))
        _check_options(given, kind, f"a file {path.name!r}")
        return kind.read(path, **given)
    kind = _object_kind(graphs)
    _check_options(given, kind, type(graphs).__name__)
    return kind.read(graphs, **given)


def _identity(x):
    return x


def _run_series(run: Run) -> GraphSeries:
    if run.series is None:
        raise ValueError(
            f"run of strategy {run.strategy!r} is centralised: "
            "it has no communication graph to analyse"
        )
    if run.series.n_steps < 1:
        raise ValueError("graphs must hold at least one step, got a run of 0 steps")
    return run.series


def load(source, /, **options) -> Run | GraphSeries:
    """What a command reads: a run stays a :class:`~baygo_graph.Run` (a run object, a
    run folder or ``.npz``), anything else becomes a series (:func:`as_series`).

    Parameters
    ----------
    source : Run, GraphSeries, path or anything :func:`as_series` takes
    **options
        The options of the input's kind (edge lists: ``source``, ``target``,
        ``time``, ``weight``, ``bin``, ``directed``); None values are left out.

    Returns
    -------
    Run or GraphSeries

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text("source,target,time\\na,b,0\\nb,a,1\\n")
    >>> load(p).nodes
    ('a', 'b')
    >>> load(Run.from_choices([[1, 0]])).strategy
    'baygo'
    """
    return _dispatch(source, {k: v for k, v in options.items() if v is not None})


def as_series(
    graphs,
    /,
    *,
    source: str | None = None,
    target: str | None = None,
    time: str | None = None,
    weight: str | None = None,
    bin=None,
    directed: bool | None = None,
    self_weight=None,
    **options,
) -> GraphSeries:
    """Turn anything that holds a temporal network into a :class:`GraphSeries`.

    The one door of the package: every analysis function, figure and export that
    takes a series calls it (through :data:`KINDS`). The input forms, their
    options and rules are described in ``docs/user_series.md``; the label and time
    policy in ``docs/formats.md``.

    Parameters
    ----------
    graphs : Run, GraphSeries, iterable of networkx graphs, pandas.DataFrame, path
        * a :class:`~baygo_graph.Run` (its ``series``) or a series (returned as is);
        * networkx graphs, one per step (:func:`~baygo_graph.series.series_from_graphs`):
          ``DiGraph`` (edge ``(j, i)``: ``i`` receives from ``j``), or undirected
          ``Graph`` (edge ``{i, j}``: both directions, each with the edge's
          weight); multigraphs' parallel edges add their weights. The nodes are
          the union over the steps; a node missing from a step is isolated there
          (``w_ii = 1``);
        * an edge list: a :class:`pandas.DataFrame` with one row per
          ``(source, target, time[, weight])`` (see
          :func:`baygo_graph.io.edgelist.edge_list_series`);
        * a path: a run folder or ``.npz``; a saved series ``.json``,
          ``.graphml`` or ``.gexf``; an edge list ``.csv`` / ``.tsv`` or
          ``.parquet``, or an archive's file as downloaded (SNAP ``.txt``, KONECT
          ``out.NAME``, plain or ``.gz`` / ``.bz2`` / ``.xz`` / ``.zst``); any kind
          added with :func:`register_kind`;
        * a networkx-temporal ``TemporalGraph`` (its snapshots, networkx
          graphs) or a DyNetX ``DynGraph`` / ``DynDiGraph`` (its interactions: one
          added at ``t`` and removed at ``t'`` holds at steps ``t .. t'-1``, one
          never removed holds at ``t`` only; times shifted to start at step 0,
          and a non-integer time refused); the ``temporal`` extra installs both.
    source, target, time, weight : str, optional
        Edge lists only: the column names (default ``"source"``, ``"target"``,
        ``"time"`` and, when present, ``"weight"``; matched case-insensitively).
    bin : int or str, optional
        Edge lists only: the width of one step. Integer times: ``step = (time -
        min time) // bin`` (default 1). Timestamps need it: a fixed pandas
        offset alias such as ``"1D"``, ``"6h"`` or ``"15min"``.
    directed : bool, optional
        Edge lists only: False reads each row as a two-way contact (default True).
    self_weight : "equal" or float, optional
        Series built from edges or graphs (edge lists, networkx graphs,
        networkx-temporal and DyNetX objects): the weight a node that hears
        others in a step, and has no self-loop there, puts on its own belief
        (:func:`~baygo_graph.series.series_from_edges`). Default ``"equal"``
        (:data:`~baygo_graph.series.SELF_WEIGHT`): ``1 / (d + 1)`` for a node that
        hears ``d`` others, the paper's equal rule over the closed
        in-neighbourhood; a number ``s`` in ``[0, 1]`` puts ``s`` on itself (0:
        none). A run, a series and a series file written by
        :func:`~baygo_graph.write_series` (it holds each step's W) keep their own
        weights (the option is refused for them); a ``.json``, ``.graphml`` or
        ``.gexf`` file made elsewhere (Gephi, NetworkX) is edges, and takes the rule.
    **options
        Edge lists: ``origin`` (``"first"`` or ``"epoch"``: where bins start),
        ``time_format`` (``"unix"``, or a strftime format for dates that are not
        ISO 8601; :mod:`baygo_graph.io.times`), and for files ``columns`` (a
        headerless file's columns by position, ``"time,source,target"``;
        :mod:`baygo_graph.io.archives`). Options of kinds added with
        :func:`register_kind`.

    Returns
    -------
    GraphSeries
        Node ``k`` of its arrays is ``series.nodes[k]``: labels are kept. Row
        ``i`` of ``W_t`` is node ``i``'s in-edge weights (self-loop included)
        divided by their sum, then the self-weight rule; a node with no positive
        in-edge weight in a step gets ``w_ii = 1`` (it keeps its own belief).
        ``series.self_weight`` names the rule (None: weights as stored). A node
        attribute ``informative=True`` on exactly one node marks the informative
        agent.

    Raises
    ------
    ValueError
        For a centralised run (no graph), an empty series, bad weights, missing
        columns or options that do not apply to the input.
    TypeError
        For anything else than the inputs above.
    RunFormatError
        For a file that is missing or not of its kind.

    Examples
    --------
    >>> g = nx.DiGraph([("b", "a"), ("a", "b")]); g.add_node("c")
    >>> s = as_series([g, g])
    >>> s.n_steps, s.n_agents, s.nodes, s.self_weight
    (2, 3, ('a', 'b', 'c'), 'equal')
    >>> s.weights(0).toarray().tolist()                  # a and b hear one other: 1/2
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    >>> as_series([g], self_weight=0).weights(0).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> u = as_series([nx.Graph([("x", "y")])], self_weight=0.25)   # undirected: both ways
    >>> u.weights(0).toarray().tolist()
    [[0.25, 0.75], [0.75, 0.25]]
    """
    directed = check_bool("directed", directed, none=True)
    named = {"source": source, "target": target, "time": time, "weight": weight}
    named |= {"bin": bin, "directed": directed, "self_weight": self_weight}
    given = {k: v for k, v in (named | options).items() if v is not None}
    out = _dispatch(graphs, given)
    return _run_series(out) if _is_run(out) else out


def read_series(path, /, **options) -> GraphSeries:
    """Read a graph series file: the one reader of saved series and edge lists.

    Parameters
    ----------
    path : str or os.PathLike
        ``.json`` / ``.graphml`` (written by :func:`baygo_graph.write_series` or
        elsewhere alike), ``.gexf`` (static or dynamic, integer times), an edge
        list ``.csv`` / ``.tsv`` / ``.parquet``, or any file kind in :data:`KINDS`;
        a run folder or ``.npz`` gives the run's series.
    **options
        The kind's options (edge lists: column names, ``bin``, ``directed``).

    Returns
    -------
    GraphSeries
        ``series.graphs()`` gives one ``networkx.DiGraph`` per step.

    Raises
    ------
    RunFormatError
        When the file is missing or not such a series (also for hostile files).
    BudgetError
        When reading would exceed the memory budget.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "contacts.csv"
    >>> _ = p.write_text("source,target,time\\nann,bob,0\\nbob,ann,1\\n")
    >>> s = read_series(p)
    >>> s.nodes, s.n_steps
    (('ann', 'bob'), 2)
    """
    if not _is_path(path):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    return as_series(path, **options)


def series_input(func):
    """Decorator: the function's first argument goes through :func:`as_series` once,
    so the function body holds a :class:`GraphSeries` (as NetworkX dispatches a
    graph argument).

    Examples
    --------
    >>> @series_input
    ... def n_steps(graphs):
    ...     return graphs.n_steps
    >>> n_steps([nx.DiGraph([(0, 1)])] * 3), n_steps(graphs=[nx.DiGraph([(0, 1)])])
    (3, 1)
    """
    name = next(iter(inspect.signature(func).parameters))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if args:
            args = (as_series(args[0]), *args[1:])
        elif name in kwargs:
            kwargs[name] = as_series(kwargs[name])
        return func(*args, **kwargs)

    return wrapper


# -- other libraries' objects -------------------------------------------------------


#: Bytes each step given as a networkx graph counts at least, whatever it holds: a
#: graph object held until the series is built (an empty ``DiGraph`` takes 520 B,
#: measured with tracemalloc). An endless iterator of empty graphs so stops after
#: budget / 512 steps (2 million per GiB), in seconds, not after 16 million.
GRAPH_STEP_BYTES = 512


def _graphs(obj, *, self_weight=SELF_WEIGHT) -> GraphSeries:
    """A sequence of networkx graphs, one per step, with the self-weight rule: taken one
    at a time, the series they make (edge-steps, nodes, steps; each step at least
    :data:`GRAPH_STEP_BYTES`) checked against the budget as they come (an endless
    iterator stops at the budget), before it is built; a sequence of known length is
    checked for its steps before the first graph is read."""
    budget = memory_budget()  # what the process holds counts, measured once here
    per_step = EDGE_LIST_BYTES_PER_STEP + GRAPH_STEP_BYTES
    total = len(obj) if isinstance(obj, Sized) else None
    if total is not None and not budget.fits(total * per_step):
        _refuse_graphs(f"networkx graphs: {counted(total, 'step')}", total * per_step, budget)
    graphs, entries, nodes = [], 0, 0
    for g in obj:
        graphs.append(g)
        if isinstance(g, nx.Graph):
            edges = g.number_of_edges()
            entries += edges if g.is_directed() else 2 * edges
            nodes = max(nodes, len(g))
        need = EDGE_LIST_BYTES_PER_ROW * entries + EDGE_LIST_BYTES_PER_NODE * nodes
        need += per_step * len(graphs)
        if need > budget.room:  # the message is made only then: the loop stays cheap
            of = f" of {total}" if total is not None else ""
            _refuse_graphs(f"networkx graphs: {counted(len(graphs), 'step')}{of} so far ({entries} "
                           f"edge-steps, at least {counted(nodes, 'node')})", need, budget,
                           endless=total is None)  # fmt: skip
    return series_from_graphs(graphs, self_weight=self_weight)


def _refuse_graphs(what: str, need: int, budget, *, endless: bool = False):
    """BudgetError for graphs past the budget (a :class:`~baygo_graph.limits.Budget`); no
    limit is promised (the graphs not yet read may hold more)."""
    raise BudgetError(
        f"{what} (at least {GRAPH_STEP_BYTES} B a step) need {budget.over(need)}: pass fewer "
        "steps (a shorter time window) or fewer edges per step"
        + (" (an iterator may never end)" if endless else "")
        + f", or raise {LIMIT_ENV}"
    )


def _module_is(name: str) -> Callable[[object], bool]:
    return lambda obj: type(obj).__module__.split(".")[0] == name


def _graph_sequence(obj) -> bool:
    return (isinstance(obj, Iterable) and not isinstance(obj, nx.Graph | str | bytes | dict)
            and _table_like(obj) is None)  # fmt: skip


def _read_run(path, **options) -> Run:
    if why := archives.unknown_kind_message(path):  # a file of no kind: say what is read
        from .exceptions import RunFormatError

        raise RunFormatError(why)
    return Run.load(path)


def _json(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return series_files.SERIES_FORMAT.encode() in fh.read(1024)
    except OSError:
        return False


# The built-in kinds, in the order they are asked.
register_kind("run", _read_run)
# A series file made elsewhere takes the self-weight rule; one of write_series refuses it.
register_kind("JSON series", series_files.read_json, suffixes=[".json"], sniff=_json,
              options=GRAPH_OPTIONS)  # fmt: skip
register_kind("GraphML series", series_files.read_graphml, suffixes=[".graphml"],
              options=GRAPH_OPTIONS)  # fmt: skip
register_kind("GEXF series", series_files.read_gexf, suffixes=[".gexf"], options=GRAPH_OPTIONS)
register_kind(
    "edge list",
    edgelist.read_edge_list,
    suffixes=edgelist.EDGE_LIST_SUFFIXES,  # CSV/TSV, Parquet, SNAP; also compressed
    sniff=lambda path: archives.edge_file_kind(path) == "konect",  # KONECT's out.NAME
    options=EDGE_FILE_OPTIONS,
)
register_kind(
    "edge list (DataFrame)",
    edgelist.edge_list_series,
    accepts=_is_frame,
    options=EDGE_LIST_OPTIONS,
)
register_kind(
    "networkx-temporal graph",
    foreign.temporal_graph_series,
    accepts=_module_is("networkx_temporal"),
    options=GRAPH_OPTIONS,
)
register_kind(
    "DyNetX graph", foreign.dynetx_series, accepts=_module_is("dynetx"), options=GRAPH_OPTIONS
)
register_kind("networkx graphs", _graphs, accepts=_graph_sequence, options=GRAPH_OPTIONS)
