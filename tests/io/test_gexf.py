"""Dynamic GEXF export, read back with networkx.read_gexf and checked step by step."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import influence_series
from baygo_graph.export import write_series
from baygo_graph.io.gexf import edge_spells, write_gexf
from baygo_graph.models import LinearRegression


def step_edges_from_spells(g: nx.DiGraph, t: int) -> dict:
    """{(u, v): weight} of the edges whose spells hold step t."""
    return {
        (u, v): d["weight"]
        for u, v, d in g.edges(data=True)
        if any(a <= t <= b for a, b in d["spells"])
    }


def reference_edges(run: Run, t: int) -> dict:
    return {(u, v): w for u, v, w in run.graph(t).edges(data="weight") if u != v}


def influence_from_gexf(g: nx.DiGraph, steps: int) -> np.ndarray:
    out = np.full((steps, g.number_of_nodes()), np.nan)
    for i, d in g.nodes(data=True):
        for value, a, b in d.get("influence", []):
            assert np.isnan(out[a : b + 1, i]).all()  # attvalue intervals do not overlap
            out[a : b + 1, i] = value
    return out


def check_round_trip(run: Run, path: Path, window: int) -> nx.DiGraph:
    write_series(run, path, window=window)
    g = nx.read_gexf(path, node_type=int)
    assert g.graph["mode"] == "dynamic" and g.is_directed()
    assert sorted(g.nodes) == list(range(run.n_agents))
    for t in range(run.n_steps):
        got, ref = step_edges_from_spells(g, t), reference_edges(run, t)
        assert got.keys() == ref.keys(), t
        assert all(np.isclose(got[e], ref[e]) for e in ref)
    for i in range(run.n_agents):
        assert g.nodes[i]["informative"] is (i == run.informative)
        assert g.nodes[i]["label"] == f"agent {i}"
    for _, _, d in g.edges(data=True):  # spells are compact: disjoint, not touching
        spells = sorted(d["spells"])
        assert all(b1 + 1 < a2 for (_, b1), (a2, _) in zip(spells[:-1], spells[1:], strict=True))
    ref = influence_series(run, window=min(window, run.n_steps), windows="sliding").values
    np.testing.assert_allclose(influence_from_gexf(g, run.n_steps), ref, rtol=1e-5, atol=1e-12)
    return g


@pytest.mark.parametrize("strategy", ["baygo", "complete", "posm", "nocol"])
def test_simulated_runs_round_trip(strategy, tmp_path):
    run = simulate(
        strategy,
        agents=5,
        steps=8,
        model=LinearRegression(grid=11),
        rng=0,
        data=synthetic_bodyfat(),
    )
    g = check_round_trip(run, tmp_path / "run.gexf", window=3)
    if run.kind == "fixed":
        assert all(d["spells"] == [(0, 7)] for *_, d in g.edges(data=True))


def test_from_choices_and_string_ids(tmp_path):
    choices = np.array([[1, 0, -1, 3], [1, 0, 3, 3], [2, 0, 3, 2], [1, -1, 3, 2]])
    run = Run.from_choices(choices, delta=0.3, informative=3)
    g = check_round_trip(run, tmp_path / "c.gexf", window=2)
    assert g.edges[0, 1]["spells"] == [(0, 2)] and g.edges[1, 0]["spells"] == [(0, 1), (3, 3)]
    assert all(np.isclose(d["weight"], 0.7) for *_, d in g.edges(data=True))
    plain = nx.read_gexf(tmp_path / "c.gexf")  # without node_type: GEXF ids are strings
    assert sorted(plain.nodes) == ["0", "1", "2", "3"] and plain.nodes["3"]["informative"]


@settings(max_examples=25, deadline=None)
@given(
    arrays(np.int64, st.tuples(st.integers(1, 9), st.integers(2, 5)), elements=st.integers(-1, 4)),
    st.integers(1, 4),
)
def test_spells_reproduce_random_choices(choices, window):
    choices = np.minimum(choices, choices.shape[1] - 1)
    run = Run.from_choices(choices)
    spells = edge_spells(run.series)
    for t in range(run.n_steps):
        live = {(s, d) for s, d, _, sp in spells if any(a <= t <= b for a, b in sp)}
        assert live == set(reference_edges(run, t))
    with tempfile.TemporaryDirectory() as tmp:
        check_round_trip(run, Path(tmp) / "r.gexf", window=window)


def test_escaping_and_errors(tmp_path):
    run = simulate(
        "baygo", agents=3, steps=4, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    hostile = dataclasses.replace(run, strategy='</description><x a="&">')
    path = write_gexf(hostile.series, tmp_path / "h.gexf", run=hostile)
    assert nx.read_gexf(path, node_type=int).number_of_nodes() == 3
    assert "SYNTHETIC DATA" in path.read_text() and '<x a="&">' not in path.read_text()
    cen = simulate(
        "cen", agents=3, steps=3, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    with pytest.raises(ValueError, match="centralised"):
        write_series(cen, tmp_path / "cen.gexf")
    with pytest.raises(ValueError, match="window"):
        write_series(run, tmp_path / "x.gexf", window=0)
    with pytest.raises(TypeError, match="series must be a GraphSeries"):
        write_gexf(run, tmp_path / "x.gexf")
    with pytest.raises(TypeError, match="graphs must be a Run"):
        write_series(42, tmp_path / "x.gexf")
    assert not (tmp_path / "cen.gexf").exists() and not (tmp_path / "x.gexf").exists()
