"""A series' time axis (io/times.py TimeAxis): step 0's start on the times' own clock, the
bin and the origin, kept from every reader that bins times and by the series files.

Every step start is checked against a brute-force pandas computation (and every time
against the step it fell in) on random small cases."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import hypothesis.strategies as st
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

import baygo_graph as bg
from baygo_graph.inputs import as_series
from baygo_graph.io.times import TimeAxis, binned_times


def _iso(ts: pd.Timestamp) -> str:
    """A timestamp as the axis writes one (minutes unless it has seconds; Z for UTC)."""
    fine = ts.second or ts.microsecond or ts.nanosecond
    text = ts.isoformat(timespec="minutes" if not fine else "seconds")
    return text[:-6] + "Z" if str(ts.tz) == "UTC" else text


def _contains(axis: TimeAxis, times: pd.Series, steps) -> None:
    """Every time lies in [start of its step, start of the next): the axis says the truth."""
    for t, k in zip(times, np.asarray(steps).tolist(), strict=True):
        a, b = pd.Timestamp(axis.step_start(k)), pd.Timestamp(axis.step_end(k))
        t = pd.Timestamp(t)
        if t.tz is None and a.tz is not None:  # naive wall times on a zoned clock
            a, b = a.tz_localize(None), b.tz_localize(None)
        assert a <= t < b, (t, k, a, b)


def test_integer_times_keep_their_own_first_value():
    steps, axis = binned_times(pd.Series([1082040961, 1082040963, 1082041000]), bin=10)
    assert steps.tolist() == [0, 0, 3]
    assert axis == TimeAxis(start="1082040961", bin=10, origin="first")
    assert axis.describe() == "1 step = 10 from time 1082040961 (origin: first)"
    assert axis.step_start(3) == "1082040991"
    assert axis.span(0, 3) == "times 1082040961 to 1082041000"
    _, epoch = binned_times(pd.Series([1082040961, 1082041000]), bin=10, origin="epoch")
    assert epoch.start == "1082040960" and epoch.span(0, 0) == "times 1082040960 to 1082040969"
    _, one = binned_times(pd.Series([5, 9]))
    assert one.span(2, 2) == "time 7"


def test_unix_times_with_an_int_bin_are_counted_as_written_and_said_unix():
    _, axis = binned_times(pd.Series([1082040961, 1082155839]), bin=86400, time_format="unix")
    assert axis.start == "1082040961" and axis.bin == 86400 and axis.clock == "Unix seconds"


def test_unix_times_with_a_duration_are_utc_days():
    steps, axis = binned_times(pd.Series([1714550400 + 3600, 1714550400 + 86400 * 2]),
                               bin="1D", time_format="unix")  # fmt: skip
    assert steps.tolist() == [0, 2]
    assert axis.start == "2024-05-01T00:00Z" and axis.zone == "UTC"
    assert axis.describe() == "1 step = 1D from 2024-05-01T00:00Z (origin: first)"


def test_iso_times_with_an_offset_keep_it():
    times = pd.Series(["2024-05-01T08:00+02:00", "2024-05-06T11:00+02:00"])
    steps, axis = binned_times(times, bin="1D")
    assert axis.describe() == "1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)"
    assert axis.step_start(5) == "2024-05-06T00:00+02:00"
    assert axis.span(0, 1) == "2024-05-01 to 2024-05-02" and axis.span(3, 3) == "2024-05-04"
    _contains(axis, times, steps)
    _, six = binned_times(times, bin="6h")
    assert six.start == "2024-05-01T06:00+02:00"
    assert six.span(0, 1) == "[2024-05-01T06:00+02:00, 2024-05-01T18:00+02:00)"


def test_europe_paris_days_across_the_spring_dst_change():
    local = pd.to_datetime(["2024-03-30 10:00", "2024-03-31 23:30", "2024-04-01 00:30"])
    aware = pd.Series(local).dt.tz_localize("Europe/Paris")
    steps, axis = binned_times(aware, bin="1D")
    assert steps.tolist() == [0, 1, 2] and axis.zone == "Europe/Paris"
    brute = pd.date_range("2024-03-30", periods=4, freq="D", tz="Europe/Paris")
    assert [axis.step_start(k) for k in range(4)] == [_iso(t) for t in brute]
    assert axis.step_start(2) == "2024-04-01T00:00+02:00"  # after the 23-hour day
    _contains(axis, aware, steps)
    # sub-day bins are laid on the earliest time's offset (never reorder two events)
    steps, hours = binned_times(aware, bin="12h")
    assert hours.zone == "+01:00"
    _contains(hours, aware, steps)
    # text with two offsets, binned on its wall clock: said so
    text = pd.Series(["2024-03-30T10:00+01:00", "2024-04-01T00:30+02:00"])
    steps, wall = binned_times(text, bin="1D")
    assert wall.zone is None and "+01:00" in wall.clock and "+02:00" in wall.clock
    assert wall.step_start(2) == "2024-04-01T00:00" and wall.clock in wall.describe()


def test_calendar_bins_month_and_week():
    times = pd.Series(["2024-01-31", "2024-02-29 12:00", "2024-05-01"])
    steps, months = binned_times(times, bin="MS")
    assert steps.tolist() == [0, 1, 4] and months.start == "2024-01-01T00:00"
    assert months.span(1, 1) == "2024-02-01 to 2024-02-29"
    _contains(months, times, steps)
    steps, weeks = binned_times(times, bin="1W")
    assert weeks.start == "2024-01-29T00:00"  # the Monday of the first week
    assert weeks.span(0, 0) == "2024-01-29 to 2024-02-04"
    _contains(weeks, times, steps)


def test_origin_first_and_epoch_differ_for_seven_days():
    times = pd.Series(["2024-05-15 10:00", "2024-05-30"])
    _, first = binned_times(times, bin="7D")
    _, epoch = binned_times(times, bin="7D", origin="epoch")
    assert first.start == "2024-05-15T00:00" and first.origin == "first"
    assert epoch.start == "2024-05-09T00:00"  # a Thursday: 1970-01-01 was one
    assert pd.Timestamp(epoch.start).day_of_week == 3


_BINS = ("1D", "2D", "7D", "6h", "90min", "MS", "2MS", "1W", "W-WED", "YS")


@settings(max_examples=60, deadline=None)
@given(
    minutes=st.lists(st.integers(0, 400 * 24 * 60), min_size=1, max_size=6),
    base=st.integers(0, 3000),
    bin=st.sampled_from(_BINS),
    origin=st.sampled_from(("first", "epoch")),
    zone=st.sampled_from((None, "+02:00", "-05:30", "Europe/Paris", "unix")),
    k=st.integers(0, 30),
)
def test_step_starts_equal_a_brute_force_pandas_computation(minutes, base, bin, origin, zone, k):
    start = pd.Timestamp("2020-01-01") + pd.Timedelta(days=base)
    wall = pd.DatetimeIndex([start + pd.Timedelta(minutes=m) for m in minutes])
    if zone == "unix":
        values = pd.Series((wall - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1))
        steps, axis = binned_times(values, bin=bin, origin=origin, time_format="unix")
        clock = "UTC"
    elif zone == "Europe/Paris":
        values = pd.Series(wall.tz_localize(zone, ambiguous=True, nonexistent="shift_forward"))
        wall = pd.DatetimeIndex(values).tz_localize(None)
        steps, axis = binned_times(values, bin=bin, origin=origin)
        clock = zone
    else:
        suffix = "" if zone is None else zone
        values = pd.Series([t.isoformat() + suffix for t in wall])
        steps, axis = binned_times(values, bin=bin, origin=origin)
        clock = zone
    first = wall.min()
    offset = pd.tseries.frequencies.to_offset(bin)
    calendar = type(offset).__name__ in ("MonthBegin", "Week", "YearBegin")
    sub_day = not calendar and pd.Timedelta(offset) % pd.Timedelta(days=1) != pd.Timedelta(0)
    if clock == "Europe/Paris" and sub_day:  # laid on the earliest time's UTC offset
        clock = pd.Timestamp(values.min()).isoformat()[-6:]
        wall = pd.DatetimeIndex(values).tz_convert("UTC").tz_localize(None) + (
            pd.Timestamp(values.min()).utcoffset())  # fmt: skip
        first = wall.min()
    # brute force: the start of step 0, then of step k, with pandas' own offsets
    if calendar:
        freq = {"MonthBegin": "M", "YearBegin": "Y"}.get(type(offset).__name__)
        freq = freq or f"W-{('MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN')[offset.weekday]}"
        period = first.to_period(freq)
        if origin == "epoch" and offset.n > 1:
            zero = pd.Period("1970-01-01", freq)
            period = zero + ((period - zero).n // offset.n) * offset.n
        kth = (period + k * offset.n).start_time
    else:
        width = pd.Timedelta(offset)
        anchor = first.normalize() if origin == "first" else pd.Timestamp("1970-01-01")
        kth = anchor + ((first - anchor) // width + k) * width
    if clock == "Europe/Paris":
        kth = kth.tz_localize(clock, ambiguous=True, nonexistent="shift_forward")
    elif clock == "UTC":
        kth = kth.tz_localize("UTC")
    elif clock is not None:
        sign = -1 if clock[0] == "-" else 1
        minutes_off = sign * (int(clock[1:3]) * 60 + int(clock[4:6]))
        kth = kth.tz_localize(dt.timezone(dt.timedelta(minutes=minutes_off)))
    assert axis.step_start(k) == _iso(kth)
    assert axis.bin == bin and axis.origin == origin
    _contains(axis, values if zone not in (None, "unix") else pd.Series(wall), steps)


def _dated(tmp_path):
    p = tmp_path / "dates.csv"
    p.write_text(
        "source,target,time\n"
        "a,b,2024-05-01T08:00+02:00\nb,c,2024-05-02T09:00+02:00\nc,a,2024-05-06T11:00+02:00\n"
    )
    return p


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
def test_write_series_round_trip_keeps_the_axis(tmp_path, suffix):
    s = as_series(_dated(tmp_path), bin="1D")
    assert s.time_axis.describe() == "1 step = 1D from 2024-05-01T00:00+02:00 (origin: first)"
    back = as_series(bg.write_series(s, tmp_path / f"s{suffix}"))
    assert back.time_axis == s.time_axis and back.n_steps == s.n_steps == 6
    assert s.head(2).time_axis == s.time_axis  # a head starts at the same step 0
    # a file without an axis (a run's steps) reads as before: steps only
    run = bg.Run.from_choices([[1, 0], [1, 0]])
    assert as_series(bg.write_series(run, tmp_path / f"r{suffix}")).time_axis is None


def test_a_damaged_axis_is_refused_in_one_line(tmp_path):
    import json

    p = bg.write_series(as_series(_dated(tmp_path), bin="1D"), tmp_path / "s.json")
    doc = json.loads(p.read_text())
    doc["time_axis"]["start"] = "not a time"
    p.write_text(json.dumps(doc))
    with pytest.raises(bg.exceptions.RunFormatError, match="time_axis") as info:
        as_series(p)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
def test_every_digit_of_every_axis_copy_is_covered(tmp_path, suffix):
    # hostile18 W9: the axis was outside the file's digest, so 2024-05-01 -> 2024-04-01
    # moved every date a month without a word; each copy (the fields, their text, the
    # GEXF description) is now checked
    p = bg.write_series(as_series(_dated(tmp_path), bin="1D"), tmp_path / f"s{suffix}")
    text = p.read_text()
    places = [m.start() + i for m in re.finditer("2024-05-01", text) for i in (3, 6, 9)]
    assert len(places) >= 6  # at least two copies, three digits each
    for at in places:
        bad = tmp_path / f"bad{suffix}"
        bad.write_text(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :])
        with pytest.raises(bg.exceptions.RunFormatError) as info:
            as_series(bad)
        assert "\n" not in str(info.value)
    assert as_series(p).time_axis.start == "2024-05-01T00:00+02:00"  # the file itself reads


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
def test_a_digest_written_before_it_covered_the_axis_is_said_so(tmp_path, suffix, monkeypatch):
    # hostile20 Y7: a file written between the axis (3849aff) and its digest (c90552b) was
    # refused as "changed or damaged"; its digest matches all but the axis
    from baygo_graph.io.gexf import series_digest

    monkeypatch.chdir(tmp_path)
    s = as_series(_dated(tmp_path), bin="1D")
    p = bg.write_series(s, f"s{suffix}")
    old = series_digest(dataclasses.replace(s, time_axis=None))  # what that code wrote
    text = p.read_text()
    assert text.count(series_digest(s)) == 1
    p.write_text(text.replace(series_digest(s), old))
    with pytest.raises(bg.exceptions.RunFormatError) as info:
        as_series(p)
    said = str(info.value)
    assert "its digest leaves out its time axis (written by a baygo before the digest " in said
    assert "write it again" in said and "\n" not in said and len(said) <= 300, said
    p.write_text(text.replace(series_digest(s), "0" * 64))  # any other digest: changed
    with pytest.raises(bg.exceptions.RunFormatError, match="changed or damaged"):
        as_series(p)


def test_a_gexf_description_stating_a_second_axis_is_refused(tmp_path):
    # hostile20 (nit): a second, contradicting axis sentence appended to the description
    # was read, the keywords' dates kept
    s = as_series(_dated(tmp_path), bin="1D")
    p = bg.write_series(s, tmp_path / "s.gexf")
    text = p.read_text()
    said = s.time_axis.describe()
    other = said.replace("2024-05-01", "2024-04-01")
    for edited in (said + "; " + other, other + "; " + said, said + "; " + said):
        bad = tmp_path / "bad.gexf"
        bad.write_text(text.replace(said, edited, 1))
        with pytest.raises(bg.exceptions.RunFormatError, match="state the one time axis"):
            as_series(bad)
    assert as_series(p).time_axis == s.time_axis


def test_a_series_without_an_axis_keeps_its_digest():
    from baygo_graph.io.gexf import series_digest

    s = as_series([nx.DiGraph([(0, 1)]), nx.DiGraph([(1, 0)])])
    axis = TimeAxis(start="100", bin=5, origin="first")
    assert series_digest(s) == series_digest(dataclasses.replace(s, time_axis=None))
    assert series_digest(s) != series_digest(dataclasses.replace(s, time_axis=axis))


def test_readers_without_times_keep_no_axis_and_archives_keep_theirs(tmp_path):
    assert as_series([nx.DiGraph([(0, 1)])]).time_axis is None
    static = tmp_path / "out.static"
    static.write_text("% sym unweighted\n1 2\n2 3\n")
    assert as_series(static).time_axis is None  # no time column: no axis
    snap = tmp_path / "CollegeMsg.txt"
    snap.write_text("1 2 1082040961\n2 1 1082155839\n")
    axis = as_series(snap, bin=86400).time_axis
    assert axis.start == "1082040961" and axis.bin == 86400


def test_foreign_objects_keep_their_times():
    dn = pytest.importorskip("dynetx")
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=3)
    g.add_interaction("a", "b", t=5)
    assert as_series(g).time_axis == TimeAxis(start="3", bin=1)


def test_a_gexf_made_elsewhere_keeps_its_first_time(tmp_path):
    g = nx.DiGraph(mode="dynamic")
    g.add_edge("a", "b", start=1000, end=1002)
    g.add_edge("b", "a", start=1004, end=1004)
    nx.write_gexf(g, tmp_path / "x.gexf")
    s = as_series(tmp_path / "x.gexf")
    assert s.n_steps == 5 and s.time_axis == TimeAxis(start="1000", bin=1)
    assert s.time_axis.span(4, 4) == "time 1004"
    static = tmp_path / "s.gexf"
    nx.write_gexf(nx.DiGraph([("a", "b")]), static)
    assert as_series(static).time_axis is None  # no times: steps only


FAR = [  # hostile19 X1: step 0 in year 0; X2: the end of the last step past 2262-04-11
    (["0001-01-01", "9999-12-31"], "7W", "epoch", "0000-12-18T00:00", 0,
     "0000-12-18 to 0001-02-04"),
    (["2262-04-10T00:00", "2262-04-11T23:00"], "1D", "first", "2262-04-10T00:00", 1,
     "2262-04-10 to 2262-04-11"),
    (["2262-04-10T00:00", "2262-04-11T23:00"], "1h", "first", "2262-04-10T00:00", 1,
     "[2262-04-10T00:00, 2262-04-10T02:00)"),
    (["2262-04-10T00:00", "2262-04-11T23:00"], "100000D", "first", "2262-04-10T00:00", 0,
     "2262-04-10 to 2536-01-23"),
]  # fmt: skip


@pytest.mark.parametrize(("times", "bin", "origin", "start", "k", "span"), FAR)
def test_axes_far_from_1970_are_said_in_words(times, bin, origin, start, k, span):
    steps, axis = binned_times(pd.Series(times), bin=bin, origin=origin)
    assert axis.start == start and axis.span(0, k) == span
    last = int(steps.max())
    assert axis.step_label(last) and axis.span(0, last)  # every step said, no traceback
    assert axis.viewer_rule() is not None


def test_a_step_past_the_last_timestamp_is_said_so():
    axis = TimeAxis(start="2262-04-10T00:00", bin="100000D")
    assert axis.span(0, 10**6) == "from 2262-04-10"
    assert axis.step_start(10**6) == "a time outside the timestamps pandas holds"
    clock = TimeAxis(start="2262-04-10T00:00", bin="1h")
    assert clock.span(0, 10**12).startswith("from 2262-04-10T00:00")


@pytest.mark.parametrize(
    ("start", "bin", "said"),
    [
        ("3", "5", r"start '3' is an integer time: its bin must be an int \(5, not '5'\)"),
        ("3", "1D", "start '3' is an integer time: its bin must be an int, got '1D'"),
        ("3", -5, "an integer bin must be > 0, got -5"),
        ("3", 0, "an integer bin must be > 0, got 0"),
        ("3", 5.0, r"bin must be an int \(integer times\) or a str .* got float"),
        ("3", True, "got bool"),
        ("2024-05-01", 5, "start must be an integer time as written, as the int bin 5"),
        ("x", "1D", "start must be an ISO 8601 time for the bin '1D', got 'x'"),
        ("2024-05-01", "abc", r"bin must be a duration \('15min'"),
    ],
)
def test_an_axis_says_what_its_bin_and_start_must_be(start, bin, said):
    # hostile20 (nit): "bin": "5" beside an integer start was refused in pandas' words
    # 'Given date string "3" not likely a datetime'
    with pytest.raises((ValueError, TypeError), match=said):
        TimeAxis(start=start, bin=bin)
    with pytest.raises(ValueError, match=said):
        TimeAxis.from_dict({"start": start, "bin": bin})


def _ints(tmp_path):
    p = tmp_path / "ints.csv"
    p.write_text("source,target,time\na,b,3\nb,c,9\nc,a,20\n")
    return as_series(p, bin=5)


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            {'"bin": 5': '"bin": 0', "1 step = 5 ": "1 step = 0 "},
            "an integer bin must be > 0, got 0",
        ),
        ({'"bin": 5': '"bin": -3', "1 step = 5 ": "1 step = -3 "}, "an integer bin must be > 0"),
        (
            {
                '"start": "3"': '"start": "' + "9" * 4000 + '"',
                "time 3 ": "time " + "9" * 4000 + " ",
            },
            r"start 9.999...e\+3999 \(a 4000-digit integer\) is outside the 64-bit integer range",
        ),
        ({'"zone": null': '"zone": "UTC"'}, "integer times have no zone, got 'UTC'"),
    ],
)
def test_a_series_files_axis_is_checked_field_by_field(tmp_path, suffix, edit, said):
    # hostile21 Z5: a file's axis was read unchecked: bin 0 or -3 ("times 0 to -7": time
    # running backwards), a 4,000-digit start (4,048-character report lines)
    p = bg.write_series(_ints(tmp_path), tmp_path / f"s{suffix}")
    text = p.read_text()
    for old, new in edit.items():
        assert old in text
        text = text.replace(old, new)
    p.write_text(text)
    with pytest.raises(bg.exceptions.RunFormatError, match=said) as info:
        as_series(p)
    assert str(p) in str(info.value) and "\n" not in str(info.value)
    assert len(str(info.value)) <= 300 + len(str(p))


@pytest.mark.parametrize(
    ("zone", "said"),
    [("Mars/Olympus", "got 'Mars/Olympus'"), ("+25:00", "got '\\+25:00'"), (5, "got 5")],
)
def test_an_axis_zone_is_a_clock_pandas_knows(zone, said):
    with pytest.raises(ValueError, match="zone must be 'UTC', a UTC offset .* " + said):
        TimeAxis(start="2024-05-01T00:00", bin="1D", zone=zone)
    for ok in ("UTC", "+02:00", "-09:30", "Europe/Paris", None):
        TimeAxis(start="2024-05-01T00:00", bin="1D", zone=ok)


@pytest.mark.parametrize("t", [2**63, -(2**63) - 1, 2**70, 1e300])
def test_foreign_times_past_64_bits_are_refused_as_edge_list_times(t):
    # hostile21 Z5: DyNetX t=2**70 gave '1 step = 1 from time 1180591620717411303424' and
    # a file every command then read; edge-list times are refused beyond 64 bits
    dn = pytest.importorskip("dynetx")
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=t)
    g.add_interaction("b", "a", t=t)
    with pytest.raises(ValueError, match="outside the 64-bit integer range of times") as info:
        as_series(g)
    assert len(str(info.value)) <= 300
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=2**63 - 1)  # the last time in range reads
    assert as_series(g).time_axis.start == str(2**63 - 1)


@pytest.mark.parametrize(
    ("times", "time_format", "bin", "said"),
    [
        ([1714550400000, 1717228800000], "unix", "1D", "look like Unix milliseconds"),
        ([1714550400000, 1717228800000], "unix", 86_400, "look like Unix milliseconds"),
        ([1714550400000000, 1714550400000001], "unix-ms", "1h", "look like Unix microseconds"),
        ([0, 253_402_300_800], "unix", "1D", r"row 1: 253402300800 as Unix seconds"),
        ([-62_135_596_801, 0], "unix", "1D", r"row 0: -62135596801 as Unix seconds is past"),
    ],
)
def test_unix_times_past_the_years_an_axis_writes_are_refused(times, time_format, bin, said):
    """hostile22 Q4: Unix milliseconds read as seconds (year ~56,300) were binned into
    31,001 daily steps and every teller dropped the time axis without a word."""
    from baygo_graph.io.times import binned_times

    with pytest.raises(bg.exceptions.CellError, match=said) as info:
        binned_times(pd.Series(times), bin=bin, time_format=time_format)
    assert "(years 1 to 9999)" in str(info.value) and len(str(info.value)) <= 300


@pytest.mark.parametrize(
    ("times", "time_format", "start"),
    [
        ([253_402_300_799, 0], "unix", "1970-01-01T00:00Z"),
        ([-62_135_596_800, 0], "unix", "0001-01-01T00:00Z"),
        ([2**63 - 1], "unix-ns", "2262-04-11T00:00Z"),
        ([1714550400000, 1717228800000], "unix-ms", "2024-05-01T00:00Z"),
    ],
)
def test_unix_times_inside_the_years_keep_their_axis(times, time_format, start):
    from baygo_graph.io.times import binned_times

    axis = binned_times(pd.Series(times), bin="1D", time_format=time_format)[1]
    assert axis.describe() == f"1 step = 1D from {start} (origin: first)"


@pytest.mark.parametrize("unit_given", ["unix", "unix-ms"])
def test_unix_milliseconds_read_as_seconds_are_refused_not_binned_dateless(tmp_path, unit_given):
    # hostile22 Q4: read as seconds they land in the year ~56,300: 31,001 daily steps and
    # every teller dropped the time axis without a word
    p = tmp_path / "ms.txt"
    p.write_text("1 2 1714550400000\n2 1 1714636800000\n1 2 1717228800000\n")
    if unit_given == "unix":
        with pytest.raises(ValueError, match="years 1 to 9999.*time_format='unix-ms'"):
            as_series(p, time_format="unix", bin="1D")
    else:
        s = as_series(p, time_format="unix-ms", bin="1D")
        assert s.n_steps == 32 and s.time_axis.start == "2024-05-01T00:00Z"
