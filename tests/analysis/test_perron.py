"""Influence of one W (left Perron vector) and closed classes vs numpy.linalg.eig and NetworkX."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import digraph, eig_reference

from baygo_graph import NotUniqueError, Run
from baygo_graph.analysis import closed_classes, influence


def random_stochastic(rng, m, *, density=0.4, transient=0):
    """Row-stochastic W: a strongly connected aperiodic core plus transient agents."""
    core = m - transient
    a = (rng.random((core, core)) < density) * rng.random((core, core))
    perm = rng.permutation(core)
    a[perm, np.roll(perm, 1)] += 0.5  # a Hamiltonian cycle: strongly connected
    a[np.arange(core), np.arange(core)] += rng.random(core)  # aperiodic
    w = np.zeros((m, m))
    w[:core, :core] = a
    for i in range(core, m):  # transient agents listen to someone earlier
        w[i, : i + 1] = rng.random(i + 1) * (rng.random(i + 1) < 0.6)
        w[i, rng.integers(0, core)] += 0.3
    return w / w.sum(axis=1, keepdims=True)


# -- influence vs references -------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(st.integers(1, 25), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_influence_matches_dense_eig(m, transient, seed):
    rng = np.random.default_rng(seed)
    transient = min(transient, m - 1)
    w = random_stochastic(rng, m, transient=transient)
    pi = influence(w)
    np.testing.assert_allclose(pi, eig_reference(w), atol=1e-10)
    np.testing.assert_allclose(pi @ w, pi, atol=1e-12)
    assert pi.sum() == pytest.approx(1.0) and (pi >= 0).all()
    if transient:
        assert (pi[m - transient :] == 0).all()
    np.testing.assert_allclose(influence(sp.csr_array(w)), pi, atol=1e-14)


@pytest.mark.parametrize("m", [3, 8, 20])
def test_influence_matches_networkx_on_reversed_graph(rng, m):
    w = random_stochastic(rng, m, density=0.3)
    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    i, j = np.nonzero(w)
    g.add_weighted_edges_from(zip(j.tolist(), i.tolist(), w[i, j].tolist(), strict=True))
    ref = nx.eigenvector_centrality(g.reverse(), weight="weight", tol=1e-12, max_iter=100_000)
    ref = np.array([ref[k] for k in range(m)])
    np.testing.assert_allclose(influence(g), ref / ref.sum(), atol=1e-8)
    np.testing.assert_allclose(influence(g), influence(w), atol=1e-13)


def test_graph_rows_are_normalised_in_edge_weights():
    g = nx.DiGraph()
    g.add_weighted_edges_from([(1, 0, 3.0), (0, 0, 1.0), (0, 1, 2.0), (2, 1, 2.0), (1, 2, 5.0)])
    w = np.array([[0.25, 0.75, 0.0], [0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])
    np.testing.assert_allclose(influence(g), influence(w), atol=1e-14)
    # nodelist reorders the result
    np.testing.assert_allclose(
        influence(g, nodelist=[2, 0, 1]), influence(w)[[2, 0, 1]], atol=1e-14
    )
    # a node without in-edges keeps w_ii = 1: it is the only closed class
    h = nx.DiGraph([(0, 1), (1, 2)])
    assert influence(h).tolist() == [1.0, 0.0, 0.0]


def test_periodic_closed_class_is_fine():
    cycle = np.roll(np.eye(4), 1, axis=1)  # agent i listens to i+1: period 4
    np.testing.assert_allclose(influence(cycle), np.full(4, 0.25))


# -- uniqueness --------------------------------------------------------------------
def test_not_unique_raises_and_names_classes():
    with pytest.raises(NotUniqueError, match="3 closed classes"):
        influence(np.eye(3))
    g = digraph(6, [(0, 1), (1, 0), (2, 3), (3, 2), (0, 4), (2, 4), (4, 5)])
    assert [c.tolist() for c in closed_classes(g)] == [[0, 1], [2, 3]]
    with pytest.raises(NotUniqueError, match="2 closed classes"):
        influence(g)
    assert np.isnan(influence(g, on_nonunique="nan")).all()


def test_baygo_step_usually_not_unique():
    # every agent listens to one other: 0<->1 and 2<->3 are two closed classes
    run = Run.from_choices([[1, 0, 3, 2]])
    with pytest.raises(NotUniqueError):
        influence(run.weights(0))
    with pytest.raises(NotUniqueError):
        influence(run.graph(0))


@pytest.mark.parametrize(
    ("w", "match"),
    [
        (np.array([[0.5, 0.4], [0.0, 1.0]]), "row-stochastic"),
        (np.array([[1.5, -0.5], [0.0, 1.0]]), ">= 0"),
        (np.ones((2, 3)) / 3, "square"),
        (np.ones(3), "square"),
    ],
)
def test_bad_matrices(w, match):
    with pytest.raises(ValueError, match=match):
        influence(w)


def test_bad_options():
    with pytest.raises(ValueError, match="on_nonunique must be one of"):
        influence(np.eye(1), on_nonunique="ignore")
    with pytest.raises(ValueError, match="nodelist applies to graphs only"):
        influence(np.eye(1), nodelist=[0])
    with pytest.raises(ValueError, match="null graph"):
        influence(nx.DiGraph())


def test_inputs_not_mutated(rng):
    w = random_stochastic(rng, 6)
    w_copy = w.copy()
    influence(w)
    np.testing.assert_array_equal(w, w_copy)
    ws = sp.csr_array(w)
    influence(ws)
    np.testing.assert_array_equal(ws.toarray(), w_copy)
    g = nx.DiGraph([(0, 1, {"weight": 2.0}), (1, 0, {"weight": 3.0})])
    before = sorted(g.edges(data=True))
    influence(g)
    assert sorted(g.edges(data=True)) == before and not any(g.has_edge(n, n) for n in g)


# -- closed classes vs NetworkX, node order -----------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 9),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=30),
    st.booleans(),
)
def test_closed_classes_are_attracting_components_of_the_reverse(m, pairs, strings):
    labels = [f"n{k}" for k in range(m)] if strings else list(range(m))
    g = nx.DiGraph()
    g.add_nodes_from(reversed(labels))  # list(G) order differs from the sorted order
    g.add_edges_from((labels[a % m], labels[b % m]) for a, b in pairs)
    order = sorted(labels)
    got = {frozenset(order[k] for k in c) for c in closed_classes(g)}
    assert got == {frozenset(c) for c in nx.attracting_components(g.reverse())}
    classes = closed_classes(g)
    assert [c[0] for c in classes] == sorted(c[0] for c in classes)


def test_unsortable_labels_use_list_order():
    g = nx.DiGraph([("x", 1), (1, "x"), ("x", "y")])  # list(G): x, 1, y
    pi = influence(g)
    np.testing.assert_allclose(pi, [0.5, 0.5, 0.0])
    w = nx.to_scipy_sparse_array(g, nodelist=list(g)).T.toarray()
    w[2, 2] = 0.0
    np.testing.assert_allclose(pi, influence(w / w.sum(axis=1, keepdims=True)))
    assert [c.tolist() for c in closed_classes(g)] == [[0, 1]]


def test_class_influence_names_the_members_by_label():
    """Labels of a labelled graph (what the docs' example prints), positions kept."""
    from baygo_graph.analysis import class_influence
    from baygo_graph.analysis.weights import node_order

    g = nx.DiGraph([("ana", "ben"), ("ben", "ana"), ("cy", "dee"), ("dee", "cy"), ("cy", "eve")])
    g.add_edge("ana", "ana")  # ana also keeps her own belief: not an even split
    classes = class_influence(g)
    expected = [set(c) for c in nx.attracting_components(g.reverse())]
    assert sorted(map(set, (c.labels for c in classes)), key=min) == sorted(expected, key=min)
    order = node_order(g)
    for c in classes:  # labels are the positions' labels; shares the within-class Perron
        assert c.labels == tuple(order[k] for k in c.members)
        sub = nx.to_numpy_array(g.subgraph(c.labels), nodelist=c.labels).T
        w = sub / sub.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(c.share @ w, c.share)
    assert classes[0].as_dict() == pytest.approx({"ana": 2 / 3, "ben": 1 / 3})
    members, share = classes[1]  # unpacks as before: (positions, shares)
    assert members.tolist() == [2, 3] and share.tolist() == pytest.approx([0.5, 0.5])
    assert classes[1][0] is classes[1].members and len(classes[1]) == 2
    reordered = class_influence(g, nodelist=["eve", "dee", "cy", "ben", "ana"])
    for a, b in zip(reordered, classes[::-1], strict=True):
        assert a.as_dict() == pytest.approx(b.as_dict())
    w = nx.to_numpy_array(g, nodelist=order).T
    by_matrix = class_influence(w / w.sum(axis=1, keepdims=True))
    assert [c.labels for c in by_matrix] == [tuple(c.members.tolist()) for c in classes]
