"""Influence figures: the informative agent's curve, bands and reference levels."""

from __future__ import annotations

import numpy as np
import pytest

from baygo_graph.analysis import influence_series, reference_influence
from baygo_graph.figures import INFORMATIVE_MARKER, plot_influence, plot_influence_series


def test_influence_curve_skips_nan_and_draws_references(table, t_reference):
    table.loc[table["step"] == 0, "influence"] = np.nan  # undefined at the first step
    refs = reference_influence(3)
    ax = plot_influence(table, references=refs)
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "influence:baygo"]
    sub = table[(table.strategy == "baygo") & table.informative]
    ref = sub.pivot(index="step", columns="seed", values="influence").dropna()
    np.testing.assert_array_equal(line.get_xdata(), ref.index.to_numpy())
    expected = np.array([t_reference(ref.loc[t]) for t in ref.index])
    np.testing.assert_allclose(line.get_ydata(), expected[:, 0])
    band = [c for c in ax.collections if c.get_gid() == "band:influence:baygo"][0]
    ys = np.concatenate([p.vertices for p in band.get_paths()])[:, 1]
    # a share: percentile bootstrap over seeds (the t-band of these values leaves [0, 1])
    v = ref.to_numpy().T  # (seeds, steps)
    counts = np.random.default_rng(0).multinomial(len(v), np.full(len(v), 1 / len(v)), 2000)
    boot = counts @ v / len(v)
    assert ys.min() == pytest.approx(np.quantile(boot, 0.025, axis=0).min())
    assert ys.max() == pytest.approx(np.quantile(boot, 0.975, axis=0).max())
    assert 0.0 <= ys.min() and ys.max() <= 1.0
    levels = {
        ln.get_gid(): ln.get_ydata()[0] for ln in ax.get_lines() if ln.get_gid() != line.get_gid()
    }
    assert levels == pytest.approx({f"reference:{k}": v for k, v in refs.items()})
    assert line.get_marker() == INFORMATIVE_MARKER


def test_influence_needs_the_column_and_says_when_undefined(table):
    with pytest.raises(ValueError, match="influence"):
        plot_influence(table.drop(columns="influence"))
    table["influence"] = np.nan
    ax = plot_influence(table)
    assert not [ln for ln in ax.get_lines() if ln.get_gid() == "influence:baygo"]
    assert [t.get_gid() for t in ax.texts if t.get_gid() == "undefined:baygo"]


def test_influence_series_of_a_run(baygo_run):
    series = influence_series(baygo_run, window=3, windows="sliding").values
    ax = plot_influence_series(series, informative=0, references={"complete": 0.2})
    lines = {ln.get_gid(): ln for ln in ax.get_lines()}
    np.testing.assert_array_equal(lines["agent:0"].get_ydata(), series[:, 0])
    np.testing.assert_array_equal(lines["agent:4"].get_ydata(), series[:, 4])
    assert lines["agent:0"].get_marker() == INFORMATIVE_MARKER
    assert lines["reference:complete"].get_ydata()[0] == 0.2
    with pytest.raises(ValueError, match="informative"):
        plot_influence_series(series, informative=7)


def test_influence_series_highlights_the_top_agents_at_200_agents():
    import matplotlib as mpl

    rng = np.random.default_rng(5)
    series = rng.dirichlet(np.ones(200), size=30)
    series[:3] = np.nan  # undefined before the first full window
    labels = [f"n{i:03d}" for i in range(200)]
    ax = plot_influence_series(series, informative=7, top=4, labels=labels)
    mean = np.nanmean(series, axis=0)
    ranked = [i for i in np.argsort(-mean) if i != 7][:4]
    lines = {ln.get_gid(): ln for ln in ax.get_lines()}
    assert len([g for g in lines if g.startswith("agent:")]) == 200
    grey = [ln for g, ln in lines.items() if g.startswith("agent:")
            and int(g.split(":")[1]) not in (*ranked, 7)]  # fmt: skip
    assert len(grey) == 195
    assert all(mpl.colors.same_color(ln.get_color(), "#9A9A9A") for ln in grey)
    coloured = [lines[f"agent:{i}"] for i in ranked]
    assert not any(mpl.colors.same_color(ln.get_color(), "#9A9A9A") for ln in coloured)
    assert len({mpl.colors.to_hex(ln.get_color()) for ln in coloured}) == 4
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(texts) == 6  # the grey lines once, four agents, the informative one
    assert texts[0] == "other agents (195)"
    assert texts[1] == f"agent {labels[ranked[0]]} (mean {mean[ranked[0]]:.3g})"
    assert texts[-1].startswith("agent n007 (informative")
    assert ax.get_legend().get_title().get_text() == "top 4 of 200 by mean influence"


def test_influence_series_without_informative_agent():
    series = np.array([[0.5, 0.3, 0.2], [0.4, 0.4, 0.2]])
    ax = plot_influence_series(series, informative=None, top=1, labels=["a", "b", "c"])
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["other agents (2)", "agent a (mean 0.45)"]
    assert not [ln for ln in ax.get_lines() if ln.get_marker() == INFORMATIVE_MARKER]
    with pytest.raises(ValueError, match="labels"):
        plot_influence_series(series, labels=["a"])
    with pytest.raises(ValueError, match="top"):
        plot_influence_series(series, top=-1)
