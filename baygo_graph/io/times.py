"""Times of an edge list, read by a stated rule and never guessed (``docs/formats.md``).

A time column becomes one step index per row: ``step = (time - origin) // bin``.

* **Integers** (or text cells that are all integers) are counted as written: ``bin``
  an int (default 1). They are Unix times only when said so, with
  ``time_format="unix"`` (seconds; ``"unix-ms"``, ``"unix-us"``, ``"unix-ns"``),
  which lets a duration ``bin`` such as ``"1D"`` bin them (UTC clock).
* **Timestamps**: a datetime column, or text in ISO 8601 (``2024-05-01``,
  ``2024-05-01 08:00``, ``2024-05-01T08:00:00+02:00``). Any other text (``12/01/2024``:
  1 December or 12 January?) is refused in one line unless ``time_format`` gives its
  strftime format (``"%d/%m/%Y"``). They need ``bin``: a fixed duration (``"15min"``,
  ``"6h"``, ``"1D"``, ``"7D"``) or a calendar period (``"1W"``: weeks Monday to
  Sunday; ``"W-WED"``: weeks ending on Wednesday; ``"MS"``/``"ME"``: calendar months;
  ``"YS"``/``"YE"``: years; a leading number takes several, ``"2W"``).
* **Clock**: bins follow the local clock the times are written in. A time-zone-aware
  column (``Europe/Paris``) and text with a UTC offset (``+02:00``) are binned on
  their wall-clock time, so ``1D`` bins run from local midnight to local midnight
  across a daylight-saving change (a 23- or 25-hour day is one step); naive times
  are taken as written. A duration that is not a whole number of days is laid on the
  instants, on the clock of the earliest time, so the repeated hour of a fall-back
  never reverses two events (on one UTC offset both rules agree).
* **Origin** (``origin=``): ``"first"`` (default) starts step 0 at the first time
  (integers), or lays the bins from local midnight of the first time's day
  (durations), step 0 being the bin that holds the first time; ``"epoch"``
  starts the bins at multiples of ``bin`` since 0 (integers) or 1970-01-01 00:00
  (durations), and step 0 is the bin of the first time. Calendar periods start on
  their calendar boundary either way. ``"first"`` is the default because a weekly
  ``"7D"`` bin then starts on the first day of the data, not on the Thursday
  1970-01-01 fell on; for bins that divide a day (``"6h"``, ``"1D"``) both agree.

Every refusal is one line naming the column and, for a bad cell, its row.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime
import re
import warnings
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pandas as pd

from .. import _text
from .._validate import INTEGER_TEXT, NUMBER_TEXT
from ..exceptions import CellError, TimeBinWarning

__all__ = [
    "MANY_STEPS",
    "ORIGINS",
    "UNIX_FORMATS",
    "TimeAxis",
    "binned_times",
    "check_bin",
    "check_time_format",
    "time_steps",
]

#: The values of ``origin=``.
ORIGINS = ("first", "epoch")
#: ``time_format`` values for Unix times: the unit of one count.
UNIX_FORMATS = {"unix": "s", "unix-ms": "ms", "unix-us": "us", "unix-ns": "ns"}
_SIGN = np.uint64(1 << 63)
_DAY_NS = 86_400 * 10**9
_INTEGER = INTEGER_TEXT
#: A trailing UTC offset after a clock time: ``08:00+02:00``, ``08:00:00.5Z``.
_OFFSET = r"^(.*\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)$"
#: What looks like an offset or a zone that _OFFSET does not read (after an hour-only or
#: basic-form time, a lower-case z, a bracketed zone): named, never guessed
_ODD_OFFSET = r"(?:[T ]\d{2}(?::?\d{2}){0,2}(?:[.,]\d+)?[+-]\d{2}(?::?\d{2})?|\d[zZ]|\])$"
_OFFSET_FORM = "write each time as 2024-05-01T08:00+02:00, or 08:00Z"
#: Reduced-precision ISO dates: a year, a year and month (their own precision).
_REDUCED = {"a year": r"\d{4}", "a year and month": r"\d{4}-\d{2}"}
#: ISO 8601 forms that are not read, and why (instead of "not ISO 8601").
_NOT_READ = (
    (r"\d{2}:\d{2}:60(?!\d)", "a leap second (:60), which timestamps here cannot hold: "
     "write 23:59:59 or the next second"),
    (r"^\d{4}-?W\d{2}", "an ISO 8601 week date, not read as one: give "
     "time_format='%G-W%V-%u' (CLI --time-format)"),
    (r"\[[^\]]*\]$", "a time with a zone name in brackets (Java's form), which is not "
     "read: keep the UTC offset only (2024-05-01T08:00+02:00)"),
    (r"^[+-]?\d{4}-\d{3}(?:$|[T ])", "an ISO 8601 ordinal date (year and day), not read as "
     "one: give time_format='%Y-%j' (CLI --time-format)"),
    (r"[T ]24:00(?::00(?:\.0+)?)?(?:$|Z|[+-])", "24:00 (the end of a day), not read: write "
     "00:00 of the next day"),
    (r"^\d{4}-\d{2}-\d{2}t\d", "a date and a time joined by a lower-case 't', not read: "
     "write 'T' or a space"),
    (r"\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?![AaPp]\.?[Mm]\.?$)[A-Za-z]{2,}$",
     "a time with a zone name (UTC), which is not read: write its UTC offset "
     "(2024-05-01T08:00+02:00, Z for UTC)"),
)  # fmt: skip
#: A date written as ISO 8601 says (year-month-day), whatever follows.
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?=$|[Tt ])")
#: Text that looks like a day/month date (the one ambiguity the ISO hint names).
_DAY_MONTH = re.compile(r"^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}(?:$|[ T])")
#: Words pandas reads as the machine's clock: never a time of a file.
_CLOCK_WORDS = ("now", "today")


_cell = _text.quoted  # a cell quoted for a message, both quotes kept


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


def _first_bad(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


#: ASCII whitespace around a number (the fast path and the exact one strip the same).
_BLANK = " \t\n\r\f\v"
#: A number written in decimal, with an optional fraction and exponent (ASCII only).
_NUMBER = NUMBER_TEXT
_INT64 = (-(2**63), 2**63 - 1)
_WHOLE_HINT = (
    "is not an integer time: times are never rounded; give whole numbers in a finer unit "
    "(e.g. milliseconds, time_format='unix-ms'), or timestamps with a bin (CLI --bin 1h)"
)


def _exact(value):
    """The exact integer a time cell holds, or the reason it holds none (a str): an int,
    a whole float, or text of an integer or a decimal number (``1e3``, ``3.0``) that is
    whole, read exactly (never through a float)."""
    if isinstance(value, bool | np.bool_):
        return "is a boolean, not a time"
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, Decimal):  # a Parquet decimal column
        if not value.is_finite():
            return _WHOLE_HINT
        value = str(value)
    if isinstance(value, float | np.floating):
        if not np.isfinite(value) or value != np.round(value):
            return _WHOLE_HINT
        return int(value)
    if not isinstance(value, str):
        return f"is a {type(value).__name__}, not a number"
    text = value.strip(_BLANK)
    if _INTEGER.fullmatch(text):
        return int(text)
    if not _NUMBER.fullmatch(text):
        return "is not a number"
    number = Decimal(text)
    if number.adjusted() > 19:  # ten digits past int64: never expanded (1e999999999)
        return "is outside the 64-bit integer range of times"
    if number != number.to_integral_value():
        return _WHOLE_HINT
    return int(number)


def _refuse(name: str, row: int, cell, why: str):
    cell = cell.item() if isinstance(cell, np.generic) else cell
    raise CellError(f"time column {name!r} ", row, f": {_cell(cell)} {why}")


def _int_times(values: pd.Series, name: str, why: str = "") -> np.ndarray:
    """The column's integer times (int64), read exactly: typed integers as they are,
    whole floats, and text of whole numbers (never through a float); anything else,
    and values outside int64, refused in one line naming the column and the row
    (``why``: what made the column one of numbers, said after "is not a number")."""
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else values.to_numpy().dtype.kind
    if kind in "iu":
        ints = values.to_numpy()
        if kind == "u" and len(ints) and ints.max() > _INT64[1]:
            row = int(np.argmax(ints > _INT64[1]))
            _refuse(name, row, values.iloc[row], "is outside the 64-bit integer range of times")
        return ints.astype(np.int64)
    if kind == "f":
        t = values.to_numpy(dtype=float)
        bad = ~np.isfinite(t) | (t != np.round(t))
        if bad.any():
            row = _first_bad(bad)
            _refuse(name, row, float(t[row]), _WHOLE_HINT)
        out = (t < -(2.0**63)) | (t >= 2.0**63)
        if out.any():
            row = _first_bad(out)
            _refuse(name, row, float(t[row]), "is outside the 64-bit integer range of times")
        return t.astype(np.int64)
    fast = _text_ints(values)
    if fast is not None:
        return fast
    ints = np.empty(len(values), dtype=np.int64)
    for row, cell in enumerate(values.tolist()):  # exact, one cell at a time
        v = _exact(cell)
        if isinstance(v, str):
            _refuse(name, row, cell, v + (why if v == "is not a number" else ""))
        if not _INT64[0] <= v <= _INT64[1]:
            _refuse(name, row, cell, "is outside the 64-bit integer range of times")
        ints[row] = v
    return ints


def _text_ints(values: pd.Series) -> np.ndarray | None:
    """A text column of plain integers (at most 18 digits) as int64, vectorised
    (pyarrow); None when some cell needs the exact reading of :func:`_exact`."""
    if pd.api.types.infer_dtype(values, skipna=False) != "string":
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(values.to_numpy(dtype=object), type=pa.string())
    if not pc.all(
        pc.match_substring_regex(arr, r"^[ \t\n\r\f\v]*[+-]?[0-9]{1,18}[ \t\n\r\f\v]*$")
    ).as_py():
        return None
    arr = pc.utf8_ltrim(pc.utf8_trim(arr, _BLANK), "+")
    return pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False)


def _is_number(value) -> bool:
    """Whether a time cell is a number (so its column is read as numbers)."""
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, int | float | np.integer | np.floating | Decimal):
        return True
    return isinstance(value, str) and _NUMBER.fullmatch(value.strip(_BLANK)) is not None


def _check_offsets(offset: pd.Series, values: pd.Series, name: str) -> None:
    """Refuse a UTC offset no clock has (beyond +-14:00, or minutes past 59), and a
    column where some times give an offset and others do not (those have no instant)."""
    given = offset.notna() & (offset != "Z")
    digits = offset[given].str.replace(":", "", regex=False)
    hours = digits.str[1:3].astype(int)
    minutes = digits.str[3:5].replace("", "0").astype(int)
    bad = ((hours * 60 + minutes > 14 * 60) | (minutes > 59)).to_numpy()
    if bad.any():
        row = int(np.flatnonzero(given.to_numpy())[_first_bad(bad)])
        raise CellError(
            f"time column {name!r} ",
            row,
            f": {_cell(values.iloc[row])} has the UTC offset "
            f"{offset.iloc[row]}, which no clock has (offsets run from -14:00 to +14:00)",
        )
    has = offset.notna().to_numpy()
    if has.any() and not has.all():
        row = _first_bad(has != has[0])
        bare = row if not has[row] else 0  # a time whose offset was not seen
        if re.search(_ODD_OFFSET, str(values.iloc[bare]).strip()):
            raise CellError(
                f"time column {name!r} ",
                bare,
                f": {_cell(values.iloc[bare])} gives its UTC offset in a form not read "
                f"({_OFFSET_FORM})",
            )
        this, first = ("has a", "has none") if has[row] else ("has no", "has one")
        raise CellError(
            f"time column {name!r} ",
            row,
            f": {_cell(values.iloc[row])} {this} UTC offset, while the column's first time, "
            f"{_cell(values.iloc[0])}, {first}: give every time a UTC offset, or none",
        )


def _one_precision(text: pd.Series, values: pd.Series, name: str) -> None:
    """Refuse a column mixing reduced-precision dates (``2025``, ``2024-05``) with others:
    ISO 8601 reads ``2025`` as 1 January 2025, which a damaged cell should not become."""
    for what, pattern in _REDUCED.items():
        short = text.str.fullmatch(pattern).to_numpy(dtype=bool)
        if short.any() and not short.all():
            row = _first_bad(short != short[0])
            first = "" if short[0] else "not "
            raise CellError(
                f"time column {name!r} ",
                row,
                f": {_cell(values.iloc[row])} mixes precisions: "
                f"the column's first time, {_cell(values.iloc[0])}, is {first}{what}; write "
                "every time to one precision",
            )


def _parse_text(values: pd.Series, name: str, time_format: str | None):
    """Text timestamps on their written (wall) clock: ISO 8601, or ``time_format``; and
    their UTC instants when every row gives its UTC offset (else None)."""
    text = values.astype(str).str.strip()
    finer = text.str.contains(r"[.,]\d{9}\d*[1-9]", regex=True).to_numpy(dtype=bool)
    if finer.any():  # pandas keeps nanoseconds and cuts the rest: never silently
        row = _first_bad(finer)
        raise CellError(
            f"time column {name!r} ",
            row,
            f": {_cell(values.iloc[row])} has digits below a "
            "nanosecond, the finest time kept: round the column to nanoseconds",
        )
    if time_format is None:
        parts = text.str.extract(_OFFSET, expand=True)  # wall clock: the offset dropped
        local, offset = parts[0], parts[1]
        _check_offsets(offset, values, name)
        _one_precision(text, values, name)
        text = local.where(local.notna(), text)
        try:
            stamps = pd.to_datetime(text, format="ISO8601", errors="coerce")
        except ValueError as e:  # offsets pandas reads but _OFFSET did not see
            if "timezone" not in str(e).lower():
                raise
            row = next((k for k, v in enumerate(values) if re.search(_ODD_OFFSET, str(v))), 0)
            raise CellError(
                f"time column {name!r} ",
                row,
                f": {_cell(values.iloc[row])} gives its UTC offset in a form not read "
                f"({_OFFSET_FORM})",
            ) from None
        hint = None  # said by _why_not_read: the day/month advice for day/month text only
    else:
        fmt, offset = time_format.strip(_BLANK), None  # as the cells: stripped
        if fmt.endswith("%z") and not fmt.endswith("%%z"):  # the written (wall) clock, as
            # for ISO text: the offset dropped
            parts = text.str.extract(r"^(.*?)\s*(Z|[+-]\d{2}(?::?\d{2})?)$", expand=True)
            offset = parts[1]
            _check_offsets(offset, values, name)
            text, fmt = parts[0].where(parts[0].notna(), text), fmt[:-2].rstrip()
        elif "z" in _directives(fmt):  # elsewhere: found where strptime finds it
            text, fmt, offset = _offset_inside(text, fmt, values, name)
        try:
            stamps = pd.to_datetime(text, format=fmt, errors="coerce")
        except (ValueError, re.error) as e:  # a bad directive, or one named twice
            why = str(e)
            if isinstance(e, re.error):
                why = "it names a directive twice (" + why.split(";")[0] + ")"
            raise ValueError(
                f"time_format={_cell(time_format)} is not a format pandas reads: "
                f"{_text.shorten(' '.join(why.split()), 80)}"
            ) from None
        hint = f"not a time of time_format={_cell(time_format)}"
    clock = text.str.lower().isin(_CLOCK_WORDS).to_numpy()  # pandas reads them as today
    bad = stamps.isna().to_numpy() | clock
    if bad.any():
        row = _first_bad(bad)
        cell = str(text.iloc[row])
        why = _why_not_read(cell, hint)
        raise CellError(f"time column {name!r} ", row, f": {_cell(values.iloc[row])} is {why}")
    index = pd.DatetimeIndex(stamps)
    index = index.tz_localize(None) if index.tz is not None else index
    return index, _instants(index, offset)


#: The directives pandas' (and Python's) strptime reads.
_STRPTIME = frozenset("aAbBcdfGHIjmMpSuUVwWxXyYzZ")
#: What to write for a directive of C's strftime that strptime does not read.
_INSTEAD = {
    "F": "%Y-%m-%d",
    "D": "%m/%d/%Y",
    "T": "%H:%M:%S",
    "R": "%H:%M",
    "r": "%I:%M:%S %p",
    "e": "%d",
    "k": "%H",
    "l": "%I",
    "h": "%b",
    "P": "%p",
    "C": "%Y",
    "g": "%G",
    "s": "time_format='unix' (Unix seconds)",
    "n": "the line break itself",
    "t": "the tab itself",
    ":z": "%z",
    ":": "%z",
}


def _directives(fmt: str) -> list[str]:
    """The directives of a strftime format, in order, each with its modifiers (``-d``,
    ``Ey``); ``%%`` is a literal."""
    return re.findall(r"%([-#^_0EO]*:?[A-Za-z]?)", fmt.replace("%%", ""))


def _offset_inside(text: pd.Series, fmt: str, values: pd.Series, name: str):
    """Text, format and offsets of times whose format has ``%z`` before other text
    (``'%z %Y-%m-%d %H:%M'``): the offset is found where strptime finds it (its own
    pattern of the format, group ``z``) and taken out of the text and the format, so the
    wall clock is read as with ``%z`` last, never pandas' "Mixed timezones" refusal."""
    import _strptime

    pattern = _strptime._TimeRE_cache.compile(fmt)  # what strptime (and pandas) match

    def drop(m):
        a, b = m.start("z") - m.start(), m.end("z") - m.start()
        return m.group(0)[:a] + m.group(0)[b:]

    offset = text.str.extract(pattern, expand=True)["z"]
    odd = offset.str.len().fillna(0).to_numpy() > 6  # seconds: +02:00:30
    if odd.any():
        row = _first_bad(odd)
        raise CellError(
            f"time column {name!r} ",
            row,
            f": {_cell(values.iloc[row])} has a UTC offset with seconds, which no clock "
            "has: write it as +hh:mm",
        )
    _check_offsets(offset, values, name)
    return text.str.replace(pattern, drop, regex=True), fmt.replace("%z", "", 1), offset


def _why_not_read(cell: str, hint: str | None) -> str:
    """Why a time cell was not read: a form named (a leap second, a week or ordinal date,
    24:00, a zone name...), else ``hint`` (a format's own); read as ISO 8601 (no
    ``hint``), a date that is no calendar day, or the form that is not guessed."""
    why = next((w for pattern, w in _NOT_READ if re.search(pattern, cell)), None)
    if why is not None:
        return why
    date = _ISO_DATE.match(cell) if hint is None else None  # read as ISO 8601
    if date:
        year, month, day = map(int, date.groups())
        if not 1 <= month <= 12:
            return f"no date: there is no month {month}"
        days = calendar.monthrange(year, month)[1]
        if not 1 <= day <= days:
            return f"no date: {calendar.month_name[month]} {year} has {days} days"
    if hint is not None:
        return hint
    if _DAY_MONTH.match(cell):
        return (
            "not ISO 8601 (2024-05-01 08:00), and no other form is guessed (12/01: Dec. "
            "or Jan.?): give time_format='%d/%m/%Y' (CLI --time-format)"
        )
    return (
        "not ISO 8601 (2024-05-01 08:00), and no other form is guessed: give its form as "
        "time_format (CLI --time-format), in strftime codes"
    )


def _check_format_date(fmt: str, bin) -> None:
    """ValueError for a strftime ``fmt`` that does not name the date: strptime fills a
    missing year with 1900 and a missing month or day with 1, so times of day, or dates
    of different years, would be reordered. A format of months (``%Y-%m``) or years
    (``%Y``) reads with a bin of whole months or years only."""
    shown = _cell(fmt, 40)
    for code in _directives(fmt):  # first what pandas does not read at all, by name
        if code in _STRPTIME:
            continue
        base = code.lstrip("-#^_0EO")
        if not code:
            why = "ends with a lone %: write %% for a percent sign"
        elif base != code and base in _STRPTIME:
            why = (f"has %{code}: pandas reads no modifier ({code[: -len(base)]}) in a "
                   f"directive: write %{base}")  # fmt: skip
        else:
            instead = _INSTEAD.get(base, "the strptime directives of its parts")
            why = f"has %{code}, which pandas does not read: write {instead}"
        raise ValueError(f"time_format={shown} {why}")
    named = re.findall(r"%([A-Za-z])", fmt.replace("%%", ""))
    twice = sorted({c for c in named if named.count(c) > 1})
    if twice:  # the reason pandas would give, before what the format lacks
        raise ValueError(
            f"time_format={_cell(fmt)} is not a format pandas reads: it names a directive "
            f"twice (%{twice[0]})"
        )
    codes = set(named)
    if "x" in codes:  # the locale's date: '%m/%d/%y' in the C locale, a guessed century
        raise ValueError(
            f"time_format={shown} reads the locale's date (%x), which here is "
            "%m/%d/%y, with a two-digit year whose century strptime guesses: write the "
            "date's own directives with %Y, e.g. '%m/%d/%Y'"
        )
    if "c" in codes:  # the locale's date and time (a four-digit year)
        return
    if "I" in codes and "p" not in codes:  # strptime reads 12:30 as 00:30
        raise ValueError(
            f"time_format={shown} has a 12-hour clock (%I) without AM/PM (%p): "
            "12:30 would be read as 00:30; use %H, or add %p"
        )
    if "Z" in codes:  # as ISO text with a zone name: refused, never read as an offset
        raise ValueError(
            f"time_format={shown} reads zone names (%Z), which are not UTC offsets "
            "('CET' is +01:00 in winter, +02:00 in summer): write each time's offset and "
            "read it with %z"
        )
    if "p" in codes and "H" in codes and "I" not in codes:  # strptime drops the AM/PM
        raise ValueError(
            f"time_format={shown} has AM/PM (%p) with a 24-hour clock (%H), which "
            "strptime ignores (11:00 PM would be 11:00): use %I with %p, or %H alone"
        )
    if "y" in codes:  # strptime's pivot: 68 -> 2068, 69 -> 1969
        raise ValueError(
            f"time_format={shown} has a two-digit year (%y), whose century "
            "strptime guesses (68 is 2068, 69 is 1969): write the year with four digits (%Y)"
        )
    _check_weeks(codes, shown)
    year = bool(codes & {"Y", "y", "G"})
    weekday = bool(codes & {"a", "A", "w", "u"})
    day = bool(codes & {"d", "j"}) or (weekday and bool(codes & {"U", "W", "V"}))
    month = bool(codes & {"m", "b", "B"}) or day
    if not (year or month):
        raise ValueError(
            f"time_format={shown} gives no date (strptime puts every time on 1 January "
            "1900): times of day from different days cannot be ordered; give dates with "
            "the times"
        )
    if not year:
        raise ValueError(
            f"time_format={shown} gives no year (strptime puts every date in 1900): dates "
            "of different years cannot be ordered; give the year (%Y)"
        )
    if day:
        return
    calendar_bin = _calendar(bin) if isinstance(bin, str) else None
    coarse = ("M", "Y") if month else ("Y",)
    if calendar_bin is None or not calendar_bin[0].startswith(coarse):
        unit, need = ("month", "months (bin='1MS')") if month else ("year", "years (bin='1YS')")
        raise ValueError(
            f"time_format={shown} gives no {'day' if month else 'month'}: its times are "
            f"{unit}s, which a bin of {_bin_text(bin)} would place at a day they do not "
            f"name; give a bin of whole {need}, or full dates"
        )


def _check_weeks(codes: set, shown: str) -> None:
    """ValueError for week directives strptime (and pandas) pair otherwise: a week number
    (%U, %W) is read with %Y and a weekday %a, %A or %w; the ISO week (%V) with the ISO
    year (%G) and a weekday (%u, %a, %A or %w), and %G only with %V (hostile12 Q15:
    pandas' reason for '%Y-%W-%u', "without day and year", named neither)."""
    week = sorted(codes & {"U", "W"})
    if week and not (codes & {"a", "A", "w"} and "Y" in codes):
        lacks = [] if codes & {"a", "A", "w"} else [
            "the ISO weekday (%u)" if "u" in codes else "no weekday"]  # fmt: skip
        has = " and ".join([*lacks, *([] if "Y" in codes else ["no year %Y"])])
        raise ValueError(
            f"time_format={shown} pairs a week number (%{week[0]}) with {has}: use %w or %a "
            "with %U/%W and %Y, or %u with %V and %G"
        )
    if codes & {"V", "G"} and not ({"V", "G"} <= codes and codes & {"a", "A", "w", "u"}):
        raise ValueError(
            f"time_format={shown} reads an ISO week date only whole: the ISO year (%G), its "
            "week (%V) and a weekday (%u), e.g. '%G-W%V-%u'"
        )


def _instants(wall: pd.DatetimeIndex, offset) -> pd.DatetimeIndex | None:
    """The UTC instants of wall-clock times written with a UTC offset on every row
    (``Z``, ``+02:00``, ``+0200``, ``+02``); None when a row has none."""
    if offset is None or offset.isna().any():
        return None
    text = offset.str.replace(":", "", regex=False).replace("Z", "+0000")
    sign = np.where(text.str[0] == "-", -1, 1)
    minutes = text.str[1:3].astype(int) * 60 + text.str[3:5].replace("", "0").astype(int)
    return wall - pd.to_timedelta(sign * minutes.to_numpy(), unit="min")


def _calendar(bin) -> tuple[str, int] | None:
    """``(period frequency, n)`` for a calendar bin (weeks, months, years), else None."""
    try:
        offset = pd.tseries.frequencies.to_offset(bin)
    except (ValueError, TypeError, OverflowError):
        return None
    kind = type(offset).__name__
    if offset.n <= 0 and kind in ("Week", "MonthBegin", "MonthEnd", "YearBegin", "YearEnd"):
        raise ValueError(f"bin must be a positive number of periods, got {_bin_text(bin)}")
    if kind == "Week" and offset.weekday is not None:
        days = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
        return f"W-{days[offset.weekday]}", offset.n
    if kind in ("MonthBegin", "MonthEnd"):
        return "M", offset.n
    if kind in ("YearBegin", "YearEnd"):  # years ending in a month (YS-DEC: ending Nov.)
        months = ("DEC", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT",
                  "NOV")  # fmt: skip
        end = offset.month if kind == "YearEnd" else offset.month - 1
        return f"Y-{months[end % 12]}", offset.n
    return None


def _bin_text(bin) -> str:
    return _cell(bin, 40)


def _duration_ns(bin) -> int:
    """A fixed duration in nanoseconds (Python int), or ValueError."""
    why = (
        f"bin must be a duration ('15min', '6h', '1D', '7D') or a calendar period ('1W', "
        f"'W-WED', 'MS', 'YS'), got {_bin_text(bin)}"
    )
    try:
        width = pd.Timedelta(pd.tseries.frequencies.to_offset(bin))
    except (ValueError, TypeError, OverflowError):
        raise ValueError(why) from None
    if width <= pd.Timedelta(0):
        raise ValueError(f"bin must be a positive duration, got {_bin_text(bin)}")
    td = width.to_timedelta64()  # in its own unit: no overflow for a long bin
    return int(td.astype(np.int64)) * _unit_ns(np.datetime_data(td.dtype)[0])


def _unit_ns(unit: str) -> int:
    return int(pd.Timedelta(1, unit=unit) // pd.Timedelta(1, unit="ns"))


def _stamp_steps(
    index: pd.DatetimeIndex, bin, origin: str, name: str, instants=None, zone=None
) -> tuple[np.ndarray, TimeAxis | None]:
    """Steps of wall-clock timestamps (tz-naive) for a duration or calendar ``bin``, and
    their :class:`TimeAxis`.

    ``instants`` (their UTC times, tz-naive; None for naive times): a duration that is
    not a whole number of days is laid on them, on the clock of the earliest time (its
    UTC offset kept for the whole column), so a repeated or skipped hour (daylight
    saving) never reverses two events nor merges two real hours. ``zone``: the column's
    time zone (a tzinfo, ``"UTC"`` for Unix times), None for text and naive times."""
    if bin is None:
        raise ValueError(
            f"time column {name!r} holds timestamps: give the width of a step with bin= "
            "(CLI --bin), e.g. '15min', '6h', '1D', '7D' or '1W'"
        )
    calendar = _calendar(bin)
    if calendar is not None:
        freq, n = calendar
        ordinals = index.to_period(freq).asi8
        # groups of n periods from the first time's period, or from 1970-01-01's (pandas
        # numbers weeks from another week: its ordinal of 1970-01-01 is 1 for W-SUN)
        anchor = ordinals.min() if origin == "first" else pd.Period("1970-01-01", freq).ordinal
        whole = np.floor_divide(ordinals - anchor, n)
        period = pd.Period(ordinal=int(anchor + int(whole.min()) * n), freq=freq)
        axis = _stamp_axis(period.start_time, bin, origin, _wall_zone(index, instants, zone))
        return _offsets(whole, int(whole.min())), axis
    width_ns = _duration_ns(bin)
    clock = _wall_zone(index, instants, zone)
    if instants is not None and width_ns % _DAY_NS:
        shift = index - instants  # each row's UTC offset
        first = int(np.argmin(instants.asi8)) if len(shift) else 0
        if len(shift):
            clock = _offset_text(shift[first])  # the fixed clock the bins are laid on
        if len(shift) and (shift != shift[0]).any():
            index = instants + shift[first]
    span = f"(from {index.min()} to {index.max()})"
    if width_ns % _unit_ns(index.unit):  # a bin finer than the column's unit
        try:
            index = index.as_unit("ns")
        except ValueError:  # OutOfBoundsDatetime
            raise ValueError(
                f"bin={_bin_text(bin)} is finer than the {index.unit} resolution of the time "
                f"column {name!r}, whose times {span} lie outside nanosecond timestamps "
                "(years 1678 to 2261): use a bin of whole seconds"
            ) from None
    unit = _unit_ns(index.unit)
    w = width_ns // unit
    ints = index.asi8
    if origin == "first":  # local midnight of the first day
        day = _DAY_NS // unit if _DAY_NS % unit == 0 else 1
        midnight = (int(ints.min()) // day) * day
        start = midnight + (int(ints.min()) - midnight) // w * w  # the first time's bin
        axis = _unit_axis(start, index.unit, bin, origin, clock)
        return _bins(_offsets(ints, start), w), _axis_or_refuse(axis, name, span, index)
    whole = ints // w if w < 2**63 else np.where(ints < 0, -1, 0)
    axis = _unit_axis(int(whole.min()) * w, index.unit, bin, origin, clock)
    return _offsets(whole, int(whole.min())), _axis_or_refuse(axis, name, span, index)


def _axis_or_refuse(axis, name, span: str, index):
    """``axis``, or a ValueError naming the column when its times themselves are past the
    years a time axis writes (a timestamp column past 9999: binned with no date said
    anywhere, hostile22 Q4; Unix times are refused earlier, naming their row and the unit
    they look like: :func:`_check_unix_years`); a bin whose start alone is out of reach
    (10^14 days from the epoch) keeps no axis, as before."""
    if axis is None and not 1 <= index.min().year <= index.max().year <= 9999:
        raise ValueError(
            f"the times of column {name!r} {_text.shorten(span, 80)} fall outside the years "
            "1 to 9999 that a time axis writes: give times within them"
        )
    return axis


#: More steps than this, from integer times that look like Unix times and no bin: the
#: warning :class:`~baygo_graph.exceptions.TimeBinWarning` (one step per second is
#: rarely what was meant: a month of SNAP messages is 2.6 million steps).
MANY_STEPS = 10_000
#: Unix seconds from 1973-03-03 to 2096-10-02; the same span in ms, us and ns.
_UNIX_SPAN = (10**8, 4 * 10**9)
_UNIX_UNITS = (("second", "unix", 1), ("millisecond", "unix-ms", 10**3),
               ("microsecond", "unix-us", 10**6), ("nanosecond", "unix-ns", 10**9))  # fmt: skip


def _warn_if_unix(ints: np.ndarray, n_steps: int, name: str) -> None:
    """Warn, once, when integer times without a bin look like Unix times and make more
    than :data:`MANY_STEPS` steps (one per second, millisecond...)."""
    if n_steps <= MANY_STEPS:
        return
    low, high = int(ints.min()), int(ints.max())
    for unit, fmt, scale in _UNIX_UNITS:
        if _UNIX_SPAN[0] * scale <= low and high <= _UNIX_SPAN[1] * scale:
            first = pd.Timestamp(low // scale, unit="s").date()
            last = pd.Timestamp(high // scale, unit="s").date()
            warnings.warn(
                TimeBinWarning(
                    f"time column {name!r}: {_text.counted(n_steps, 'step')}, one per {unit} "
                    f"of integer times that look like Unix {unit}s ({first} to {last}) read "
                    "without a bin; "
                    f"for days pass time_format={fmt!r}, bin='1D' (CLI --time-format {fmt} "
                    "--bin 1D)"
                ),
                stacklevel=4,
            )
            return


#: Unix seconds of 0001-01-01T00:00 and of 9999-12-31T23:59:59: the dates a time axis
#: writes (ISO 8601's four-digit years).
_ISO_SECONDS = (-62_135_596_800, 253_402_300_799)
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _check_unix_years(ints: np.ndarray, unix: str, name: str) -> None:
    """Unix times (``unix``: their unit) whose dates a time axis can write (years 1 to
    9999), or one line naming the first row past them and, where the times look like
    Unix times of another unit, that unit: milliseconds read as seconds (the likeliest
    slip) land near the year 56,000 and were binned without a date (hostile22 Q4)."""
    if not len(ints):
        return
    scale = _PER_SECOND[unix]
    low, high = (_ISO_SECONDS[0] * scale, (_ISO_SECONDS[1] + 1) * scale - 1)
    bad = np.zeros(len(ints), dtype=bool)
    if low > _INT64[0]:
        bad |= ints < low
    if high < _INT64[1]:
        bad |= ints > high
    if not bad.any():
        return
    row = _first_bad(bad)
    lo, hi = int(ints.min()), int(ints.max())
    hint = next(
        (f": they look like Unix {u}s: time_format={fmt!r} (CLI --time-format {fmt})"
         for u, fmt, k in _UNIX_UNITS if _UNIX_SPAN[0] * k <= lo and hi <= _UNIX_SPAN[1] * k),
        "",
    )  # fmt: skip
    raise CellError(
        f"time column {name!r} ",
        row,
        f": {_text.big_int(int(ints[row]))} as Unix {UNIX_NAMES[unix]} is past the dates a "
        f"time axis writes (years 1 to 9999){hint}",
    )


def check_time_format(time_format) -> str | None:
    """``time_format`` checked: None, a key of :data:`UNIX_FORMATS` or a strftime format
    (it holds ``%``); returns the Unix unit it names (None for the others). The one check,
    for ``time_steps`` and ``--time-format``.

    Examples
    --------
    >>> check_time_format("unix-ms"), check_time_format("%d/%m/%Y"), check_time_format(None)
    ('ms', None, None)
    """
    if time_format is None:
        return None
    if not isinstance(time_format, str):
        raise TypeError(f"time_format must be a str, got {type(time_format).__name__}")
    unix = UNIX_FORMATS.get(time_format)
    if unix is None and "%" not in time_format:
        raise ValueError(
            f"time_format must be 'unix', 'unix-ms', 'unix-us', 'unix-ns' or a strftime "
            f"format such as '%d/%m/%Y', got {_text.quoted(time_format, 40)}"
        )
    return unix


def check_bin(bin) -> None:
    """``bin`` checked against every file: None, a positive integer (or its text), a
    duration or a calendar period pandas reads; whether it fits a given time column is
    checked when that column is read. The one check, for ``time_steps``'s callers and
    ``--bin``.

    Examples
    --------
    >>> check_bin(7), check_bin("7"), check_bin("1W"), check_bin("15min")
    (None, None, None, None)
    >>> try:
    ...     check_bin("3xs")
    ... except ValueError as e:
    ...     print(str(e)[:35], "...", str(e)[-11:])
    bin must be a positive integer, a d ... got '3xs'
    """
    if bin is None:
        return
    why = (  # one sentence for every refusal (a 0 said it in other words: newcomer8)
        "bin must be a positive integer, a duration ('15min', '6h', '1D', '7D') or a "
        f"calendar period ('1W', 'W-WED', 'MS', 'YS'), got {_bin_text(bin)}"
    )
    text = bin.strip() if isinstance(bin, str) else bin
    if isinstance(text, str) and INTEGER_TEXT.fullmatch(text):
        text = int(text)
    if isinstance(text, int | np.integer) and not isinstance(text, bool):
        if text <= 0:
            raise ValueError(why)
        return
    if not isinstance(text, str):
        raise ValueError(why)
    if _calendar(text) is not None:
        return
    try:
        _duration_ns(text)
    except ValueError:
        raise ValueError(why) from None


def time_steps(
    values: pd.Series, *, bin=None, origin: str = "first", time_format=None, name="time"
) -> np.ndarray:
    """The step index (uint64, first step 0) of each time (rules: module docstring):
    the steps of :func:`binned_times`, without their axis.

    Examples
    --------
    >>> time_steps(pd.Series([5, 7, 12]), bin=2).tolist()
    [0, 1, 3]
    """
    return binned_times(values, bin=bin, origin=origin, time_format=time_format, name=name)[0]


def binned_times(
    values: pd.Series, *, bin=None, origin: str = "first", time_format=None, name="time"
) -> tuple[np.ndarray, TimeAxis | None]:
    """The step index (uint64, first step 0) of each time (rules: module docstring), and
    the :class:`TimeAxis` that says when each step starts.

    Parameters
    ----------
    values : pandas.Series
        The time column: integers, datetimes or text.
    bin : int or str, optional
        An int for integer times (default 1); a duration or calendar period for
        timestamps (required for them).
    origin : {"first", "epoch"}, default "first"
        Where bins start: at the first time (its day's midnight for timestamps) or at
        multiples of ``bin`` since the epoch.
    time_format : str, optional
        ``"unix"`` / ``"unix-ms"`` / ``"unix-us"`` / ``"unix-ns"`` for Unix times, or
        a strftime format (``"%d/%m/%Y %H:%M"``) for text times that are not ISO 8601.
    name : str
        The column's name, for messages.

    Returns
    -------
    steps : numpy.ndarray of uint64
        Exact over the whole 64-bit range of times (no wraparound).
    axis : TimeAxis or None
        Step 0's start on the times' clock, the bin and the origin (None only for a
        bin so wide its start is no timestamp pandas holds).

    Raises
    ------
    ValueError
        One line naming the column (and the row of a bad cell).

    Examples
    --------
    >>> binned_times(pd.Series([5, 7, 12]), bin=2)[0].tolist()
    [0, 1, 3]
    >>> binned_times(pd.Series(["2024-03-30 10:00", "2024-04-01 00:30"]), bin="1D")[0].tolist()
    [0, 2]
    >>> paris = pd.Series(pd.to_datetime(["2024-03-30 10:00", "2024-04-01 00:30"]))
    >>> binned_times(paris.dt.tz_localize("Europe/Paris"), bin="1D")[0].tolist()  # local days
    [0, 2]
    >>> binned_times(pd.Series(["01/12/2024", "03/12/2024"]), bin="1D",
    ...            time_format="%d/%m/%Y")[0].tolist()
    [0, 2]
    >>> binned_times(pd.Series([0, 86_400 * 7]), bin="1W", time_format="unix")[0].tolist()
    [0, 1]
    >>> steps, axis = binned_times(pd.Series(["2024-05-01T08:00+02:00", "2024-05-03T09:00+02:00"]),
    ...                            bin="1D")
    >>> steps.tolist(), axis.describe()
    ([0, 2], '1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)')
    """
    if origin not in ORIGINS:
        raise ValueError(
            f"origin must be 'first' or 'epoch', got {_text.shorten(repr(origin), 40)}"
        )
    if time_format is not None and not isinstance(time_format, str):
        raise TypeError(f"time_format must be a str, got {type(time_format).__name__}")
    missing = values.isna().to_numpy()
    if missing.any():
        row = _first_bad(missing)
        raise CellError(f"time column {name!r} ", row, ": the time is missing")
    if pd.api.types.is_bool_dtype(values):
        raise ValueError(f"time column {name!r} holds booleans, not times")
    if pd.api.types.is_timedelta64_dtype(values):
        raise ValueError(
            f"time column {name!r} holds durations, not times: convert them to numbers "
            "(e.g. .dt.total_seconds()) or add them to a start date"
        )
    if values.dtype.kind == "O" and pd.api.types.infer_dtype(values, skipna=True) == "time":
        raise ValueError(
            f"time column {name!r} holds times of day (a Parquet time32/time64 column), "
            "which have no date: give dates with the times, or numbers"
        )
    unix = check_time_format(time_format)
    if time_format is not None and unix is None:
        _check_format_date(time_format, bin)
    if pd.api.types.is_datetime64_any_dtype(values):
        index, instants = pd.DatetimeIndex(values), None
        if index.tz is not None:  # the wall clock of its zone
            instants = index.tz_convert("UTC").tz_localize(None)
            index = index.tz_localize(None)
        return _stamp_steps(index, bin, origin, name, instants, zone=values.dt.tz)
    numeric = pd.api.types.is_numeric_dtype(values)
    first = values.iloc[0] if len(values) else None
    if unix is not None or (time_format is None and (numeric or _is_number(first))):
        why = (f" (time_format={_cell(time_format)} reads numbers)" if unix is not None else
               f" (the column holds numbers: its first time, {_cell(first)}, is one)")  # fmt: skip
        ints = _int_times(values, name, why)
        if unix is not None:
            _check_unix_years(ints, unix, name)
        if unix is not None and isinstance(bin, str):
            try:
                index = pd.DatetimeIndex(pd.to_datetime(ints, unit=unix))
            except (ValueError, OverflowError):
                raise ValueError(
                    f"time column {name!r}: Unix times from {int(ints.min())} to "
                    f"{int(ints.max())} ({unix}) lie outside the timestamps pandas holds"
                ) from None
            return _stamp_steps(index, bin, origin, name, zone="UTC")
        width = 1 if bin is None else bin
        if isinstance(width, bool) or not isinstance(width, int | np.integer) or width < 1:
            how = (
                "; a duration needs Unix times: time_format='unix' (CLI --time-format unix)"
                if isinstance(bin, str)
                else ""
            )
            raise ValueError(
                f"bin must be a positive int for the integer time column {name!r}, got "
                f"{_bin_text(bin)}{how}"
            )
        width = int(width)
        if origin == "first":
            start = int(ints.min())
            steps = _bins(_offsets(ints, start), width)
        else:
            whole = ints // np.array(width, dtype=ints.dtype) if width < 2**63 else (
                np.where(ints < 0, -1, 0))  # fmt: skip
            start = int(whole.min()) * width
            steps = _offsets(whole, int(whole.min()))
        if bin is None and unix is None and len(steps):
            _warn_if_unix(ints, int(steps.max()) + 1, name)
        return steps, TimeAxis(
            start=str(start),
            bin=width,
            origin=origin,
            zone=None,
            clock=f"Unix {UNIX_NAMES[unix]}" if unix else "",
        )
    if numeric:
        raise ValueError(
            f"time column {name!r} holds numbers: time_format={_cell(time_format)} reads "
            "text; for numbers use 'unix' (or none: integers as written)"
        )
    index, instants = _parse_text(values, name, time_format)
    return _stamp_steps(index, bin, origin, name, instants)


# -- the time axis of a series: when each step starts, on the times' own clock ---------

#: What one count of Unix time is, by its unit (for the axis' clock).
UNIX_NAMES = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


@dataclass(frozen=True)
class TimeAxis:
    """When each step of a series starts, on the clock its times were written in.

    What :func:`binned_times` says beside the steps, and what a series read from dated
    contacts keeps (:attr:`~baygo_graph.series.GraphSeries.time_axis`; None: steps
    only, e.g. a run). Calendar bins are not uniform (months, a 23-hour day across a
    daylight-saving change): the start of a step is computed for the steps asked,
    never stored per step.

    Attributes
    ----------
    start : str
        Step 0's start as the times' clock writes it: the integer as written
        (``"1082040961"``), or an ISO 8601 time with its UTC offset
        (``"2024-05-01T00:00+02:00"``; ``Z``: UTC; no offset: naive times).
    bin : int or str
        The width of a step as given: an int for integer times, a duration
        (``"1D"``, ``"6h"``) or a calendar period (``"1W"``, ``"MS"``).
    origin : {"first", "epoch"}
        Where the bins were laid from (module docstring).
    zone : str or None
        The clock of timestamps: an IANA zone (``"Europe/Paris"``: local days, the
        offset of each step's own start), a fixed UTC offset (``"+02:00"``), ``"UTC"``,
        or None (integer times, naive timestamps, or a column of several offsets
        binned on its wall clock: ``clock`` says which).
    clock : str
        A note on the clock, said with the axis ("" when the start says it all).

    Examples
    --------
    >>> a = TimeAxis(start="2024-05-01T00:00+02:00", bin="1D", origin="first", zone="+02:00")
    >>> a.describe()
    '1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)'
    >>> a.step_start(3), a.span(0, 1)
    ('2024-05-04T00:00+02:00', '2024-05-01 to 2024-05-02')
    >>> TimeAxis(start="100", bin=5, origin="first").span(2, 3)
    'times 110 to 119'
    """

    start: str
    bin: int | str
    origin: str = "first"
    zone: str | None = None
    clock: str = ""

    def __post_init__(self):
        if self.origin not in ORIGINS:
            raise ValueError(f"origin must be 'first' or 'epoch', got {self.origin!r}")
        if isinstance(self.bin, bool) or not isinstance(self.bin, int | str):
            raise TypeError(
                "bin must be an int (integer times) or a str (a duration or a calendar "
                f"period), got {type(self.bin).__name__}"
            )
        integer_start = isinstance(self.start, str) and INTEGER_TEXT.fullmatch(self.start)
        if self.integer:
            if self.bin <= 0:
                raise ValueError(f"an integer bin must be > 0, got {_bin_text(self.bin)}")
            if not integer_start:
                raise ValueError(
                    f"start must be an integer time as written, as the int bin "
                    f"{_bin_text(self.bin)} counts integers, got {_text.short_repr(self.start)}"
                )
            if not _INT64[0] <= int(self.start) <= _INT64[1]:  # as every reader's times
                raise ValueError(
                    f"start {_text.big_int(int(self.start))} is outside the 64-bit integer "
                    "range of times"
                )
            if self.zone is not None:
                raise ValueError(f"integer times have no zone, got {_bin_text(self.zone)}")
            return
        if integer_start:  # an integer time with a text bin ("5"): pandas' date words before
            raise ValueError(
                f"start {_text.short_repr(self.start)} is an integer time: its bin must be an "
                f"int ({_text.shorten(self.bin, 20)}, not {_text.short_repr(self.bin, 20)})"
                if INTEGER_TEXT.fullmatch(self.bin)
                else f"start {_text.short_repr(self.start)} is an integer time: its bin must be "
                f"an int, got {_bin_text(self.bin)}"
            )
        if _calendar(self.bin) is None:
            _duration_ns(self.bin)  # a duration, or ValueError saying what a bin is
        _check_zone(self.zone)
        try:
            _ = self._wall  # a time pandas reads
        except (ValueError, TypeError, OverflowError):
            raise ValueError(
                f"start must be an ISO 8601 time for the bin {_bin_text(self.bin)}, got "
                f"{_text.short_repr(self.start)}"
            ) from None

    @property
    def integer(self) -> bool:
        """Whether the times are integers counted as written (an int bin)."""
        return isinstance(self.bin, int)

    @property
    def _wall(self) -> pd.Timestamp:
        """Step 0's start on the wall clock (tz-naive)."""
        stamp = pd.Timestamp(self.start)
        return stamp.tz_localize(None) if stamp.tz is not None else stamp

    @property
    def days(self) -> bool:
        """Whether every step is whole calendar days from midnight (the spans are then
        said as dates)."""
        if self.integer:
            return False
        wall = self._wall
        if wall != wall.normalize():
            return False
        return _calendar(self.bin) is not None or _duration_ns(self.bin) % _DAY_NS == 0

    def _wall_start(self, k: int) -> pd.Timestamp:
        calendar = _calendar(self.bin)
        if calendar is not None:
            freq, n = calendar
            return (pd.Period(self._wall, freq=freq) + int(k) * n).start_time
        return self._wall + int(k) * _width(_duration_ns(self.bin))

    def _wall_or_none(self, k: int) -> pd.Timestamp | None:
        """:meth:`_wall_start`, or None for a step whose start no timestamp holds (before
        year 0, after pandas' last time): said in words, never a traceback."""
        try:
            return self._wall_start(k)
        except (ValueError, OverflowError, NotImplementedError):  # OutOfBoundsDatetime
            return None

    def _text(self, wall: pd.Timestamp) -> str:
        zone = self.zone
        if zone is not None:
            if zone == "UTC":
                wall = wall.tz_localize("UTC")
            elif zone[:1] in "+-":
                sign = -1 if zone[0] == "-" else 1
                minutes = sign * (int(zone[1:3]) * 60 + int(zone[4:6]))
                wall = wall.tz_localize(datetime.timezone(datetime.timedelta(minutes=minutes)))
            else:  # a midnight that does not exist (a spring-forward at 00:00) moves on
                wall = wall.tz_localize(zone, ambiguous=True, nonexistent="shift_forward")
        fine = wall.second or wall.microsecond or wall.nanosecond
        text = wall.isoformat(timespec="seconds" if fine and not (wall.microsecond or
                                                                     wall.nanosecond) else
                              "minutes" if not fine else "auto")  # fmt: skip
        return text[:-6] + "Z" if zone == "UTC" and text.endswith("+00:00") else text

    def step_start(self, k: int) -> str:
        """The start of step ``k`` on the axis' clock (any int: before step 0 too).

        Examples
        --------
        >>> TimeAxis(start="2024-01-01T00:00", bin="MS").step_start(2)
        '2024-03-01T00:00'
        >>> TimeAxis(start="7", bin=3).step_start(2)
        '13'
        """
        if self.integer:
            return str(int(self.start) + int(k) * self.bin)
        wall = self._wall_or_none(k)
        if wall is None:
            return _NO_TIME
        try:
            return self._text(wall)
        except (ValueError, OverflowError, NotImplementedError):  # a zone's rules that far
            return wall.isoformat()

    def step_label(self, k: int) -> str:
        """Step ``k`` named by its start, as short as the bin allows: the date of a
        step of whole days (``"2024-05-04"``), ``"time 13"`` for integer times, else
        :meth:`step_start` (what the viewer's slider shows).

        Examples
        --------
        >>> TimeAxis(start="2024-05-01T00:00+02:00", bin="1D", zone="+02:00").step_label(3)
        '2024-05-04'
        """
        if self.integer:
            return f"time {self.step_start(k)}"
        if not self.days:
            return self.step_start(k)
        wall = self._wall_or_none(k)
        return _NO_TIME if wall is None else _date_text(wall)

    def viewer_rule(self) -> dict | None:
        """The rule the viewer page computes :meth:`step_label` and :meth:`span` with,
        for any step (no per-step array): ``kind`` ``"integer"``, ``"months"`` (calendar
        months and years), ``"days"`` (whole days from midnight: weeks, ``"1D"``) or
        ``"clock"`` (a duration on a fixed clock, its start and width in integer
        nanoseconds as text, so a ``250us`` bin is said exactly); None for a zone whose
        offsets move within a step's hours (the page then shows steps and the axis line
        only)."""
        if self.integer:
            return {"kind": "integer", "start": self.start, "bin": str(self.bin)}
        wall = self._wall
        calendar = _calendar(self.bin)
        if calendar is not None and calendar[0][0] in "MY":
            n = calendar[1] * (12 if calendar[0][0] == "Y" else 1)
            return {"kind": "months", "year": wall.year, "month": wall.month - 1, "n": n}
        if calendar is not None:
            width, kind = pd.Timedelta(weeks=calendar[1]), "days"
        else:
            width = _width(_duration_ns(self.bin))
            kind = "days" if self.days else "clock"
        if kind == "clock" and self.zone is not None and self.zone != "UTC" and (
            self.zone[:1] not in "+-"
        ):  # fmt: skip
            return None
        suffix = {"UTC": "Z", None: ""}.get(self.zone, self.zone)
        if kind == "clock":  # exact to the nanosecond (a 250us bin): integers as text
            return {"kind": kind, "start_ns": str(_integer_ns(wall.to_datetime64())),
                    "width_ns": str(_integer_ns(width.to_timedelta64())),
                    "suffix": suffix}  # fmt: skip
        # whole seconds in the second unit (years 0001 and 9999 too), then the fraction of
        # a second as written (hostile21 Z6: as_unit("s") dropped 10:00:00.5's half second);
        # a part below the millisecond makes ms fractional: the page then shows step numbers
        whole = wall.as_unit("s")
        ms = (whole - pd.Timestamp(0).as_unit("s")) / pd.Timedelta(milliseconds=1) + (
            wall - whole
        ) / pd.Timedelta(milliseconds=1)
        return {"kind": kind, "start_ms": ms, "width_ms": width / pd.Timedelta(milliseconds=1),
                "suffix": suffix}  # fmt: skip

    def step_end(self, k: int) -> str:
        """The end of step ``k`` (excluded): the start of step ``k + 1``."""
        return self.step_start(int(k) + 1)

    def span(self, first: int, last: int) -> str:
        """Steps ``first..last`` (both included) in the times' own words: the days they
        cover (``"2024-05-01 to 2024-05-02"``), the times (``"times 110 to 119"``), else
        the half-open interval of their clock times (``"[2024-05-01T06:00+02:00,
        2024-05-01T12:00+02:00)"``). The one rendering every teller uses."""
        if self.integer:
            a, b = int(self.step_start(first)), int(self.step_start(int(last) + 1)) - 1
            return f"time {a}" if a == b else f"times {a} to {b}"
        if self.days:
            a, b = self._wall_or_none(first), self._wall_or_none(int(last) + 1)
            a = _NO_TIME if a is None else _date_text(a)
            if b is None:  # the end of the last step is past the last timestamp
                return f"from {a}"
            b = _date_text(b - pd.Timedelta(days=1))
            return a if a == b else f"{a} to {b}"
        end = self.step_end(last)
        if end == _NO_TIME:
            return f"from {self.step_start(first)}"
        return f"[{self.step_start(first)}, {end})"

    def describe(self) -> str:
        """One line: ``1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)``."""
        start = f"time {self.start}" if self.integer else self.start
        clock = f"; {self.clock}" if self.clock else ""
        return f"1 step = {self.bin} from {start} (origin: {self.origin}{clock})"

    def as_dict(self) -> dict:
        """The axis as JSON-ready data (:meth:`from_dict` reads it back)."""
        return {"start": self.start, "bin": self.bin, "origin": self.origin,
                "zone": self.zone, "clock": self.clock, "text": self.describe()}  # fmt: skip

    @classmethod
    def from_dict(cls, data) -> TimeAxis:
        """The axis :meth:`as_dict` wrote (ValueError for anything else)."""
        keys = ("start", "bin", "origin", "zone", "clock")
        if not isinstance(data, dict) or not {"start", "bin"} <= set(data):
            raise ValueError(f"a time axis is an object with {', '.join(keys)}")
        try:
            axis = cls(**{k: data[k] for k in keys if k in data})
        except (TypeError, ValueError) as e:
            raise ValueError(_text.shorten(e, 160)) from None
        if "text" in data and data["text"] != axis.describe():  # the copy for readers
            raise ValueError(
                f"a time axis whose text {_text.shorten(repr(data['text']), 80)} is not what "
                f"its fields say ({axis.describe()!r})"
            )
        return axis


#: What a step start no timestamp can hold is said as (before year 0, after pandas' last).
_NO_TIME = "a time outside the timestamps pandas holds"


def _date_text(wall: pd.Timestamp) -> str:
    """The date of a timestamp as ISO 8601 writes it (year 0 too: no Python date)."""
    return wall.isoformat()[:10]


def _integer_ns(value) -> int:
    """A numpy datetime64 (since 1970) or timedelta64 in nanoseconds, as a Python int:
    exact in any unit, years before 1678 and after 2262 too."""
    unit, count = np.datetime_data(value.dtype)
    size = {"D": 86400 * 10**9, "h": 3600 * 10**9, "m": 60 * 10**9, "s": 10**9,
            "ms": 10**6, "us": 10**3, "ns": 1}[unit]  # fmt: skip
    return int(value.astype(np.int64)) * count * size


def _width(ns: int) -> pd.Timedelta:
    """A duration of ``ns`` nanoseconds in the coarsest unit that holds it exactly, so
    step starts far from 1970 (before 1678, after 2262) are computed, as the readers
    read such times."""
    for unit, size in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns % size == 0:
            return pd.Timedelta(ns // size, unit=unit).as_unit(unit)
    return pd.Timedelta(ns, unit="ns")


def _offset_text(shift) -> str:
    """A UTC offset (a Timedelta) as ``+hh:mm``."""
    minutes = int(pd.Timedelta(shift) // pd.Timedelta(minutes=1))
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _check_zone(zone) -> None:
    """A ValueError unless ``zone`` is a clock :class:`TimeAxis` keeps: None, ``"UTC"``,
    a UTC offset ``+hh:mm`` or a time zone name pandas knows (``Europe/Paris``)."""
    if zone is None or zone == "UTC":
        return
    if isinstance(zone, str) and re.fullmatch(r"[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]", zone):
        return
    try:
        if not isinstance(zone, str):
            raise TypeError(zone)
        pd.Timestamp("2000-01-01").tz_localize(zone)
    except Exception:  # noqa: BLE001 (pytz, zoneinfo and dateutil each raise their own)
        raise ValueError(
            f"zone must be 'UTC', a UTC offset (+02:00) or a time zone name (Europe/Paris), "
            f"got {_bin_text(zone)}"
        ) from None


def _zone_name(tz) -> str:
    """A tz-aware column's zone as the axis keeps it: ``UTC``, ``+hh:mm`` or a name."""
    if isinstance(tz, datetime.timezone):
        offset = tz.utcoffset(None)
        return "UTC" if not offset else _offset_text(offset)
    name = getattr(tz, "key", None) or getattr(tz, "zone", None) or str(tz)
    return "UTC" if name in ("UTC", "Etc/UTC") else name


def _wall_zone(index, instants, zone) -> tuple[str | None, str]:
    """``(zone, clock note)`` of wall-clock bins: the column's zone, ``"UTC"`` for Unix
    times, the one UTC offset its text gives, or none (naive times; text of several
    offsets, binned on its wall clock: said in the note)."""
    if isinstance(zone, str):  # Unix times: UTC
        return zone, ""
    if zone is not None:
        name = _zone_name(zone)
        return name, ("" if name == "UTC" or name[:1] in "+-" else f"clock {name}")
    if instants is None:
        return None, ""
    shifts = sorted({_offset_text(v) for v in pd.unique(index - instants)})
    if len(shifts) == 1:
        return shifts[0], ""
    return None, f"the wall clock as written, UTC offsets {_text.short_list(shifts, 4)}"


def _stamp_axis(wall: pd.Timestamp, bin, origin: str, clock) -> TimeAxis | None:
    zone, note = clock if isinstance(clock, tuple) else (clock, "")
    try:
        stamp = TimeAxis(start=wall.isoformat(), bin=str(bin), origin=origin, zone=zone,
                         clock=note)  # fmt: skip
        return dataclasses.replace(stamp, start=stamp.step_start(0))
    except (ValueError, OverflowError, NotImplementedError):  # no start pandas can write
        return None


def _unit_axis(value: int, unit: str, bin, origin: str, clock) -> TimeAxis | None:
    """The axis whose step 0 starts ``value`` ``unit``\\ s after 1970-01-01 (wall clock)."""
    try:
        wall = pd.Timestamp(int(value), unit=unit)
    except (ValueError, OverflowError):
        return None
    return _stamp_axis(wall, bin, origin, clock)
