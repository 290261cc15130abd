"""Per-step results as Parquet: compact, exact, read back by columns or by run.

:func:`write_results_parquet` writes a
:class:`~baygo_graph.analysis.Comparison` as the tidy table of
:meth:`~baygo_graph.analysis.Comparison.to_frame` (one row per strategy, seed,
step and agent), one Parquet row group per run, so memory stays that of one
run's rows. Columns and types:

- ``strategy``: dictionary-encoded (pandas ``category``);
- ``seed``, ``agent``: int16 (int32 beyond 32,767), ``step``: int32;
- ``informative``: bool;
- ``mse``, ``influence``: float64, exactly the values computed (NaN where the
  influence is undefined), with byte-stream-split encoding and zstd.

About 5 bytes per row (the CSV of ``Comparison.write_csv`` takes 70-80, with 6
significant digits). :func:`load_results` reads some columns or strategies
only; :meth:`baygo_graph.analysis.Comparison.read_parquet` rebuilds the
``Comparison`` one row group at a time. pandas (``read_parquet``), polars and
DuckDB read the file directly.
Needs pyarrow: ``pip install "baygo-graph[parquet]"``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .atomic import atomic_write

__all__ = ["COLUMNS", "read_result_arrays", "load_results", "write_results_parquet"]

#: The columns of a results file, in order.
COLUMNS = ("strategy", "seed", "step", "agent", "informative", "mse", "influence")
_META = b"baygo.results"


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'Parquet results need pyarrow: pip install "baygo-graph[parquet]" '
            "(or write CSV with Comparison.write_csv)"
        ) from exc
    return pa, pq


def _int_type(pa, largest: int):
    return pa.int16() if largest <= np.iinfo(np.int16).max else pa.int32()


def _schema(pa, n_seeds: int, n_agents: int, meta: dict):
    return pa.schema(
        [
            ("strategy", pa.dictionary(pa.int16(), pa.string())),
            ("seed", _int_type(pa, n_seeds - 1)),
            ("step", pa.int32()),
            ("agent", _int_type(pa, n_agents - 1)),
            ("informative", pa.bool_()),
            ("mse", pa.float64()),
            ("influence", pa.float64()),
        ],
        metadata={_META: json.dumps(meta).encode("utf-8")},
    )


def write_results_parquet(comparison, path, *, compression_level: int = 3) -> Path:
    """Write a ``Comparison``'s per-step results to a Parquet file (atomically).

    Parameters
    ----------
    comparison : Comparison
        From ``compare(..., tidy=False)``.
    path : str or pathlib.Path
        The file to write (its folder is created).
    compression_level : int, default 3
        zstd level (1-22): higher is smaller and slower.

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
    pa, pq = _pyarrow()
    n_s, n_seeds, t, m = comparison.mse.shape
    labels = list(comparison.strategies)
    attrs = {k: v for k, v in comparison.attrs.items() if _jsonable(v)}
    schema = _schema(pa, n_seeds, m, {"shape": [n_s, n_seeds, t, m], "attrs": attrs})
    dictionary = pa.array(labels, type=pa.string())
    step = np.repeat(np.arange(t, dtype=np.int32), m)
    agent = np.tile(np.arange(m), t)

    def write(fh):
        with pq.ParquetWriter(
            fh,
            schema,
            compression="zstd",
            compression_level=compression_level,
            use_dictionary=["strategy", "seed", "step", "agent", "informative"],
            use_byte_stream_split=["mse", "influence"],
        ) as writer:
            for i in range(n_s):
                codes = pa.array(np.full(t * m, i, dtype=np.int16))
                strategy = pa.DictionaryArray.from_arrays(codes, dictionary)
                for r in range(n_seeds):
                    columns = [
                        strategy,
                        pa.array(np.full(t * m, r), type=schema.field("seed").type),
                        pa.array(step),
                        pa.array(agent, type=schema.field("agent").type),
                        pa.array(agent == int(comparison.informative[i, r])),
                        pa.array(np.asarray(comparison.mse[i, r], dtype=np.float64).ravel()),
                        pa.array(np.asarray(comparison.influence[i, r], dtype=np.float64).ravel()),
                    ]
                    writer.write_table(pa.Table.from_arrays(columns, schema=schema))

    return atomic_write(path, write)


def _jsonable(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _open(path):
    pa, pq = _pyarrow()
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no results file at {str(path)!r}")
    pf = pq.ParquetFile(path)
    names = tuple(pf.schema_arrow.names)
    if names != COLUMNS:
        raise ValueError(f"{str(path)!r} is not a results file: columns {names}, need {COLUMNS}")
    return pf


def _label(pf, group: int) -> str:
    """The strategy of row group ``group`` (one run per row group)."""
    strategy = pf.read_row_group(group, columns=["strategy"]).column(0).chunk(0)
    return strategy.dictionary[strategy.indices[0].as_py()].as_py()


def load_results(path, columns=None, *, strategies=None):
    """Read a results file (or some of its columns or strategies) as a pandas DataFrame.

    Parameters
    ----------
    path : str or pathlib.Path
    columns : sequence of str, optional
        Columns to read (default all, :data:`COLUMNS`); only these are decoded.
    strategies : sequence of str, optional
        Keep the rows of these strategies only (whole row groups are skipped).

    Returns
    -------
    pandas.DataFrame
        ``strategy`` as a categorical, integer columns as stored (int16/int32).
    """
    pf = _open(path)
    cols = list(COLUMNS if columns is None else columns)
    unknown = sorted(set(cols) - set(COLUMNS))
    if unknown:
        raise ValueError(f"columns must be among {COLUMNS}, got {unknown}")
    if strategies is None:
        table = pf.read(columns=cols)
    else:
        wanted = set(strategies)
        groups = [g for g in range(pf.num_row_groups) if _label(pf, g) in wanted]
        table = pf.read_row_groups(groups, columns=cols)
    return table.to_pandas()


def read_result_arrays(path):
    """``(labels, mse, influence, informative, attrs)`` of a results file, read one run
    (row group) at a time: :meth:`baygo_graph.analysis.Comparison.read_parquet` builds
    the ``Comparison`` from them (this layer never imports analysis).

    The arrays are exactly those written (float64, bit for bit).
    """
    pf = _open(path)
    meta = json.loads(pf.schema_arrow.metadata[_META])
    n_s, n_seeds, t, m = meta["shape"]
    if pf.num_row_groups != n_s * n_seeds:
        raise ValueError(f"{str(path)!r}: {pf.num_row_groups} row groups, need {n_s * n_seeds}")
    mse = np.empty((n_s, n_seeds, t, m))
    influence = np.empty_like(mse)
    informative = np.empty((n_s, n_seeds), dtype=np.int64)
    labels = [None] * n_s
    for g in range(pf.num_row_groups):
        i, r = divmod(g, n_seeds)
        part = pf.read_row_group(g)
        labels[i] = _label(pf, g)
        mse[i, r] = part.column("mse").to_numpy().reshape(t, m)
        influence[i, r] = part.column("influence").to_numpy().reshape(t, m)
        flags = part.column("informative").to_numpy()[:m]
        informative[i, r] = int(np.flatnonzero(flags)[0]) if flags.any() else -1
    return tuple(labels), mse, influence, informative, dict(meta["attrs"])
