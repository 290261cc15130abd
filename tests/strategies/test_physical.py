"""Physical graphs: direction convention, graphs by name, recorded edges."""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.strategies import (
    listen_matrix,
    physical_graph,
)
from baygo_graph.strategies.physical import resolve_listen


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


def _regular_ok(d: int, m: int) -> bool:
    return 1 <= d < m and d * m % 2 == 0


@settings(max_examples=150, deadline=None)
@given(
    prefix=st.sampled_from(["regular-", "fast-regular-", "Regular-"]),
    degree=st.integers(-3, 25),
    agents=st.integers(0, 24),
    seed=st.integers(0, 5),
)
def test_regular_specs_accepted_iff_every_agent_has_a_neighbour(prefix, degree, agents, seed):
    spec = f"{prefix}{degree}"
    if agents >= 2 and _regular_ok(degree, agents):
        h = resolve_listen(spec, agents, seed=seed)
        deg = np.diff(h.indptr)
        assert deg.min() >= 1 and deg.max() <= degree  # every agent hears someone
        assert (h != h.T).nnz == 0 and not h.diagonal().any()
        if not prefix.startswith("fast"):
            assert deg.tolist() == [degree] * agents  # NetworkX's graph: exactly D-regular
    else:
        with pytest.raises(ValueError) as info:
            resolve_listen(spec, agents, seed=seed)
        message = str(info.value)
        assert "\n" not in message and spec in message
        if agents < 2:
            assert f"agents={agents}" in message
        elif degree < 1 or degree >= agents:
            assert f"D = {degree}:" in message
        else:
            assert f"D * agents = {degree * agents} is odd" in message


@settings(max_examples=120, deadline=None)
@given(
    degree=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, width=32),
        st.sampled_from([0.0, -0.0, -1.0, 1e-9, 1.5, 4.0, 10.0, 100.0, 1e6]),
    ),
    agents=st.integers(1, 30),
    seed=st.integers(0, 5),
)
def test_geometric_specs(degree, agents, seed):
    spec = f"geometric-{degree!r}"
    if agents < 2 or not (math.isfinite(degree) and degree > 0):
        with pytest.raises(ValueError) as info:
            physical_graph(spec, agents, seed=seed)
        message = str(info.value)
        assert "\n" not in message and spec in message
        assert (f"agents={agents}" if agents < 2 else f"D = '{degree!r}'") in message
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = physical_graph(spec, agents, seed=seed)
    # the documented exception: an agent with no other agent within the radius is alone
    pos = np.array([g.nodes[i]["pos"] for i in range(agents)])
    radius = math.sqrt(degree / (math.pi * (agents - 1)))
    dist = np.sqrt(((pos[:, None] - pos[None]) ** 2).sum(-1)) + 3 * np.eye(agents)
    alone = (dist > radius + 1e-12).all(axis=1)
    assert [i for i, d in g.degree if d == 0] == np.flatnonzero(alone).tolist()
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if alone.any():
        assert len(said) == 1 and f"{int(alone.sum())} of {agents} agents" in said[0]
    else:
        assert said == []
    if radius >= math.sqrt(2):
        assert g.number_of_edges() == agents * (agents - 1) // 2  # complete


@pytest.mark.parametrize(
    ("spec", "agents", "value"),
    [
        ("geometric-nan", 10, "'nan'"),
        ("geometric-inf", 10, "'inf'"),
        ("geometric--2", 10, "'-2'"),
        ("geometric-0", 10, "'0'"),
        ("geometric-abc", 10, "'abc'"),
        ("geometric-", 10, "''"),
        ("regular-4.5", 10, "'4.5'"),
        ("regular-0", 10, "D = 0"),
        ("regular-10", 10, "D = 10"),
        ("regular-3", 7, "D * agents = 21 is odd"),
        ("fast-regular--2", 10, "D = -2"),
        ("complete", 1, "agents=1"),
        ("geometric", 1, "agents=1"),
    ],
)
def test_refused_specs_name_the_spec_and_the_value(spec, agents, value):
    with pytest.raises(ValueError, match="physical") as info:
        resolve_listen(spec, agents)
    assert spec in str(info.value) and value in str(info.value)


def test_large_geometric_degree_gives_the_complete_graph():
    g = physical_graph("geometric-1e4", 12, seed=0)  # radius 8.5 > sqrt(2)
    assert g.number_of_edges() == 66


@pytest.mark.parametrize(
    ("graph", "alone"),
    [
        (nx.Graph([(0, 1), (1, 2)]), 0),
        (nx.empty_graph(3), 3),
        (nx.DiGraph([(0, 1), (1, 0), (1, 2)]), 0),  # 2 hears 1
        (nx.DiGraph([(0, 1), (1, 0), (2, 1)]), 1),  # nobody is heard by 2
    ],
)
def test_a_users_graph_that_leaves_agents_alone_says_so(graph, alone):
    # hostile18 (noted): a drawn geometric graph warned, the user's own graph did not
    graph = graph.copy()
    graph.add_nodes_from(range(3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = resolve_listen(graph, 3)
        resolve_listen(sp.csr_array(h, dtype=float), 3)
    said = [str(w.message) for w in caught if "no one to listen to" in str(w.message)]
    assert int(np.count_nonzero(h.sum(axis=1) == 0)) == alone  # the brute-force count
    if alone:
        assert said == [
            f"the physical {kind} given leaves {alone} of 3 agents with no one to listen to: "
            "they keep their own belief at every step (w_ii = 1)"
            for kind in ("graph", "matrix")
        ]
    else:
        assert said == []


@pytest.mark.parametrize(
    ("entry", "shown"),
    [
        (np.nan, "nan"),
        (np.inf, "inf"),
        (-np.inf, "-inf"),
        (-1.0, "-1.0"),
        (-1e-300, "-1e-300"),
        (-2, "-2"),  # an integer matrix
    ],
)
@pytest.mark.parametrize("kind", [sp.csr_array, sp.coo_matrix, sp.lil_array, sp.dok_matrix])
def test_a_physical_matrix_entry_that_is_no_permission_is_refused_naming_it(entry, shown, kind):
    # hostile20 Y6 (a): NaN and -1 entries were read as "may listen" (nonzero) without a
    # word; a matrix of such entries holds weights (or a bug), not who may listen to whom
    a = np.ones((4, 4), dtype=type(entry) if isinstance(entry, int) else float)
    a[2, 1] = entry
    with pytest.raises(ValueError) as e:
        resolve_listen(kind(a), 4)
    assert str(e.value).startswith(f"physical matrix entry (row 2, col 1) is {shown}: "), e.value
    assert "NaN, infinities and negatives are refused (1 such entry)" in str(e.value)
    ok = a.copy()
    ok[2, 1] = 0.5 if a.dtype.kind == "f" else 3  # any number > 0 may listen
    assert resolve_listen(kind(ok), 4).toarray()[2, 1]


def test_a_physical_matrix_of_another_dtype_is_refused():
    with pytest.raises(TypeError, match="booleans or real numbers .* got dtype complex128"):
        resolve_listen(sp.csr_array(np.ones((3, 3), dtype=complex)), 3)


def _alone_graph():
    g = nx.path_graph(4)
    g.add_node(4)  # agent 4: no one to listen to
    return g


@pytest.mark.parametrize(
    ("physical", "said"),
    [
        (
            _alone_graph(),
            "the physical graph given leaves 1 of 5 agents with no one to listen to: ",
        ),
        (
            sp.csr_array(nx.to_scipy_sparse_array(_alone_graph())),
            "the physical matrix given leaves 1 of 5 agents with no one to listen to: ",
        ),
        (
            [_alone_graph()] * 3,
            "the physical sequence given (3 graphs, cycled over the steps) leaves 1 of 5 agents "
            "with no one to listen to in any of the 3 graphs a run of 4 steps meets: ",
        ),
        (
            [_alone_graph(), nx.complete_graph(5), _alone_graph()] * 2,  # heard at step 1
            None,
        ),
        (
            [_alone_graph()] * 3 + [nx.complete_graph(5)],  # step 3's graph hears agent 4
            None,
        ),
        (
            [_alone_graph()] * 4 + [nx.complete_graph(5)],  # the run ends before that graph
            "the physical sequence given (5 graphs, cycled over the steps) leaves 1 of 5 agents "
            "with no one to listen to in any of the 4 graphs a run of 4 steps meets: ",
        ),
        (
            lambda t, rng: _alone_graph(),
            "the physical process given (a callable) leaves 1 of 5 agents with no one to "
            "listen to at any of the 4 steps run: ",
        ),
        (lambda t, rng: _alone_graph() if t < 3 else nx.complete_graph(5), None),
        (
            "geometric-0.01",
            "the physical graph drawn for 'geometric-0.01' leaves 5 of 5 agents with no one to "
            "listen to: ",
        ),
        ("exponential", None),
    ],
)
def test_one_warning_for_agents_left_alone_whatever_the_physical_graph(physical, said):
    # hostile20 Y6 (b), (c): a sequence of graphs leaving agent 4 alone at every step ran
    # without a word, and a drawn graph and a user's graph said one condition two ways
    import baygo_graph as bg
    from baygo_graph.strategies import BayGo

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = bg.models.LinearRegression(grid=9)
        data = bg.synthetic_bodyfat()
        bg.simulate(BayGo(physical=physical), agents=5, steps=4, rng=0, model=model, data=data)
    told = [str(w.message) for w in caught if "no one to listen to" in str(w.message)]
    if said is None:
        assert told == []
    else:
        assert len(told) == 1 and told[0].startswith(said), told
        assert (
            told[0]
            .split(": ", 1)[1]
            .startswith("they keep their own belief at every step (w_ii = 1)")
        )
