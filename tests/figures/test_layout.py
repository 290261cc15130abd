"""The viewer's layout at scale: spring as before on small graphs, a coarse layout whose
cost grows with nodes and edges beyond, a cap, and a budget check before any of it."""

from __future__ import annotations

import json
import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from baygo_graph.exceptions import BudgetError
from baygo_graph.figures import _graph, html, to_html
from baygo_graph.figures._graph import COARSE_CORE, LAYOUTS, SPRING_NODES, graph_layout
from baygo_graph.inputs import as_series


def _adjacency(g: nx.Graph) -> sp.csr_array:
    return sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=range(len(g)), format="csr"))


def _embedded(path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def test_the_cli_choices_are_the_layouts():
    from baygo_graph.cli.view import LAYOUTS as CLI_LAYOUTS

    assert CLI_LAYOUTS == LAYOUTS


def test_small_graphs_keep_networkx_spring_layout_exactly():
    g = nx.gnm_random_graph(40, 90, seed=3)
    nx.set_edge_attributes(g, {e: 0.5 + (i % 3) for i, e in enumerate(g.edges)}, "weight")
    pos, used = graph_layout(_adjacency(g), seed=7)
    ref = nx.spring_layout(g, seed=7, weight="weight")
    xy = np.array([ref[i] for i in range(40)])
    xy = (xy - xy.min(axis=0)) / np.ptp(xy, axis=0)
    assert used == "spring" and np.array_equal(pos, np.round(0.02 + 0.96 * xy, 4))


def test_coarse_places_every_node_near_its_neighbours():
    g = nx.barabasi_albert_graph(3000, 2, seed=1)
    g.add_nodes_from(range(3000, 3050))  # lone nodes
    g.add_edges_from([(3050, 3051), (3051, 3052)])  # a small other component
    pos, used = graph_layout(_adjacency(g), seed=0)
    assert used == "coarse" and pos.shape == (3053, 2)
    assert np.isfinite(pos).all() and pos.min() >= 0.02 and pos.max() <= 0.98
    assert len(np.unique(pos, axis=0)) > 0.99 * len(pos)
    edges = np.array(list(nx.barabasi_albert_graph(3000, 2, seed=1).edges))
    edge_length = np.hypot(*(pos[edges[:, 0]] - pos[edges[:, 1]]).T).mean()
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 3000, size=(5000, 2))
    random_length = np.hypot(*(pos[pairs[:, 0]] - pos[pairs[:, 1]]).T).mean()
    # the graph shapes the picture: neighbours drawn close (spring layout: 0.45; a
    # layout blind to the graph: 1.0; this one: 0.61)
    assert edge_length < 0.65 * random_length


def test_coarse_runs_the_spring_layout_on_its_core_only(monkeypatch):
    sizes = []
    real = nx.spring_layout

    def spring(g, **kwargs):
        sizes.append(len(g))
        return real(g, **kwargs)

    monkeypatch.setattr(nx, "spring_layout", spring)
    g = nx.barabasi_albert_graph(4000, 1, seed=2)
    a, b = graph_layout(_adjacency(g), seed=5), graph_layout(_adjacency(g), seed=5)
    assert sizes == [COARSE_CORE, COARSE_CORE]
    assert np.array_equal(a[0], b[0])  # seeded


def test_spring_is_refused_above_its_cap_before_any_work(monkeypatch):
    monkeypatch.setattr(_graph, "_spring", lambda *a: pytest.fail("spring layout started"))
    a = sp.csr_array((_graph.SPRING_MAX_NODES + 1,) * 2)
    with pytest.raises(ValueError, match="over its cap of 5,000; use 'coarse'"):
        graph_layout(a, method="spring")
    with pytest.raises(ValueError, match="layout must be one of"):
        graph_layout(a, method="fr")


def test_none_and_auto_above_the_cap_read_no_graph(monkeypatch):
    pos, used = graph_layout(sp.csr_array((7, 7)), method="none")
    assert used == "none" and len(np.unique(pos, axis=0)) == 7
    monkeypatch.setattr(_graph, "SPRING_NODES", 3)
    monkeypatch.setattr(_graph, "LAYOUT_MAX_NODES", 6)
    assert graph_layout(sp.csr_array((7, 7)))[1] == "none"


def _star_series(m: int, t: int = 3):
    """Steps of a hub listening to everyone (and the ring of the others)."""
    steps = []
    for k in range(t):
        g = nx.DiGraph()
        g.add_nodes_from(range(m))
        g.add_edges_from((i, 0) for i in range(1, m))
        g.add_edges_from((i, (i + 1 + k) % m) for i in range(m))
        steps.append(g)
    return steps


def test_the_viewer_says_which_layout_it_used(tmp_path):
    with pytest.warns(UserWarning, match=r"1,200 nodes are over 1,000: .*layout='coarse'"):
        page = to_html(_star_series(SPRING_NODES + 200), tmp_path / "big.html", window=2)
    data = _embedded(page)
    assert data["layout_method"] == "coarse" and len(data["layout"]) == SPRING_NODES + 200
    page = to_html(_star_series(30), tmp_path / "small.html", window=2, layout="none")
    assert _embedded(page)["layout_method"] == "none"
    with pytest.raises(ValueError, match="layout must be one of"):
        to_html(_star_series(3), tmp_path / "x.html", layout="x" * 5000)


def test_the_budget_is_checked_before_the_layout(tmp_path, monkeypatch):
    series = as_series(_star_series(1000))  # made first: its own budget check passes
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100KB")
    monkeypatch.setattr(html, "_layout", lambda *a: pytest.fail("layout started"))
    with pytest.raises(BudgetError, match=r"the viewer of 1,000 nodes x 3 steps needs about"):
        to_html(series, tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()


def test_baygo_view_takes_a_layout_and_notes_a_coarse_one(tmp_path, capsys):
    from baygo_graph.cli import main

    m = SPRING_NODES + 50
    rows = [f"{i},{(i * 7 + 1) % m},{i % 3}" for i in range(m)]
    edges = tmp_path / "e.csv"
    edges.write_text("source,target,time\n" + "\n".join(rows) + "\n")
    assert main(["view", str(edges), "--out", str(tmp_path / "a.html")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("baygo: note: layout: 1,050 nodes are over 1,000") and "coarse" in err
    assert main(["view", str(edges), "--out", str(tmp_path / "b.html"), "--layout", "none"]) == 0
    assert capsys.readouterr().err == ""
    assert _embedded(tmp_path / "b.html")["layout_method"] == "none"
