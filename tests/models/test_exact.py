"""The exact Gaussian kernels against dense references, numerical integration and properties."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.models import (
    ExactState,
    batch_statistics,
    exact_choices,
    exact_metrics,
    exact_pool,
    exact_prior,
    exact_update,
    gaussian_kl_edges,
    mse_function,
)
from baygo_graph.strategies import kl_choices, listen_matrix


def random_state(rng, agents, spread=2.0):
    """Random SPD precisions (L L^T + eps I) and means, as an ExactState and as matrices."""
    low = rng.normal(size=(agents, 2, 2)) * spread
    prec = low @ low.transpose(0, 2, 1) + 0.1 * np.eye(2)
    mean = rng.normal(size=(agents, 2))
    h = np.einsum("mij,mj->mi", prec, mean)
    nat = np.stack([prec[:, 0, 0], prec[:, 0, 1], prec[:, 1, 1], h[:, 0], h[:, 1]])
    return ExactState(nat), prec, mean


def dense_kl(prec, mean):
    """KL(N_i || N_j) for every pair, one pair at a time with numpy.linalg."""
    m = len(mean)
    kl = np.zeros((m, m))
    for i in range(m):
        cov_i = np.linalg.inv(prec[i])
        for j in range(m):
            d = mean[j] - mean[i]
            kl[i, j] = 0.5 * (
                np.trace(prec[j] @ cov_i)
                + d @ prec[j] @ d
                - 2
                + np.log(np.linalg.det(prec[i]) / np.linalg.det(prec[j]))
            )
    return kl


# -- one step against a dense reference ----------------------------------------------
def reference_step(x, y, *, sigma, prior_var, w=None, delta=0.5, listen=None):
    """Prior -> local update -> (BayGo choice) -> pooling, one agent at a time."""
    agents = len(x)
    prec, mean = [], []
    for i in range(agents):
        design = np.column_stack([np.ones_like(x[i]), x[i]])
        p = np.diag(1.0 / np.asarray(prior_var)) + design.T @ design / sigma**2
        prec.append(p)
        mean.append(np.linalg.solve(p, design.T @ y[i] / sigma**2))
    prec, mean = np.array(prec), np.array(mean)
    choice = None
    if w is None:
        kl = dense_kl(prec, mean)
        allowed = np.ones((agents, agents), bool) if listen is None else listen
        np.fill_diagonal(allowed, False)
        kl[~allowed] = -np.inf
        choice = np.where(allowed.any(1), kl.argmax(1), -1)
        w = delta * np.eye(agents)
        for i, c in enumerate(choice):
            w[i, c if c >= 0 else i] += 1 - delta
    pooled_prec = np.einsum("ij,jkl->ikl", w, prec)
    h = np.einsum("ij,jkl,jl->ik", w, prec, mean)
    return np.linalg.solve(pooled_prec, h[..., None])[..., 0], pooled_prec, choice


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("graph", ["complete", "cycle", "fixed"])
def test_one_step_matches_dense_reference(seed, graph):
    rng = np.random.default_rng(seed)
    agents, batch, sigma, prior_var, delta = 6, 3, 0.7, (0.5, 2.0), 0.3
    x, y = rng.normal(size=(agents, batch)), rng.normal(size=(agents, batch))
    state = exact_update(exact_prior(agents, prior_var), batch_statistics(x, y), sigma)
    if graph == "fixed":
        w = rng.random((agents, agents)) * (rng.random((agents, agents)) < 0.5) + np.eye(agents)
        w /= w.sum(1, keepdims=True)
        mean, prec, _ = reference_step(x, y, sigma=sigma, prior_var=prior_var, w=w)
        pooled = exact_pool(state, weights=sp.csr_array(w))
    else:
        listen = None if graph == "complete" else listen_matrix(nx.cycle_graph(agents), agents)
        dense = None if listen is None else listen.toarray()
        mean, prec, choice = reference_step(
            x, y, sigma=sigma, prior_var=prior_var, delta=delta, listen=dense
        )
        chosen = exact_choices(state, listen, rng)
        np.testing.assert_array_equal(chosen, choice)
        pooled = exact_pool(state, choices=chosen, delta=delta)
    np.testing.assert_allclose(pooled.mean, mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.linalg.inv(pooled.covariance), prec, rtol=1e-10)
    _, entropy, _ = exact_metrics(pooled, x_test=[0.0, 1.0], y_test=[0.0, 1.0])
    expected = [0.5 * np.log(np.linalg.det(2 * np.pi * np.e * np.linalg.inv(p))) for p in prec]
    np.testing.assert_allclose(entropy, expected, rtol=1e-12)


def test_update_matches_batch_statistics_sum():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    once = exact_update(exact_prior(3), batch_statistics(x, y), 0.5)
    twice = exact_prior(3)
    for k in range(5):  # one sample at a time: updates are additive
        twice = exact_update(twice, batch_statistics(x[:, k : k + 1], y[:, k : k + 1]), 0.5)
    np.testing.assert_allclose(once.natural, twice.natural, rtol=1e-13)


# -- KL against numerical integration --------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_kl_closed_form_matches_numerical_integration(seed):
    rng = np.random.default_rng(seed)
    state, prec, mean = random_state(rng, 2, spread=1.0)
    cov = np.linalg.inv(prec)
    sd = np.sqrt(np.max([np.diag(c) for c in cov], axis=0))
    lo, hi = mean.min(0) - 10 * sd, mean.max(0) + 10 * sd
    axes = [np.linspace(lo[k], hi[k], 1201) for k in range(2)]
    pts = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 2)
    area = np.prod([a[1] - a[0] for a in axes])

    def logpdf(i):
        d = pts - mean[i]
        quad = np.einsum("ni,ij,nj->n", d, prec[i], d)
        return -0.5 * quad - np.log(2 * np.pi) + 0.5 * np.log(np.linalg.det(prec[i]))

    lp0, lp1 = logpdf(0), logpdf(1)
    numeric = np.sum(np.exp(lp0) * (lp0 - lp1)) * area
    closed = gaussian_kl_edges(state, [0], [1])[0]
    assert closed > 0.01
    np.testing.assert_allclose(closed, numeric, rtol=1e-5)


def test_kl_edges_match_dense_pairs_and_vanish_on_the_diagonal():
    state, prec, mean = random_state(np.random.default_rng(4), 7)
    src, dst = np.divmod(np.arange(49), 7)
    np.testing.assert_allclose(
        gaussian_kl_edges(state, src, dst).reshape(7, 7), dense_kl(prec, mean), atol=1e-11
    )
    with pytest.raises(ValueError, match="dst must hold agent ids in \\[0, 7\\)"):
        gaussian_kl_edges(state, [0], [7])


# -- ties: the grid's rule ------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_ties_are_broken_with_the_same_draws_as_kl_choices(seed):
    """Identical posteriors: every neighbour ties; the picks equal kl_choices' on a grid."""
    agents = 9
    listen = listen_matrix(nx.random_regular_graph(4, agents, seed=seed), agents)
    state = exact_update(exact_prior(agents), np.ones((agents, 6)), 1.0)
    ours = exact_choices(state, listen, np.random.default_rng(seed))
    logp = np.log(np.full((agents, 3), 1 / 3))
    grid = kl_choices(np.exp(logp), logp, listen=listen, rng=np.random.default_rng(seed))
    np.testing.assert_array_equal(ours, grid)
    assert len(set(ours.tolist())) > 1  # really random, not the first neighbour each time


# -- properties -----------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_pooling_is_precision_weighted(agents, seed, delta):
    rng = np.random.default_rng(seed)
    state, prec, mean = random_state(rng, agents)
    choices = rng.integers(-1, agents, agents)
    w = delta * np.eye(agents)
    w[np.arange(agents), np.where(choices >= 0, choices, np.arange(agents))] += 1 - delta
    by_choice = exact_pool(state, choices=choices, delta=delta)
    by_weights = exact_pool(state, weights=sp.csr_array(w))
    np.testing.assert_allclose(by_choice.natural, by_weights.natural, rtol=1e-12, atol=1e-12)
    pooled_prec = np.einsum("ij,jkl->ikl", w, prec)
    np.testing.assert_allclose(np.linalg.inv(by_choice.covariance), pooled_prec, rtol=1e-8)
    # the pooled mean solves (sum w P) m = sum w P m_j
    rhs = np.einsum("ij,jkl,jl->ik", w, prec, mean)
    np.testing.assert_allclose(
        np.einsum("mij,mj->mi", pooled_prec, by_choice.mean), rhs, rtol=1e-7, atol=1e-7
    )
    # a common mean survives pooling whatever the precisions
    same = ExactState(np.concatenate([state.natural[:3], np.einsum("mij,j->im", prec, mean[0])]))
    np.testing.assert_allclose(
        exact_pool(same, weights=sp.csr_array(w)).mean, np.tile(mean[0], (agents, 1)), atol=1e-8
    )


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 10),
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30),
    st.integers(0, 2**32 - 1),
)
def test_choices_lie_on_physical_edges_and_maximise_kl(agents, edges, seed):
    graph = nx.DiGraph()
    graph.add_nodes_from(range(agents))
    graph.add_edges_from((u, v) for u, v in edges if u < agents and v < agents)
    listen = listen_matrix(graph, agents)  # directed: edge (j, i) lets i hear j
    state, prec, mean = random_state(np.random.default_rng(seed), agents)
    chosen = exact_choices(state, listen, np.random.default_rng(seed))
    kl = dense_kl(prec, mean)
    dense = listen.toarray()
    for i, c in enumerate(chosen):
        if not dense[i].any():
            assert c == -1
            continue
        assert graph.has_edge(c, i) and c != i
        np.testing.assert_allclose(kl[i, c], kl[i, dense[i]].max(), rtol=1e-9)


# -- metrics and arguments -------------------------------------------------------------
def test_prediction_mse_equals_the_direct_mean():
    rng = np.random.default_rng(1)
    x, y, m = rng.normal(size=40), rng.normal(size=40), rng.normal(size=(5, 2))
    direct = ((m[:, :1] + m[:, 1:] * x - y) ** 2).mean(axis=1)
    np.testing.assert_allclose(mse_function(x, y)(m), direct, rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: exact_update(s, np.zeros((3, 6)), 1.0), "stats must have shape \\(2, 6\\)"),
        (
            lambda s: exact_update(s, np.zeros((2, 6)), 0.0),
            "sigma must be a positive number, got 0.0",
        ),
        (lambda s: exact_pool(s), "exactly one of choices and weights"),
        (lambda s: exact_pool(s, choices=[0, 5]), "choices must be 2 agent ids"),
        (
            lambda s: exact_pool(s, choices=[1, 0], delta=2.0),
            "delta must be in \\[0, 1\\], got 2.0",
        ),
        (
            lambda s: exact_choices(s, sp.csr_array((3, 3)), None),
            "listen must be a sparse \\(2, 2\\)",
        ),
        (lambda s: exact_prior(0), "agents must be an integer >= 1, got 0"),
        (lambda s: exact_prior(2, (1.0, -1.0)), "prior_var must be a finite number > 0 or 2"),
        (lambda s: ExactState(np.zeros((4, 2))), "natural must be a \\(5, M\\) array"),
    ],
)
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call(exact_prior(2))


def test_the_budgets_pair_bytes_are_what_a_complete_choice_step_allocates():
    """The budget counts ExactGaussian.pair_bytes per agent pair on the complete graph; a
    choice step's traced peak per pair stays within [0.8, 1.25]x of it (U7: one float64
    per pair was counted and a run that passed peaked at 2.3x the budget)."""
    import tracemalloc

    from baygo_graph.limits import estimate_run_bytes
    from baygo_graph.models import ExactGaussian
    from baygo_graph.models.exact import exact_choices, exact_prior, exact_update

    m = 1500
    rng = np.random.default_rng(0)
    state = exact_update(exact_prior(m), rng.uniform(0.5, 2.0, (m, 6)), 1.0)
    tracemalloc.start()
    try:
        exact_choices(state, None, rng)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_pair = peak / m**2
    assert 0.8 * ExactGaussian.pair_bytes <= per_pair <= 1.25 * ExactGaussian.pair_bytes
    grid = estimate_run_bytes(m, 2, 5)
    exact = estimate_run_bytes(m, 2, 5, pair_bytes=ExactGaussian.pair_bytes)
    assert exact - grid == m * m * (ExactGaussian.pair_bytes - 8)


def test_the_pairs_refusal_is_one_whole_line(monkeypatch, capsys, tmp_path):
    """The refusal of a complete-graph exact run keeps its advice and the limit to set
    within the error line's 300 characters (U7's first fix cut its advice)."""
    from baygo_graph.cli import ERROR_CHARS, main

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "400M")
    argv = ["run", "--model", "exact", "--agents", "5000", "--steps", "2", "--out",
            str(tmp_path / "r")]  # fmt: skip
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 1 and "..." not in line, line
    assert len(line.removeprefix("baygo: error: ")) <= ERROR_CHARS
    assert "avoids the M^2 pairs, or set BAYGO_MEMORY_LIMIT=" in line
