"""Hub-heavy series: the yes/no B check, the report's reuse of one pass, the union solve."""

from __future__ import annotations

import importlib

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import Run
from baygo_graph.analysis import (
    analysis_report,
    b_connectivity,
    is_b_connected,
    strongly_connected_steps,
)

solver = importlib.import_module("baygo_graph.analysis._window_solver")
wi = importlib.import_module("baygo_graph.analysis.window_influence")


def _choices(rng, t, m, hub_share, none_share=0.0):
    ch = (np.arange(m) + rng.integers(1, m, size=(t, m))) % m  # a random other agent
    ch[rng.random(ch.shape) < hub_share] = 0
    ch[rng.random(ch.shape) < none_share] = -1
    return ch


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    t=st.integers(1, 14),
    m=st.integers(1, 7),
    hub=st.sampled_from([0.0, 0.3, 0.9]),
    none=st.sampled_from([0.0, 0.2, 0.6]),
    kind=st.sampled_from(["aligned", "sliding"]),
    incomplete=st.sampled_from(["drop", "keep"]),
    data=st.data(),
)
def test_is_b_connected_agrees_with_the_full_check(seed, t, m, hub, none, kind, incomplete, data):
    rng = np.random.default_rng(seed)
    run = Run.from_choices(_choices(rng, t, m, hub, none) if m > 1 else np.full((t, 1), -1))
    B = data.draw(st.integers(1, t))
    full = b_connectivity(run, B, windows=kind, incomplete=incomplete).holds
    assert is_b_connected(run, B, windows=kind, incomplete=incomplete) is full


def test_is_b_connected_on_graphs_and_a_fixed_series():
    ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    path = nx.DiGraph([(0, 1), (1, 2)])
    assert is_b_connected([ring] * 3, 1)
    assert not is_b_connected([ring, path, ring], 1)
    assert is_b_connected([ring, path, ring], 2, windows="sliding")
    assert not is_b_connected([path, path, ring], 2, windows="sliding")


def test_is_b_connected_stops_at_the_first_failing_window(monkeypatch):
    windows = importlib.import_module("baygo_graph.analysis.windows")
    calls = []
    check = windows.condense
    monkeypatch.setattr(windows, "condense", lambda *a, **k: calls.append(1) or check(*a, **k))
    ring = nx.DiGraph([(0, 1), (1, 2), (2, 3), (3, 0)])
    both = nx.DiGraph([*ring.edges, *ring.reverse().edges])  # strongly connected too
    # every agent has an in- and an out-edge, but 2 and 3 never reach 0 and 1
    cut = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2), (1, 2)])
    two = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2)])
    series = [ring, both, cut, two] + [ring] * 50
    assert not is_b_connected(series, 1)
    assert len(calls) == 3  # ring, both, then cut fails; `two` and the rest never searched


@pytest.mark.parametrize("bad", [0, 5, 1.5])
def test_is_b_connected_names_a_bad_b(bad):
    ring = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    with pytest.raises((ValueError, TypeError), match="B"):
        is_b_connected([ring] * 4, bad)


@pytest.mark.parametrize("hub", [0.0, 0.3, 0.9])
def test_report_step_fraction_equals_the_per_step_check(hub):
    run = Run.from_choices(_choices(np.random.default_rng(2), 40, 9, hub, 0.1), delta=0.5)
    r = analysis_report(run, window=5).as_dict()
    assert r["step_strongly_connected_fraction"] == float(strongly_connected_steps(run).mean())


def _dense_union(c_win, delta, m):
    u = np.zeros((m, m))
    for c in c_win:
        w = np.eye(m) * delta
        w[np.arange(m), c] += 1 - delta
        u += w / len(c_win)
    return u


def test_hub_union_windows_stay_on_the_power_iteration_and_match_the_dense_solve(monkeypatch):
    rng = np.random.default_rng(0)
    m, w = 400, 10
    ch = _choices(rng, 40, m, 0.3)
    exact = []
    monkeypatch.setattr(
        wi, "exact_influence", lambda *a, **k: exact.append(1) or solver.exact_influence(*a, **k)
    )
    got = wi.window_influence(ch, delta=0.5, window=w, method="union")
    assert not exact  # hub windows converge fast: none goes to the dense solve
    for n in (0, 13, 30):
        c_win = solver.window_targets(ch, np.array([n + w - 1]), w)[0]
        u = _dense_union(c_win, 0.5, m)
        counts, members = solver.batch_closed_classes(c_win[None], 0.5, "union")
        assert counts[0] == 1
        cls = np.flatnonzero(members[0])
        ref = np.zeros(m)
        ref[cls] = solver.class_perron(u[np.ix_(cls, cls)])
        np.testing.assert_allclose(got[n], ref, rtol=0, atol=1e-13)


def test_a_truly_slow_window_still_goes_to_the_exact_solve(monkeypatch):
    # a walk on a long path: contraction close to 1 in every iteration
    m = 300
    up, down = np.arange(1, m + 1), np.arange(-1, m - 1)
    up[-1], down[0] = m - 2, 1  # a walk on a path, reflected at both ends
    ch = np.stack([up, down, up])
    exact = []
    monkeypatch.setattr(
        wi, "exact_influence", lambda *a, **k: exact.append(1) or solver.exact_influence(*a, **k)
    )
    got = wi.window_influence(ch, delta=0.99, window=3, method="union")
    assert exact
    c_win = solver.window_targets(ch, np.array([2]), 3)[0]
    ref = solver.class_perron(_dense_union(c_win, 0.99, m))
    np.testing.assert_allclose(got[0], ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("edges", [30, 400, 5000])  # the sort branch, then the M x M mask
def test_n_strong_components_with_many_repeats_matches_networkx(edges):
    from baygo_graph.analysis.windows import n_strong_components

    rng = np.random.default_rng(edges)
    m = 40
    dst = rng.integers(0, m, size=edges)
    src = np.where(rng.random(edges) < 0.8, 0, rng.integers(0, m, size=edges))  # a hub
    keep = src != dst
    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    g.add_edges_from(zip(src[keep].tolist(), dst[keep].tolist(), strict=True))
    assert n_strong_components(src[keep], dst[keep], m) == (
        nx.number_strongly_connected_components(g)
    )


def test_hub_union_windows_cancel_the_flip_and_match_the_dense_solve(monkeypatch):
    # 90% of choices on agent 0: a real eigenvalue near -0.9 of A, cancelled by laziness
    rng = np.random.default_rng(1)
    m, w = 300, 10
    ch = _choices(rng, 30, m, 0.9)
    ch[:, 0] = rng.integers(1, m, size=30)  # the hub listens to the others
    relaxed = []
    real = solver._relaxed
    monkeypatch.setattr(solver, "_relaxed", lambda *a: relaxed.append(a) or real(*a))
    got = wi.window_influence(ch, delta=0.5, window=w, method="union")
    assert relaxed  # the hub windows' laziness was changed ...
    lazy = np.concatenate([real(*a) for a in relaxed])
    assert ((lazy > 0.3) & (lazy <= solver._LAZY_MAX)).all()  # ... to cancel lambda ~ -0.9
    for n in (0, 11, 20):
        c_win = solver.window_targets(ch, np.array([n + w - 1]), w)[0]
        u = _dense_union(c_win, 0.5, m)
        counts, members = solver.batch_closed_classes(c_win[None], 0.5, "union")
        cls = np.flatnonzero(members[0])
        ref = np.zeros(m)
        ref[cls] = solver.class_perron(u[np.ix_(cls, cls)])
        np.testing.assert_allclose(got[n], ref, rtol=0, atol=1e-13)


@pytest.mark.parametrize("hub", [0.0, 0.9])
def test_distinct_pairs_apply_equals_the_choice_maps_apply(hub):
    rng = np.random.default_rng(3)
    n, w, m = 4, 6, 50
    c = solver.window_targets(_choices(rng, 20, m, hub), np.arange(w - 1, w - 1 + n), w)
    x = rng.random(n * m)
    base = (np.arange(n) * m)[:, None]
    idx = [(c[:, k] + base).reshape(-1) for k in range(w)]
    lazy = np.repeat(rng.uniform(0.1, 0.5, n), m)
    pairs = solver._distinct_targets(c)
    np.testing.assert_allclose(
        solver._union_apply(x, pairs, w, lazy), solver._apply(x, idx, w, 0.5, "union", lazy),
        rtol=1e-14, atol=0,
    )  # fmt: skip
    dense = np.zeros((n * m, n * m))  # the pairs are the distinct entries of the choice maps
    for k in range(w):
        np.add.at(dense, (np.arange(n * m), idx[k]), 1.0)
    row, target, count = pairs
    assert len(row) == np.count_nonzero(dense)
    np.testing.assert_array_equal(dense[row, target], count)
