"""Union influence of general weighted series, slid window by window, vs dense numpy."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import NotUniqueError
from baygo_graph.analysis import influence_series
from baygo_graph.analysis._window_solver import chain_perron
from baygo_graph.analysis.perron import perron_vector
from baygo_graph.analysis.window_influence import union_window_influence
from baygo_graph.analysis.windows import EdgeWindow
from baygo_graph.series import series_from_edges


def random_series(rng, t, m, per_step, *, hub_share=0.0, weighted=True):
    """Several in-edges per node and step; a share of the edges from or to node 0."""
    n = t * per_step
    step = np.repeat(np.arange(t), per_step)
    src = rng.integers(0, m, n)
    dst = (src + rng.integers(1, m, n)) % m
    hub = rng.random(n) < hub_share
    half = hub & (rng.random(n) < 0.5)
    src[half], dst[half] = 0, rng.integers(1, m, int(half.sum()))
    into = hub & ~half
    dst[into], src[into] = 0, rng.integers(1, m, int(into.sum()))
    w = rng.random(n) + 0.1 if weighted else np.ones(n)
    return series_from_edges(step, dst, src, w, n_steps=t, nodes=range(m))


def dense_reference(s, w, ends):
    """Mean W of each window from the dense stack; closed classes by NetworkX; the
    stationary vector on the one class by a dense least-squares solve."""
    stack = s.weight_stack()
    m = s.n_agents
    out = np.full((len(ends), m), np.nan)
    counts = np.zeros(len(ends), dtype=int)
    for n, e in enumerate(ends):
        u = stack[e - w + 1 : e + 1].mean(axis=0)
        g = nx.DiGraph()
        g.add_nodes_from(range(m))
        g.add_edges_from(zip(*np.nonzero(u > 0), strict=True))  # i listens to j
        classes = list(nx.attracting_components(g))
        counts[n] = len(classes)
        if len(classes) != 1:
            continue
        c = np.array(sorted(classes[0]))
        sub = u[np.ix_(c, c)]
        a = np.vstack([(np.eye(len(c)) - sub).T, np.ones(len(c))])
        rhs = np.zeros(len(c) + 1)
        rhs[-1] = 1.0
        out[n] = 0.0
        out[n, c] = np.linalg.lstsq(a, rhs, rcond=None)[0]
    return out, counts


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    t=st.integers(2, 14),
    m=st.integers(2, 9),
    per_step=st.integers(1, 6),
    hub=st.sampled_from([0.0, 0.5, 0.9]),
    data=st.data(),
)
def test_every_sliding_window_equals_the_dense_reference(seed, t, m, per_step, hub, data):
    s = random_series(np.random.default_rng(seed), t, m, per_step, hub_share=hub)
    w = data.draw(st.integers(1, t))
    ends = np.arange(w - 1, t)
    vals, counts = union_window_influence(s, window=w, ends=ends)
    ref, ref_counts = dense_reference(s, w, ends)
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(np.isnan(vals), np.isnan(ref))
    np.testing.assert_allclose(vals, ref, atol=1e-10, rtol=0)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_windows_with_gaps_and_aligned_windows_equal_the_reference(seed, data):
    rng = np.random.default_rng(seed)
    s = random_series(rng, 30, 7, 3, hub_share=0.4)
    w = data.draw(st.integers(1, 12))
    ends = np.unique(data.draw(st.lists(st.integers(w - 1, 29), min_size=1, max_size=12)))
    vals, _ = union_window_influence(s, window=w, ends=ends)
    ref, _ = dense_reference(s, w, ends)
    np.testing.assert_allclose(vals, ref, atol=1e-10, rtol=0)


@pytest.mark.parametrize("hub", [0.0, 0.3, 0.9])
def test_long_hub_and_random_series_equal_the_cold_solve(hub):
    """200 sliding windows (warm starts all along) against influence() of each mean W."""
    from baygo_graph.analysis import influence, window_matrix

    s = random_series(np.random.default_rng(7), 230, 60, 12, hub_share=hub)
    w = 30
    rows = influence_series(s, window=w, method="union", windows="sliding").values
    for e in range(w - 1, s.n_steps):
        cold = influence(window_matrix(s, e - w + 1, e + 1, method="union"), on_nonunique="nan")
        np.testing.assert_array_equal(np.isnan(rows[e]), np.isnan(cold))
        np.testing.assert_allclose(rows[e], cold, atol=1e-10, rtol=0)
    assert np.isfinite(rows[w - 1 :]).all(axis=1).mean() > 0.4  # 0.48 at 90% hub


def test_influence_series_union_matches_the_reference_and_strides():
    s = random_series(np.random.default_rng(3), 25, 6, 4, hub_share=0.3)
    w = 5
    full = influence_series(s, window=w, method="union", windows="sliding").values
    ref, _ = dense_reference(s, w, np.arange(w - 1, 25))
    np.testing.assert_allclose(full[w - 1 :], ref, atol=1e-10, rtol=0)
    part = influence_series(s, window=w, method="union", windows="sliding", stride=3)
    kept = np.arange(w - 1, 25)[::-1][::3][::-1]  # the last window and every 3rd before it
    assert part.ends.tolist() == kept.tolist() and kept[-1] == 24
    part = part.values
    np.testing.assert_allclose(part[kept], full[kept], atol=1e-10, rtol=0)  # other warm starts
    assert np.isnan(np.delete(part, kept, axis=0)).all()
    aligned = influence_series(s, window=w, method="union", windows="aligned", stride=2).values
    np.testing.assert_allclose(aligned[[4, 14, 24]], full[[4, 14, 24]], atol=1e-10, rtol=0)
    assert np.isnan(aligned[[9, 19]]).all()  # aligned ends 4..24: 24, 14, 4 from the last
    with pytest.raises(ValueError, match="stride"):
        influence_series(s, window=w, method="union", windows="sliding", stride=0)


def test_several_closed_classes_are_nan_or_raise():
    a = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2)])  # two pairs: two closed classes
    vals, counts = union_window_influence([a, a, a], window=2, ends=[1, 2])
    assert counts.tolist() == [2, 2] and np.isnan(vals).all()
    with pytest.raises(NotUniqueError, match="ending at step 1 has 2 closed classes"):
        union_window_influence([a, a, a], window=2, ends=[1, 2], on_nonunique="raise")
    with pytest.raises(ValueError, match="increasing"):
        union_window_influence([a, a, a], window=2, ends=[2, 1])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_weighted_edge_window_holds_the_summed_weights(seed, data):
    s = random_series(np.random.default_rng(seed), 20, 6, 4, hub_share=0.5)
    win = EdgeWindow(s, weighted=True)
    stack = s.weight_stack()
    start = stop = 0
    for _ in range(6):
        start = data.draw(st.integers(start, 19))
        stop = data.draw(st.integers(max(stop, start + 1), 20))
        got = win.move(start, stop).matrix().toarray()
        want = stack[start:stop].sum(axis=0)
        np.fill_diagonal(want, 0.0)
        np.testing.assert_allclose(got, want, atol=1e-12)
        ref = nx.DiGraph(list(zip(*np.nonzero(want), strict=True)))
        ref.add_nodes_from(range(6))
        assert win.strongly_connected() == nx.is_strongly_connected(ref)


def test_chain_iteration_handles_periodic_and_hub_chains():
    two_cycle = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    np.testing.assert_allclose(chain_perron(two_cycle)[0], [0.5, 0.5], atol=1e-13)
    m = 40  # a star: everyone hears the hub, the hub hears everyone (eigenvalue -1)
    star = np.zeros((m, m))
    star[0, 1:] = 1.0 / (m - 1)
    star[1:, 0] = 1.0
    pi, _ = chain_perron(sp.csr_array(star))
    np.testing.assert_allclose(pi, np.r_[0.5, np.full(m - 1, 0.5 / (m - 1))], atol=1e-12)


def test_perron_vector_of_a_large_class_iterates_to_the_dense_solution():
    rng = np.random.default_rng(0)
    k = 1200  # above the dense solve's 1000 states
    rows = np.repeat(np.arange(k), 4)
    cols = np.concatenate([(np.arange(k) + 1) % k, rng.integers(0, k, 3 * k)])
    rows = np.r_[np.arange(k), np.repeat(np.arange(k), 3)]
    w = sp.csr_array((rng.random(4 * k) + 0.1, (rows, cols)), shape=(k, k))
    w.sum_duplicates()
    w = sp.csr_array(sp.diags_array(1.0 / w.sum(axis=1)) @ w)  # a ring plus random edges
    pi = perron_vector(w)
    dense = w.toarray()
    a = (np.eye(k) - dense).T
    a[-1] = 1.0  # one equation replaced by sum(pi) = 1
    ref = np.linalg.solve(a, np.r_[np.zeros(k - 1), 1.0])
    np.testing.assert_allclose(pi, ref, atol=1e-12, rtol=0)


def test_influence_rows_are_checked_against_the_budget(monkeypatch):
    from baygo_graph.exceptions import BudgetError

    s = random_series(np.random.default_rng(1), 20, 6, 3)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "2KiB")
    with pytest.raises(BudgetError, match="influence of 20 steps x 6 nodes"):
        influence_series(s, window=4, method="union", windows="sliding")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1MiB")
    last = influence_series(s, window=20, method="union", windows="aligned").values[-1]
    assert np.isfinite(last).all()
