"""Seed-batched runs: ``simulate_seeds`` gives every seed's ``simulate`` run bit for bit."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.exceptions import BudgetError
from baygo_graph.learning import SEEDS_AT_ONCE_BYTES, _at_once
from baygo_graph.models import LinearRegression, kl_choices, resolve_model
from baygo_graph.models.kl import dense_argmin
from baygo_graph.reproduce.theorem import TruthMonitor
from baygo_graph.strategies import BayGo, Plan, resolve_strategy

DATA = bg.synthetic_bodyfat()
QUIET = pytest.mark.filterwarnings("ignore::baygo_graph.GridResolutionWarning")
STRATEGIES = ("baygo", "complete", "posm", "negm", "nocol", "cen", "cen-stratified")


def assert_same_run(a, b) -> None:
    """Two runs equal bit for bit: measures, choices, records, kept posteriors, config."""
    for name in ("mse", "entropy", "mean"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.records.keys() == b.records.keys()
    for key in a.records:
        assert np.array_equal(a.records[key], b.records[key]), key
    assert a.posteriors.keys() == b.posteriors.keys()
    for step in a.posteriors:
        assert np.array_equal(a.posteriors[step], b.posteriors[step]), step
    assert (a.series is None) == (b.series is None)
    if a.series is not None:
        for t in range(a.n_steps):
            wa, wb = a.series.weights(t), b.series.weights(t)
            assert (wa != wb).nnz == 0, t
    assert a.config == b.config


def check_seeds(strategy, seeds, *, at_once=None, **options) -> list:
    runs = bg.simulate_seeds(strategy, seeds=seeds, at_once=at_once, **options)
    assert len(runs) == len(seeds)
    for seed, run in zip(seeds, runs, strict=True):
        assert_same_run(run, bg.simulate(strategy, rng=seed, **options))
    return runs


@QUIET
@settings(max_examples=25, deadline=None)
@given(
    strategy=st.sampled_from(STRATEGIES),
    agents=st.integers(2, 7),
    grid=st.integers(3, 13),
    steps=st.integers(1, 6),
    batch=st.integers(1, 3),
    delta=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
    seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=4),
    at_once=st.one_of(st.none(), st.integers(1, 4)),
    dtype=st.sampled_from(["float64", "float32"]),
)
def test_every_seed_is_its_simulate_run(
    strategy, agents, grid, steps, batch, delta, seeds, at_once, dtype
):
    check_seeds(
        strategy,
        seeds,
        at_once=at_once,
        agents=agents,
        steps=steps,
        batch=batch,
        delta=delta,
        data=DATA,
        model=LinearRegression(grid=grid, dtype=dtype),
        keep_posteriors=(0, -1),
        progress=False,
    )


@QUIET
@pytest.mark.parametrize(
    "strategy",
    [
        nx.cycle_graph(6),  # a fixed user graph (sparse W)
        nx.complete_graph(6),  # dense W
        BayGo(physical="regular-2"),  # KL per run, pooling together
        BayGo(physical="gossip"),  # a time-varying physical graph
    ],
    ids=["ring", "complete-graph", "regular-2", "gossip"],
)
def test_graphs_and_physical_graphs(strategy):
    opts = {
        "agents": 6,
        "steps": 5,
        "data": DATA,
        "model": LinearRegression(grid=9),
        "progress": False,
    }
    check_seeds(strategy, [3, 1, np.random.SeedSequence(7)], **opts)


@QUIET
@pytest.mark.parametrize("model", ["mean", "logistic"])
def test_other_grid_models(model):
    check_seeds("baygo", [0, 4], agents=4, steps=4, model=model, progress=False)


def test_the_exact_model_runs_one_seed_at_a_time():
    check_seeds("baygo", [0, 1, 2], agents=4, steps=4, model="exact", data=DATA, progress=False)


@QUIET
def test_monitors_each_seed_its_own_copy():
    given_monitor = TruthMonitor(synthetic=True)
    opts = {
        "agents": 5,
        "steps": 6,
        "data": DATA,
        "model": LinearRegression(grid=11),
        "progress": False,
    }
    runs = bg.simulate_seeds("baygo", seeds=[0, 1, 2], monitors=[given_monitor], **opts)
    assert not hasattr(given_monitor, "cell")  # copied, never started
    for seed, run in zip([0, 1, 2], runs, strict=True):
        one = bg.simulate("baygo", rng=seed, monitors=[TruthMonitor(synthetic=True)], **opts)
        assert_same_run(run, one)
        assert "theorem_lhs" in run.records


class _CountingPlan(Plan):
    """A plug-in plan that pools (nothing) by overriding ``pool`` only."""

    calls: list = []

    def pool(self, t, model, state, rng) -> bool:
        _CountingPlan.calls.append(getattr(state, "seeds", 1))
        return False


class _PlugIn:
    name = "plug-in"

    def start(self, *, agents, steps, delta, dtype, rng):
        return _CountingPlan(agents)


def test_a_plan_that_pools_one_run_at_a_time_gets_one_seed_per_loop():
    _CountingPlan.calls.clear()
    opts = {
        "agents": 3,
        "steps": 2,
        "data": DATA,
        "model": LinearRegression(grid=5),
        "progress": False,
    }
    runs = bg.simulate_seeds(_PlugIn(), seeds=[0, 1], **opts)
    assert _CountingPlan.calls == [1, 1, 1, 1]  # 2 seeds x 2 steps, one run each
    assert np.array_equal(runs[1].mse, bg.simulate(_PlugIn(), rng=1, **opts).mse)
    assert not _CountingPlan(3).seeds_at_once and Plan(3).seeds_at_once


def test_stacked_argmin_draws_each_runs_ties_from_its_generator():
    rng = np.random.default_rng(0)
    seeds, m = 5, 6
    scores = rng.integers(0, 3, size=(seeds * m, m)).astype(float)  # many ties
    scores[3] = np.inf  # a row with no finite score
    gens = [np.random.default_rng(s) for s in range(seeds)]
    alone = [np.random.default_rng(s) for s in range(seeds)]
    got = dense_argmin(scores.copy(), gens, mask_diagonal=True, seeds=seeds)
    want = np.concatenate(
        [
            dense_argmin(scores[s * m : (s + 1) * m].copy(), alone[s], mask_diagonal=True)
            for s in range(seeds)
        ]
    )
    assert np.array_equal(got, want)
    assert [g.random() for g in gens] == [g.random() for g in alone]  # same draws used


@settings(max_examples=30, deadline=None)
@given(
    seeds=st.integers(1, 4),
    m=st.integers(2, 6),
    k=st.integers(1, 40),
    ties=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_stacked_kl_choices_are_each_runs(seeds, m, k, ties, seed):
    rng = np.random.default_rng(seed)
    logp = rng.standard_normal((seeds, m, k))
    if ties:
        logp[:, 1] = logp[:, 0]  # agents 0 and 1 identical: the others tie between them
    logp -= logp.max(axis=2, keepdims=True)
    prob = np.exp(logp)
    z = prob.sum(axis=2)
    gens = [np.random.default_rng(s) for s in range(seeds)]
    alone = [np.random.default_rng(s) for s in range(seeds)]
    got = kl_choices(
        prob, logp, rng=gens, row_scale=z.ravel(), col_shift=np.log(z).ravel()
    ).reshape(seeds, m)
    for s in range(seeds):
        one = kl_choices(prob[s], logp[s], rng=alone[s], row_scale=z[s], col_shift=np.log(z[s]))
        assert np.array_equal(got[s], one)
    assert [g.random() for g in gens] == [g.random() for g in alone]


def test_seeds_and_at_once_are_checked():
    with pytest.raises(TypeError, match="seeds must be a sequence"):
        bg.simulate_seeds("baygo", seeds=3)
    with pytest.raises(ValueError, match="at_once"):
        bg.simulate_seeds("baygo", seeds=[0], at_once=0)
    assert bg.simulate_seeds("baygo", seeds=[], data=DATA) == []
    with pytest.raises(TypeError, match="ordered sequence of seeds.*got set"):
        bg.simulate_seeds("baygo", seeds={1, 2}, data=DATA)
    with pytest.raises(TypeError, match=r"got ndarray of shape \(2, 2\)"):
        bg.simulate_seeds("baygo", seeds=np.arange(4).reshape(2, 2), data=DATA)
    with pytest.raises(TypeError, match=r"seeds\[1\]: each seed must be an int"):
        bg.simulate_seeds("baygo", seeds=[0, 1.5], data=DATA)
    with pytest.raises(TypeError, match="rng must be an int"):  # simulate says rng
        bg.simulate("baygo", rng=1.5, data=DATA)


def test_at_once_stays_in_cache_and_within_the_memory_budget(monkeypatch):
    strat = resolve_strategy("baygo", agents=12)
    sizes = {"agents": 12, "steps": 60, "batch": 1, "dtype": np.dtype("float64"), "keep": set()}
    paper = _at_once(LinearRegression(grid=61), strat, 80, learners=12, **sizes)
    assert paper == SEEDS_AT_ONCE_BYTES // (3 * 12 * 3721 * 8) == 2
    assert _at_once(LinearRegression(grid=61), strat, 80, learners=1, **sizes) == 29
    assert _at_once(LinearRegression(grid=121), strat, 80, learners=12, **sizes) == 1
    small = _at_once(LinearRegression(grid=9), strat, 80, learners=12, **sizes)
    assert small == 80
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1MiB")
    tight = _at_once(LinearRegression(grid=9), strat, 80, learners=12, **sizes)
    assert 1 <= tight < small
    with pytest.raises(BudgetError, match=r"^20 runs of .* \(20 at once\) needs about"):
        bg.simulate_seeds("baygo", seeds=range(20), at_once=20, data=DATA)


def test_each_seed_warns_as_its_run_does():
    import warnings

    opts = {"agents": 4, "steps": 30, "data": DATA, "model": LinearRegression(grid=5)}
    opts["progress"] = False

    def caught(fn):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            fn()
        return [str(w.message) for w in got if issubclass(w.category, bg.GridResolutionWarning)]

    alone = [m for s in (0, 1, 2) for m in caught(lambda s=s: bg.simulate("baygo", rng=s, **opts))]
    together = caught(lambda: bg.simulate_seeds("baygo", seeds=[0, 1, 2], **opts))
    assert alone and together == alone  # a coarse grid: every run says where it collapsed


def test_stacked_argmin_in_blocks_that_cut_across_runs(monkeypatch):
    import baygo_graph.models.rows as rows

    monkeypatch.setattr(rows, "MIN_VALUES", 1)  # the blocked path, on both threads
    monkeypatch.setattr(rows, "BLOCK_BYTES", 5 * 4 * 8)  # 5 rows of 4: blocks cut runs
    rng = np.random.default_rng(3)
    seeds, m = 6, 4
    scores = rng.integers(0, 2, size=(seeds * m, m)).astype(float)
    scale, shift = rng.uniform(1, 2, seeds * m), rng.standard_normal(seeds * m)
    gens = [np.random.default_rng(s) for s in range(seeds)]
    got = dense_argmin(scores.copy(), gens, mask_diagonal=True, row_scale=scale,
                       col_shift=shift, seeds=seeds)  # fmt: skip
    for s in range(seeds):
        block = slice(s * m, (s + 1) * m)
        one = dense_argmin(scores[block].copy(), np.random.default_rng(s), mask_diagonal=True,
                           row_scale=scale[block], col_shift=shift[block])  # fmt: skip
        assert np.array_equal(got[block], one)


@QUIET
@pytest.mark.parametrize("strategy", ["baygo", "posm", "complete"])
def test_blocked_passes_on_both_threads_give_the_same_runs(monkeypatch, strategy):
    import baygo_graph.models.rows as rows

    opts = {"agents": 5, "steps": 4, "data": DATA, "model": LinearRegression(grid=7)}
    opts |= {"progress": False, "keep_posteriors": (-1,)}
    alone = [bg.simulate(strategy, rng=s, **opts) for s in range(4)]
    monkeypatch.setattr(rows, "MIN_VALUES", 1)  # every pass in blocks, on the thread pool
    monkeypatch.setattr(rows, "BLOCK_BYTES", 3 * 49 * 8)  # 3 rows of 5: blocks cut runs
    monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    for run, one in zip(bg.simulate_seeds(strategy, seeds=range(4), **opts), alone, strict=True):
        assert_same_run(run, one)


@QUIET
def test_a_model_that_changes_what_batching_relies_on_runs_one_seed_at_a_time():
    from dataclasses import dataclass

    from baygo_graph.learning import _batches_seeds
    from baygo_graph.models import ExactGaussian

    @dataclass(frozen=True)
    class Sharper(LinearRegression):
        def log_likelihood(self, stats, *, out, state):
            return 2.0 * LinearRegression.log_likelihood(self, stats, out=out, state=state)

    assert _batches_seeds(LinearRegression()) and not _batches_seeds(Sharper())
    assert not _batches_seeds(ExactGaussian())
    assert all(_batches_seeds(resolve_model(name)) for name in ("mean", "logistic"))
    check_seeds("baygo", [0, 1], agents=4, steps=3, data=DATA, model=Sharper(grid=9))


def test_the_results_of_every_seed_are_checked_against_the_budget(monkeypatch):
    with pytest.raises(BudgetError, match=r"^1,000,000,000 runs of .*: pass fewer seeds$"):
        bg.simulate_seeds("baygo", seeds=range(10**9))  # refused before the seeds are read
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "20MiB")
    opts = {"agents": 20, "steps": 200, "model": LinearRegression(grid=5), "data": DATA}
    for seeds in (range(300), (s for s in range(300))):  # with a length, and without
        with pytest.raises(BudgetError, match=r"^300 runs of 20 agents x 200 steps x 25 grid "):
            bg.simulate_seeds("baygo", seeds=seeds, **opts)
