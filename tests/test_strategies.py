"""Weight rules, the KL choice and its tie-breaking."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.strategies import (
    BayGo,
    Centralised,
    FixedGraph,
    complete,
    kl_choices,
    kl_matrix,
    listen_matrix,
    nocol,
    physical_graph,
    resolve_strategy,
    star,
)


def random_logp(rng, m, k):
    logp = rng.normal(scale=3, size=(m, k))
    return logp - np.log(np.exp(logp).sum(1, keepdims=True))


def test_kl_matrix_brute_force(rng):
    lp = random_logp(rng, 5, 8)
    p = np.exp(lp)
    ref = np.array([[np.sum(p[i] * (lp[i] - lp[j])) for j in range(5)] for i in range(5)])
    np.testing.assert_allclose(kl_matrix(lp), ref, atol=1e-12)


def test_listen_matrix_direction():
    g = nx.DiGraph([(0, 1), (1, 2), (2, 2)])  # 1 hears 0, 2 hears 1
    h = listen_matrix(g, 3).toarray()
    assert h.astype(int).tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="nodes 0..3"):
        listen_matrix(g, 4)
    with pytest.raises(TypeError, match="networkx graph"):
        listen_matrix(np.eye(3), 3)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(2, 9), k=st.integers(2, 12), p=st.floats(0.1, 1.0), seed=st.integers(0, 10**6))
def test_choices_match_dense_argmax_on_any_physical_graph(m, k, p, seed):
    rng = np.random.default_rng(seed)
    lp = random_logp(rng, m, k)
    graph = nx.gnp_random_graph(m, p, seed=seed, directed=True)
    listen = listen_matrix(graph, m)
    kl = kl_matrix(lp)
    allowed = listen.toarray()
    expected = np.where(allowed.any(1), np.where(allowed, kl, -np.inf).argmax(1), -1)
    got = kl_choices(np.exp(lp), lp, listen=listen, rng=rng)
    np.testing.assert_array_equal(got, expected)
    if listen.nnz == m * (m - 1):
        np.testing.assert_array_equal(kl_choices(np.exp(lp), lp, rng=rng), expected)


def test_sparse_path_equals_dense_path(rng):
    m, k = 60, 30
    lp = random_logp(rng, m, k)
    graph = nx.random_regular_graph(4, m, seed=1)
    listen = listen_matrix(graph, m)
    assert listen.nnz < m * m // 4  # takes the edge path
    sparse_choice = kl_choices(np.exp(lp), lp, listen=listen, rng=rng)
    dense = np.where(listen.toarray(), kl_matrix(lp), -np.inf).argmax(1)
    np.testing.assert_array_equal(sparse_choice, dense)


def test_ties_are_broken_uniformly_with_the_rng():
    lp = np.log(np.full((4, 3), 1 / 3))  # everyone identical: all neighbours tie
    rng = np.random.default_rng(0)
    picks = np.array([kl_choices(np.exp(lp), lp, rng=rng) for _ in range(3000)])
    assert (picks != np.arange(4)).all()
    freq = np.array([np.bincount(picks[:, i], minlength=4) for i in range(4)]) / 3000
    off = freq[~np.eye(4, dtype=bool)]
    np.testing.assert_allclose(off, 1 / 3, atol=0.04)
    a = kl_choices(np.exp(lp), lp, rng=np.random.default_rng(5))
    b = kl_choices(np.exp(lp), lp, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_no_tie_draws_nothing_from_the_rng(rng):
    lp = random_logp(rng, 5, 6)
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    kl_choices(np.exp(lp), lp, rng=r1)
    assert r1.random() == r2.random()


@pytest.mark.parametrize("rule", ["delta", "uniform", "edge"])
@pytest.mark.parametrize("directed", [False, True])
def test_weight_rules_are_row_stochastic_and_follow_the_graph(rule, directed, rng):
    g = nx.gnp_random_graph(8, 0.4, seed=3, directed=directed)
    for u, v in g.edges:
        g[u][v]["weight"] = rng.uniform(0.5, 2)
    w = FixedGraph(g, weights=rule).matrix(8, delta=0.3).toarray()
    np.testing.assert_allclose(w.sum(1), 1.0)
    hears = listen_matrix(g, 8).toarray()
    assert (w[~np.eye(8, dtype=bool)] > 0).tolist() == hears[~np.eye(8, dtype=bool)].tolist()
    deg = hears.sum(1)
    if rule == "delta":
        np.testing.assert_allclose(np.diag(w), np.where(deg > 0, 0.3, 1.0))
    if rule == "uniform":
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


def test_baseline_constructors():
    w = complete(5).matrix(5, delta=0.5).toarray()
    np.testing.assert_allclose(w, np.where(np.eye(5) > 0, 0.5, 0.125))
    s = star(4, center=2).matrix(4, delta=0.5).toarray()
    assert s[0].tolist() == [0.5, 0, 0.5, 0] and s[2].tolist() == [1 / 6, 1 / 6, 0.5, 1 / 6]
    assert (nocol(3).matrix(3, delta=0.2) != sp.eye_array(3)).nnz == 0
    with pytest.raises(ValueError, match="center must be"):
        star(3, center=3)
    with pytest.raises(ValueError, match="weights must be one of"):
        FixedGraph(nx.path_graph(2), weights="max")


def test_resolve_strategy_names():
    assert isinstance(resolve_strategy("baygo", agents=4), BayGo)
    assert isinstance(resolve_strategy("Cen", agents=4), Centralised)
    assert resolve_strategy("posm", agents=4, informative=2).graph.degree(2) == 3
    assert resolve_strategy("star-negm", agents=4, informative=3).graph.degree(0) == 3
    assert resolve_strategy(nx.cycle_graph(4), agents=4).name == "graph"
    with pytest.raises(TypeError, match="strategy must be"):
        resolve_strategy(3, agents=4)


@pytest.mark.parametrize(
    ("name", "agents", "degree"),
    [("regular-4", 10, 4.0), ("regular-3", 8, 3.0)],
)
def test_physical_graph_by_name(name, agents, degree):
    g = physical_graph(name, agents, seed=1)
    assert sorted(g.nodes) == list(range(agents))
    assert {d for _, d in g.degree} == {degree}


def test_geometric_graph_has_about_the_asked_degree():
    g = physical_graph("geometric", 400, seed=0)
    mean_degree = 2 * g.number_of_edges() / 400
    assert 7 < mean_degree < 11  # ~10, less near the border of the unit square


def test_physical_graph_names_are_checked():
    assert physical_graph("complete", 5) is None
    with pytest.raises(ValueError, match="physical must be"):
        physical_graph("regular-3", 5)
    with pytest.raises(ValueError, match="physical must be"):
        physical_graph("ring", 5)
