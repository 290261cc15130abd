"""Hostile round 9, reader side: the findings of /round 9 (M1, ...) with their payloads."""

from __future__ import annotations

import io
import json
import re
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from baygo_graph import Run
from baygo_graph.exceptions import BudgetError, RunFormatError
from baygo_graph.inputs import as_series


# -- M1: a double quote in a headerless file is a character, never CSV quoting --------
@pytest.mark.parametrize(
    ("name", "content", "options", "nodes", "steps"),
    [
        ("CollegeMsgQ.txt", '1 "x 100\n2 3 101\n4 y" 102\n5 6 103\n', {},
         ['"x', "1", "2", "3", "4", "5", "6", 'y"'], 4),
        ("out.qspan", '% asym unweighted\n"1 2\n3 4\n5" 6\n7 8\n', {},
         ['"1', "2", "3", "4", '5"', "6", "7", "8"], 1),
        ("tij_q.dat", '20\t"a\tb\tX\tY\n40\tc"\td\tY\tZ\n60\te\tf\tZ\tZ\n',
         {"columns": "time,source,target"}, ['"a', "b", 'c"', "d", "e", "f"], 41),
        ("q.txt", '"" 2 10\n3 4 11\n', {}, ['""', "2", "3", "4"], 2),
        ("comma.txt", '"a,b",1\nc,d,2\n', {}, None, None),  # 3 fields: refused below
    ],
)  # fmt: skip
def test_quotes_in_headerless_files_are_characters(tmp_path, name, content, options, nodes,
                                                   steps):  # fmt: skip
    path = tmp_path / name
    path.write_text(content)
    if nodes is None:  # the first line's fields are counted as the rows are read
        s = as_series(path, **options)
        assert set(s.nodes) == {'"a', 'b"', "c", "d"} and s.n_steps == 2
        return
    s = as_series(path, **options)
    assert sorted(s.nodes) == sorted(nodes)
    assert s.n_steps == steps
    assert s.n_agents == len(nodes)  # every line one row: no label spans lines


# -- M2: a run's JSON metadata is budgeted at what parsing it costs -------------------
def test_run_metadata_is_budgeted_at_its_parse_cost(tmp_path, monkeypatch, saved_runs, kit):
    """A 10^6-element list in ``meta`` (8 MB as the member's text, parsed to ~25 B a
    character) is refused under a 40 MB budget before it is parsed; the real meta reads."""
    run, blob = saved_runs["dynamic"]
    items = kit.members(blob)
    meta = json.loads(str(np.load(io.BytesIO(items["meta.npy"]))))
    meta["config"]["pad"] = [0] * 1_000_000
    bomb = tmp_path / "bomb.npz"
    bomb.write_bytes(kit.make_zip(items | {"meta.npy": kit.npy(np.array(json.dumps(meta)))}))
    real = tmp_path / "real.npz"
    real.write_bytes(blob)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "40MB")
    with pytest.raises(BudgetError) as e:
        Run.load(bomb)
    text = str(e.value)
    assert "meta" in text and "bomb.npz" in text and "\n" not in text and len(text) <= 300
    assert Run.load(real).n_steps == run.n_steps  # a real run's meta fits


def test_a_member_is_read_in_blocks_at_its_own_size(tmp_path, kit):
    """Found with M2: a 229 MiB meta member peaked at 3.7x its size while read (a zip
    member asked for all its bytes reads them into new bytes, then copies); read in
    blocks, reading a 16 MiB member allocates its array and one 1 MiB block."""
    from baygo_graph.io.safenpz import RUN_MEMBERS, read_npz

    path = tmp_path / "big.npz"
    path.write_bytes(kit.make_zip({"mse.npy": kit.npy(np.zeros((2**21, 1)))}))
    tracemalloc.start()
    try:
        arrays = read_npz(path, expected=RUN_MEMBERS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert arrays["mse"].shape == (2**21, 1)
    assert peak < 16 * 2**20 + 3 * 2**20, peak  # was ~48 MiB


# -- M3: a window product's influence holds what its budget check counted --------------
def test_a_window_product_stays_within_its_per_entry_budget():
    """A flipping star (step 0 the hub hears everyone, step 1 everyone hears the hub):
    the 2-step product is dense. Its influence (product, window 2) peaked at 64-72 B an
    entry while 32 were counted; now what is held stays under PRODUCT_BYTES_PER_ENTRY
    (measured with tracemalloc: numpy's and SciPy's arrays)."""
    from baygo_graph.analysis import influence_series
    from baygo_graph.analysis.weights import PRODUCT_BYTES_PER_ENTRY
    from baygo_graph.series import series_from_edges

    n = 800
    leaves = np.arange(1, n + 1)
    step = np.repeat([0, 1], n)
    row = np.concatenate([np.zeros(n, dtype=int), leaves])  # who hears
    col = np.concatenate([leaves, np.zeros(n, dtype=int)])
    s = series_from_edges(step, row, col, np.ones(2 * n), n_steps=2, nodes=tuple(range(n + 1)),
                          self_weight="equal")  # fmt: skip
    tracemalloc.start()
    try:
        r = influence_series(s, window=2, method="product", windows="sliding")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.defined[1] and abs(r.values[1].sum() - 1) < 1e-12
    assert peak / (n + 1) ** 2 < PRODUCT_BYTES_PER_ENTRY, peak / (n + 1) ** 2


# -- M8: a label column mixing text with other kinds of values is refused --------------
@pytest.mark.parametrize(
    "value",
    [True, 1.0, 2.5, 1 + 2j, pd.Timestamp("2024-01-01"), np.True_, np.float64(3.0),
     pd.Timedelta(1, "s")],
)  # fmt: skip
@pytest.mark.parametrize("categorical", [False, True])
def test_a_label_column_mixing_text_with_other_values_is_refused(value, categorical):
    """``["True", True]`` was ONE node 'True', ``["a", 2.5]`` the node '2.5': every cell
    of a mixed label column is an integer or text, else refused naming its column, row
    and type (as the same values in a column of their own are)."""
    source = pd.Series([str(value), value], dtype="category" if categorical else object)
    df = pd.DataFrame({"source": source, "target": ["x", "y"], "time": [0, 0]})
    with pytest.raises(ValueError) as e:
        as_series(df)
    text = str(e.value)
    assert "'source'" in text and "row 1" in text and type(value).__name__ in text, text
    assert "integers or text" in text and len(text) <= 300


def test_a_mixed_column_of_integers_text_and_bytes_still_reads():
    df = pd.DataFrame({"source": ["a", 7, np.int64(8), b"b"], "target": ["x", "y", "x", "y"],
                       "time": [0, 0, 1, 1]})  # fmt: skip
    assert as_series(df).nodes == ("7", "8", "a", "b", "x", "y")


# -- M7: writing JSON or GraphML is budgeted before the step graphs are built ---------
@pytest.mark.parametrize("suffix", [".json", ".graphml"])
def test_json_and_graphml_writers_are_budgeted(tmp_path, monkeypatch, suffix):
    """Both formats hold every node at every step (its self-weight): 300 steps x 1,000
    nodes are 3x10^5 node records, ~200-500 MB built in memory (a 4.6 MB edge list grew
    to 7.3 GB); refused in one line before any is built, nothing written."""
    from baygo_graph import write_series
    from baygo_graph.series import series_from_edges

    rng = np.random.default_rng(0)
    t, a, b = rng.integers(0, 300, 2000), rng.integers(0, 1000, 2000), rng.integers(0, 1000, 2000)
    s = series_from_edges(t, a, b, np.ones(2000), n_steps=300, nodes=tuple(range(1000)),
                          self_weight="equal")  # fmt: skip
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100MB")
    path = tmp_path / f"big{suffix}"
    with pytest.raises(BudgetError) as e:
        write_series(s, path)
    text = str(e.value)
    assert "300 steps x 1000 nodes" in text and suffix[1:] in text.lower(), text
    assert "\n" not in text and len(text) <= 300 and not path.exists()
    small = s.head(3)  # 3,000 node records: written
    assert write_series(small, tmp_path / f"small{suffix}").exists()


# -- M9: a time refused for its real reason, the day/month advice only for day/month --
@pytest.mark.parametrize(
    ("cell", "why"),
    [
        ("2024-02-30", "no date: February 2024 has 29 days"),
        ("2023-02-29", "no date: February 2023 has 28 days"),
        ("2024-13-01", "no date: there is no month 13"),
        ("2024-04-31T08:00", "no date: April 2024 has 30 days"),
        ("2024-123", "ordinal date (year and day), not read as one: give time_format='%Y-%j'"),
        ("2024-05-01T24:00", "24:00 (the end of a day), not read: write 00:00 of the next day"),
        ("2024-05-01t08:00", "a lower-case 't', not read: write 'T' or a space"),
        ("2024-05-01 08:00 UTC", "a zone name (UTC), which is not read: write its UTC offset"),
        ("05/01/2024", "(12/01: Dec. or Jan.?): give time_format='%d/%m/%Y'"),
        ("May 1st", "no other form is guessed: give its form as time_format"),
    ],
)
def test_a_time_is_refused_for_its_real_reason(cell, why):
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": [cell, "2024-05-02"]})
    with pytest.raises(ValueError) as e:
        as_series(frame, bin="1D")
    text = str(e.value)
    assert why in text and "row 0" in text, text
    if "/" not in cell:
        assert "%d/%m/%Y" not in text


# -- M13: a time_format gives a date, or its missing parts are never filled in --------
@pytest.mark.parametrize(
    ("fmt", "cells", "bin", "why"),
    [
        ("%H:%M", ["23:00", "00:30"], "1h", "gives no date"),
        ("%I:%M %p", ["11:00 PM", "12:30 AM"], "1h", "gives no date"),
        ("%d/%m", ["31/12", "01/01"], "1D", "gives no year"),
        ("%d/%m %H:%M", ["31/12 23:00", "01/01 00:30"], "1h", "gives no year"),
        ("%Y-%m", ["2024-05", "2024-06"], "1D", "gives no day"),
        ("%Y", ["2024", "2025"], "1MS", "gives no month"),
        ("%Y-%U", ["2024-05", "2024-06"], "1W", "pairs a week number (%U) with no weekday"),
        # hostile10 N1: a 12-hour clock without AM/PM, a two-digit year: a part guessed
        ("%Y-%m-%d %I:%M", ["2024-05-01 11:00", "2024-05-01 12:30"], "1h", "without AM/PM"),
        ("%y-%m-%d", ["68-12-31", "69-01-01"], "1D", "two-digit year (%y)"),
        ("%d/%m/%y %H:%M", ["31/12/24 23:00", "01/01/25 00:30"], "1h", "two-digit year"),
        # hostile10 N7: zone names gave pandas' "Mixed timezones detected. Pass utc=True"
        ("%Y-%m-%d %H:%M %Z", ["2024-05-01 10:00 CET", "2024-05-01 10:00 UTC"], "1h", "%z"),
    ],
)
def test_a_time_format_without_a_date_is_refused(fmt, cells, bin, why):
    """``--time-format %H:%M`` put every time on 1 January 1900: the night shift's
    00:30 came before its 23:00, exit 0."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": cells})
    with pytest.raises(ValueError) as e:
        as_series(frame, bin=bin, time_format=fmt)
    text = str(e.value)
    assert why in text and "time_format=" in text and len(text) <= 300, text


@pytest.mark.parametrize(
    ("fmt", "cells", "bin", "steps"),
    [
        ("%Y-%m", ["2024-05", "2024-07"], "1MS", 3),
        ("%Y", ["2024", "2026"], "1YS", 3),
        ("%G-W%V-%u", ["2024-W18-3", "2024-W19-1"], "1D", 6),
        ("%d/%m/%Y %H:%M", ["31/12/2024 23:00", "01/01/2025 00:30"], "1h", 2),
        ("%Y-%m-%d %I:%M %p", ["2024-05-01 11:00 AM", "2024-05-01 12:30 PM"], "1h", 2),
        ("%Y-%j", ["2024-123", "2024-125"], "1D", 3),
    ],
)
def test_a_time_format_with_its_date_reads(fmt, cells, bin, steps):
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": cells})
    assert as_series(frame, bin=bin, time_format=fmt).n_steps == steps


# -- M12: a positive weight that underflows to 0 is refused in every series file ------
UNDERFLOW_FILES = {
    "w.gexf": '<?xml version="1.0" encoding="UTF-8"?><gexf xmlns="http://gexf.net/1.2" '
    'version="1.2"><graph mode="dynamic" defaultedgetype="directed" timeformat="integer">'
    '<nodes><node id="a"/><node id="b"/></nodes><edges><edge id="0" source="a" target="b" '
    'weight="1e-400" start="0" end="1"/></edges></graph></gexf>',
    "w.json": '{"format": "baygo-graph-series", "graphs": [{"directed": true, "multigraph": '
    'false, "graph": {}, "nodes": [{"id": "a"}, {"id": "b"}], "links": [{"source": "a", '
    '"target": "b", "weight": 1e-400}]}]}',
    "w.graphml": '<?xml version="1.0" encoding="UTF-8"?><graphml '
    'xmlns="http://graphml.graphdrawing.org/xmlns"><key id="s" for="edge" attr.name="step" '
    'attr.type="int"/><key id="w" for="edge" attr.name="weight" attr.type="double"/>'
    '<graph edgedefault="directed"><node id="a"/><node id="b"/>'
    '<edge source="a" target="b"><data key="s">0</data><data key="w">1e-400</data></edge>'
    "</graph></graphml>",
}


@pytest.mark.parametrize("name", sorted(UNDERFLOW_FILES))
def test_a_weight_that_underflows_is_refused_in_series_files(tmp_path, name):
    """``1e-400`` is positive and parses to 0.0: the edge vanished (exit 0) in GEXF,
    JSON and GraphML, while the same weight in a CSV was refused (hostile5 H22)."""
    path = tmp_path / name
    path.write_text(UNDERFLOW_FILES[name])
    with pytest.raises(RunFormatError) as e:
        as_series(path, self_weight=0)
    text = str(e.value)
    assert "1e-400" in text and "below the smallest float" in text and len(text) <= 300, text


def test_a_json_weight_written_as_text_is_named_as_text(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(UNDERFLOW_FILES["w.json"].replace("1e-400", '"0.5"'))
    said = r"edge \('a', 'b'\) has a weight '0.5': a str is not a number"
    with pytest.raises(RunFormatError, match=said):
        as_series(path)


# -- M16: a shortened cell counts the characters it cut, escapes or not ---------------
@pytest.mark.parametrize(
    "cell", ["\x07" * 18, "a\tb\n" * 5, "é\x00" * 20, "Z" * 40, "\x1b[31m" * 9]
)
def test_a_shortened_cell_counts_what_it_cut(cell):
    """An 18-character cell of escapes said '(-7 more characters)': the cut measured the
    escaped text and counted the raw one."""
    from baygo_graph.io.times import _cell

    shown = _cell(cell)
    m = re.search(r"\((\d+) more characters\)$", shown)
    assert m, shown
    kept = eval(shown[: shown.index("...")] + shown[shown.index("...") + 3])  # noqa: S307
    assert cell.startswith(kept) and len(kept) + int(m.group(1)) == len(cell)
    assert len(shown) <= 30 + len(" (999 more characters)")
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": [cell, "2024"]})
    with pytest.raises(ValueError) as e:
        as_series(frame, bin="1D")
    assert "(-" not in str(e.value) and len(str(e.value)) <= 300


# -- hostile10 N3: times with and without a UTC offset in one column -------------------
@pytest.mark.parametrize("last", ["2024-01-01T12:00", "2024-01-01T12:00Z"])
def test_a_column_mixing_times_with_and_without_an_offset_is_refused(last):
    """08:00Z was put after 09:00Z when one naive time joined the column (exit 0)."""
    cells = ["2024-01-01T10:00+02:00", "2024-01-01T09:00+00:00", last]
    frame = pd.DataFrame({"source": ["a", "b", "c"], "target": ["b", "c", "a"], "time": cells})
    if last.endswith("Z"):  # every time gives its offset: laid on instants, in order
        series = as_series(frame, bin="1h")
        assert series.n_steps == 5
        return
    with pytest.raises(ValueError, match=r"row 2: '2024-01-01T12:00' has no UTC offset, while"):
        as_series(frame, bin="1h")


# -- hostile10 N6: an .xz file ending early, or whole with stream padding ---------------
def test_an_xz_file_that_ends_early_or_has_padding_says_what_to_do(tmp_path):
    import lzma

    whole = lzma.compress(b"1\t2\t100\n2\t3\t101\n", format=lzma.FORMAT_XZ)
    (tmp_path / "pad.txt.xz").write_bytes(whole + b"\0\0\0\0")  # xz -t accepts it
    (tmp_path / "cut.txt.xz").write_bytes(whole[:40])
    (tmp_path / "mid.txt.xz").write_bytes(whole + b"\0\0\0\0" + whole)  # P8: 2 of 4 rows
    (tmp_path / "two.txt.xz").write_bytes(whole + whole)
    for name, said in (("pad.txt.xz", "not another stream (padding"),
                       ("mid.txt.xz", "not another stream (padding"),
                       ("cut.txt.xz", "ends inside an xz stream")):  # fmt: skip
        with pytest.raises(ValueError) as e:
            as_series(tmp_path / name)
        text = str(e.value)
        assert said in text and "xz -t" in text, text
        assert "end-of-stream marker" not in text and len(text) <= 300
    assert as_series(tmp_path / "two.txt.xz").n_steps == 2  # streams back to back: read


# -- hostile11 P1: offsets in forms the offset pattern does not read ---------------------
@pytest.mark.parametrize(
    ("cells", "row", "named"),
    [
        (["2024-05-01T08+02", "2024-05-01T08+00"], 0, "2024-05-01T08+02"),
        (["20240501T080000+0200", "20240501T073000Z"], 0, "20240501T080000+0200"),
        (["2024-05-01T08:00+02", "2024-05-01T0730+00"], 1, "2024-05-01T0730+00"),
        (["2024-05-01T08:00:00z", "2024-05-01T07:30:00+02:00"], 0, "2024-05-01T08:00:00z"),
    ],
)
def test_an_offset_in_a_form_not_read_is_named(cells, row, named):
    """pandas' 'Mixed timezones detected. Pass utc=True ...', or 'has none' of a time
    whose offset is there in a form the reader does not take."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "time": cells})
    with pytest.raises(ValueError) as e:
        as_series(frame, bin="1h")
    text = str(e.value)
    assert f"row {row}: '{named}' gives its UTC offset in a form not read" in text, text
    assert "utc=True" not in text and "has none" not in text


def test_a_date_among_zoned_times_is_still_said_to_have_no_offset():
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"],
                          "time": ["2024-05-01T08:00+02:00", "2024-05-02"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"row 1: '2024-05-02' has no UTC offset, while"):
        as_series(frame, bin="1h")


# -- hostile11 P2-P5 -----------------------------------------------------------------------
@pytest.mark.parametrize("label", [True, np.True_, 1.0, np.float64(1), 1 + 0j])
def test_a_later_graphs_bool_or_float_label_is_refused(label):
    """P2: True or 1.0 in a later graph became the int node 1 (one dict key)."""
    import networkx as nx

    with pytest.raises(ValueError, match=r"graphs\[1\]: node label .* is a"):
        as_series([nx.DiGraph([(1, 2)]), nx.DiGraph([(label, 2)])])
    series = as_series([nx.DiGraph([(np.int64(1), 2)]), nx.DiGraph([(2, np.int64(1))])])
    assert series.nodes == (1, 2) and all(type(v) is int for v in series.nodes)


def test_a_nullable_string_label_column_with_a_missing_cell_names_it():
    """P3: 'boolean value of NA is ambiguous' (pandas' words)."""
    frame = pd.DataFrame({"source": pd.array(["a", None], dtype="string"),
                          "target": ["b", "a"], "time": [0, 1]})  # fmt: skip
    with pytest.raises(ValueError, match=r"column 'source' is empty in row 1"):
        as_series(frame)


def test_am_pm_with_a_24_hour_clock_is_refused():
    """P4: '%H ... %p' read 11:00 PM as 11:00."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"],
                          "time": ["2024-05-01 11:00 PM", "2024-05-01 12:30 AM"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"AM/PM \(%p\) with a 24-hour clock"):
        as_series(frame, bin="1h", time_format="%Y-%m-%d %H:%M %p")
    assert as_series(frame, bin="1h", time_format="%Y-%m-%d %I:%M %p").n_steps == 24


def test_z_times_among_times_without_an_offset_are_refused():
    """P5: only 'Z' offsets skipped the mixed check (+00:00 was refused)."""
    frame = pd.DataFrame({"source": ["a", "b", "c"], "target": ["b", "c", "a"],
                          "time": ["2024-06-01T10:00", "2024-06-01T09:00Z",
                                   "2024-06-01T12:00"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"row 1: '2024-06-01T09:00Z' has a UTC offset, while"):
        as_series(frame, bin="1h")


def test_a_bz2_file_with_junk_after_a_stream_is_refused(tmp_path):
    """hostile11 P11: junk between two bz2 streams dropped the second without a word."""
    import bz2

    one, two = bz2.compress(b"1\t2\t100\n2\t3\t101\n"), bz2.compress(b"3\t4\t103\n")
    (tmp_path / "mid.txt.bz2").write_bytes(one + b"JUNK" + two)
    (tmp_path / "two.txt.bz2").write_bytes(one + two)
    said = r"after a bz2 stream \(from byte 47 of 94\) that are not another stream"
    with pytest.raises(ValueError, match=said):
        as_series(tmp_path / "mid.txt.bz2")
    assert as_series(tmp_path / "two.txt.bz2").n_steps == 4


def test_the_locales_date_is_refused_for_its_two_digit_year():
    """hostile11 P12: '%x' is %m/%d/%y: 12/31/68 read as 2068, 01/01/69 as 1969."""
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"],
                          "time": ["12/31/68", "01/01/69"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"locale's date \(%x\)"):
        as_series(frame, bin="1D", time_format="%x")
