"""experiments.compare(): the tidy table over strategies and seeds."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.analysis import centrality, final_mse, summarize
from baygo_graph.experiments import COLUMNS, compare
from baygo_graph.models import LinearRegression, model_settings

SMALL = {"agents": 3, "model": LinearRegression(grid=11), "progress": False}


@pytest.fixture(scope="module")
def data():
    return bg.synthetic_bodyfat()


def small(strategies=("baygo", "nocol", "cen"), *, data, seeds=2, steps=4, **kw):
    return compare(strategies, seeds=seeds, steps=steps, data=data, **{**SMALL, **kw})


# -- compare -----------------------------------------------------------------------
def test_columns_dtypes_order_and_attrs(data):
    df = small(data=data, seeds=2, steps=4, n_jobs=1, rng=7)
    assert tuple(df.columns) == COLUMNS
    assert len(df) == 3 * 2 * 4 * 3
    assert pd.api.types.is_string_dtype(df["strategy"])
    assert {c: df[c].dtype for c in COLUMNS[1:]} == {
        "seed": np.int64,
        "step": np.int64,
        "agent": np.int64,
        "informative": np.bool_,
        "mse": np.float64,
        "influence": np.float64,
    }
    assert df["strategy"].tolist() == ["baygo"] * 24 + ["nocol"] * 24 + ["cen"] * 24
    assert df["seed"].tolist()[:24] == [0] * 12 + [1] * 12
    assert df["step"].tolist()[:12] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert df["agent"].tolist()[:6] == [0, 1, 2, 0, 1, 2]
    assert (df["informative"] == (df["agent"] == 0)).all()
    assert df["influence"].isna().all()  # steps=4 < influence_window=10: no window
    assert df.attrs == {
        "synthetic": True,
        "data_source": data.source,
        "steps": 4,
        "agents": 3,
        "seeds": 2,
        "strategies": ["baygo", "nocol", "cen"],
        "entropy": "7",
        "influence_window": 10,
        "model": "linear",
        "loss": "mse",
        "model_options": model_settings(SMALL["model"]),
        "delta": 0.5,
        "batch": 1,
    }
    assert df.attrs["model_options"]["grid"] == [11, 11]  # as run (hostile18 W2)


def test_same_rng_same_frame_serial_and_parallel(data):
    serial = small(data=data, n_jobs=1, rng=3, influence_window=2)
    parallel = small(data=data, n_jobs=2, rng=3, influence_window=2)
    pd.testing.assert_frame_equal(serial, parallel, check_exact=True)
    assert serial.attrs == parallel.attrs


def test_different_rng_different_frame(data):
    a = small(data=data, n_jobs=1, rng=0)
    b = small(data=data, n_jobs=1, rng=1)
    assert not np.allclose(a["mse"], b["mse"])


def test_rows_are_the_paired_runs_of_simulate(data):
    steps, seeds = 5, 3
    df, runs = small(
        ("baygo", "complete", "cen"),
        data=data,
        seeds=seeds,
        steps=steps,
        n_jobs=1,
        rng=11,
        return_runs=True,
        influence_window=2,
    )
    assert set(runs) == {(s, r) for s in ("baygo", "complete", "cen") for r in range(seeds)}
    children = np.random.SeedSequence(11).spawn(seeds)
    for r in range(seeds):
        expected = bg.simulate(
            "baygo",
            agents=3,
            steps=steps,
            model=LinearRegression(grid=11),
            data=data,
            rng=children[r],
        )
        assert runs[("baygo", r)] == expected
        # every strategy of replicate r used the same child seed, hence the same split
        configs = [runs[(s, r)].config for s in ("baygo", "complete", "cen")]
        assert all(c["seed"] == {"entropy": "11", "spawn_key": [r]} for c in configs)
        assert all(c["split"] == configs[0]["split"] for c in configs)
    for (s, r), run in runs.items():
        rows = df[(df.strategy == s) & (df.seed == r)]
        np.testing.assert_array_equal(rows["mse"].to_numpy(), run.mse.ravel())
        if s == "cen":
            continue
        infl = centrality.influence_series(run, window=2, method="product", windows="sliding")
        infl = infl.values
        np.testing.assert_array_equal(rows["influence"].to_numpy(), np.ravel(infl))
    complete = df[df.strategy == "complete"]
    assert complete.loc[complete.step == 0, "influence"].isna().all()  # t < window - 1
    assert complete.loc[complete.step >= 1, "influence"].to_numpy() == pytest.approx(1 / 3)
    assert df.loc[df.strategy == "cen", "influence"].isna().all()


def test_return_runs_of_some_strategies_only(data):
    df, runs = small(("baygo", "nocol", "cen"), data=data, seeds=2, steps=3, n_jobs=2, rng=4,
                     return_runs=["cen"])  # fmt: skip
    assert sorted(runs) == [("cen", 0), ("cen", 1)]
    np.testing.assert_array_equal(runs[("cen", 1)].mse.ravel(),
                                  df[(df.strategy == "cen") & (df.seed == 1)]["mse"])  # fmt: skip
    assert small(("nocol",), data=data, n_jobs=1, return_runs=False).shape[0] > 0
    with pytest.raises(ValueError, match="return_runs names 'complete'"):
        small(("nocol",), data=data, n_jobs=1, return_runs=("complete",))
    with pytest.raises(TypeError, match="return_runs must be True, False or a collection"):
        small(("nocol",), data=data, n_jobs=1, return_runs="nocol")
    for bad in (b"nocol", [1, "nocol"], [["nocol"]]):
        with pytest.raises(TypeError, match="return_runs must"):
            small(("nocol",), data=data, n_jobs=1, return_runs=bad)
    assert isinstance(small(("nocol",), data=data, n_jobs=1, return_runs=np.False_), pd.DataFrame)


def test_made_runs_are_measured_not_run_again(data, monkeypatch):
    """Runs handed in (``made``) give the table and runs of running them here; only the
    other strategies run; a run of another seed, length or strategy is refused."""
    import importlib

    compare_module = importlib.import_module("baygo_graph.experiments.compare")

    kw = {"data": data, "seeds": 2, "steps": 4, "rng": 5, "n_jobs": 1, "tidy": False}
    want, runs = small(("baygo", "nocol"), return_runs=True, **kw)
    ran = []
    real = compare_module.simulate_seeds
    monkeypatch.setattr(compare_module, "simulate_seeds",
                        lambda s, **k: ran.append(s) or real(s, **k))  # fmt: skip
    made = [runs[("baygo", r)] for r in range(2)]
    got, got_runs = small(("baygo", "nocol"), return_runs=True, made={"baygo": made}, **kw)
    assert {getattr(s, "name", s) for s in ran} == {"nocol"}  # BayGo not run again
    np.testing.assert_array_equal(got.mse, want.mse)
    np.testing.assert_array_equal(got.influence, want.influence)
    np.testing.assert_array_equal(got.informative, want.informative)
    assert got.attrs == want.attrs and sorted(got_runs) == sorted(runs)
    assert got_runs[("baygo", 1)] is made[1]
    for bad, message in (
        ({"complete": made}, "made names 'complete'"),
        ({"baygo": made[:1]}, "must hold 2 runs"),
        ({"baygo": made[::-1]}, r"made\['baygo'\]\[0\] is not replicate 0's run"),
        ({"baygo": [r.head(3) for r in made]}, "of 4 steps"),
        ({"nocol": made}, "is a run of 'baygo', not 'nocol'"),
    ):
        with pytest.raises(ValueError, match=message):
            small(("baygo", "nocol"), made=bad, **kw)


def test_rng_kinds(data):
    seq = np.random.SeedSequence(5)
    a = small(("nocol",), data=data, n_jobs=1, rng=seq)
    assert seq.n_children_spawned == 0  # the caller's SeedSequence is not used up
    pd.testing.assert_frame_equal(a, small(("nocol",), data=data, n_jobs=1, rng=5))
    gen = np.random.default_rng(0)
    g1 = small(("nocol",), data=data, n_jobs=1, rng=gen)
    g2 = small(("nocol",), data=data, n_jobs=1, rng=gen)
    assert not g1["mse"].equals(g2["mse"])  # a Generator is drawn from, like any other
    assert small(("nocol",), data=data, n_jobs=1, rng=None).attrs["entropy"].isdigit()


def test_mapping_of_labels_to_strategies(data):
    ring_graph = nx.cycle_graph(3)
    frame_before = data.frame.copy()
    df = small({"ring": ring_graph, "alone": "nocol"}, data=data, n_jobs=1)
    assert sorted(ring_graph.edges(data=True)) == sorted(nx.cycle_graph(3).edges(data=True))
    pd.testing.assert_frame_equal(data.frame, frame_before)  # inputs not mutated
    assert df.attrs["strategies"] == ["ring", "alone"]
    ring = df[df.strategy == "ring"]
    # a ring of 3 with delta = 0.5 is doubly stochastic: influence 1/3 where defined
    assert ring["influence"].dropna().to_numpy() == pytest.approx(1 / 3)


def test_run_warnings_are_reemitted_once(data):
    with pytest.warns(bg.GridResolutionWarning, match=r"2 warnings in 2 runs") as record:
        compare(
            ["cen"],
            seeds=2,
            steps=30,
            agents=3,
            model=LinearRegression(grid=3),
            data=data,
            n_jobs=1,
            progress=False,
        )
    assert sum(issubclass(w.category, bg.GridResolutionWarning) for w in record) == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"strategies": ["baygo", "ring"]}, ValueError, "strategies must be names"),
        ({"strategies": ["nocol", "nocol"]}, ValueError, "must not repeat"),
        ({"strategies": []}, ValueError, "at least one"),
        ({"strategies": 3}, TypeError, "strategies must be"),
        ({"seeds": 0}, ValueError, "seeds must be an integer >= 1, got 0"),
        ({"steps": 2.5}, ValueError, "steps must be an integer >= 1, got 2.5"),
        ({"influence_window": 0}, ValueError, "influence_window must be"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be None or a non-zero integer, got 0"),
        ({"rng": "x"}, TypeError, "rng must be an int"),
        ({"rng": -1}, ValueError, "rng must be a non-negative integer"),
        ({"strategy": "baygo"}, TypeError, "unexpected keyword argument 'strategy'"),
        ({"colour": 1}, TypeError, "unexpected keyword argument 'colour'"),
        ({"data": 3}, TypeError, "data must be"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    kw = {"strategies": ["nocol"], "seeds": 1, "steps": 2, "n_jobs": 1, **SMALL, **kwargs}
    with pytest.raises(error, match=message):
        compare(kw.pop("strategies"), **kw)


def test_simulate_errors_pass_through(data):
    with pytest.raises(ValueError, match="delta must be in"):
        small(("nocol",), data=data, n_jobs=1, delta=2.0)


def test_summarize_of_compare_output(data):
    df = small(("baygo", "complete", "cen"), data=data, seeds=3, steps=6, n_jobs=1)
    s = summarize(df)
    assert s.index.tolist() == ["baygo", "complete", "cen"]
    fin = final_mse(df)
    assert s.loc["baygo", "final_mse_informative"] == pytest.approx(
        fin.loc["baygo", "informative"].mean()
    )
    assert (s["final_mse_informative_lo"] <= s["final_mse_informative"]).all()
    assert s.loc["cen", "steps_to_cen"] == 0 and s.loc["cen", "consensus_step"] == 0


def test_analysis_has_no_compare():
    """The deprecated alias analysis.compare is gone: analysis imports nothing above it."""
    import baygo_graph.analysis as analysis

    assert not hasattr(analysis, "compare")
