"""Every GraphSeries backing against brute-force NetworkX / dense numpy references."""

from __future__ import annotations

import copy
from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.inputs import as_series
from baygo_graph.models import LinearRegression
from baygo_graph.series import ChoiceSeries, EdgeListSeries, FixedSeries
from baygo_graph.strategies import complete, star

# -- references ----------------------------------------------------------------------


def ref_weights(g: nx.DiGraph, nodes) -> np.ndarray:
    """W of one step graph: in-edge weights per row, normalised; empty rows w_ii = 1."""
    a = nx.to_scipy_sparse_array(g, nodelist=list(nodes), weight="weight").T.toarray()
    total = a.sum(axis=1)
    empty = total == 0
    a[empty, empty] = 1.0
    return a / np.where(empty, 1.0, total)[:, None]


def ref_edges(graphs, nodes, start, stop) -> Counter:
    """Multiset of positive off-diagonal edges (src index, dst index) of steps [start, stop)."""
    index = {v: k for k, v in enumerate(nodes)}
    return Counter(
        (index[u], index[v])
        for g in graphs[start:stop]
        for u, v, w in g.edges(data="weight", default=1.0)
        if u != v and w > 0
    )


def check_against_graphs(s, graphs, nodes):
    """weights / weight_sum / window_edges / step_edges / weight_stack vs the graphs."""
    t_all, m = len(graphs), len(nodes)
    assert (s.n_steps, s.n_agents, tuple(s.nodes)) == (t_all, m, tuple(nodes))
    refs = np.stack([ref_weights(g, nodes) for g in graphs])
    for t in range(t_all):
        w = s.weights(t).toarray()
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(w, refs[t], atol=1e-12)
    np.testing.assert_allclose(s.weight_stack(), refs, atol=1e-12)
    for start in range(t_all):
        for stop in range(start + 1, t_all + 1):
            np.testing.assert_allclose(
                s.weight_sum(start, stop).toarray(), refs[start:stop].sum(axis=0), atol=1e-12
            )
            src, dst = s.window_edges(start, stop)
            got = Counter(zip(src.tolist(), dst.tolist(), strict=True))
            ref = ref_edges(graphs, nodes, start, stop)
            if s.fixed is None:
                assert got == ref  # once per step
            else:
                assert set(got) == set(ref)  # a fixed W gives its edges once
    step, src, dst, w = s.step_edges(0, t_all)
    assert np.all(np.diff(step) >= 0) and np.all(src != dst)
    np.testing.assert_allclose(w, refs[step, dst, src], atol=1e-12)


# -- runs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return synthetic_bodyfat(rng=0)


@pytest.mark.parametrize(
    ("name", "backing"),
    [("baygo", ChoiceSeries), ("complete", FixedSeries), ("posm", FixedSeries)],
)
def test_simulated_runs(data, name, backing):
    run = simulate(
        name, agents=4, steps=5, model=LinearRegression(grid=9), rng=2, data=data, delta=0.3
    )
    s = as_series(run)
    assert s is run.series and isinstance(s, backing)
    graphs = list(run.graphs())
    check_against_graphs(s, graphs, range(4))
    if backing is FixedSeries:  # independent of run.graph: the strategy's own matrix
        strat = complete(4) if name == "complete" else star(4, center=0)
        np.testing.assert_allclose(s.fixed.toarray(), strat.matrix(4, delta=0.3).toarray())
        assert s.choices is None
    else:
        assert s.fixed is None and s.choices.shape == (5, 4)


def test_centralised_run_has_no_series(data):
    run = simulate("cen", agents=3, steps=2, model=LinearRegression(grid=9), rng=0, data=data)
    assert run.series is None
    with pytest.raises(ValueError, match="centralised"):
        as_series(run)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 6),
    st.floats(0.0, 0.95),
    st.integers(0, 2**32 - 1),
)
def test_choice_series_from_choices(t, m, delta, seed):
    rng = np.random.default_rng(seed)
    choices = rng.integers(-1, m, size=(t, m))
    choices[choices == np.arange(m)] = -1  # no agent listens to itself
    kept = choices.copy()
    run = Run.from_choices(choices, delta=delta)
    s = as_series(run)
    assert isinstance(s, ChoiceSeries) and s.choices.tolist() == kept.tolist()
    # independent reference: w_ii = delta, w_i,c = 1 - delta; no choice: w_ii = 1
    refs = np.zeros((t, m, m))
    for step in range(t):
        for i in range(m):
            c = choices[step, i]
            if c < 0:
                refs[step, i, i] = 1.0
            else:
                refs[step, i, i] += delta
                refs[step, i, c] += 1.0 - delta
    np.testing.assert_allclose(s.weight_stack(), refs, atol=1e-12)
    check_against_graphs(s, list(run.graphs()), range(m))
    np.testing.assert_array_equal(choices, kept)  # input not mutated


# -- NetworkX graph sequences --------------------------------------------------------


def random_graphs(rng, t, labels, *, density=0.4):
    graphs = []
    for _ in range(t):
        g = nx.DiGraph()
        g.add_nodes_from(rng.permutation(np.array(labels, dtype=object)).tolist())
        for u in labels:
            for v in labels:
                if rng.random() < density:
                    # weight 0 edges carry nothing; self-loops are part of the row
                    w = float(rng.choice([0.0, 0.5, 1.0, 2.5]))
                    g.add_edge(u, v, weight=w)
        graphs.append(g)
    return graphs


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 6),
    st.sampled_from(["int", "str", "mixed"]),
    st.integers(0, 2**32 - 1),
)
def test_graph_sequences(t, m, labels_kind, seed):
    rng = np.random.default_rng(seed)
    labels = {
        "int": [int(k) * 3 for k in range(m)],
        "str": [f"agent-{k}" for k in range(m)],
        "mixed": [k if k % 2 else f"s{k}" for k in range(m)],
    }[labels_kind]
    graphs = random_graphs(rng, t, labels)
    before = [copy.deepcopy((list(g.nodes(data=True)), list(g.edges(data=True)))) for g in graphs]
    s = as_series(graphs, self_weight=0)  # the graphs' own weights: no self-weight added
    assert isinstance(s, EdgeListSeries)
    try:
        nodes = sorted(labels)
    except TypeError:  # unsortable labels: the first graph's order
        nodes = list(graphs[0])
    check_against_graphs(s, graphs, nodes)
    after = [(list(g.nodes(data=True)), list(g.edges(data=True))) for g in graphs]
    assert before == after  # inputs not mutated


def test_unweighted_edges_weigh_one_and_informative_flag():
    g = nx.DiGraph([("a", "b"), ("c", "b")])
    g.add_edge("a", "b", weight=3.0)
    g.nodes["c"]["informative"] = True
    s = as_series([g], self_weight=0)
    assert s.nodes == ("a", "b", "c") and s.informative == 2
    np.testing.assert_allclose(s.weights(0).toarray()[1], [0.75, 0.0, 0.25])
    # the default equal rule: b hears 2 others, keeps 1/3 and shares 2/3 as 3:1
    np.testing.assert_allclose(as_series([g]).weights(0).toarray()[1], [0.5, 1 / 3, 1 / 6])


def test_bad_graph_sequences():
    with pytest.raises(ValueError, match="at least one step"):
        as_series([])
    with pytest.raises(TypeError, match="DiGraph or Graph"):
        as_series([nx.DiGraph([(0, 1)]), "not a graph"])
    with pytest.raises(ValueError, match="graph 0: edge 0 -> 1: weight nan: it is not finite"):
        as_series([nx.DiGraph([(0, 1, {"weight": float("nan")})])])


def test_node_sets_are_united_and_missing_nodes_isolated():
    s = as_series([nx.DiGraph([(0, 1)]), nx.DiGraph([(0, 2)])], self_weight=0)
    assert s.nodes == (0, 1, 2)
    np.testing.assert_array_equal(
        s.weight_stack(),
        [[[1, 0, 0], [1, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, 1, 0], [1, 0, 0]]],
    )


def test_undirected_graph_is_both_directions_with_its_weight():
    u = nx.Graph()
    u.add_weighted_edges_from([("a", "b", 2.0), ("b", "c", 1.0)])
    d = as_series([u], self_weight=0).weight_stack()[0]
    ref = as_series([u.to_directed()], self_weight=0).weight_stack()[0]
    np.testing.assert_array_equal(d, ref)
    np.testing.assert_allclose(d[1], [2 / 3, 0.0, 1 / 3])  # b hears a (2) and c (1)


def test_multigraph_parallel_edges_add_up():
    g = nx.MultiDiGraph([("a", "b"), ("a", "b"), ("c", "b")])
    w = as_series([g], self_weight=0).weights(0).toarray()
    np.testing.assert_allclose(w[1], [2 / 3, 0, 1 / 3])


def test_series_graph_round_trip_keeps_labels():
    g = nx.DiGraph([("x", "y", {"weight": 1.0}), ("y", "x", {"weight": 1.0})])
    g.add_node("z")
    s = as_series([g, g])
    back = as_series(list(s.graphs()))
    assert back.nodes == s.nodes == ("x", "y", "z")
    np.testing.assert_array_equal(back.weight_stack(), s.weight_stack())


def test_backings_are_importable_from_series():
    import baygo_graph.series as series
    import baygo_graph.series_backings as backings

    assert set(backings.__all__) <= set(series.__all__)
    for name in backings.__all__:
        assert getattr(series, name) is getattr(backings, name)


def test_networkx_temporal_snapshots():
    tx = pytest.importorskip("networkx_temporal")
    tg = tx.temporal_graph(directed=True, t=3)
    tg[0].add_edge("a", "b")
    tg[1].add_edge("b", "c")
    tg[2].add_edge("c", "a")
    s = as_series(tg)
    ref = as_series([nx.DiGraph(g) for g in tg])
    assert s.nodes == ("a", "b", "c") and s.n_steps == 3
    np.testing.assert_array_equal(s.weight_stack(), ref.weight_stack())


def test_dynetx_interactions_hold_until_removed():
    dn = pytest.importorskip("dynetx")
    g = dn.DynDiGraph()
    g.add_interaction("a", "b", t=0)
    g.add_interaction("b", "a", t=2)
    g.add_interaction("a", "c", t=2, e=4)  # holds at 2 and 3
    s = as_series(g)
    assert s.nodes == ("a", "b", "c") and s.n_steps == 4
    live = [
        sorted((s.nodes[j], s.nodes[i]) for j, i in zip(*s.window_edges(t, t + 1), strict=True))
        for t in range(4)
    ]
    assert live == [[("a", "b")], [], [("a", "c"), ("b", "a")], [("a", "c")]]
    u = dn.DynGraph()
    u.add_interaction(1, 2, t=5)
    assert as_series(u, self_weight=0).weights(0).toarray().tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert as_series(u).weights(0).toarray().tolist() == [[0.5, 0.5], [0.5, 0.5]]


@pytest.mark.parametrize(
    ("nodes", "error", "match"),
    [
        ((None, "b"), ValueError, r"nodes\[0\] is None: a node needs a label \(a JSON null"),
        (("a", float("nan")), ValueError, r"nodes\[1\] is nan: a node needs a label"),
        (("a", "a"), ValueError, "node label 'a' appears twice in nodes"),
        ((["a"], "b"), TypeError, r"node labels must be hashable .*, got \['a'\]"),
    ],
)
def test_missing_or_repeated_labels_are_refused_by_the_series(nodes, error, match):
    """A None label reached NetworkX ("None cannot be a node") only when a step graph was
    built; the series refuses it when it is made."""
    from baygo_graph.series import series_from_edges

    with pytest.raises(error, match=match):
        series_from_edges([0], [0], [1], [1.0], n_steps=1, nodes=nodes)


def test_an_empty_label_cell_is_named_by_row():
    import pandas as pd

    frame = pd.DataFrame({"source": ["a", None], "target": ["b", "a"], "time": [0, 1]})
    with pytest.raises(ValueError, match="column 'source' is empty in row 1"):
        as_series(frame)


@pytest.mark.parametrize("missing", [pd.NA, pd.NaT, np.float64("nan"), np.datetime64("NaT")])
def test_pandas_and_numpy_missing_values_are_not_labels(missing):
    with pytest.raises(ValueError, match=r"nodes\[0\] is .*: a node needs a label"):
        as_series([nx.DiGraph([(missing, 1), (1, 0)])])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 9).flatmap(
        lambda m: st.tuples(st.lists(st.integers(-1, m - 1), min_size=m, max_size=m))
    ),
    st.sampled_from([0.0, 0.3, 0.5, 1.0, 0.123456789]),
)
def test_choice_weights_equal_the_coo_construction_bit_for_bit(choices, delta):
    """W of a step (built directly as canonical CSR) is scipy's COO build of the
    definition: the same entries, order and bits (self-choices and -1 included)."""
    import scipy.sparse as sp

    (row,) = choices
    ch = np.array(row)
    m = len(ch)
    has = ch >= 0
    rows = np.concatenate([np.arange(m), np.flatnonzero(has)])
    cols = np.concatenate([np.arange(m), ch[has]])
    vals = np.concatenate([np.where(has, delta, 1.0), np.full(has.sum(), 1.0 - delta)])
    want = sp.csr_array((vals, (rows, cols)), shape=(m, m))
    want.sort_indices()
    got = ChoiceSeries.from_choices([ch], delta=delta).weights(0)
    assert got.has_canonical_format
    assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
    assert got.data.tobytes() == want.data.tobytes()
