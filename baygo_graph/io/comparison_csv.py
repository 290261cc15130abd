"""A comparison's tidy CSV: written part by part, read back into per-run arrays, in
bounded memory (the file format of :class:`~baygo_graph.analysis.Comparison`).

:func:`write_frames` writes the table one part (one run's rows) at a time,
atomically.

The table of :meth:`~baygo_graph.analysis.Comparison.write_csv` (or of
``to_frame().to_csv``) is read twice in chunks: first the labels and the
largest seed, step and agent (so the arrays' size is known and checked
against the memory budget before anything of that size exists), then the
values, each cell checked. Every strategy must have every seed, step and
agent exactly once: the arrays of a :class:`~baygo_graph.analysis.Comparison`
have no room for a missing or repeated row.
"""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd

from .._text import counted, csv_frame, csv_uncell
from .._validate import check_int
from ..exceptions import DataError
from ..limits import check_budget
from .atomic import atomic_write, check_target

__all__ = ["COLUMNS", "read_arrays", "write_frames"]

#: Columns the table must have (``influence``, ``data`` and ``synthetic`` are optional).
COLUMNS = ("strategy", "seed", "step", "agent", "informative", "mse")
#: Largest seed, step or agent index accepted (far above any budget).
MAX_INDEX = 2**40
_TRUE = {"true": True, "1": True, "false": False, "0": False}
_NAN = ["", "nan", "NaN", "NA"]


def write_frames(
    path, frames, *, float_format: str = "%.6g", comment: str | None = None, overwrite: bool = False
):
    """Write the DataFrames ``frames`` (same columns) as one CSV table, atomically.

    The header comes from the first frame; memory stays that of one frame.
    ``comment``: a first line ``# comment`` (e.g. the synthetic-data note), which
    the package's readers skip. A file already at ``path`` is replaced only with
    ``overwrite=True`` (else :class:`FileExistsError`, before the first frame).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> parts = (pd.DataFrame({"a": [i], "b": [0.5 * i]}) for i in range(2))
    >>> write_frames(p, parts).read_text().splitlines()
    ['a,b', '0,0', '1,0.5']

    Returns
    -------
    pathlib.Path
    """

    def write(fh):
        if comment:
            fh.write(f"# {' '.join(str(comment).split())}\n".encode())
        for i, part in enumerate(frames):
            text = csv_frame(part).to_csv(  # labels cannot be spreadsheet formulas
                index=False, header=i == 0, float_format=float_format
            )
            fh.write(text.encode("utf-8"))

    check_target(path, overwrite=overwrite)  # before the first frame is made
    return atomic_write(path, write, overwrite=overwrite)


def read_arrays(path, *, chunksize: int = 1_000_000):
    """``(labels, mse, influence, informative, attrs)`` of a comparison's tidy CSV.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("strategy,seed,step,agent,informative,mse\\n01,0,0,0,True,0.5\\n")
    >>> labels, mse, influence, informative, attrs = read_arrays(p)
    >>> labels, mse.shape, float(mse[0, 0, 0, 0]), informative.tolist()
    (['01'], (1, 1, 1, 1), 0.5, [[0]])
    """
    chunksize = check_int("chunksize", chunksize, minimum=1)
    compression = check_results_text(path, chunksize=chunksize)
    skip = _note_lines(path)
    labels, top, extra = _scan(path, chunksize, skip, compression)
    shape = (len(labels), *(int(v) + 1 for v in top))
    check_budget(17 * int(np.prod(shape, dtype=object)), what=f"the arrays of {path}")
    mse, influence = np.full(shape, np.nan), np.full(shape, np.nan)
    informative = np.full(shape[:2], -1, dtype=np.int64)
    seen = np.zeros(shape, dtype=bool)
    where = {label: i for i, label in enumerate(labels)}
    for chunk in _chunks(path, chunksize, skip, compression=compression):
        idx = (chunk["strategy"].map(where).to_numpy(), *_positions(chunk, path))
        flat = np.ravel_multi_index(idx, shape)
        if len(np.unique(flat)) != len(flat) or seen.reshape(-1)[flat].any():
            raise DataError(f"{path}: a (strategy, seed, step, agent) row is repeated")
        seen.reshape(-1)[flat] = True
        mse[idx] = _floats(chunk, "mse", path)
        if "influence" in chunk:
            influence[idx] = _floats(chunk, "influence", path)
        _informative(informative, idx, _flags(chunk["informative"], "informative", path), path)
    if not seen.all():
        missing = int(seen.size - np.count_nonzero(seen))
        raise DataError(
            f"{path}: the table is not complete: {missing} of {counted(seen.size, 'row')} are "
            "missing "
            "(every strategy needs every seed, step and agent)"
        )
    attrs = {"strategies": list(labels), "seeds": shape[1], "steps": shape[2],
             "agents": shape[3], **extra}  # fmt: skip
    return labels, mse, influence, informative, attrs


#: The longest line a results table may have (its rows are a few hundred characters).
RESULTS_LINE_BYTES = 1 << 20
#: Bytes pandas holds per byte of a chunk of text cells read as strings (measured ~5).
_CHUNK_BYTES_PER_BYTE = 8


def check_results_text(path, *, chunksize: int = 1_000_000) -> str | None:
    """The compression to read a CSV results table with (``"gzip"`` for a ``.gz`` file
    of gzip data, else None: the file's own bytes, never what pandas infers from a name
    such as ``.tar``), after checking what reading it will hold (hostile21 Z13: a 10 KB
    sparse ``results.tar`` and a 4 MB ``.csv.gz`` holding one 10^9-character line each
    took 2.2 GB under a 300 MB budget, and ended in a raw ArrowMemoryError).

    Raises DataError for an archive or other compressed data (naming its kind and how to
    unpack it) and for a line longer than :data:`RESULTS_LINE_BYTES`; BudgetError when a
    chunk of ``chunksize`` rows of its longest line would exceed the memory budget. One
    pass over the (decompressed) bytes.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("strategy,seed\\na,0\\n")
    >>> check_results_text(p) is None
    True
    """
    from .._magic import packed_kind
    from .._text import quoted_path

    packed = packed_kind(path)
    gz = packed is not None and packed[1] == ".gz" and str(path).lower().endswith(".gz")
    if packed is not None and not gz:
        what, _, unpack = packed
        how = f"unpack it ({unpack}) and give" if unpack else "give"
        raise DataError(f"{quoted_path(path, 120)} is {what}, not a results table: {how} "
                        "the results file itself")  # fmt: skip
    longest = line = total = 0
    lines = 1
    try:
        with (gzip.open if gz else open)(path, "rb") as fh:
            while block := fh.read(1 << 20):
                total += len(block)
                ends = block.count(b"\n")
                if ends:
                    first, last = block.index(b"\n"), block.rindex(b"\n")
                    longest = max(longest, line + first, _longest_inner(block, first, last))
                    line = len(block) - last - 1
                    lines += ends
                else:
                    line += len(block)
                longest = max(longest, line)
                if longest > RESULTS_LINE_BYTES:
                    raise DataError(
                        f"{quoted_path(path, 120)}: line {lines} is longer than "
                        f"{RESULTS_LINE_BYTES >> 20} MiB: not a results table"
                    )
    except (OSError, EOFError) as e:
        raise DataError(f"{quoted_path(path, 120)}: cannot be read: {e}") from None
    held = _CHUNK_BYTES_PER_BYTE * min(total, int(chunksize) * max(longest, 1))
    check_budget(held, what=f"reading {quoted_path(path, 120)} in chunks of its rows")
    return "gzip" if gz else None


def _longest_inner(block: bytes, first: int, last: int) -> int:
    """The longest line between the first and last line break of ``block``."""
    if first == last:
        return 0
    return max(len(x) for x in block[first + 1 : last].split(b"\n"))


def _note_lines(path) -> int:
    """How many leading lines start with ``#`` (the synthetic note of ``baygo compare``)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    n = 0
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.startswith("#") or n >= 1000:
                    break
                n += 1
    except (OSError, EOFError) as e:
        raise DataError(f"{path}: cannot be read: {e}") from None
    return n


def _chunks(path, chunksize, skip, usecols=None, *, compression=None):
    try:
        # closed when the caller stops early (a refusal, a first chunk only): a generator
        # left behind would leave the file open until collected (a ResourceWarning)
        with pd.read_csv(
            path, chunksize=chunksize, skiprows=skip, usecols=usecols, compression=compression,
            dtype=str, keep_default_na=False,  # every cell as text: no per-chunk guessing
            na_values={"mse": _NAN, "influence": _NAN},
        ) as reader:  # fmt: skip
            for chunk in reader:
                for col in ("strategy", "data"):  # written through _text.csv_frame
                    if col in chunk:
                        chunk[col] = chunk[col].map({v: csv_uncell(v) for v in chunk[col].unique()})
                yield chunk
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty") from None
    except (EOFError, OSError) as e:
        raise DataError(f"{path}: cannot be read: {e}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: not a CSV table: {str(e).splitlines()[0]}") from None


def _scan(path, chunksize, skip, compression=None):
    """First pass: labels in order of appearance, largest seed/step/agent, data source."""
    head = next(iter(_chunks(path, 1, skip, compression=compression)), pd.DataFrame()).columns
    repeated = [c for c in head if "." in c and c.rsplit(".", 1)[0] in head]
    if repeated:
        raise DataError(f"{path}: column {repeated[0].rsplit('.', 1)[0]!r} is repeated")
    missing = [c for c in COLUMNS if c not in head]
    if missing:
        raise DataError(f"{path}: no column(s) {missing}; expected Comparison.write_csv's table")
    cols = ["strategy", "seed", "step", "agent"] + [c for c in ("data", "synthetic") if c in head]
    labels, top, extra = {}, np.zeros(3, dtype=np.int64), {}
    for chunk in _chunks(path, chunksize, skip, usecols=cols, compression=compression):
        labels.update(dict.fromkeys(chunk["strategy"]))
        top = np.maximum(top, [p.max(initial=0) for p in _positions(chunk, path)])
        if "data" in chunk and len(chunk):
            extra.setdefault("data_source", str(chunk["data"].iloc[0]))
        if "synthetic" in chunk and len(chunk):
            extra["synthetic"] = extra.get("synthetic", False) or bool(
                _flags(chunk["synthetic"], "synthetic", path).any()
            )
    if not labels:
        raise DataError(f"{path}: the table has no rows")
    return list(labels), top, extra


def _positions(chunk: pd.DataFrame, path) -> tuple:
    """The seed, step and agent columns as int arrays in [0, MAX_INDEX) (DataError if not)."""
    out = []
    for col in ("seed", "step", "agent"):
        values = pd.to_numeric(chunk[col], errors="coerce").to_numpy(float)
        with np.errstate(invalid="ignore"):  # inf % 1 is NaN: refused below, no warning
            ok = np.isfinite(values) & (values >= 0) & (values % 1 == 0) & (values < MAX_INDEX)
        if not ok.all():
            bad = chunk[col].to_numpy()[~ok][0]
            raise DataError(
                f"{path}: column {col!r} holds {str(bad)!r}, not an integer in [0, 2^40)"
            )
        out.append(values.astype(np.int64))
    return tuple(out)


def _floats(chunk: pd.DataFrame, col: str, path) -> np.ndarray:
    try:
        return pd.to_numeric(chunk[col], errors="raise").to_numpy(float)
    except (ValueError, TypeError) as e:
        raise DataError(f"{path}: column {col!r} holds a non-number ({e})") from None


def _flags(values: pd.Series, col: str, path) -> np.ndarray:
    """A boolean column read as text: True/False (any case) or 1/0; DataError otherwise."""
    text = values.astype(str).str.strip().str.lower()
    mapped = text.map(_TRUE)
    if mapped.isna().any():
        bad = values[mapped.isna()].iloc[0]
        raise DataError(f"{path}: column {col!r} holds {str(bad)!r}, not True or False")
    return mapped.to_numpy(dtype=bool)


def _informative(informative: np.ndarray, idx: tuple, flagged: np.ndarray, path) -> None:
    """Record each run's informative agent; DataError when a run flags two agents."""
    s, r, a = idx[0][flagged], idx[1][flagged], idx[3][flagged]
    run = s * informative.shape[1] + r
    pairs = np.unique(np.column_stack([run, a]), axis=0)
    prev = informative.reshape(-1)[pairs[:, 0]]
    if len(np.unique(pairs[:, 0])) != len(pairs) or ((prev >= 0) & (prev != pairs[:, 1])).any():
        raise DataError(f"{path}: a run flags more than one informative agent")
    informative.reshape(-1)[pairs[:, 0]] = pairs[:, 1]
