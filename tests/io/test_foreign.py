"""Other libraries' series (io/foreign.py) and GEXF read without a graph per step."""

from __future__ import annotations

import datetime as dt

import hypothesis.strategies as st
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

import baygo_graph as bg
from baygo_graph.inputs import as_series, read_series
from baygo_graph.series import series_from_graphs

dn = pytest.importorskip("dynetx")
tx = pytest.importorskip("networkx_temporal")


def _college_like(seed=0, days=30, n=120):
    """Messages on ``days`` days, some days without any (CollegeMsg-like)."""
    rng = np.random.default_rng(seed)
    start = dt.datetime(2004, 4, 15)
    quiet = {3, 4, 17}
    rows = []
    for _ in range(n):
        day = int(rng.integers(0, days))
        if day in quiet:
            continue
        u, v = (int(x) for x in rng.choice(np.arange(1, 15), 2, replace=False))
        rows.append((u, v, start + dt.timedelta(days=day, hours=int(rng.integers(0, 24)))))
    rows.append((1, 2, start))
    rows.append((2, 1, start + dt.timedelta(days=days - 1)))
    return rows


def test_networkx_temporal_keeps_empty_days_and_plain_labels():
    rows = _college_like()
    tg = tx.TemporalMultiDiGraph()
    for u, v, t in rows:
        tg.add_edge(np.int64(u), np.int64(v), time=t.strftime("%Y-%m-%d %H:%M"))
    daily = tg.slice(attr="time", applymap=lambda x: x[:10])
    assert len(daily) == 27  # 30 days, 3 without a snapshot
    s = as_series(daily)
    assert s.n_steps == 30  # the quiet days are empty steps
    assert all(type(v) is int for v in s.nodes)
    frame = pd.DataFrame(rows, columns=["source", "target", "time"])
    ref = as_series(frame, bin="1D")
    assert s.nodes == ref.nodes and s.n_steps == ref.n_steps
    np.testing.assert_array_equal(s.weight_stack(), ref.weight_stack())


def test_networkx_temporal_integer_times_and_intervals():
    tg = tx.TemporalDiGraph()
    for u, v, t in [("a", "b", 0), ("b", "a", 3), ("a", "c", 4)]:
        tg.add_edge(u, v, time=t)
    assert as_series(tg.slice(attr="time")).n_steps == 5
    assert as_series(tg.slice(attr="time", bins=2)).n_steps == 2  # snapshot order


@pytest.mark.parametrize(
    ("weight", "words"),
    [
        ("2", "a str is not a number"),
        (b"2", "a bytes is not a number"),
        ("1e1", "a str is not a number"),
        (True, "a bool is not a number"),
        (np.True_, "a bool is not a number"),
        (None, "None is not a number"),
        (-1.0, "it is negative"),
        (float("nan"), "it is not finite"),
        (10**400, "it is too large for a float"),
    ],
)
def test_networkx_temporal_weights_follow_the_list_doors_rule(weight, words):
    """hostile21 Z4: snapshots' text, bytes and bool weights were parsed ("2" read as 2,
    True as 1) where a list of the same graphs is refused: one rule, naming the edge."""
    tg = tx.TemporalDiGraph()
    tg.add_edge("a", "c", time=0, weight=1.0)
    tg.add_edge("b", "c", time=1, weight=weight)
    with pytest.raises(ValueError, match=f"snapshot 1: edge 'b' -> 'c': weight .*: {words}"):
        as_series(tg.slice(attr="time"))
    same = [nx.DiGraph([("a", "c", {"weight": 1.0})]), nx.DiGraph([("b", "c", {"weight": weight})])]
    with pytest.raises(ValueError, match=f"graph 1: edge 'b' -> 'c': weight .*: {words}"):
        as_series(same)


def test_networkx_temporal_reads_numeric_weights_as_the_list_door():
    tg = tx.TemporalDiGraph()
    tg.add_edge("a", "c", time=0, weight=np.float32(2))
    tg.add_edge("b", "c", time=0, weight=1)
    s = as_series(tg.slice(attr="time"))
    ref = as_series([nx.DiGraph([("a", "c", {"weight": 2.0}), ("b", "c", {"weight": 1})])])
    np.testing.assert_array_equal(s.weight_stack(), ref.weight_stack())
    row = s.weights(0).toarray()[s.nodes.index("c")]  # self weight: the mean in-weight
    np.testing.assert_allclose(row, [2 / 4.5, 1 / 4.5, 1.5 / 4.5], rtol=1e-15)


def test_dynetx_intervals_as_stored_and_fractions_refused():
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=0)
    g.add_interaction("a", "b", t=5)
    g.add_interaction("b", "c", t=2, e=4)
    s = as_series(g)
    on = [[len(s.window_edges(t, t + 1)[0]) for t in range(s.n_steps)]]
    assert s.n_steps == 6 and on == [[1, 0, 1, 1, 0, 1]]
    u = dn.DynGraph()
    u.add_interaction(np.int64(1), np.int64(2), t=7)
    s = as_series(u)
    assert s.nodes == (1, 2) and type(s.nodes[0]) is int and s.n_steps == 1
    assert s.weights(0).toarray().tolist() == [[0.5, 0.5], [0.5, 0.5]]  # the equal rule
    assert as_series(u, self_weight=0).weights(0).toarray().tolist() == [[0.0, 1.0], [1.0, 0.0]]
    f = dn.DynGraph()
    f.add_interaction(0, 1, t=0.4)
    with pytest.raises(
        ValueError, match="time 0.4: times must be integer steps .baygo never truncates"
    ):
        as_series(f)


@settings(max_examples=25, deadline=None)
@given(
    edges=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 6), st.integers(0, 3),
                  st.sampled_from([1.0, 0.5, 2.0])),
        min_size=1, max_size=8,
    ),
    directed=st.booleans(),
)  # fmt: skip
def test_gexf_series_equals_the_graphs_it_reads(tmp_path_factory, edges, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    for u, v, a, d, w in edges:
        g.add_edge(f"n{u}", f"n{v}", start=a, end=a + d, weight=w)
    p = tmp_path_factory.mktemp("gexf") / "s.gexf"
    nx.write_gexf(g, p)
    first = min(d["start"] for *_, d in g.edges(data=True))
    last = max(d["end"] for *_, d in g.edges(data=True))
    steps = [nx.DiGraph() for _ in range(last - first + 1)]  # brute force: spell by spell
    for h in steps:
        h.add_nodes_from(g)
    for u, v, d in g.edges(data=True):
        for t in range(d["start"], d["end"] + 1):
            steps[t - first].add_edge(u, v, weight=d["weight"])
            if not directed:
                steps[t - first].add_edge(v, u, weight=d["weight"])
    expected = series_from_graphs(steps)
    for got in (read_series(p, self_weight=0), as_series(p, self_weight=0)):  # file order
        assert sorted(got.nodes) == list(expected.nodes) and got.n_steps == expected.n_steps
        at = [got.nodes.index(v) for v in expected.nodes]
        np.testing.assert_allclose(got.weight_stack()[:, at][:, :, at], expected.weight_stack())


def test_networkx_temporal_snapshot_times_past_64_bits_are_refused():
    # hostile21 Z5's sibling: integer snapshot names are times, refused beyond 64 bits
    tg = tx.TemporalDiGraph()
    for u, v, t in [("a", "b", 2**70), ("b", "a", 2**70 + 1)]:
        tg.add_edge(u, v, time=t)
    with pytest.raises(ValueError, match="snapshot named 1.180...e\\+21 .* outside the 64-bit"):
        as_series(tg.slice(attr="time"))


def _dated(names):
    """Snapshots named as given (the index networkx-temporal keeps), one edge each."""
    tg = tx.TemporalDiGraph(t=len(names))
    for k in range(len(names)):
        tg[k].add_edge("a", "b") if k % 2 == 0 else tg[k].add_edge("b", "a")
    tg.index = names
    return tg


def test_a_snapshot_named_no_calendar_day_is_refused_naming_it():
    """hostile21 Z20: one name that is no calendar day turned a dated series back into
    snapshot order without a word (3 steps, no axis, instead of 7 days)."""
    assert as_series(_dated(["2024-02-28", "2024-03-01", "2024-03-05"])).n_steps == 7
    with pytest.raises(ValueError, match=r"snapshot 1 is named '2024-02-30', which is no calendar"):
        as_series(_dated(["2024-02-28", "2024-02-30", "2024-03-05"]))


@pytest.mark.parametrize(
    ("names", "why"),
    [
        (["2024-02-28", "2024-3-05", "2024-03-09"], "snapshot 1 is named '2024-3-05'"),
        (["0", "5", "total"], "snapshot 2 is named 'total'"),
        (["1", "+1", "2"], "two snapshots name the time '\\+1'"),
    ],
)
def test_snapshots_partly_named_by_times_are_read_in_order_with_a_warning(names, why):
    with pytest.warns(bg.exceptions.TimeBinWarning, match=why + r"\): one step per snapshot"):
        s = as_series(_dated(names))
    assert s.n_steps == len(names) and s.time_axis is None


def test_snapshots_named_by_no_times_are_read_in_order_without_a_word(recwarn):
    s = as_series(_dated(["morning", "noon", "night"]))
    assert s.n_steps == 3 and s.time_axis is None and not recwarn.list


@pytest.mark.parametrize(("t", "e"), [(2, 2), (5, 2)])
def test_a_dynetx_interaction_holding_no_step_is_refused_naming_it(t, e):
    """hostile21 Z21: an interaction removed when (or before) it is added gave a series of
    0 steps (IndexError in analysis_report) or numpy's 'negative dimensions'."""
    g = dn.DynDiGraph()
    g.add_interaction("c", "d", t=0, e=4)
    g.add_interaction("a", "b", t=t, e=e)
    with pytest.raises(ValueError, match=r"DyNetX interaction \('a', 'b'\) holds no step"):
        as_series(g)
