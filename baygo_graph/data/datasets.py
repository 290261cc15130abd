"""Data sets: the bodyfat CSV, its synthetic stand-in, and what callers pass as ``data``.

The bodyfat CSV is read from a path the caller gives, or from the environment
variable ``BAYGO_BODYFAT``; :func:`synthetic_bodyfat` stands in when no file is at
hand and is labelled synthetic wherever its results are shown. Every table is
checked (:class:`~baygo_graph.exceptions.DataError` naming the file, column and
row of a bad cell) before it becomes a :class:`Dataset`. The names here are
importable from :mod:`baygo_graph.data` too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._magic import packed_kind
from .._text import short_list, shorten
from .._validate import csv_header_names, read_csv_rows
from ..defaults import BODYFAT_ENV
from ..exceptions import DataError
from ..limits import check_budget, check_csv_budget

__all__ = [
    "BODYFAT_ENV",
    "FEATURE",
    "MAX_ABS_VALUE",
    "TARGET",
    "Dataset",
    "load_bodyfat",
    "resolve_data",
    "synthetic_bodyfat",
    "synthetic_samples",
]

#: Largest magnitude accepted in a data column: beyond it squares and sums of
#: squares lose all precision or overflow (no body measurement comes near).
MAX_ABS_VALUE = 1e12

#: Default feature and target columns (the paper's regression of body fat on abdomen).
FEATURE = "Abdomen"
TARGET = "BodyFat"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table of samples and where it came from.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per sample, with at least the feature and target columns.
    source : str
        Human-readable origin: the CSV path, ``"dataframe"``, or a synthetic label.
    synthetic : bool
        True for data made by :func:`synthetic_bodyfat`; every output says so.
    """

    frame: pd.DataFrame = field(repr=False)
    source: str
    synthetic: bool = False

    def __len__(self) -> int:
        return len(self.frame)


def load_bodyfat(path=None, *, columns=(FEATURE, TARGET)) -> Dataset:
    """Read the bodyfat CSV.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The CSV file. When omitted, the environment variable ``BAYGO_BODYFAT``
        names it.
    columns : sequence of str, default ("Abdomen", "BodyFat")
        Columns that must be present, numeric and free of missing values.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        When no path is given and ``BAYGO_BODYFAT`` is unset, when the file is
        missing or unreadable, or when a required column is absent, non-numeric
        or has missing cells. The message names the file and the problem.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "bodyfat.csv"
    >>> _ = p.write_text("BodyFat,Abdomen\\n12.3,85.2\\n6.1,83.0\\n25.3,87.9\\n")
    >>> ds = load_bodyfat(p)
    >>> len(ds), ds.synthetic, ds.frame.columns.tolist()
    (3, False, ['BodyFat', 'Abdomen'])
    """
    if path is None:
        path = os.environ.get(BODYFAT_ENV)
        if not path:
            raise DataError(
                f"no bodyfat file given: pass a path or set {BODYFAT_ENV}=/path/to/"
                "bodyfat.csv (or use synthetic_bodyfat())"
            )
    path = Path(path)
    frame = read_csv_table(path, what="bodyfat file")
    _check_columns(frame, columns, where=repr(str(path)))
    return Dataset(frame=frame, source=str(path))


def read_csv_table(path, *, what: str = "data file") -> pd.DataFrame:
    """The one reader of data CSVs (:func:`load_bodyfat`, ``load_csv``): budget checked
    before pandas reads the file, column names distinct (pandas would rename a repeat
    ``x`` to ``x.1``), every failure a :class:`DataError` naming the file as ``what``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = p.write_text("x,y,x\\n1,2,3\\n")
    >>> read_csv_table(p)
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.DataError: data file '...d.csv' is not a readable CSV: column name ...
    """
    path = Path(path)
    where = f"{what} {str(path)!r}"
    if not path.is_file():
        raise DataError(f"{where} does not exist")
    packed = packed_kind(path)
    if packed is not None:  # pandas would read inside it by its name (.tar, .gz, .zip)
        what, _, unpack = packed
        how = f"unpack it ({unpack}) and" if unpack else "write it as CSV and"
        raise DataError(f"{where} is {what}, not a CSV: {how} give the CSV file itself")
    try:
        check_csv_budget(path)  # BudgetError before pandas reads it (docs/formats.md)
        csv_header_names(path)  # repeated names: pandas would rename them
    except (UnicodeDecodeError, OSError, ValueError) as e:
        raise DataError(f"{where} is not a readable CSV: {shorten(e, 300)}") from None
    try:  # the file's own bytes, whatever its name ends with: what the checks above read
        return read_csv_rows(path, compression=None)
    except (ValueError, UnicodeDecodeError, OSError) as e:  # pandas' errors are ValueErrors
        raise DataError(f"{where} is not a readable CSV: {shorten(e, 300)}") from e


def _check_columns(frame: pd.DataFrame, columns, *, where: str) -> None:
    for col in columns:
        if col not in frame.columns:
            raise DataError(
                f"{where} has no column {shorten(repr(col), 80)} (columns: "
                f"{short_list(frame.columns, 10)})"
            )
        column = frame[col]
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in "fiu":  # numbers already
            numbers = column.to_numpy(dtype=float)
            missing = np.isnan(numbers)
            if missing.any():
                row = int(np.flatnonzero(missing)[0])
                raise DataError(f"{where}: column {col!r} has a missing value at row {row}")
            _check_range(numbers, col, where=where)
            continue
        values = pd.to_numeric(column, errors="coerce")
        bad = values.isna() & column.notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"{where}: column {col!r} has a non-numeric cell "
                f"{frame[col].iloc[row]!r} at row {row}"
            )
        if values.isna().any():
            row = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise DataError(f"{where}: column {col!r} has a missing value at row {row}")
        _check_range(values.to_numpy(dtype=float), col, where=where)


def _check_range(numbers: np.ndarray, col, *, where: str) -> None:
    bad = ~np.isfinite(numbers) | (np.abs(numbers) > MAX_ABS_VALUE)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{where}: column {col!r} has value {float(numbers[row])!r} at row {row}: values "
            f"must be finite numbers of magnitude <= {MAX_ABS_VALUE:g}"
        )


#: Samples of the default synthetic data (the real data's size).
SYNTHETIC_SAMPLES = 252


def synthetic_samples(agents: int) -> int:
    """Samples the synthetic data needs for ``agents`` agents: ``max(252, 10 M)``.

    About 18% of the synthetic samples fall in the non-informative agents'
    feature interval after the test split, so 10 samples per agent leave each
    of them one or two training samples on average; up to 25 agents this is the
    real data's size, 252 (our choice, not the paper's).

    Examples
    --------
    >>> synthetic_samples(12), synthetic_samples(200)
    (252, 2000)
    """
    return max(SYNTHETIC_SAMPLES, 10 * int(agents))


def synthetic_bodyfat(n: int = SYNTHETIC_SAMPLES, *, rng=0) -> Dataset:
    """Make a synthetic stand-in for the bodyfat data.

    The model mimics the real data's marginal and linear fit:
    ``Abdomen ~ N(92.6, 10.8^2)`` clipped to [65, 150] cm and
    ``BodyFat = 0.631 * Abdomen - 39.28 + N(0, 4.88^2)`` clipped to [0, 50] %.
    Only these two columns are made. The result is labelled ``synthetic``.

    Parameters
    ----------
    n : int, default 252
        Number of samples.
    rng : int, numpy.random.Generator or None, default 0
        Seed or generator. The default makes the same data set every time, so
        runs over many seeds share one synthetic data set, as they would a file.

    Returns
    -------
    Dataset
        With ``synthetic=True``.

    Examples
    --------
    >>> ds = synthetic_bodyfat(100, rng=1)
    >>> ds.synthetic, len(ds), list(ds.frame.columns)
    (True, 100, ['Abdomen', 'BodyFat'])
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 10:
        raise ValueError(f"n must be an integer >= 10, got {n!r}")
    # two columns, their draws and the frame's copy: 6 float64 values a sample at most
    check_budget(
        48 * int(n),
        what=f"the synthetic data of {int(n)} samples",
        advice="ask for fewer samples (--samples; its default is 10 per agent)",
    )
    rng = np.random.default_rng(rng)
    abdomen = np.clip(rng.normal(92.6, 10.8, n), 65.0, 150.0)
    bodyfat = np.clip(0.631 * abdomen - 39.28 + rng.normal(0.0, 4.88, n), 0.0, 50.0)
    frame = pd.DataFrame({FEATURE: abdomen.round(1), TARGET: bodyfat.round(1)})
    return Dataset(frame=frame, source=f"synthetic (n={n})", synthetic=True)


def resolve_data(data=None, *, columns=(FEATURE, TARGET)) -> Dataset:
    """Turn what a caller passes as ``data`` into a :class:`Dataset`.

    Parameters
    ----------
    data : str, os.PathLike, pandas.DataFrame, Dataset or None
        A CSV path, a table with the bodyfat column names, a ready ``Dataset``,
        or None: the file named by ``BAYGO_BODYFAT`` if it is set (a
        :class:`DataError` if it names no file), else the synthetic data of
        :func:`synthetic_bodyfat` (labelled so).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> import pandas as pd
    >>> resolve_data(pd.DataFrame({"Abdomen": [80.0, 90.0], "BodyFat": [10.0, 20.0]})).source
    'dataframe'
    """
    if isinstance(data, Dataset):
        _check_columns(data.frame, columns, where=data.source)
        return data
    if isinstance(data, pd.DataFrame):
        _check_columns(data, columns, where="the data frame")
        return Dataset(frame=data, source="dataframe")
    if isinstance(data, str | os.PathLike):
        return load_bodyfat(data, columns=columns)
    if data is None:
        env = os.environ.get(BODYFAT_ENV)
        if env:  # set but wrong is an error, not a silent fall-back to synthetic data
            if not Path(env).is_file():
                raise DataError(f"{BODYFAT_ENV}={env!r} does not name an existing file")
            return load_bodyfat(env, columns=columns)
        return synthetic_bodyfat()
    raise TypeError(
        f"data must be a CSV path, a pandas DataFrame, a Dataset or None, got {type(data).__name__}"
    )
