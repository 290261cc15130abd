"""Reader-side findings of the fifth hostile round (issue 30): times read exactly, one
line per refusal, calendar bins by a stated rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.exceptions import RunFormatError
from baygo_graph.inputs import as_series
from baygo_graph.io.times import time_steps


def _csv(tmp_path, name, text, **options):
    p = tmp_path / name
    p.write_text(text)
    return as_series(p, **options)


def _steps(series) -> list[int]:
    """The step of each contact of a series with one contact per step."""
    return [t for t in range(series.n_steps) if series.window_edges(t, t + 1)[0].size]


# -- times: integer text read exactly, never through a float --------------------------


def test_decimal_and_exponent_text_is_read_exactly(tmp_path):
    s = _csv(
        tmp_path,
        "a.csv",
        "source,target,time\na,b,1700000000123456789.0\nb,a,1700000000123456790\n",
    )
    assert s.n_steps == 2  # through a float both were 1700000000123456768: one step
    s = _csv(tmp_path, "b.csv", "source,target,time\na,b,1e3\nb,a,1002\n")
    assert s.n_steps == 3 and _steps(s) == [0, 2]
    s = _csv(tmp_path, "c.txt", "1 2 +5\n2 1 7.000\n")  # SNAP: headerless, the same rule
    assert s.n_steps == 3


@pytest.mark.parametrize("cell", ["2.9999999999999999", "1.5", "1e-1", "1.5e-3"])
def test_a_time_that_is_not_a_whole_number_is_refused(tmp_path, cell):
    with pytest.raises(ValueError) as e:
        _csv(tmp_path, "t.csv", f"source,target,time\nb,a,4\na,b,{cell}\n")
    msg = str(e.value)
    assert "t.csv'" in msg and "time column 'time' row 1" in msg and "is not an integer time" in msg
    assert "--bin" in msg and len(msg.replace(str(tmp_path), "D")) <= 300 and "\n" not in msg


@pytest.mark.parametrize("origin", ["first", "epoch"])
@pytest.mark.parametrize("cell", ["18446744073709551000", "9223372036854775808", "1e19", "-1e400"])
def test_times_outside_int64_are_refused_naming_the_row(tmp_path, origin, cell):
    with pytest.raises(ValueError, match=r"row 1: '[-0-9e.]+' is outside the 64-bit integer"):
        _csv(tmp_path, "big.csv", f"source,target,time\na,b,0\nb,a,{cell}\n", origin=origin)


def test_typed_uint64_times_beyond_int64_are_refused():
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"],
                          "time": np.array([0, 2**63], dtype=np.uint64)})  # fmt: skip
    with pytest.raises(ValueError, match="row 1: 9223372036854775808 is outside the 64-bit"):
        as_series(frame, origin="epoch")


@pytest.mark.parametrize(
    "cells", [[1, "2"], [" 1", "+2 "], ["1", 2.0], [np.int64(1), "3.0"]], ids=repr
)
def test_integer_times_of_any_spelling_are_integers(cells):
    """An object column whose first cell is an int used to be called "not ISO 8601"."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": cells})
    assert as_series(frame).n_steps == int(float(str(cells[1]).strip())) - 1 + 1


def test_a_non_number_among_numbers_says_so_truthfully():
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": [" 1", "x"]})
    with pytest.raises(ValueError) as e:
        as_series(frame)
    assert str(e.value) == (
        "time column 'time' row 1: 'x' is not a number (the column holds numbers: its first "
        "time, ' 1', is one)"
    )


# -- headerless fields: spaces and tabs only, every row as wide as the first ----------


@pytest.mark.parametrize("gap", ["\xa0", "\x0b", "\x0c", "\u2003"])
def test_other_whitespace_is_named_not_a_pandas_usecols_error(tmp_path, gap):
    with pytest.raises(RunFormatError) as e:
        _csv(tmp_path, "g.txt", f"1{gap}2{gap}3\n2{gap}1{gap}4\n")
    msg = str(e.value)
    assert "g.txt'" in msg and f"U+{ord(gap):04X}" in msg and "spaces and tabs" in msg
    assert "Usecols" not in msg and len(msg.replace(str(tmp_path), "D")) <= 300
    with pytest.raises(RunFormatError, match=f"U\\+{ord(gap):04X}"):
        _csv(tmp_path, "g.dat", f"1{gap}2{gap}3\n", columns="time,source,target")


def test_a_row_wider_than_the_first_is_refused_naming_its_line(tmp_path):
    with pytest.raises(RunFormatError, match="w.txt': line 3 has 4 fields, the first data line 3"):
        _csv(tmp_path, "w.txt", "# c\n1 2 3\n2 1 4 9\n")  # the 9 was dropped silently


# -- calendar bins of several periods: one rule, checked by brute force ---------------


def _brute_calendar(days: pd.Series, n: int, unit: str, origin: str) -> list[int]:
    """Groups of ``n`` weeks (Monday to Sunday) or months, counted from the first
    event's week/month (origin first) or from the week/month of 1970-01-01 (epoch)."""
    if unit.startswith("W"):  # W: Monday to Sunday; W-WED: Thursday to Wednesday
        first_day = 3 if unit == "W-WED" else 0
        start = days.dt.normalize() - pd.to_timedelta((days.dt.day_of_week - first_day) % 7, "D")
        epoch = pd.Timestamp("1970-01-01")  # a Thursday
        base = start.min() if origin == "first" else epoch - pd.Timedelta(days=(3 - first_day) % 7)
        k = (start - base).dt.days // (7 * n)
    else:
        month = days.dt.year * 12 + days.dt.month - 1
        k = (month - (month.min() if origin == "first" else 1970 * 12)) // n
    return (k - k.min()).tolist()


@settings(max_examples=60, deadline=None)
@given(
    offsets=st.lists(st.integers(0, 3000), min_size=1, max_size=12),
    start=st.integers(-20000, 30000),
    n=st.integers(1, 5),
    unit=st.sampled_from(["W", "W-WED", "MS", "ME"]),
    origin=st.sampled_from(["first", "epoch"]),
)
def test_calendar_bins_of_several_periods_follow_the_stated_anchor(offsets, start, n, unit, origin):
    days = pd.Series(
        pd.Timestamp("1970-01-01") + pd.to_timedelta([start + o for o in offsets], "D")
    )
    hours = days + pd.to_timedelta([o % 24 for o in offsets], "h")  # times within the day
    got = time_steps(hours, bin=f"{n}{unit}", origin=origin).tolist()
    assert got == _brute_calendar(
        days, n, "M" if unit.endswith("E") or unit == "MS" else unit, origin
    )


@pytest.mark.parametrize(("origin", "expected"), [("first", [0, 0]), ("epoch", [0, 0])])
def test_two_week_bins_hold_the_first_fortnight_of_the_anchor(origin, expected):
    """Sunday 4 and Monday 5 January 1970: weeks 1 and 2 of the epoch's fortnight (pandas
    numbers the week of 1970-01-01 as 1, which split them)."""
    days = pd.Series(pd.to_datetime(["1970-01-04 00:00", "1970-01-05 01:00"]))
    assert time_steps(days, bin="2W", origin=origin).tolist() == expected
