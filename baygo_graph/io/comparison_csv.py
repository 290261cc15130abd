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
    skip = _note_lines(path)
    labels, top, extra = _scan(path, chunksize, skip)
    shape = (len(labels), *(int(v) + 1 for v in top))
    check_budget(17 * int(np.prod(shape, dtype=object)), what=f"the arrays of {path}")
    mse, influence = np.full(shape, np.nan), np.full(shape, np.nan)
    informative = np.full(shape[:2], -1, dtype=np.int64)
    seen = np.zeros(shape, dtype=bool)
    where = {label: i for i, label in enumerate(labels)}
    for chunk in _chunks(path, chunksize, skip):
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


def _chunks(path, chunksize, skip, usecols=None):
    try:
        # closed when the caller stops early (a refusal, a first chunk only): a generator
        # left behind would leave the file open until collected (a ResourceWarning)
        with pd.read_csv(
            path, chunksize=chunksize, skiprows=skip, usecols=usecols,
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


def _scan(path, chunksize, skip):
    """First pass: labels in order of appearance, largest seed/step/agent, data source."""
    head = next(iter(_chunks(path, 1, skip)), pd.DataFrame()).columns
    repeated = [c for c in head if "." in c and c.rsplit(".", 1)[0] in head]
    if repeated:
        raise DataError(f"{path}: column {repeated[0].rsplit('.', 1)[0]!r} is repeated")
    missing = [c for c in COLUMNS if c not in head]
    if missing:
        raise DataError(f"{path}: no column(s) {missing}; expected Comparison.write_csv's table")
    cols = ["strategy", "seed", "step", "agent"] + [c for c in ("data", "synthetic") if c in head]
    labels, top, extra = {}, np.zeros(3, dtype=np.int64), {}
    for chunk in _chunks(path, chunksize, skip, usecols=cols):
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
