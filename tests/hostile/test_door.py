"""The door's label and time policy (docs/formats.md, "Labels and times") and exact
round trips through every format the toolkit writes and reads back."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.inputs import KINDS, as_series, kind_of, load, read_series, series_input
from baygo_graph.series import GraphSeries, series_from_graphs

# -- labels ---------------------------------------------------------------------------


STEP_KEY = '<graphml><key id="s" for="edge" attr.name="step" attr.type="int"/>'
STEP0 = '<data key="s">0</data>'


def _nodes_of_csv(tmp_path, text, name="e.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return as_series(path)


def _edges(series, t=0):
    """Step t's off-diagonal edges as label pairs (j, i): i hears j."""
    src, dst = series.window_edges(t, t + 1)
    return sorted((series.nodes[j], series.nodes[i]) for j, i in zip(src, dst, strict=True))


@pytest.mark.parametrize(
    ("a", "b"),
    [("0", "-0"), ("7", "007"), ("7", "+7"), ("7", "\u0667"), ("007", "+7"), (" ana", "ana")],
    ids=["0/-0", "7/007", "7/+7", "7/arabic-indic 7", "007/+7", "space ana/ana"],
)
def test_csv_labels_stay_distinct(tmp_path, a, b):
    """Two labels that differ as written are two nodes, and an edge between them is an
    edge, not a self-loop."""
    s = _nodes_of_csv(tmp_path, f"source,target,time\n{a},{b},0\n")
    assert s.n_agents == 2 and set(map(str, s.nodes)) == {a, b}
    assert len(_edges(s)) == 1


def test_seven_written_four_ways_is_four_nodes_in_every_format(tmp_path):
    ids = ["7", "007", "+7", "\u0667"]
    csv = "source,target,time\n" + "".join(f"{u},{v},0\n" for u in ids for v in ids if u != v)
    expected = {"7", "007", "+7", "\u0667"}
    assert set(_nodes_of_csv(tmp_path, csv).nodes) == expected  # "7" alone would be int 7
    nodes = "".join(f'<node id="{n}"/>' for n in ids)
    edges = "".join(
        f'<edge id="{k}" source="{u}" target="{v}"/>'
        for k, (u, v) in enumerate((u, v) for u in ids for v in ids if u != v)
    )
    gexf = tmp_path / "s.gexf"
    gexf.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><gexf xmlns="http://www.gexf.net/1.2draft" '
        f'version="1.2"><graph defaultedgetype="directed"><nodes>{nodes}</nodes>'
        f"<edges>{edges}</edges></graph></gexf>",
        encoding="utf-8",
    )
    graphml = tmp_path / "s.graphml"
    graphml.write_text(
        f'{STEP_KEY}<graph edgedefault="directed">'
        + "".join(f'<node id="{n}"/>' for n in ids)
        + "".join(
            f'<edge source="{u}" target="{v}">{STEP0}</edge>' for u in ids for v in ids if u != v
        )
        + "</graph></graphml>",
        encoding="utf-8",
    )
    for path in (gexf, graphml):
        s = read_series(path, self_weight=0)  # made elsewhere: the edges' weights alone
        assert set(s.nodes) == expected, path.suffix
        assert len(_edges(s)) == 12 and s.weights(0).diagonal().tolist() == [0.0] * 4


def test_canonical_integer_ids_read_as_integers(tmp_path):
    graphml = tmp_path / "s.graphml"
    graphml.write_text(
        f'{STEP_KEY}<graph edgedefault="directed"><node id="0"/><node id="-3"/><node id="12"/>'
        f'<edge source="0" target="-3">{STEP0}</edge><edge source="12" target="0">{STEP0}</edge>'
        "</graph></graphml>"
    )
    assert read_series(graphml).nodes == (-3, 0, 12)
    graphml.write_text(graphml.read_text().replace('"0"', '"-0"'))
    assert set(read_series(graphml).nodes) == {"-0", "-3", "12"}  # one text id: all text


def test_typed_integer_labels_stay_integers(tmp_path):
    frame = pd.DataFrame({"source": [3, 10], "target": [10, 3], "time": [0, 1]})
    frame.to_parquet(tmp_path / "e.parquet")
    numpy = nx.DiGraph([(np.int64(3), np.int64(10))])
    for source in (frame, tmp_path / "e.parquet", [nx.DiGraph([(3, 10)])], [numpy]):
        s = as_series(source)
        assert s.nodes == (3, 10) and all(type(n) is int for n in s.nodes)


def test_mixed_int_and_text_columns_give_the_same_nodes_in_every_format(tmp_path):
    """A Parquet int column beside a text column, the same rows as CSV and as a
    DataFrame: one rule, every label text, 1 and '1' one node."""
    frame = pd.DataFrame({"source": [1, 2, 7], "target": ["1", "x", "007"], "time": [0, 1, 1]})
    frame.to_parquet(tmp_path / "m.parquet")
    frame.to_csv(tmp_path / "m.csv", index=False)
    got = [as_series(x) for x in (frame, tmp_path / "m.parquet", tmp_path / "m.csv")]
    assert [s.nodes for s in got] == [("007", "1", "2", "7", "x")] * 3
    assert all(_edges(s, 1) == _edges(got[0], 1) for s in got)


def test_binary_labels_decoded_or_refused_in_one_line(tmp_path):
    good = pd.DataFrame(
        {"source": [b"ana", "bob"], "target": [b"bob", b"\xc3\xa9"], "time": [0, 0]}
    )
    good.to_parquet(tmp_path / "b.parquet")
    assert read_series(tmp_path / "b.parquet").nodes == ("ana", "bob", "\u00e9")
    bad = pd.DataFrame({"source": [b"ana", b"\xff"], "target": [b"bob", b"ana"], "time": [0, 1]})
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(ValueError) as info:
        read_series(tmp_path / "bad.parquet")
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    assert "column 'source', row 1 holds the bytes b'\\xff', which are not UTF-8" in message


# -- times ----------------------------------------------------------------------------


def test_dynetx_fractional_times_are_refused_in_one_line():
    dn = pytest.importorskip("dynetx")
    g = dn.DynGraph()
    g.add_interaction("a", "b", t=0.4)
    g.add_interaction("b", "c", t=1.9)
    with pytest.raises(ValueError) as info:
        as_series(g)
    message = str(info.value)
    assert "time 0.4" in message and "never truncates" in message and "\n" not in message
    whole = dn.DynGraph()
    whole.add_interaction("a", "b", t=2.0)
    assert as_series(whole).n_steps == 1


def test_dynetx_repeated_interaction_is_placed_only_where_dynetx_places_it():
    dn = pytest.importorskip("dynetx")
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=0)
    g.add_interaction("a", "b", t=5)
    g.add_interaction("c", "a", t=1, e=3)
    s = as_series(g)
    assert s.n_steps == 6
    live = [_edges(s, t) for t in range(6)]
    assert live == [[("a", "b")], [("c", "a")], [("c", "a")], [], [], [("a", "b")]]
    # reference: DyNetX's own snapshots of the same interactions, undirected (its
    # DynDiGraph.time_slice drops interactions that have an end time)
    u = dn.DynGraph()
    for a, b, t, e in (("a", "b", 0, None), ("a", "b", 5, None), ("c", "a", 1, 3)):
        u.add_interaction(a, b, t=t, e=e)
    ref = [sorted(sorted(e) for e in u.time_slice(t).edges()) for t in range(6)]
    assert [sorted(sorted(e) for e in step) for step in live] == ref


# -- the door -------------------------------------------------------------------------


def test_one_kind_table_serves_every_entry(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("source,target,time\na,b,0\n")
    assert kind_of(path).name == "edge list" and kind_of(tmp_path / "x.gexf").name == "GEXF series"
    assert kind_of(tmp_path).name == "run" and kind_of([nx.DiGraph()]).name == "networkx graphs"
    assert read_series(path).nodes == load(path).nodes == bg.read_series(path).nodes
    run = bg.Run.from_choices([[1, 0]])
    assert load(run) is run and as_series(run) is run.series
    with pytest.raises(ValueError, match="bin=2: edge-list options, but the input is a file"):
        as_series(tmp_path / "x.json", bin=2)
    with pytest.raises(TypeError, match="graphs must be a Run"):
        as_series(42)


def test_registered_kind_is_read_everywhere(tmp_path):
    def read_pairs(path, *, sep=">"):
        g = nx.DiGraph(p.split(sep) for p in path.read_text().split())
        return series_from_graphs([g])

    bg.inputs.register_kind("pairs", read_pairs, suffixes=[".pairs.txt"], options=["sep"])
    try:
        p = tmp_path / "x.pairs.txt"
        p.write_text("a>b b>c")
        assert as_series(p).nodes == ("a", "b", "c")
        assert bg.analysis.chosen_counts(p).tolist() == [1, 1, 0]  # the analysis reads it
        p.write_text("a:b b:c")
        assert as_series(p, sep=":").nodes == ("a", "b", "c")
        with pytest.raises(ValueError, match="bin=1: not an option of a file 'x.pairs.txt'"):
            as_series(p, bin=1)
    finally:
        del KINDS["pairs"]


def test_series_input_converts_once():
    calls = []

    @series_input
    def f(graphs, k=1):
        calls.append(type(graphs))
        return graphs.n_steps * k

    g = nx.DiGraph([(0, 1)])
    assert f([g, g]) == 2 and f(graphs=[g], k=3) == 3
    assert calls == [type(as_series([g]))] * 2 and all(issubclass(c, GraphSeries) for c in calls)


# -- exact round trips ----------------------------------------------------------------

TEXT = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"),
        blacklist_characters="\ufffe\uffff",
        whitelist_characters="\t\n\r ",
    ),
    min_size=1,
    max_size=5,
)
INTS = st.integers(-(10**6), 10**6)


LABEL_SETS = st.one_of(
    st.lists(INTS, min_size=2, max_size=5, unique=True),
    st.lists(TEXT, min_size=2, max_size=5, unique=True),
)


@st.composite
def labelled_series(draw, labels=LABEL_SETS):
    """A random labelled weighted series: T steps of random weighted digraphs (some
    steps empty), maybe an informative node."""
    nodes = draw(labels)
    steps = draw(st.integers(1, 4))
    graphs = []
    for _ in range(steps):
        g = nx.DiGraph()
        g.add_nodes_from(nodes)
        for _ in range(draw(st.integers(0, 2 * len(nodes)))):
            u, v = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
            w = draw(st.floats(0.001, 1e3) | st.sampled_from([0.1, 0.2, 0.7, 1 / 3, 0.5]))
            g.add_edge(u, v, weight=w)
        graphs.append(g)
    if draw(st.booleans()):
        for g in graphs:
            nx.set_node_attributes(g, False, "informative")
            g.nodes[nodes[0]]["informative"] = True
    synthetic = draw(st.booleans())
    for g in graphs:
        g.graph["synthetic"] = synthetic
    return series_from_graphs(graphs)


def exact(s: GraphSeries):
    w = [s.weights(t) for t in range(s.n_steps)]
    rows = [(x.indptr.tolist(), x.indices.tolist(), x.data.tolist()) for x in w]
    return [(type(n), n) for n in s.nodes], s.n_steps, s.informative, s.synthetic, rows


@settings(max_examples=80, deadline=None)
@given(series=labelled_series(), suffix=st.sampled_from([".json", ".graphml", ".gexf"]))
def test_round_trips_keep_labels_steps_and_weights_exactly(tmp_path_factory, series, suffix):
    path = tmp_path_factory.mktemp("rt") / f"s{suffix}"
    bg.write_series(series, path, window=1)
    back = read_series(path)
    assert exact(back) == exact(series)


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(
        st.tuples(INTS | TEXT, INTS | TEXT, st.integers(0, 5), st.floats(0.01, 100)),
        min_size=1,
        max_size=12,
    )
)
def test_the_same_rows_give_the_same_series_as_frame_csv_and_parquet(tmp_path_factory, rows):
    labels = [x for r in rows for x in r[:2]]
    # CSV carries no types: a text label that reads as a canonical integer is an int there
    assume(not any(isinstance(x, str) and (x.lstrip("-").isdigit() or x != x) for x in labels))
    # pandas writes a bare CR unquoted (its line end is LF): no CSV reader reads that row
    assume(all(isinstance(x, int) or "\r" not in x for x in labels))
    frame = pd.DataFrame(rows, columns=["source", "target", "time", "weight"])
    folder = tmp_path_factory.mktemp("rows")
    frame.to_csv(folder / "e.csv", index=False)
    ref = exact(as_series(frame))
    assert exact(read_series(folder / "e.csv")) == ref
    if all(len(set(map(type, frame[c]))) == 1 for c in ("source", "target")):
        frame.to_parquet(folder / "e.parquet")  # a Parquet column holds one type
        assert exact(read_series(folder / "e.parquet")) == ref


def test_gexf_weights_come_back_per_step(tmp_path):
    """The 0.5/0.5 split that came back 0.6/0.4: every step's weights exactly."""
    steps = []
    for t in range(28):
        g = nx.DiGraph()
        share = 0.5 if t % 3 else 0.8
        g.add_edge("a", "c", weight=share)
        g.add_edge("b", "c", weight=1 - share)
        g.add_edge("c", "a", weight=1.0)
        steps.append(g)
    series = as_series(steps, self_weight=0)  # the edges' weights alone: c keeps nothing
    back = read_series(bg.write_series(series, tmp_path / "s.gexf", window=3))
    assert exact(back) == exact(series)
    influence = bg.analysis.influence_series
    a = influence(series, window=3, windows="sliding").values
    b = influence(back, window=3, windows="sliding").values
    assert np.array_equal(a, b, equal_nan=True)
    assert math.isclose(back.weights(1)[2, 0], 0.5) and math.isclose(back.weights(0)[2, 0], 0.8)
