"""Temporal edge lists: ``(source, target, time[, weight])`` rows as a graph series.

The most common form of temporal network data: one row per contact. A
:class:`pandas.DataFrame`, a ``.csv`` / ``.tsv`` file or a ``.parquet`` file (the
``parquet`` extra: pyarrow) becomes an
:class:`~baygo_graph.series.EdgeListSeries` without building one NetworkX graph
per step (``docs/user_series.md``).

Rules:

* **columns**: ``source``, ``target``, ``time`` and, when present, ``weight``
  (names matched case-insensitively; other names through the options
  ``source=``, ``target=``, ``time=``, ``weight=``). A row ``(j, i, t, w)``:
  at step ``t``, ``i`` receives from ``j`` with weight ``w`` (1 without a
  weight column). Pass ``directed=False`` for contacts that go both ways (each
  row then also gives ``i -> j``);
* **labels**: the node labels are the values of the two columns, kept as they
  are (strings stay strings); nodes are sorted when their labels sort;
* **time**: integer times give ``step = (time - min time) // bin`` (``bin``
  default 1), so steps in between without a row are steps where nobody
  listens to anyone; timestamps (a datetime column, or text that parses as
  dates) need ``bin``, a fixed pandas offset alias (``"1D"``, ``"6h"``,
  ``"15min"``): ``step = (timestamp - first bin start) // bin``, bins starting
  at multiples of ``bin`` since 1970 (on the local clock for time-zone-aware
  columns). Both are exact over the whole 64-bit range of times (no
  wraparound); a float time outside it is an error naming the column;
* **repeats**: rows with the same step, source and target add their weights;
  a row with ``source == target`` adds to that node's self-weight.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _text
from .._text import counted
from .._validate import TINY_WEIGHT, check_bool, check_unique_names, int_label_texts
from ..exceptions import BudgetError, CellError, RunFormatError
from ..limits import (
    EDGE_LIST_BYTES_PER_STEP,
    SERIES_BYTES_PER_ENTRY,
    after_reading,
    check_budget,
    estimate_series_bytes,
    format_bytes,
    memory_budget,
)
from ..series import series_from_edges
from .archives import (
    BYTES_PER_ROW,
    BYTES_PER_TEXT_CELL,
    EDGE_FILE_SUFFIXES,
    KINDS_TEXT,
    ROLES,
    data_line,
    edge_file_kind,
    read_rows,
    table_spec,
)
from .filekind import describe_file, missing_message
from .times import binned_times

__all__ = ["EDGE_LIST_SUFFIXES", "edge_list_series", "read_edge_list"]

#: File-name endings read as edge lists (and KONECT's ``out.NAME`` by its name).
EDGE_LIST_SUFFIXES = EDGE_FILE_SUFFIXES


def _columns_text(frame) -> str:
    """The frame's columns for a message: at most 10, then how many more."""
    n = len(frame.columns)
    if n == 0:
        return "there are no columns"
    names = _text.short_list(frame.columns, 5, quote=True, limit=24)
    return f"the {n} column{'s are' if n > 1 else ' is'} {names}"


_FLAGS = {"source": "--source", "target": "--target", "time": "--time-column",
          "weight": "--weight-column"}  # fmt: skip


def _find(frame, given: str | None, default: str, option: str):
    """The frame's column for ``given`` (exact) or ``default`` (any case, one match);
    None when there is none (:func:`_columns` names every missing one at once)."""
    if given is not None:
        return given if given in frame.columns else None
    found = [c for c in frame.columns if str(c).strip().lower() == default]
    if len(found) > 1:
        raise ValueError(
            f"columns {_text.short_list(found, 5, quote=True)} all match {default!r}: name "
            f"the one to use with {option}=... (CLI: {_FLAGS[option]})"
        )
    return found[0] if found else None


def _columns(frame, given: dict, required) -> dict:
    """The column of each role in ``given`` (role -> name given or None), refused in one
    line naming every required role that has none, and every name given that is no
    column (not one at a time)."""
    cols = {role: _find(frame, name, role, role) for role, name in given.items()}
    absent = [r for r in given if cols[r] is None and given[r] is not None]
    missing = [r for r in required if cols[r] is None and given[r] is None]
    if not (absent or missing):
        return cols
    parts = []
    if missing:
        names = [repr(r) for r in missing]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        parts.append(f"no {listed} column")
    if absent:
        names = " and ".join(f"{r}={_text.shorten(repr(given[r]), 40)}" for r in absent)
        parts.append(f"{names}: {'no such columns' if len(absent) > 1 else 'no such column'}")
    advice = ""
    if missing:
        advice = (f": name {'it' if len(missing) == 1 else 'them'} with "
                  f"{', '.join(f'{r}=...' for r in missing)} (CLI: "
                  f"{', '.join(_FLAGS[r] for r in missing)})")  # fmt: skip
    raise ValueError(f"{'; '.join(parts)} ({_columns_text(frame)}){advice}")


def _steps(values: pd.Series, name: str, **rules):
    """Step index of each row (uint64) and the time axis: :func:`.times.binned_times`
    after the cells are checked to be one value each."""
    _one_value_cells(values, f"time column {name!r}")
    return binned_times(values, name=name, **rules)


def _int_labels(text: pd.Series):
    """``"int64"`` when every label of a column read as text is an integer written the
    canonical way within the 64-bit range (:func:`~baygo_graph._validate.int_label_texts`:
    the rule of every door), else ``object`` (the labels stay text)."""
    filled = text.dropna()  # an empty cell keeps the text kind: refused later by its row
    whole = len(filled) == len(text) and len(filled)
    return "int64" if whole and int_label_texts(filled) else object


#: What pandas.api.types.infer_dtype says of a column of plain labels (no scan needed).
_PLAIN = {"string", "integer", "floating", "mixed-integer-float", "boolean", "empty"}


def _one_value_cells(values: pd.Series, what: str) -> None:
    """ValueError naming the first cell that is not one value (a list, array, dict or
    tuple: a nested Parquet column), e.g. ``what`` = ``"column 'source'"``."""
    if values.dtype.kind != "O" or pd.api.types.infer_dtype(values, skipna=True) in _PLAIN:
        return
    for row, v in enumerate(values):
        if not pd.api.types.is_scalar(v) and v is not None:
            raise CellError(
                f"{what} holds a {type(v).__name__} in ",
                row,
                f" ({_text.shorten(repr(v), 60)}): each cell must be one value, not a nested one",
            )


def _text_label(value, where: str) -> str:
    """One label as text: bytes decoded as UTF-8 (else ValueError), an integer in
    decimal, text as it is; any other value (a bool, float, complex, timestamp...) is
    refused, as in a column of its own (its ``str()`` could name another label's node:
    ``True`` and ``"True"``)."""
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"{where} holds the bytes {_text.shorten(repr(bytes(value)), 60)}, which are not "
                "UTF-8 text: labels must be text or integers"
            ) from None
    plain = value.item() if isinstance(value, np.generic) else value
    if isinstance(plain, str):
        return plain
    if isinstance(plain, int) and not isinstance(plain, bool):
        return str(plain)
    raise ValueError(
        f"{where} holds the {type(value).__name__} {_text.shorten(repr(value), 60)} among "
        "text labels: node labels must be integers or text (convert the column, e.g. "
        ".astype(str), to keep them as written)"
    )


def _one_kind(both: pd.Series, source: str, target: str) -> pd.Series:
    """The labels of both columns as one kind (docs/formats.md, "Labels and times"):
    all integers stay integers, all text stays text; binary labels are decoded as
    UTF-8; a mix of integers and text (or bytes) becomes text, each integer written in
    decimal, as the same rows read from a CSV give. ``both``: the source column's
    rows, then the target column's."""
    kind = pd.api.types.infer_dtype(both, skipna=True)
    if kind not in ("bytes", "mixed", "mixed-integer"):
        return both
    n = len(both) // 2
    out = [
        [_text_label(v, f"column {name!r}, row {k}") for k, v in enumerate(part)]
        for part, name in ((both.iloc[:n], source), (both.iloc[n:], target))
    ]
    return pd.Series(out[0] + out[1], dtype=object)


_INT64_MAX = 2**63 - 1
#: What pandas.api.types.infer_dtype says of an object column of int or str labels.
_LABEL_KINDS = {"string", "integer", "mixed-integer", "bytes", "mixed", "empty"}


def _label_kind(values: pd.Series) -> str | None:
    """The kind of a label column that is neither integers nor text (floats, booleans,
    datetimes, durations, complex numbers...), for the refusal; None when it is one."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _label_kind(pd.Series(dtype.categories))
    if isinstance(dtype, pd.ArrowDtype) and dtype.kind == "O":  # named as pandas names it
        return None if pd.api.types.is_string_dtype(dtype) else str(dtype)
    if pd.api.types.is_bool_dtype(dtype):
        return str(dtype)
    if pd.api.types.is_integer_dtype(dtype) or isinstance(dtype, pd.StringDtype):
        return None
    if dtype.kind == "O":
        kind = pd.api.types.infer_dtype(values, skipna=True)
        return None if kind in _LABEL_KINDS else f"{kind} (object)"
    if pd.api.types.is_string_dtype(dtype):  # pyarrow-backed text
        return None
    return str(dtype)


def _arrow_values(values: pd.Series) -> pd.Series:
    """A pyarrow dictionary column (``pd.read_parquet(..., dtype_backend="pyarrow")`` of
    a file with dictionary-encoded columns: how pyarrow, Spark and polars write
    categoricals) as its values, as a pandas categorical and the Parquet door read it."""
    dtype = values.dtype
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        if pa.types.is_dictionary(dtype.pyarrow_dtype):
            return values.astype(pd.ArrowDtype(dtype.pyarrow_dtype.value_type))
    return values


def _labels(values: pd.Series, name: str) -> pd.Series:
    """The column, refused when a cell is empty (missing, or the empty text: a CSV's
    empty cell is missing, so the same rows are refused in every form) or nested, or
    holds anything but integers and text: floats, booleans, datetimes, durations,
    complex numbers (``0.0`` and ``-0.0`` compare equal, and a CSV of the same rows
    reads them as text: no one rule keeps them apart in every format)."""
    values = _arrow_values(values)
    _one_value_cells(values, f"column {name!r}")
    kind = _label_kind(values)
    if kind is not None:
        raise ValueError(
            f"column {_text.short_repr(name)} holds {kind} labels: node labels must be "
            "integers or text (convert the column, e.g. .astype(str), to keep them as written)"
        )
    if values.dtype.kind == "u" and len(values) and values.max() > _INT64_MAX:
        row = int(np.argmax(values.to_numpy() > _INT64_MAX))
        raise CellError(
            f"column {_text.short_repr(name)} ",
            row,
            f": the uint64 label {values.iloc[row]} "
            "is above 2^63-1: integer labels are 64-bit signed (convert the column, e.g. "
            ".astype(str), to keep them as text)",
        )
    empty = values.isna().to_numpy()
    if values.dtype.kind == "O" or isinstance(values.dtype, pd.StringDtype):
        text = values.to_numpy(dtype=object, na_value=None)  # pd.NA has no truth value
        empty = empty | (text == "")  # a CSV's empty cell, as text
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise CellError(f"column {name!r} is empty in ", row, ": every row needs a node label")
    return values


def _check_series_budget(
    n_steps: int, m: int, column: str, bin, *, rows: int, directed: bool
) -> None:
    """BudgetError naming the time column, the steps, nodes and rows and what to do,
    before a series of ``n_steps`` steps x ``m`` nodes is built from ``rows`` contacts
    already read: what building it adds on top of what the process holds (the rows
    read among it: :func:`~baygo_graph.limits.estimate_series_bytes`)."""
    contacts = rows * (1 if directed else 2)
    need = estimate_series_bytes(contacts, nodes=m, steps=n_steps)
    budget = memory_budget()  # what the process holds counts (limits.memory_budget)
    if budget.fits(need):
        return
    # the steps' share: what a span adds beyond the contacts' (their entries and build)
    rest = max(estimate_series_bytes(contacts, nodes=m, steps=1), SERIES_BYTES_PER_ENTRY * 2
               * contacts)  # fmt: skip
    by_steps = EDGE_LIST_BYTES_PER_STEP * n_steps
    rows_only = False
    if rest >= budget.room:  # the rows alone do not fit: a wider bin cannot help
        how = "read fewer rows (a smaller time window)"  # the limit that fits: said next
        rows_only = True
    elif bin is None or isinstance(bin, int | np.integer):
        wider = int(bin or 1) * (by_steps // (budget.room - rest) + 1)  # this fits
        how = f"pass bin={wider} or wider (CLI --bin {wider})"
    else:
        how = "pass a wider bin (CLI --bin)"
    col, width = _text.shorten(repr(column), 40), _text.shorten(repr(1 if bin is None else bin), 30)
    # the rows alone: the bin is beside the point (and the line stays whole, <= 300)
    said = f"{counted(rows, 'row')}" if rows_only else f"time column {col}, bin {width}"
    budget.check(
        need,
        what=f"{counted(n_steps, 'step')} x {counted(m, 'node')} ({said})",
        advice=how,
        covers=after_reading(need, steps=n_steps, nodes=m, rows=rows),
    )


def edge_list_series(
    frame,
    *,
    source: str | None = None,
    target: str | None = None,
    time: str | None = None,
    weight: str | None = None,
    bin=None,
    directed: bool = True,
    origin: str = "first",
    time_format: str | None = None,
    self_weight="equal",
):
    """A graph series from a temporal edge list (rules: module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per contact.
    source, target, time, weight : str, optional
        Column names (default ``"source"``, ``"target"``, ``"time"``, and
        ``"weight"`` when present; any case).
    bin : int or str, optional
        Step width: an int for integer times (default 1); for timestamps (required
        for them) a duration (``"6h"``, ``"1D"``, ``"7D"``) or a calendar period
        (``"1W"``, ``"MS"``) (:mod:`baygo_graph.io.times`).
    directed : bool, default True
        False: each row is a two-way contact (both nodes hear each other).
    origin : {"first", "epoch"}, default "first"
        Where bins start: at the first time (for timestamps, local midnight of its
        day), or at multiples of ``bin`` since the epoch.
    time_format : str, optional
        ``"unix"`` (``"unix-ms"``...) for Unix times, or a strftime format for text
        times that are not ISO 8601 (``"%d/%m/%Y"``): such dates are never guessed.
    self_weight : "equal" or float, default "equal"
        The weight a node that hears others in a step (and has no self-loop row
        there) puts on itself: ``"equal"``, ``1 / (d + 1)`` for ``d`` in-neighbours
        (the paper's equal rule), or a number in ``[0, 1]``; see
        :func:`baygo_graph.series.series_from_edges`.

    Returns
    -------
    EdgeListSeries
        ``nodes`` holds the labels; ``n_steps`` = last step + 1;
        ``self_weight`` names the rule.

    Raises
    ------
    ValueError
        For a missing column, an empty label or time, a bad weight, timestamps
        without ``bin``, or an empty edge list.
    BudgetError
        When steps x nodes would exceed the memory budget (pass a wider ``bin``).

    Examples
    --------
    >>> df = pd.DataFrame({"source": ["ann", "bob", "bob"], "target": ["bob", "ann", "cat"],
    ...                    "time": [5, 5, 7]})
    >>> s = edge_list_series(df)
    >>> s.nodes, s.n_steps
    (('ann', 'bob', 'cat'), 3)
    >>> s.weights(2).toarray().tolist()          # time 7: cat hears bob (and itself)
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.5]]
    >>> edge_list_series(df, self_weight=0).weights(2).toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    >>> days = pd.DataFrame({"from": ["a", "b"], "to": ["b", "a"],
    ...                      "when": ["2024-01-01 09:00", "2024-01-03 18:00"]})
    >>> edge_list_series(days, source="from", target="to", time="when", bin="1D").n_steps
    3
    """
    directed = check_bool("directed", directed)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas.DataFrame, got {type(frame).__name__}")
    check_unique_names(frame.columns, where="frame: ")
    given = {"source": source, "target": target, "time": time, "weight": weight}
    roles = _columns(frame, given, ("source", "target", "time"))
    cols, wcol = {k: roles[k] for k in ("source", "target", "time")}, roles["weight"]
    for role, col in roles.items():
        other = next((r for r, c in roles.items() if r != role and c == col), None)
        if col is not None and other is not None:
            raise ValueError(
                f"column {_text.short_repr(col)} is given two roles, {other} and {role}: "
                "each of source, target, time and weight names its own column"
            )
    if len(frame) == 0:
        raise ValueError("the edge list has no rows: a series needs at least one step")
    src = _labels(frame[cols["source"]], cols["source"])
    dst = _labels(frame[cols["target"]], cols["target"])
    steps, axis = _steps(
        frame[cols["time"]], cols["time"], bin=bin, origin=origin, time_format=time_format
    )
    both = _one_kind(pd.concat([src, dst], ignore_index=True), cols["source"], cols["target"])
    codes, uniques = pd.factorize(both, sort=False)
    labels = [v.item() if isinstance(v, np.generic) else v for v in uniques.tolist()]
    try:
        order = sorted(range(len(labels)), key=labels.__getitem__)
    except TypeError:  # labels of mixed kinds: first-appearance order
        order = list(range(len(labels)))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = rank[codes]
    n = len(frame)
    j, i = codes[:n], codes[n:]
    if wcol is None:
        w = np.ones(n)
    else:
        wv = frame[wcol]
        _one_value_cells(wv, f"weight column {wcol!r}")
        if pd.api.types.is_bool_dtype(wv):
            raise ValueError(f"weight column {wcol!r} must hold numbers, got booleans")
        if pd.api.types.is_complex_dtype(wv) or (
            wv.dtype.kind == "O" and pd.api.types.infer_dtype(wv, skipna=True) == "complex"
        ):  # never cast to its real part
            raise ValueError(
                f"weight column {wcol!r} holds complex numbers ({wv.dtype}): weights must be real"
            )
        kind = pd.api.types.infer_dtype(wv, skipna=True) if wv.dtype.kind == "O" else None
        if kind in ("decimal", "integer", "floating", "mixed-integer-float"):
            wv = wv.astype(float)  # Python numbers (a Parquet decimal column): as floats
        if not pd.api.types.is_numeric_dtype(wv):
            cells = wv.tolist()
            row = next((k for k, v in enumerate(cells) if v is not None and not isinstance(
                v, str) and (isinstance(v, bool | np.bool_ | complex | np.complexfloating)
                or not isinstance(v, int | float | np.number | Decimal))), None)  # fmt: skip
            if row is None:  # text in the way: the first that is no number, else the first
                text = wv.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
                bad = text & pd.to_numeric(wv.where(text), errors="coerce").isna().to_numpy()
                row = int(np.flatnonzero(bad if bad.any() else text)[0])
            cell = cells[row]
            why = "weights must be numbers, not text" if isinstance(cell, str) else (
                f"{_text.a_kind(type(cell).__name__)}: weights must be real numbers")  # fmt: skip
            raise CellError(
                f"weight column {wcol!r} ",
                row,
                f": {_text.shorten(repr(cell), 30)} is not a number ({why})",
            )
        w = wv.to_numpy(dtype=float)
        if np.isnan(w).any():
            row = int(np.flatnonzero(np.isnan(w))[0])
            raise CellError(f"weight column {wcol!r} is empty in ", row)
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():  # KONECT's signed networks: -1
            row = int(np.flatnonzero(bad)[0])
            raise CellError(
                f"weight column {wcol!r} ",
                row,
                f": {float(w[row])!r}: weights must be finite "
                "and >= 0 (how much one node listens to another)",
            )
    n_steps, m = int(steps.max()) + 1, len(labels)
    _check_series_budget(n_steps, m, cols["time"], bin, rows=n, directed=directed)
    steps = steps.astype(np.int64)  # < 2^63: the budget holds n_steps
    if not directed:
        two_way = j != i
        steps = np.concatenate([steps, steps[two_way]])
        i, j = np.concatenate([i, j[two_way]]), np.concatenate([j, i[two_way]])
        w = np.concatenate([w, w[two_way]])
    return series_from_edges(steps, i, j, w, n_steps=n_steps, nodes=[labels[k] for k in order],
                             self_weight=self_weight, time_axis=axis)  # fmt: skip


def _text_weights(text: pd.Series, name: str) -> pd.Series:
    """A weight column read as text, as numbers (pandas' parsing, correctly rounded); a
    positive weight that underflows to 0 (``1e-400``) refused naming its row: its
    contact would vanish. A column with a cell that is no number is returned as text,
    for :func:`edge_list_series` to name that cell."""
    numbers = pd.to_numeric(text, errors="coerce")
    if (numbers.isna() & text.notna()).any():
        return text
    mantissa = text.astype(str).str.split(r"[eE]", n=1, regex=True).str[0]
    under = ((numbers == 0) & mantissa.str.contains(r"[1-9]", regex=True)).to_numpy()
    if under.any():
        row = int(np.flatnonzero(under)[0])
        raise CellError(
            f"weight column {name!r} ",
            row,
            f": {_text.shorten(repr(text.iloc[row]), 30)}: {TINY_WEIGHT}",
        )
    return numbers


@dataclass(frozen=True)
class _Header:
    """A file's column names, for :func:`_columns` before its rows are read (no frame of
    a header's 10^6 columns is built)."""

    columns: pd.Index


#: Upper bound of the memory of a Parquet text column, per byte of its uncompressed
#: pages (the footer's ``total_uncompressed_size``): Arrow's decoded array and pandas'
#: Python strings, measured 3.6 (two labels of 100 MiB each: 729 MiB), and the
#: allocator's slack (977 MiB peak RSS with the interpreter).
PARQUET_TEXT_FACTOR = 5


def _parquet_frame(path: Path, shown: str, options: dict) -> pd.DataFrame:
    """A Parquet edge list as a frame of the columns used, checked against the budget
    before any is decoded: its rows counted from the metadata (repeated rows compress to
    nothing) and its text columns' uncompressed pages (a 400 MiB label compresses to a
    few KB)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise RunFormatError(
            f"reading {path.name} needs pyarrow: pip install 'baygo-graph[parquet]'"
        ) from None
    _check_footer(path, shown)
    parquet = pq.ParquetFile(path)
    meta = parquet.metadata
    schema = meta.schema.to_arrow_schema()
    check_unique_names(schema.names)
    import pyarrow as pa

    try:  # the columns used, named before anything is decoded
        found = _columns(_Header(pd.Index(schema.names)), {k: options.get(k) for k in ROLES},
                         ("source", "target", "time"))  # fmt: skip
    except ValueError as e:
        raise RunFormatError(f"{shown}: {e}") from None
    used = [c for c in schema.names if c in found.values()]
    types = {name: schema.field(name).type for name in used}
    text = [c for c, t in types.items() if not (pa.types.is_integer(t) or pa.types.is_floating(t))]
    pages = dict.fromkeys(text, 0)  # uncompressed bytes of each text column's pages
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for k in range(group.num_columns):
            chunk = group.column(k)
            top = chunk.path_in_schema.split(".")[0]
            if top in pages:
                pages[top] += int(chunk.total_uncompressed_size)
    rows = int(meta.num_rows)  # plus Arrow's decoded columns, which tracemalloc does not see
    base = rows * (BYTES_PER_ROW + 16 * len(used) + BYTES_PER_TEXT_CELL * len(text))
    _check_text(base, pages, rows, shown, "from its metadata")
    # a dictionary page of one long label, repeated by many rows, is small on disk and
    # in the footer: the decoded size of each string column is counted from its
    # dictionary and indices (what the pages hold) before any string is decoded
    strings = [c for c in text if _is_string(types[c])]
    if strings:
        table = pq.ParquetFile(path, read_dictionary=strings).read(columns=strings)
        decoded = {c: _decoded_bytes(table.column(c)) for c in strings}
        del table
        _check_text(base, pages | decoded, rows, shown, "decoded")
    # ParquetFile.read gives each column as one chunk; pandas.read_parquet kept one per row
    # group: 30,000 one-row groups took 450 MB for 30,000 rows (hostile round 14, S5)
    return parquet.read(columns=used).to_pandas()


#: Bytes a Parquet file's footer (its metadata: schema, row groups, column chunks) takes
#: once parsed, per byte of footer: measured 14.8x (30,000 row groups) and 15.7x (100,000
#: columns) with pyarrow 19.
PARQUET_FOOTER_FACTOR = 20


def _check_footer(path: Path, shown: str) -> None:
    """The budget check of a Parquet file's footer, from its length (the 4 bytes before
    the closing ``PAR1``) before pyarrow parses it: 30,000 row groups or 100,000 unused
    columns make a footer of a few MB that parses into hundreds (hostile round 14, S5)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        fh.seek(max(size - 8, 0))
        tail = fh.read(8)
    if len(tail) < 8 or tail[4:] != b"PAR1":
        return  # not a Parquet file's end: pyarrow names what is wrong
    footer = int.from_bytes(tail[:4], "little")
    check_budget(
        PARQUET_FOOTER_FACTOR * footer,
        what=f"parsing the {format_bytes(footer)} footer of {shown}",
        advice="rewrite it with fewer row groups or columns",
    )


def _is_string(kind) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return any(test(kind) for test in (pa.types.is_string, pa.types.is_large_string,
                                       pa.types.is_binary, pa.types.is_large_binary))  # fmt: skip


def _decoded_bytes(column) -> int:
    """Bytes of a (dictionary) string column once decoded: each row's value length."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = 0
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            lengths = pc.binary_length(chunk.dictionary).fill_null(0).to_numpy(zero_copy_only=False)
            index = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
            total += int(lengths.astype(np.int64)[index].sum()) if len(lengths) else 0
        else:
            total += int(pc.sum(pc.binary_length(chunk)).as_py() or 0)
    return total


def _check_text(base: int, text: dict, rows: int, shown: str, how: str) -> None:
    """The budget check of a Parquet file's rows and text columns (bytes of each)."""
    biggest = max(text, key=text.get, default=None)
    held = (f"; column {_text.shorten(repr(biggest), 40)} holds {format_bytes(text[biggest])} "
            "of text" if biggest is not None and text[biggest] > 2**20 else "")  # fmt: skip
    check_budget(base + PARQUET_TEXT_FACTOR * sum(text.values()),
                 what=f"reading the {counted(rows, 'row')} of {shown} ({how}{held})")  # fmt: skip


def read_edge_list(path, **options):
    """Read an edge-list file as a graph series: CSV/TSV with a header, Parquet, and
    the archives' headerless text files (SNAP, KONECT, columns named by position),
    plain or compressed (:mod:`baygo_graph.io.archives`).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv`` (comma-separated; ``.tsv``: tab-separated) with a header row, a
        Parquet file, a SNAP ``.txt`` or KONECT ``out.NAME`` file, any of the text
        ones also ``.gz``, ``.bz2``, ``.xz`` (``.zst`` with ``zstandard``).
    **options
        ``source``, ``target``, ``time``, ``weight``, ``bin``, ``directed``,
        ``origin``, ``time_format``, ``self_weight``: as in :func:`edge_list_series`;
        ``columns``: the roles of a headerless file's columns by position
        (``"time,source,target"``; :func:`.archives.parse_columns`).

    Returns
    -------
    EdgeListSeries

    Raises
    ------
    RunFormatError
        When the file is missing, of no known kind, or cannot be parsed.
    ValueError
        As :func:`edge_list_series`, naming the file.
    BudgetError
        When the rows or the series would exceed the memory budget, naming the file.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "contacts.csv"
    >>> _ = p.write_text("source,target,time\\nann,bob,0\\nbob,ann,1\\n")
    >>> read_edge_list(p).nodes
    ('ann', 'bob')
    >>> snap = p.with_name("CollegeMsg.txt")
    >>> _ = snap.write_text("# SNAP\\n1 2 1082040961\\n2 1 1082155839\\n")
    >>> read_edge_list(snap, bin=86400).n_steps
    2
    """
    path = Path(path)
    shown = _text.quoted_path(path)
    if not path.is_file():  # missing, or a FIFO, device or socket: never read
        raise RunFormatError(missing_message(path, "edge list", "edge lists"))
    columns = options.pop("columns", None)
    kind = edge_file_kind(path)
    if kind is None and columns is None:
        what = describe_file(path)
        raise RunFormatError(
            f"{shown}{f' is {what}, not' if what else ' is not'} an edge-list file; "
            f"baygo reads {KINDS_TEXT}"
        )
    spec, static = None, False  # a text file's: its rows are said as the file's lines
    try:
        if kind == "parquet" and columns is None:
            frame = _parquet_frame(path, shown, options)
        else:
            spec = table_spec(path, columns=columns)
            named = [k for k in ("source", "target", "time", "weight") if options.get(k)]
            if spec.headerless and named:
                raise ValueError(
                    f"{', '.join(f'{k}=' for k in named)}: options naming header columns, but "
                    f"{shown} has no header row: its columns are named by position "
                    "(columns='time,source,target', CLI --columns)"
                )
            head = _Header(pd.Index([n for n in spec.names if not n.startswith("-")]))
            # every column checked before the rows are read (a headerless file without
            # a time position is one step)
            required = ("source", "target") if spec.headerless else ("source", "target", "time")
            try:
                found = _columns(head, {k: options.get(k) for k in ROLES}, required)
            except ValueError as e:  # the file's columns: named with the file
                raise RunFormatError(f"{shown}: {e}") from None
            # labels are read as text: "007" and "7", "1e3" and "1000" differ
            text = {found["source"], found["target"]}
            when, wcol = found["time"], found["weight"]
            # "NA" is a label: only an empty cell is missing; times (read exactly) and
            # weights (an underflow named) as text
            exact = {c for c in (when, wcol) if c is not None}
            frame = read_rows(spec, text=text | exact, keep=text | exact)
            if wcol is not None:
                frame[wcol] = _text_weights(frame[wcol], wcol)
            kind_ = _int_labels(pd.concat([frame[c] for c in text]))  # one kind for both
            frame = frame.astype(dict.fromkeys(text, kind_))
            if spec.headerless and "time" not in frame.columns:  # a static network: one step
                frame["time"], static = 0, True  # (no time axis: the file gives no times)
            options = {**spec.defaults, **options}
    except (RunFormatError, BudgetError):
        raise
    except CellError as e:
        raise RunFormatError(_cell_text(e, spec, shown)) from None
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise RunFormatError(
            _by_position(f"{shown} is not a readable edge list: {_text.shorten(e, 200)}", spec)
        ) from None
    said = []
    try:
        with warnings.catch_warnings(record=spec is not None and spec.headerless) as said:
            if said is not None:
                warnings.simplefilter("always")
            series = edge_list_series(frame, **options)
            return dataclasses.replace(series, time_axis=None) if static else series
    except CellError as e:
        e.args = (_cell_text(e, spec, shown),)
        raise
    except (ValueError, BudgetError) as e:  # the same error, naming the file
        e.args = (_by_position(f"{shown}: {e}", spec),)
        raise
    finally:
        for w in said or ():  # a headerless file's warnings name its columns by position
            warnings.warn_explicit(_by_position(str(w.message), spec), w.category, w.filename,
                                   w.lineno)  # fmt: skip


#: A column of a role named by the name the reader gives it in a headerless file.
_ROLE_COLUMN = re.compile(
    r"\b(?:(?:time|weight|source|target) )?column '(source|target|time|weight)'"
)


def _by_position(text: str, spec) -> str:
    """``text`` with a headerless file's columns named as its user can name them, by
    position (``"time column 3"``), never by the role names the reader gives them
    (``'time'``, which the file does not have; newcomer7).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> spec = SimpleNamespace(headerless=True, names=("source", "target", "time"))
    >>> _by_position("bin must be an int for the integer time column 'time', got '1day'", spec)
    "bin must be an int for the integer time column 3, got '1day'"
    >>> _by_position("column 'source' is empty in line 2", spec)
    'source column 1 is empty in line 2'
    """
    if spec is None or not spec.headerless:
        return text
    where = {name: k + 1 for k, name in enumerate(spec.names)}

    def named(match):
        role = match.group(1)
        return f"{role} column {where[role]}" if role in where else match.group(0)

    return _ROLE_COLUMN.sub(named, text)


def _cell_text(error: CellError, spec, shown: str) -> str:
    """A cell's refusal naming the file and, in a text file, the cell's line (from 1, as
    an editor counts), not its data row (docs/formats.md, "Rows and lines")."""
    line = None if spec is None or error.row is None else data_line(spec, error.row)
    return _by_position(f"{shown}: {error if line is None else error.at_line(line)}", spec)
