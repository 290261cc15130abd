"""Times said, never guessed (io/times.py): formats, zones and DST, origins, calendar bins."""

from __future__ import annotations

import datetime as dt

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from baygo_graph.inputs import as_series
from baygo_graph.io.times import time_steps


def _steps(values, **kw) -> list[int]:
    return time_steps(pd.Series(values), **kw).tolist()


def test_ambiguous_dates_are_refused_unless_a_format_is_given(tmp_path):
    days = ["12/01/2024", "13/01/2024", "14/01/2024"]
    with pytest.raises(ValueError) as info:
        _steps(days, bin="1D")
    text = str(info.value)
    assert "row 0" in text and "'12/01/2024'" in text and "--time-format" in text
    assert "\n" not in text and len(text) < 300
    assert _steps(days, bin="1D", time_format="%d/%m/%Y") == [0, 1, 2]  # 3 steps, not 324
    p = tmp_path / "d.csv"
    p.write_text("source,target,time\na,b,12/01/2024\nb,a,14/01/2024\n")
    assert as_series(p, bin="1D", time_format="%d/%m/%Y").n_steps == 3
    with pytest.raises(ValueError, match="is not a time of time_format"):
        _steps(["2024-01-01"], bin="1D", time_format="%d/%m/%Y")


def test_europe_paris_bins_follow_the_local_clock_across_dst():
    """Spring forward (31 March 2024) and fall back (27 October 2024), Europe/Paris."""
    local = pd.to_datetime(["2024-03-30 10:00", "2024-03-31 23:30", "2024-04-01 00:30"])
    aware = pd.Series(local).dt.tz_localize("Europe/Paris")
    assert _steps(aware, bin="1D") == [0, 1, 2]  # 1 April 00:30 in the 1 April step
    assert _steps(aware.dt.tz_convert("UTC").dt.tz_convert("Europe/Paris"), bin="1D") == [0, 1, 2]
    fall = pd.Series(pd.to_datetime(["2024-10-26 12:00", "2024-10-27 23:30", "2024-10-28 00:10"]))
    assert _steps(fall.dt.tz_localize("Europe/Paris"), bin="1D") == [0, 1, 2]
    # text with offsets: the clock as written
    text = ["2024-03-30T10:00+01:00", "2024-03-31T23:30+02:00", "2024-04-01T00:30+02:00"]
    assert _steps(text, bin="1D") == [0, 1, 2]
    assert _steps(["2024-04-01T00:30:00Z", "2024-04-02T00:30:00Z"], bin="1D") == [0, 1]


def test_missing_and_malformed_times_name_their_row(tmp_path):
    p = tmp_path / "na.csv"
    p.write_text("source,target,time\na,b,0\nb,a,NA\n")
    with pytest.raises(ValueError) as info:
        as_series(p)
    text = str(info.value)
    assert "line 3" in text and "'NA'" in text and "na.csv" in text and "'time'" in text
    assert "line 2" not in text and "row" not in text  # the file's line, as an editor shows
    p.write_text("source,target,time\na,b,0\nb,a,\n")
    with pytest.raises(ValueError, match="line 3: the time is missing"):
        as_series(p)
    long = "2" * 200
    p.write_text(f"source,target,time\na,b,2024-01-01\nb,a,{long}\n")
    with pytest.raises(ValueError) as info:
        as_series(p, bin="1D")
    text = str(info.value)  # ~300 characters besides the file's own name
    assert len(text) - len(str(p)) < 250 and "more characters" in text and "\n" not in text


def test_origin_first_is_the_first_day_and_epoch_is_1970():
    # 2024-01-01 is a Monday; 1970-01-01 a Thursday
    stamps = ["2024-01-01 10:00", "2024-01-07 23:00", "2024-01-08 01:00", "2024-01-10"]
    assert _steps(stamps, bin="7D") == [0, 0, 1, 1]
    assert _steps(stamps, bin="7D", origin="epoch") == [0, 1, 1, 1]  # weeks start Thursdays
    assert _steps(stamps, bin="1W") == [0, 0, 1, 1]  # calendar weeks, Monday to Sunday
    assert _steps(stamps, bin="W-WED") == [0, 1, 1, 1]  # weeks ending on Wednesday
    assert _steps(["2024-01-31", "2024-02-01", "2024-04-15"], bin="MS") == [0, 1, 3]
    assert _steps([5, 7, 12], bin=4) == [0, 0, 1]
    assert _steps([5, 7, 12], bin=4, origin="epoch") == [0, 0, 2]  # 4-7, 8-11, 12-15
    with pytest.raises(ValueError, match="origin must be 'first' or 'epoch'"):
        _steps([1], origin="start")


def test_unix_times_need_saying():
    week = 7 * 86_400
    with pytest.raises(ValueError, match="--time-format unix"):
        _steps([0, week], bin="1D")
    assert _steps([0, week], bin="1D", time_format="unix") == [0, 7]
    assert _steps([0, week * 1000], bin="1W", time_format="unix-ms") == [0, 1]
    with pytest.raises(ValueError, match="time_format must be 'unix'"):
        _steps(["x"], time_format="iso")


@settings(max_examples=60, deadline=None)
@given(
    times=st.lists(
        st.datetimes(min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2040, 1, 1)),
        min_size=1, max_size=8,
    ),
    days=st.integers(1, 30),
)  # fmt: skip
def test_day_bins_equal_a_brute_force_count_from_the_first_day(times, days):
    first = min(times).date()
    expected = [(t.date() - first).days // days for t in times]
    assert _steps([t.isoformat() for t in times], bin=f"{days}D") == expected


@settings(max_examples=60, deadline=None)
@given(
    times=st.lists(
        st.datetimes(min_value=dt.datetime(1990, 1, 1), max_value=dt.datetime(2040, 1, 1)),
        min_size=1, max_size=8,
    ),
)  # fmt: skip
def test_weekly_bins_equal_iso_weeks(times):
    monday = [t.date() - dt.timedelta(days=t.weekday()) for t in times]
    expected = [(m - min(monday)).days // 7 for m in monday]
    assert _steps(np.array(times, dtype="datetime64[us]"), bin="1W") == expected
