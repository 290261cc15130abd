"""Window vocabulary, window unions and strong components vs NetworkX references."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import ref_windows

from baygo_graph import Run
from baygo_graph.analysis.windows import (
    INCOMPLETE,
    WINDOWS,
    check_window_options,
    n_strong_components,
    window_bounds,
    window_union,
)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 30), st.integers(1, 30), st.sampled_from(WINDOWS), st.sampled_from(INCOMPLETE)
)
def test_window_bounds_are_half_open_windows(t, b, windows, incomplete):
    start, stop = window_bounds(t, b, windows=windows, incomplete=incomplete)
    assert list(zip(start.tolist(), stop.tolist(), strict=True)) == ref_windows(
        t, b, windows, incomplete
    )


def test_defaults_are_aligned_and_drop():
    assert WINDOWS[0] == "aligned" and INCOMPLETE[0] == "drop"
    start, stop = window_bounds(7, 3)
    assert start.tolist() == [0, 3] and stop.tolist() == [3, 6]


def test_window_options_checked():
    assert check_window_options("aligned", "keep") == ("aligned", "keep")
    with pytest.raises(ValueError, match="windows must be one of"):
        check_window_options("tumbling", "drop")
    with pytest.raises(ValueError, match="incomplete must be one of"):
        check_window_options("aligned", "pad")
    with pytest.raises(TypeError, match="windows must be one of"):
        check_window_options(1, "drop")


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 8),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=40),
)
def test_n_strong_components_matches_networkx(m, pairs):
    pairs = [(a % m, b % m) for a, b in pairs]  # duplicates and self-loops included
    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    g = nx.DiGraph(pairs)
    g.add_nodes_from(range(m))
    assert n_strong_components(src, dst, m) == nx.number_strongly_connected_components(g)


def test_window_union_weights_match_compose_all(rng):
    ch = rng.integers(0, 4, size=(6, 5))
    ch = ch + (ch >= np.arange(5))
    run = Run.from_choices(ch, delta=0.3)
    graphs = list(run.graphs())
    u = window_union(run, 1, 4)
    ref = nx.compose_all(graphs[1:4])
    assert set(u.edges) == set(ref.edges)
    for a, b in ref.edges:
        total = sum(g.edges[a, b]["weight"] for g in graphs[1:4] if g.has_edge(a, b))
        assert u.edges[a, b]["weight"] == pytest.approx(total)
        assert u.edges[a, b]["count"] == sum(g.has_edge(a, b) for g in graphs[1:4])


def test_window_union_keeps_labels_and_checks_bounds():
    g1 = nx.DiGraph([("b", "a")])
    g1.add_node("c")
    g2 = nx.DiGraph([("c", "b"), ("a", "c")])
    u = window_union([g1, g2], 0, 2)
    assert list(u) == ["a", "b", "c"]
    assert {(x, y) for x, y in u.edges if x != y} == {("b", "a"), ("c", "b"), ("a", "c")}
    with pytest.raises(ValueError, match=r"need 0 <= start < stop <= 2"):
        window_union([g1, g2], 0, 3)
    with pytest.raises(TypeError, match="start must be an integer"):
        window_union([g1, g2], 0.0, 1)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 8), edges=st.integers(0, 30))
def test_strong_connectivity_by_two_searches_equals_networkx(seed, m, edges):
    from baygo_graph.analysis.windows import _sorted_distinct, _strongly_connected

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, m, edges), rng.integers(0, m, edges)
    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    key = _sorted_distinct(dst * m + src)
    assert _strongly_connected(key, m) == nx.is_strongly_connected(g)
