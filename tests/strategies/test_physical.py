"""Physical graphs: direction convention, graphs by name, recorded edges."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from baygo_graph.strategies import (
    listen_matrix,
    physical_graph,
)


def test_listen_matrix_direction():
    g = nx.DiGraph([(0, 1), (1, 2), (2, 2)])  # 1 hears 0, 2 hears 1
    h = listen_matrix(g, 3).toarray()
    assert h.astype(int).tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="nodes 0..3"):
        listen_matrix(g, 4)
    with pytest.raises(TypeError, match="networkx graph"):
        listen_matrix(np.eye(3), 3)


@pytest.mark.parametrize(
    ("name", "agents", "degree"),
    [("regular-4", 10, 4.0), ("regular-3", 8, 3.0)],
)
def test_physical_graph_by_name(name, agents, degree):
    g = physical_graph(name, agents, seed=1)
    assert sorted(g.nodes) == list(range(agents))
    assert {d for _, d in g.degree} == {degree}


def test_geometric_graph_has_about_the_asked_degree():
    g = physical_graph("geometric", 400, seed=0)
    mean_degree = 2 * g.number_of_edges() / 400
    assert 7 < mean_degree < 11  # ~10, less near the border of the unit square


def test_physical_graph_names_are_checked():
    assert physical_graph("complete", 5) is None
    with pytest.raises(ValueError, match="physical must be"):
        physical_graph("regular-3", 5)
    with pytest.raises(ValueError, match="physical must be"):
        physical_graph("ring", 5)
