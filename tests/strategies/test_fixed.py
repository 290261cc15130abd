"""Fixed graphs: weight rules, baselines, no mutation of the caller's graph."""

from __future__ import annotations

import re
import warnings
from decimal import Decimal
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.strategies import (
    FixedGraph,
    complete,
    listen_matrix,
    nocol,
    star,
)


@pytest.mark.parametrize("rule", ["equal", "delta", "uniform", "edge"])
@pytest.mark.parametrize("directed", [False, True])
def test_weight_rules_are_row_stochastic_and_follow_the_graph(rule, directed, rng):
    g = nx.gnp_random_graph(8, 0.4, seed=3, directed=directed)
    for u, v in g.edges:
        g[u][v]["weight"] = rng.uniform(0.5, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = FixedGraph(g, weights=rule).matrix(8, delta=0.3).toarray()
    # a rule that does not read the weights says so (hostile18, noted: they were ignored
    # without a word); "edge" reads them
    said = [str(c.message) for c in caught if "'weight' attributes" in str(c.message)]
    assert said == ([] if rule == "edge" else [
        f"FixedGraph(weights={rule!r}) does not read the graph's 'weight' attributes (its "
        "rule uses who hears whom): pass weights='edge' to use them"
    ])  # fmt: skip
    if rule != "edge":  # an unweighted graph: nothing to say
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bare = nx.create_empty_copy(g)
            bare.add_edges_from(g.edges)
            FixedGraph(bare, weights=rule).matrix(8, delta=0.3)
    np.testing.assert_allclose(w.sum(1), 1.0)
    hears = listen_matrix(g, 8).toarray()
    assert (w[~np.eye(8, dtype=bool)] > 0).tolist() == hears[~np.eye(8, dtype=bool)].tolist()
    deg = hears.sum(1)
    if rule == "delta":
        np.testing.assert_allclose(np.diag(w), np.where(deg > 0, 0.3, 1.0))
    if rule in ("equal", "uniform"):
        np.testing.assert_allclose(np.diag(w), 1 / (deg + 1))
    if rule == "edge":
        a = nx.to_numpy_array(g, nodelist=range(8))
        a = a if directed else np.maximum(a, a.T)
        raw = a.T + np.eye(8)
        np.testing.assert_allclose(w, raw / raw.sum(1, keepdims=True))


def test_fixed_graph_does_not_mutate_its_graph():
    g = nx.path_graph(4)
    before = nx.node_link_data(g, edges="edges")
    FixedGraph(g, weights="edge").matrix(4, delta=0.5)
    assert nx.node_link_data(g, edges="edges") == before


@pytest.mark.parametrize("m", [2, 3, 5, 12, 37])
@pytest.mark.parametrize("delta", [0.0, 0.3, 0.5, 1.0])
def test_baselines_have_the_papers_equal_weights_exactly(m, delta):
    # the paper's complete graph is plain averaging; its star's centre averages
    # everyone, each leaf averages itself and the centre (whatever delta is)
    assert (complete(m).matrix(m, delta=delta).toarray() == np.full((m, m), 1 / m)).all()
    for center in {0, m - 1, m // 2}:
        expected = np.zeros((m, m))
        expected[center] = 1 / m
        for leaf in set(range(m)) - {center}:
            expected[leaf, [leaf, center]] = 0.5
        assert (star(m, center=center).matrix(m, delta=delta).toarray() == expected).all()
    assert FixedGraph(nx.complete_graph(m)).weights == "equal"


def test_baseline_constructors():
    w = complete(5, weights="delta").matrix(5, delta=0.5).toarray()
    np.testing.assert_allclose(w, np.where(np.eye(5) > 0, 0.5, 0.125))
    s = star(4, center=2, weights="delta").matrix(4, delta=0.5).toarray()
    assert s[0].tolist() == [0.5, 0, 0.5, 0] and s[2].tolist() == [1 / 6, 1 / 6, 0.5, 1 / 6]
    for rule in ("equal", "uniform"):
        s = star(4, center=2, weights=rule).matrix(4, delta=0.5).toarray()
        assert s[0].tolist() == [0.5, 0, 0.5, 0] and s[2].tolist() == [0.25] * 4
    assert (nocol(3).matrix(3, delta=0.2) != sp.eye_array(3)).nnz == 0
    with pytest.raises(ValueError, match="center must be"):
        star(3, center=3)
    with pytest.raises(ValueError, match="weights must be one of"):
        FixedGraph(nx.path_graph(2), weights="max")


def _edge_rule_by_hand(g, m):
    """The docstring's rule "edge", edge by edge: row i sums the weights of i's in-edges
    (parallel ones added), a present self-loop's own weight, 1 for an absent one."""
    raw = [[Fraction(0)] * m for _ in range(m)]
    loops = set()
    for u, v, x in g.edges(data="weight", default=1.0):
        raw[v][u] += Fraction(x)
        if u == v:
            loops.add(u)
        elif not g.is_directed():
            raw[u][v] += Fraction(x)
    for i in set(range(m)) - loops:
        raw[i][i] = Fraction(1)
    return raw


@given(
    m=st.integers(1, 6),
    edges=st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(0, 5),
            st.sampled_from([0.0, 5e-324, 1e-310, 0.5, 1.0, 3.0, 1e308]),
        ),
        max_size=14,
    ),
    kind=st.sampled_from([nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]),
)
@settings(max_examples=150, deadline=None)
def test_edge_rule_matches_the_rule_edge_by_edge(m, edges, kind):
    """Zero weights, self-loops of weight 0, parallel edges: the matrix is the docstring's
    rule applied by hand (U2: a present 0 self-loop was read as an absent one, weight 1)."""
    g = kind()
    g.add_nodes_from(range(m))
    g.add_weighted_edges_from((u % m, v % m, x) for u, v, x in edges)
    raw = _edge_rule_by_hand(g, m)  # exact sums (Fractions): no overflow, no underflow
    total = [sum(row, Fraction(0)) for row in raw]
    # a parallel sum that overflows is found while the matrix is built, before any row
    # is normalised: refused first, whatever another row sums to
    if any(x > np.finfo(float).max for row in raw for x in row):
        with pytest.raises(ValueError, match="overflows"):
            FixedGraph(g, weights="edge").matrix(m, delta=0.5)
        return
    if any(t == 0 for t in total):
        with pytest.raises(ValueError, match=r"agent \d+'s weights .* sum to 0"):
            FixedGraph(g, weights="edge").matrix(m, delta=0.5)
        return
    shares = [[x / t for x in row] for row, t in zip(raw, total, strict=True)]
    # a positive weight whose share no float holds would drop its edge: refused (hostile20
    # Y3's neighbour: 5e-324 beside a weight 1); a share within a rounding of 5e-324 may
    # go either way, the exact share of the refused one is that small
    vanish = any(x > 0 and float(x) == 0 for row in shares for x in row)
    try:
        w = FixedGraph(g, weights="edge").matrix(m, delta=0.5).toarray()
    except ValueError as e:
        assert "below the smallest float (5e-324)" in str(e)
        assert any(0 < x <= Fraction(5e-324) for row in shares for x in row)
        return
    assert not vanish
    want = np.array([[float(x) for x in row] for row in shares])
    np.testing.assert_allclose(w, want, rtol=1e-14, atol=1e-300)


def test_a_present_zero_self_loop_keeps_nothing_of_the_agent():
    g = nx.DiGraph([(0, 1)])
    g.add_node(2)
    g.add_edge(1, 1, weight=0.0)
    w = FixedGraph(g, weights="edge").matrix(3, delta=0.5).toarray()
    assert w[1].tolist() == [1.0, 0.0, 0.0]


#: Bad edge weights and the words of their case (hostile20 Y4: one text ending "scale
#: the weights" was said for all of them, for None and 10**400 alike).
BAD_WEIGHTS = [
    (None, "None is not a number"),
    ("1", "a str is not a number"),
    ("abc", "a str is not a number"),
    (True, "a bool is not a number"),
    (np.True_, "a bool is not a number"),
    (1 + 0j, "a complex is not a number"),
    (np.array(0.5), "an ndarray is not a number"),
    (-1.0, "negative"),
    (Decimal("-1"), "negative"),
    (np.int64(-3), "negative"),
    (Decimal("-1e-400"), "negative"),  # below every float, still negative (Y3)
    (Fraction(-1, 10**400), "negative"),
    (np.nan, "not finite"),
    (np.inf, "not finite"),
    (-np.inf, "not finite"),
    (np.float16("nan"), "not finite"),
    (Decimal("NaN"), "not finite"),
    (Decimal("sNaN"), "not finite"),
    (Decimal("-Infinity"), "not finite"),
    (Decimal("Infinity"), "not finite"),
    (10**400, r"too large for a float \(above 1.8e308\): scale the weights down"),
    (10**5000, "too large for a float"),  # past Python's int-to-text limit too
    (Decimal("1E+400"), "too large for a float"),
    (np.longdouble("1e4000") if np.finfo(np.longdouble).max > 1e400 else 10**401, "too large"),
    (Decimal("1e-400"), r"positive but below the smallest float .*: scale the weights up"),
    (Fraction(1, 10**400), "positive but below the smallest float"),
]


@pytest.mark.parametrize(
    ("bad", "words"),
    BAD_WEIGHTS,
    ids=[repr(type(b)) + str(k) for k, (b, _) in enumerate(BAD_WEIGHTS)],
)
def test_a_bad_weight_is_refused_in_the_words_of_its_case_naming_its_edge(bad, words):
    g = nx.DiGraph([(1, 2)])
    g.add_edge(0, 1, weight=bad)
    with pytest.raises(ValueError, match=r"^graph edge \(0, 1\) has a 'weight' attribute ") as e:
        FixedGraph(g, weights="edge").matrix(3, delta=0.5)
    assert re.search(words, str(e.value)), str(e.value)
    assert len(str(e.value)) <= 300
    if "below the smallest" not in words:  # "scale" only where scaling is the remedy
        assert "scale the weights up" not in str(e.value)


def test_a_weight_whose_share_no_float_holds_is_refused_naming_its_edge():
    # hostile20 Y3's neighbour: 5e-324 beside a weight 1 became 0 when its row (total 2)
    # was normalised, dropping the edge the check of 1e-400 means to keep
    g = nx.Graph()
    g.add_edge(0, 1, weight=5e-324)
    g.add_edge(1, 2, weight=1.0)
    with pytest.raises(ValueError, match=r"graph edge \(0, 1\) .* agent 1's total 2.0 is below"):
        FixedGraph(g, weights="edge").matrix(3, delta=0.5)
    g[0][1]["weight"] = 1e-323  # its share 5e-324 is a float: kept
    assert FixedGraph(g, weights="edge").matrix(3, delta=0.5).toarray()[1, 0] == 5e-324


def test_parallel_weights_that_overflow_are_refused_without_numpy_warnings(recwarn):
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(2))
    g.add_edge(0, 1, weight=1e308)
    g.add_edge(0, 1, weight=1e308)
    with pytest.raises(ValueError, match=r"parallel edges \(0, 1\) .* overflows"):
        FixedGraph(g, weights="edge").matrix(2, delta=0.5)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("rule", ["delta", "equal", "uniform", "edge"])
def test_every_rule_checks_the_nodes_once_on_its_own_path(monkeypatch, rule):
    """The edge rule built the listen matrix and degrees only to check the nodes (closing
    note, session 8): it checks them itself and builds nothing it does not use; every
    rule refuses nodes other than 0..M-1 in the same words."""
    from baygo_graph.strategies import fixed

    g = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    with pytest.raises(ValueError, match=r"graph must have exactly the nodes 0\.\.3"):
        FixedGraph(g, weights=rule).matrix(4, delta=0.5)
    built = []
    real = fixed.listen_matrix
    monkeypatch.setattr(fixed, "listen_matrix", lambda *a: built.append(1) or real(*a))
    w = FixedGraph(g, weights=rule).matrix(3, delta=0.5)
    assert np.allclose(w.sum(axis=1), 1.0)
    assert built == ([] if rule == "edge" else [1])


def test_an_overflowing_parallel_sum_is_refused_before_a_row_of_zero_weights():
    """The hypothesis test's example (m=2): node 0's parallel self-loops of 1e308 add to
    inf and node 1's only weight is a 0 self-loop: the overflow is named (the rule's
    first refusal), as the property test now expects."""
    g = nx.MultiGraph()
    g.add_nodes_from(range(2))
    g.add_weighted_edges_from([(0, 0, 1e308), (0, 0, 1e308), (1, 1, 0.0)])
    with pytest.raises(ValueError, match="overflows"):
        FixedGraph(g, weights="edge").matrix(2, delta=0.5)
