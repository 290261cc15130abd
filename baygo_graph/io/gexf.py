"""Dynamic GEXF export of a run or any graph series, for Gephi's timeline.

One GEXF 1.2 file (``mode="dynamic"``, integer times written by NetworkX as
``timeformat="long"``, time = step ``t = 0 .. T-1``), written by NetworkX's own
GEXF writer (:class:`networkx.readwrite.gexf.GEXFWriter`):

* one node per node of the series, GEXF id = its label (``str(label)``); XML
  ``label``: ``"agent i"`` for a run, the label itself for other series; the
  static boolean attribute ``informative`` when the series marks an
  informative agent (none otherwise: nothing is claimed that is not known); the
  dynamic attribute ``influence`` (the left Perron vector of the window of
  ``window`` steps ending at each step, see
  :func:`~baygo_graph.analysis.influence_series`): one ``attvalue`` per run of
  consecutive steps with the same value (6 significant digits), none where the
  influence is undefined (before step ``window - 1``, or not unique);
* one directed edge per (source, target) pair that ever exists, ``j -> i``
  meaning ``i`` listens to ``j`` (``docs/design.md``), with ``weight`` (``w_ij``:
  ``1 - delta`` for BayGo, W's entry for a fixed graph; for other series the
  mean over the steps holding the edge, and then, when it varies, the dynamic
  edge attribute ``step_weight`` with the value of each spell) and ``spells``:
  one closed interval ``[start, end]`` of steps per run of consecutive steps
  holding the edge. Self-loops are not edges here (Gephi would draw them): the
  self-weight ``w_ii`` is the dynamic node attribute ``self_weight``, one
  ``attvalue`` per run of consecutive steps with the same value (none where it
  is 0).

Weights are written as Python writes floats (shortest exact text), so
:func:`baygo_graph.io.series_files.read_gexf` gives the series back exactly:
labels (ints when every label is an int, text otherwise: GEXF ids are text, so a
series mixing int and text labels, or of text labels that all read as integers, is
refused before writing: write ``.json`` or ``.graphml`` to keep them), steps (the
graph's ``start``/``end``) and every step's weights.

What NetworkX's writer cannot do, and this module adds to its XML before
writing: the ``description`` of the file (what the series is, its data source
and the SYNTHETIC DATA mark, which every output of synthetic data carries, and
for a series read from dated contacts its time axis: ``1 step = 1D from
2024-05-01T00:00+02:00 (origin: first)``), the graph's ``start``/``end``,
``baygo-graph`` as creator, and in ``keywords`` the digest and the time axis (JSON,
read back by :func:`~baygo_graph.io.series_files.read_gexf`). Spells stay integer
steps, so the file reads back exactly: Gephi's timeline runs over the steps
``0 .. T-1``, and the dates of the steps are in the description.

Intervals are closed, as GEXF's ``start``/``end`` are: a spell ``[2, 4]``
means steps 2, 3 and 4.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import networkx as nx
import numpy as np
from networkx.readwrite.gexf import GEXFWriter

from .._text import NOT_XML, counted, shorten, xml_text
from .._validate import int_label_text
from ..limits import check_budget
from ..series import GraphSeries
from .atomic import atomic_write, check_target

__all__ = ["edge_spells", "gexf_ids", "write_gexf"]

#: Bytes :func:`write_gexf` holds per record before the file is written: an edge, a
#: spell, a ``step_weight``, ``self_weight`` or ``influence`` value (Python tuples in a
#: NetworkX graph, then one pretty-printed XML element each), and per node (its element,
#: attribute containers, NetworkX's dicts). Measured (RSS above the process before the
#: call, 10^4 to 10^6 records, ``benchmarks/bench_budget.py --case gexf``): 640-810 B a
#: record with a few hundred nodes, ~1.5 kB a node (10^5 nodes); plus a fixed part.
GEXF_BYTES_PER_RECORD = 1024
GEXF_BYTES_PER_NODE = 3072
GEXF_BYTES_FIXED = 8 << 20
#: and beside the records, while the (T, M) influence is held: per step, one node's
#: defined steps and values at a time (24 B); the digest's blocks of words (a block and
#: its bytes, 64 B a step and node at most, up to 32 MiB: measured 32 MiB on 2 x 10^6
#: steps, :func:`series_digest`); the masks that count the influence's runs, a block of
#: :data:`_COUNT_CELLS` at a time.
GEXF_BYTES_PER_STEP = 24
GEXF_DIGEST_BYTES = 32 << 20
_COUNT_CELLS = 1 << 20


def int_ids(ids) -> dict:
    """Text ids -> ints when every id is an integer written the canonical way within the
    64-bit range (:func:`~baygo_graph._validate.int_label_text`, the rule of every door),
    else the ids as they are: ``7``, ``007``, ``+7`` and ``\u0667`` stay four nodes, and
    ``99999999999999999999`` makes every id of its file text."""
    if ids and all(int_label_text(n) for n in ids):
        return {n: int(n) for n in ids}
    return {n: n for n in ids}


def _runs(steps: np.ndarray, key: np.ndarray):
    """Start and end (inclusive) of each run of consecutive steps with the same key.

    ``steps``/``key`` are sorted by key then step. Returns index arrays
    ``first, last`` into them.
    """
    n = len(steps)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    brk = np.ones(n, dtype=bool)
    brk[1:] = (key[1:] != key[:-1]) | (steps[1:] != steps[:-1] + 1)
    first = np.flatnonzero(brk)
    last = np.append(first[1:] - 1, n - 1)
    return first, last


def _step_weight_runs(series):
    """``(src, dst, weight, start, end)`` arrays: runs of consecutive steps of one edge
    with one weight (exactly equal), sorted by edge then step."""
    step, src, dst, weight = series.step_edges()
    keep = (src != dst) & (weight > 0)
    step, src, dst, weight = step[keep], src[keep], dst[keep], weight[keep]
    order = np.lexsort((step, dst, src))
    step, src, dst, weight = step[order], src[order], dst[order], weight[order]
    pair = src.astype(np.int64) * series.n_agents + dst
    _, wkey = np.unique(weight, return_inverse=True)
    first, last = _runs(step, pair * (int(wkey.max(initial=0)) + 1) + wkey)
    return src[first], dst[first], weight[first], step[first], step[last], last - first + 1


def edge_spells(series):
    """Every edge of a series with its weight and its spells (runs of consecutive steps).

    Parameters
    ----------
    series : GraphSeries

    Returns
    -------
    list of (int, int, float, list of (int, int))
        ``(source, target, weight, [(start, end), ...])`` as array indices into
        ``series.nodes``, sorted by source then target; intervals are closed.
        ``weight`` is the edge's weight, its mean over its steps when it varies.
        Self-loops are left out.

    Examples
    --------
    >>> from baygo_graph.series import ChoiceSeries
    >>> series = ChoiceSeries.from_choices([[1, 0], [1, -1], [1, 0]], delta=0.5)
    >>> edge_spells(series)
    [(0, 1, 0.5, [(0, 0), (2, 2)]), (1, 0, 0.5, [(0, 2)])]
    """
    return [e[:4] for e in _edge_table(series)]


def _edge_table(series, runs=None) -> list:
    """``(src, dst, mean weight, spells, step weights or None)`` per edge; ``runs``:
    :func:`_step_weight_runs` of the series when computed already."""
    if series.fixed is not None:
        w = series.fixed.tocoo()
        off = (w.row != w.col) & (w.data > 0)
        src, dst, weight = w.col[off], w.row[off], w.data[off]
        order = np.lexsort((dst, src))
        span = (0, series.n_steps - 1)
        return [
            (int(s), int(d), float(x), [span], None)
            for s, d, x in zip(src[order], dst[order], weight[order], strict=True)
        ]
    src, dst, weight, start, end, length = _step_weight_runs(series) if runs is None else runs
    out = []
    for s, d, w, a, b, n in zip(*(x.tolist() for x in (src, dst, weight, start, end, length)),
                                strict=True):  # fmt: skip
        if out and out[-1][:2] == (s, d):
            out[-1][3].append((a, b))
            out[-1][4].append((w, a, b, n))
        else:
            out.append((s, d, 0.0, [(a, b)], [(w, a, b, n)]))
    table = []
    for s, d, _, spells, runs in out:
        merged = []  # spells of one edge touching where only the weight changed
        for a, b in spells:
            if merged and merged[-1][1] + 1 == a:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        weights = {w for w, *_ in runs}
        mean = sum(w * n for w, _, _, n in runs) / sum(n for *_, n in runs)
        dynamic = None if len(weights) == 1 else [(float(w), a, b) for w, a, b, _ in runs]
        table.append((s, d, runs[0][0] if dynamic is None else mean, merged, dynamic))
    return table


def _influence_values(values: np.ndarray) -> list:
    """``[(value, start, end), ...]``: runs of equal (6 significant digits) defined values.

    The runs of exactly equal values first (arrays), then only each run's value rounded
    (a Python float each: as many as records, never one a step), and neighbouring runs
    whose rounded values are equal joined: the runs of the rounded values.

    Examples
    --------
    >>> _influence_values(np.array([0.5, 0.5000001, np.nan, 0.5, 0.25]))
    [(0.5, 0, 1), (0.5, 3, 3), (0.25, 4, 4)]
    """
    steps = np.flatnonzero(np.isfinite(values))
    if not len(steps):
        return []
    exact = values[steps]
    first, last = _runs(steps, exact)
    del exact
    vals = np.array([float(f"{v:.6g}") for v in values[steps[first]].tolist()])
    start, end = steps[first], steps[last]
    new = np.ones(len(first), dtype=bool)  # rounding joins touching runs of one value
    new[1:] = (start[1:] != end[:-1] + 1) | (vals[1:] != vals[:-1])
    a = np.flatnonzero(new)
    b = np.append(a[1:] - 1, len(first) - 1)
    return list(zip(vals[a].tolist(), start[a].tolist(), end[b].tolist(), strict=True))


def _self_weight_runs(series) -> tuple:
    """``(node, w_ii, start, end)`` arrays: the runs of consecutive steps with one (exactly
    equal) positive self-weight, sorted by node then step.

    From :meth:`~baygo_graph.series.GraphSeries.step_rows` in one vectorised pass: each
    node's steps are pieces (a replaced row's step, or a stretch of steps between them
    holding the base's self-weight), and pieces of one value that follow each other are
    one run; the work grows with the replaced rows and the nodes, not with the steps (an
    empty step of a long sparse span costs nothing).
    """
    rows = series.step_rows()
    m, t_all = series.n_agents, series.n_steps
    default = rows.base.diagonal().astype(np.float64)
    own = np.repeat(rows.row, np.diff(rows.ptr)) == rows.col  # each row's diagonal entry
    value = np.zeros(len(rows.step))
    value[np.repeat(np.arange(len(rows.step)), np.diff(rows.ptr))[own]] = rows.w[own]
    order = np.lexsort((rows.step, rows.row))  # by node, then step
    node, step, value = rows.row[order], rows.step[order], value[order]
    new = np.ones(len(node), dtype=bool)
    new[1:] = node[1:] != node[:-1]
    prev = np.where(new, -1, np.concatenate([[-1], step[:-1]]))
    last = np.full(m, -1, dtype=np.int64)  # each node's last replaced step
    last[node] = step  # sorted by step within a node: the last write wins
    nodes = np.arange(m, dtype=np.int64)
    piece_node = np.concatenate([node, node, nodes])  # gaps before, the rows, gaps after
    start = np.concatenate([prev + 1, step, last + 1])
    end = np.concatenate([step - 1, step, np.full(m, t_all - 1, dtype=np.int64)])
    w = np.concatenate([default[node], value, default])
    keep = start <= end
    piece_node, start, end, w = piece_node[keep], start[keep], end[keep], w[keep]
    order = np.lexsort((start, piece_node))
    piece_node, start, end, w = piece_node[order], start[order], end[order], w[order]
    brk = np.ones(len(w), dtype=bool)  # a new run: another node, or another value (NaN: each)
    brk[1:] = (piece_node[1:] != piece_node[:-1]) | ~(w[1:] == w[:-1])
    first = np.flatnonzero(brk)
    final = np.append(first[1:] - 1, len(w) - 1)
    pos = w[first] > 0
    first, final = first[pos], final[pos]
    return piece_node[first], w[first], start[first], end[final]


def _self_weights(series, runs=None) -> list[list]:
    """Per node, ``[(w_ii, start, end), ...]`` (:func:`_self_weight_runs`, or ``runs`` when
    computed already)."""
    out = [[] for _ in range(series.n_agents)]
    node, w, first, last = _self_weight_runs(series) if runs is None else runs
    for k, x, a, b in zip(*(v.tolist() for v in (node, w, first, last)), strict=True):
        out[k].append((x, a, b))
    return out


def _record_bound(series, influence: np.ndarray, edge_runs, self_runs) -> int:
    """An upper bound of the records :func:`write_gexf` builds besides its nodes (edges,
    spells, ``step_weight``, ``self_weight`` and ``influence`` values), from arrays alone:
    before any Python object or XML element of that number exists.

    Edges: one per pair, one spell and one ``step_weight`` at most per run of
    :func:`_step_weight_runs` (none for a pair of one run); self-weights: their runs,
    exactly; influence: the runs of equal defined values before rounding (rounding
    only merges runs).
    """
    m = series.n_agents
    if series.fixed is not None:
        edges = 2 * len(series.window_edges(0, 1)[0])
    else:
        src, dst = edge_runs[:2]
        first = np.flatnonzero(np.diff(src * m + dst, prepend=-1))  # each pair's first run
        per_pair = np.diff(first, append=len(src))
        edges = len(first) + len(src) + int(per_pair[per_pair > 1].sum())
    starts = 0
    rows = max(1, _COUNT_CELLS // max(m, 1))  # a block of steps at a time: no (T, M) masks
    for a in range(0, influence.shape[0], rows):
        block = influence[max(a - 1, 0) : a + rows]  # with the step before: a run goes on
        defined = np.isfinite(block)
        new = defined[1:] & ~(defined[:-1] & (block[1:] == block[:-1]))
        starts += int(np.count_nonzero(new)) + (int(np.count_nonzero(defined[0])) if a == 0 else 0)
    return edges + len(self_runs[0]) + starts


def _check_write_budget(series, influence: np.ndarray, edge_runs, self_runs, path) -> None:
    """BudgetError before the GEXF document of ``series`` is built (its records,
    :func:`_record_bound`, :data:`GEXF_BYTES_PER_RECORD` each, and its nodes)."""
    records = _record_bound(series, influence, edge_runs, self_runs)
    t = series.n_steps
    check_budget(
        GEXF_BYTES_FIXED
        + min(GEXF_DIGEST_BYTES, 64 * t * (series.n_agents + 1))
        + GEXF_BYTES_PER_NODE * series.n_agents
        + GEXF_BYTES_PER_RECORD * records
        + GEXF_BYTES_PER_STEP * t,
        what=f"writing {shorten(repr(Path(path).name), 60)} as GEXF "
        f"({counted(series.n_steps, 'step')} x "
        f"{counted(series.n_agents, 'node')}, up to {records} spells and values)",
        advice="write fewer steps (series.head(n)) or bin the times coarser",
    )


def _description(run, series) -> str:
    if run is not None:
        data = ("SYNTHETIC DATA: " if run.synthetic else "data: ") + run.data_source
        what = f"baygo-graph run, strategy {run.strategy}"
    else:
        data = "SYNTHETIC DATA" if series.synthetic else "data: the user's series"
        what = "graph series"
    axis = series.time_axis
    time = "time = step" if axis is None else f"time = step; {axis.describe()}"
    return xml_text(  # user text: control characters would make the file malformed
        f"{what}, {counted(series.n_agents, 'node')}, {counted(series.n_steps, 'step')} ({time}), "
        f"{data}; "
        "edge j -> i: i listens to j"
    )


#: The mark of the digest a file of :func:`write_gexf` carries in its ``<keywords>``.
DIGEST_KEY = "baygo-digest sha256:"
#: The mark of the series' time axis (JSON, :meth:`.times.TimeAxis.as_dict`) after it.
TIME_AXIS_KEY = "baygo-time-axis "


def series_digest(series) -> str:
    """SHA-256 of what a series holds: node labels, steps, its informative and synthetic
    marks, its time axis (when it has one: a series without one keeps the digest it had
    before axes existed) and every step's W (canonical CSR). :func:`write_gexf` writes it
    into the file; the reader refuses a file whose series does not give it back (one
    flipped bit).

    Examples
    --------
    >>> from baygo_graph.series import ChoiceSeries
    >>> a = ChoiceSeries.from_choices([[1, 0]], delta=0.5)
    >>> series_digest(a) == series_digest(ChoiceSeries.from_choices([[1, 0]], delta=0.5))
    True
    >>> series_digest(a) == series_digest(ChoiceSeries.from_choices([[1, 0]], delta=0.4))
    False
    """
    import hashlib

    h = hashlib.sha256()
    marks = (tuple(series.nodes), series.n_steps, series.informative, bool(series.synthetic))
    h.update(repr(marks).encode())
    axis = getattr(series, "time_axis", None)
    if axis is not None:
        h.update(json.dumps(axis.as_dict(), sort_keys=True).encode())
    for block in _step_words(series):
        h.update(block)
    return h.hexdigest()


#: Words (8 bytes) of one block :func:`_step_words` hands the hash at most (one step more
#: when a step alone is larger): 16 MiB.
_DIGEST_WORDS = 1 << 21


def _step_words(series):
    """Every step's canonical W (CSR ``indptr``, ``indices`` as int64, ``data`` as
    float64, one after the other, step after step) as blocks of 8-byte words: the bytes
    :func:`series_digest` hashes, built from
    :meth:`~baygo_graph.series.GraphSeries.step_rows` a block of steps at a time (a step
    whose rows are all the base's is the base's bytes, repeated)."""
    rows = series.step_rows()
    m, t_all = series.n_agents, series.n_steps
    base = rows.base
    b_count = np.diff(base.indptr).astype(np.int64)
    base_words = np.concatenate([base.indptr.astype(np.int64), base.indices.astype(np.int64),
                                 base.data.astype(np.float64).view(np.int64)])  # fmt: skip
    per_base = len(base_words)
    steps, at = np.unique(rows.step, return_index=True)  # the steps with replaced rows
    r_count = np.diff(rows.ptr)
    # words of each such step (its nnz: the base's, with its replaced rows' counts instead)
    delta = np.add.reduceat(r_count - b_count[rows.row], at) if len(at) else np.zeros(0, int)
    words = per_base + 2 * delta
    # cum[k]: the words from step 0 to the end of steps[k] if every step between were base
    cum = (steps + 1) * per_base + 2 * np.cumsum(delta)
    start = np.append(at, len(rows.step))
    block, reps = base_words.tobytes(), max(1, _DIGEST_WORDS // per_base)
    pos, k = 0, 0
    while pos < t_all:
        stop = t_all if k == len(steps) else int(steps[k])
        if stop > pos:  # steps of the base alone: its bytes, repeated
            for n in (reps,) * ((stop - pos) // reps) + ((stop - pos) % reps,):
                if n:
                    yield block * n
            pos = stop
            continue
        # steps[k:j]: as many as fit one block, the base's steps between them included
        j = max(k + 1, int(np.searchsorted(cum, cum[k] - words[k] + _DIGEST_WORDS,
                                           side="right")))  # fmt: skip
        t1 = int(steps[j - 1]) + 1
        yield _block(rows, m, pos, t1, base, b_count, start[k], start[j])
        pos, k = t1, j


def _block(rows, m: int, t0: int, t1: int, base, b_count, lo: int, hi: int) -> np.ndarray:
    """The words of steps ``[t0, t1)`` (see :func:`_step_words`); ``lo:hi``: the replaced
    rows of those steps."""
    n = t1 - t0
    r_step, r_row = rows.step[lo:hi] - t0, rows.row[lo:hi]
    r_count = np.diff(rows.ptr[lo : hi + 1])
    counts = np.tile(b_count, (n, 1))
    counts[r_step, r_row] = r_count
    replaced = np.zeros((n, m), dtype=bool)
    replaced[r_step, r_row] = True
    indptr = np.zeros((n, m + 1), dtype=np.int64)
    np.cumsum(counts, axis=1, out=indptr[:, 1:])
    # each step's entries: the base's rows that are not replaced, then the replaced rows
    b_row = np.repeat(np.arange(m, dtype=np.int64), b_count)
    e_step = np.repeat(np.arange(n, dtype=np.int64), len(b_row))
    e_row = np.tile(b_row, n)
    keep = ~replaced[e_step, e_row]
    a, b = rows.ptr[lo], rows.ptr[hi]
    e_step = np.concatenate([e_step[keep], np.repeat(r_step, r_count)])
    e_row = np.concatenate([e_row[keep], np.repeat(r_row, r_count)])
    e_col = np.concatenate([np.tile(base.indices.astype(np.int64), n)[keep], rows.col[a:b]])
    e_w = np.concatenate([np.tile(base.data.astype(np.float64), n)[keep], rows.w[a:b]])
    order = np.lexsort((e_col, e_row, e_step))
    e_step, e_col, e_w = e_step[order], e_col[order], e_w[order]
    nnz = indptr[:, -1]
    head = np.zeros(n + 1, dtype=np.int64)  # where each step's words start
    np.cumsum((m + 1) + 2 * nnz, out=head[1:])
    out = np.empty(int(head[-1]), dtype=np.int64)
    out[(head[:-1, None] + np.arange(m + 1)).ravel()] = indptr.ravel()
    e_first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(nnz, out=e_first[1:])
    within = np.arange(len(e_step)) - e_first[e_step]
    at = head[e_step] + (m + 1) + within
    out[at] = e_col
    out[at + nnz[e_step]] = e_w.view(np.int64)
    return out


def gexf_ids(series) -> list[str]:
    """The GEXF ids of ``series``' nodes (their text), or ValueError when the file could
    not give the labels back as they are: a character outside XML 1.0, two labels of one
    text (``1`` and ``"1"``), or labels whose types the ids lose. GEXF ids carry no
    type and are read as integers only when every one is an integer's canonical text
    (``docs/formats.md``), so integers beside text labels, or text labels that all
    read as integers (``"1"``, ``"2"``), would come back changed (and fail the file's
    digest): refused before anything is computed.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> gexf_ids(S(nodes=(1, 2))), gexf_ids(S(nodes=("a", "007")))
    (['1', '2'], ['a', '007'])
    >>> gexf_ids(S(nodes=(1, "zz")))
    Traceback (most recent call last):
    ...
    ValueError: node labels 1 and 'zz' are an integer and text: GEXF ids are text, so 1 ...
    """
    nodes = series.nodes
    ids = [str(v) for v in nodes]
    for v, text in zip(nodes, ids, strict=True):
        bad = NOT_XML.search(text)
        if bad:
            raise ValueError(
                f"node label {shorten(repr(v), 60)} holds {bad.group()!r}, which GEXF (XML 1.0) "
                "cannot give back; write .json, which keeps it, or relabel"
            )
    if len(set(ids)) != len(ids):
        raise ValueError(
            "two node labels have the same text (such as 1 and '1'): GEXF ids are text; "
            "write .json, which keeps them apart, or relabel"
        )
    back = int_ids(ids)
    changed = [v for v, text in zip(nodes, ids, strict=True) if type(back[text]) is not type(v)]
    if changed:
        v = changed[0]
        shown, plain = shorten(repr(v), 40), shorten(str(v), 40)
        if isinstance(v, str):  # every label is text reading as an integer
            why = (f"node labels such as {shown} are text that reads as integers: GEXF ids "
                   f"carry no type, so {shown} would read back as {plain}")  # fmt: skip
        else:
            text = shorten(repr(next(w for w in nodes if isinstance(w, str))), 40)
            why = (f"node labels {shown} and {text} are an integer and text: GEXF ids are "
                   f"text, so {shown} would read back as {shorten(repr(str(v)), 40)}")  # fmt: skip
        raise ValueError(f"{why}; write .json or .graphml, which keep label types, or relabel")
    return ids


def write_gexf(series, path, *, influence=None, run=None, overwrite: bool = False) -> Path:
    """Write a graph series as one dynamic GEXF 1.2 file (Gephi: open, then enable
    the timeline).

    Parameters
    ----------
    series : GraphSeries
        A dynamic or fixed series (a fixed graph gives one spell per edge).
        :func:`baygo_graph.write_series` turns any input into one.
    path : str or os.PathLike
        The ``.gexf`` file to write (atomically).
    influence : array_like, shape (T, M), optional
        Each node's influence per step, written as the dynamic node attribute
        ``influence`` (NaN steps left out); :func:`baygo_graph.export.write_series`
        computes it. Default: no influence values.
    run : Run, optional
        The run the series is from: its strategy and data source go in the
        file's description, its agents are labelled ``"agent i"``.
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work: every writer's rule).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``series`` is no GraphSeries.
    ValueError
        For an ``influence`` of another shape, or labels GEXF cannot give back
        (:func:`gexf_ids`: two with the same text, a character outside XML 1.0,
        integers beside text, text that all reads as integers).
    BudgetError
        Before the document is built, when its records (nodes, edges, spells and
        dynamic values, :data:`GEXF_BYTES_PER_RECORD` each) would exceed the memory
        budget.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0, 0], [2, 2, 1], [2, 2, 1]], informative=2)
    >>> p = write_gexf(run.series, tempfile.mkdtemp() + "/run.gexf", run=run)
    >>> g = nx.read_gexf(p, node_type=int)
    >>> g.edges[2, 0]["spells"], g.nodes[2]["informative"], g.nodes[2]["label"]
    ([(1, 2)], True, 'agent 2')
    """
    if not isinstance(series, GraphSeries):
        raise TypeError(f"series must be a GraphSeries, got {type(series).__name__}")
    check_target(path, overwrite=overwrite)
    shape = (series.n_steps, series.n_agents)
    influence = np.full(shape, np.nan) if influence is None else np.asarray(influence)
    if influence.shape != shape:
        raise ValueError(f"influence must have the series' shape {shape}, got {influence.shape}")
    nodes = series.nodes
    g = nx.DiGraph(mode="dynamic")
    ids = gexf_ids(series)
    runs = _step_weight_runs(series) if series.fixed is None else None
    self_runs = _self_weight_runs(series)
    _check_write_budget(series, influence, runs, self_runs, path)
    selfs = _self_weights(series, self_runs)
    del self_runs
    for k, v in enumerate(nodes):
        data = {"label": f"agent {v}" if run is not None else ids[k]}
        if series.informative is not None:
            data["informative"] = k == series.informative
        values = _influence_values(influence[:, k])
        if values:
            data["influence"] = values
        if selfs[k]:
            data["self_weight"] = selfs[k]
        g.add_node(ids[k], **data)
    for s, d, weight, spells, dynamic in _edge_table(series, runs):
        data = {"weight": float(weight), "spells": spells}
        if dynamic is not None:
            data["step_weight"] = dynamic
        g.add_edge(ids[s], ids[d], **data)
    writer = GEXFWriter(version="1.2draft", prettyprint=True)
    writer.add_graph(g)
    # NetworkX's writer has no description, creator or graph span: set them here.
    meta = writer.xml.find("meta")
    meta.find("creator").text = "baygo-graph"
    meta.set("lastmodifieddate", datetime.date.today().isoformat())
    desc = meta.find("description")
    if desc is None:
        desc = nx.readwrite.gexf.SubElement(meta, "description")
    desc.text = _description(run, series)
    keywords = meta.find("keywords")
    if keywords is None:
        keywords = nx.readwrite.gexf.SubElement(meta, "keywords")
    keywords.text = DIGEST_KEY + series_digest(series)
    if series.time_axis is not None:  # read back by read_gexf (the spells stay steps)
        keywords.text += " " + TIME_AXIS_KEY + xml_text(json.dumps(series.time_axis.as_dict()))
    graph = writer.xml.find("graph")
    graph.set("mode", "dynamic")
    graph.set("timeformat", "long")
    graph.set("start", "0")
    graph.set("end", str(series.n_steps - 1))
    return atomic_write(Path(path), writer.write, overwrite=overwrite)
