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


# --- the digest and the self-weight runs from one pass over the rows (hostile round 13, R6)


def per_step_digest_and_runs(series):
    """Brute force: the digest and the self-weight runs from ``series.weights(t)`` built at
    every step (what write_gexf and every series file's digest did before R6)."""
    import hashlib

    import scipy.sparse as sp

    h = hashlib.sha256()
    marks = (tuple(series.nodes), series.n_steps, series.informative, bool(series.synthetic))
    h.update(repr(marks).encode())
    diag = []
    for t in range(series.n_steps):
        w = sp.csr_array(series.weights(t), dtype=np.float64)
        w.eliminate_zeros()
        w.sum_duplicates()
        w.sort_indices()
        for part in (w.indptr.astype(np.int64), w.indices.astype(np.int64), w.data):
            h.update(part.tobytes())
        diag.append(w.diagonal())
    runs = []  # per node, maximal runs of one positive value
    for k in range(series.n_agents):
        t = 0
        while t < series.n_steps:
            v, end = diag[t][k], t
            while end + 1 < series.n_steps and diag[end + 1][k] == v:
                end += 1
            if v > 0:
                runs.append((k, float(v), t, end))
            t = end + 1
    return h.hexdigest(), runs


def _random_series(kind, steps, m, rows, seed):
    import scipy.sparse as sp

    from baygo_graph.series import ChoiceSeries, EdgeListSeries, FixedSeries, series_from_edges

    rng = np.random.default_rng(seed)
    if kind == "choices":
        delta = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
        return ChoiceSeries.from_choices(rng.integers(-1, m, (steps, m)), delta=delta)
    if kind == "fixed":
        w = sp.random(m, m, density=0.5, random_state=seed, format="csr") + sp.eye(m)
        return FixedSeries(n_steps=steps, n_agents=m, fixed=sp.csr_array(w))
    t = rng.integers(0, steps, rows)  # most steps empty when steps >> rows
    r, c = rng.integers(0, m, rows), rng.integers(0, m, rows)
    w = rng.choice([0.0, 0.25, 1.0, 1 / 3, 2.0], rows)
    if kind == "raw":  # entries as a file of an earlier version stored them (zeros, repeats)
        order = np.lexsort((c, r, t))
        return EdgeListSeries(n_steps=steps, n_agents=m, entries=(t[order], r[order],
                              c[order], w[order]))  # fmt: skip
    rule = {"edges": None, "equal": "equal", "half": 0.5}[kind]
    return series_from_edges(t, r, c, w, n_steps=steps, nodes=range(m), self_weight=rule)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["edges", "equal", "half", "raw", "choices", "fixed"]),
    steps=st.integers(1, 60),
    m=st.integers(1, 5),
    rows=st.integers(0, 12),
    seed=st.integers(0, 2**16),
    block=st.sampled_from([1, 5, 13, 1 << 21]),
)
def test_digest_and_self_weights_equal_the_per_step_path(kind, steps, m, rows, seed, block):
    """The digest stored in files must not change: the one-pass digest (blocks of any size,
    empty steps as the base's bytes) and self-weight runs equal the per-step brute force."""
    from baygo_graph.io import gexf

    series = _random_series(kind, steps, m, rows, seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gexf, "_DIGEST_WORDS", block)
        digest = gexf.series_digest(series)
    runs = list(zip(*(a.tolist() for a in gexf._self_weight_runs(series)), strict=True))
    assert (digest, runs) == per_step_digest_and_runs(series)


def test_digest_of_a_known_series_is_unchanged():
    """A digest written into files before the one-pass path (the value main fc9a124 gave)."""
    from baygo_graph.io.gexf import series_digest
    from baygo_graph.series import series_from_edges

    s = series_from_edges([0, 4, 4], [1, 0, 2], [0, 1, 1], [1.0, 2.0, 1.0], n_steps=9,
                          nodes=("a", "b", "c"), self_weight="equal")  # fmt: skip
    assert series_digest(s) == "e025763c2b73b5067d02d31d9eb1ae4b139a1ea73786d371d928e1509aace3e5"


def test_a_long_sparse_span_builds_no_matrix_per_step(tmp_path, monkeypatch):
    """Two contacts 10^6 steps apart (R6: write_series to .gexf took 311 s, a scipy matrix
    per step, twice): the runs, the digest and the whole file come from the rows alone, and
    the file reads back with its digest checked."""
    from baygo_graph import read_series
    from baygo_graph.io import gexf
    from baygo_graph.series import EdgeListSeries, series_from_edges

    s = series_from_edges([0, 999_999], [1, 0], [0, 1], [1.0, 1.0], n_steps=1_000_000,
                          nodes=("a", "b"), self_weight="equal")  # fmt: skip
    digest = gexf.series_digest(s)

    def per_step(*args):
        raise AssertionError("a matrix built for one step")

    with monkeypatch.context() as patch:
        patch.setattr(EdgeListSeries, "weight_sum", per_step)
        runs = [a.tolist() for a in gexf._self_weight_runs(s)]
        assert gexf.series_digest(s) == digest
        path = write_series(s, tmp_path / "span.gexf", window=1)
    assert runs == [[0, 0, 1, 1], [1.0, 0.5, 0.5, 1.0], [0, 999_999, 0, 1],
                    [999_998, 999_999, 0, 999_999]]  # fmt: skip
    back = read_series(path)
    assert back.n_steps == 1_000_000 and gexf.series_digest(back) == digest


def _lifetime(rng, steps):
    """A node's or edge's timing as GEXF writes it, and the steps it holds (None: all)."""
    kind = rng.integers(0, 3)
    if kind == 0:
        return "", None
    if kind == 1:
        a, b = sorted(int(x) for x in rng.integers(0, steps, 2))
        return f' start="{a}" end="{b}"', set(range(a, b + 1))
    spells, held = [], set()
    for _ in range(int(rng.integers(1, 3))):
        a, b = sorted(int(x) for x in rng.integers(0, steps, 2))
        spells.append(f'<spell start="{a}" end="{b}"/>')
        held |= set(range(a, b + 1))
    return "<spells>" + "".join(spells) + "</spells>", held


@pytest.mark.parametrize("seed", range(25))
def test_an_edge_holds_only_while_both_its_nodes_exist(tmp_path, seed):
    """hostile22 Q13: node lifetimes (start/end, spells) were ignored: an edge was read at
    steps where one of its nodes does not exist, and a file timed on its nodes only
    collapsed to one step. Brute force: the steps an edge holds are its own (all, when
    untimed) and both nodes' (all, when untimed), over the file's first..last time."""
    from baygo_graph.inputs import as_series

    rng = np.random.default_rng(seed)
    steps, names = int(rng.integers(2, 9)), ["a", "b", "c", "d"]
    nodes, life = [], {}
    for n in names:
        text, held = _lifetime(rng, steps)
        life[n] = held
        nodes.append(f'<node id="{n}"{text}/>' if not text.startswith("<") else
                     f'<node id="{n}">{text}</node>')  # fmt: skip
    edges, want = [], []
    for k in range(int(rng.integers(1, 6))):
        u, v = rng.choice(names, 2, replace=False)
        text, held = _lifetime(rng, steps)
        edges.append(f'<edge id="{k}" source="{u}" target="{v}"{text}/>' if not text.startswith("<")
                     else f'<edge id="{k}" source="{u}" target="{v}">{text}</edge>')  # fmt: skip
        want.append((u, v, held))
    times = [t for h in [*life.values(), *(h for *_, h in want)] if h for t in h]
    first, last = (min(times), max(times)) if times else (0, 0)
    path = tmp_path / "n.gexf"
    path.write_text(
        '<?xml version="1.0"?><gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">'
        '<graph defaultedgetype="directed" mode="dynamic" timeformat="long"><nodes>'
        + "".join(nodes) + "</nodes><edges>" + "".join(edges) + "</edges></graph></gexf>"
    )  # fmt: skip
    s = as_series(path, self_weight=0)
    assert s.n_steps == last - first + 1
    every = set(range(first, last + 1))
    for t in range(s.n_steps):
        pairs = zip(*s.weights(t).nonzero(), strict=True)  # a node alone keeps itself
        got = {(s.nodes[j], s.nodes[i]) for i, j in pairs if i != j}
        ref = {(u, v) for u, v, h in want
               if first + t in (h or every) & (life[u] or every) & (life[v] or every)}  # fmt: skip
        assert got == ref, (t, got, ref)
