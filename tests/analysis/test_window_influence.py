"""Fast window influence of choice series vs dense numpy references and the generic path."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import eig_reference, random_choices

from baygo_graph import NotUniqueError, Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import as_series, influence_series
from baygo_graph.analysis.window_influence import (
    class_perron,
    series_choices,
    window_closed_classes,
    window_influence,
)
from baygo_graph.models import LinearRegression


# -- dense references --------------------------------------------------------------
def dense_steps(choices, delta):
    """W_t as dense arrays, straight from the definition (duplicates added)."""
    t, m = choices.shape
    out = np.zeros((t, m, m))
    for k in range(t):
        for i in range(m):
            j = choices[k, i]
            if j < 0:
                out[k, i, i] = 1.0
            else:
                out[k, i, i] += delta
                out[k, i, j] += 1.0 - delta
    return out


def dense_window(ws, end, w, method):
    window = ws[end - w + 1 : end + 1]
    if method == "union":
        return window.mean(axis=0)
    mat = np.eye(ws.shape[1])
    for k in range(w - 1, -1, -1):  # W_end ... W_{end-w+1}
        mat = mat @ window[k]
    return mat


def n_closed(mat):
    g = nx.DiGraph()
    g.add_nodes_from(range(len(mat)))
    g.add_edges_from(zip(*np.nonzero(mat > 0), strict=True))  # i listens to j
    return nx.number_attracting_components(g)


def reference_series(choices, delta, w, method, windows="sliding"):
    ws = dense_steps(choices, delta)
    t, m = choices.shape
    out = np.full((t, m), np.nan)
    for end in range(w - 1, t):
        if windows == "aligned" and (end + 1) % w:
            continue
        mat = dense_window(ws, end, w, method)
        if n_closed(mat) == 1:
            out[end] = eig_reference(mat)
    return out


# -- properties ----------------------------------------------------------------------
@st.composite
def cases(draw):
    m = draw(st.integers(1, 7))
    t = draw(st.integers(1, 9))
    ch = np.array(
        draw(
            st.lists(
                st.lists(st.integers(-1, m - 1), min_size=m, max_size=m), min_size=t, max_size=t
            )
        )
    )
    delta = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]) | st.floats(0.01, 0.99))
    w = draw(st.integers(1, t))
    return ch, delta, w


@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from(["product", "union"]), st.sampled_from(["sliding", "aligned"]))
def test_matches_dense_eig_and_generic_path(case, method, windows):
    ch, delta, w = case
    run = Run.from_choices(ch, delta=delta)
    got = influence_series(run, window=w, method=method, windows=windows).values
    ref = reference_series(ch, delta, w, method, windows)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, atol=1e-10, equal_nan=True)
    # the generic implementation (graphs in: the window matrices are formed)
    generic = influence_series(list(run.graphs()), window=w, method=method, windows=windows).values
    np.testing.assert_allclose(got, generic, atol=1e-10, equal_nan=True)
    defined = ~np.isnan(got).any(axis=1)
    np.testing.assert_allclose(got[defined].sum(axis=1), 1.0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1), st.sampled_from(["product", "union"]))
def test_exact_fallback_agrees_with_power_iteration(m, seed, method):
    rng = np.random.default_rng(seed)
    ch = random_choices(rng, 12, m)
    ch[rng.random(ch.shape) < 0.1] = -1
    delta = float(rng.uniform(0.05, 0.95))
    fast = window_influence(ch, delta=delta, window=4, method=method)
    exact = window_influence(ch, delta=delta, window=4, method=method, max_iter=1)
    np.testing.assert_allclose(fast, exact, atol=1e-11, equal_nan=True)
    ref = reference_series(ch, delta, 4, method)[3:]
    np.testing.assert_allclose(fast, ref, atol=1e-10, equal_nan=True)


# -- special structures ------------------------------------------------------------------
def test_periodic_product_is_uniform_on_the_cycle():
    # delta = 0: each step is a 4-cycle shifted by one; the product of 2 shifts by 2
    shift = (np.arange(4) + 1) % 4
    ch = np.tile(shift, (6, 1))
    got = window_influence(ch, delta=0.0, window=2)
    assert np.isnan(got).all()  # shift by 2: two 2-cycles {0, 2}, {1, 3}
    got = window_influence(ch, delta=0.0, window=3)  # shift by 3: one 4-cycle
    np.testing.assert_allclose(got, 0.25, atol=1e-15)
    # a 3-cycle among 0..2 that 3 listens into: uniform on the cycle, 0 for 3
    ch = np.array([[1, 2, 0, 0]] * 4)
    np.testing.assert_allclose(
        window_influence(ch, delta=0.0, window=2), [[1 / 3, 1 / 3, 1 / 3, 0]] * 3, atol=1e-15
    )


def test_periodic_union_with_delta_zero():
    ch = np.array([[1, 0, 0]] * 5)  # 0 <-> 1 every step: period 2, 2 listens to 0
    for w in (1, 2, 5):
        got = window_influence(ch, delta=0.0, window=w, method="union")
        np.testing.assert_allclose(got, [[0.5, 0.5, 0.0]] * (6 - w), atol=1e-12)
    # alternating 3-cycles of the two orientations: the union is doubly stochastic
    ch = np.array([[1, 2, 0], [2, 0, 1]] * 3)
    got = window_influence(ch, delta=0.0, window=2, method="union")
    np.testing.assert_allclose(got, 1 / 3, atol=1e-12)


def test_several_closed_classes_nan_or_raise():
    ch = np.array([[1, 0, 3, 2, 0], [1, 0, 3, 2, 2]])
    got = window_influence(ch, delta=0.5, window=2)
    assert np.isnan(got).all()
    r = window_closed_classes(ch, delta=0.5, window=2)
    assert r.counts.tolist() == [2] and r.members.tolist() == [[True] * 4 + [False]]
    with pytest.raises(NotUniqueError, match="window ending at step 1 has 2 closed classes"):
        window_influence(ch, delta=0.5, window=2, on_nonunique="raise")
    with pytest.raises(NotUniqueError):
        influence_series(Run.from_choices(ch), window=2, windows="sliding", on_nonunique="raise")


def test_agents_without_choice():
    # agent 2 never listens (-1): it is the only closed class when all reach it
    ch = np.array([[2, 0, -1], [1, 2, -1], [2, 2, -1]])
    got = window_influence(ch, delta=0.5, window=2, method="union")
    np.testing.assert_array_equal(got, [[0, 0, 1], [0, 0, 1]])
    # two agents without choice: two classes
    assert np.isnan(window_influence([[-1, -1, 0]], delta=0.5, window=1)).all()
    # delta = 1: every W is the identity
    assert np.isnan(window_influence([[1, 0]], delta=1.0, window=1)).all()
    assert window_influence([[-1]], delta=1.0, window=1).tolist() == [[1.0]]


def test_slowly_mixing_class_matches_dense(rng):
    # a ring where each agent listens to a neighbour: slow mixing, big delta
    m, t = 60, 12
    ring = np.arange(m)
    ch = np.where(rng.random((t, m)) < 0.5, (ring + 1) % m, (ring - 1) % m)
    for method in ("product", "union"):
        got = window_influence(ch, delta=0.9, window=5, method=method, max_iter=50)
        ref = reference_series(ch, 0.9, 5, method)[4:]
        np.testing.assert_allclose(got, ref, atol=1e-10)


def test_larger_random_series_matches_generic(rng):
    run = Run.from_choices(random_choices(rng, 14, 150), delta=0.5)
    for method in ("product", "union"):
        got = influence_series(run, window=5, windows="sliding", method=method).values
        generic = influence_series(
            list(run.graphs()), window=5, windows="sliding", method=method
        ).values
        assert not np.isnan(got[4:]).all()
        np.testing.assert_allclose(got, generic, atol=1e-10, equal_nan=True)


def test_simulated_run_matches_dense():
    run = simulate(
        "baygo",
        agents=8,
        steps=25,
        model=LinearRegression(grid=9),
        rng=3,
        data=synthetic_bodyfat(rng=0),
    )
    for method in ("product", "union"):
        got = influence_series(run, window=4, windows="sliding", method=method).values
        ref = reference_series(run.choices, run.delta, 4, method)
        np.testing.assert_allclose(got, ref, atol=1e-10, equal_nan=True)


# -- helpers and checks ----------------------------------------------------------------------
def test_series_choices_forms(rng):
    ch = random_choices(rng, 5, 4)
    ch[1, 2] = -1
    run = Run.from_choices(ch, delta=0.25)
    for source in (run, as_series(run)):
        got, delta = series_choices(source)
        np.testing.assert_array_equal(got, ch)
        assert delta == 0.25
    for source in (list(run.graphs()), as_series(list(run.graphs()))):  # inferred from W
        got, delta = series_choices(source)
        np.testing.assert_array_equal(got, ch)
        assert delta == pytest.approx(0.25, abs=1e-12)
    data = synthetic_bodyfat(rng=0)
    assert (
        series_choices(
            simulate("posm", agents=3, steps=2, model=LinearRegression(grid=9), rng=0, data=data)
        )
        is None
    )


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_class_perron_matches_eig(rng, k):
    a = rng.random((k, k)) + 0.01
    a /= a.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(class_perron(a), eig_reference(a), atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"choices": [[0, 2]]}, ValueError, "choices must be agent ids"),
        ({"choices": [0, 1]}, ValueError, "2-D int array"),
        ({"delta": 1.5}, ValueError, "delta must be in"),
        ({"window": 3}, ValueError, "window must be >= 1 and <= 2"),
        ({"window": 1.0}, TypeError, "window must be an int"),
        ({"method": "mean"}, ValueError, "method must be one of"),
        ({"ends": [0, 5]}, ValueError, "ends must be steps"),
        ({"on_nonunique": "skip"}, ValueError, "on_nonunique must be one of"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    args = {"choices": [[1, 0], [1, 0]], "delta": 0.5, "window": 1} | kwargs
    with pytest.raises(error, match=match):
        window_influence(**args)


@pytest.mark.parametrize("suffix", [".json", ".graphml"])
def test_baygo_graphs_read_back_from_a_file_take_the_fast_path(tmp_path, suffix):
    from baygo_graph import simulate, synthetic_bodyfat
    from baygo_graph.analysis import influence_series
    from baygo_graph.analysis.window_influence import series_choices
    from baygo_graph.export import read_series, write_series

    run = simulate("baygo", agents=6, steps=9, model=LinearRegression(grid=11),
                   rng=4, data=synthetic_bodyfat(),
                   delta=0.35)  # fmt: skip
    path = write_series(run, tmp_path / f"s{suffix}")
    graphs = read_series(path)
    ch, delta = series_choices(graphs)
    np.testing.assert_array_equal(ch, run.choices)
    assert delta == pytest.approx(0.35, abs=1e-12)
    want = influence_series(run, window=3, method="product", windows="sliding").values
    got = influence_series(graphs, window=3, method="product", windows="sliding").values
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)


def test_weighted_series_without_a_choice_form_are_not_forced_into_one():
    from baygo_graph.analysis.window_influence import series_choices

    two = nx.DiGraph()
    two.add_weighted_edges_from([(1, 0, 0.3), (2, 0, 0.3), (0, 0, 0.4), (1, 1, 1.0), (2, 2, 1.0)])
    uneven = nx.DiGraph()
    uneven.add_weighted_edges_from([(1, 0, 0.5), (0, 0, 0.5), (0, 1, 0.2), (1, 1, 0.8)])
    assert series_choices([two]) is None and series_choices([uneven]) is None


@pytest.mark.parametrize("kind", ["random", "cycle", "hub"])
def test_class_perron_sparse_arnoldi_path_equals_the_dense_solve(rng, kind):
    import scipy.sparse as sp

    k = 400  # above the Arnoldi threshold, sparse
    if kind == "cycle":  # periodic: the lazy chain keeps Arnoldi on the Perron root
        rows, cols = np.arange(k), (np.arange(k) + 1) % k
    else:
        rows = np.repeat(np.arange(k), 6)
        cols = np.concatenate([np.r_[i, rng.integers(0, k, 5)] for i in range(k)])
        if kind == "hub":
            cols[rng.random(len(cols)) < 0.3] = 0
    s = sp.csr_array((rng.random(len(rows)) + 0.1, (rows, cols)), shape=(k, k))
    s = sp.csr_array(s.multiply(1.0 / s.sum(axis=1)[:, None]))
    moduli = np.sort(np.abs(np.linalg.eigvals(s.toarray())))
    got = class_perron(s, gap=1.0 - moduli[-2])  # Arnoldi where the gap allows it
    dense = np.eye(k) - s.toarray().T
    dense[-1] = 1.0
    want = np.linalg.solve(dense, np.r_[np.zeros(k - 1), 1.0])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)


def test_a_slowly_converging_sparse_class_falls_back_to_the_dense_solve():
    """A broken cycle (eigenvalues crowding 1): Arnoldi gives up after a bounded effort."""
    m, t = 300, 6
    ch = np.tile((np.arange(m) + 1) % m, (t, 1))
    ch[::2, 0] = -1
    run = Run.from_choices(ch, delta=0.01)
    got = influence_series(run, window=3, method="union", windows="sliding").values
    want = reference_series(ch, 0.01, 3, "union")
    np.testing.assert_allclose(got, want, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("kind", ["ring", "random"])
def test_class_perron_sparse_solve_matches_eig(rng, kind):
    """Above 1000 states the solve keeps the matrix sparse (pi[-1] fixed, no row of
    ones): a ring, whose LU a row of ones filled densely (a 40,000-node ring crashed
    SuperLU), and a random sparse chain, both equal to the dense solve."""
    import scipy.sparse as sp

    k = 1200
    ring = (np.arange(k) + 1) % k
    rows, cols = np.r_[np.arange(k), np.arange(k)], np.r_[np.arange(k), ring]
    if kind == "random":
        extra = rng.integers(0, k, size=(2, 3 * k))
        rows, cols = np.r_[rows, extra[0]], np.r_[cols, extra[1]]
    a = sp.csr_array((rng.random(len(rows)) + 0.1, (rows, cols)), shape=(k, k))
    a = sp.csr_array(a / a.sum(axis=1)[:, None])
    pi = class_perron(a)
    dense = np.eye(k) - a.toarray().T  # reference: the dense solve with a row of ones
    dense[-1] = 1.0
    np.testing.assert_allclose(pi, np.linalg.solve(dense, np.eye(k)[-1]), atol=1e-12)
    assert np.abs(pi @ a - pi).max() < 1e-14


def test_class_perron_ring_in_bounded_memory():
    """A 20,000-state ring solved under a 2 GB address-space limit (the row of ones
    took ~3 GB of LU fill-in; the sparse solve takes a few MB)."""
    import subprocess
    import sys

    code = (
        "import resource, numpy as np, scipy.sparse as sp\n"
        "from baygo_graph.analysis._window_solver import class_perron\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))\n"
        "k = 20000\n"
        "i = np.arange(k)\n"
        "ij = (np.r_[i, i], np.r_[i, (i + 1) % k])\n"
        "a = sp.csr_array((np.full(2 * k, 0.5), ij), shape=(k, k))\n"
        "print(abs(class_perron(a) - 1 / k).max())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert float(done.stdout) < 1e-15
