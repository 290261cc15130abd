"""Emergent-topology statistics vs loops over the step graphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import Run, read_series, simulate, synthetic_bodyfat, write_series
from baygo_graph.analysis import (
    chosen_counts,
    degree_distribution,
    degrees,
    listen_counts,
    listener_fraction,
)
from baygo_graph.models import LinearRegression


def ref_listen_counts(graphs, nodes):
    idx = {v: k for k, v in enumerate(nodes)}
    out = np.zeros((len(nodes), len(nodes)), dtype=int)
    for g in graphs:
        for u, v, w in g.edges(data="weight", default=1.0):
            if u != v and w > 0:
                out[idx[v], idx[u]] += 1  # row = listener v, column = the one it hears
    return out


@st.composite
def choice_arrays(draw):
    m = draw(st.integers(2, 7))
    t = draw(st.integers(1, 10))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    ch = rng.integers(0, m - 1, size=(t, m))
    ch = ch + (ch >= np.arange(m))
    ch[rng.random((t, m)) < 0.1] = -1
    return ch


@settings(max_examples=40, deadline=None)
@given(choice_arrays())
def test_counts_match_graph_loops(ch):
    run = Run.from_choices(ch)
    t, m = ch.shape
    graphs = list(run.graphs())
    ref = ref_listen_counts(graphs, range(m))
    np.testing.assert_array_equal(listen_counts(run), ref)
    np.testing.assert_array_equal(listen_counts(graphs), ref)
    np.testing.assert_array_equal(chosen_counts(run), ref.sum(axis=0))
    np.testing.assert_array_equal(chosen_counts(run), run.chosen_counts())
    # vectorised per-step statistics vs the graphs
    out_deg = np.array([[g.out_degree(k) - g.has_edge(k, k) for k in range(m)] for g in graphs])
    in_deg = np.array([[g.in_degree(k) - g.has_edge(k, k) for k in range(m)] for g in graphs])
    np.testing.assert_array_equal(degrees(run), out_deg)
    np.testing.assert_array_equal(degrees(graphs, direction="in"), in_deg)
    np.testing.assert_array_equal(in_deg, (ch >= 0).astype(int))
    np.testing.assert_array_equal(
        degree_distribution(run, direction="out"), np.bincount(out_deg.ravel(), minlength=m)
    )
    assert degree_distribution(run).sum() == t * m
    frac = listener_fraction(run)
    np.testing.assert_allclose(frac, (ch == 0).sum(axis=1) / (m - 1))


def test_listen_counts_window_and_row_convention():
    run = Run.from_choices([[1, 0, 0], [1, 2, 1], [2, 0, 1]])
    c = listen_counts(run, start=1)
    # step 1: 0 hears 1, 1 hears 2, 2 hears 1; step 2: 0 hears 2, 1 hears 0, 2 hears 1
    assert c.tolist() == [[0, 1, 1], [1, 0, 1], [0, 2, 0]]
    assert chosen_counts(run, start=1, stop=2).tolist() == [0, 2, 1]
    with pytest.raises(ValueError, match="need 0 <= start < stop <= 3"):
        listen_counts(run, start=2, stop=2)


def test_fixed_runs():
    data = synthetic_bodyfat(rng=0)
    run = simulate("posm", agents=4, steps=5, model=LinearRegression(grid=9), rng=0, data=data)
    c = listen_counts(run)
    assert c.tolist() == [[0, 5, 5, 5], [5, 0, 0, 0], [5, 0, 0, 0], [5, 0, 0, 0]]
    np.testing.assert_array_equal(chosen_counts(run), run.chosen_counts())
    np.testing.assert_array_equal(listener_fraction(run), np.ones(5))
    assert degrees(run).tolist() == [[3, 1, 1, 1]] * 5
    assert degree_distribution(run, direction="out").tolist() == [0, 15, 0, 5]
    negm = simulate("negm", agents=4, steps=2, model=LinearRegression(grid=9), rng=0, data=data)
    np.testing.assert_allclose(listener_fraction(negm), [1 / 3, 1 / 3])
    np.testing.assert_allclose(listener_fraction(negm, agent=1), [1.0, 1.0])


def test_series_file_informative_attribute(tmp_path):
    run = Run.from_choices([[1, 0, 0], [2, 0, 0]], informative=0)
    for suffix in ("json", "graphml"):
        path = write_series(run, tmp_path / f"s.{suffix}")
        graphs = read_series(path)
        np.testing.assert_allclose(listener_fraction(graphs), [1.0, 1.0])
        np.testing.assert_array_equal(listen_counts(graphs), listen_counts(run))


def test_string_labels_and_missing_informative():
    g = nx.DiGraph([("hub", "x"), ("hub", "y"), ("x", "hub")])
    assert listen_counts([g]).tolist() == [[0, 1, 0], [1, 0, 0], [1, 0, 0]]  # hub, x, y
    with pytest.raises(ValueError, match="agent must be given"):
        listener_fraction([g])
    assert listener_fraction([g], agent=0).tolist() == [1.0]
    with pytest.raises(ValueError, match="direction must be one of"):
        degrees([g], direction="both")


def test_inputs_not_mutated():
    g = nx.DiGraph([(0, 1, {"weight": 0.5}), (1, 0, {"weight": 0.5})])
    g.add_node(2)
    before = (sorted(g.nodes(data=True)), sorted(g.edges(data=True)))
    listen_counts([g, g])
    degrees([g])
    assert (sorted(g.nodes(data=True)), sorted(g.edges(data=True))) == before
