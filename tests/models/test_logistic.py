"""LogisticRegression (models/logistic.py) against dense references written here."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

import baygo_graph as bg
from baygo_graph.data import draw_batches
from baygo_graph.data.labelled import region_split, synthetic_labelled
from baygo_graph.exceptions import DataError
from baygo_graph.models import (
    LogisticRegression,
    classification_metrics,
    logistic_log_likelihood,
    make_grid,
    resolve_model,
)
from baygo_graph.strategies import resolve_strategy

DATA = synthetic_labelled(300, rng=11)


def protocol_run(strategy, model, data, *, agents, seed, batch, steps=1, delta=0.5):
    """simulate's loop through the public protocol, in simulate's order of draws."""
    rng = np.random.default_rng(seed)
    strat = resolve_strategy(strategy, agents=agents, informative=0, weights="delta")
    split = model.split(data, agents=agents, informative=0, rng=rng)
    plan = strat.start(agents=agents, steps=steps, delta=delta, dtype=np.float64, rng=rng)
    state = model.start(split, learners=plan.learners, dtype=np.float64)
    for t in range(steps):
        model.update(state, plan.statistics(split, batch, rng, model.statistics))
        plan.pool(t, model, state, rng)
    measures = model.measure(state, steps - 1, agents)
    return model.posterior(state), getattr(plan, "choices", None), measures, split


def log_sigmoid(z):
    return -np.log1p(np.exp(-z)) if z > -30 else z - np.log1p(np.exp(z))


def reference_local(points, *, agents, seed, batch, prior_var=4.0):
    """Prior + Bernoulli log-likelihood, loops over agents, grid points and samples."""
    rng = np.random.default_rng(seed)
    split = region_split(DATA, agents=agents, rng=rng)
    x, y = draw_batches(split, batch, rng)
    theta = make_grid(points, bounds=(-4.0, 4.0)).theta
    local = np.empty((agents, len(theta)))
    for i in range(agents):
        for k, (w0, w1) in enumerate(theta):
            lp = -0.5 * (w0**2 + w1**2) / prior_var
            for xn, yn in zip(x[i], y[i], strict=True):
                z = w0 + w1 * xn
                lp += log_sigmoid(z) if yn == 1 else log_sigmoid(-z)
            local[i, k] = lp
    return local - logsumexp(local, axis=1, keepdims=True), theta, split


def dense_choices(local):
    m = len(local)
    kl = np.full((m, m), -np.inf)
    for i in range(m):
        for j in range(m):
            if i != j:
                kl[i, j] = np.sum(np.exp(local[i]) * (local[i] - local[j]))
    return kl.argmax(axis=1)


def direct_metrics(x, y, w):
    """Per-agent test log-loss and error rate, loops over agents and samples."""
    loss, err = np.zeros(len(w)), np.zeros(len(w))
    for i, (w0, w1) in enumerate(w):
        for xn, yn in zip(x, y, strict=True):
            p = 1.0 / (1.0 + np.exp(-(w0 + w1 * xn)))
            loss[i] -= np.log(p) if yn == 1 else np.log(1.0 - p)
            err[i] += int(p > 0.5) != yn
    return loss / len(x), err / len(x)


@pytest.mark.parametrize("seed", [0, 3])
def test_baygo_step_equals_dense_reference(seed):
    model = LogisticRegression(grid=9)
    post, choices, m, split = protocol_run("baygo", model, DATA, agents=4, seed=seed, batch=3)
    local, theta, _ = reference_local(9, agents=4, seed=seed, batch=3)
    choice = dense_choices(local)
    np.testing.assert_array_equal(choices[0], choice)
    expected = 0.5 * local + 0.5 * local[choice]
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(post, expected, rtol=1e-10, atol=1e-10)
    mean = np.exp(expected) @ theta
    np.testing.assert_allclose(m.mean, mean, atol=1e-12)
    loss, err = direct_metrics(split.x_test, split.y_test, mean)
    np.testing.assert_allclose(m.loss, loss, rtol=1e-10)
    np.testing.assert_array_equal(m.extra["error_rate"], err)


def test_fixed_graph_step_equals_dense_reference():
    agents, delta = 5, 0.2
    graph = nx.star_graph(agents - 1)
    post, *_ = protocol_run(
        graph, LogisticRegression(grid=7), DATA, agents=agents, seed=1, batch=2, delta=delta
    )
    local, _, _ = reference_local(7, agents=agents, seed=1, batch=2)
    w = np.zeros((agents, agents))
    for i in range(agents):
        w[i, i] = delta
        for j in graph.neighbors(i):
            w[i, j] = (1 - delta) / graph.degree(i)
    expected = w @ local
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(post, expected, rtol=1e-10, atol=1e-10)


def test_simulate_step_equals_dense_reference():
    run = bg.simulate(
        "baygo",
        model=LogisticRegression(grid=9),
        data=DATA,
        agents=4,
        steps=1,
        batch=3,
        rng=0,
        keep_posteriors=[0],
    )
    local, _, _ = reference_local(9, agents=4, seed=0, batch=3)
    expected = 0.5 * local + 0.5 * local[dense_choices(local)]
    expected -= logsumexp(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(run.posteriors[0], expected, rtol=1e-10, atol=1e-10)
    assert run.records["error_rate"].shape == (1, 4)


def newton_mle(x, y, iters=50):
    """Logistic-regression maximum likelihood by Newton's method (the reference)."""
    w = np.zeros(2)
    design = np.column_stack([np.ones_like(x), x])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        hess = design.T @ (design * (p * (1 - p))[:, None])
        w += np.linalg.solve(hess, design.T @ (y - p))
    return w


@pytest.mark.parametrize(("strategy", "atol"), [("cen", 0.05), ("complete", 0.1), ("baygo", 0.35)])
def test_posterior_concentrates_on_the_pooled_fit(strategy, atol):
    """After 150 steps of 5 draws (4500 in all) the posterior means sit near the
    maximum-likelihood fit of all the training data: within 0.015 for the central
    learner, 0.06 on the complete graph, 0.3 for BayGo (measured; its agents weigh
    the regions by whom they listen to), and the test metrics match the fit's."""
    data = synthetic_labelled(3000, w=(0.5, 2.0), rng=5)
    model = LogisticRegression(grid=61, bounds=(-1.0, 5.0))
    _, _, m, split = protocol_run(strategy, model, data, agents=6, seed=2, batch=5, steps=150)
    held = np.arange(split.x.shape[1]) < split.counts[:, None]
    w_hat = newton_mle(split.x[held], split.y[held])
    np.testing.assert_allclose(m.mean, np.broadcast_to(w_hat, m.mean.shape), atol=atol)
    best_loss, best_err = direct_metrics(split.x_test, split.y_test, w_hat[None])
    np.testing.assert_allclose(m.loss, best_loss[0], atol=0.005)
    np.testing.assert_allclose(m.extra["error_rate"], best_err[0], atol=0.02)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 5),
    batch=st.integers(1, 6),
    chunk=st.sampled_from([1, 7, 1 << 21]),
    scale=st.floats(0.1, 50.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_log_likelihood_equals_the_direct_sum(rows, batch, chunk, scale, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(scale=scale, size=(rows, batch))
    y = rng.integers(0, 2, size=(rows, batch))
    grid = make_grid(4, bounds=(-3.0, 3.0))
    ll = logistic_log_likelihood(grid, x, y, chunk=chunk)
    direct = np.zeros((rows, grid.size))
    for r in range(rows):
        for k, (w0, w1) in enumerate(grid.theta):
            direct[r, k] = sum(
                log_sigmoid((2 * yn - 1) * (w0 + w1 * xn))
                for xn, yn in zip(x[r], y[r], strict=True)
            )
    assert np.all(np.isfinite(ll))
    np.testing.assert_allclose(ll, direct, rtol=1e-10, atol=1e-12)


def test_metrics_equal_direct_computation(rng):
    x, y = rng.normal(size=40), rng.integers(0, 2, size=40)
    w = rng.normal(size=(5, 2))
    loss, err = classification_metrics(x, y, w)
    ref_loss, ref_err = direct_metrics(x, y, w)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-12)
    np.testing.assert_array_equal(err, ref_err)


def test_assignment_replaces_the_region_rule():
    frame = DATA.frame.iloc[:20]
    assignment = np.r_[np.full(5, -1), np.arange(15) % 3]
    model = LogisticRegression(assignment=assignment)
    split = model.split(frame, agents=3, informative=0, rng=0)
    assert split.counts.tolist() == [5, 5, 5]
    x = frame["x"].to_numpy()
    np.testing.assert_allclose(split.x_test * split.std[0] + split.mean[0], x[:5])
    assert set(np.unique(split.y)) <= {0.0, 1.0} and split.std[1] == 1.0
    bad = frame.assign(y=frame["y"].replace(0, 2))
    with pytest.raises(DataError, match="0/1 labels, got 2 at row"):
        model.split(bad, agents=3, informative=0, rng=0)


def test_registry_and_config():
    model = resolve_model("logistic", grid=11, informative_range=(0.0, 3.0))
    split = model.split(DATA, agents=3, informative=0, rng=0)
    state = model.start(split, learners=3, dtype=np.float64)
    cfg = model.config(state)
    assert cfg["grid"] == [11, 11] and cfg["split_rule"] == "region"
    assert cfg["informative_range"] == [0.0, 3.0]


def test_resolve_data_reads_a_labelled_csv_path_or_makes_synthetic_data(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("f,lab\n0.5,1\n-1.0,0\n")
    model = LogisticRegression(feature="f", label="lab")
    assert model.resolve_data(path).frame["lab"].tolist() == [1, 0]
    assert model.resolve_data(None).synthetic
    path.write_text("f,lab\n0.5,1\n-1.0,-1\n")
    with pytest.raises(DataError, match=r"l\.csv: column 'lab' must hold 0/1 labels, got -1"):
        model.resolve_data(str(path))
