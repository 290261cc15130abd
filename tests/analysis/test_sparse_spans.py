"""A sparse span (most steps without an edge) is answered from its active steps only
(windows.active_steps, window_groups): the same answers as window by window, checked
against NetworkX and dense numpy references on small random cases."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import digraph, eig_reference, ref_windows

from baygo_graph import Run
from baygo_graph.analysis import (
    b_connectivity,
    centrality,
    closed_classes,
    connectivity,
    influence_series,
    nonunique_windows,
    smallest_b,
    time_to_connectivity,
)
from baygo_graph.analysis.windows import active_steps, window_groups
from baygo_graph.inputs import as_series


@st.composite
def sparse_graphs(draw, max_steps=14, max_nodes=4):
    """Step graphs of which most have no edge (some only a self-loop)."""
    m = draw(st.integers(1, max_nodes))
    t = draw(st.integers(1, max_steps))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    graphs = []
    for _ in range(t):
        if rng.random() < 0.65:
            edges = [(0, 0)] if rng.random() < 0.2 else []
        else:
            adj = rng.random((m, m)) < 0.5
            edges = [(int(u), int(v)) for u, v in zip(*np.nonzero(adj), strict=True)]
        graphs.append(digraph(m, edges))
    return graphs


@st.composite
def sparse_choices(draw, max_steps=14, max_nodes=4):
    """A choice series whose most steps choose no one (-1) or themselves."""
    m = draw(st.integers(2, max_nodes))
    t = draw(st.integers(1, max_steps))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    ch = rng.integers(-1, m, size=(t, m))
    idle = rng.random(t) < 0.65
    ch[idle] = np.where(rng.random((idle.sum(), m)) < 0.2, np.arange(m), -1)
    return Run.from_choices(ch, delta=float(draw(st.sampled_from([0.0, 0.3, 0.5]))))


def ref_ttc(graphs):
    t = len(graphs)
    out = []
    for s in range(t):
        hit = [
            e - s
            for e in range(s + 1, t + 1)
            if nx.is_strongly_connected(nx.compose_all(graphs[s:e]))
        ]
        out.append(hit[0] if hit else -1)
    return out


def ref_influence(series, w, method, ends):
    """Per window: (vector or NaN, number of closed classes), by dense numpy."""
    ws = [series.weights(k).toarray() for k in range(series.n_steps)]
    vals, counts = [], []
    for end in ends:
        window = ws[end - w + 1 : end + 1]
        mat = np.linalg.multi_dot([*window[::-1], np.eye(len(ws[0]))]) if method == "product" \
            else sum(window) / w  # fmt: skip
        n = len(closed_classes(mat))
        counts.append(n)
        vals.append(eig_reference(mat) if n == 1 else np.full(len(mat), np.nan))
    return np.array(vals), np.array(counts)


def test_active_steps_and_groups():
    empty = digraph(2)
    loop = digraph(2, [(1, 1)])
    s = as_series([digraph(2, [(0, 1)]), empty, loop, empty, digraph(2, [(1, 0)])])
    assert active_steps(s).tolist() == [True, False, False, False, True]
    start, stop = np.arange(4), np.arange(4) + 2
    first, group = window_groups(s, start, stop)
    assert first.tolist() == [0, 1, 3] and group.tolist() == [0, 1, 1, 2]
    choice = Run.from_choices([[1, -1], [0, 1], [-1, -1]], delta=0.5)  # a self-choice
    assert active_steps(as_series(choice)).tolist() == [True, False, False]


@settings(max_examples=80, deadline=None)
@given(sparse_graphs(), st.integers(1, 6))
def test_time_to_connectivity_of_a_sparse_span_matches_networkx(graphs, cap):
    ref = ref_ttc(graphs)
    assert time_to_connectivity(graphs).tolist() == ref
    capped = [x if x <= cap else -1 for x in ref]
    assert time_to_connectivity(graphs, max_length=cap).tolist() == capped
    if len(graphs) >= 2:
        got = time_to_connectivity(graphs, max_length=cap, partitions=2, n_jobs=1)
        assert got.tolist() == capped


@settings(max_examples=60, deadline=None)
@given(sparse_graphs(), st.integers(1, 5), st.sampled_from(["aligned", "sliding"]),
       st.sampled_from(["drop", "keep"]))  # fmt: skip
def test_windows_of_a_sparse_span_match_networkx(graphs, b, windows, incomplete):
    b = min(b, len(graphs))
    wins = ref_windows(len(graphs), b, windows, incomplete)
    comps = [nx.number_strongly_connected_components(nx.compose_all(graphs[s:e])) for s, e in wins]
    got = b_connectivity(graphs, b, windows=windows, incomplete=incomplete)
    assert got.n_components.tolist() == comps
    sliding = smallest_b(graphs, windows="sliding").B
    ok = [
        all(nx.is_strongly_connected(nx.compose_all(graphs[s:e]))
            for s, e in ref_windows(len(graphs), k, "sliding", "drop"))
        for k in range(1, len(graphs) + 1)
    ]  # fmt: skip
    assert sliding == (ok.index(True) + 1 if True in ok else None)


@settings(max_examples=60, deadline=None)
@given(st.one_of(sparse_graphs(), sparse_choices()), st.integers(1, 5),
       st.sampled_from(["product", "union"]), st.sampled_from(["aligned", "sliding"]))  # fmt: skip
def test_influence_of_a_sparse_span_matches_dense_numpy(source, w, method, windows):
    s = as_series(source)
    w = min(w, s.n_steps)
    got = influence_series(s, window=w, method=method, windows=windows)
    ends = got.ends
    vals, counts = ref_influence(s, w, method, ends)
    assert got.n_classes[ends].tolist() == counts.tolist()
    np.testing.assert_allclose(got.values[ends], vals, atol=1e-9)
    alone = nonunique_windows(s, window=w, method=method, ends=ends)  # counted afresh
    assert alone.n_classes.tolist() == counts[counts > 1].tolist()


@pytest.mark.parametrize("method", ["product", "union"])
def test_grouped_windows_equal_every_window_solved(method, monkeypatch):
    """The slow path (every window answered on its own) gives the same rows."""
    rng = np.random.default_rng(3)
    graphs = [digraph(4) for _ in range(60)]
    for t in rng.choice(60, size=8, replace=False).tolist():
        graphs[t] = digraph(4, [(int(a), int(b)) for a, b in rng.integers(0, 4, (5, 2))])
    fast = influence_series(graphs, window=7, method=method, windows="sliding")
    comps = b_connectivity(graphs, 7, windows="sliding").n_components
    ttc = time_to_connectivity(graphs)

    def every(series, start, stop):
        return np.arange(len(start)), np.arange(len(start))

    monkeypatch.setattr(centrality, "window_groups", every)
    monkeypatch.setattr(connectivity, "window_groups", every)
    slow = influence_series(graphs, window=7, method=method, windows="sliding")
    assert fast.n_classes.tolist() == slow.n_classes.tolist()
    np.testing.assert_allclose(fast.values, slow.values, atol=1e-12)
    assert (b_connectivity(graphs, 7, windows="sliding").n_components == comps).all()
    assert ttc.tolist() == ref_ttc(graphs)
