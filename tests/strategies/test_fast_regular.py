"""The vectorised random regular-like graph and the physical-argument resolver."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from baygo_graph.strategies import listen_matrix, physical_graph
from baygo_graph.strategies.physical import random_regular_listen, resolve_listen


@pytest.mark.parametrize(("agents", "degree"), [(3, 2), (10, 3), (50, 4), (1000, 10), (999, 8)])
@pytest.mark.parametrize("seed", range(3))
def test_regular_like_graph_is_simple_symmetric_and_nearly_regular(agents, degree, seed):
    h = random_regular_listen(agents, degree, rng=seed)
    assert h.shape == (agents, agents) and h.dtype == bool and h.has_sorted_indices
    assert (h != h.T).nnz == 0 and not h.diagonal().any()
    deg = np.diff(h.indptr)
    assert deg.max() == degree and deg.min() >= 1
    # merged links: about degree^2 / 2 in all, whatever M (here a generous bound)
    assert degree * agents - h.nnz <= max(4 * degree**2, 0.2 * degree * agents)
    g = nx.from_scipy_sparse_array(h.astype(int))
    assert nx.is_connected(g)  # a Hamiltonian cycle is in every graph with degree >= 2
    same = random_regular_listen(agents, degree, rng=seed)
    assert (same != h).nnz == 0


def test_degree_distribution_of_a_large_graph():
    h = random_regular_listen(200_000, 10, rng=1)
    deg = np.diff(h.indptr)
    assert (deg == 10).mean() > 0.9995 and deg.min() >= 8


@pytest.mark.parametrize(
    ("agents", "degree", "match"),
    [
        (1, 1, "agents must be an integer >= 2"),
        (5, 5, "degree must be < agents"),
        (5, 3, "degree \\* agents even"),
        (5, 0, "degree must be an integer >= 1"),
    ],
)
def test_bad_sizes_are_named(agents, degree, match):
    with pytest.raises(ValueError, match=match):
        random_regular_listen(agents, degree)


def test_resolve_listen_accepts_names_graphs_and_matrices():
    assert resolve_listen(None, 5) is None and resolve_listen("complete", 5) is None
    by_name = resolve_listen("regular-4", 20, seed=3)
    expected = listen_matrix(physical_graph("regular-4", 20, seed=3), 20)
    assert (by_name != expected).nnz == 0  # NetworkX's graph at this size
    cycle = nx.cycle_graph(6)
    assert (resolve_listen(cycle, 6) != listen_matrix(cycle, 6)).nnz == 0
    m = sp.csr_array(np.ones((4, 4)))
    assert resolve_listen(m, 4).nnz == 12  # diagonal dropped
    with pytest.raises(
        ValueError, match="physical must be \\(5, 5\\) as a sparse matrix, got \\(4, 4\\)"
    ):
        resolve_listen(m, 5)
    with pytest.raises(TypeError, match="physical must be a name"):
        resolve_listen(3, 5)
