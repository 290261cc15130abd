"""Numbers as text: one formatter for Markdown and terminal tables, one for JSON.

Shared by the reproduction's report, the analysis report and the CLI, so that a
missing value, an integer count and a float print the same way everywhere.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import numpy as np

from ._text import markdown_cell
from .defaults import BODYFAT_ENV

__all__ = [
    "JSON_CONVENTIONS",
    "format_number",
    "json_clean",
    "json_default",
    "json_number",
    "markdown_table",
    "step_text",
    "synthetic_banner",
]

#: How every JSON output writes a value that is no finite number (json_clean).
JSON_CONVENTIONS = (
    'null: undefined (NaN); "inf" / "-inf": an infinite value (a step never reached '
    "within the run, an interval with no bound on that side)"
)


def format_number(x, spec: str = ".4g", *, missing: str = "n/a") -> str:
    """``x`` as text: ``missing`` for None/NaN/inf, integers as themselves, floats with ``spec``.

    Examples
    --------
    >>> format_number(1.23456), format_number(7), format_number(float("nan"))
    ('1.235', '7', 'n/a')
    >>> format_number(0.5, ".2f", missing="-"), format_number(None, missing="-")
    ('0.50', '-')
    """
    if x is None:
        return missing
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return str(int(x))
    x = float(x)
    if not math.isfinite(x):
        return missing
    return format(x, spec)


def step_text(x, spec: str = ".4g", *, bound: bool = False) -> str:
    """A step (a median consensus step, steps to Cen, an interval's side) as text, one
    word per meaning in every teller: ``"never"`` for +inf (not reached within the run;
    JSON ``"inf"``), ``"no bound"`` for a side of an interval at +-inf (``bound``),
    ``"n/a"`` for NaN or None (undefined; JSON ``null``), else the number.

    Examples
    --------
    >>> step_text(3.0), step_text(2.5), step_text(float("inf")), step_text(float("nan"))
    ('3', '2.5', 'never', 'n/a')
    >>> step_text(-float("inf"), bound=True), step_text(float("inf"), bound=True)
    ('no bound', 'no bound')
    """
    if x is None:
        return "n/a"
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "no bound" if bound else ("never" if x > 0 else "n/a")
    return format_number(int(x) if x.is_integer() else x, spec)


def json_number(x, *, integer: bool = False):
    """A JSON-safe number: None for None/NaN/inf, else a Python float (int with ``integer``).

    Examples
    --------
    >>> json_number(np.float64(0.25)), json_number(float("nan")), json_number(3.0, integer=True)
    (0.25, None, 3)
    """
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return None
    return int(x) if integer else x


def json_clean(obj):
    """``obj`` made standard JSON, recursively (dict keys as str): NaN (undefined) becomes
    None (``null``), an infinity the string ``"inf"`` or ``"-inf"`` (never ``null``,
    which would read as missing).

    Examples
    --------
    >>> json_clean({"a": [1.0, float("nan"), float("inf")], 2: np.float32(0.5)})
    {'a': [1.0, None, 'inf'], '2': 0.5}
    """
    if isinstance(obj, dict):
        return {str(k): json_clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_clean(v) for v in obj]
    if isinstance(obj, float | np.floating):
        if np.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return float(obj) if np.isfinite(obj) else None
    return obj


def json_default(o):
    """``default=`` of :func:`json.dumps`: numpy scalars and arrays, paths.

    Examples
    --------
    >>> import json
    >>> json.dumps({"n": np.int64(3), "v": np.arange(2)}, default=json_default)
    '{"n": 3, "v": [0, 1]}'
    """
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if not np.isfinite(o) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON-serialisable: {type(o).__name__}")


def markdown_table(frame, *, index=True, digits=4, pad=False) -> str:
    """A GitHub-flavoured Markdown table of a DataFrame (no extra dependency).

    Floats are written with :func:`format_number` (``digits`` significant
    digits, ``n/a`` when missing); every text (headers and index too) goes through
    :func:`baygo_graph._text.markdown_cell` (``|`` escaped, newlines made spaces). With ``pad``,
    every column is padded to its widest cell (for terminals).

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"a": [1.23456, None]}, index=["x", "y"])))
    |  | a |
    | --- | --- |
    | x | 1.235 |
    | y | n/a |
    >>> print(markdown_table(pd.DataFrame({"name": ["ab", "c"]}), index=False, pad=True))
    | name |
    | ---- |
    | ab   |
    | c    |
    """

    def cell(v):
        if isinstance(v, float | np.floating):
            return format_number(float(v), f".{digits}g")
        if v is None:
            return "n/a"
        return markdown_cell(v)  # "|" and newlines in user text cannot break the table

    head = [markdown_cell(c) for c in ([frame.index.name or ""] if index else [])]
    head += [markdown_cell(c) for c in frame.columns]
    body = [
        ([markdown_cell(idx)] if index else []) + [cell(v) for v in row]
        for idx, row in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    rows = [head, ["---"] * len(head), *body]
    if pad:
        widths = [max(len(r[i]) for r in (head, *body)) for i in range(len(head))]
        rows[1] = ["-" * w for w in widths]
        rows = [[c.ljust(w) for c, w in zip(r, widths, strict=True)] for r in rows]
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def synthetic_banner(
    synthetic: bool, *, saved: bool = False, model: str | None = None, source: str | None = None
) -> str:
    """The line every output carries when the data were synthetic ("" otherwise).

    ``saved``: the output reads something already made (a saved run, series or
    table) whose data were synthetic; the line then says so instead of asking for
    a data file this command does not take; ``model`` (the run's, when known) other than
    the bodyfat data's (``linear``, ``exact``) says the model's own synthetic data
    (``source``) instead of the bodyfat stand-in (hostile21 Z12).

    Examples
    --------
    >>> synthetic_banner(False)
    ''
    >>> synthetic_banner(True).split(":")[0]
    'NOTE'
    >>> "made from the synthetic" in synthetic_banner(True, saved=True)
    True
    >>> synthetic_banner(True, saved=True, model="logistic", source="synthetic labelled")
    "NOTE: SYNTHETIC DATA (this was made from the logistic model's synthetic data: synthetic labelled): re-make it with --data PATH to use real data."
    """  # noqa: E501
    if not synthetic:
        return ""
    if saved and model not in (None, "linear", "exact"):  # its own data, not the bodyfat's
        from ._text import console, shorten

        # a stranger's run file: its names said shortened, never whole (hostile21 Z17)
        model, source = (
            shorten(console(str(model)), 40),
            source and shorten(console(str(source)), 80),
        )
        return (
            f"NOTE: SYNTHETIC DATA (this was made from the {model} model's synthetic data"
            f"{': ' + source if source else ''}): re-make it with --data PATH to use "
            "real data."
        )
    if saved:
        return (
            "NOTE: SYNTHETIC DATA (this was made from the synthetic stand-in for the bodyfat "
            f"data): re-make it with --data PATH (or ${BODYFAT_ENV} set) to use real data."
        )
    return (
        f"NOTE: SYNTHETIC DATA (no data file given: no --data, no ${BODYFAT_ENV}): pass "
        f"--data PATH (or, for the bodyfat data, set {BODYFAT_ENV}) to use real data."
    )
