"""MSE figures: lines, bands and markers checked on the artists (Agg backend)."""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest

from baygo_graph.figures import (
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    SYNTHETIC_GID,
    plot_agents_mse,
    plot_mse,
    plot_paired_difference,
    plot_vs_baselines,
    plot_vs_complete,
    plot_vs_stars,
)
from baygo_graph.figures._bands import array_band, seed_bands


def _by_gid(ax, gid):
    found = [a for a in [*ax.lines, *ax.collections] if a.get_gid() == gid]
    assert len(found) == 1, f"{gid}: {len(found)} artists"
    return found[0]


def _band_y(collection, x):
    """Lower and upper y of a fill_between band at each x (from its vertices)."""
    verts = np.concatenate([p.vertices for p in collection.get_paths()])
    lo = np.array([verts[np.isclose(verts[:, 0], xi), 1].min() for xi in x])
    hi = np.array([verts[np.isclose(verts[:, 0], xi), 1].max() for xi in x])
    return lo, hi


def test_lines_are_seed_means_with_log_scale_t_bands(table, t_reference):
    before = table.copy()
    ax = plot_mse(table, strategies=["baygo", "complete"])
    assert len(ax.get_lines()) == 4
    for s in ("baygo", "complete"):
        sub = table[table.strategy == s]
        inf = sub[sub.informative].pivot(index="step", columns="seed", values="mse")
        oth = sub[~sub.informative].groupby(["step", "seed"])["mse"].mean().unstack()
        for group, ref in (("informative", inf), ("others", oth)):
            line = _by_gid(ax, f"mse:{s}:{group}")
            np.testing.assert_array_equal(line.get_xdata(), ref.index.to_numpy())
            expected = np.array([t_reference(ref.loc[t]) for t in ref.index])
            np.testing.assert_allclose(line.get_ydata(), expected[:, 0])
            lo, hi = _band_y(_by_gid(ax, f"band:{s}:{group}"), ref.index.to_numpy())
            # an MSE: the t-interval on the log scale (delta method), never below 0
            mean, half = expected[:, 0], expected[:, 2] - expected[:, 0]
            np.testing.assert_allclose(lo, mean * np.exp(-half / mean))
            np.testing.assert_allclose(hi, mean * np.exp(half / mean))
            assert (lo > 0).all()
    assert before.equals(table)


def test_informative_curves_have_the_star_marker(table):
    ax = plot_mse(table, strategies=["baygo", "negm"])
    for line in ax.get_lines():
        if line.get_gid().endswith(":informative"):
            assert line.get_marker() == INFORMATIVE_MARKER
            assert line.get_linestyle() == "-"
        else:
            assert line.get_marker() in ("", "None")
            assert line.get_linestyle() == "--"


@pytest.mark.parametrize(
    ("plot", "gids"),
    [
        (plot_vs_baselines, {"mse:baygo:informative", "mse:baygo:others", "mse:cen:all",
                             "mse:nocol:informative", "mse:nocol:others"}),
        (plot_vs_complete, {"mse:baygo:informative", "mse:baygo:others",
                            "mse:complete:informative", "mse:complete:others"}),
        (plot_vs_stars, {"mse:baygo:informative", "mse:baygo:others", "mse:posm:informative",
                         "mse:posm:others", "mse:negm:informative", "mse:negm:others"}),
    ],
)  # fmt: skip
def test_paper_figures_draw_their_strategies(table, plot, gids):
    if plot is plot_vs_stars:
        _, ax = plt.subplots()
        plot(table, ax=ax)  # one Axes: every curve on it
    else:
        ax = plot(table)
    assert {line.get_gid() for line in ax.get_lines()} == gids
    assert len(ax.get_legend().get_texts()) == len(gids)
    assert ax.get_ylabel() == "test MSE (standardised units)"


def test_star_comparison_in_three_panels(table, t_reference):
    fig = plot_vs_stars(table)
    left, right, diff = fig.axes
    assert {ln.get_gid() for ln in diff.get_lines()} - {None} == {
        f"paired:baygo-{b}:{g}" for b in ("posm", "negm") for g in ("informative", "others")
    }
    assert {ln.get_gid() for ln in left.get_lines()} == {
        f"mse:{s}:informative" for s in ("baygo", "posm", "negm")
    }
    assert {ln.get_gid() for ln in right.get_lines()} == {
        f"mse:{s}:others" for s in ("baygo", "posm", "negm")
    }
    assert left.get_legend() is None and len(right.get_legend().get_texts()) == 3
    assert left.get_shared_y_axes().joined(left, right)
    # The left panel's PosM curve is the seed mean of the informative agent's MSE.
    (posm,) = [ln for ln in left.get_lines() if ln.get_gid() == "mse:posm:informative"]
    inf = table[(table["strategy"] == "posm") & table["informative"]]
    last = inf[inf["step"] == inf["step"].max()]["mse"]
    assert posm.get_ydata()[-1] == pytest.approx(t_reference(last)[0])


def test_synthetic_label_follows_the_data(table):
    ax = plot_vs_complete(table)
    labels = [t for t in ax.texts if t.get_gid() == SYNTHETIC_GID]
    assert [t.get_text() for t in labels] == ["SYNTHETIC DATA"]
    table.attrs["synthetic"] = False
    ax = plot_vs_complete(table)
    assert not [t for t in ax.texts if t.get_gid() == SYNTHETIC_GID]


def test_draws_on_the_given_axes_and_leaves_rcparams(table):
    before = dict(mpl.rcParams)
    fig, ax = plt.subplots()
    assert plot_vs_stars(table, ax=ax) is ax
    assert dict(mpl.rcParams) == before


def test_unknown_strategy_or_group_is_refused(table):
    with pytest.raises(ValueError, match="not in df"):
        plot_mse(table, strategies=["baygo", "gossip"])
    with pytest.raises(ValueError, match="groups"):
        plot_mse(table, groups=("median",))


def test_agents_mse_from_table_is_per_agent_seed_mean(table):
    ax = plot_agents_mse(table, strategy="posm")
    lines = ax.get_lines()
    assert [line.get_gid() for line in lines] == ["agent:0", "agent:1", "agent:2"]
    ref = table[table.strategy == "posm"].groupby(["agent", "step"])["mse"].mean()
    for a, line in enumerate(lines):
        np.testing.assert_allclose(line.get_ydata(), ref.loc[a].to_numpy())
    assert lines[0].get_marker() == INFORMATIVE_MARKER
    assert mpl.colors.same_color(lines[0].get_color(), INFORMATIVE_COLOR)
    assert not mpl.colors.same_color(lines[1].get_color(), INFORMATIVE_COLOR)


def test_agents_mse_of_one_run_and_one_seed(baygo_run, table):
    ax = plot_agents_mse(baygo_run)
    assert len(ax.get_lines()) == baygo_run.n_agents
    np.testing.assert_array_equal(ax.get_lines()[2].get_ydata(), baygo_run.mse[:, 2])
    assert [t.get_text() for t in ax.texts] == ["SYNTHETIC DATA"]
    ax = plot_agents_mse(table, strategy="nocol", seed=1)
    one = table[(table.strategy == "nocol") & (table.seed == 1) & (table.agent == 1)]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), one["mse"].to_numpy())
    with pytest.raises(ValueError, match="seed 99"):
        plot_agents_mse(table, seed=99)


def test_bands_are_nan_with_one_seed(table_maker, rng):
    df = table_maker(rng, seeds=1)
    band = seed_bands(df, group="each")
    assert band["n"].eq(1).all() and band["lo"].isna().all()
    ax = plot_mse(df, strategies=["baygo"])  # draws the mean, no band to speak of
    assert len(ax.get_lines()) == 2


def test_array_band_matches_the_t_reference(rng, t_reference):
    v = rng.normal(size=(6, 4))
    mean, lo, hi = array_band(v, level=0.9)
    for k in range(4):
        np.testing.assert_allclose((mean[k], lo[k], hi[k]), t_reference(v[:, k], 0.9))
    with pytest.raises(ValueError, match="level"):
        array_band(v, level=1.5)


def test_single_learner_strategies_get_one_solid_curve(table_maker, rng):
    df = table_maker(rng, strategies=("baygo", "cen", "cen-stratified"))
    ax = plot_mse(df)
    gids = {line.get_gid(): line for line in ax.get_lines()}
    assert set(gids) == {
        "mse:baygo:informative",
        "mse:baygo:others",
        "mse:cen:all",
        "mse:cen-stratified:all",
    }
    assert gids["mse:cen-stratified:all"].get_linestyle() == "-"
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Cen (central learner)" in texts


@pytest.mark.parametrize("plot", [plot_vs_baselines, plot_vs_complete])
def test_comparison_figures_have_a_paired_panel(table, plot):
    ax = plot(table)
    curves, diff = ax.figure.axes
    assert curves is ax
    baselines = ("cen", "nocol") if plot is plot_vs_baselines else ("complete",)
    assert {ln.get_gid() for ln in diff.get_lines()} - {None} == {
        f"paired:baygo-{b}:{g}" for b in baselines for g in ("informative", "others")
    }
    assert [t.get_text() for t in diff.texts if t.get_gid() == SYNTHETIC_GID] == ["SYNTHETIC DATA"]
    assert len(plot(table, paired=False).figure.axes) == 1


def test_paired_difference_is_the_per_seed_difference(table, t_reference):
    """Brute force: per-seed difference of the informative agent's (and the others' mean)
    MSE, then a t-interval over seeds; the legend carries the final-step paired test."""
    table = table[~((table.strategy == "nocol") & (table.seed == 3))]  # an unpaired seed
    ax = plot_paired_difference(table, baselines=["nocol"], level=0.9)
    for group in ("informative", "others"):
        mask = table.informative if group == "informative" else ~table.informative
        per_seed = table[mask].groupby(["strategy", "seed", "step"])["mse"].mean()
        d = (per_seed["baygo"] - per_seed["nocol"]).dropna().unstack("step")
        assert list(d.index) == [0, 1, 2]
        line = _by_gid(ax, f"paired:baygo-nocol:{group}")
        ref = np.array([t_reference(d[t], level=0.9) for t in d.columns])
        np.testing.assert_allclose(line.get_ydata(), ref[:, 0])
        lo, hi = _band_y(_by_gid(ax, f"paired-band:baygo-nocol:{group}"), d.columns.to_numpy())
        np.testing.assert_allclose(lo, ref[:, 1])
        np.testing.assert_allclose(hi, ref[:, 2])
        last = d[d.columns.max()]
        mean, lo_f, hi_f = t_reference(last, level=0.9)
        text = line.get_label()
        assert f"final {mean:+.3g} [{lo_f:+.3g}, {hi_f:+.3g}]" in text and "n=3" in text
        from scipy import stats

        assert f"p={stats.ttest_1samp(last, 0.0).pvalue:.2g}" in text


def test_paired_difference_refuses_unknown_strategies(table):
    with pytest.raises(ValueError, match="not in df"):
        plot_paired_difference(table, baselines=["gossip"])
    with pytest.raises(ValueError, match="groups"):
        plot_paired_difference(table, baselines=["nocol"], groups=("all",))
