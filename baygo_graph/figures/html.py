"""An interactive, self-contained HTML viewer of an evolving communication graph.

:func:`to_html` writes ONE HTML file that opens offline in any current browser:
the page (``viewer.html``, package data: canvas drawing, plain JavaScript and
CSS, no library) and the series' data embedded as JSON in a
``<script type="application/json">`` element. Controls: a time slider and a
play/pause button; zoom (mouse wheel, +/- buttons), pan (drag), "fit"; a search
box that finds a node by its label; a mode switch between single steps and the
aligned window unions that ``baygo analyze`` reports, windows that are not
strongly connected marked in red on the timeline strip and in the status line.
Node size shows influence, the informative agent (when the series has one) is a
vermillion star, and the MSE curve of the clicked agent is drawn when the
source is a run. The user guide is ``docs/viewer.md``.

Embedded data (``format: "baygo-viewer"``, ``version: 2``)
----------------------------------------------------------
Large arrays are *packed*: ``{"dtype", "length", "zlib"}`` where ``zlib`` is the
base64 text of the zlib-compressed little-endian array (the page inflates it
with the browser's ``DecompressionStream``). Packed arrays:

* ``choices`` (``kind: "choices"``; T x M uint16/uint32, row-major, value
  ``choice + 1``, 0: no choice) with ``delta``: edge ``choices[t][i] -> i`` of
  weight ``1 - delta``; or ``ptr`` (T + 1), ``src``, ``dst`` (``kind: "edges"``)
  and ``weight`` (float32) for any other series: step t's edges are entries
  ``ptr[t] .. ptr[t+1] - 1``; a fixed graph (``fixed: true``) is stored once;
* ``influence`` and ``mse`` (M x T, agent-major; ``mse`` null without MSE
  curves), log-quantised to uint16 and byte-shuffled (``shuffle: true``: all
  low bytes, then all high bytes) (``lo``/``hi``: natural logs of the smallest and
  largest positive value; code 0: undefined, 1: zero, ``c >= 2``:
  ``exp(lo + (c - 2) / 65533 * (hi - lo))``, relative error below
  ``(hi - lo) / 131066``).

Small arrays are plain JSON: ``nodes`` (labels as text), ``layout`` (M
``[x, y]`` in [0, 1]) and ``layout_method`` (``"spring"``, ``"coarse"`` or
``"none"``: :func:`~baygo_graph.figures._graph.graph_layout`), ``connected`` (T
booleans: the union of the sliding window ending at step t is strongly connected)
and ``windows`` (the aligned windows of
:func:`~baygo_graph.analysis.b_connectivity`: ``start``, ``stop``, ``connected``,
``components``).
"""

from __future__ import annotations

import base64
import html
import json
import re
import warnings
import zlib
from importlib import resources
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._render import self_weight_text
from .._text import counted, escape_surrogates, loss_label, shorten
from ..analysis import b_connectivity, influence_series, time_to_connectivity
from ..analysis.centrality import influence_bound, influence_bytes
from ..inputs import as_series
from ..io.atomic import atomic_text, check_target, input_files, protected_inputs
from ..limits import following
from ..run import Run
from ._graph import (
    COARSE_CORE,
    LAYOUT_MAX_NODES,
    LAYOUTS,
    SPRING_MAX_NODES,
    SPRING_NODES,
    graph_layout,
)
from ._style import (
    INFORMATIVE_COLOR,
    SYNTHETIC_TEXT,
    loss_axis_label,
    strategy_color,
    strategy_label,
)

__all__ = ["to_html"]

VIEWER_FORMAT = "baygo-viewer"
VIEWER_VERSION = 2
_TEMPLATE = "viewer.html"
_AGENT_COLOR = "#0072B2"  # Okabe-Ito blue
#: Strongest partners per node kept in the graph the layout is computed on.
_LAYOUT_PARTNERS = 8
_QMAX = 65535
#: What the viewer allocates, stage by stage (each stage's work is freed before the
#: next; tracemalloc): the layout (:func:`_layout_bytes`), then the influence
#: (:func:`~baygo_graph.analysis.centrality.influence_bytes`, counted as that function
#: counts it), then the page's data: per step, whether each sliding window is connected
#: and the aligned windows' answers, as arrays, Python lists and JSON text, and the
#: step offsets of the edges (48-56 B a step, 2 nodes over 10^6 steps), per stored
#: entry the steps' edges and their packed copies (31-38 B an entry). Per node (the
#: label's JSON; the positions are counted in the layout) and once (the template, the
#: modules' first use: 0.3-1.5 MiB in a command's first call), beside every stage: the
#: whole page 1.2-1.4x of its tracemalloc peak (``benchmarks/bench_estimates.py``; it was
#: 1.7-2.8x with 8 MiB and 200 B a node beside the stages, hostile19 X3, hostile17 V3).
_VIEWER_BYTES_PER_STEP = 64
_VIEWER_BYTES_PER_ENTRY = 48
_VIEWER_BYTES_PER_NODE = 64
_VIEWER_BYTES_FIXED = 2 << 20
#: The layout's work (tracemalloc peaks of :func:`_layout`, ``benchmarks/bench_estimates.py
#: --parts``): NetworkX's spring layout, dense (N, N, 2) differences up to 500 nodes
#: (65-73 B a pair of nodes, more with many edges: counted per union pair below), its
#: sparse form above (8 B for every pair besides the first 500^2); the coarse layout's
#: core is the spring layout of its :data:`COARSE_CORE` nodes. Beside it, per pair of the
#: union graph (both directions: its CSR, the sorted partners and their ranks, 72 B) and
#: per pair kept (at most :data:`_LAYOUT_PARTNERS` a node: the layout's own graph, 64 B),
#: and per node (the positions and their Python lists: 128-140 B; the coarse placement 40 B).
_LAYOUT_BYTES_PER_PAIR = 72
_LAYOUT_SPARSE_BYTES_PER_PAIR = 8
_UNION_BYTES_PER_PAIR = 72
_KEPT_BYTES_PER_PAIR = 64
_LAYOUT_BYTES_PER_NODE = 168
_POSITIONS_BYTES_PER_NODE = 144
# Characters that must not appear raw inside a <script> element (HTML parser) or,
# for old engines, inside a JavaScript string (U+2028/2029).
_SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _check_window(window, n_steps: int) -> int:
    if isinstance(window, bool) or not isinstance(window, int | np.integer):
        raise TypeError(f"window must be an int, got {type(window).__name__}")
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window!r}")
    return int(min(window, n_steps))


def _packed(a, dtype: str, *, shuffle: bool = False) -> dict:
    """A flat little-endian array, zlib-compressed and base64-encoded.

    ``shuffle`` stores the bytes by significance (every element's first byte,
    then every second byte, ...), which compresses smooth quantised curves
    better.

    Examples
    --------
    >>> p = _packed([1, 2, 3], "uint16")
    >>> p["dtype"], p["length"], p["shuffle"]
    ('uint16', 3, False)
    >>> np.frombuffer(zlib.decompress(base64.b64decode(p["zlib"])), "<u2").tolist()
    [1, 2, 3]
    >>> list(zlib.decompress(base64.b64decode(_packed([1, 2], "uint16", shuffle=True)["zlib"])))
    [1, 2, 0, 0]
    """
    a = np.ascontiguousarray(np.asarray(a).ravel(), dtype=np.dtype(dtype).newbyteorder("<"))
    raw = a.view(np.uint8).reshape(-1, a.itemsize).T.tobytes() if shuffle else a.tobytes()
    text = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
    return {"dtype": dtype, "length": int(a.size), "shuffle": shuffle, "zlib": text}


def _log_quantised(a, *, floor: float = 1e-12) -> dict:
    """``a`` as uint16 codes on a log scale (0: NaN, 1: <= floor, see the module doc).

    Examples
    --------
    >>> q = _log_quantised([[np.nan, 0.0, 0.5, 2.0]])
    >>> raw = np.frombuffer(zlib.decompress(base64.b64decode(q["zlib"])), np.uint8)
    >>> codes = raw.reshape(2, -1).T.copy().view("<u2").ravel()  # un-shuffle the bytes
    >>> codes.tolist()
    [0, 1, 2, 65535]
    >>> np.exp(q["lo"] + (codes[2:] - 2) / 65533 * (q["hi"] - q["lo"])).round(6).tolist()
    [0.5, 2.0]
    """
    a = np.asarray(a, dtype=float)
    codes = np.zeros(a.shape, dtype=np.uint16)
    finite = np.isfinite(a)
    pos = finite & (a > floor)
    codes[finite & ~pos] = 1
    if pos.any():
        logs = np.log(a[pos])
        lo, hi = float(logs.min()), float(logs.max())
        span = hi - lo if hi > lo else 1.0
        codes[pos] = 2 + np.rint((logs - lo) / span * (_QMAX - 2)).astype(np.uint16)
    else:
        lo = hi = 0.0
    return _packed(codes, "uint16", shuffle=True) | {"lo": lo, "hi": hi}


def _index_dtype(m: int) -> str:
    return "uint16" if m < _QMAX else "uint32"


def _union_weights(series) -> sp.csr_array:
    """Symmetric share of steps each pair of nodes is linked (either direction)."""
    m, t = series.n_agents, series.n_steps
    src, dst = series.window_edges(0, t) if series.fixed is None else series.window_edges(0, 1)
    share = 1.0 if series.fixed is not None else 1.0 / t
    w = sp.coo_array((np.full(len(src), share), (src, dst)), shape=(m, m)).tocsr()
    w.sum_duplicates()
    return (w + w.T).tocsr()


def _layout(series, seed: int, method: str) -> tuple[list, str]:
    """Positions (:func:`~baygo_graph.figures._graph.graph_layout`) of the union graph,
    each node's strongest partners only, and the method used.

    Keeping at most :data:`_LAYOUT_PARTNERS` partners per node (by share of steps
    linked) keeps the layout readable and its cost bounded on long, dense runs.
    """
    m = series.n_agents
    if method == "none" or (method == "auto" and m > LAYOUT_MAX_NODES):
        return graph_layout(sp.csr_array((m, m)), method="none")[0].tolist(), "none"
    w = _union_weights(series).tocoo()
    off = w.row != w.col
    row, col, val = w.row[off], w.col[off], w.data[off]
    order = np.lexsort((-val, row))  # by row, strongest first
    row, col, val = row[order], col[order], val[order]
    rank = np.arange(len(row)) - np.searchsorted(row, row)
    keep = rank < _LAYOUT_PARTNERS
    kept = sp.coo_array((val[keep], (row[keep], col[keep])), shape=(m, m)).tocsr()
    xy, used = graph_layout(kept.maximum(kept.T), method=method, seed=seed)
    return xy.tolist(), used


def _connected(series, window: int) -> list:
    """Whether the union of steps ``max(0, t-window+1) .. t`` is strongly connected."""
    length = time_to_connectivity(series)
    t = np.arange(series.n_steps)
    start = np.maximum(0, t - window + 1)
    need = length[start]
    return ((need >= 1) & (need <= t - start + 1)).tolist()


def _aligned_windows(series, window: int) -> dict:
    """The aligned windows ``baygo analyze`` reports (incomplete ones left out)."""
    r = b_connectivity(series, window, windows="aligned")
    return {
        "start": r.start.tolist(),
        "stop": r.stop.tolist(),
        "connected": r.strongly_connected.tolist(),
        "components": r.n_components.tolist(),
    }


def _graph_data(series) -> dict:
    idx = _index_dtype(series.n_agents)
    if series.choices is not None:
        choices = np.asarray(series.choices, dtype=np.int64) + 1
        return {"kind": "choices", "fixed": False, "choices": _packed(choices, idx)}
    if series.fixed is not None:
        _, src, dst, w = series.step_edges(0, 1)
        ptr = np.array([0, len(src)])
    else:
        step, src, dst, w = series.step_edges(0, series.n_steps)
        ptr = np.searchsorted(step, np.arange(series.n_steps + 1))
    pos = w > 0
    if not pos.all():
        src, dst, w = src[pos], dst[pos], w[pos]
        ptr = np.searchsorted(np.flatnonzero(pos), ptr)
    return {
        "kind": "edges",
        "fixed": series.fixed is not None,
        "ptr": _packed(ptr, "uint32"),
        "src": _packed(src, idx),
        "dst": _packed(dst, idx),
        "weight": _packed(w, "float32"),
    }


def _mse(run: Run | None):
    """The run's MSE, agent-major; None without a run or when it holds no MSE (all 0)."""
    if run is None:
        return None
    mse = np.asarray(run.mse, dtype=float)
    if not np.any(np.nan_to_num(mse) != 0):  # Run.from_choices: "metrics are zeros"
        return None
    return _log_quantised(mse.T)


def _layout_note(m: int, asked: str, used: str) -> str | None:
    """What the page's layout is when it is not the spring layout asked for by default."""
    if asked != "auto" or used == "spring":
        return None
    if used == "coarse":
        spring = ("; layout='spring' places all (slower: N^2 per iteration)"
                  if m <= SPRING_MAX_NODES else "")  # fmt: skip
        return (
            f"layout: {counted(m, 'node', spec=',')} are over {SPRING_NODES:,}: the spring layout "
            "places the "
            f"{COARSE_CORE:,} best-linked nodes, the others beside their neighbours "
            f"(layout='coarse'){spring}"
        )
    return (
        f"layout: {counted(m, 'node', spec=',')} are over the layout cap of {LAYOUT_MAX_NODES:,}: "
        "nodes placed "
        "on a spiral in label order, not by the graph (layout='none')"
    )


def _union_pairs(series) -> int:
    """The pairs of nodes the union graph links, both directions (its CSR's entries):
    what the layout holds per pair (a ring of 10^4 nodes over 50 steps links 2 x 10^4
    pairs by 5 x 10^5 edges: counting the edges was 13x its layout)."""
    m, t = series.n_agents, series.n_steps
    src, dst = series.window_edges(0, t) if series.fixed is None else series.window_edges(0, 1)
    if not len(src):
        return 0
    lo, hi = np.minimum(src, dst).astype(np.int64), np.maximum(src, dst).astype(np.int64)
    return 2 * len(np.unique(lo * m + hi))


def _layout_bytes(m: int, layout: str, pairs: int) -> int:
    """Peak bytes of the page's layout of ``m`` nodes (``layout`` as asked) whose union
    graph links ``pairs`` pairs (both directions, :func:`_union_pairs`)."""
    used = layout
    if layout == "auto":
        used = "spring" if m <= SPRING_NODES else "coarse" if m <= LAYOUT_MAX_NODES else "none"
    if used == "none":
        return _POSITIONS_BYTES_PER_NODE * m
    core = min(m, COARSE_CORE if used == "coarse" else m)
    spring = _LAYOUT_BYTES_PER_PAIR * min(core, 500) ** 2 + (
        _LAYOUT_SPARSE_BYTES_PER_PAIR * core * core if core > 500 else 0
    )
    kept = min(int(pairs), _LAYOUT_PARTNERS * m)
    return (spring + _UNION_BYTES_PER_PAIR * int(pairs) + _KEPT_BYTES_PER_PAIR * kept
            + _LAYOUT_BYTES_PER_NODE * m)  # fmt: skip


def _viewer_bytes(series, *, window: int, layout: str) -> int:
    """Peak bytes the viewer of ``series`` allocates (the module constants): its nodes'
    data, and the largest of its stages (layout, influence, the page's data), which
    follow one another."""
    m, t = series.n_agents, series.n_steps
    entries = len(series.entries[0]) if getattr(series, "entries", None) else m * t
    page = _VIEWER_BYTES_PER_STEP * t + _VIEWER_BYTES_PER_ENTRY * entries
    pairs = _union_pairs(series) if layout != "none" and m <= LAYOUT_MAX_NODES else 0
    stages = (_layout_bytes(m, layout, pairs), influence_bytes(series, window), page)
    return _VIEWER_BYTES_FIXED + _VIEWER_BYTES_PER_NODE * m + max(stages)


def viewer_bound(
    steps: int, nodes: int, rows: int, *, window: int = 10, layout: str = "auto"
) -> int:
    """An upper bound of what the viewer of a series of ``steps`` x ``nodes`` read from
    ``rows`` contacts allocates, before the series exists: what a reader's refusal
    advises for the page too (:func:`~baygo_graph.limits.following`), so one retry
    writes it.

    Examples
    --------
    >>> viewer_bound(10**6, 2, 2) // 2**20
    105
    """
    t, m = int(steps), int(nodes)
    entries = 4 * int(rows)
    page = _VIEWER_BYTES_PER_STEP * t + _VIEWER_BYTES_PER_ENTRY * entries
    pairs = min(2 * int(rows), m * (m - 1))  # each contact links one pair at most
    stages = (_layout_bytes(m, layout, pairs), influence_bound(t, m, rows=rows, window=window),
              page)  # fmt: skip
    return _VIEWER_BYTES_FIXED + _VIEWER_BYTES_PER_NODE * m + max(stages)


def viewer_need(window: int, layout: str):
    """``need(steps, nodes, rows)`` of :func:`~baygo_graph.limits.following`: the page
    (its window and layout as asked; checked after the read)."""
    w = window if isinstance(window, int | np.integer) and window >= 1 else 10
    shown = layout if layout in LAYOUTS else "auto"
    return lambda steps, nodes, rows: viewer_bound(steps, nodes, rows, window=min(w, steps),
                                                   layout=shown)  # fmt: skip


def _check_viewer_budget(series, *, window: int, layout: str) -> None:
    """The viewer's arrays (influence and its codes, layout, edges, page) fit the budget."""
    from ..limits import check_budget

    m, t = series.n_agents, series.n_steps
    check_budget(
        _viewer_bytes(series, window=window, layout=layout),
        what=f"the viewer of {counted(m, 'node', spec=',')} x {counted(t, 'step', spec=',')}",
    )


def _viewer_data(source, *, window: int, layout_seed: int, layout: str, title: str) -> dict:
    run = source if isinstance(source, Run) else None
    series = as_series(source)
    _check_viewer_budget(series, window=window, layout=layout)  # before any of it exists
    positions, used = _layout(series, layout_seed, layout)
    note = _layout_note(series.n_agents, layout, used)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=3)
    informative = run.informative if run is not None else series.informative
    synthetic = run.synthetic if run is not None else bool(series.synthetic)
    data = {
        "format": VIEWER_FORMAT,
        "version": VIEWER_VERSION,
        "title": title,
        "strategy": run.strategy if run is not None else None,
        "strategy_label": strategy_label(run.strategy, math=False) if run is not None else None,
        "n_agents": series.n_agents,
        "n_steps": series.n_steps,
        "nodes": [str(v) for v in series.nodes],
        "informative": None if informative is None else int(informative),
        "delta": None if series.delta is None else float(series.delta),
        # the weight rule the influence rests on, worded once (baygo_graph._render)
        "weights": self_weight_text(getattr(series, "self_weight", None), series.delta),
        "window": window,
        # when each step starts (io.times.TimeAxis): the slider names the step's start
        "time_axis": None if series.time_axis is None else series.time_axis.as_dict(),
        "time": None if series.time_axis is None else series.time_axis.viewer_rule(),
        "synthetic": synthetic,
        # the words only on a synthetic page: a search for them finds synthetic outputs
        "synthetic_text": SYNTHETIC_TEXT if synthetic else "",
        "data_source": run.data_source if run is not None else None,
        "colors": {
            "informative": INFORMATIVE_COLOR,
            "agent": _AGENT_COLOR,
            "strategy": strategy_color(run.strategy) if run is not None else _AGENT_COLOR,
        },
        "layout": positions,
        "layout_method": used,
        "influence": _log_quantised(
            influence_series(series, window=window, windows="sliding").values.T  # agent-major
        ),
        "mse": _mse(run),
        # what the 'mse' curves hold, in every teller's words (a log-loss is no MSE: Z12)
        "loss": loss_label(run.loss_name) if run is not None else None,
        "loss_axis": loss_axis_label(run.loss_name) if run is not None else None,
        "connected": _connected(series, window),
        "windows": _aligned_windows(series, window),
    }
    return data | _graph_data(series)


def _script_json(obj) -> str:
    """JSON text that is safe inside an HTML ``<script>`` element.

    ``<``, ``>``, ``&``, U+2028 and U+2029 become ``\\uXXXX`` escapes (only
    strings can hold them, so the JSON value is unchanged), so no string can
    close the element or start a comment; so does a lone surrogate (a label
    ``"\\ud800"``), which no UTF-8 page can hold; NaN is refused.

    Examples
    --------
    >>> _script_json({"name": "</script><b>"})
    '{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    >>> json.loads(_script_json({"name": "</script>"}))["name"]
    '</script>'
    """
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return re.sub(
        "[<>&\u2028\u2029\ud800-\udfff]",  # a lone surrogate: JSON's escape (no UTF-8 for it)
        lambda m: _SCRIPT_ESCAPES.get(m.group(0)) or f"\\u{ord(m.group(0)):04x}",
        text,
    )


def to_html(
    source,
    path,
    *,
    window: int = 10,
    layout: str = "auto",
    layout_seed: int = 0,
    title: str | None = None,
    overwrite: bool = False,
):
    """Write an interactive viewer of a graph series to one HTML file.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx graphs
        Any series the package understands (:func:`baygo_graph.inputs.as_series`):
        a dynamic (BayGo) or fixed-graph run (a fixed graph is the same every
        step), a series, or a list of step graphs. Node labels are kept and
        shown. The informative agent is marked when the series has one; the MSE
        curve of a clicked agent is drawn when ``source`` is a run with MSE
        values (a run made by ``Run.from_choices`` holds none).
    path : str or os.PathLike
        The ``.html`` (or ``.htm``) file to write (atomically; parent folders are made);
        never the file ``source`` names (refused, as ``baygo view`` refuses it).
    window : int, default 10
        Window length w. Step mode: node sizes show the influence of the sliding
        window of w steps ending at the selected step
        (:func:`~baygo_graph.analysis.influence_series`, product method), and
        the status line says whether its union is strongly connected. Window
        mode: the aligned windows ``[nw, (n+1)w)`` that ``baygo analyze``
        reports (incomplete last window left out), each drawn as its union.
        A window longer than the series is cut to T. Where the influence is
        undefined (before step ``w - 1``, or not unique) all nodes have the
        same size and the page says why.
    layout : {"auto", "spring", "coarse", "none"}, default "auto"
        How node positions are computed from the union graph (each node's 8
        strongest partners), once, so they stay fixed while the slider moves
        (:func:`~baygo_graph.figures._graph.graph_layout`): ``"spring"``,
        NetworkX's spring layout (cost N^2 per iteration, at most 5,000 nodes);
        ``"coarse"``, the spring layout of the 400 best-linked nodes and every
        other node placed beside its neighbours (cost linear in nodes and
        edges); ``"none"``, a spiral in label order. ``"auto"``: spring up to
        1,000 nodes, coarse up to 200,000, none above, with a ``UserWarning``
        saying which when it is not the spring layout.
    layout_seed : int, default 0
        Seed of the layout.
    title : str, optional
        Page title (default: strategy, agents, steps). With synthetic data the
        browser's title (tab, bookmark) begins with "SYNTHETIC DATA -" and the page
        shows the mark beside it.
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work: every writer's rule, as ``baygo view`` asks for ``--force``). A
        symbolic link at ``path`` is always refused
        (:func:`~baygo_graph.io.atomic.atomic_write`).

    Returns
    -------
    pathlib.Path
        The file written. It needs no network access: no CDN, data embedded.

    Raises
    ------
    TypeError
        If ``source`` is not a series input or ``window`` not an int.
    ValueError
        If ``source`` is a centralised (``cen``) run, which has no graph,
        ``window < 1``, ``layout`` unknown (or ``"spring"`` for more than
        5,000 nodes), or ``path`` does not end in ``.html``.
    FileExistsError
        If a file is at ``path`` and ``overwrite`` is False, before any work.
    PermissionError
        If ``path`` is the file ``source`` names (any spelling, a link to it),
        before any work.
    BudgetError
        If the viewer's arrays would exceed the memory budget
        (:mod:`baygo_graph.limits`), checked before they are made.

    Notes
    -----
    User-controlled strings (labels, strategy name, data path, title) reach the
    page only as JSON with ``<``, ``>``, ``&`` escaped as ``\\uXXXX``,
    HTML-escaped text in the ``<title>``, or text drawn by the script: none can
    break out. The page needs ``DecompressionStream`` (Chrome/Edge 80+, Firefox
    113+, Safari 16.4+).

    Examples
    --------
    >>> import tempfile
    >>> import networkx as nx
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("baygo", agents=4, steps=5, model=LinearRegression(grid=9),
    ...                rng=0, data=synthetic_bodyfat())
    >>> p = to_html(run, tempfile.mkdtemp() + "/run.html", window=3)
    >>> text = p.read_text()
    >>> text.startswith("<!DOCTYPE html>"), "https://" in text
    (True, False)
    >>> steps = [nx.DiGraph([("ann", "bob"), ("bob", "cy")]), nx.DiGraph([("cy", "ann")])]
    >>> steps[1].add_node("bob")
    >>> p = to_html(steps, tempfile.mkdtemp() + "/mine.html", window=2)
    """
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"path must end in .html (the page is HTML), got {shorten(str(path))!r}")
    with protected_inputs(input_files(source), whose="this call"):
        check_target(path, overwrite=overwrite)  # before the work: never the source itself
        return _write_page(source, path, window=window, layout=layout,
                           layout_seed=layout_seed, title=title, overwrite=overwrite)  # fmt: skip


def _write_page(source, path: Path, *, window, layout, layout_seed, title, overwrite) -> Path:
    if isinstance(source, Run) and source.series is None:
        raise ValueError(
            f"run is a centralised run (strategy {source.strategy!r}): one central learner "
            "has no communication graph to view"
        )
    with following(viewer_need(window, layout), goal="to write the page too"):
        series = as_series(source)  # a refusal of the read advises for the page too
    window = _check_window(window, series.n_steps)
    if isinstance(layout_seed, bool) or not isinstance(layout_seed, int | np.integer):
        raise TypeError(f"layout_seed must be an int, got {type(layout_seed).__name__}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {shorten(repr(layout))}")
    if title is None:
        size = f"{counted(series.n_agents, 'node')}, {counted(series.n_steps, 'step')}"
        if isinstance(source, Run):
            size = f"{strategy_label(source.strategy, math=False)} run: "
            size += f"{counted(source.n_agents, 'agent')}, {counted(source.n_steps, 'step')}"
        title = size
    data = _viewer_data(
        source, window=window, layout_seed=int(layout_seed), layout=layout, title=str(title)
    )
    template = resources.files(__package__).joinpath(_TEMPLATE).read_text(encoding="utf-8")
    shown = html.escape(escape_surrogates(str(title)), quote=True)
    # the browser's tab, bookmarks and window title say it too, not only the page
    mark = f"{SYNTHETIC_TEXT} - " if data["synthetic"] else ""
    values = {"TITLE": shown, "PAGE_TITLE": mark + shown, "DATA": _script_json(data)}
    page = re.sub(r"\{\{(TITLE|PAGE_TITLE|DATA)\}\}", lambda m: values[m.group(1)], template)
    return atomic_text(path, page, overwrite=overwrite)
