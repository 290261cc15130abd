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


# -- the self-weight rule of series built from edges, against dense numpy ---------------
def dense_rule(m, steps, rows, rule):
    """Brute force: W_t from (step, source, target, weight) rows and the self-weight rule.

    In-weights of each receiver summed and divided by their sum; a receiver that hears
    someone and has no self-loop row puts ``s`` on itself (``"equal"``: 1 / (d + 1) for
    d distinct in-neighbours of positive weight) and scales the others by ``1 - s``; a
    receiver with no positive in-weight keeps w_ii = 1."""
    w = np.zeros((steps, m, m))
    has_loop = np.zeros((steps, m), dtype=bool)
    for t, src, dst, x in rows:
        w[t, dst, src] += x
        if src == dst:
            has_loop[t, dst] = True
    for t in range(steps):
        for i in range(m):
            total = w[t, i].sum()
            if total == 0:
                w[t, i] = 0.0
                w[t, i, i] = 1.0
                continue
            w[t, i] /= total
            others = [j for j in range(m) if j != i and w[t, i, j] > 0]
            if others and not has_loop[t, i] and rule is not None:
                s = 1.0 / (len(others) + 1) if rule == "equal" else float(rule)
                w[t, i] *= 1.0 - s
                w[t, i, i] = s
    return w


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(1, 4),
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 5),
            st.integers(0, 5),
            st.sampled_from([0.5, 1.0, 2.0, 7.0]),
        ),  # fmt: skip
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["equal", 0.0, 0.25, 0.5, 1.0]),
)
def test_self_weight_rule_matches_dense_numpy(m, steps, raw, rule):
    import pandas as pd

    from baygo_graph.analysis import influence_series
    from baygo_graph.inputs import as_series

    rows = [(t % steps, a % m, b % m, x) for t, a, b, x in raw]
    frame = pd.DataFrame(rows, columns=["time", "source", "target", "weight"])
    frame[["source", "target"]] = "n" + frame[["source", "target"]].astype(str)
    s = as_series(frame, self_weight=rule)
    assert s.self_weight == rule
    index = {int(v[1:]): k for k, v in enumerate(s.nodes)}  # nodes that appear, sorted
    t0 = min(t for t, *_ in rows)  # steps count from the first time
    ref_rows = [(t - t0, index[a], index[b], x) for t, a, b, x in rows]
    ref = dense_rule(s.n_agents, s.n_steps, ref_rows, rule)
    np.testing.assert_allclose(s.weight_stack(), ref, atol=1e-12)
    # the influence of each step rests on those weights: per-step left Perron vectors
    got = influence_series(s, window=1, windows="aligned")
    for t in np.flatnonzero(got.defined):
        vals, vecs = np.linalg.eig(ref[t].T)
        k = np.argmin(np.abs(vals - 1.0))
        pi = np.real(vecs[:, k])
        np.testing.assert_allclose(got.values[t], pi / pi.sum(), atol=1e-8)


def test_self_weight_default_is_equal_and_a_loop_given_is_kept():
    import pandas as pd

    from baygo_graph.inputs import as_series
    from baygo_graph.series import SELF_WEIGHT

    frame = pd.DataFrame(
        {
            "source": ["a", "b", "c", "b"],
            "target": ["c", "c", "c", "a"],
            "time": [0, 0, 0, 0],
            "weight": [1.0, 1.0, 2.0, 1.0],
        }  # fmt: skip
    )
    s = as_series(frame)
    assert SELF_WEIGHT == "equal" and s.self_weight == "equal"
    w = s.weights(0).toarray()  # order a, b, c
    np.testing.assert_allclose(w[0], [0.5, 0.5, 0.0])  # a hears b: 1/2 each
    np.testing.assert_allclose(w[1], [0.0, 1.0, 0.0])  # b hears no one
    np.testing.assert_allclose(w[2], [0.25, 0.25, 0.5])  # c's own loop (2 of 4) kept
    assert as_series(frame, self_weight=0).weights(0).toarray()[0].tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="self_weight must be 'equal' or a number in"):
        as_series(frame, self_weight=1.5)
    with pytest.raises(ValueError, match="self_weight=0.5: edge-list options, but the input"):
        as_series(Run.from_choices([[1, 0]]), self_weight=0.5)  # a run keeps its weights


# -- the damped influence is PageRank on a stated graph ------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8),
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from([0.5, 1.0, 4.0])),
        max_size=30,
    ),
    st.sampled_from([0.5, 0.85, 0.99]),
)
def test_damped_influence_is_pagerank_of_the_listening_graph(m, triples, damping):
    """Random digraphs, nodes that listen to no one included: PageRank of
    ``listening_graph`` (edge i -> j of weight w_ij, self-loops included)."""
    from baygo_graph.analysis import damped_influence, listening_graph

    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    g.add_weighted_edges_from((a % m, b % m, w) for a, b, w in triples)
    got = damped_influence(g, damping=damping)
    pr = nx.pagerank(listening_graph(g), alpha=damping, tol=1e-14, max_iter=10_000)
    np.testing.assert_allclose(got, [pr[k] for k in range(m)], atol=1e-9)


def test_damped_influence_of_a_node_that_listens_to_no_one():
    """The issue's 4-node case: node 3 hears no one. Its self-loop (w_33 = 1) keeps
    its mass; PageRank of the bare reversed digraph treats it as dangling instead."""
    from baygo_graph.analysis import damped_influence, listening_graph

    g = nx.DiGraph([(3, 0), (3, 1), (3, 2), (0, 1)])
    got = damped_influence(g)
    pr = nx.pagerank(listening_graph(g), alpha=0.85, tol=1e-14)
    np.testing.assert_allclose(got, [pr[k] for k in range(4)], atol=1e-10)
    assert got[3] == pytest.approx(0.8716, abs=1e-4)
    bare = nx.pagerank(g.reverse(), alpha=0.85)  # no self-loop: 3 is dangling
    assert abs(bare[3] - got[3]) > 0.3


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 7),
    st.floats(0.05, 1.0),
    st.floats(0.05, 1.0),
    st.integers(0, 2**32 - 1),
)
def test_the_product_bound_holds_the_product_and_never_passes_m_squared(m, da, db, seed):
    """hostile10 N2: the bound summed per-row fills past M^2 (11.7 M entries counted for
    a 2,000-node product, at most 4 M), refusing products that fit."""
    import scipy.sparse as sp

    from baygo_graph.analysis.weights import _product_fill

    rng = np.random.default_rng(seed)
    a = sp.csr_array(rng.random((m, m)) < da)
    b = sp.csr_array(rng.random((m, m)) < db)
    asked = [int(_product_fill(a, np.diff(b.indptr).astype(float)).sum())]
    product = sp.csr_array(a.astype(float) @ b.astype(float))
    brute = sum(min(sum(b[[k]].nnz for k in a[[i]].indices), m) for i in range(m))
    assert asked == [brute]
    assert product.nnz <= brute <= m * m
