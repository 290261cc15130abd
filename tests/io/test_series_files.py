"""GraphML and node-link JSON series: round trips for int and string labels."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import Run, read_series, simulate, synthetic_bodyfat
from baygo_graph.exceptions import RunFormatError
from baygo_graph.io.series_files import write_series


def snapshot(graphs):
    """Everything a series carries: per step nodes+attrs, weighted edges, graph attrs."""
    return [
        (
            dict(g.nodes(data=True)),
            {(u, v): d["weight"] for u, v, d in g.edges(data=True)},
            dict(g.graph),
        )
        for g in graphs
    ]


def random_series(rng, labels, steps):
    out = []
    for t in range(steps):
        g = nx.DiGraph(step=t, strategy="baygo", synthetic=bool(t % 2))
        g.add_nodes_from(labels, informative=False)
        g.nodes[labels[0]]["informative"] = True
        for i in rng.choice(len(labels), size=len(labels)):
            j = rng.integers(len(labels))
            g.add_edge(labels[i], labels[j], weight=float(rng.random()))
        out.append(g)
    return out


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
@pytest.mark.parametrize("kind", ["int", "str", "mixed-width str"])
def test_round_trip_labels_and_graph_attributes(tmp_path, suffix, kind):
    labels = {
        "int": [3, 10, 0, 7],
        "str": ["alice", "bob", "carol", "dave"],
        "mixed-width str": ["1", "02", "x y", "ä"],
    }[kind]
    graphs = random_series(np.random.default_rng(len(kind)), labels, 5)
    back = read_series(write_series(graphs, tmp_path / f"s{suffix}"))
    assert snapshot(back) == snapshot(graphs)
    assert [type(n) for n in back[0]] == [type(n) for n in labels]


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
def test_run_series_round_trip(tmp_path, suffix):
    run = simulate("baygo", agents=5, steps=6, grid=11, rng=3, data=synthetic_bodyfat())
    back = read_series(write_series(run, tmp_path / f"r{suffix}"))
    ref = list(run.graphs())
    assert snapshot(back) == snapshot(ref)
    assert back[4].graph == {"step": 4, "strategy": "baygo", "synthetic": True}


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=5, unique=True),
    steps=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_graphml_string_labels_property(tmp_path_factory, labels, steps, seed):
    # GraphML is XML: only labels XML can hold.
    labels = [s for s in labels if s.isprintable()] or ["a"]
    graphs = random_series(np.random.default_rng(seed), labels, steps)
    path = tmp_path_factory.mktemp("h") / "s.graphml"
    assert snapshot(read_series(write_series(graphs, path))) == snapshot(graphs)


def test_foreign_graphml_labels(tmp_path):
    """A GraphML file from elsewhere: int labels if all parse, else strings."""
    for labels, expected in (([1, 2], [1, 2]), (["a", "2"], ["a", "2"])):
        g = nx.MultiDiGraph()
        g.add_edge(*labels, step=0, weight=0.5)
        path = tmp_path / "f.graphml"
        nx.write_graphml(g, path)
        (back,) = read_series(path)
        assert list(back.edges(data="weight")) == [(*expected, 0.5)]


def test_graphml_refuses_other_labels(tmp_path):
    g = nx.DiGraph([((0, 1), (1, 0))])
    with pytest.raises(TypeError, match=r"node labels must be int or str, got \(0, 1\)"):
        write_series([g], tmp_path / "t.graphml")


def test_bad_step_graphs(tmp_path):
    g = nx.MultiDiGraph(steps=2, step_graphs="[{}]")
    g.add_edge(0, 1, step=0, weight=1.0)
    path = tmp_path / "b.graphml"
    nx.write_graphml(g, path)
    with pytest.raises(RunFormatError, match="step_graphs lists 1 steps, steps is 2"):
        read_series(path)


def test_from_choices_labels(tmp_path):
    run = Run.from_choices([[1, 0, 0]])
    (g,) = read_series(write_series(run, tmp_path / "c.graphml"))
    assert sorted(g.nodes) == [0, 1, 2] and g.graph["step"] == 0
