"""Influence over windows of a series vs direct computation; closed forms; window vocabulary."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared import digraph, eig_reference, random_choices

from baygo_graph import NotUniqueError, Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import (
    as_series,
    centrality,
    closed_classes,
    influence,
    influence_rank,
    influence_series,
    reference_influence,
    window_matrix,
)
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import complete, star


# -- closed forms ----------------------------------------------------------------
@pytest.mark.parametrize("m", [2, 3, 5, 12, 40])
@pytest.mark.parametrize("delta", [0.0, 0.2, 0.5, 0.9])
def test_star_and_complete_closed_forms_delta_rule(m, delta):
    centre = m - 1
    pi = influence(star(m, center=centre, weights="delta").matrix(m, delta=delta))
    expect = np.full(m, 1 / (2 * (m - 1)))
    expect[centre] = 0.5
    np.testing.assert_allclose(pi, expect, atol=1e-14)
    full = complete(m, weights="delta").matrix(m, delta=delta)
    np.testing.assert_allclose(influence(full), 1 / m, atol=1e-14)
    ref = reference_influence(m, informative=centre, delta=delta, weights="delta")
    assert ref["posm"] == pytest.approx(0.5, abs=1e-14)
    assert ref["negm"] == pytest.approx(1 / (2 * (m - 1)), abs=1e-14)
    assert ref["complete"] == pytest.approx(1 / m, abs=1e-14)


@pytest.mark.parametrize("m", [3, 7, 12])
def test_closed_forms_uniform_rule(m):
    ref = reference_influence(m, weights="uniform")
    assert ref["posm"] == pytest.approx(m / (3 * m - 2), abs=1e-14)
    assert ref["negm"] == pytest.approx(2 / (3 * m - 2), abs=1e-14)
    assert ref["complete"] == pytest.approx(1 / m, abs=1e-14)


def test_reference_influence_paper_values():
    ref = reference_influence(12)  # the paper's equal weights: M / (3M - 2), 2 / (3M - 2)
    assert ref == pytest.approx({"posm": 12 / 34, "negm": 2 / 34, "complete": 1 / 12}, abs=1e-14)
    ref = reference_influence(12, weights="delta")
    assert ref == pytest.approx({"posm": 0.5, "negm": 1 / 22, "complete": 1 / 12}, abs=1e-14)


# -- series ----------------------------------------------------------------------
@pytest.mark.parametrize("method", ["product", "union"])
def test_influence_series_matches_direct_computation(rng, method):
    t, m, w = 20, 5, 4
    run = Run.from_choices(random_choices(rng, t, m), delta=0.5)
    ws = [run.weights(k).toarray() for k in range(t)]
    got = influence_series(run, window=w, windows="sliding", method=method).values
    assert got.shape == (t, m)
    assert np.isnan(got[: w - 1]).all()
    for end in range(w - 1, t):
        window = ws[end - w + 1 : end + 1]
        if method == "product":
            mat = np.linalg.multi_dot(window[::-1])  # W_end ... W_{end-w+1}
        else:
            mat = sum(window) / w
        if len(closed_classes(mat)) == 1:
            np.testing.assert_allclose(got[end], eig_reference(mat), atol=1e-10)
        else:
            assert np.isnan(got[end]).all()
    # graphs in, same numbers out; sparse path (no dense stack) too
    np.testing.assert_allclose(
        influence_series(list(run.graphs()), window=w, windows="sliding", method=method).values,
        got,
        atol=1e-12,
    )


def test_sparse_and_dense_paths_agree(rng, monkeypatch):
    run = Run.from_choices(random_choices(rng, 15, 6))
    graphs = list(run.graphs())  # graph input: the generic path, not the choice kernels
    dense = influence_series(graphs, window=3, windows="sliding").values
    np.testing.assert_allclose(
        influence_series(run, window=3, windows="sliding").values, dense, atol=1e-12
    )
    monkeypatch.setattr(centrality, "_STACK_MAX", 0)
    np.testing.assert_allclose(
        influence_series(graphs, window=3, windows="sliding").values, dense, atol=1e-12
    )


def test_product_influence_is_the_long_run_share(rng):
    """Repeating a window forever: beliefs converge to pi^T x0 (orientation check)."""
    run = Run.from_choices(random_choices(rng, 8, 5), delta=0.5)
    p = window_matrix(run, 0, 8).toarray()
    if len(closed_classes(p)) != 1:
        pytest.skip("window without a unique influence for this seed")
    pi = influence_series(run, window=8, windows="sliding").values[7]
    ws = [run.weights(k).toarray() for k in range(8)]
    x0 = rng.normal(size=5)
    x = x0.copy()
    for _ in range(400):
        for w in ws:
            x = w @ x  # x_t = W_t x_{t-1}
    np.testing.assert_allclose(x, pi @ x0, atol=1e-9)


def test_aligned_layout(rng):
    run = Run.from_choices(random_choices(rng, 11, 4))
    sliding = influence_series(run, window=3, windows="sliding").values
    aligned = influence_series(run, window=3, windows="aligned").values
    rows = [2, 5, 8]  # ends of [0,3), [3,6), [6,9); [9,11) incomplete
    np.testing.assert_array_equal(aligned[rows], sliding[rows])
    others = np.setdiff1d(np.arange(11), rows)
    assert np.isnan(aligned[others]).all()


def test_fixed_strategies_every_row_is_influence_of_w():
    data = synthetic_bodyfat(rng=0)
    for name in ("posm", "negm", "complete"):
        run = simulate(name, agents=5, steps=7, model=LinearRegression(grid=9), rng=0, data=data)
        pi = influence(run.weights(0))
        for method in ("product", "union"):
            got = influence_series(run, window=3, windows="sliding", method=method).values
            np.testing.assert_allclose(got[2:], np.tile(pi, (5, 1)), atol=1e-12)
            assert np.isnan(got[:2]).all()
    nocol = simulate("nocol", agents=3, steps=4, model=LinearRegression(grid=9), rng=0, data=data)
    assert np.isnan(influence_series(nocol, window=2, windows="sliding").values).all()
    with pytest.raises(NotUniqueError):
        influence_series(nocol, window=2, windows="sliding", on_nonunique="raise")


def test_per_step_influence_where_unique():
    # step 0: 0<->1 is the one closed class, 2 listens to 1 -> unique (1/2, 1/2, 0)
    # step 1: 0 -> 2, 1 -> 2, 2 -> 0: closed class {0, 2}
    run = Run.from_choices([[1, 0, 1], [2, 2, 0]])
    per_step = influence_series(run, window=1, windows="sliding").values
    np.testing.assert_allclose(per_step[0], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(per_step[1], [0.5, 0.0, 0.5])
    run2 = Run.from_choices([[1, 0, 3, 2]])
    assert np.isnan(influence_series(run2, window=1, windows="sliding").values).all()


def test_influence_rank():
    x = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [np.nan] * 3, [1 / 3] * 3])
    assert influence_rank(x, 0).tolist()[:2] == [1.0, 3.0]
    r = influence_rank(x, 2)
    assert r[0] == 3.0 and r[1] == 2.0 and np.isnan(r[2]) and r[3] == 1.0
    with pytest.raises(ValueError, match="agent must be an int"):
        influence_rank(x, 3)


def test_series_input_and_options_checked():
    with pytest.raises(ValueError, match=r"window must be an integer in \[1, 1\], got 2"):
        influence_series([digraph(2, [(0, 1), (1, 0)])], window=2, windows="sliding")
    with pytest.raises(ValueError, match="method must be one of"):
        influence_series([digraph(2, [(0, 1), (1, 0)])], window=1, windows="sliding", method="mean")
    data = synthetic_bodyfat(rng=0)
    with pytest.raises(ValueError, match="centralised"):
        influence_series(simulate("cen", agents=2, steps=2, model=LinearRegression(grid=9),
                         rng=0, data=data),
                         windows="sliding")  # fmt: skip
    s = as_series([digraph(2, [(0, 1), (1, 0)])])
    assert influence_series(s, window=1, windows="sliding").values.tolist() == [[0.5, 0.5]]


# -- window vocabulary -------------------------------------------------------------


def test_windows_default_warns_and_stays_sliding(rng):
    run = Run.from_choices(random_choices(rng, 6, 3))
    with pytest.warns(FutureWarning, match="windows="):
        got = influence_series(run, window=2).values
    np.testing.assert_array_equal(got, influence_series(run, window=2, windows="sliding").values)


@pytest.mark.parametrize("method", ["product", "union"])
def test_incomplete_keep_fills_the_cut_windows(rng, method):
    t, m, w = 11, 4, 3
    run = Run.from_choices(random_choices(rng, t, m), delta=0.4)
    for windows in ("aligned", "sliding"):
        drop = influence_series(run, window=w, windows=windows, method=method).values
        keep = influence_series(
            run, window=w, windows=windows, incomplete="keep", method=method
        ).values
        cut = [(0, 1), (0, 2)] if windows == "sliding" else [(9, 11)]
        rows = [stop - 1 for _, stop in cut]
        other = np.setdiff1d(np.arange(t), rows)
        np.testing.assert_array_equal(keep[other], drop[other])
        assert np.isnan(drop[rows]).all()
        for start, stop in cut:
            mat = window_matrix(run, start, stop, method=method).toarray()
            mat /= mat.sum(axis=1, keepdims=True)
            ref = influence(mat, on_nonunique="nan")
            np.testing.assert_allclose(keep[stop - 1], ref, atol=1e-12)
    with pytest.raises(ValueError, match="incomplete must be one of"):
        influence_series(run, window=2, windows="aligned", incomplete="pad")


def test_incomplete_keep_on_a_fixed_graph():
    run = simulate(
        "posm",
        agents=4,
        steps=7,
        model=LinearRegression(grid=9),
        rng=0,
        data=synthetic_bodyfat(rng=0),
    )
    pi = influence(run.series.weights(0))
    keep = influence_series(run, window=3, windows="aligned", incomplete="keep").values
    np.testing.assert_allclose(keep[[2, 5, 6]], np.tile(pi, (3, 1)), atol=1e-12)
    assert np.isnan(keep[[0, 1, 3, 4]]).all()
    sliding = influence_series(run, window=3, windows="sliding", incomplete="keep").values
    np.testing.assert_allclose(sliding, np.tile(pi, (7, 1)), atol=1e-12)


@pytest.mark.parametrize("method", ["product", "union"])
def test_damped_alternative_equals_pagerank_of_the_window_matrix(method):
    from baygo_graph.analysis import damped_influence, nonunique_windows, window_matrix
    from baygo_graph.series import ChoiceSeries

    rng = np.random.default_rng(3)
    ch = rng.integers(-1, 6, size=(12, 6))
    ch = np.where((ch == np.arange(6)) | (rng.random((12, 6)) < 0.4), -1, ch)
    s = ChoiceSeries.from_choices(ch, delta=0.4)
    r = nonunique_windows(s, window=3, method=method, max_windows=100)
    assert len(r.ends) > 0 and np.all(r.n_classes > 1)
    for e, got in zip(r.damped_ends, r.damped, strict=True):
        mat = window_matrix(s, int(e) - 2, int(e) + 1, method=method).toarray()
        mat /= mat.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(got, damped_influence(mat), atol=1e-10)
        g = nx.DiGraph()  # PageRank walks listener -> source with weight w_ij
        g.add_nodes_from(range(6))
        g.add_weighted_edges_from((i, j, mat[i, j]) for i in range(6) for j in range(6)
                                  if mat[i, j] > 0)  # fmt: skip
        pr = nx.pagerank(g, alpha=0.85, tol=1e-13, max_iter=1000)
        np.testing.assert_allclose(got, [pr[k] for k in range(6)], atol=1e-9)


@given(
    levels=st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.35]), min_size=1, max_size=12),
    noise=st.lists(st.floats(-4e-16, 4e-16), min_size=12, max_size=12),
)
def test_influence_order_ignores_rounding_noise_among_ties(levels, noise):
    """Exact ties perturbed by rounding noise keep node order; distinct values are sorted
    (a brute-force reference: sort by (-value, node) on the exact values)."""
    from baygo_graph.analysis import influence_order

    exact = np.array(levels)
    noisy = exact + np.array(noise[: len(levels)])
    want = sorted(range(len(levels)), key=lambda i: (-levels[i], i))
    assert influence_order(noisy).tolist() == want
    assert influence_order(exact).tolist() == want
