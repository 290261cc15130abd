"""Temporal edge lists (DataFrame, CSV, Parquet) as series, against NetworkX-built references."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.exceptions import BudgetError, RunFormatError
from baygo_graph.inputs import as_series
from baygo_graph.io.edgelist import edge_list_series, read_edge_list


def reference_stack(rows, *, directed=True) -> tuple[tuple, np.ndarray]:
    """Per-step NetworkX digraphs (repeated rows add up), then as_series' row rule."""
    t0 = min(t for _, _, t, _ in rows)
    steps = max(t for _, _, t, _ in rows) - t0 + 1
    nodes = sorted({v for s, d, _, _ in rows for v in (s, d)})
    graphs = [nx.DiGraph() for _ in range(steps)]
    for g in graphs:
        g.add_nodes_from(nodes)
    for s, d, t, w in rows:
        pairs = [(s, d)] if directed or s == d else [(s, d), (d, s)]
        for a, b in pairs:
            g = graphs[t - t0]
            old = g.edges[a, b]["weight"] if g.has_edge(a, b) else 0.0
            g.add_edge(a, b, weight=old + w)
    m = len(nodes)
    out = np.zeros((steps, m, m))
    for t, g in enumerate(graphs):
        a = nx.to_numpy_array(g, nodelist=nodes, weight="weight").T  # row i: i's in-edges
        total = a.sum(axis=1)
        for i in range(m):
            out[t, i] = a[i] / total[i] if total[i] > 0 else np.eye(m)[i]
    return tuple(nodes), out


rows_strategy = st.lists(
    st.tuples(
        st.sampled_from(["ann", "bob", "cat", "dan"]),
        st.sampled_from(["ann", "bob", "cat", "dan"]),
        st.integers(-3, 6),
        st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(rows_strategy, st.booleans())
def test_random_edge_lists_match_networkx(rows, directed):
    frame = pd.DataFrame(rows, columns=["source", "target", "time", "weight"])
    s = edge_list_series(frame, directed=directed, self_weight=0)  # the rows' weights only
    nodes, ref = reference_stack(rows, directed=directed)
    assert s.nodes == nodes and s.n_steps == ref.shape[0]
    np.testing.assert_allclose(s.weight_stack(), ref, atol=1e-12)


def test_csv_header_is_recognised_and_labels_kept(tmp_path):
    p = tmp_path / "contacts.csv"
    p.write_text("Source, Target, Time\nann,bob,10\nbob,cat,12\n")
    s = as_series(p, self_weight=0)
    assert s.nodes == ("ann", "bob", "cat") and s.n_steps == 3
    assert s.weights(1).toarray().tolist() == np.eye(3).tolist()  # time 11: no contact
    g = s.graph(2)
    assert g.has_edge("bob", "cat") and g.edges["bob", "cat"]["weight"] == 1.0


def test_other_column_names_and_bins(tmp_path):
    frame = pd.DataFrame({"from": [1, 2, 3], "to": [2, 3, 1], "t": [0, 5, 9], "w": [1, 2, 3]})
    s = as_series(frame, source="from", target="to", time="t", weight="w", bin=5, self_weight=0)
    assert s.nodes == (1, 2, 3) and s.n_steps == 2  # times 0 | 5, 9
    np.testing.assert_allclose(s.weights(1).toarray(), [[0, 0, 1], [0, 1, 0], [0, 1, 0]])
    with pytest.raises(
        ValueError,
        match="no 'source', 'target' or 'time' column .*: name them "
        "with source=..., target=..., time=...",
    ):  # every one in one line
        as_series(frame)
    with pytest.raises(ValueError, match=r"no 'target' column; time='when': no such column"):
        as_series(frame, source="from", time="when")
    with pytest.raises(ValueError, match=r"time='when': no such column"):
        as_series(frame, source="from", target="to", time="when")


def test_timestamps_need_a_fixed_bin():
    frame = pd.DataFrame(
        {
            "source": ["a", "b", "a"],
            "target": ["b", "a", "b"],
            "time": ["2024-03-01 23:59", "2024-03-02 00:01", "2024-03-04 12:00"],
        }
    )
    s = as_series(frame, bin="1D")
    assert s.n_steps == 4  # days 1, 2, 3 (nobody), 4
    assert [len(s.window_edges(t, t + 1)[0]) for t in range(4)] == [1, 1, 0, 1]
    assert as_series(frame, bin="12h").n_steps == 7
    with pytest.raises(ValueError, match="holds timestamps: give the width of a step with bin="):
        as_series(frame)
    with pytest.raises(ValueError, match="bin must be a duration .* or a calendar period"):
        as_series(frame, bin="1M")
    dt = frame.assign(time=pd.to_datetime(frame["time"]))
    np.testing.assert_array_equal(as_series(dt, bin="1D").weight_stack(), s.weight_stack())


def test_bad_rows_are_named():
    base = {"source": ["a", "b"], "target": ["b", "a"], "time": [0, 1]}
    with pytest.raises(ValueError, match="column 'target' is empty in row 1"):
        as_series(pd.DataFrame(base | {"target": ["b", None]}))
    with pytest.raises(ValueError, match="finite and >= 0"):
        as_series(pd.DataFrame(base | {"weight": [1.0, -2.0]}))
    with pytest.raises(ValueError, match="row 1: 0.5 is not an integer time"):
        as_series(pd.DataFrame(base | {"time": [0, 0.5]}))
    with pytest.raises(ValueError, match="no rows"):
        as_series(pd.DataFrame({k: [] for k in base}))
    with pytest.raises(ValueError, match="edge-list options"):
        as_series([nx.DiGraph([(0, 1)])], source="from")


def test_steps_times_nodes_are_budgeted():
    frame = pd.DataFrame({"source": [0, 1], "target": [1, 0], "time": [0, 10**12]})
    with pytest.raises(BudgetError, match=r"pass bin=\d+ or wider \(CLI --bin \d+\)"):
        as_series(frame)


def test_parquet_and_tsv(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"source": ["x", "y"], "target": ["y", "x"], "time": [0, 1]})
    frame.to_parquet(tmp_path / "e.parquet")
    frame.to_csv(tmp_path / "e.tsv", sep="\t", index=False)
    a, b = as_series(tmp_path / "e.parquet"), read_edge_list(tmp_path / "e.tsv")
    assert a.nodes == b.nodes == ("x", "y")
    np.testing.assert_array_equal(a.weight_stack(), b.weight_stack())


def test_unreadable_files(tmp_path):
    with pytest.raises(RunFormatError, match="no edge list"):
        read_edge_list(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises((RunFormatError, ValueError)):
        read_edge_list(bad)


def test_csv_labels_are_text_unless_every_label_is_a_plain_integer(tmp_path):
    # "007" and "7", "1e3" and "1000" are different nodes: never merged by number parsing
    p = tmp_path / "labels.csv"
    p.write_text("source,target,time\n007,7,0\n7,007,1\n1e3,1000,1\n")
    s = as_series(p, self_weight=0)
    assert s.nodes == ("007", "1000", "1e3", "7")
    assert s.weights(0).toarray()[s.nodes.index("7"), s.nodes.index("007")] == 1.0
    # one column of plain integers and one with a padded label: both stay text
    p.write_text("source,target,time\n7,007,0\n8,7,1\n")
    assert as_series(p).nodes == ("007", "7", "8")
    p.write_text("source,target,time\n1,2,0\n2,3,1\n")
    assert as_series(p).nodes == (1, 2, 3)


def _step_list(frame, **kw) -> list[int]:
    """The step of each row (row k: source k, target k + 1000)."""
    s = edge_list_series(frame, **kw)
    step, src, _, _ = s.step_edges()
    at = {s.nodes[j]: int(t) for t, j in zip(step, src, strict=True) if s.nodes[j] < 1000}
    return [at[k] for k in range(len(frame))]


def _rows(times, dtype=None) -> pd.DataFrame:
    n = len(times)
    return pd.DataFrame({"source": range(n), "target": range(1000, 1000 + n),
                         "time": np.array(times, dtype=dtype)})  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    times=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=6),
    bin_=st.integers(2**58, 2**66),
)
def test_integer_steps_never_wrap_around(times, bin_):
    """(time - min time) // bin, exact (Python ints) over the whole int64 range."""
    expected = [(t - min(times)) // bin_ for t in times]
    assert _step_list(_rows(times, np.int64), bin=bin_) == expected


def test_extreme_times_and_bins(tmp_path):
    low, high = -(2**62), 2**62  # (high - low) is 2^63: wrapped to a negative step before
    assert _step_list(_rows([low, high], np.int64), bin=10**18) == [0, 9]
    with pytest.raises(ValueError, match="row 1: 18446744073709551615 is outside the 64-bit"):
        _step_list(_rows([0, 2**64 - 1], np.uint64), bin=10**19)  # beyond int64: refused
    with pytest.raises(ValueError, match="time column 'time' row 0: -9.3e\\+18 is outside the 64"):
        edge_list_series(_rows([-9.3e18, 0.0]))
    with pytest.raises(BudgetError, match="9223372036854775809 steps x 4 nodes"):
        edge_list_series(_rows([low, high], np.int64))  # bin 1: refused by the budget
    p = tmp_path / "far.csv"
    p.write_text(f"source,target,time\na,b,{-(2**63)}\nb,a,{2**63 - 1}\n")
    s = read_edge_list(p, bin=2**63, self_weight=0)
    assert s.n_steps == 2 and s.weights(1).toarray()[0, 1] == 1.0


def test_far_timestamps_bin_without_overflow():
    """Nanosecond timestamps 585 years apart: pandas' own subtraction overflowed."""
    stamps = pd.Series(pd.to_datetime(["1677-09-22", "2262-04-10"])).astype("datetime64[ns]")
    days = (stamps.iloc[1].to_pydatetime() - stamps.iloc[0].to_pydatetime()).days
    assert _step_list(_rows(stamps), bin="1D") == [0, days]
    epoch = {"origin": "epoch"}  # floor(t / bin), epoch-aligned
    assert _step_list(_rows(stamps), bin="1000D", **epoch) == [0, 213]
    assert _step_list(_rows(stamps), bin="100000000000000D", **epoch) == [0, 1]  # 1970
    assert _step_list(_rows(stamps), bin="100000000000000D") == [0, 0]  # first day on
    seconds = pd.Series(pd.to_datetime(["0001-01-01", "9999-12-31"], format="ISO8601"))
    seconds = seconds.astype("datetime64[s]")
    whole = (seconds.iloc[1].to_pydatetime() - seconds.iloc[0].to_pydatetime()).days
    assert _step_list(_rows(seconds), bin="1D") == [0, whole]
    with pytest.raises(ValueError, match="bin='1ms' is finer than the s resolution .* 'time'"):
        edge_list_series(_rows(seconds), bin="1ms")


@pytest.mark.parametrize(
    ("columns", "what", "kind"),
    [
        ({"source": [[1, 2], [3]]}, "column 'source'", "ndarray"),
        ({"target": [{"x": 1}, {"x": 2}]}, "column 'target'", "dict"),
        ({"time": [[0], [1]]}, "time column 'time'", "ndarray"),
        ({"time": [{"x": 1}, {"x": 2}]}, "time column 'time'", "dict"),
        ({"weight": [[1.0], [2.0]]}, "weight column 'weight'", "ndarray"),
    ],
)
def test_nested_parquet_cells_are_named(tmp_path, columns, what, kind):
    """List and struct cells: the file, the column and the row, not 'unhashable type'."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = {"source": ["a", "b"], "target": ["b", "a"], "time": [0, 1]} | columns
    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table(table), path)
    with pytest.raises(ValueError) as info:
        read_edge_list(path)
    assert str(info.value).startswith(f"{str(path)!r}: {what} holds a {kind} in row 0 (")
    assert "one value, not a nested one" in str(info.value)


def test_nested_cells_of_a_frame_and_mixed_plain_labels():
    frame = pd.DataFrame({"source": [("a", 1), "b"], "target": ["b", "a"], "time": [0, 1]})
    with pytest.raises(ValueError, match=r"column 'source' holds a tuple in row 0 \(\('a', 1\)\)"):
        edge_list_series(frame)
    mixed = pd.DataFrame({"source": ["a", 2], "target": [2, "a"], "time": [0, 1]})
    # ints and text in the label columns: all text, as the same rows read from a CSV
    assert set(edge_list_series(mixed).nodes) == {"a", "2"}


def test_repeated_column_names_are_refused(tmp_path):
    """pandas reads a repeated 'time' as 'time.1' and goes on: refused, naming it."""
    p = tmp_path / "dup.csv"
    p.write_text("source,target,time,time\na,b,0,5\nb,a,1,6\n")
    with pytest.raises(RunFormatError, match="column name 'time' appears 2 times"):
        read_edge_list(p)
    frame = pd.DataFrame([["a", "b", 0, 5]], columns=["source", "target", "time", "time"])
    with pytest.raises(ValueError, match="frame: column name 'time' appears 2 times"):
        edge_list_series(frame)
    ambiguous = pd.DataFrame({"Source": ["a"], "source": ["b"], "target": ["c"], "time": [0]})
    with pytest.raises(ValueError, match="columns 'Source', 'source' all match 'source'"):
        edge_list_series(ambiguous)
    assert edge_list_series(ambiguous, source="Source").nodes == ("a", "c")


def test_repeated_parquet_column_names_are_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    arrays = [pa.array(["a", "b"]), pa.array(["b", "a"]), pa.array([0, 1]), pa.array([3, 4])]
    path = tmp_path / "dup.parquet"
    pq.write_table(pa.Table.from_arrays(arrays, names=["source", "target", "time", "time"]), path)
    with pytest.raises(RunFormatError, match="dup.parquet' is not a readable edge list: column "
                       "name 'time' appears 2 times"):  # fmt: skip
        read_edge_list(path)


def test_a_wide_header_gives_a_short_message(tmp_path):
    """20,000 columns: the message lists five and says how many more (not 1 MB)."""
    p = tmp_path / "wide.csv"
    n = 20_000
    p.write_text(",".join(f"c{i}" for i in range(n)) + "\n" + ",".join(["1"] * n) + "\n")
    for options in ({}, {"source": "c1", "target": "c2", "time": "nope"}):
        with pytest.raises(ValueError) as info:
            read_edge_list(p, **options)
        text = str(info.value)
        assert len(text) < 300 and "\n" not in text
        assert "the 20000 columns are 'c0', 'c1', " in text and "'c4' and 19995 more" in text


def test_edge_list_rows_longer_than_the_header(tmp_path):
    from baygo_graph.exceptions import RunFormatError
    from baygo_graph.io.edgelist import read_edge_list

    trail = tmp_path / "trail.csv"
    trail.write_text("source,target,time\na,b,0,\nb,a,1,\n")
    s = read_edge_list(trail)
    assert s.n_steps == 2 and sorted(map(str, s.nodes)) == ["a", "b"]
    extra = tmp_path / "extra.csv"
    extra.write_text("source,target,time\nX,a,b,0\nY,b,a,1\n")
    with pytest.raises(RunFormatError, match="line 2 holds 4 values, more than the header names"):
        read_edge_list(extra)


def test_labels_that_pandas_would_read_as_missing_are_labels(tmp_path):
    from baygo_graph.io.edgelist import read_edge_list

    path = tmp_path / "countries.csv"
    path.write_text("source,target,time\nNA,ZA,0\nZA,NA,1\nNone,NA,2\n")
    s = read_edge_list(path)  # Namibia and South Africa; "None" is a name too
    assert sorted(map(str, s.nodes)) == ["NA", "None", "ZA"] and s.n_steps == 3
