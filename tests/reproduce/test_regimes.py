"""reproduce.regimes: the claims re-tested per regime, on a tiny configuration."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.experiments import compare
from baygo_graph.models import LinearRegression
from baygo_graph.reproduce import (
    CLAIM_KEYS,
    CONTRASTS,
    DEFAULT_REGIME,
    FACTORS,
    STRATEGIES,
    RegimeMap,
    evaluate_claims,
    plot_regimes,
    regime_list,
    regimes,
)

matplotlib.use("Agg")
# grid 11 is coarse on purpose (speed): its resolution warning is expected here
pytestmark = pytest.mark.filterwarnings("ignore::baygo_graph.exceptions.GridResolutionWarning")


def test_designs():
    ofat = regime_list("ofat")
    assert ofat[0] == DEFAULT_REGIME
    # each other regime differs from the default in exactly one factor
    assert all(sum(c[k] != DEFAULT_REGIME[k] for k in FACTORS) == 1 for c in ofat[1:])
    assert len(ofat) == 1 + sum(len(v) - 1 for v in FACTORS.values())
    full = regime_list("factorial")
    levels = [len(v) for v in FACTORS.values()]
    assert len({tuple(c.values()) for c in full}) == int(np.prod(levels))
    with pytest.raises(ValueError, match="design"):
        regime_list("random")


@pytest.fixture(scope="module")
def tiny_map():
    cells = [DEFAULT_REGIME | {"grid": 11}, DEFAULT_REGIME | {"grid": 11, "batch": 5,
                                                              "sigma_scale": 2.0}]  # fmt: skip
    return cells, regimes(cells=cells, seeds=2, max_seeds=2, steps=6, agents=4, n_jobs=1,
                          progress=False, data=bg.synthetic_bodyfat())  # fmt: skip


def test_table_has_every_claim_per_regime_with_real_numbers(tiny_map):
    cells, m = tiny_map
    t = m.table
    assert t["regime"].unique().tolist() == ["b1 d0.5 g11 s1", "b5 d0.5 g11 s2"]
    assert t.groupby("regime")["claim"].apply(list).tolist() == [list(CLAIM_KEYS)] * 2
    allowed = {"holds", "does not hold", "not evaluated", "cannot tell at 2 seeds",
               "violated where informative", "vacuous"}  # fmt: skip
    assert set(t["verdict"]) <= allowed
    assert (t["seeds"] == 2).all() and (t["level"] == 0.95).all() and m.rounds == (2,)
    # the numbers are those of evaluate_claims on a compare() of the same regime
    cell = cells[1]
    df = compare(STRATEGIES, seeds=2, steps=6, agents=4, n_jobs=1, progress=False,
                 data=bg.synthetic_bodyfat(), batch=5, delta=0.5, influence_window=6,
                 model=LinearRegression(grid=11, sigma_scale=2.0))  # fmt: skip
    want = {c.key: c for c in evaluate_claims(df)}
    got = t[t["regime"] == "b5 d0.5 g11 s2"].set_index("claim")
    for key in CONTRASTS:
        assert got.loc[key, "mean_difference"] == pytest.approx(
            want[key].values["mean_difference"], rel=1e-12
        )
        assert got.loc[key, "verdict"] == want[key].verdict
    for key in ("paper_complete_worsens_early", "paper_outperforms_stars", "consensus_abs_0.01"):
        assert got.loc[key, "verdict"] == want[key].verdict
    assert np.isfinite(got.loc["theorem_kl", "informative_share"])
    assert cell["batch"] == got["batch"].iloc[0] == 5
    assert m.seconds["total"] > 0 and m.seconds["b1 d0.5 g11 s1"] > 0


def test_heat_map_has_one_cell_per_claim_and_regime(tiny_map):
    _, m = tiny_map
    ax = plot_regimes(m)
    assert len(ax.texts) >= len(CLAIM_KEYS) * 2
    assert ax.images[0].get_array().shape == (len(CLAIM_KEYS), 2)
    legend = ax.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().x0 > ax.bbox.x1 - 1


def test_rounds_add_seeds_only_where_undecided_with_bonferroni_over_looks():
    cells = [DEFAULT_REGIME | {"grid": 11}]
    m = regimes(cells=cells, seeds=3, max_seeds=6, steps=5, agents=3, n_jobs=1,
                progress=False, theorem=False, data=bg.synthetic_bodyfat())  # fmt: skip
    t, looks = m.table.set_index("claim"), m.looks
    assert m.rounds == (3, 6) and (t["level"] == 1 - 0.05 / 2).all()
    assert set(looks["seeds"]) <= {3, 6}
    first = looks[looks["look"] == 1].set_index("claim")
    for key, row in t.iterrows():
        if row["look"] == 1 and row["verdict"] != "not evaluated":
            assert first.loc[key, "verdict"] == row["verdict"]  # kept from its first look
        if row["verdict"].startswith("cannot tell"):  # undecided at the cap
            assert row["verdict"] == "cannot tell at 6 seeds" and row["seeds"] == 6
    assert looks["look"].max() == 2  # 3 seeds never decide a consensus claim: a second look
    # the second look (3 seeds kept, 3 added) is evaluate_claims of 6 fresh seeds, at 97.5%
    df = compare(STRATEGIES, seeds=6, steps=5, agents=3, n_jobs=1, progress=False,
                 data=bg.synthetic_bodyfat(), influence_window=5,
                 model=LinearRegression(grid=11))  # fmt: skip
    want = {c.key: c.verdict for c in evaluate_claims(df, level=0.975)}
    second = looks[looks["look"] == 2].set_index("claim")["verdict"]
    for key in [*CONTRASTS, "consensus_abs_0.01", "paper_outperforms_stars"]:
        assert second[key] == want[key]


def test_reversals_are_decided_verdicts_that_flip_between_the_last_two_looks():
    looks = pd.DataFrame(
        [
            ("r", "a", 1, 10, "holds", 1.0), ("r", "a", 2, 20, "does not hold", 0.0),
            ("r", "b", 1, 10, "holds", 1.0), ("r", "b", 2, 20, "cannot tell at 20 seeds", 0.5),
            ("r", "c", 1, 10, "does not hold", 0.0), ("r", "c", 2, 20, "does not hold", 0.0),
            ("s", "a", 1, 10, "holds", 1.0),
        ],
        columns=["regime", "claim", "look", "seeds", "verdict", "state"],
    )  # fmt: skip
    rev = RegimeMap(pd.DataFrame(), {}, looks=looks, rounds=(10, 20)).reversals()
    assert rev[["regime", "claim", "verdict_before", "verdict"]].values.tolist() == [
        ["r", "a", "holds", "does not hold"]
    ]


def test_each_seed_runs_once_per_regime_and_strategy(monkeypatch):
    import baygo_graph.learning as learning

    calls = []
    real = learning.simulate_seeds

    def counting(strategy, *, seeds, **kwargs):
        calls.extend((kwargs["model"].grid, strategy, seed.spawn_key) for seed in seeds)
        return real(strategy, seeds=seeds, **kwargs)

    monkeypatch.setattr(learning, "simulate_seeds", counting)
    cells = [DEFAULT_REGIME | {"grid": 11}, DEFAULT_REGIME | {"grid": 9}]
    m = regimes(cells=cells, seeds=2, max_seeds=8, steps=4, agents=3, n_jobs=1,
                progress=False, theorem=False, data=bg.synthetic_bodyfat())  # fmt: skip
    assert m.rounds == (2, 4, 8)
    # consensus needs >= 6 seeds to decide: every regime went on past its first look
    finals = m.looks.groupby("regime")["seeds"].max()
    assert (finals > 2).all()
    assert len(calls) == len(set(calls))  # no run made twice
    assert len(calls) == len(STRATEGIES) * int(finals.sum())
    assert len(m.runs) == len(calls) and not m.runs.duplicated(["regime", "strategy", "seed"]).any()
    for label, n in finals.items():
        seeds = m.runs[(m.runs["regime"] == label) & (m.runs["strategy"] == "baygo")]["seed"]
        assert sorted(seeds) == list(range(n))


def test_map_is_the_same_on_workers_as_in_process():
    """Each regime is judged as soon as its runs of a look are in (while the workers
    run the others'): the map does not depend on the order the runs finish in."""
    cells = [DEFAULT_REGIME | {"grid": 9}, DEFAULT_REGIME | {"grid": 11, "delta": 0.3}]
    kw = {"cells": cells, "seeds": 2, "max_seeds": 4, "steps": 5, "agents": 3,
          "progress": False, "data": bg.synthetic_bodyfat()}  # fmt: skip
    one, two = regimes(n_jobs=1, **kw), regimes(n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.table, two.table)
    pd.testing.assert_frame_equal(one.looks, two.looks)
    pd.testing.assert_frame_equal(one.runs, two.runs)


def test_the_regime_table_counts_every_regime_once():
    """holds / does not hold / cannot tell / vacuous / not evaluated sum to the regimes:
    "not evaluated" went unsaid and "vacuous" was told as "cannot tell" (hostile18 W5)."""
    from baygo_graph.reproduce.report import _regimes_section

    verdicts = {
        "a": ["holds", "holds", "not evaluated", "cannot tell at 4 seeds", "does not hold"],
        "b": ["vacuous", "vacuous", "vacuous", "not evaluated", "violated where informative"],
    }
    state = {"holds": 1.0, "does not hold": 0.0, "violated where informative": 0.0,
             "vacuous": 0.5, "cannot tell at 4 seeds": 0.5, "not evaluated": np.nan}  # fmt: skip
    rows = [{"regime": f"r{i}", "claim": claim, "verdict": v, "state": state[v], "level": 0.95}
            for claim, vs in verdicts.items() for i, v in enumerate(vs)]  # fmt: skip
    rmap = RegimeMap(pd.DataFrame(rows), {"total": 1.0})
    lines = _regimes_section(rmap, {"regimes": "default", "regime_seeds": 4, "machine": "m"})
    table = "\n".join(lines)
    assert "| holds / does not hold / cannot tell / vacuous / not evaluated |" in table
    assert "| a | holds | 2 / 1 / 1 / 0 / 1 |" in table
    assert "| b | vacuous | 0 / 1 / 0 / 3 / 1 |" in table


def test_the_regime_seeds_help_says_the_rounds_the_map_runs():
    """hostile21 Z16: the help said "Paired seeds per regime" where N is the first look's
    seeds and an undecided regime runs up to 8 x N."""
    from click.testing import CliRunner

    from baygo_graph.cli import cli
    from baygo_graph.reproduce.regimes import seed_rounds

    text = " ".join(CliRunner().invoke(cli, ["reproduce", "--help"]).output.split())
    rounds = seed_rounds(10, 8 * 10)
    assert (
        f"up to {rounds[-1] // rounds[0]}x (the default runs {rounds[0]} to {rounds[-1]} seeds"
        in text
    )
