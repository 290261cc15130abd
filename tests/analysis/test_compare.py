"""compare(): the tidy table over strategies and seeds; summarize() and friends."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import baygo_graph as bg
from baygo_graph.analysis import centrality
from baygo_graph.analysis.compare import (
    COLUMNS,
    compare,
    final_mse,
    paired_difference,
    summarize,
)

SMALL = {"agents": 3, "grid": 11, "progress": False}


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
    }


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
        expected = bg.simulate("baygo", agents=3, steps=steps, grid=11, data=data, rng=children[r])
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
        np.testing.assert_array_equal(rows["influence"].to_numpy(), np.ravel(infl))
    complete = df[df.strategy == "complete"]
    assert complete.loc[complete.step == 0, "influence"].isna().all()  # t < window - 1
    assert complete.loc[complete.step >= 1, "influence"].to_numpy() == pytest.approx(1 / 3)
    assert df.loc[df.strategy == "cen", "influence"].isna().all()


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
    with pytest.warns(bg.GridResolutionWarning, match=r"warning\(s\) in 2 runs") as record:
        compare(["cen"], seeds=2, steps=30, agents=3, grid=3, data=data, n_jobs=1, progress=False)
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


# -- summaries on hand-made frames -------------------------------------------------
def frame(strategy, mse, *, informative=0, influence=None):
    """Tidy rows from an array mse[seed, step, agent]."""
    mse = np.asarray(mse, dtype=float)
    n, t, m = mse.shape
    seed, step, agent = (a.ravel() for a in np.indices(mse.shape))
    return pd.DataFrame(
        {
            "strategy": strategy,
            "seed": seed,
            "step": step,
            "agent": agent,
            "informative": agent == informative,
            "mse": mse.ravel(),
            "influence": np.nan if influence is None else np.ravel(influence),
        }
    )


def test_summarize_hand_computed():
    # strategy "a": 3 seeds, 2 steps, 3 agents (agent 0 informative)
    a = [
        [[9, 9, 9], [1.0, 2.0, 4.0]],
        [[9, 9, 9], [2.0, 3.0, 3.0]],
        [[9, 9, 9], [6.0, 1.0, 5.0]],
    ]
    cen = [[[4, 4, 4], [2.0, 2.0, 2.0]]] * 3
    infl = np.tile([[np.nan] * 3, [0.5, 0.25, 0.25]], (3, 1, 1))
    infl[2, 1, 0] = 0.2
    df = pd.concat([frame("a", a, influence=infl), frame("cen", cen)], ignore_index=True)
    before = df.copy()
    s = summarize(df)
    pd.testing.assert_frame_equal(df, before)  # input not mutated
    assert s.index.tolist() == ["a", "cen"] and s.index.name == "strategy"
    q = stats.t.ppf(0.975, 2)
    # informative finals 1, 2, 6: mean 3, sd sqrt(7)
    assert s.loc["a", "final_mse_informative"] == pytest.approx(3.0, abs=1e-12)
    half = q * np.sqrt(7.0) / np.sqrt(3.0)
    assert s.loc["a", "final_mse_informative_lo"] == pytest.approx(3.0 - half, rel=1e-12)
    assert s.loc["a", "final_mse_informative_hi"] == pytest.approx(3.0 + half, rel=1e-12)
    # others per seed: 3, 3, 3 -> mean 3, zero width
    assert s.loc[
        "a", ["final_mse_others", "final_mse_others_lo", "final_mse_others_hi"]
    ].tolist() == [
        3.0,
        3.0,
        3.0,
    ]
    lo, hi = stats.t.interval(0.95, 2, loc=3.0, scale=stats.sem([1.0, 2.0, 6.0]))
    assert (s.loc["a", "final_mse_informative_lo"], s.loc["a", "final_mse_informative_hi"]) == (
        pytest.approx(lo, rel=1e-12),
        pytest.approx(hi, rel=1e-12),
    )
    # mean curve of a: step 0 -> 9 (cen 4), step 1 -> 3 (cen 2): never within 5%
    assert np.isnan(s.loc["a", "steps_to_cen"]) and s.loc["cen", "steps_to_cen"] == 0
    # spreads at step 1: 3, 1, 5; at step 0: 0 -> consensus (tol 0.01) never at the end
    assert np.isnan(s.loc["a", "consensus_step"]) and s.loc["a", "consensus_reached"] == 0
    assert s.loc["cen", "consensus_step"] == 0 and s.loc["cen", "consensus_reached"] == 1
    assert s.loc["a", "influence_informative"] == pytest.approx((0.5 + 0.5 + 0.2) / 3)
    assert np.isnan(s.loc["cen", "influence_informative"])
    assert s["seeds"].tolist() == [3, 3]
    wide = summarize(df, consensus_tol=5.0, level=0.5)
    assert wide.loc["a", "consensus_step"] == 0 and wide.loc["a", "consensus_reached"] == 1
    q50 = stats.t.ppf(0.75, 2)
    assert wide.loc["a", "final_mse_informative_hi"] == pytest.approx(
        3.0 + q50 * np.sqrt(7.0 / 3.0), rel=1e-12
    )


def test_one_seed_has_no_interval():
    s = summarize(frame("a", [[[1.0, 2.0]]]))
    assert s.loc["a", "final_mse_informative"] == 1.0
    assert np.isnan(s.loc["a", "final_mse_informative_lo"])
    assert np.isnan(s.loc["a", "final_mse_informative_hi"])


def curve_frame(strategy, curve):
    """One seed, one agent, MSE = curve[step]."""
    return frame(strategy, np.asarray(curve, float)[None, :, None])


def test_steps_to_cen_is_the_first_step_it_stays_within():
    cen = curve_frame("cen", [10, 10, 10, 10, 10, 10])
    cases = {
        "enter_leave_reenter": ([20, 10.4, 12, 10.5, 10.2, 9], 3.0),  # 10.5 <= 10.5 counts
        "below_cen_counts": ([5, 5, 5, 5, 5, 5], 0.0),
        "leaves_at_the_end": ([20, 10, 10, 10, 10, 11], np.nan),
        "just_at_the_end": ([20, 20, 20, 20, 20, 10.49], 5.0),
    }
    df = pd.concat([curve_frame(k, c) for k, (c, _) in cases.items()] + [cen])
    s = summarize(df)
    for name, (_, expected) in cases.items():
        np.testing.assert_equal(s.loc[name, "steps_to_cen"], expected, err_msg=name)
    tight = summarize(df, tolerance=0.0)
    assert tight.loc["enter_leave_reenter", "steps_to_cen"] == 5  # only 9 <= 10
    assert tight.loc["below_cen_counts", "steps_to_cen"] == 0


def test_steps_to_cen_without_cen_is_nan():
    s = summarize(curve_frame("a", [1.0, 1.0]))
    assert np.isnan(s.loc["a", "steps_to_cen"])


def test_steps_to_cen_uses_agent_then_seed_average():
    # a: agents (1, 3) at step 0 -> mean 2, seeds 2 and 4 -> 3 at step 1 vs cen 3
    a = [[[9, 9], [1.0, 3.0]], [[9, 9], [3.0, 5.0]]]
    cen = [[[3, 3], [3.0, 3.0]], [[3, 3], [3.0, 3.0]]]
    s = summarize(pd.concat([frame("a", a), frame("cen", cen)]))
    assert s.loc["a", "steps_to_cen"] == 1


def test_consensus_step_median_over_seeds_with_never():
    # spreads per step: seed 0 -> reaches at 1; seed 1 -> at 3; seed 2 -> never
    spreads = [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.005], [0.0, 0.0, 0.0, 0.5]]
    mse = np.stack([np.zeros((3, 4)), np.asarray(spreads)], axis=-1)  # two agents
    s = summarize(frame("a", mse))
    assert s.loc["a", "consensus_step"] == 3  # median of 1, 3, inf
    assert s.loc["a", "consensus_reached"] == pytest.approx(2 / 3)
    two = summarize(frame("b", mse[[0, 2]]))
    assert np.isnan(two.loc["b", "consensus_step"])  # median of 1, inf is inf
    assert summarize(frame("c", mse[:2])).loc["c", "consensus_step"] == 2  # (1 + 3) / 2


def _brute_first_stable(ok):
    """First index from which every later entry of ok is True (NaN if none)."""
    for t in range(len(ok)):
        if all(ok[t:]):
            return float(t)
    return np.nan


def test_consensus_and_steps_to_cen_match_brute_force(rng):
    for _ in range(20):
        n, t, m = rng.integers(1, 4), rng.integers(1, 7), rng.integers(1, 4)
        a = np.round(rng.uniform(0, 0.03, size=(n, t, m)), 3)
        cen = np.round(rng.uniform(0, 0.03, size=(n, t, m)), 3)
        df = pd.concat([frame("a", a), frame("cen", cen)]).sample(frac=1, random_state=1)
        s = summarize(df)  # rows shuffled: the summary must not depend on order
        firsts = [_brute_first_stable(np.ptp(a[i], axis=1) <= 0.01) for i in range(n)]
        expected = np.median(np.where(np.isnan(firsts), np.inf, firsts))
        np.testing.assert_equal(
            s.loc["a", "consensus_step"], expected if np.isfinite(expected) else np.nan
        )
        curve, ref = a.mean(axis=2).mean(axis=0), cen.mean(axis=2).mean(axis=0)
        np.testing.assert_equal(
            s.loc["a", "steps_to_cen"], _brute_first_stable(curve <= 1.05 * ref)
        )
        fin = a[:, -1]
        assert s.loc["a", "final_mse_informative"] == pytest.approx(fin[:, 0].mean())
        if m > 1:
            assert s.loc["a", "final_mse_others"] == pytest.approx(fin[:, 1:].mean())
        else:
            assert np.isnan(s.loc["a", "final_mse_others"])


def test_final_mse_order_and_values():
    df = pd.concat(
        [frame("z", [[[5.0, 1.0, 3.0]], [[6.0, 2.0, 2.0]]]), frame("a", [[[7.0, 0.0, 1.0]]])]
    )
    fin = final_mse(df.iloc[::-1])
    assert fin.index.tolist() == [("a", 0), ("z", 0), ("z", 1)]  # order of appearance
    df.attrs["strategies"] = ["z", "a"]
    fin = final_mse(df)
    assert fin.index.tolist() == [("z", 0), ("z", 1), ("a", 0)]
    assert fin.to_numpy().tolist() == [[5.0, 2.0], [6.0, 2.0], [7.0, 0.5]]


def test_paired_difference_matches_scipy():
    a = np.array([[[1.0, 2.0]], [[3.0, 3.0]], [[2.0, 5.0]], [[4.0, 1.0]]])
    b = np.array([[[2.0, 2.5]], [[3.5, 3.0]], [[2.0, 6.0]], [[5.0, 3.0]]])
    df = pd.concat([frame("a", a), frame("b", b)])
    d = paired_difference(df, "a", "b")
    diff = a[:, 0, 0] - b[:, 0, 0]
    row = d.loc["final_mse_informative"]
    assert row["mean"] == pytest.approx(diff.mean())
    lo, hi = stats.t.interval(0.95, 3, loc=diff.mean(), scale=stats.sem(diff))
    assert (row["lo"], row["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert row["p_value"] == pytest.approx(stats.ttest_rel(a[:, 0, 0], b[:, 0, 0]).pvalue)
    assert row["n"] == 4 and row["wins"] == 0.75
    assert d.loc["final_mse_others", "mean"] == pytest.approx((-0.5 + 0 - 1 - 2) / 4)
    with pytest.raises(ValueError, match="baseline 'c' is not in df"):
        paired_difference(df, "a", "c")


@pytest.mark.parametrize(
    ("df", "kwargs", "error", "message"),
    [
        ([1, 2], {}, TypeError, "df must be a pandas DataFrame"),
        (pd.DataFrame({"strategy": ["a"]}), {}, ValueError, "lacks the column"),
        (frame("a", [[[1.0]]]).iloc[:0], {}, ValueError, "no rows"),
        (frame("a", [[[1.0]]]), {"level": 1.5}, ValueError, r"level must be in \(0, 1\)"),
        (frame("a", [[[1.0]]]), {"tolerance": -0.1}, ValueError, "tolerance must be in"),
        (frame("a", [[[1.0]]]), {"consensus_tol": "x"}, TypeError, "consensus_tol must be"),
    ],
)
def test_summarize_bad_arguments(df, kwargs, error, message):
    with pytest.raises(error, match=message):
        summarize(df, **kwargs)


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
