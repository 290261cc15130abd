"""GaussianMean (models/mean.py) against dense references written here."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import norm

import baygo_graph as bg
from baygo_graph.data import draw_batches
from baygo_graph.data.labelled import gaussian_samples, mean_split
from baygo_graph.exceptions import DataError
from baygo_graph.models import (
    GaussianMean,
    make_grid,
    mean_log_likelihood,
    mean_statistics,
    resolve_model,
)
from baygo_graph.strategies import resolve_strategy


def protocol_step(strategy, model, data, *, agents, seed, batch, delta=0.5):
    """simulate's first step through the public protocol, in simulate's order of draws."""
    rng = np.random.default_rng(seed)
    strat = resolve_strategy(strategy, agents=agents, informative=0, weights="delta")
    split = model.split(data, agents=agents, informative=0, rng=rng)
    plan = strat.start(agents=agents, steps=1, delta=delta, dtype=np.float64, rng=rng)
    state = model.start(split, learners=plan.learners, dtype=np.float64)
    model.update(state, plan.statistics(split, batch, rng, model.statistics))
    plan.pool(0, model, state, rng)
    measures = model.measure(state, 0, agents)
    return model.posterior(state), getattr(plan, "choices", None), measures


def reference_local(dims, points, *, agents, seed, batch, data, sigma=None, prior_var=1.0):
    """Prior + exact Gaussian log-likelihood, loops over agents and grid points."""
    rng = np.random.default_rng(seed)
    split = mean_split(data, agents=agents, rng=rng, columns=("y1", "y2")[:dims])
    x, y = draw_batches(split, batch, rng)
    s = split.sigma_ls if sigma is None else sigma
    theta = make_grid(points, bounds=(-3.0, 3.0), dims=dims).theta
    local = np.empty((agents, len(theta)))
    for i in range(agents):
        samples = np.stack([x[i], y[i]], axis=1)[:, 2 - dims :]
        for k, mu in enumerate(theta):
            prior = norm.logpdf(mu, scale=np.sqrt(prior_var)).sum()
            local[i, k] = prior + norm.logpdf(samples, loc=mu, scale=s).sum()
    return local - logsumexp(local, axis=1, keepdims=True), theta


def kl_choices_dense(local):
    m = len(local)
    kl = np.full((m, m), -np.inf)
    for i in range(m):
        for j in range(m):
            if i != j:
                kl[i, j] = np.sum(np.exp(local[i]) * (local[i] - local[j]))
    return kl.argmax(axis=1)


@pytest.mark.parametrize("dims", [1, 2])
@pytest.mark.parametrize("seed", [0, 5])
def test_baygo_step_equals_dense_reference(dims, seed):
    data = gaussian_samples(80, mu=(0.5, -1.0)[:dims], sigma=1.5, rng=seed)
    model = GaussianMean(dims=dims, grid=9 if dims == 2 else 31)
    post, choices, m = protocol_step("baygo", model, data, agents=4, seed=seed, batch=3)
    local, theta = reference_local(
        dims, 9 if dims == 2 else 31, agents=4, seed=seed, batch=3, data=data
    )
    choice = kl_choices_dense(local)
    np.testing.assert_array_equal(choices[0], choice)
    expected = 0.5 * local + 0.5 * local[choice]
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(post, expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(m.mean, np.exp(expected) @ theta, atol=1e-12)
    truth = np.array([0.5, -1.0][:dims])
    np.testing.assert_allclose(m.loss, ((m.mean - truth) ** 2).sum(1), rtol=1e-12)


def test_fixed_graph_step_equals_dense_reference():
    agents, delta = 5, 0.3
    data = gaussian_samples(60, mu=(1.0, 0.5), rng=2)
    graph = nx.path_graph(agents)
    post, _, _ = protocol_step(
        graph, GaussianMean(dims=2, grid=7), data, agents=agents, seed=2, batch=2, delta=delta
    )
    local, _ = reference_local(2, 7, agents=agents, seed=2, batch=2, data=data)
    w = np.zeros((agents, agents))
    for i in range(agents):
        w[i, i] = delta
        for j in graph.neighbors(i):
            w[i, j] = (1 - delta) / graph.degree(i)
    expected = w @ local
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(post, expected, rtol=1e-10, atol=1e-10)


def test_simulate_step_equals_dense_reference():
    data = gaussian_samples(80, mu=(0.5, -1.0), sigma=1.5, rng=0)
    run = bg.simulate(
        "baygo",
        model=GaussianMean(dims=2, grid=9),
        data=data,
        agents=4,
        steps=1,
        batch=3,
        rng=0,
        keep_posteriors=[0],
    )
    local, _ = reference_local(2, 9, agents=4, seed=0, batch=3, data=data)
    choice = kl_choices_dense(local)
    expected = 0.5 * local + 0.5 * local[choice]
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(run.posteriors[0], expected, rtol=1e-10, atol=1e-10)
    assert run.config["model"] == "mean" and run.config["loss"] == "sq_error"


def run_steps(model, data, *, strategy="baygo", agents=6, steps=80, seed=0, batch=1):
    """Several steps through the protocol; the final measures."""
    rng = np.random.default_rng(seed)
    strat = resolve_strategy(strategy, agents=agents, informative=0, weights="delta")
    split = model.split(data, agents=agents, informative=0, rng=rng)
    plan = strat.start(agents=agents, steps=steps, delta=0.5, dtype=np.float64, rng=rng)
    state = model.start(split, learners=plan.learners, dtype=np.float64)
    for t in range(steps):
        model.update(state, plan.statistics(split, batch, rng, model.statistics))
        plan.pool(t, model, state, rng)
    return model.measure(state, steps - 1, agents), split


@pytest.mark.parametrize("strategy", ["baygo", "cen"])
@pytest.mark.parametrize("dims", [1, 2])
def test_posterior_concentrates_on_the_truth(dims, strategy):
    """150 steps of 2 draws per agent (1800 in all, posterior-mean sd about 0.025 per
    coordinate): every posterior mean is near the training mean and the true mu
    (measured: within 0.05 and 0.07), and far narrower than the prior."""
    mu = np.array([0.7, -0.9])[:dims]
    data = gaussian_samples(2000, mu=mu, sigma=1.0, rng=3)
    model = GaussianMean(dims=dims, extra_noise=0.0, grid=121, bounds=(-1.5, 1.5))
    m, split = run_steps(model, data, strategy=strategy, steps=150, batch=2)
    held = np.arange(split.x.shape[1]) < split.counts[:, None]
    train_mean = np.array([split.x[held].mean(), split.y[held].mean()])[2 - dims :]
    np.testing.assert_allclose(m.mean, np.broadcast_to(train_mean, m.mean.shape), atol=0.06)
    np.testing.assert_allclose(m.mean, np.broadcast_to(mu, m.mean.shape), atol=0.1)
    assert m.loss.max() < 0.01
    prior = np.exp(model.log_prior(model.make_grid()))
    assert m.entropy.max() < -(prior * np.log(prior)).sum() - 2.0 * dims  # nats


def test_informative_agent_beats_noisy_agents_without_collaboration():
    data = gaussian_samples(1000, mu=(0.7, -0.9), sigma=0.5, rng=4)
    m, _ = run_steps(GaussianMean(dims=2, extra_noise=3.0), data, strategy="nocol", steps=40)
    assert m.loss[0] < 0.1 < np.median(m.loss[1:])


def test_truth_defaults_to_the_test_mean_when_the_data_do_not_record_mu():
    frame = gaussian_samples(100, mu=(1.0, 2.0), rng=0).frame.copy()
    frame.attrs = {}
    model = GaussianMean(dims=2)
    split = model.split(frame, agents=3, informative=0, rng=0)
    state = model.start(split, learners=3, dtype=np.float64)
    assert model.config(state)["target"] == pytest.approx(
        [split.x_test.mean(), split.y_test.mean()]
    )
    given = GaussianMean(truth=0.25)
    state = given.start(given.split(frame, agents=3, informative=0, rng=0), learners=3, dtype=float)
    assert given.config(state)["target"] == [0.25]
    with pytest.raises(ValueError, match="truth must be a finite number"):
        GaussianMean(truth=(0.0, 1.0))  # refused when the model is built, before any run


def test_assignment_split_is_used():
    data = gaussian_samples(12, mu=0.5, rng=0)
    assignment = np.array([-1, 0, 1, 2, 0, 1, 2, 0, 1, 2, -1, 0])
    model = GaussianMean(assignment=assignment)
    split = model.split(data, agents=3, informative=0, rng=0)
    assert split.counts.tolist() == [4, 3, 3]
    np.testing.assert_allclose(split.y[0, :4], data.frame["y1"].to_numpy()[[1, 4, 7, 11]])
    with pytest.raises(ValueError, match="assignment gives 3 agents"):
        model.split(data, agents=4, informative=0, rng=0)


@settings(max_examples=40, deadline=None)
@given(
    dims=st.sampled_from([1, 2]),
    rows=st.integers(1, 4),
    batch=st.integers(1, 5),
    sigma=st.floats(0.1, 5.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_log_likelihood_equals_the_direct_sum(dims, rows, batch, sigma, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(scale=2.0, size=(2, rows, batch))
    grid = make_grid(5, bounds=(-2.0, 2.0), dims=dims)
    ll = mean_log_likelihood(grid, mean_statistics(x, y, dims=dims), sigma)
    samples = np.stack([x, y], axis=-1)[..., 2 - dims :]  # (rows, b, d)
    direct = norm.logpdf(samples[:, None], loc=grid.theta[None, :, None], scale=sigma)
    np.testing.assert_allclose(ll, direct.sum(axis=(2, 3)), rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dims": 3}, "dims"),
        ({"prior_var": 0.0}, "prior_var"),
        ({"dims": 1.5}, "dims must be an integer"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        GaussianMean(**kwargs)


def test_registry_and_split_errors():
    assert isinstance(resolve_model("mean", dims=2), GaussianMean)
    with pytest.raises(ValueError, match="need >= 1, >= 1 and >= 11"):
        mean_split(gaussian_samples(12), agents=12, rng=0)
    with pytest.raises(DataError, match="no column 'y1'"):
        GaussianMean().split(bg.synthetic_bodyfat(), agents=3, informative=0, rng=0)


def test_resolve_data_reads_a_csv_path_or_makes_synthetic_samples(tmp_path):
    path = tmp_path / "s.csv"
    gaussian_samples(30, mu=(1.0, 2.0)).frame.to_csv(path, index=False)
    ds = GaussianMean(dims=2).resolve_data(path)
    assert ds.source == str(path) and ds.frame.shape == (30, 2) and not ds.synthetic
    assert GaussianMean(dims=1).resolve_data(None).frame.attrs["mu"] == [0.6]
    one = tmp_path / "one.csv"
    one.write_text("y1\n1.0\n2.0\n")
    with pytest.raises(DataError, match=r"one\.csv has no column 'y2'"):
        GaussianMean(dims=2).resolve_data(str(one))
