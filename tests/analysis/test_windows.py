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


# -- condensations and the window that needs no deletions ------------------------------
@st.composite
def step_edges(draw, max_steps=9, max_nodes=6):
    """(m, steps): each step's raw edges (src, dst), repeats and self-loops included; a
    random, a hub (node 0 on most edges) or a sparse series (many empty steps)."""
    m = draw(st.integers(1, max_nodes))
    t = draw(st.integers(1, max_steps))
    kind = draw(st.sampled_from(["random", "hub", "sparse"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    steps = []
    for _ in range(t):
        n = int(rng.integers(0, 2 * m + 1)) if kind != "sparse" else int(rng.integers(0, 3))
        src, dst = rng.integers(0, m, n), rng.integers(0, m, n)
        if kind == "hub":
            hub = rng.random(n) < 0.7
            src[hub & (rng.random(n) < 0.5)] = 0
            dst[hub & ~(src == 0)] = 0
        steps.append((src, dst))
    return m, steps


def _graph(m, pieces):
    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    for src, dst in pieces:
        g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    return g


def _assert_condensation(r, g):
    """``r`` (a Reach) has the strong components of ``g`` and its condensation's edges."""
    m = g.number_of_nodes()
    labels = np.arange(m) if r.labels is None else r.labels
    comps = list(nx.strongly_connected_components(g))
    assert r.n == len(comps)
    assert {frozenset(np.flatnonzero(labels == c).tolist()) for c in range(r.n)} == {
        frozenset(c) for c in comps
    }
    cg = nx.condensation(g, comps)
    cid = {int(labels[u]): cg.graph["mapping"][u] for u in range(m)}
    got = {(cid[int(a)], cid[int(b)]) for a, b in zip(r.src, r.dst, strict=True)}
    assert len(got) == len(r.src)  # distinct
    assert got == set(cg.edges())


@settings(max_examples=120, deadline=None)
@given(step_edges(), st.data())
def test_condense_of_condensed_pieces_is_the_condensation_of_the_union(case, data):
    from baygo_graph.analysis.windows import condense

    m, steps = case
    # each step raw or condensed, then pieces merged in a random order, some with raw edges
    pieces = []
    for e in steps:
        if data.draw(st.booleans()):
            pieces.append((None, [e]))
        else:
            p = condense(m, raw=[e])
            _assert_condensation(p, _graph(m, [e]))
            pieces.append((p, []))
    while len(pieces) > 1:
        i = data.draw(st.integers(0, len(pieces) - 2))
        (a, ra), (b, rb) = pieces[i], pieces.pop(i + 1)
        merged = condense(m, [a, b], ra + rb)
        pieces[i] = (merged, [])
    r, raw = pieces[0]
    if r is None:
        r = condense(m, raw=raw)
    _assert_condensation(r, _graph(m, steps))
    once = condense(m, raw=steps, keep=False)
    assert once.n == r.n and len(once.src) == 0
    labels = np.arange(m) if once.labels is None else once.labels
    other = np.arange(m) if r.labels is None else r.labels
    pairs = set(zip(labels.tolist(), other.tolist(), strict=True))
    assert len(pairs) == r.n  # the same partition


@settings(max_examples=100, deadline=None)
@given(step_edges(max_steps=14), st.sampled_from([-1, 0, 3, None]), st.data())
def test_reach_window_counts_components_like_networkx(case, overhead, data):
    from baygo_graph.analysis.windows import ReachWindow
    from baygo_graph.inputs import as_series

    m, steps = case
    t = len(steps)
    series = as_series([_graph(m, [e]) for e in steps])
    win = ReachWindow(series, overhead=overhead)
    lo = hi = 0
    for _ in range(data.draw(st.integers(1, 12))):  # forward moves: sliding, jumping, growing
        lo = data.draw(st.integers(lo, t - 1))
        hi = data.draw(st.integers(max(hi, lo + 1), t))
        ref = nx.number_strongly_connected_components(_graph(m, steps[lo:hi]))
        assert win.move(lo, hi).n_components() == ref


def test_reach_window_condenses_only_what_pays(monkeypatch):
    """Few agents and short windows: every question is one call on the raw edges; with
    no overhead the pieces are condensed and reused (fewer raw edges read a question)."""
    from baygo_graph.analysis import windows
    from baygo_graph.inputs import as_series

    rng = np.random.default_rng(0)
    m, t = 6, 40
    graphs = [_graph(m, [(rng.integers(0, m, 4), rng.integers(0, m, 4))]) for _ in range(t)]
    series = as_series(graphs)
    read = []
    real = windows.condense

    def spy(m, parts=(), raw=(), **kw):
        read.append(sum(len(s) for s, _ in raw))
        return real(m, parts, raw, **kw)

    monkeypatch.setattr(windows, "condense", spy)
    for overhead, calls in ((None, t - 9), (0, None)):
        read.clear()
        win = windows.ReachWindow(series, overhead=overhead)
        got = [win.move(s, s + 10).n_components() for s in range(t - 9)]
        ref = [nx.number_strongly_connected_components(nx.compose_all(graphs[s : s + 10]))
               for s in range(t - 9)]  # fmt: skip
        assert got == ref
        if calls is not None:
            assert len(read) == calls and max(read) <= 40  # the raw window, once a question
        else:
            assert len(read) > t - 9 and np.mean(read) < 40


def test_windows_move_forward_only():
    from baygo_graph.analysis.windows import EdgeWindow, ReachWindow
    from baygo_graph.inputs import as_series

    s = as_series([nx.DiGraph([(0, 1), (1, 2), (2, 0)])] * 4)
    for win in (EdgeWindow(s), ReachWindow(s)):
        win.move(1, 3)
        with pytest.raises(ValueError, match=r"forward only: \[1, 3\) -> \[0, 3\)"):
            win.move(0, 3)
