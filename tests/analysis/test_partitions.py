"""Connectivity over time partitions equals the single-machine answers, window for window.

The single-machine answers are checked against NetworkX in ``test_connectivity.py``;
here every partitioned call (in this process, on local processes, on a Dask cluster)
is checked against them: every B, both window kinds, partitions shorter than the
window, windows that straddle a partition boundary.
"""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from shared import digraph

from baygo_graph.analysis import (
    b_connectivity,
    is_b_connected,
    smallest_b,
    time_to_connectivity,
)
from baygo_graph.analysis.partitions import StepEdges, split_steps
from baygo_graph.analysis.windows import window_bounds
from baygo_graph.inputs import as_series
from baygo_graph.series import ChoiceSeries, FixedSeries

KINDS = st.sampled_from(["aligned", "sliding"])
INCOMPLETE = st.sampled_from(["drop", "keep"])
PARTS = st.sampled_from([1, 2, 3, 5, 40])  # 40: more partitions than steps


@st.composite
def series(draw, max_steps=14, max_nodes=5):
    """Random digraphs on 1..5 nodes, 1..14 steps, sparse or dense (some steps empty)."""
    m = draw(st.integers(1, max_nodes))
    t = draw(st.integers(1, max_steps))
    p = draw(st.sampled_from([0.1, 0.25, 0.5]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    graphs = []
    for _ in range(t):
        adj = rng.random((m, m)) < p
        graphs.append(digraph(m, [(int(u), int(v)) for u, v in zip(*np.nonzero(adj), strict=True)]))
    return as_series(graphs)


def same_windows(a, b):
    """Two BConnectivity results agree on every field and every window."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tolist() == y.tolist(), f.name
        else:
            assert x == y, f.name


@settings(max_examples=80, deadline=None)
@given(series(), KINDS, INCOMPLETE, PARTS)
def test_windows_over_partitions_equal_one_machine(s, windows, incomplete, parts):
    for b in range(1, s.n_steps + 1):  # every B: windows longer than the partitions too
        kw = {"windows": windows, "incomplete": incomplete}
        one = b_connectivity(s, b, **kw)
        same_windows(b_connectivity(s, b, partitions=parts, n_jobs=1, **kw), one)
        assert is_b_connected(s, b, partitions=parts, n_jobs=1, **kw) is one.holds


@settings(max_examples=80, deadline=None)
@given(series(), KINDS, INCOMPLETE, PARTS, st.integers(1, 16))
def test_smallest_b_over_partitions_equals_one_machine(s, windows, incomplete, parts, max_b):
    kw = {"windows": windows, "incomplete": incomplete, "max_b": max_b}
    assert smallest_b(s, partitions=parts, n_jobs=1, **kw) == smallest_b(s, **kw)
    got = time_to_connectivity(s, max_length=max_b, partitions=parts, n_jobs=1)
    assert got.tolist() == time_to_connectivity(s, max_length=max_b).tolist()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(1, 20), KINDS, PARTS)
def test_choice_series_over_partitions_equal_one_machine(seed, m, t, windows, parts):
    """A BayGo-like series (one chosen in-neighbour per agent and step, -1: none)."""
    rng = np.random.default_rng(seed)
    s = ChoiceSeries.from_choices(rng.integers(-1, m, size=(t, m)), delta=0.5)
    for b in range(1, t + 1):
        one = b_connectivity(s, b, windows=windows)
        same_windows(b_connectivity(s, b, windows=windows, partitions=parts, n_jobs=1), one)
        assert is_b_connected(s, b, windows=windows, partitions=parts, n_jobs=1) is one.holds
        kw = {"windows": windows, "max_b": b}
        assert smallest_b(s, partitions=parts, n_jobs=1, **kw) == smallest_b(s, **kw)


@settings(max_examples=40, deadline=None)
@given(series(max_steps=30), KINDS, st.integers(2, 6), st.integers(1, 8))
def test_each_partition_gets_its_steps_and_the_window_length(s, windows, parts, b):
    b = min(b, s.n_steps)
    start, stop = window_bounds(s.n_steps, b, windows=windows)
    pieces, bounds = split_steps(s, start, stop, parts)
    assert len(pieces) <= parts
    # every window once, in order, each inside its piece
    got = np.concatenate([lo + p.lo for p, (lo, _) in zip(pieces, bounds, strict=True)])
    assert got.tolist() == start.tolist()
    ptr, src, dst = s.edges
    for p, (lo, hi) in zip(pieces, bounds, strict=True):
        assert hi.max() == p.n_steps and lo.min() == 0
        # the piece's edges are the series' edges of its steps, nothing more
        a, z = ptr[p.lo], ptr[p.lo + p.n_steps]
        assert p.edges[1].tolist() == src[a:z].tolist()
        assert p.edges[2].tolist() == dst[a:z].tolist()
        assert p.edges[0].tolist() == (ptr[p.lo : p.lo + p.n_steps + 1] - a).tolist()
    # neighbours overlap by less than the window length
    for p, q in zip(pieces, pieces[1:], strict=False):
        assert 0 <= p.lo + p.n_steps - q.lo < b


def ring_except(t, m, broken):
    """Every step a ring on m nodes except the steps in ``broken`` (a path: no way back)."""
    ring = nx.DiGraph([(k, (k + 1) % m) for k in range(m)])
    path = digraph(m, [(k, k + 1) for k in range(m - 1)])
    return as_series([path if k in broken else ring for k in range(t)])


@pytest.mark.parametrize("parts", [2, 3, 4])
def test_a_failure_across_a_partition_boundary_is_found(parts):
    """Only windows inside a broken stretch fail; the stretch is put across each cut."""
    t, b = 24, 3
    steps = np.arange(t)
    for cut in range(1, t):
        first = min(max(cut - 1, 0), t - b)  # b broken steps around the cut
        s = ring_except(t, 4, set(range(first, first + b)))
        pieces, _ = split_steps(s, steps, steps + 1, parts)
        one = b_connectivity(s, b, windows="sliding")
        assert not one.holds
        got = b_connectivity(s, b, windows="sliding", partitions=parts, n_jobs=1)
        assert got.n_components.tolist() == one.n_components.tolist()
        assert got.first_failure == one.first_failure
        assert not is_b_connected(s, b, windows="sliding", partitions=parts, n_jobs=1)
        assert is_b_connected(s, 4, windows="sliding", partitions=parts, n_jobs=1)
        c = smallest_b(s, windows="sliding", max_b=b + 1, partitions=parts, n_jobs=1)
        assert c == smallest_b(s, windows="sliding", max_b=b + 1)
        assert c.B == 4


def test_no_b_over_partitions_asks_the_union_from_the_partitions():
    """No B up to max_b and no connected window from step 0: the whole union is
    condensed from the partitions' condensations (and is connected here)."""
    m = 4
    halves = [digraph(m, [(0, 1), (1, 2)]), digraph(m, [(2, 3), (3, 0)])]
    empty = [digraph(m)] * 5
    s = as_series(empty + [halves[0]] + empty + [halves[1]] + empty)
    for parts in (1, 2, 3, 17):
        c = smallest_b(s, windows="sliding", max_b=4, partitions=parts, n_jobs=1)
        assert c == smallest_b(s, windows="sliding", max_b=4)
        assert c.B is None and c.union_connected is True


def random_series(rng, t=120, m=12, edges=10):
    graphs = []
    for _ in range(t):
        g = digraph(m)
        g.add_edges_from(map(tuple, rng.integers(0, m, size=(edges, 2)).tolist()))
        graphs.append(g)
    return as_series(graphs)


def test_local_processes_give_the_same_answers(rng):
    s = random_series(rng)
    one = smallest_b(s, windows="sliding", max_b=60)
    assert one.B is not None
    assert smallest_b(s, windows="sliding", max_b=60, partitions=3, n_jobs=2) == one
    for windows in ("aligned", "sliding"):
        same_windows(
            b_connectivity(s, one.B, windows=windows, partitions=3, n_jobs=2),
            b_connectivity(s, one.B, windows=windows),
        )
    assert is_b_connected(s, one.B, windows="sliding", partitions=2, n_jobs=2)
    assert not is_b_connected(s, one.B - 1, windows="sliding", partitions=2, n_jobs=2)


def test_dask_local_cluster_gives_the_same_answers(rng, dask_cluster):
    import distributed

    s = random_series(rng)
    one = smallest_b(s, windows="sliding", max_b=60)
    address = dask_cluster.scheduler_address
    assert smallest_b(s, windows="sliding", max_b=60, partitions=3, scheduler=address) == one
    with distributed.Client(dask_cluster) as client:
        for windows in ("aligned", "sliding"):
            same_windows(
                b_connectivity(s, one.B, windows=windows, partitions=3, scheduler=client),
                b_connectivity(s, one.B, windows=windows),
            )
        assert is_b_connected(s, one.B, windows="sliding", partitions=2, scheduler=client)
        assert not is_b_connected(s, one.B - 1, partitions=2, scheduler=client, windows="sliding")


def test_fixed_series_and_one_node_need_no_partitions():
    w = np.array([[0.5, 0, 0.5], [0.5, 0.5, 0], [0, 0.5, 0.5]])  # a ring, every step
    fixed = FixedSeries(n_steps=6, n_agents=3, fixed=sp.csr_array(w))
    assert fixed.fixed is not None
    assert is_b_connected(fixed, 2, partitions=3, n_jobs=1)
    assert b_connectivity(fixed, 2, partitions=3, n_jobs=1).n_components.tolist() == [1, 1, 1]
    one = as_series([digraph(1)] * 4)
    assert time_to_connectivity(one, max_length=2, partitions=2, n_jobs=1).tolist() == [1] * 4


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: is_b_connected(s, 2, partitions=0), "partitions"),
        (lambda s: b_connectivity(s, 2, partitions=1.5), "partitions"),
        (lambda s: is_b_connected(s, 2, scheduler="tcp://127.0.0.1:1"), "give partitions="),
        (lambda s: b_connectivity(s, 2, n_jobs=2), "give partitions="),
        (lambda s: smallest_b(s, partitions=2), "needs max_b"),
        (lambda s: time_to_connectivity(s, partitions=2), "needs max_length"),
        (lambda s: smallest_b(s, max_b=2, partitions=2, n_jobs=0), "n_jobs"),
    ],
)
def test_bad_partition_arguments(call, match):
    s = ring_except(6, 3, {2})
    with pytest.raises((ValueError, TypeError), match=match):
        call(s)


def test_step_edges_slice_is_a_view():
    s = ring_except(10, 3, {4})
    p = StepEdges.of(s, 3, 7)
    assert p.n_steps == 4 and p.lo == 3 and p.fixed is None
    assert np.shares_memory(p.edges[1], s.edges[1])
