"""Comparison (compare(tidy=False)): its reductions equal analysis.stats on the tidy frame."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.analysis import Comparison, final_mse, paired_difference, seed_bands, summarize
from baygo_graph.experiments import compare
from baygo_graph.models import LinearRegression

DATA = bg.synthetic_bodyfat(rng=11)
SIX = ("baygo", "complete", "posm", "negm", "nocol", "cen")
STUDY = {"seeds": 3, "steps": 8, "agents": 5, "model": LinearRegression(grid=11), "data": DATA,
         "n_jobs": 1, "progress": False, "influence_window": 3}  # fmt: skip


@pytest.fixture(scope="module")
def study():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare(SIX, **STUDY, tidy=False)
    return res, res.to_frame()


def random_comparison(rng, *, strategies=("a", "cen", "b"), seeds=4, steps=7, agents=5):
    shape = (len(strategies), seeds, steps, agents)
    mse = rng.gamma(2.0, size=shape)
    mse[:, :, -3:] = mse[:, :, -3:].round(1)  # ties and consensus near the end
    influence = rng.random(shape)
    influence[rng.random(shape) < 0.3] = np.nan
    informative = rng.integers(0, agents, size=shape[:2])
    return Comparison(
        strategies=tuple(strategies),
        mse=mse,
        influence=influence,
        informative=informative,
        attrs={"strategies": list(strategies)},
    )


def test_tidy_frame_is_the_default_and_unchanged(study):
    res, df = study
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = compare(SIX, **STUDY)
    pd.testing.assert_frame_equal(again, df)
    assert again.attrs == df.attrs == res.attrs
    assert res.shape == (6, 3, 8, 5)


def test_runs_are_the_same_in_worker_processes(study):
    res, _ = study
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        par = compare(
            ["baygo", "nocol"],
            seeds=3,
            steps=8,
            agents=5,
            model=LinearRegression(grid=11),
            data=DATA,
            n_jobs=2,
            progress=False,
            influence_window=3,
            tidy=False,
        )
    np.testing.assert_array_equal(par.mse, res.mse[[0, 4]])
    np.testing.assert_array_equal(par.influence, res.influence[[0, 4]])


@pytest.mark.parametrize("source", ["study", "random"])
def test_summary_final_and_paired_equal_the_tidy_versions(study, rng, source):
    res = study[0] if source == "study" else random_comparison(rng)
    df = res.to_frame()
    pd.testing.assert_frame_equal(res.final_mse(), final_mse(df), rtol=1e-12)
    for tol in (0.01, 0.3):
        pd.testing.assert_frame_equal(
            res.summarize(consensus_tol=tol, tolerance=0.1),
            summarize(df, consensus_tol=tol, tolerance=0.1),
            rtol=1e-12,
            check_dtype=False,
        )
    base = res.strategies[-1]
    for s in res.strategies[:-1]:
        pd.testing.assert_frame_equal(
            res.paired_difference(s, base, level=0.9),
            paired_difference(df, s, base, level=0.9),
            rtol=1e-10,
        )


@pytest.mark.parametrize("group", ["informative", "others", "all", "each"])
@pytest.mark.parametrize("value", ["mse", "influence"])
def test_seed_bands_equal_the_tidy_version(study, rng, group, value):
    for res in (study[0], random_comparison(rng)):
        df = res.to_frame()
        pick = list(res.strategies[::2])
        pd.testing.assert_frame_equal(
            res.seed_bands(value=value, group=group, strategies=pick),
            seed_bands(df, value=value, group=group, strategies=pick),
            rtol=1e-12,
            check_dtype=False,
        )


def test_bad_arguments_are_named(study):
    res, _ = study
    with pytest.raises(ValueError, match="group"):
        res.seed_bands(group="some")
    with pytest.raises(ValueError, match="value"):
        res.curves(value="entropy")
    with pytest.raises(ValueError, match="baseline 'x'"):
        res.paired_difference("baygo", "x")
    with pytest.raises(ValueError, match="level"):
        res.summarize(level=1.5)


def test_the_stats_functions_accept_a_comparison(study, rng):
    for res in (study[0], random_comparison(rng)):
        df = res.to_frame()
        pd.testing.assert_frame_equal(final_mse(res), final_mse(df), rtol=1e-12)
        pd.testing.assert_frame_equal(summarize(res), summarize(df), rtol=1e-12,
                                      check_dtype=False)  # fmt: skip
        a, b = res.strategies[0], res.strategies[-1]
        pd.testing.assert_frame_equal(
            paired_difference(res, a, b), paired_difference(df, a, b), rtol=1e-10
        )
        pd.testing.assert_frame_equal(
            seed_bands(res, group="others"), seed_bands(df, group="others"), rtol=1e-12,
            check_dtype=False,
        )  # fmt: skip


def test_write_csv_equals_the_tidy_frame_written_whole(study, tmp_path, rng):
    for k, res in enumerate((study[0], random_comparison(rng))):
        path = res.write_csv(tmp_path / f"r{k}.csv", data="here", synthetic=True)
        whole = res.to_frame().assign(data="here", synthetic=True)
        assert path.read_text() == whole.to_csv(index=False, float_format="%.6g")
        back = pd.read_csv(path)
        pd.testing.assert_frame_equal(final_mse(back), final_mse(whole), rtol=1e-5)


def test_agent_mse_matches_the_frame(study):
    res, df = study
    for s in ("baygo", "posm"):
        mean, inf = res.agent_mse(s)
        sub = df[df["strategy"] == s]
        expect = sub.pivot_table(index="step", columns="agent", values="mse", aggfunc="mean")
        np.testing.assert_allclose(mean, expect.to_numpy(), rtol=1e-12)
        assert inf == int(sub.loc[sub["informative"], "agent"].iloc[0])
        one, inf1 = res.agent_mse(s, seed=1)
        np.testing.assert_array_equal(
            one, sub[sub["seed"] == 1].pivot(index="step", columns="agent", values="mse")
        )
    with pytest.raises(ValueError, match="strategy 'x'"):
        res.agent_mse("x")
    with pytest.raises(ValueError, match="seed"):
        res.agent_mse("baygo", seed=3)


def test_read_csv_reloads_what_write_csv_wrote(study, tmp_path, rng):
    from baygo_graph.exceptions import DataError

    for k, res in enumerate((study[0], random_comparison(rng))):
        path = res.write_csv(tmp_path / f"r{k}.csv", data="somewhere", synthetic=False)
        back = Comparison.read_csv(path, chunksize=17)  # chunks cut runs anywhere
        assert back.strategies == res.strategies
        np.testing.assert_allclose(back.mse, res.mse, rtol=1e-5)  # %.6g
        np.testing.assert_allclose(back.influence, res.influence, rtol=1e-5)
        np.testing.assert_array_equal(back.informative, res.informative)
        assert back.attrs["data_source"] == "somewhere" and back.attrs["synthetic"] is False
        pd.testing.assert_frame_equal(back.final_mse(), res.final_mse(), rtol=1e-5)
    df = study[0].to_frame()
    df.loc[3, "step"] = -1
    df.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DataError, match="'step' holds '-1'"):
        Comparison.read_csv(tmp_path / "bad.csv")
    df.drop(columns=["mse"]).to_csv(tmp_path / "nomse.csv", index=False)
    with pytest.raises(DataError, match=r"no column\(s\) \['mse'\]"):
        Comparison.read_csv(tmp_path / "nomse.csv")


def test_read_csv_keeps_labels_exactly_and_skips_the_note(tmp_path, rng):
    labels = ("1", "01", "true", "True", "NA", "None", "", "a,b", 'q"uote', "line\nbreak")
    res = random_comparison(rng, strategies=labels, seeds=2, steps=3, agents=2)
    path = res.write_csv(tmp_path / "r.csv", data="NA", synthetic=True)
    path.write_text("# NOTE: SYNTHETIC DATA\n# second line\n" + path.read_text())
    back = Comparison.read_csv(path, chunksize=5)
    assert back.strategies == labels
    np.testing.assert_allclose(back.mse, res.mse, rtol=1e-5)
    assert back.attrs["data_source"] == "NA" and back.attrs["synthetic"] is True


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (
            lambda df: df.assign(seed=df["seed"].astype(object).where(df.index != 3, "1e19")),
            r"'seed' holds '1e\+?19', not an integer",
        ),
        (
            lambda df: df.assign(informative=df["informative"].map({True: "yes", False: "no"})),
            r"'informative' holds 'no', not True or False",
        ),
        (lambda df: df.assign(informative=True), "more than one informative agent"),
        (
            lambda df: df.assign(mse=df["mse"].astype(object).where(df.index != 5, "abc")),
            r"'mse' holds a non-number",
        ),
        (lambda df: df[df["seed"] != 1], "not complete: 20 of 60 rows are missing"),
        (lambda df: pd.concat([df, df.iloc[[4]]]), "row is repeated"),
        (lambda df: df.assign(synthetic="maybe"), r"'synthetic' holds 'maybe'"),
        (lambda df: df.iloc[:0], "has no rows"),
    ],
)
def test_read_csv_refuses_what_it_cannot_hold(tmp_path, rng, edit, match):
    from baygo_graph.exceptions import DataError

    res = random_comparison(rng, strategies=("a",), seeds=3, steps=4, agents=5)
    df = edit(res.to_frame().assign(synthetic=False))
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(DataError, match=match):
        Comparison.read_csv(tmp_path / "t.csv", chunksize=7)


def test_read_csv_bad_files_and_options(tmp_path):
    from baygo_graph.exceptions import BudgetError, DataError

    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(DataError, match="empty"):
        Comparison.read_csv(tmp_path / "empty.csv")
    with pytest.raises(TypeError, match="chunksize"):
        Comparison.read_csv(tmp_path / "empty.csv", chunksize=None)
    (tmp_path / "big.csv").write_text(
        "strategy,seed,step,agent,informative,mse\na,0,0,0,True,1.0\na,900000000000,0,0,False,1\n"
    )
    with pytest.raises(BudgetError):
        Comparison.read_csv(tmp_path / "big.csv")


def test_constructor_checks_shapes_labels_and_informative(rng):
    good = random_comparison(rng, strategies=("a", "b"), seeds=2, steps=3, agents=3)
    parts = {"strategies": good.strategies, "mse": good.mse, "influence": good.influence,
             "informative": good.informative}  # fmt: skip
    for change, err, match in [
        ({"strategies": ("a",)}, ValueError, "mse must have shape"),
        ({"strategies": ("a", "a")}, ValueError, "must not repeat"),
        ({"strategies": ("a", 1)}, TypeError, "str labels"),
        ({"mse": good.mse[..., :0, :]}, ValueError, "steps >= 1"),
        ({"influence": good.influence[:, :, :2]}, ValueError, "influence must have the shape"),
        ({"informative": np.full((2, 2), 3)}, ValueError, r"agents in \[-1, 3\)"),
        ({"informative": np.zeros((2, 2)) + 0.5}, ValueError, "informative must be ints"),
    ]:
        with pytest.raises(err, match=match):
            Comparison(**(parts | change))


def test_options_are_checked_as_on_the_tidy_path(rng):
    res = random_comparison(rng)
    df = res.to_frame()
    cases = [({"tolerance": np.nan}, ValueError), ({"consensus_tol": np.inf}, ValueError),
             ({"tolerance": "x"}, TypeError), ({"level": "x"}, TypeError),
             ({"level": 1.0}, ValueError)]  # fmt: skip
    for kwargs, err in cases:
        for source in (res, df):
            with pytest.raises(err):
                summarize(source, **kwargs)
    with pytest.raises(TypeError, match="seed"):
        res.agent_mse("a", seed=True)
    one = random_comparison(rng, agents=1)
    assert (
        seed_bands(one, group="others").empty and seed_bands(one.to_frame(), group="others").empty
    )


def test_read_csv_checks_cells_whatever_the_chunks(tmp_path, rng):
    import gzip

    from baygo_graph.exceptions import DataError

    res = random_comparison(rng, strategies=("a",), seeds=3, steps=4, agents=3)
    df = res.to_frame()
    df["mse"] = df["mse"].astype(object)
    df.loc[35, "mse"] = "True"  # alone in its last chunk of 1 row: no type guessing
    df.to_csv(tmp_path / "t.csv", index=False)
    for chunksize in (1, 7, 1000):
        with pytest.raises(DataError, match="'mse' holds a non-number"):
            Comparison.read_csv(tmp_path / "t.csv", chunksize=chunksize)
    text = res.to_frame().to_csv(index=False)
    (tmp_path / "dup.csv").write_text(text.replace("influence", "mse", 1))
    with pytest.raises(DataError, match="column 'mse' is repeated"):
        Comparison.read_csv(tmp_path / "dup.csv")
    packed = gzip.compress(text.encode())
    (tmp_path / "cut.csv.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(DataError, match="cannot be read"):
        Comparison.read_csv(tmp_path / "cut.csv.gz")


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 5), st.integers(1, 3), st.integers(1, 13)),
    seed=st.integers(0, 2**16),
)
def test_final_mse_is_each_runs_mean_bit_for_bit(shape, seed):
    """Vectorised over runs, the same numbers as one mean per run (no informative agent: -1)."""
    rng = np.random.default_rng(seed)
    n_s, n, t, m = shape
    mse = rng.lognormal(size=shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    informative = rng.integers(-1, m, size=(n_s, n))
    res = Comparison(strategies=tuple(f"s{k}" for k in range(n_s)), mse=mse,
                     influence=np.full(shape, np.nan), informative=informative)  # fmt: skip
    got = res.final_mse().to_numpy()
    for k, (s, r) in enumerate(np.ndindex(n_s, n)):
        last, i = mse[s, r, -1], informative[s, r]
        others = np.arange(m) != i
        want_inf = last[i] if i >= 0 else np.nan
        want_others = last[others].mean() if others.any() else np.nan
        np.testing.assert_array_equal(got[k], [want_inf, want_others])


@pytest.mark.parametrize("cell", ["inf", "-inf", "nan", "1.5", "-1"])
def test_a_seed_that_is_no_index_is_refused_without_a_warning(tmp_path, cell):
    """An infinite seed warned "invalid value encountered in remainder" before its
    refusal (found by test_fuzzed_comparison_csv)."""
    from baygo_graph.exceptions import DataError

    path = tmp_path / "t.csv"
    path.write_text("strategy,seed,step,agent,informative,mse\n"
                    f"a,{cell},0,0,True,1.0\n")  # fmt: skip
    import gc

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(DataError, match="column 'seed' holds"):
            Comparison.read_csv(path)
        gc.collect()  # a file left open by the refusal warns when collected
    assert not [str(w.message) for w in seen]
