"""Reader-side findings of the fifth hostile round (issue 30): times read exactly, one
line per refusal, calendar bins by a stated rule."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

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
    assert "t.csv'" in msg and "time column 'time' line 3" in msg
    assert "is not an integer time" in msg
    assert "--bin" in msg and len(msg.replace(str(tmp_path), "D")) <= 300 and "\n" not in msg


@pytest.mark.parametrize("origin", ["first", "epoch"])
@pytest.mark.parametrize("cell", ["18446744073709551000", "9223372036854775808", "1e19", "-1e400"])
def test_times_outside_int64_are_refused_naming_the_row(tmp_path, origin, cell):
    with pytest.raises(ValueError, match=r"line 3: '[-0-9e.]+' is outside the 64-bit integer"):
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


# -- parallel edges: one rule in every format (they add, as edge-list rows do) --------


def _json_doc(rows, directed: bool) -> str:
    import json

    nodes = [{"id": n} for n in sorted({x for u, v, _ in rows for x in (u, v)})]
    edges = [{"source": u, "target": v, "weight": w} for u, v, w in rows]
    step = {"directed": directed, "multigraph": True, "nodes": nodes, "edges": edges}
    return json.dumps({"format": "baygo-graph-series", "graphs": [step]})


def _graphml_doc(rows, directed: bool) -> str:
    nodes = sorted({x for u, v, _ in rows for x in (u, v)})
    return (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="w" for="edge" attr.name="weight" attr.type="double"/>'
        '<key id="s" for="edge" attr.name="step" attr.type="long"/>'
        f'<graph edgedefault="{"directed" if directed else "undirected"}">'
        + "".join(f'<node id="{n}"/>' for n in nodes)
        + "".join(
            f'<edge source="{u}" target="{v}"><data key="s">0</data><data key="w">{w}</data></edge>'
            for u, v, w in rows
        )
        + "</graph></graphml>"
    )


def _gexf_doc(rows, directed: bool) -> str:
    nodes = sorted({x for u, v, _ in rows for x in (u, v)})
    kind = "directed" if directed else "undirected"
    return (
        '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">'
        f'<graph defaultedgetype="{kind}"><nodes>'
        + "".join(f'<node id="{n}"/>' for n in nodes)
        + "</nodes><edges>"
        + "".join(
            f'<edge id="{k}" source="{u}" target="{v}" weight="{w}"/>'
            for k, (u, v, w) in enumerate(rows)
        )
        + "</edges></graph></gexf>"
    )


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from("abc"), st.sampled_from("abc"), st.sampled_from([0.5, 1, 2, 3])),
        min_size=1,
        max_size=8,
    ),
    directed=st.booleans(),
)
def test_parallel_edges_add_in_every_format(tmp_path_factory, rows, directed):
    folder = tmp_path_factory.mktemp("par")
    csv = folder / "e.csv"
    csv.write_text("source,target,time,weight\n" + "".join(f"{u},{v},0,{w}\n" for u, v, w in rows))
    ref = as_series(csv, directed=directed, self_weight=0).weights(0).toarray()
    for suffix, doc in ((".json", _json_doc), (".graphml", _graphml_doc), (".gexf", _gexf_doc)):
        p = folder / f"s{suffix}"
        p.write_text(doc(rows, directed))
        got = as_series(p, self_weight=0)  # made elsewhere: edges, the same rule as the CSV
        assert got.nodes == tuple(sorted({x for u, v, _ in rows for x in (u, v)}))
        np.testing.assert_allclose(got.weights(0).toarray(), ref, rtol=1e-12, err_msg=suffix)


def test_a_json_series_with_a_byte_order_mark_reads(tmp_path):
    p = tmp_path / "bom.json"
    p.write_text(_json_doc([("a", "b", 1)], True), encoding="utf-8-sig")
    assert as_series(p).nodes == ("a", "b")


# -- GEXF: dynamic weights (Gephi's attvalues), open spells, exclusive bounds ---------

GEPHI = """<?xml version="1.0" encoding="UTF-8"?>
<gexf xmlns="http://gexf.net/1.3" version="1.3">
  <graph mode="dynamic" defaultedgetype="directed" timeformat="integer">
    <attributes class="node" mode="static">
      <attribute id="0" title="informative" type="boolean"/>
    </attributes>
    <nodes>
      <node id="1" label="ana"><attvalues><attvalue for="0" value="true"/></attvalues></node>
      <node id="2" label="ben"/>
      <node id="3" label="cy"/>
    </nodes>
    <edges>
      <edge id="0" source="1" target="2" weight="1.0">
        <attvalues>
          <attvalue for="weight" value="5.0" start="0" end="1"/>
          <attvalue for="weight" value="3.0" start="2" endopen="3"/>
        </attvalues>
        <spells><spell start="0" end="4"/></spells>
      </edge>
      <edge id="1" source="3" target="2"><spells><spell start="0"/></spells></edge>
      <edge id="2" source="2" target="3" start="4"/>
    </edges>
  </graph>
</gexf>
"""


def _row(series, t, node=1):
    return series.weights(t).toarray()[node].tolist()


def test_gephi_dynamic_weights_are_honoured(tmp_path):
    p = tmp_path / "gephi.gexf"
    p.write_text(GEPHI)
    s = as_series(p, self_weight=0)  # the edges' weights alone
    assert s.nodes == (1, 2, 3) and s.n_steps == 5 and s.informative == 0
    # ben hears ana (5, 5, 3, then the static 1) and cy (1: no weight) at every step
    assert [_row(s, t) for t in range(5)] == [
        [5 / 6, 0.0, 1 / 6], [5 / 6, 0.0, 1 / 6], [0.75, 0.0, 0.25], [0.5, 0.0, 0.5],
        [0.5, 0.0, 0.5],
    ]  # fmt: skip
    # cy hears ben only from step 4 (start only: to the file's last step)
    assert [_row(s, t, 2)[1] for t in range(5)] == [0, 0, 0, 0, 1.0]


def test_declared_dynamic_weight_attribute_is_a_weight(tmp_path):
    text = GEPHI.replace(
        "</attributes>",
        '</attributes><attributes class="edge" mode="dynamic">'
        '<attribute id="w" title="weight" type="double"/></attributes>',
    ).replace('for="weight"', 'for="w"')
    p = tmp_path / "declared.gexf"
    p.write_text(text)
    assert _row(as_series(p, self_weight=0), 0) == [5 / 6, 0.0, 1 / 6]


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (('start="2" endopen="3"', 'start="1" end="3"'), "two weights are given for step 1"),
        (('value="5.0"', 'value="-5"'), "weight '-5': it is negative"),
        (('<spell start="0"/>', '<spell start="0.5"/>'), "time '0.5' is not an integer step"),
        (('<spell start="0"/>', '<spell startopen="2" endopen="3"/>'), "it holds no step"),
    ],
    ids=["overlapping weights", "negative", "fractional time", "empty open spell"],
)
def test_gexf_refusals_are_one_line(tmp_path, edit, match):
    p = tmp_path / "bad.gexf"
    p.write_text(GEPHI.replace(*edit))
    with pytest.raises(RunFormatError, match=match) as e:
        as_series(p)
    assert "\n" not in str(e.value) and len(str(e.value).replace(str(tmp_path), "D")) <= 300


def test_our_gexf_round_trips_dynamic_weights(tmp_path):
    import baygo_graph as bg

    frame = pd.DataFrame(
        {"source": ["a", "a", "c", "a", "c"], "target": ["b", "b", "b", "b", "b"],
         "time": [0, 0, 0, 1, 3], "weight": [1.0, 2.0, 1.0, 5.0, 0.5]}
    )  # fmt: skip
    s = as_series(frame)
    back = as_series(bg.write_series(s, tmp_path / "s.gexf"))
    for t in range(s.n_steps):
        assert (back.weights(t) != s.weights(t)).nnz == 0
    p = tmp_path / "gephi.gexf"
    p.write_text(GEPHI)
    g = as_series(p)
    again = as_series(bg.write_series(g, tmp_path / "again.gexf"))
    assert again.nodes == g.nodes and again.informative == g.informative
    for t in range(g.n_steps):
        assert (again.weights(t) != g.weights(t)).nnz == 0


# -- the hostile round's time findings (H1-H4 of hostile5) ----------------------------


def test_a_negative_time_beside_one_past_int64_is_one_line(tmp_path):
    """H1: a StopIteration traceback before."""
    with pytest.raises(ValueError, match="line 3: '9223372036854775808' is outside the 64-bit"):
        _csv(tmp_path, "h1.csv", "source,target,time\na,b,-1\nb,a,9223372036854775808\n")
    with pytest.raises(ValueError, match="line 2: '9223372036854775808' is outside the 64-bit"):
        _csv(tmp_path, "h1.txt", "1 2 -1\n2 1 9223372036854775808\n")


@pytest.mark.parametrize("word", ["now", "today", "NOW", " Today "])
@pytest.mark.parametrize("time_format", [None, "%Y-%m-%d"])
def test_the_clock_words_are_no_times(word, time_format):
    """H2: pandas read them as the machine's clock (a result that changed every hour)."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": ["2024-05-01", word]})
    with pytest.raises(ValueError, match="time column 'time' row 1: "):
        as_series(frame, bin="1h", time_format=time_format)


@pytest.mark.parametrize(
    "cells",
    [["2024-05-01 08:00", "2025", "2024-05-03"], ["2024-05-01", "2024-06"], ["2024-05", "2024"]],
)
def test_reduced_precision_dates_are_not_mixed_with_others(cells):
    """H3: '2025' among dates was 1 January 2025 (243 empty days added)."""
    n = len(cells)
    frame = pd.DataFrame({"source": ["a"] * n, "target": ["b"] * n, "time": cells})
    with pytest.raises(ValueError, match="mixes precisions"):
        as_series(frame, bin="1D")


def test_one_reduced_precision_throughout_is_read():
    months = pd.DataFrame({"source": ["a", "b", "a"], "target": ["b", "a", "b"],
                           "time": ["2024-05", "2024-07", "2024-06"]})  # fmt: skip
    assert as_series(months, bin="MS").n_steps == 3


@pytest.mark.parametrize("offset", ["+99:99", "+14:30", "-15:00", "+0160"])
def test_an_offset_no_clock_has_is_refused(offset):
    times = [f"2024-05-01T23:30:00{offset}", "2024-05-02T08:00"]
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": times})
    with pytest.raises(ValueError, match=f"row 0: .* has the UTC offset \\{offset}"):
        as_series(frame, bin="1D")


@pytest.mark.parametrize("bin_", ["YS-DEC", "YE-JAN", "YS-JUL", "YE-JUN", "YS", "YE", "2YS-APR"])
@pytest.mark.parametrize("origin", ["first", "epoch"])
def test_anchored_years_are_pandas_years(bin_, origin):
    """H4: YS-DEC and YE-JAN were binned as January-December years."""
    days = pd.Series(pd.to_datetime(["2023-07-09", "2024-01-05", "2024-03-01", "2024-11-30",
                                     "2024-12-01", "2024-12-20", "2025-06-30"]))  # fmt: skip
    offset = pd.tseries.frequencies.to_offset(bin_)
    end = offset.month if type(offset).__name__ == "YearEnd" else (offset.month - 2) % 12 + 1
    freq = f"Y-{pd.Timestamp(2000, end, 1).strftime('%b').upper()}"
    ordinals = pd.PeriodIndex(days, freq=freq).asi8
    anchor = ordinals.min() if origin == "first" else pd.Period("1970-01-01", freq).ordinal
    whole = (ordinals - anchor) // offset.n
    assert time_steps(days, bin=bin_, origin=origin).tolist() == (whole - whole.min()).tolist()


# -- archive files (H5, H7, H8 of hostile5) -------------------------------------------


@pytest.mark.parametrize(
    "columns", ["-,source,target", "-,source,target,-,-", "time,source,target"]
)
def test_a_comment_line_inside_the_data_is_refused_whatever_columns_are_kept(tmp_path, columns):
    """H5: with the first column skipped, two words of a comment became an edge."""
    p = tmp_path / "tij.dat"
    p.write_text("10\t1\t2\tA\tB\n20\t2\t3\tA\tB\n# comment here now\n30\t3\t1\tA\tB\n")
    with pytest.raises(RunFormatError, match="line 3 starts with '#': comment lines"):
        as_series(p, columns=columns)


def test_the_space_after_a_comma_of_a_headerless_file_separates_fields(tmp_path):
    """H7: '1, 2' read ' 2' (a second node 2)."""
    s = _csv(tmp_path, "cs.txt", "1, 2, 100\n2, 3, 200\n3 ,1\t, 300\n")
    assert s.nodes == (1, 2, 3) and s.n_steps == 201
    s = _csv(tmp_path, "cs.dat", "100, a, b\n101,b ,a\n", columns="time,source,target")
    assert s.nodes == ("a", "b")


@pytest.mark.parametrize("endless", [False, True], ids=["many rows", "one endless line"])
def test_a_compressed_bomb_is_refused_without_a_limit_that_cannot_work(tmp_path, monkeypatch,
                                                                         endless):  # fmt: skip
    """H8: the line advised a limit that only moved the refusal on, retry after retry."""
    import gzip

    p = tmp_path / "bomb.txt.gz"
    with gzip.open(p, "wb") as fh:
        fh.write(b"1 2 " + b"3" * 4_000_000 + b"\n" if endless else b"1 2 3\n" * 2_000_000)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "20MB")
    with pytest.raises(MemoryError) as e:
        as_series(p)
    msg = str(e.value)
    assert "bomb.txt.gz" in msg and "may hold more (gzip," in msg and "to run it" not in msg
    assert len(msg.replace(str(tmp_path), "D")) <= 300


# -- item 7: Unix seconds read without a bin warn once, naming the steps --------------


def _snap(tmp_path, times) -> Path:
    p = tmp_path / "msgs.txt"
    p.write_text("".join(f"{k % 7} {(k + 1) % 7} {t}\n" for k, t in enumerate(times)))
    return p


def test_unix_seconds_without_a_bin_warn_once(tmp_path):
    from baygo_graph.exceptions import TimeBinWarning

    p = _snap(tmp_path, range(1_082_040_961, 1_082_040_961 + 20_001 * 3, 3))
    with pytest.warns(TimeBinWarning) as caught:
        s = as_series(p)
    assert s.n_steps == 60_001 and len(caught) == 1
    msg = str(caught[0].message)
    assert "60001 steps, one per second" in msg and "(2004-04-15 to 2004-04-16)" in msg
    assert "--time-format unix --bin 1D" in msg and "bin='1D'" in msg and len(msg) <= 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_series(p, time_format="unix", bin="1D").n_steps == 2  # said: no warning
        assert as_series(p, bin=86_400).n_steps == 1


@pytest.mark.parametrize(
    "times",
    [range(0, 20_001), range(1_082_040_961, 1_082_040_961 + 5_000)],
    ids=["small integers", "few steps"],
)
def test_no_warning_for_counts_or_few_steps(tmp_path, times):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_series(_snap(tmp_path, times))


def test_unix_milliseconds_are_named_with_their_format(tmp_path):
    from baygo_graph.exceptions import TimeBinWarning

    p = _snap(tmp_path, range(1_700_000_000_000, 1_700_000_000_000 + 20_001))
    with pytest.warns(TimeBinWarning, match="one per millisecond .* --time-format unix-ms"):
        as_series(p)


# -- hostile5 H12, H13, H15 -----------------------------------------------------------


@pytest.mark.parametrize("form", ["frame", "parquet", "csv"])
def test_an_empty_text_label_is_refused_in_every_form(tmp_path, form):
    """H12: '' was a node from a DataFrame or Parquet, refused from the same rows as CSV."""
    frame = pd.DataFrame({"source": ["", "a"], "target": ["a", "b"], "time": [0, 1]})
    source = frame
    if form != "frame":
        source = tmp_path / f"e.{form}"
        frame.to_parquet(source) if form == "parquet" else frame.to_csv(source, index=False)
    where = "line 2" if form == "csv" else "row 0"  # a text file's line, a table's row
    with pytest.raises(ValueError, match=f"column 'source' is empty in {where}"):
        as_series(source)


@pytest.mark.parametrize(
    ("cells", "why"),
    [
        (["2016-12-31T23:00:00Z", "2016-12-31T23:59:60Z"], "is a leap second"),
        (["2024-W18-3", "2024-W19-1"], "time_format='%G-W%V-%u'"),
    ],
)
def test_times_are_refused_for_their_real_reason(cells, why):
    """H13: each was 'not ISO 8601 ... give time_format=%d/%m/%Y'."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": cells})
    with pytest.raises(ValueError, match=re.escape(why)) as e:
        as_series(frame, bin="1D")
    assert "%d/%m/%Y" not in str(e.value)


def test_decimal_and_duration_columns(tmp_path):
    from decimal import Decimal

    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"],
                          "time": [Decimal("1"), Decimal("4")]})  # fmt: skip
    frame.to_parquet(tmp_path / "d.parquet")
    assert as_series(tmp_path / "d.parquet").n_steps == 4  # integers, exactly
    with pytest.raises(ValueError, match="row 1: Decimal\\('4.5'\\) is not an integer time"):
        as_series(frame.assign(time=[Decimal("1"), Decimal("4.5")]))
    with pytest.raises(ValueError, match="holds durations, not times"):
        as_series(frame.assign(time=pd.to_timedelta([1, 2], unit="s")))


@pytest.mark.parametrize("weights", [(0.3, 0.5), (3, 5), (0, 0)])
def test_a_row_stochastic_claim_is_checked(tmp_path, weights):
    """H15: rows summing to 0.8, 8 or 0 were divided again without a word."""
    import json

    edges = [{"source": "a", "target": "b", "weight": weights[0]},
             {"source": "b", "target": "b", "weight": weights[1]}]  # fmt: skip
    doc = {"format": "baygo-graph-series", "row_stochastic": True,
           "graphs": [{"nodes": [{"id": "a"}, {"id": "b"}], "edges": edges}]}  # fmt: skip
    p = tmp_path / "rs.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(RunFormatError, match="step 0: node 'b''s weights sum to"):
        as_series(p)
    doc["row_stochastic"] = False  # not claimed: the rows are normalised, as documented
    p.write_text(json.dumps(doc))
    if sum(weights):
        assert as_series(p).weights(0).toarray()[1].sum() == pytest.approx(1.0)


def test_a_series_file_made_elsewhere_takes_the_self_weight_rule(tmp_path):
    """H14: Gephi/NetworkX files were read with self-weight 0, reported 'as stored'."""
    import json

    import networkx as nx

    import baygo_graph as bg

    g = nx.DiGraph([("a", "b"), ("b", "c")])
    doc = {"format": "baygo-graph-series", "graphs": [nx.node_link_data(g, edges="edges")]}
    p = tmp_path / "nx.json"
    p.write_text(json.dumps(doc))
    csv = tmp_path / "e.csv"
    csv.write_text("source,target,time\na,b,0\nb,c,0\n")
    for rule in (None, 0, 0.25):
        options = {} if rule is None else {"self_weight": rule}
        got, ref = as_series(p, **options), as_series(csv, **options)
        assert got.self_weight == ("equal" if rule is None else rule)
        assert (got.weights(0) != ref.weights(0)).nnz == 0
    ours = bg.write_series(as_series(p), tmp_path / "ours.json")
    assert as_series(ours).self_weight is None  # it holds W: kept as written
    with pytest.raises(ValueError, match="which it keeps"):
        as_series(ours, self_weight=0)


@pytest.mark.parametrize(
    ("name", "text", "options"),
    [
        ("hdr.txt", "FromNodeId\tToNodeId\n1\t2\n2\t3\n", {}),
        ("out.hdr", "% sym\nsource target weight time\n1 2 1 5\n", {}),
        ("c.csv", "source,target\na,b\nb,a\n", {"columns": "source,target"}),
        ("c.dat", "# t i j\nt i j\n1 2 3\n", {"columns": "time,source,target"}),
    ],
)
def test_a_header_row_of_a_headerless_file_is_no_edge(tmp_path, name, text, options):
    """H19: 'FromNodeId ToNodeId' became two nodes and an edge."""
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(RunFormatError, match="looks like a header row"):
        as_series(p, **options)


def test_unix_format_on_iso_dates_says_so_truthfully():
    """H21: the line said the bad first cell was an integer."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"],
                          "time": ["2024-01-05", "2024-01-08"]})  # fmt: skip
    with pytest.raises(ValueError) as e:
        as_series(frame, time_format="unix", bin="1D")
    assert str(e.value) == (
        "time column 'time' row 0: '2024-01-05' is not a number (time_format='unix' reads numbers)"
    )


def test_a_format_ending_in_an_offset_reads_the_written_clock_as_iso_text_does(tmp_path):
    """H24: pandas' 'Mixed timezones detected. Pass utc=True' for two offsets and %z."""
    times = ["2024-05-01 23:30+0200", "2024-05-01 22:00+0000", "2024-05-02 00:10-0130"]
    frame = pd.DataFrame({"source": ["a", "b", "a"], "target": ["b", "a", "b"], "time": times})
    got = time_steps(frame["time"], bin="1h", time_format="%Y-%m-%d %H:%M%z")
    iso = time_steps(pd.Series([t[:-2] + ":" + t[-2:] for t in times]), bin="1h")
    # a 1h bin is laid on the instants on the earliest time's clock (hostile6 G2):
    # 23:30, 00:00 and 03:40 at +02:00
    assert got.tolist() == iso.tolist() == [0, 1, 4]
    day = time_steps(frame["time"], bin="1D", time_format="%Y-%m-%d %H:%M%z")
    assert day.tolist() == [0, 0, 1]  # whole days: each one's own written clock
    with pytest.raises(ValueError, match="row 0: .* has the UTC offset \\+9900"):
        time_steps(pd.Series(["2024-05-01 23:30+9900"]), bin="1h", time_format="%Y-%m-%d %H:%M%z")


def test_networkx_graphs_are_bounded_as_they_come(monkeypatch):
    """H17: the same 2,000-edge graph 20,000 times took 5.2 GB under a 1 GiB budget, and
    an endless iterator of graphs was consumed until memory ran out."""
    import itertools

    import networkx as nx

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    g = nx.gnm_random_graph(200, 2_000, seed=0, directed=True)
    with pytest.raises(MemoryError, match="networkx graphs: 84 steps of 20000 so far"):
        as_series([g] * 20_000)
    with pytest.raises(MemoryError, match="pass fewer steps"):
        as_series(itertools.repeat(nx.DiGraph([(0, 1)])))
    assert as_series([g] * 3).n_steps == 3


@pytest.mark.parametrize(("name", "text", "said"), [
    ("h.csv", "source,target,time\n1,2,100\n2,,200\n", "column 'target' is empty in line 3"),
    ("h.txt", "1 2 100\n2\n", "target column 2 is empty in line 2"),  # headerless: by position
])  # fmt: skip
def test_an_empty_integer_label_is_named_by_its_row(tmp_path, name, text, said):
    """H25: pandas' 'cannot convert float NaN to integer' before."""
    with pytest.raises(ValueError, match=said):
        _csv(tmp_path, name, text)


@pytest.mark.parametrize(("name", "text", "line"), [
    ("w.csv", "source,target,time,weight\na,b,0,1e-400\nb,a,0,1\n", 2),
    ("out.w", "1 2 1e-400 0\n2 1 1 0\n", 1),
])  # fmt: skip
def test_a_positive_weight_that_underflows_is_refused(tmp_path, name, text, line):
    """H22: 1e-400 became 0 and its contact vanished from the connectivity verdict."""
    match = f"line {line}: '1e-400': it is positive but below the smallest float"
    with pytest.raises(ValueError, match=match):
        _csv(tmp_path, name, text)
    ok = _csv(tmp_path, "ok.csv", "source,target,time,weight\na,b,0,5e-324\nb,a,0,0e9\n")
    assert ok.weights(0).toarray()[1, 0] > 0
