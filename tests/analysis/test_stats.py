"""analysis.stats: t-intervals, seed bands, summarize(), final_mse(), paired_difference()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from baygo_graph.analysis import (
    array_band,
    final_mse,
    paired_difference,
    seed_bands,
    summarize,
    t_interval,
)


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
    half = q * np.sqrt(7.0) / np.sqrt(3.0)  # the t half-width; the MSE's interval is log-scale
    assert s.loc["a", "final_mse_informative_lo"] == pytest.approx(3.0 / np.exp(half / 3.0))
    assert s.loc["a", "final_mse_informative_hi"] == pytest.approx(3.0 * np.exp(half / 3.0))
    assert s.loc["a", "final_mse_informative_lo"] > 0 > 3.0 - half  # where t goes below 0
    # others per seed: 3, 3, 3 -> mean 3, zero width
    assert s.loc[
        "a", ["final_mse_others", "final_mse_others_lo", "final_mse_others_hi"]
    ].tolist() == [
        3.0,
        3.0,
        3.0,
    ]
    # log scale: the t-interval of log(mean) by the delta method, sd(log) = sem / mean
    lo, hi = np.exp(stats.t.interval(0.95, 2, loc=np.log(3.0), scale=stats.sem([1, 2, 6]) / 3))
    assert (s.loc["a", "final_mse_informative_lo"], s.loc["a", "final_mse_informative_hi"]) == (
        pytest.approx(lo, rel=1e-12),
        pytest.approx(hi, rel=1e-12),
    )
    # mean curve of a: step 0 -> 9 (cen 4), step 1 -> 3 (cen 2): never within 5%
    assert s.loc["a", "steps_to_cen"] == np.inf and s.loc["cen", "steps_to_cen"] == 0  # never
    # spreads at step 1: 3, 1, 5; at step 0: 0 -> consensus (tol 0.01) never at the end
    assert s.loc["a", "consensus_step"] == np.inf and s.loc["a", "consensus_reached"] == 0
    assert s.loc["cen", "consensus_step"] == 0 and s.loc["cen", "consensus_reached"] == 1
    assert s.loc["a", "influence_informative"] == pytest.approx((0.5 + 0.5 + 0.2) / 3)
    assert np.isnan(s.loc["cen", "influence_informative"])
    assert s["seeds"].tolist() == [3, 3]
    wide = summarize(df, consensus_tol=5.0, level=0.5)
    assert wide.loc["a", "consensus_step"] == 0 and wide.loc["a", "consensus_reached"] == 1
    q50 = stats.t.ppf(0.75, 2)
    assert wide.loc["a", "final_mse_informative_hi"] == pytest.approx(
        3.0 * np.exp(q50 * np.sqrt(7.0 / 3.0) / 3.0), rel=1e-12
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
        "leaves_at_the_end": ([20, 10, 10, 10, 10, 11], np.inf),  # never (hostile18 W1)
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
    assert two.loc["b", "consensus_step"] == np.inf  # median of 1, inf is inf: never
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
        np.testing.assert_equal(s.loc["a", "consensus_step"], expected)  # inf: never
        curve, ref = a.mean(axis=2).mean(axis=0), cen.mean(axis=2).mean(axis=0)
        within = _brute_first_stable(curve <= 1.05 * ref)
        np.testing.assert_equal(s.loc["a", "steps_to_cen"], np.inf if np.isnan(within) else within)
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


# -- t-intervals and seed bands -------------------------------------------------
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_t_interval_matches_scipy_on_random_samples(rng, level):
    for n in (2, 3, 7, 30):
        v = rng.normal(rng.uniform(-5, 5), rng.uniform(0.1, 3), size=n)
        mean, lo, hi = t_interval(v, level=level)
        ref = stats.t.interval(level, n - 1, loc=v.mean(), scale=stats.sem(v))
        assert float(mean) == pytest.approx(v.mean(), rel=1e-12)
        np.testing.assert_allclose([lo, hi], ref, rtol=1e-10)


def test_t_interval_over_an_axis_skips_nan_and_needs_two_values(rng):
    v = rng.normal(size=(5, 4))
    v[:4, 3] = np.nan  # one value left in the last column
    v[0, 1] = np.nan
    mean, lo, hi = t_interval(v, level=0.9, axis=0)
    col = v[1:, 1]
    ref = stats.t.interval(0.9, 3, loc=col.mean(), scale=stats.sem(col))
    np.testing.assert_allclose([lo[1], hi[1]], ref, rtol=1e-10)
    assert mean[3] == v[4, 3] and np.isnan(lo[3]) and np.isnan(hi[3])
    m2, lo2, hi2 = t_interval(v.T, level=0.9, axis=1)
    np.testing.assert_array_equal(np.c_[m2, lo2, hi2], np.c_[mean, lo, hi])
    with pytest.raises(ValueError, match="level must be in"):
        t_interval(v, level=1.0)


def test_seed_band_is_the_t_interval_of_per_seed_means(rng):
    n, t, m = 4, 3, 3
    mse = rng.gamma(2.0, size=(n, t, m))
    df = frame("a", mse, informative=1)
    band = seed_bands(df, group="others", level=0.9, method="t")
    others = mse[:, :, [0, 2]].mean(axis=2)  # (seeds, steps)
    mean, lo, hi = t_interval(others, level=0.9)
    np.testing.assert_allclose(band["mean"], mean, rtol=1e-12)
    np.testing.assert_allclose(band["lo"], lo, rtol=1e-12)
    np.testing.assert_allclose(band["hi"], hi, rtol=1e-12)
    assert band["n"].tolist() == [n] * t
    m_, lo_, hi_ = array_band(others, level=0.9)
    np.testing.assert_allclose(np.c_[m_, lo_, hi_], np.c_[mean, lo, hi], rtol=1e-12)
    with pytest.raises(ValueError, match="2-D"):
        array_band(others[0])


def test_summary_interval_is_the_log_scale_t_interval(rng):
    mse = rng.gamma(2.0, size=(5, 2, 3))
    s = summarize(frame("a", mse), level=0.9)
    mean, lo, hi = t_interval(mse[:, -1, 0], level=0.9)
    lo, hi = mean * np.exp((lo - mean) / mean), mean * np.exp((hi - mean) / mean)
    assert lo > 0
    row = s.loc["a"]
    np.testing.assert_allclose(
        [row["final_mse_informative"], row["final_mse_informative_lo"],
         row["final_mse_informative_hi"]], [mean, lo, hi], rtol=1e-12,
    )  # fmt: skip


def test_seed_band_of_the_mse_is_log_scale_and_positive(rng):
    mse = rng.gamma(0.5, size=(3, 4, 3))  # small, skewed: the t-band would cross 0
    df = frame("a", mse, informative=1)
    band = seed_bands(df, group="others", level=0.95)
    others = mse[:, :, [0, 2]].mean(axis=2)
    mean, lo, hi = t_interval(others, level=0.95)
    np.testing.assert_allclose(band["lo"], mean * np.exp((lo - mean) / mean), rtol=1e-12)
    np.testing.assert_allclose(band["hi"], mean * np.exp((hi - mean) / mean), rtol=1e-12)
    assert (band["lo"] > 0).all()


def test_bootstrap_band_of_a_share_stays_in_its_range(rng):
    share = (rng.random((6, 5)) < 0.15).astype(float)  # mostly 0: a t-band leaves [0, 1]
    share[:, 0] = 0.0
    mean, lo, hi = array_band(share, method="bootstrap")
    np.testing.assert_allclose(mean, share.mean(axis=0))
    assert ((lo >= share.min(axis=0)) & (hi <= share.max(axis=0))).all()
    assert lo[0] == hi[0] == 0.0
    # percentile bootstrap by brute force: the same resampling counts
    counts = np.random.default_rng(0).multinomial(6, np.full(6, 1 / 6), size=2000)
    means = counts @ share / 6
    np.testing.assert_allclose(lo, np.quantile(means, 0.025, axis=0))
    np.testing.assert_allclose(hi, np.quantile(means, 0.975, axis=0))
    _, t_lo, _ = array_band(share, method="t")
    assert (t_lo < 0).any()


def test_t_half_width_is_scipy_stats_t_ppf_bit_for_bit():
    """half_width's quantile (scipy.special.stdtrit, no scipy.stats import) is
    scipy.stats.t.ppf's, NaN below two values."""
    from scipy import stats

    from baygo_graph.analysis._reduce import half_width

    n = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 20.0, 80.0, 1000.0])
    sd = np.linspace(0.1, 2.0, len(n))
    for level in (0.5, 0.9, 0.95, 0.99, 0.999):
        with np.errstate(divide="ignore", invalid="ignore"):
            ref = stats.t.ppf(0.5 + level / 2, np.where(n > 1, n - 1, np.nan)) * sd / np.sqrt(n)
        got = half_width(sd, n, level)
        assert np.array_equal(got, ref, equal_nan=True), level
        assert np.isnan(got[:2]).all() and np.isfinite(got[2:]).all()
