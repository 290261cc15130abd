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

from pathlib import Path

import numpy as np
import pandas as pd

from .. import _text
from .._validate import check_unique_names, csv_header_names, read_csv_rows
from ..exceptions import RunFormatError
from ..limits import check_budget
from ..series import series_from_edges
from .filekind import describe_file

__all__ = ["EDGE_LIST_SUFFIXES", "edge_list_series", "read_edge_list"]

#: File suffixes read as edge lists.
EDGE_LIST_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
#: Bytes per (step, node) pair of the series (its self-loop entries).
_BYTES_PER_SLOT = 32


def _columns_text(frame) -> str:
    """The frame's columns for a message: at most 10, then how many more."""
    n = len(frame.columns)
    if n == 0:
        return "there are no columns"
    names = _text.short_list(frame.columns, 10, quote=True)
    return f"the {n} column{'s are' if n > 1 else ' is'} {names}"


def _column(frame, given: str | None, default: str, option: str, *, required=True):
    """The frame's column for ``given`` (exact) or ``default`` (any case, one match)."""
    cli = f"--{option if option != 'time' else 'time-column'}"
    if given is not None:
        if given not in frame.columns:
            raise ValueError(
                f"{option}={_text.shorten(repr(given), 80)}: no such column; {_columns_text(frame)}"
            )
        return given
    found = [c for c in frame.columns if str(c).strip().lower() == default]
    if len(found) > 1:
        raise ValueError(
            f"columns {_text.short_list(found, 5, quote=True)} all match {default!r}: name "
            f"the one to use with {option}=... (CLI: {cli})"
        )
    if found:
        return found[0]
    if not required:
        return None
    raise ValueError(
        f"no {default!r} column ({_columns_text(frame)}): name the column with "
        f"{option}=... (CLI: {cli})"
    )


_SIGN = np.uint64(1 << 63)


def _offsets(ints: np.ndarray, origin: int) -> np.ndarray:
    """``ints - origin`` (``origin <= min(ints)``) as uint64, exact over the whole
    int64 / uint64 range: signed values are shifted by 2^63 (order kept), so the
    difference is taken where it cannot wrap around."""
    if ints.dtype.kind == "u":
        return ints - np.uint64(origin)
    biased = ints.astype(np.int64).view(np.uint64) ^ _SIGN
    return biased - np.uint64(origin + 2**63)


def _bins(offsets: np.ndarray, width: int) -> np.ndarray:
    """``offsets // width`` (uint64; a width beyond uint64 puts every row in step 0)."""
    if width > 2**64 - 1:
        return np.zeros(len(offsets), dtype=np.uint64)
    return offsets // np.uint64(width)


def _int_times(values: pd.Series, name: str) -> np.ndarray:
    """The numeric time column as int64/uint64, refusing non-integers and values no
    64-bit integer holds (never cast with wraparound)."""
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else values.to_numpy().dtype.kind
    if kind in "iu":
        return values.to_numpy(dtype=np.uint64 if kind == "u" else np.int64)
    t = values.to_numpy(dtype=float)
    bad = ~np.isfinite(t) | (t != np.round(t))
    if bad.any():
        raise ValueError(
            f"time column {name!r} must hold integers or timestamps, got {float(t[bad][0])!r}"
        )
    out = (t < -(2.0**63)) | (t >= 2.0**63)
    if out.any():
        raise ValueError(
            f"time column {name!r} holds {float(t[out][0])!r}, outside the 64-bit integer "
            "range of times"
        )
    return t.astype(np.int64)


def _steps(values: pd.Series, bin, name: str) -> np.ndarray:
    """Step index of each row (uint64): integers shifted to 0 and divided by ``bin``,
    or timestamps floored to bins of the offset ``bin``; exact over the whole 64-bit
    range (no wraparound)."""
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise ValueError(f"time column {name!r} is empty in row {row}")
    if pd.api.types.is_bool_dtype(values):
        raise ValueError(f"time column {name!r} holds booleans, not times")
    _one_value_cells(values, f"time column {name!r}")
    if pd.api.types.is_numeric_dtype(values):
        width = 1 if bin is None else bin
        if isinstance(width, bool) or not isinstance(width, int | np.integer) or width < 1:
            raise ValueError(
                f"bin must be a positive int for the numeric time column {name!r}, got {bin!r}"
            )
        ints = _int_times(values, name)
        return _bins(_offsets(ints, int(ints.min())), int(width))
    stamps = values
    if not pd.api.types.is_datetime64_any_dtype(values):
        try:
            stamps = pd.to_datetime(values, format="mixed")
        except (ValueError, TypeError, OverflowError) as e:
            raise ValueError(
                f"time column {name!r} must hold integers or timestamps, got e.g. "
                f"{values.iloc[0]!r:.80} ({str(e)[:200]})"
            ) from None
    if bin is None:
        raise ValueError(
            f"time column {name!r} holds timestamps: give the width of a step with "
            "bin= (CLI --bin), a pandas offset alias such as '1D', '6h' or '15min'"
        )
    try:
        width = pd.Timedelta(pd.tseries.frequencies.to_offset(bin))
    except (ValueError, TypeError, OverflowError):
        raise ValueError(
            f"bin must be a fixed pandas offset alias such as '1D', '6h' or '15min' "
            f"(months and years vary in length), got {bin!r}"
        ) from None
    if width <= pd.Timedelta(0):
        raise ValueError(f"bin must be a positive duration, got {bin!r}")
    index = pd.DatetimeIndex(stamps)
    span = f"(from {index.min()} to {index.max()})"
    td = width.to_timedelta64()  # in its own unit: no overflow for a long bin
    width_ns = int(td.astype(np.int64)) * _unit_ns(np.datetime_data(td.dtype)[0])
    if width_ns % _unit_ns(index.unit):  # a bin finer than the column's unit
        try:
            index = index.as_unit("ns")
        except ValueError:  # OutOfBoundsDatetime
            raise ValueError(
                f"bin={bin!r} is finer than the {index.unit} resolution of the time column "
                f"{name!r}, whose times {span} lie outside nanosecond timestamps (years "
                "1678 to 2261): use a bin of whole seconds"
            ) from None
    w = width_ns // _unit_ns(index.unit)
    ints = index.asi8
    if index.tz is None:  # bins start at multiples of bin since the epoch, as floor() does
        whole = ints // w if w < 2**63 else np.where(ints < 0, -1, 0)
        return _offsets(whole, int(whole.min()))
    else:  # floored on the local clock (pandas)
        try:
            first = index.min().floor(width)
        except (ValueError, OverflowError):
            raise ValueError(
                f"bin={bin!r}: the first step of the time column {name!r} {span} would "
                "start outside pandas' timestamps"
            ) from None
        origin = int(pd.DatetimeIndex([first]).as_unit(index.unit).asi8[0])
    return _bins(_offsets(ints, origin), w)


def _unit_ns(unit: str) -> int:
    return int(pd.Timedelta(1, unit=unit) // pd.Timedelta(1, unit="ns"))


_CANONICAL_INT = r"0|-?[1-9][0-9]{0,17}"


def _int_labels(text: pd.Series):
    """``"int64"`` when every label of a column read as text is an integer written the
    canonical way (ASCII digits, no ``+``, no leading zero, no ``-0``: so no two labels
    merge), else ``object`` (the labels stay text)."""
    filled = text.dropna()
    return "int64" if len(filled) and filled.str.fullmatch(_CANONICAL_INT).all() else object


#: What pandas.api.types.infer_dtype says of a column of plain labels (no scan needed).
_PLAIN = {"string", "integer", "floating", "mixed-integer-float", "boolean", "empty"}


def _one_value_cells(values: pd.Series, what: str) -> None:
    """ValueError naming the first cell that is not one value (a list, array, dict or
    tuple: a nested Parquet column), e.g. ``what`` = ``"column 'source'"``."""
    if values.dtype.kind != "O" or pd.api.types.infer_dtype(values, skipna=True) in _PLAIN:
        return
    for row, v in enumerate(values):
        if not pd.api.types.is_scalar(v) and v is not None:
            raise ValueError(
                f"{what} holds a {type(v).__name__} in row {row} "
                f"({_text.shorten(repr(v), 60)}): each cell must be one value, not a nested one"
            )


def _text_label(value, where: str) -> str:
    """One label as text: bytes decoded as UTF-8 (else ValueError), an integer in
    decimal, text as it is."""
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"{where} holds the bytes {_text.shorten(repr(bytes(value)), 60)}, which are not "
                "UTF-8 text: labels must be text or integers"
            ) from None
    if isinstance(value, np.generic):
        value = value.item()
    return value if isinstance(value, str) else str(value)


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


def _labels(values: pd.Series, name: str) -> pd.Series:
    """The column, refused when a cell is empty or nested."""
    _one_value_cells(values, f"column {name!r}")
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise ValueError(f"column {name!r} is empty in row {row}: every row needs a node label")
    return values


def edge_list_series(
    frame,
    *,
    source: str | None = None,
    target: str | None = None,
    time: str | None = None,
    weight: str | None = None,
    bin=None,
    directed: bool = True,
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
        Step width: an int for integer times (default 1), a fixed pandas offset
        alias (``"1D"``) for timestamps (required for them).
    directed : bool, default True
        False: each row is a two-way contact (both nodes hear each other).
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
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas.DataFrame, got {type(frame).__name__}")
    check_unique_names(frame.columns, where="frame: ")
    cols = {
        "source": _column(frame, source, "source", "source"),
        "target": _column(frame, target, "target", "target"),
        "time": _column(frame, time, "time", "time"),
    }
    wcol = _column(frame, weight, "weight", "weight", required=False)
    if len(frame) == 0:
        raise ValueError("the edge list has no rows: a series needs at least one step")
    src = _labels(frame[cols["source"]], cols["source"])
    dst = _labels(frame[cols["target"]], cols["target"])
    steps = _steps(frame[cols["time"]], bin, cols["time"])
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
        if not pd.api.types.is_numeric_dtype(wv) or pd.api.types.is_bool_dtype(wv):
            raise ValueError(f"weight column {wcol!r} must hold numbers, got {wv.dtype}")
        w = wv.to_numpy(dtype=float)
        if np.isnan(w).any():
            row = int(np.flatnonzero(np.isnan(w))[0])
            raise ValueError(f"weight column {wcol!r} is empty in row {row}")
    n_steps, m = int(steps.max()) + 1, len(labels)
    check_budget(
        _BYTES_PER_SLOT * n_steps * m,
        what=f"a series of {n_steps} steps x {m} nodes (a wider bin= gives fewer steps)",
    )
    steps = steps.astype(np.int64)  # < 2^63: the budget holds n_steps
    if not directed:
        two_way = j != i
        steps = np.concatenate([steps, steps[two_way]])
        i, j = np.concatenate([i, j[two_way]]), np.concatenate([j, i[two_way]])
        w = np.concatenate([w, w[two_way]])
    return series_from_edges(steps, i, j, w, n_steps=n_steps, nodes=[labels[k] for k in order],
                             self_weight=self_weight)  # fmt: skip


def read_edge_list(path, **options):
    """Read a ``.csv`` / ``.tsv`` / ``.parquet`` edge list as a graph series.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV (comma-separated; ``.tsv``: tab-separated) with a header row, or a
        Parquet file (needs pyarrow: ``pip install baygo-graph[parquet]``).
    **options
        ``source``, ``target``, ``time``, ``weight``, ``bin``, ``directed``,
        ``self_weight``: as in :func:`edge_list_series`.

    Returns
    -------
    EdgeListSeries

    Raises
    ------
    RunFormatError
        When the file is missing or cannot be parsed.
    ValueError
        As :func:`edge_list_series`.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "contacts.csv"
    >>> _ = p.write_text("source,target,time\\nann,bob,0\\nbob,ann,1\\n")
    >>> read_edge_list(p).nodes
    ('ann', 'bob')
    """
    path = Path(path)
    if not path.is_file():
        raise RunFormatError(f"no edge list at {str(path)!r}")
    suffix = path.suffix.lower()
    if suffix not in EDGE_LIST_SUFFIXES:
        kind = describe_file(path)
        raise RunFormatError(
            f"an edge list must be {', '.join(EDGE_LIST_SUFFIXES)}, got {str(path)!r}"
            + (f" ({kind})" if kind else "")
        )
    check_budget(16 * path.stat().st_size, what=f"parsing {path.name}")
    try:
        if suffix in (".parquet", ".pq"):
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise RunFormatError(
                    f"reading {path.name} needs pyarrow: pip install 'baygo-graph[parquet]'"
                ) from None
            import pyarrow.parquet as pq

            check_unique_names(pq.read_schema(path).names)
            frame = pd.read_parquet(path)
        else:
            sep = "\t" if suffix == ".tsv" else ","
            names = csv_header_names(path, sep=sep, skipinitialspace=True)  # no repeats
            head = pd.DataFrame(columns=names)  # every column checked before the rows are read
            for key in ("time", "weight"):
                _column(head, options.get(key), key, key, required=key == "time")
            text = {  # labels are read as text: "007" and "7", "1e3" and "1000" differ
                _column(head, options.get(key), key, key) for key in ("source", "target")
            }
            frame = read_csv_rows(  # "NA" is a label: only an empty cell is missing
                path, sep=sep, header=0, names=names, dtype=dict.fromkeys(text, str),
                keep_default_na=False, na_values=[""],
            )  # fmt: skip  (cells as written: a space is part of a label, RFC 4180)
            kind = _int_labels(pd.concat([frame[c] for c in text]))  # one kind for both
            frame = frame.astype(dict.fromkeys(text, kind))
    except RunFormatError:
        raise
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as e:
        raise RunFormatError(
            f"{str(path)!r} is not a readable edge list: {_text.shorten(e, 300)}"
        ) from None
    try:
        return edge_list_series(frame, **options)
    except ValueError as e:  # the same error, naming the file
        e.args = (f"{str(path)!r}: {e}",)
        raise
