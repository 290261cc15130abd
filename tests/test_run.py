"""The run record: graphs in DESIGN.md's convention, storage and export."""

from __future__ import annotations

import json
import zipfile

import networkx as nx
import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.models import LinearRegression
from baygo_graph.run import RUN_FILE
from baygo_graph.strategies import BayGo

DATA = bg.synthetic_bodyfat()


@pytest.fixture(scope="module")
def runs():
    kw = {
        "agents": 5,
        "steps": 12,
        "model": LinearRegression(grid=15),
        "rng": 4,
        "data": DATA,
        "keep_posteriors": [0, -1],
    }
    return {s: bg.simulate(s, **kw) for s in ("baygo", "negm", "nocol", "cen")}


def test_graph_convention(runs):
    run = runs["baygo"]
    t = 3
    g = run.graph(t)
    w = run.weights(t).toarray()
    a = nx.to_numpy_array(g, nodelist=range(5))
    np.testing.assert_array_equal(a, w.T)  # A[j, i] = w_ij
    for i, s in enumerate(run.choices[t]):
        assert g.has_edge(int(s), i) and g[int(s)][i]["weight"] == 1 - run.delta
        assert g[i][i]["weight"] == run.delta
    assert g.nodes[run.informative]["informative"]
    assert g.graph["step"] == t
    assert [h.graph["step"] for h in run.graphs(2, 5)] == [2, 3, 4]


def test_step_edges_match_graphs(runs):
    for name in ("baygo", "negm"):
        run = runs[name]
        step, src, dst, w = run.step_edges(2, 6)
        for t in range(2, 6):
            g = run.graph(t)
            here = step == t
            expected = sorted((u, v, d["weight"]) for u, v, d in g.edges(data=True) if u != v)
            got = sorted(zip(src[here].tolist(), dst[here].tolist(), w[here].tolist(), strict=True))
            assert got == expected


def test_chosen_counts_and_summary(runs):
    run = runs["baygo"]
    assert run.chosen_counts().sum() == 12 * 5
    assert run.chosen_counts().tolist() == np.bincount(run.choices.ravel(), minlength=5).tolist()
    s = run.summary()
    assert s["final_mse_informative"] == run.mse[-1, 0]
    assert s["final_mse_others_mean"] == pytest.approx(run.mse[-1, 1:].mean())
    assert json.loads(json.dumps(s)) == s


def test_cen_has_no_graph(runs):
    with pytest.raises(ValueError, match="no communication graph"):
        runs["cen"].graph(0)
    assert np.ptp(runs["cen"].mse, axis=1).max() == 0


def test_step_index_checks(runs):
    with pytest.raises(IndexError, match="out of range"):
        runs["baygo"].graph(12)
    with pytest.raises(TypeError, match="step must be an int"):
        runs["baygo"].graph(1.5)
    assert runs["baygo"].graph(-1).graph["step"] == 11


@pytest.mark.parametrize("name", ["baygo", "negm", "nocol", "cen"])
def test_save_load_round_trip(runs, name, tmp_path):
    run = runs[name]
    path = run.save(tmp_path / name)
    assert path == tmp_path / name / RUN_FILE
    back = bg.Run.load(tmp_path / name)
    assert back == run
    assert back.posteriors.keys() == {0, 11}
    if run.kind != "cen":
        assert list(back.graph(5).edges(data=True)) == list(run.graph(5).edges(data=True))
    assert list(tmp_path.joinpath(name).iterdir()) == [path]  # no temporary file left


def test_load_rejects_foreign_and_corrupt_files(tmp_path, runs):
    with pytest.raises(bg.RunFormatError, match="no saved run"):
        bg.Run.load(tmp_path / "nothing")
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, meta=np.array(json.dumps({"format": "other"})))
    with pytest.raises(bg.RunFormatError, match="not a baygo run"):
        bg.Run.load(foreign)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(bg.RunFormatError, match="not a readable .npz"):
        bg.Run.load(garbage)
    truncated = tmp_path / "trunc.npz"
    good = runs["baygo"].save(tmp_path / "good.npz").read_bytes()
    truncated.write_bytes(good[: len(good) // 2])
    with pytest.raises(bg.RunFormatError):
        bg.Run.load(truncated)
    missing = tmp_path / "missing.npz"
    with zipfile.ZipFile(tmp_path / "good.npz") as src, zipfile.ZipFile(missing, "w") as dst:
        for item in src.namelist():
            if item != "mse.npy":
                dst.writestr(item, src.read(item))
    with pytest.raises(bg.RunFormatError, match="corrupt"):
        bg.Run.load(missing)


@pytest.mark.parametrize("suffix", [".json", ".graphml"])
def test_series_export_round_trip(runs, suffix, tmp_path):
    run = runs["baygo"]
    path = bg.write_series(run, tmp_path / f"series{suffix}")
    back = bg.read_series(path)
    assert back.n_steps == run.n_steps and back.nodes == tuple(range(5))
    for t, g in enumerate(back.graphs()):
        ref = run.graph(t)
        assert {(u, v): d["weight"] for u, v, d in g.edges(data=True)} == {
            (u, v): d["weight"] for u, v, d in ref.edges(data=True)
        }


def test_series_errors(tmp_path):
    with pytest.raises(ValueError, match=r"\.json, \.graphml or \.gexf"):
        bg.write_series([nx.DiGraph()], tmp_path / "s.txt")
    bad = tmp_path / "s.json"
    bad.write_text('{"format": "else"}')
    with pytest.raises(bg.RunFormatError, match="not a baygo graph series"):
        bg.read_series(bad)


def test_to_frame(runs):
    df = runs["negm"].to_frame()
    assert len(df) == 12 * 5
    assert df.loc[df.informative, "agent"].unique().tolist() == [0]
    np.testing.assert_array_equal(df.mse.to_numpy().reshape(12, 5), runs["negm"].mse)


def test_save_refuses_to_overwrite_unless_asked(tmp_path):
    run = bg.Run.from_choices([[1, 0]])
    first = run.save(tmp_path / "r")
    before = first.read_bytes()
    with pytest.raises(FileExistsError, match="overwrite=True"):
        bg.Run.from_choices([[-1, 0]]).save(tmp_path / "r")
    assert first.read_bytes() == before  # nothing lost
    bg.Run.from_choices([[-1, 0]]).save(tmp_path / "r", overwrite=True)
    assert bg.Run.load(tmp_path / "r").choices.tolist() == [[-1, 0]]


def test_monitor_records_round_trip(tmp_path):
    from baygo_graph.monitors import TheoremMonitor

    run = bg.simulate(
        "baygo",
        agents=3,
        steps=4,
        model=LinearRegression(grid=11),
        rng=0,
        data=bg.synthetic_bodyfat(),
        monitors=[TheoremMonitor()],
    )
    back = bg.Run.load(run.save(tmp_path / "m"))
    assert back == run
    np.testing.assert_array_equal(back.records["theorem_lhs"], run.records["theorem_lhs"])


@pytest.mark.parametrize("strategy", ["baygo", "complete", "cen", "gossip"])
def test_a_shorter_run_is_the_head_of_a_longer_one(strategy):
    kw = {"agents": 5, "model": LinearRegression(grid=21), "rng": 3, "data": bg.synthetic_bodyfat()}
    if strategy == "gossip":
        strategy = BayGo(physical="gossip")
    long, short = bg.simulate(strategy, steps=20, **kw), bg.simulate(strategy, steps=12, **kw)
    head = long.head(12)
    assert head == short
    with pytest.raises(ValueError, match="steps must be an integer in"):
        long.head(21)
