"""Time-varying physical graphs: choices on each step's edges, records rebuild the graphs."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.analysis import b_connectivity
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import (
    BayGo,
    Gossip,
    LinkFailures,
    OnePeerExponential,
    physical_at,
    physical_process,
)

DATA = bg.synthetic_bodyfat()


def run(physical, *, agents=6, steps=8, rng=0, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bg.GridResolutionWarning)
        return bg.simulate(
            BayGo(physical=physical),
            agents=agents,
            steps=steps,
            model=LinearRegression(grid=11),
            rng=rng,
            data=DATA,
            **kw,
        )


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(["gossip", "exponential", "failures-0.5", "failures-0.9"]),
    agents=st.integers(2, 9),
    seed=st.integers(0, 10**6),
)
def test_every_choice_lies_on_that_steps_physical_edges(preset, agents, seed):
    r = run(preset, agents=agents, steps=5, rng=seed)
    for t in range(r.n_steps):
        g = physical_at(r, t)
        for i in range(agents):
            c = int(r.choices[t, i])
            if c == -1:
                assert g.in_degree(i) == 0  # no neighbour this step: keeps its own belief
            else:
                assert g.has_edge(c, i)


def test_gossip_is_a_random_matching_and_its_unions_are_checked_by_connectivity():
    r = run("gossip", agents=8, steps=24, rng=3)
    for t in range(r.n_steps):
        g = physical_at(r, t)
        assert all(d == 1 for _, d in g.in_degree())  # a perfect matching
        partner = [next(iter(g.predecessors(i))) for i in range(8)]
        assert r.choices[t].tolist() == partner  # one neighbour: BayGo must take it
    # window unions against NetworkX, built from the step graphs
    res = b_connectivity(r, 6, windows="aligned")
    for start, ok in zip(res.start.tolist(), res.strongly_connected.tolist(), strict=True):
        union = nx.compose_all([r.graph(t) for t in range(start, start + 6)])
        assert ok == nx.is_strongly_connected(union)


def test_failure_free_links_equal_the_complete_graph():
    a = run("failures-0.0", agents=7, steps=10, rng=5)
    b = run(None, agents=7, steps=10, rng=5)
    np.testing.assert_array_equal(a.choices, b.choices)
    np.testing.assert_array_equal(a.mse, b.mse)


def test_the_physical_process_does_not_change_the_data_stream():
    a = run("gossip", agents=6, steps=4, rng=9)
    b = run("exponential", agents=6, steps=4, rng=9)
    assert a.config["split"] == b.config["split"]


def test_one_peer_exponential_hops():
    r = run("exponential", agents=8, steps=6, rng=1)
    for t in range(6):
        hop = 2 ** (t % 3)
        assert all((int(r.choices[t, i]) - i) % 8 in {hop, (-hop) % 8} for i in range(8))


def test_sequences_cycle_and_callables_get_the_step_and_an_rng():
    ring, path = nx.cycle_graph(5), nx.path_graph(5)
    r = run([ring, path], agents=5, steps=4, rng=2)
    for t in range(4):
        expected = ring if t % 2 == 0 else path
        assert nx.utils.edges_equal(physical_at(r, t).to_undirected().edges, expected.edges)
    seen = []

    def make(t, rng):
        seen.append((t, isinstance(rng, np.random.Generator)))
        return nx.star_graph(4)

    r = run(make, agents=5, steps=3, rng=2)
    assert seen == [(0, True), (1, True), (2, True)]
    assert set(r.choices[:, 1:].ravel().tolist()) == {0}  # leaves hear only the centre


def test_runs_with_time_varying_graphs_save_and_load(tmp_path):
    r = run(LinkFailures(0.3, base=nx.cycle_graph(6)), agents=6, steps=5, rng=4)
    r.save(tmp_path / "r")
    back = bg.Run.load(tmp_path / "r")
    assert back == r
    assert physical_at(back, 3).number_of_edges() == physical_at(r, 3).number_of_edges()
    assert r.config["physical"] == "failures-0.3"


def test_processes_by_object_and_bad_names():
    assert isinstance(physical_process("gossip"), Gossip)
    assert isinstance(physical_process("exponential"), OnePeerExponential)
    with pytest.raises(ValueError, match="failures-P"):
        physical_process("failures-x")
    with pytest.raises(ValueError, match="p must be"):
        LinkFailures(1.5)
    with pytest.raises(TypeError, match="networkx graphs"):
        physical_process([1, 2])
