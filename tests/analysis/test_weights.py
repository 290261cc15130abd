"""Graph -> W conversion (named node order) and window matrices vs dense references."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import random_choices

from baygo_graph import Run
from baygo_graph.analysis.weights import node_order, weight_matrix, window_matrix


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 7),
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from([0.0, 0.5, 1.0, 3.0])),
        max_size=25,
    ),
    st.sampled_from(["int", "str", "mixed"]),
)
def test_weight_matrix_matches_dense_reference(m, triples, kind):
    labels = {
        "int": list(range(m)),
        "str": [f"v{k}" for k in range(m)],
        "mixed": [k if k % 2 else f"s{k}" for k in range(m)],
    }[kind]
    g = nx.DiGraph()
    g.add_nodes_from(reversed(labels))
    g.add_weighted_edges_from((labels[a % m], labels[b % m], w) for a, b, w in triples)
    try:
        order = sorted(labels)
    except TypeError:
        order = list(g)
    assert node_order(g) == order
    index = {v: k for k, v in enumerate(order)}
    ref = np.zeros((m, m))
    for u, v, w in g.edges(data="weight"):
        ref[index[v], index[u]] += w  # row = receiver
    total = ref.sum(axis=1)
    ref[total == 0, total == 0] = 1.0
    ref /= ref.sum(axis=1, keepdims=True)
    w = weight_matrix(g)
    np.testing.assert_allclose(w.toarray(), ref, atol=1e-12)
    assert not np.any(w.data == 0)
    perm = list(reversed(order))
    np.testing.assert_allclose(
        weight_matrix(g, nodelist=perm).toarray(), ref[::-1, ::-1], atol=1e-12
    )


def test_node_order_checks_nodelist():
    g = nx.DiGraph([(0, 1)])
    assert node_order(g, [1, 0]) == [1, 0]
    with pytest.raises(ValueError, match="nodelist must hold every node"):
        node_order(g, [0, 0])


def test_matrices_pass_through_checked():
    w = np.array([[0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_array_equal(weight_matrix(w).toarray(), w)
    with pytest.raises(ValueError, match="row-stochastic"):
        weight_matrix(np.array([[0.5, 0.4], [0.0, 1.0]]))
    with pytest.raises(TypeError, match="square matrix"):
        weight_matrix(object())


def test_window_matrix_product_order(rng):
    run = Run.from_choices(random_choices(rng, 6, 4), delta=0.3)
    ws = [run.weights(t).toarray() for t in range(6)]
    np.testing.assert_allclose(
        window_matrix(run, 1, 4).toarray(), ws[3] @ ws[2] @ ws[1], atol=1e-15
    )
    np.testing.assert_allclose(
        window_matrix(run, 1, 4, method="union").toarray(), (ws[1] + ws[2] + ws[3]) / 3
    )
    with pytest.raises(ValueError, match="method must be one of"):
        window_matrix(run, 0, 1, method="mean")
    with pytest.raises(ValueError, match=r"need 0 <= start < stop <= 6"):
        window_matrix(run, 2, 2)
