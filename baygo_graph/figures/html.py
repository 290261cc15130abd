"""An interactive, self-contained HTML viewer of a run's evolving communication graph.

:func:`to_html` writes ONE HTML file that opens offline in any browser: the page
(``viewer.html``, package data: plain SVG, JavaScript and CSS, no library) and the
run's data embedded as JSON in a ``<script type="application/json">`` element. The
page shows the step graph under a time slider with a play/pause button, node size
by influence, edge width by weight, the informative agent as a vermillion star,
whether the window ending at the selected step is strongly connected, the data
source ("SYNTHETIC DATA" when synthetic) and the MSE curve of the agent clicked.

Embedded data (``format: "baygo-viewer"``, ``version: 1``)
----------------------------------------------------------
* ``choices`` (T rows of M ints; ``-1``: none) and ``delta`` for a dynamic run
  (edge ``choices[t][i] -> i`` of weight ``1 - delta``), or ``edges``
  (``[src, dst, weight]`` triples, self-loops left out) for a fixed run: the
  per-step edge lists are never written out one by one;
* ``mse`` (T rows of M, 5 significant digits) and ``influence`` (T rows of M, 3
  significant digits; ``null`` rows where the window influence is undefined);
* ``connected`` (T booleans): the union of the window ending at step t is
  strongly connected; ``layout`` (M ``[x, y]`` in [0, 1]); labels and colours.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path

import networkx as nx
import numpy as np

from ..analysis import influence_series, time_to_connectivity
from ..io.atomic import atomic_text
from ..run import Run
from ..series import as_series
from ._style import INFORMATIVE_COLOR, SYNTHETIC_TEXT, strategy_color, strategy_label

__all__ = ["to_html"]

VIEWER_FORMAT = "baygo-viewer"
VIEWER_VERSION = 1
_TEMPLATE = "viewer.html"
_AGENT_COLOR = "#0072B2"  # Okabe-Ito blue
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


def _rounded(a, digits: int) -> list:
    """Nested lists of floats kept to ``digits`` significant digits; NaN -> None."""
    a = np.asarray(a, dtype=float)
    flat = [None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in a.ravel().tolist()]
    if a.ndim == 1:
        return flat
    n = a.shape[-1]
    return [flat[k : k + n] for k in range(0, len(flat), n)]


def _layout(run: Run, seed: int) -> list:
    """Spring layout of the union graph (edge weight = share of steps holding it)."""
    m = run.n_agents
    series = as_series(run)
    if series.fixed is not None:
        w = series.fixed.tocoo()
        off = w.row != w.col
        src, dst, count = w.col[off], w.row[off], np.full(off.sum(), run.n_steps)
    else:
        _, src, dst, _ = series.step_edges()
        off = src != dst
        key, count = np.unique(src[off] * m + dst[off], return_counts=True)
        src, dst = key // m, key % m
    g = nx.Graph()
    g.add_nodes_from(range(m))
    for a, b, c in zip(src.tolist(), dst.tolist(), count.tolist(), strict=True):
        prev = g.get_edge_data(a, b, {"weight": 0.0})["weight"]
        g.add_edge(a, b, weight=prev + c / run.n_steps)
    pos = nx.spring_layout(g, seed=seed, weight="weight")
    xy = np.array([pos[i] for i in range(m)], dtype=float)
    span = np.ptp(xy, axis=0)
    xy = (xy - xy.min(axis=0)) / np.where(span > 0, span, 1.0)
    return np.round(0.05 + 0.9 * xy, 4).tolist()


def _connected(run: Run, window: int) -> list:
    """Whether the union of steps ``max(0, t-window+1) .. t`` is strongly connected."""
    length = time_to_connectivity(run)
    t = np.arange(run.n_steps)
    start = np.maximum(0, t - window + 1)
    need = length[start]
    return ((need >= 1) & (need <= t - start + 1)).tolist()


def _viewer_data(run: Run, *, window: int, layout_seed: int, title: str) -> dict:
    series = as_series(run)
    data = {
        "format": VIEWER_FORMAT,
        "version": VIEWER_VERSION,
        "title": title,
        "strategy": run.strategy,
        "strategy_label": strategy_label(run.strategy),
        "kind": "fixed" if series.fixed is not None else "dynamic",
        "n_agents": run.n_agents,
        "n_steps": run.n_steps,
        "informative": int(run.informative),
        "delta": float(run.delta),
        "window": window,
        "synthetic": run.synthetic,
        "synthetic_text": SYNTHETIC_TEXT,
        "data_source": run.data_source,
        "colors": {
            "informative": INFORMATIVE_COLOR,
            "agent": _AGENT_COLOR,
            "strategy": strategy_color(run.strategy),
        },
        "layout": _layout(run, layout_seed),
        "choices": None,
        "edges": None,
        "mse": _rounded(run.mse, 5),
        "influence": _rounded(influence_series(run, window=window, windows="sliding"), 3),
        "connected": _connected(run, window),
    }
    if series.fixed is not None:
        w = series.fixed.tocoo()
        off = w.row != w.col
        data["edges"] = [
            [int(s), int(d), float(f"{x:.6g}")]
            for s, d, x in zip(w.col[off], w.row[off], w.data[off], strict=True)
        ]
    else:
        data["choices"] = np.asarray(series.choices, dtype=np.int64).tolist()
    return data


def _script_json(obj) -> str:
    """JSON text that is safe inside an HTML ``<script>`` element.

    ``<``, ``>``, ``&``, U+2028 and U+2029 become ``\\uXXXX`` escapes (only
    strings can hold them, so the JSON value is unchanged), so no string can
    close the element or start a comment; NaN is refused.

    Examples
    --------
    >>> _script_json({"name": "</script><b>"})
    '{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    >>> json.loads(_script_json({"name": "</script>"}))["name"]
    '</script>'
    """
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_ESCAPES[m.group(0)], text)


def to_html(run, path, *, window: int = 10, layout_seed: int = 0, title: str | None = None):
    """Write an interactive viewer of ``run``'s communication graph to one HTML file.

    Parameters
    ----------
    run : Run
        A dynamic (BayGo) or fixed-graph run; for fixed strategies every step
        shows the same graph.
    path : str or os.PathLike
        The ``.html`` file to write (atomically; parent folders are made).
    window : int, default 10
        Window length w: node sizes show the influence of the window of w steps
        ending at the selected step (:func:`~baygo_graph.analysis.influence_series`,
        product method), and the status line says whether the union of that window
        is strongly connected. A window longer than the run is cut to T. Before
        step ``w - 1`` (no full window yet) and where the influence is not unique,
        every node has the same size; the status line then covers steps
        ``0 .. t``.
    layout_seed : int, default 0
        Seed of the spring layout (NetworkX) of the union graph, computed once,
        so node positions stay fixed while the slider moves.
    title : str, optional
        Page title (default: strategy, agents, steps).

    Returns
    -------
    pathlib.Path
        The file written. It needs no network access: no CDN, data embedded.

    Raises
    ------
    TypeError
        If ``run`` is not a :class:`~baygo_graph.Run` or ``window`` not an int.
    ValueError
        If ``run`` is a centralised (``cen``) run, which has no graph, or
        ``window < 1``.

    Notes
    -----
    User-controlled strings (strategy name, data path, title) reach the page
    only as JSON with ``<``, ``>``, ``&`` escaped as ``\\uXXXX``, HTML-escaped text in the
    ``<title>``, or ``textContent`` set by the script: none can break out.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> run = simulate("baygo", agents=4, steps=5, grid=9, rng=0, data=synthetic_bodyfat())
    >>> p = to_html(run, tempfile.mkdtemp() + "/run.html", window=3)
    >>> text = p.read_text()
    >>> text.startswith("<!DOCTYPE html>"), "https://" in text
    (True, False)
    """
    if not isinstance(run, Run):
        raise TypeError(f"run must be a baygo_graph.Run, got {type(run).__name__}")
    if run.series is None:
        raise ValueError(
            f"run is a centralised run (strategy {run.strategy!r}): one central learner "
            "has no communication graph to view"
        )
    if run.series.fixed is None and run.series.choices is None:
        raise ValueError("the viewer shows runs of chosen neighbours or of a fixed graph")
    window = _check_window(window, run.n_steps)
    if isinstance(layout_seed, bool) or not isinstance(layout_seed, int | np.integer):
        raise TypeError(f"layout_seed must be an int, got {type(layout_seed).__name__}")
    if title is None:
        title = f"{strategy_label(run.strategy)} run: {run.n_agents} agents, {run.n_steps} steps"
    data = _viewer_data(run, window=window, layout_seed=int(layout_seed), title=str(title))
    template = resources.files(__package__).joinpath(_TEMPLATE).read_text(encoding="utf-8")
    values = {"TITLE": html.escape(str(title), quote=True), "DATA": _script_json(data)}
    page = re.sub(r"\{\{(TITLE|DATA)\}\}", lambda m: values[m.group(1)], template)
    return atomic_text(Path(path), page)
