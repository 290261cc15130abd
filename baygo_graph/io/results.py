"""Per-step results as Parquet: compact, exact, read back by columns or by run.

:func:`write_results_parquet` writes a
:class:`~baygo_graph.analysis.Comparison` as the tidy table of
:meth:`~baygo_graph.analysis.Comparison.to_frame` (one row per strategy, seed,
step and agent) plus the ``data`` and ``synthetic`` columns the CSV carries
(``results.parquet`` of ``baygo reproduce``, ``baygo compare --out``), one
Parquet row group per run (runs of fewer than :data:`GROUP_ROWS` rows: several
seeds of one strategy per row group), so memory stays that of one run's rows (or
of :data:`GROUP_ROWS`). Columns and types:

- ``strategy``: dictionary-encoded (pandas ``category``);
- ``seed``, ``agent``: int16 (int32 beyond 32,767), ``step``: int32;
- ``informative``: bool;
- ``mse``, ``influence``: float64, exactly the values computed (NaN where the
  influence is undefined), with byte-stream-split encoding and zstd;
- ``data`` (dictionary-encoded text) and ``synthetic`` (bool): where the data
  came from and whether they were synthetic, one value on every row, as in the
  CSV, so any reader (pandas, polars, DuckDB: ``SELECT DISTINCT data,
  synthetic``) sees them; constant columns cost about 0.001 bytes per row.

The file's key-value metadata says it again: ``data_source``, ``synthetic``
(``"true"``/``"false"``), ``note`` (the synthetic-data note, empty for real
data), ``baygo.results`` (JSON: the shape and the comparison's ``attrs``) and
``baygo.digest``, a SHA-256 of the columns' types and the other metadata, verified on
read like the pages' checksums (a changed byte in the footer is refused, never read as
another data source or flag).
About 5 bytes per row (the CSV of ``Comparison.write_csv`` takes 35-80, with 6
significant digits). :func:`load_results` reads some columns or strategies only
(and an older ``results.csv`` too), with the data source and the synthetic flag
in ``df.attrs``; :meth:`baygo_graph.analysis.Comparison.read_parquet` rebuilds
the ``Comparison`` one row group at a time.
"""

from __future__ import annotations

import errno
import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._format import synthetic_banner
from .._text import counted, csv_uncell, quoted_path, short_list, shorten
from ..exceptions import DataError
from ..limits import check_budget
from .atomic import atomic_write, check_target, forced, remove_told, written_here

__all__ = [
    "COLUMNS",
    "GROUP_ROWS",
    "RESULTS_FILES",
    "is_our_table",
    "remove_stale_results",
    "source_metadata",
    "table_kind",
    "check_results_format",
    "load_results",
    "read_result_arrays",
    "write_results",
    "write_results_parquet",
]

#: The columns of a results file, in order (``data`` and ``synthetic``: absent from
#: files written before they were added, and then taken from the metadata).
COLUMNS = ("strategy", "seed", "step", "agent", "informative", "mse", "influence", "data",
           "synthetic")  # fmt: skip
_REQUIRED = COLUMNS[:7]
_META = b"baygo.results"
#: Rows per row group aimed at: runs shorter than this share a row group with the
#: following seeds of the same strategy (small runs: fewer pages and footers);
#: a run of this many rows or more is a row group of its own.
GROUP_ROWS = 1 << 20


def _pyarrow():
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def _int_type(pa, largest: int):
    return pa.int16() if largest <= np.iinfo(np.int16).max else pa.int32()


def _schema(pa, n_seeds: int, n_agents: int, meta: dict, source: str, synthetic: bool):
    schema = pa.schema(
        [
            ("strategy", pa.dictionary(pa.int16(), pa.string())),
            ("seed", _int_type(pa, n_seeds - 1)),
            ("step", pa.int32()),
            ("agent", _int_type(pa, n_agents - 1)),
            ("informative", pa.bool_()),
            ("mse", pa.float64()),
            ("influence", pa.float64()),
            ("data", pa.dictionary(pa.int8(), pa.string())),
            ("synthetic", pa.bool_()),
        ],
        metadata={
            _META: json.dumps(meta).encode("utf-8"),
            b"note": synthetic_banner(synthetic).encode("utf-8"),
            **source_metadata(source, synthetic, note=synthetic_banner(synthetic)),
        },
    )
    return schema.with_metadata(
        schema.metadata | {_DIGEST: _digest(schema.remove_metadata(), schema.metadata)}
    )


#: The key-value metadata key of the digest of a results file's footer (:func:`_digest`).
_DIGEST = b"baygo.digest"


def _digest(schema, metadata) -> bytes:
    """SHA-256 (hex) of what a reader takes from a results file's footer, beyond the pages
    (which carry their own checksums): the columns' names, types and nullability and the
    key-value metadata (but the digest itself and the Arrow schema that repeats it). A
    changed byte there changes what is read (a type, the data source, the synthetic
    flag, the shape) without failing any page checksum; the row groups' sizes are
    checked against the shape when read (:func:`read_result_arrays`), and a file
    rewritten by another tool with other row groups is still read by value
    (:func:`load_results`)."""
    import hashlib

    h = hashlib.sha256()
    for field in schema:
        h.update(f"{field.name}\0{field.type}\0{field.nullable}\0".encode())
    for key, value in sorted((metadata or {}).items()):
        if key not in (_DIGEST, b"ARROW:schema"):
            h.update(b"%d:%s%d:%s" % (len(key), key, len(value), value))
    return h.hexdigest().encode()


def _check_digest(path, pf) -> None:
    """Refuse a results file whose footer does not match the digest written with it.

    Both places pyarrow keeps the key-value metadata (the footer's list and the Arrow
    schema stored in it) are checked. A file of an earlier version (no digest, and a
    ``baygo.results`` that does not announce one) is read as before.
    """
    raw = dict(pf.metadata.metadata or {})
    views = [raw, dict(pf.schema_arrow.metadata or {})]
    stored = {view.get(_DIGEST) for view in views}
    announced = any(b'"digest": "sha256"' in view.get(_META, b"") for view in views)
    if stored == {None} and not announced:
        return  # written before the digest existed
    fields = pf.schema_arrow.remove_metadata()
    if len(stored) != 1 or any(_digest(fields, view) not in stored for view in views):
        raise DataError(
            f"{quoted_path(path, 120)} is corrupt: its footer (column types or "
            "metadata) does not match the digest written with it (the file changed "
            "after it was written); write it again"
        )


def source_metadata(source: str, synthetic: bool, **attrs) -> dict:
    """Parquet key-value metadata saying where a table's data came from: ``data_source``,
    ``synthetic``, and the same (with ``attrs``) where ``pandas.read_parquet`` puts them
    in the frame's ``attrs``.

    Examples
    --------
    >>> source_metadata("bodyfat.csv", False)[b"synthetic"]
    b'false'
    """
    return {
        b"data_source": source.encode("utf-8"),
        b"synthetic": b"true" if synthetic else b"false",
        b"PANDAS_ATTRS": json.dumps(
            {"data_source": source, "synthetic": synthetic, **attrs}
        ).encode("utf-8"),
    }


def write_results_parquet(
    comparison, path, *, compression_level: int = 3, overwrite: bool = False
) -> Path:
    """Write a ``Comparison``'s per-step results to a Parquet file (atomically).

    Parameters
    ----------
    comparison : Comparison
        From ``compare(..., tidy=False)``.
    path : str or pathlib.Path
        The file to write (its folder is created).
    compression_level : int, default 3
        zstd level (1-22): higher is smaller and slower.
    overwrite : bool, default False
        Replace a file already at ``path`` (else :class:`FileExistsError`, before any
        work: every writer's rule).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from baygo_graph.analysis import Comparison
    >>> c = Comparison(("a", "b"), np.ones((2, 1, 3, 2)), np.full((2, 1, 3, 2), np.nan),
    ...                np.zeros((2, 1), dtype=int))
    >>> p = write_results_parquet(c, tempfile.mkdtemp() + "/results.parquet")
    >>> load_results(p, columns=["strategy", "mse"]).shape
    (12, 2)
    """
    check_target(path, overwrite=overwrite)
    pa, pq = _pyarrow()
    n_s, n_seeds, t, m = comparison.mse.shape
    labels = list(comparison.strategies)
    attrs = {k: v for k, v in comparison.attrs.items() if _jsonable(v)}
    source = str(comparison.attrs.get("data_source", "unknown"))
    synthetic = bool(comparison.attrs.get("synthetic", False))
    per = max(1, min(n_seeds, GROUP_ROWS // (t * m)))  # seeds of one strategy per group
    meta = {"shape": [n_s, n_seeds, t, m], "seeds_per_group": per, "attrs": attrs,
            "digest": "sha256"}  # fmt: skip
    schema = _schema(pa, n_seeds, m, meta, source, synthetic)
    dictionary = pa.array(labels, type=pa.string())
    step = np.tile(np.repeat(np.arange(t, dtype=np.int32), m), per)
    agent = np.tile(np.arange(m), t * per)
    # the two constant columns: built once, shared by every row group
    data = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(t * m * per, dtype=np.int8)), pa.array([source], type=pa.string())
    )
    flag = pa.array(np.full(t * m * per, synthetic))

    def write(fh):
        with pq.ParquetWriter(
            fh,
            schema,
            compression="zstd",
            compression_level=compression_level,
            use_dictionary=["strategy", "seed", "step", "agent", "informative", "data"],
            use_byte_stream_split=["mse", "influence"],
            write_page_checksum=True,  # verified on read: a changed byte is refused
        ) as writer:
            for i in range(n_s):
                for r0 in range(0, n_seeds, per):
                    seeds = range(r0, min(r0 + per, n_seeds))
                    n = len(seeds) * t * m
                    codes = pa.array(np.full(n, i, dtype=np.int16))
                    runs = np.s_[i, r0 : seeds.stop]
                    chosen = np.repeat(comparison.informative[i, r0 : seeds.stop], t * m)
                    columns = [
                        pa.DictionaryArray.from_arrays(codes, dictionary),
                        pa.array(
                            np.repeat(np.arange(r0, seeds.stop), t * m),
                            type=schema.field("seed").type,
                        ),
                        pa.array(step[:n]),
                        pa.array(agent[:n], type=schema.field("agent").type),
                        pa.array(agent[:n] == chosen),
                        pa.array(np.asarray(comparison.mse[runs], dtype=np.float64).ravel()),
                        pa.array(np.asarray(comparison.influence[runs], dtype=np.float64).ravel()),
                        data.slice(0, n),
                        flag.slice(0, n),
                    ]
                    writer.write_table(pa.Table.from_arrays(columns, schema=schema))

    return atomic_write(path, write, overwrite=overwrite)


#: The formats of the per-step results table (``results_format=``) and their file names.
RESULTS_FILES = {"parquet": "results.parquet", "csv": "results.csv"}


def check_results_format(results_format) -> str:
    """``results_format`` if it is ``"parquet"`` or ``"csv"`` (ValueError naming it otherwise).

    Examples
    --------
    >>> check_results_format("csv")
    'csv'
    """
    if not isinstance(results_format, str) or results_format not in RESULTS_FILES:
        raise ValueError(
            f"results_format must be one of {sorted(RESULTS_FILES)}, got {results_format!r}"
        )
    return results_format


def write_results(res, out, *, results_format: str = "parquet", overwrite: bool = False) -> Path:
    """The per-step results table in ``out``: ``results.parquet`` (default) or ``results.csv``.

    Either carries the data source and the synthetic flag (CSV: a column each; Parquet:
    a constant column each and the file's metadata). With ``overwrite=True`` the other
    format's table, left by an earlier run in ``out``, is removed when baygo wrote it
    (:func:`is_our_table`), so one folder never holds two of our tables that disagree; a
    user's own file of that name is never touched. Without it, that table (an earlier
    experiment's results) is refused as the table of this format is.

    Parameters
    ----------
    res : Comparison
        The per-run arrays (``compare(..., tidy=False)``).
    out : str or pathlib.Path
        The folder.
    results_format : {"parquet", "csv"}, default "parquet"
    overwrite : bool, default False
        Replace the table already in ``out``, of either format (else
        :class:`FileExistsError`, before any work: every writer's rule).

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph.analysis import Comparison
    >>> c = Comparison(("a",), np.ones((1, 1, 2, 2)), np.zeros((1, 1, 2, 2)),
    ...                np.zeros((1, 1), dtype=int))
    >>> folder = tempfile.mkdtemp()
    >>> write_results(c, folder).name
    'results.parquet'
    >>> write_results(c, folder, results_format="csv", overwrite=True).name
    'results.csv'
    >>> sorted(p.name for p in Path(folder).iterdir())
    ['results.csv']
    """
    check_results_format(results_format)
    out = Path(out)
    check_tables(out, kind="results")  # never a sweep's table, even of the other format
    path = out / RESULTS_FILES[results_format]
    for other in RESULTS_FILES.values():  # an earlier table of the other format: kept
        if not overwrite and other != path.name and (out / other).is_file():
            raise FileExistsError(
                errno.EEXIST, "exists, the results table of an earlier run in the other "
                "format (pass overwrite=True to replace it)", str(out / other),
            )  # fmt: skip
    if results_format == "csv":
        source = str(res.attrs.get("data_source", "unknown"))
        synthetic = bool(res.attrs.get("synthetic", False))
        banner = synthetic_banner(synthetic) or None  # a first comment line when synthetic
        res.write_csv(path, data=source, synthetic=synthetic, comment=banner, overwrite=overwrite)
    else:
        res.write_parquet(path, overwrite=overwrite)
    remove_stale_results(out, keep=path.name)
    return path


#: The header (first line that is not a ``#`` comment) of the per-step results CSV baygo
#: writes (compare, reproduce); a sweep's begins ``id,strategy,`` (:func:`table_kind`).
_RESULTS_CSV_HEADER = "strategy,seed,step,agent,informative,mse,influence"
#: Columns only a sweep's table has (its Parquet files before ``baygo.table``: 2026-11-25).
_SWEEP_COLUMNS = {"id", "strategy", "seed", "final_mse_informative", "final_mse_others_mean"}


def is_our_table(path) -> bool:
    """Whether ``path`` is a results table baygo wrote (so baygo may replace it).

    A Parquet file is ours when its metadata carries baygo's key; a CSV when its
    header (after ``#`` comment lines) is one baygo writes. Anything else, or a file
    that cannot be read, is the user's (:func:`table_kind`).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "results.csv"
    >>> _ = p.write_text("my,own,table\\n1,2,3\\n")
    >>> is_our_table(p)
    False
    """
    return table_kind(path) is not None


def table_kind(path) -> str | None:
    """Which baygo table ``path`` is: ``"sweep"`` (a sweep's one row per task),
    ``"results"`` (the per-step results of ``compare`` and ``reproduce``), or None (not
    one baygo writes, or unreadable).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "results.csv"
    >>> _ = p.write_text("id,strategy,delta,seed,final_mse_informative\\n")
    >>> table_kind(p)
    'sweep'
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
        if head[:4] == b"PAR1":
            _, pq = _pyarrow()
            schema = pq.ParquetFile(path).schema_arrow
            meta = schema.metadata or {}
            if meta.get(b"baygo.table") == b"sweep" or (
                b"baygo.table" not in meta and _SWEEP_COLUMNS <= set(schema.names)
            ):  # a sweep's, also one of a version before its key
                return "sweep"
            return "results" if _META in meta else None
        for line in head.decode("utf-8").splitlines():
            if not line.startswith("#"):
                if line.startswith("id,strategy,") and "final_mse_informative" in line:
                    return "sweep"
                return "results" if line.startswith(_RESULTS_CSV_HEADER) else None
    except Exception:  # unreadable, not text, or a damaged Parquet file: not provably ours
        return None
    return None


def check_tables(folder, *, kind: str) -> None:
    """Refuse, unless the command was given ``--force`` (:func:`~baygo_graph.io.atomic.forced`),
    a results table in ``folder`` of another kind than the ``kind`` about to be written
    there (:func:`table_kind`), which it would replace or remove: a sweep
    (``kind="sweep"``) never replaces the per-step results of ``compare`` or
    ``reproduce`` or a file of the user's (hostile9 M6), and these
    (``kind="results"``) never a sweep's table, whose folder belongs to the sweep. A
    :class:`FileExistsError` naming the table.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "results.csv").write_text("id,strategy,delta,seed,final_mse_informative\\n")
    >>> check_tables(d, kind="results")
    Traceback (most recent call last):
    ...
    FileExistsError: [Errno 17] is a sweep's table: the folder belongs to a sweep ...
    """
    for name in RESULTS_FILES.values():
        path = Path(folder) / name
        if not path.is_file() or forced(path):
            continue
        found = table_kind(path)
        if kind == "sweep" and found != "sweep":
            why = ("is not a sweep's table (the results of compare or reproduce, or yours): "
                   "give the sweep its own folder (baygo sweep --force replaces it)")  # fmt: skip
        elif kind != "sweep" and found == "sweep":
            why = ("is a sweep's table: the folder belongs to a sweep (its rows are kept in "
                   "tasks/); use another --out (--force replaces the table)")  # fmt: skip
        else:
            continue
        raise FileExistsError(errno.EEXIST, why, str(path))


def remove_stale_results(folder, *, keep: str) -> list[Path]:
    """Remove the other format's results table from ``folder`` when baygo wrote it.

    An earlier run's table in the other format would disagree with the new one; a
    file of the same name that baygo did not write is left alone: in a command's
    output folder, one its record does not list unchanged
    (:func:`~baygo_graph.io.atomic.written_here`), elsewhere one that is not a
    baygo table (:func:`is_our_table`). Returns the files removed.
    """
    removed = []
    for name in RESULTS_FILES.values():
        other = Path(folder) / name
        if name == keep or not other.is_file() or other.is_symlink():
            continue
        ours = written_here(other)  # in a command's output folder: its record decides
        if ours or (ours is None and is_our_table(other)):
            remove_told(other)  # the command says 'removed PATH'
            removed.append(other)
    return removed


def _jsonable(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def is_parquet(path) -> bool:
    """Whether ``path`` is a Parquet file (its first bytes, not its name, tell).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "results.parquet"
    >>> _ = p.write_text("strategy,seed\\n")
    >>> is_parquet(p)
    False
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PAR1"
    except OSError:
        return str(path).lower().endswith(".parquet")  # the reader then names the error


def _is_csv(path) -> bool:
    """Parquet by content; a ``.parquet`` name that is not Parquet is refused as such."""
    return not (is_parquet(path) or str(path).lower().endswith(".parquet"))


def _open(path):
    pa, pq = _pyarrow()
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no results file at {quoted_path(path, 120)}")
    try:
        pf = pq.ParquetFile(path, page_checksum_verification=True)
    except (pa.ArrowException, OSError) as e:
        raise DataError(
            f"{quoted_path(path, 120)} is not a Parquet file: {str(e).splitlines()[0]}"
        ) from None
    names = tuple(pf.schema_arrow.names)
    if names not in (COLUMNS, _REQUIRED):
        raise ValueError(f"{quoted_path(path, 120)} is not a results file: "
                         f"{_columns_wrong(names)}")  # fmt: skip
    for field in pf.schema_arrow:
        want = _TYPES[field.name]
        if not want(pa.types, field.type):
            raise DataError(
                f"{quoted_path(path, 120)} is not a results file: column {field.name!r} holds "
                f"{field.type}, need {_TYPE_NAMES[field.name]}"
            )
    _check_digest(path, pf)  # after the columns: a rewritten file is named as such
    return pf


def _columns_wrong(names) -> str:
    """What is wrong with a table's columns, in a few words (not both lists in full).

    Examples
    --------
    >>> _columns_wrong(("strategy", "sued", "step"))
    "no column 'seed', 'agent', 'informative', 'mse', 'influence'; other column 'sued'"
    """
    missing = [c for c in _REQUIRED if c not in names]
    other = [c for c in names if c not in COLUMNS]
    parts = [f"no column {short_list(missing, 6, quote=True)}"] if missing else []
    parts += [f"other column {short_list(other, 3, quote=True, limit=40)}"] if other else []
    return "; ".join(parts) or f"columns in another order, need {', '.join(COLUMNS)}"


def _text_dictionary(types, t) -> bool:
    return types.is_dictionary(t) and types.is_string(t.value_type)


#: What each column of a results file must hold (checked before any value is read).
_TYPES = {
    "strategy": _text_dictionary,
    "seed": lambda types, t: types.is_integer(t),
    "step": lambda types, t: types.is_integer(t),
    "agent": lambda types, t: types.is_integer(t),
    "informative": lambda types, t: types.is_boolean(t),
    "mse": lambda types, t: types.is_float64(t),
    "influence": lambda types, t: types.is_float64(t),
    "data": _text_dictionary,
    "synthetic": lambda types, t: types.is_boolean(t),
}
_TYPE_NAMES = {
    "strategy": "dictionary-encoded text",
    "data": "dictionary-encoded text",
    "informative": "bool",
    "synthetic": "bool",
    "mse": "float64",
    "influence": "float64",
} | dict.fromkeys(("seed", "step", "agent"), "integers")


@contextmanager
def _arrow_errors(path):
    """A file pyarrow cannot decode (truncated, corrupt pages) is a DataError naming it."""
    pa, _ = _pyarrow()
    try:
        yield
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError) as e:  # pyarrow's decoding errors include OSError
        first = shorten(str(e).splitlines()[0] if str(e) else type(e).__name__, 120)
        if "checksum" in first.lower():
            raise DataError(
                f"{quoted_path(path, 120)} is corrupt: a page's checksum does not match "
                "its bytes (the file changed after it was written); write it again"
            ) from None
        raise DataError(f"{quoted_path(path, 120)} cannot be read: {first}") from None
    except (AttributeError, TypeError, IndexError, OverflowError, KeyError, UnicodeError) as e:
        # values that contradict the layout (nulls, empty row groups, absurd metadata,
        # names that are not UTF-8)
        raise DataError(
            f"{quoted_path(path, 120)} is not a readable results file: {type(e).__name__}: "
            f"{shorten(str(e).splitlines()[0] if str(e) else '', 200)}"
        ) from None


def _file_attrs(pf) -> dict:
    """The comparison's ``attrs`` stored in the file, with ``data_source`` and
    ``synthetic`` from the key-value metadata."""
    meta = pf.schema_arrow.metadata or {}
    try:
        attrs = dict(json.loads(meta[_META]).get("attrs", {}))
    except (KeyError, ValueError, TypeError, AttributeError):
        attrs = {}
    if b"data_source" in meta:
        attrs["data_source"] = meta[b"data_source"].decode("utf-8", "replace")
    if b"synthetic" in meta:
        attrs["synthetic"] = meta[b"synthetic"].strip().lower() in (b"true", b"1")
    if "synthetic" in pf.schema_arrow.names and pf.metadata.num_rows:
        # the column says it too: synthetic when either says so (never a false "real")
        column = pf.read_row_group(0, columns=["synthetic"]).column(0)
        attrs["synthetic"] = bool(attrs.get("synthetic", False)) or bool(
            column.fill_null(False).to_numpy(zero_copy_only=False).any()
        )
    return attrs


def _check_layout(path, g, part, *, seeds, t, m) -> str:
    """The rows of row group ``g`` are seeds x steps x agents in order, one strategy:
    returns that strategy."""
    strategy = part.column("strategy").combine_chunks()
    if strategy.null_count or len(np.unique(strategy.indices.to_numpy())) > 1:
        raise DataError(
            f"{quoted_path(path, 120)}: row group {g} holds several strategies (or none)"
        )
    k = len(seeds)
    want = {
        "seed": np.repeat(seeds, t * m),
        "step": np.tile(np.repeat(np.arange(t), m), k),
        "agent": np.tile(np.arange(m), t * k),
    }
    for name, values in want.items():
        got = part.column(name)
        if got.null_count or not np.array_equal(got.to_numpy(), values):
            raise DataError(
                f"{quoted_path(path, 120)}: row group {g}'s {name} column is not in the order "
                "baygo "
                "writes (seeds, then steps, then agents): the file was rewritten or "
                "damaged; read it with load_results, which reads rows by value"
            )
    return _group_label(strategy)


def _group_label(strategy) -> str:
    """The strategy of a row group's (dictionary-encoded) strategy column."""
    return strategy.dictionary[strategy.indices[0].as_py()].as_py()


def _check_columns(columns) -> list:
    if isinstance(columns, str):
        raise TypeError(f"columns must be a list of column names, got the string {columns!r}")
    cols = list(COLUMNS if columns is None else columns)
    unknown = sorted(set(cols) - set(COLUMNS))
    if unknown:
        raise ValueError(f"columns must be among {COLUMNS}, got {unknown}")
    return cols


def load_results(path, columns=None, *, strategies=None):
    """Read a results file (or some of its columns or strategies) as a pandas DataFrame.

    ``results.parquet`` is read by columns and row groups (one per run, or per few
    seeds of small runs): only
    what is asked is decoded. A ``results.csv`` (``--csv``, or written by an
    earlier version) is read too, in chunks of the columns asked.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.parquet`` file of :func:`write_results_parquet`, or a ``.csv`` /
        ``.csv.gz`` table of ``Comparison.write_csv`` (or ``baygo compare --out``).
    columns : sequence of str, optional
        Columns to read (default all, :data:`COLUMNS`).
    strategies : sequence of str, optional
        Keep the rows of these strategies only (whole row groups are skipped).

    Returns
    -------
    pandas.DataFrame
        ``strategy`` as a categorical, integer columns as stored (int16/int32);
        ``df.attrs["data_source"]`` and ``df.attrs["synthetic"]`` say where the
        data came from and whether they were synthetic (with the other settings
        stored in the file).

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph.analysis import Comparison
    >>> c = Comparison(("a",), np.ones((1, 1, 2, 2)), np.zeros((1, 1, 2, 2)),
    ...                np.zeros((1, 1), dtype=int), attrs={"synthetic": True,
    ...                "data_source": "synthetic (n=252)"})
    >>> df = load_results(c.write_parquet(tempfile.mkdtemp() + "/results.parquet"),
    ...                   columns=["step", "mse"])
    >>> df.shape, df.attrs["synthetic"], df.attrs["data_source"]
    ((4, 2), True, 'synthetic (n=252)')
    """
    cols = _check_columns(columns)
    if _is_csv(path):
        return _load_csv(path, cols, strategies)
    with _arrow_errors(path):
        return _load_parquet(path, cols, strategies)


def _load_parquet(path, cols, strategies):
    pa, _ = _pyarrow()
    pf = _open(path)
    names = pf.schema_arrow.names
    absent = [c for c in cols if c not in names]  # data, synthetic of an early file
    read = [c for c in cols if c in names]
    rows = pf.metadata.num_rows
    check_budget(9 * max(len(read), 1) * rows, what=f"the columns {read} of {path}")
    if strategies is None:
        table = pf.read(columns=read)
    else:  # by value, whatever the row groups hold (a file rewritten by another tool)
        import pyarrow.compute as pc

        wanted = [str(v) for v in strategies]
        parts = []
        for g in range(pf.num_row_groups):
            part = pf.read_row_group(g, columns=list(dict.fromkeys([*read, "strategy"])))
            keep = pc.is_in(part.column("strategy").cast("string"), value_set=pa.array(wanted))
            parts.append(part.filter(keep).select(read))
        table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table().select(read)
    df = table.to_pandas()
    attrs = _file_attrs(pf)
    for col in absent:
        df[col] = attrs.get({"data": "data_source"}.get(col, col), "unknown")
    df = df[cols]
    df.attrs = attrs
    return df


def _load_csv(path, cols, strategies):
    """:func:`load_results` of a CSV table: chunks of the columns asked, rows filtered."""
    import pandas as pd

    from .comparison_csv import _note_lines, check_results_text

    compression = check_results_text(path)  # its own bytes; archives and long lines refused
    skip = _note_lines(path)
    try:
        head = pd.read_csv(path, skiprows=skip, nrows=1, dtype=str, keep_default_na=False,
                           compression=compression)  # fmt: skip
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: not a results table: {str(e).splitlines()[0]}") from None
    missing = [c for c in cols if c not in head.columns]
    if missing or not set(_REQUIRED[:6]) <= set(head.columns):
        raise ValueError(f"{quoted_path(path, 120)} is not a results file: columns "
                         f"{tuple(head.columns)}, "
                         f"need {COLUMNS}")  # fmt: skip
    attrs = {}
    if len(head) and "data" in head:
        attrs["data_source"] = csv_uncell(str(head["data"].iloc[0]))
    if len(head) and "synthetic" in head:
        attrs["synthetic"] = str(head["synthetic"].iloc[0]).strip().lower() in ("true", "1")
    usecols = list(dict.fromkeys(cols + (["strategy"] if strategies is not None else [])))
    parts = []
    for chunk in pd.read_csv(path, skiprows=skip, usecols=usecols, chunksize=1_000_000,
                             dtype={"strategy": str, "data": str},
                             compression=compression):  # fmt: skip
        if "strategy" in chunk:
            chunk["strategy"] = chunk["strategy"].map(csv_uncell)
        if strategies is not None:
            chunk = chunk[chunk["strategy"].isin(list(strategies))]
        parts.append(chunk[cols])
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    if "strategy" in df:
        df["strategy"] = df["strategy"].astype("category")
    if "data" in df:
        df["data"] = df["data"].map(csv_uncell)
    df.attrs = attrs
    return df


def read_result_arrays(path):
    """``(labels, mse, influence, informative, attrs)`` of a results file, read one run
    (row group) at a time: :meth:`baygo_graph.analysis.Comparison.read_parquet` builds
    the ``Comparison`` from them (this layer never imports analysis).

    The arrays are exactly those written (float64, bit for bit); their size is
    checked against the memory budget (:mod:`baygo_graph.limits`) first.
    """
    with _arrow_errors(path):
        return _read_arrays(path)


def _read_arrays(path):
    pf = _open(path)
    try:
        meta = json.loads(pf.schema_arrow.metadata[_META])
        n_s, n_seeds, t, m = (int(v) for v in meta["shape"])
        per = int(meta.get("seeds_per_group", 1))  # 1: files of the first version
    except (KeyError, ValueError, TypeError) as e:
        raise DataError(
            f"{quoted_path(path, 120)}: no readable shape in its metadata ({e})"
        ) from None
    if min(n_s, n_seeds, t, m, per) < 1:
        raise DataError(f"{quoted_path(path, 120)}: its metadata's shape {[n_s, n_seeds, t, m]} "
                        "and "
                        f"seeds per row group {per} must be positive")  # fmt: skip
    groups = -(-n_seeds // per)
    if pf.num_row_groups != n_s * groups:
        raise DataError(f"{quoted_path(path, 120)}: {pf.num_row_groups} row groups, its metadata's "
                        "shape "
                        f"{[n_s, n_seeds, t, m]} needs {n_s * groups}")  # fmt: skip
    check_budget(17 * n_s * n_seeds * t * m, what=f"the arrays of {quoted_path(path, 120)}")
    mse = np.empty((n_s, n_seeds, t, m))
    influence = np.empty_like(mse)
    informative = np.empty((n_s, n_seeds), dtype=np.int64)
    labels = [None] * n_s
    for g in range(pf.num_row_groups):
        i, r0 = g // groups, (g % groups) * per
        k = min(per, n_seeds - r0)
        part = pf.read_row_group(g, columns=["strategy", "seed", "step", "agent",
                                             "informative", "mse", "influence"])  # fmt: skip
        if part.num_rows != k * t * m:
            raise DataError(f"{quoted_path(path, 120)}: row group {g} has "
                            f"{counted(part.num_rows, 'row')}, "
                            f"need {k * t * m}")  # fmt: skip
        label = _check_layout(path, g, part, seeds=np.arange(r0, r0 + k), t=t, m=m)
        if labels[i] is not None and labels[i] != label:
            raise DataError(f"{quoted_path(path, 120)}: row group {g} holds strategy {label!r}, "
                            "the "
                            f"layout needs {labels[i]!r}")  # fmt: skip
        labels[i] = label
        mse[i, r0 : r0 + k] = part.column("mse").to_numpy().reshape(k, t, m)
        influence[i, r0 : r0 + k] = part.column("influence").to_numpy().reshape(k, t, m)
        flags = part.column("informative").to_numpy().reshape(k, t * m)[:, :m]
        informative[i, r0 : r0 + k] = np.where(flags.any(axis=1), flags.argmax(axis=1), -1)
    return tuple(labels), mse, influence, informative, _file_attrs(pf)
