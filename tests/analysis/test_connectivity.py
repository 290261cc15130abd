"""Windowed connectivity and smallest B vs a brute-force NetworkX reference."""

from __future__ import annotations

import copy

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import digraph, ref_windows

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph._render import b_text
from baygo_graph.analysis import (
    as_series,
    b_connectivity,
    b_coverage,
    smallest_b,
    strongly_connected_steps,
    time_to_connectivity,
    window_union,
)
from baygo_graph.models import LinearRegression

# -- helpers ---------------------------------------------------------------------


def ref_union(graphs, s, e):
    return nx.compose_all(graphs[s:e])


def ref_b_connectivity(graphs, b, windows, incomplete):
    wins = ref_windows(len(graphs), b, windows, incomplete)
    unions = [ref_union(graphs, s, e) for s, e in wins]
    return (
        [nx.is_strongly_connected(u) for u in unions],
        [nx.number_strongly_connected_components(u) for u in unions],
        wins,
    )


def ref_smallest_b(graphs, windows, incomplete):
    for b in range(1, len(graphs) + 1):
        if all(ref_b_connectivity(graphs, b, windows, incomplete)[0]):
            return b
    return None


def ref_time_to_connectivity(graphs):
    t = len(graphs)
    out = []
    for s in range(t):
        hit = [
            e - s for e in range(s + 1, t + 1) if nx.is_strongly_connected(ref_union(graphs, s, e))
        ]
        out.append(hit[0] if hit else -1)
    return out


@st.composite
def graph_series(draw, max_steps=9, max_nodes=5):
    m = draw(st.integers(1, max_nodes))
    t = draw(st.integers(1, max_steps))
    p = draw(st.sampled_from([0.15, 0.3, 0.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(t):
        adj = rng.random((m, m)) < p
        g = digraph(m, [(int(u), int(v)) for u, v in zip(*np.nonzero(adj), strict=True)])
        graphs.append(g)
    return graphs


# Pieces on 3 nodes: a = 0->1->2, b = 2->0 (a|b is a ring), d = 0->2->1, e = 1->0.
A = [(0, 1), (1, 2)]
B_ = [(2, 0)]
D = [(0, 2), (2, 1)]
E = [(1, 0)]


def non_monotone_series():
    """Aligned B = 3 works, B = 4 does not (window [4, 8) = {c, b, d, c} fails)."""
    c = []
    pieces = [A, c, B_, A, c, B_, D, c, E, D, c, E]
    return [digraph(3, p) for p in pieces]


# -- b_connectivity --------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(graph_series(), st.sampled_from(["aligned", "sliding"]), st.sampled_from(["drop", "keep"]))
def test_b_connectivity_matches_networkx(graphs, windows, incomplete):
    for b in range(1, len(graphs) + 1):
        ok, ncomp, wins = ref_b_connectivity(graphs, b, windows, incomplete)
        r = b_connectivity(graphs, b, windows=windows, incomplete=incomplete)
        assert r.strongly_connected.tolist() == ok
        assert r.n_components.tolist() == ncomp
        assert list(zip(r.start.tolist(), r.stop.tolist(), strict=True)) == wins
        assert r.holds == all(ok)
        assert r.first_failure == (ok.index(False) if False in ok else None)


@settings(max_examples=60, deadline=None)
@given(graph_series(), st.sampled_from(["aligned", "sliding"]), st.sampled_from(["drop", "keep"]))
def test_smallest_b_matches_networkx(graphs, windows, incomplete):
    assert smallest_b(graphs, windows=windows, incomplete=incomplete).B == ref_smallest_b(
        graphs, windows, incomplete
    )


@settings(max_examples=40, deadline=None)
@given(
    graph_series(),
    st.sampled_from(["aligned", "sliding"]),
    st.sampled_from(["drop", "keep"]),
    st.integers(1, 12) | st.none(),
)
def test_smallest_b_from_precomputed_ttc(graphs, windows, incomplete, max_b):
    ttc = time_to_connectivity(graphs)
    kw = {"windows": windows, "incomplete": incomplete, "max_b": max_b}
    assert smallest_b(graphs, ttc=ttc, **kw).B == smallest_b(graphs, **kw).B
    with pytest.raises(ValueError, match="ttc must be an int array"):
        smallest_b(graphs, ttc=ttc[:-1], **kw)


@settings(max_examples=60, deadline=None)
@given(graph_series(max_steps=12))
def test_time_to_connectivity_matches_networkx(graphs):
    assert time_to_connectivity(graphs).tolist() == ref_time_to_connectivity(graphs)


@settings(max_examples=40, deadline=None)
@given(graph_series(max_steps=12))
def test_sliding_is_monotone_and_aligned_doubles(graphs):
    t = len(graphs)
    sliding = [b_connectivity(graphs, b, windows="sliding").holds for b in range(1, t + 1)]
    aligned = [b_connectivity(graphs, b, windows="aligned").holds for b in range(1, t + 1)]
    for b in range(1, t):
        assert not sliding[b - 1] or sliding[b]
    for b in range(1, t + 1):
        if aligned[b - 1]:  # B works -> every B' >= 2B - 1 works (DESIGN.md)
            assert all(aligned[bb - 1] for bb in range(2 * b - 1, t + 1))
        if sliding[b - 1]:  # a sliding B implies the aligned B
            assert aligned[b - 1]


def test_aligned_non_monotone_example():
    graphs = non_monotone_series()
    holds = [b_connectivity(graphs, b).holds for b in range(1, 13)]
    assert holds[:6] == [False, False, True, False, True, True]
    r = b_connectivity(graphs, 4)
    assert r.first_failure == 1 and r.n_components.tolist() == [1, 2, 1]
    assert smallest_b(graphs, windows="aligned").B == 3 == ref_smallest_b(graphs, "aligned", "drop")
    assert smallest_b(graphs, windows="sliding").B == ref_smallest_b(graphs, "sliding", "drop")
    assert smallest_b(graphs, windows="sliding").B > 3


def test_no_b_works_when_an_agent_is_never_listened_to():
    ring = [(0, 1), (1, 2), (2, 0)]
    graphs = [digraph(4, ring + [(0, 3)])] * 5  # nobody listens to agent 3
    assert smallest_b(graphs, windows="aligned").B is None
    assert smallest_b(graphs, windows="sliding").B is None
    assert time_to_connectivity(graphs).tolist() == [-1] * 5
    assert not b_connectivity(graphs, 5).holds
    assert b_connectivity(graphs, 5).n_components.tolist() == [2]


def test_isolated_node_counts():
    ring = digraph(3, [(0, 1), (1, 2), (2, 0)])
    assert strongly_connected_steps([ring]).tolist() == [True]
    lonely = copy.deepcopy(ring)
    lonely.add_node(3)
    assert strongly_connected_steps([lonely]).tolist() == [False]
    assert b_connectivity([lonely], 1).n_components.tolist() == [2]


def test_incomplete_window_option():
    ring, empty = digraph(3, A + B_), digraph(3)
    graphs = [ring, ring, empty]
    assert b_connectivity(graphs, 2, incomplete="drop").holds
    keep = b_connectivity(graphs, 2, incomplete="keep")
    assert keep.stop.tolist() == [2, 3] and keep.first_failure == 1 and not keep.holds
    assert smallest_b(graphs, incomplete="keep").B == 3
    assert smallest_b(graphs, windows="sliding", incomplete="keep").B is None


def test_max_b_limits_the_search():
    graphs = non_monotone_series()
    assert smallest_b(graphs, max_b=2).B is None
    assert smallest_b(graphs, max_b=3).B == 3
    full = time_to_connectivity(graphs)
    capped = time_to_connectivity(graphs, max_length=3)
    assert capped.tolist() == np.where(full <= 3, full, -1).tolist()


# -- inputs ----------------------------------------------------------------------
def test_run_and_its_graphs_agree(rng):
    m, t = 6, 30
    ch = rng.integers(0, m - 1, size=(t, m))
    ch = ch + (ch >= np.arange(m))
    ch[rng.random((t, m)) < 0.05] = -1  # some agents with no neighbour
    run = Run.from_choices(ch)
    graphs = list(run.graphs())
    for windows in ("aligned", "sliding"):
        assert smallest_b(run, windows=windows).B == smallest_b(graphs, windows=windows).B
        assert smallest_b(run, windows=windows).B == ref_smallest_b(graphs, windows, "drop")
        r1, r2 = b_connectivity(run, 5, windows=windows), b_connectivity(graphs, 5, windows=windows)
        assert r1.n_components.tolist() == r2.n_components.tolist()
    assert time_to_connectivity(run).tolist() == ref_time_to_connectivity(graphs)


def test_simulated_run_and_fixed_runs():
    data = synthetic_bodyfat(rng=1)
    run = simulate("baygo", agents=5, steps=25, model=LinearRegression(grid=11), rng=3, data=data)
    graphs = list(run.graphs())
    assert smallest_b(run, windows="sliding").B == ref_smallest_b(graphs, "sliding", "drop")
    for name, expected in [("complete", 1), ("posm", 1), ("nocol", None)]:
        fixed = simulate(name, agents=4, steps=6, model=LinearRegression(grid=9), rng=0, data=data)
        assert smallest_b(fixed).B == expected
        assert smallest_b(fixed, windows="sliding").B == expected
        r = b_connectivity(fixed, 2, windows="sliding")
        assert r.n_windows == 5 and r.holds == (expected == 1)
        assert time_to_connectivity(fixed).tolist() == [1 if expected else -1] * 6
    cen = simulate("cen", agents=3, steps=2, model=LinearRegression(grid=9), rng=0, data=data)
    with pytest.raises(ValueError, match="centralised"):
        smallest_b(cen)


def test_nodes_mapped_in_sorted_order_and_inputs_not_mutated():
    g1 = nx.DiGraph([("b", "a"), ("c", "b")])
    g1.add_edge("a", "c", weight=2.0)
    g2 = nx.DiGraph([("a", "b")])
    g2.add_node("c")
    graphs = [g1, g2]
    before = [(sorted(g.nodes(data=True)), sorted(g.edges(data=True))) for g in graphs]
    s = as_series(graphs, self_weight=0)
    assert s.nodes == ("a", "b", "c")
    assert s.weights(0).toarray().tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    half = as_series(graphs).weights(0).toarray().tolist()  # default: the equal rule
    assert half == [[0.5, 0.5, 0], [0, 0.5, 0.5], [0.5, 0, 0.5]]
    assert smallest_b(graphs).B == 2  # g1 is a ring, g2 alone is not
    u = window_union(graphs, 0, 2)
    assert set(u.nodes) == {"a", "b", "c"}
    assert u.edges["a", "b"]["count"] == 1 and u.edges["b", "a"]["weight"] == 0.5  # equal rule
    after = [(sorted(g.nodes(data=True)), sorted(g.edges(data=True))) for g in graphs]
    assert before == after


def test_run_not_mutated(rng):
    ch = rng.integers(0, 3, size=(8, 4))
    ch = ch + (ch >= np.arange(4))
    run = Run.from_choices(ch)
    copy_ch = run.choices.copy()
    smallest_b(run, windows="sliding")
    b_connectivity(run, 2)
    window_union(run, 0, 3)
    np.testing.assert_array_equal(run.choices, copy_ch)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"B": 0}, r"B must be an integer in \[1, 3\], got 0"),
        ({"B": 4}, r"B must be an integer in \[1, 3\], got 4"),
        ({"B": 1, "windows": "tumbling"}, "windows must be one of"),
        ({"B": 1, "incomplete": "pad"}, "incomplete must be one of"),
    ],
)
def test_bad_arguments(kwargs, match):
    graphs = [digraph(3, A + B_)] * 3
    with pytest.raises(ValueError, match=match):
        b_connectivity(graphs, **kwargs)


def test_bad_series():
    with pytest.raises(ValueError, match="at least one step"):
        smallest_b([])
    with pytest.raises(TypeError, match="DiGraph or Graph"):
        smallest_b([digraph(3), 4])
    with pytest.raises(TypeError, match="Run, a series, a sequence"):
        smallest_b(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="graph 0: edge 0 -> 1: weight -1.0: it is negative"):
        smallest_b([nx.DiGraph([(0, 1, {"weight": -1.0})])])
    with pytest.raises(ValueError, match=r"need 0 <= start < stop <= 2"):
        window_union([digraph(2)] * 2, 1, 1)


def test_zero_weight_edges_do_not_count():
    g = digraph(2, [(0, 1)])
    g.add_edge(1, 0, weight=0.0)
    assert strongly_connected_steps([g]).tolist() == [False]
    g.edges[1, 0]["weight"] = 0.5
    assert strongly_connected_steps([g]).tolist() == [True]


def test_long_series_smallest_b_is_tight(rng):
    """A 400-step, 30-agent random series: B works, B - 1 does not (direct window checks)."""
    m, t = 30, 400
    ch = rng.integers(0, m - 1, size=(t, m))
    run = Run.from_choices(ch + (ch >= np.arange(m)))
    L = time_to_connectivity(run)
    b = smallest_b(run, windows="sliding").B
    assert b is not None
    assert L[: t - b + 1].min() > 0 and L[: t - b + 1].max() <= b
    assert b_connectivity(run, b, windows="sliding").holds
    assert not b_connectivity(run, b - 1, windows="sliding").holds
    ba = smallest_b(run, windows="aligned").B
    assert b_connectivity(run, ba).holds
    assert all(not b_connectivity(run, k).holds for k in range(1, ba))


# -- coverage: what a smallest B checked, and its tail -------------------------------
def ref_coverage(graphs, windows, incomplete):
    """Brute force: B, windows checked, steps covered, tail and its connectivity, and
    whether the union of all steps is strongly connected. No B, or sliding windows:
    no tail at all (None); aligned windows kept at the end: a tail of 0."""
    t = len(graphs)
    whole = nx.is_strongly_connected(ref_union(graphs, 0, t))
    b = ref_smallest_b(graphs, windows, incomplete)
    if b is None:
        return None, 0, 0, None, None, whole
    wins = ref_windows(t, b, windows, incomplete)
    covered = sorted({k for s, e in wins for k in range(s, e)})
    assert covered == list(range(len(covered)))  # windows cover a prefix
    if windows == "sliding":
        return b, len(wins), len(covered), None, None, whole
    tail = t - len(covered)
    tail_ok = nx.is_strongly_connected(ref_union(graphs, len(covered), t)) if tail else None
    return b, len(wins), len(covered), tail, tail_ok, whole


@settings(max_examples=60, deadline=None)
@given(graph_series(), st.sampled_from(["aligned", "sliding"]), st.sampled_from(["drop", "keep"]))
def test_coverage_matches_networkx(graphs, windows, incomplete):
    got = smallest_b(graphs, windows=windows, incomplete=incomplete)
    want = ref_coverage(graphs, windows, incomplete)
    assert (got.B, got.windows_checked, got.steps_covered, got.tail_length,
            got.tail_connected, got.union_connected) == want  # fmt: skip
    assert got.steps == len(graphs) and got.max_b == len(graphs)
    text = b_text(got)
    if got.B is not None and got.tail_length:
        assert f"over [0, {got.steps_covered})" in text
        unit = "step" if got.tail_length == 1 else "steps"
        assert f"tail of {got.tail_length} {unit} " in text
    else:
        assert "tail" not in text


def test_coverage_keyword_is_a_future_warning_no_op():
    graphs = [digraph(3, [(0, 1), (1, 2), (2, 0)])] * 3
    with pytest.warns(FutureWarning, match="coverage= has no effect"):
        old = smallest_b(graphs, coverage=True)
    assert old == smallest_b(graphs)


def test_a_tail_that_is_not_connected_is_reported_with_its_tail():
    # 3 agents: a full ring every 2 steps for 6 steps, then 3 steps where nobody
    # listens to agent 2: aligned B = 2 covers [0, 8); the tail [8, 9) is not connected
    m = 3
    ring_a, ring_b = digraph(m, [(0, 1), (1, 2)]), digraph(m, [(2, 0)])
    broken = digraph(m, [(0, 1), (1, 0)])
    graphs = [ring_a, ring_b] * 4 + [broken]
    cov = smallest_b(graphs)
    assert smallest_b(graphs).B == cov.B == 2
    assert (cov.windows_checked, cov.steps_covered, cov.tail_length) == (4, 8, 1)
    assert cov.tail_connected is False
    assert b_text(cov) == (
        "B-connected over [0, 8) with B = 2 (4 aligned windows), tail of 1 step not connected"
    )
    assert cov.as_dict()["tail_connected"] is False and cov.as_dict()["B"] == 2
    # a connected tail is said to be so; no tail, no tail clause
    ok = b_coverage(graphs[:8] + [ring_a, ring_b, ring_a], 2)
    assert ok.tail_length == 1 and ok.tail_connected is False
    ok = b_coverage(graphs[:8] + [digraph(m, [(0, 1), (1, 2), (2, 0)])], 2)
    assert ok.tail_connected is True and b_text(ok).endswith("tail of 1 step strongly connected")
    assert b_text(b_coverage(graphs[:8], 2)) == (
        "B-connected over [0, 8) with B = 2 (4 aligned windows)"
    )
    # sliding windows cover every step: no tail at all
    sl = smallest_b(graphs, windows="sliding")
    assert sl.steps_covered == len(graphs) and sl.tail_length is None and not sl.has_tail
    # no B: nothing covered, no tail; the reason is the union of all steps
    none = smallest_b([broken] * 3)
    assert none.B is None and none.tail_length is None and none.tail_connected is None
    assert none.union_connected is False
    assert b_text(none) == (
        "no B up to 3 works (aligned windows): the union of all 3 steps is not strongly connected"
    )


@settings(max_examples=60, deadline=None)
@given(
    graph_series(max_steps=12),
    st.sampled_from([-1, 0, 2]),
    st.sampled_from(["drop", "keep"]),
    st.integers(1, 12) | st.none(),
)
def test_every_answer_with_condensed_pieces_matches_networkx(graphs, overhead, incomplete, top):
    """The window questions answered from condensed pieces (every step condensed: -1; or
    as soon as a piece spares any edge) give the brute-force answers, max_b included."""
    from baygo_graph.analysis import is_b_connected
    from baygo_graph.analysis import windows as win

    t = len(graphs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(win, "CONDENSE_OVERHEAD", overhead)
        assert time_to_connectivity(graphs).tolist() == ref_time_to_connectivity(graphs)
        for windows in ("aligned", "sliding"):
            got = smallest_b(graphs, windows=windows, incomplete=incomplete, max_b=top)
            want = ref_coverage(graphs, windows, incomplete)
            if top is not None and want[0] is not None and want[0] > top:
                want = (None, 0, 0, None, None, want[-1])
            assert (got.B, got.windows_checked, got.steps_covered, got.tail_length,
                    got.tail_connected, got.union_connected) == want  # fmt: skip
            assert got == b_coverage(graphs, got.B, windows=windows, incomplete=incomplete,
                                     max_b=top)  # fmt: skip
            for b in range(1, t + 1):
                ok, ncomp, _ = ref_b_connectivity(graphs, b, windows, incomplete)
                r = b_connectivity(graphs, b, windows=windows, incomplete=incomplete)
                assert r.n_components.tolist() == ncomp
                assert is_b_connected(graphs, b, windows=windows, incomplete=incomplete) == all(ok)
