"""The exact model in the loop: the same batches as the grid loop, agreement with it, big M."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import baygo_graph as bg
from baygo_graph.data import paper_split, synthetic_bodyfat
from baygo_graph.data.splits import shared_split
from baygo_graph.learning import draw_batches
from baygo_graph.models import (
    ExactGaussian,
    LinearRegression,
    batch_statistics,
    exact_metrics,
    exact_pool,
    exact_prior,
    exact_update,
)
from baygo_graph.strategies import BayGo, physical_at, resolve_strategy


def simulate_exact(strategy="baygo", *, model=None, **kwargs):
    """A run of the exact model through the loop."""
    return bg.simulate(strategy, model=model or "exact", **kwargs)


DATA = synthetic_bodyfat()
# Grid of the existing closed-form test (tests/test_learning.py) and its tolerance.
GRID = {"model": LinearRegression(grid=161, bounds=(-3.0, 3.0))}
ATOL = 2e-3
CELL = (6.0 / 160) ** 2


@pytest.mark.parametrize(("agents", "informative"), [(2, 0), (5, 3), (12, 0), (30, 29)])
def test_shared_split_is_paper_split_with_the_same_batches(agents, informative):
    r1, r2 = np.random.default_rng(agents), np.random.default_rng(agents)
    padded = paper_split(DATA, agents=agents, informative=informative, rng=r1)
    shared = shared_split(DATA, agents=agents, informative=informative, rng=r2)
    np.testing.assert_array_equal(padded.counts, shared.counts)
    np.testing.assert_array_equal(padded.y_test, shared.y_test)
    assert padded.sigma_ls == shared.sigma_ls
    for _ in range(3):
        for a, b in zip(draw_batches(padded, 4, r1), shared.draw(4, r2), strict=True):
            np.testing.assert_array_equal(a, b)


def test_shared_split_deals_samples_round_robin_beyond_paper_split():
    n_rest = shared_split(DATA, agents=2, rng=0).counts[1]
    agents = 3 * n_rest + 5
    with pytest.raises(ValueError, match="has no training sample"):
        paper_split(DATA, agents=agents, rng=0)
    s = shared_split(DATA, agents=agents, informative=4, rng=0)
    assert s.counts[4] == shared_split(DATA, agents=2, rng=0).counts[0]
    others = np.delete(np.arange(agents), 4)
    assert (s.counts[others] == 1).all()
    held = np.bincount(s.members[s.offsets[others]], minlength=len(s.x_pool))[s.counts[4] :]
    assert held.min() == 3 and held.max() == 4  # every shared sample, 3 or 4 holders


def test_one_step_matches_kernels_on_the_grid_run_batches():
    run = simulate_exact("baygo", agents=5, steps=1, batch=2, rng=3, data=DATA, delta=0.3)
    rng = np.random.default_rng(3)
    split = paper_split(DATA, agents=5, rng=rng)
    state = exact_update(
        exact_prior(5), batch_statistics(*draw_batches(split, 2, rng)), split.sigma_ls
    )
    kl = np.array([[0.0] * 5 for _ in range(5)])
    cov = state.covariance
    prec = np.linalg.inv(cov)
    for i in range(5):  # dense reference of the choice
        for j in range(5):
            d = state.mean[j] - state.mean[i]
            kl[i, j] = 0.5 * (
                np.trace(prec[j] @ cov[i])
                + d @ prec[j] @ d
                - 2
                + np.log(np.linalg.det(cov[j]) / np.linalg.det(cov[i]))
            )
    np.fill_diagonal(kl, -np.inf)
    np.testing.assert_array_equal(run.choices[0], kl.argmax(1))
    pooled = exact_pool(state, choices=kl.argmax(1), delta=0.3)
    mse, entropy, mean = exact_metrics(pooled, x_test=split.x_test, y_test=split.y_test)
    np.testing.assert_allclose(run.mean[0], mean, rtol=1e-13)
    np.testing.assert_allclose(run.mse[0], mse, rtol=1e-13)
    np.testing.assert_allclose(run.entropy[0], entropy, rtol=1e-13)


@pytest.mark.parametrize("strategy", ["complete", "negm", "posm", "nocol", "ring"])
@pytest.mark.parametrize("seed", range(3))
def test_fixed_graphs_agree_with_the_grid(strategy, seed, bodyfat_path):
    """Fixed W: every step of the grid run tracks the exact one (same batches)."""
    strat = nx.cycle_graph(4) if strategy == "ring" else strategy
    kw = {"agents": 4, "steps": 8, "batch": 3, "rng": seed, "data": bodyfat_path}
    grid = bg.simulate(strat, **GRID, **kw)
    exact = simulate_exact(strat, **kw)
    np.testing.assert_allclose(grid.mean, exact.mean, atol=ATOL)
    np.testing.assert_allclose(grid.mse, exact.mse, atol=ATOL)
    # discrete entropy on the grid = differential entropy + log(cell area)
    np.testing.assert_allclose(grid.entropy + np.log(CELL), exact.entropy, atol=ATOL)
    assert exact.config["model"] == "exact" and exact.kind == "fixed"


@pytest.mark.parametrize("seed", range(4))
def test_baygo_agrees_with_the_grid_until_choices_differ(seed, bodyfat_path):
    """BayGo: the grid's KL approximates the exact one, so a near-tie may flip one choice.

    Up to the first step where the choices differ the means must agree; after it the
    exact loop is fed the grid run's choices (``exact_pool(choices=...)``), so the
    remaining steps still compare update and pooling on the same batches and W.
    """
    steps, agents, batch = 20, 6, 3
    kw = {"agents": agents, "steps": steps, "batch": batch, "data": bodyfat_path}
    grid = bg.simulate("baygo", rng=seed, **GRID, **kw)
    exact = simulate_exact("baygo", rng=seed, **kw)
    differ = np.flatnonzero((grid.choices != exact.choices).any(axis=1))
    first = differ[0] if len(differ) else steps
    assert first >= 4  # the choices agree over the first steps at least
    np.testing.assert_allclose(grid.mean[:first], exact.mean[:first], atol=ATOL)
    np.testing.assert_allclose(
        grid.entropy[:first] + np.log(CELL), exact.entropy[:first], atol=ATOL
    )
    rng = np.random.default_rng(seed)
    split = paper_split(bg.load_bodyfat(bodyfat_path), agents=agents, rng=rng)
    state = exact_prior(agents)
    for t in range(steps):
        stats = batch_statistics(*draw_batches(split, batch, rng))
        state = exact_update(state, stats, split.sigma_ls)
        state = exact_pool(state, choices=grid.choices[t], delta=0.5)
        np.testing.assert_allclose(grid.mean[t], state.mean, atol=ATOL)


def test_cen_stratified_is_one_learner_with_every_batch():
    kw = {"agents": 4, "steps": 5, "batch": 2, "rng": 1, "data": DATA}
    run = simulate_exact("cen-stratified", **kw)
    rng = np.random.default_rng(1)
    split = paper_split(DATA, agents=4, rng=rng)
    state = exact_prior(1)
    for t in range(5):
        stats = batch_statistics(*draw_batches(split, 2, rng)).sum(axis=0, keepdims=True)
        state = exact_update(state, stats, split.sigma_ls)
        np.testing.assert_allclose(run.mean[t], np.tile(state.mean, (4, 1)), rtol=1e-13)


def test_physical_names_and_large_runs_follow_the_physical_graph():
    run = simulate_exact(
        BayGo(physical="regular-6"), agents=60_000, steps=2, rng=0, data=DATA, delta=0.4
    )
    src, dst = run.records["physical_src"], run.records["physical_dst"]
    listen = sp.csr_array((np.ones(len(src), bool), (dst, src)), shape=(60_000, 60_000))
    degree = np.diff(listen.indptr)  # "regular-6" above 50,000 agents: union of cycles
    assert run.config["physical"] == listen.nnz and degree.max() == 6 and degree.min() >= 4
    rows = np.arange(60_000)
    assert listen[rows, run.choices[1]].all()
    assert np.isfinite(run.mse).all() and np.isfinite(run.entropy).all()
    small = simulate_exact(BayGo(physical="regular-3"), agents=10, steps=3, rng=0, data=DATA)
    graph = bg.simulate(BayGo(physical="regular-3"), agents=10, steps=3, rng=0, data=DATA)
    assert small.config["physical"] == graph.config["physical"] == 30
    # the same named graph for both models on one seed
    assert set(physical_at(small, 0).edges) == set(physical_at(graph, 0).edges)


def test_same_seed_same_run_and_save_load(tmp_path):
    kw = {"agents": 30, "steps": 6, "rng": 9, "data": DATA}
    kw["strategy"] = BayGo(physical="fast-regular-4")
    a, b = simulate_exact(**kw), simulate_exact(**kw)
    assert a == b
    assert bg.Run.load(a.save(tmp_path / "r")) == a
    # the Run API works on exact runs as on grid runs
    assert a.graph(2).number_of_nodes() == 30 and a.graph(2).in_degree(5) == 2
    assert a.summary()["final_mse"] == a.mse[-1].tolist()
    np.testing.assert_allclose(a.weights(1).sum(axis=1), 1.0)
    assert not np.array_equal(a.mse, simulate_exact(**{**kw, "rng": 10}).mse)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"agents": 1}, "agents must be an integer >= 2, got 1"),
        ({"steps": 0}, "steps must be an integer >= 1, got 0"),
        ({"delta": -0.1}, "delta must be in \\[0, 1\\], got -0.1"),
        ({"sigma": -2.0}, "sigma must be a finite number > 0, got -2.0"),
        ({"strategy": "complete", "physical": "regular-4"}, "physical applies"),
        ({"physical": "regular-x"}, "physical must be"),
        ({"informative": 12}, "informative must be an integer in \\[0, 11\\], got 12"),
        ({"agents": 30_000}, "sparse physical graph \\(e.g. regular-10\\) avoids the M\\^2"),
        ({"strategy": "complete", "agents": 30_000}, "a complete graph on 30000 agents"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    kwargs = {"strategy": "baygo", "data": DATA, "steps": 2, **kwargs}
    sigma = kwargs.pop("sigma", None)
    physical = kwargs.pop("physical", None)
    with pytest.raises((ValueError, MemoryError), match=match):  # BudgetError: MemoryError
        strategy = kwargs.pop("strategy")
        if physical is not None:  # the strategy carries its physical graph
            agents = kwargs.get("agents", 12)
            strategy = resolve_strategy(strategy, agents=agents, physical=physical)
        simulate_exact(strategy, model=ExactGaussian(sigma=sigma), **kwargs)
