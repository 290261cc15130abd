"""The bound's monitor against a loop over agents, cells and neighbours; theorem_check."""

from __future__ import annotations

import types

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.analysis import theorem_check
from baygo_graph.models import LinearRegression
from baygo_graph.monitors import TheoremMonitor, true_cell

DATA = bg.synthetic_bodyfat()


class Capture:
    """A monitor that keeps copies of what the loop shows monitors."""

    def start(self, *, agents, steps, grid, split, model):
        self.grid, self.split, self.seen = grid, split, []

    def observe(self, t, *, local, posterior, weights):
        self.seen.append((local.copy(), posterior.copy(), weights.toarray()))

    def finish(self):
        return {}, {}


@pytest.mark.parametrize("strategy", ["baygo", "complete", "negm"])
def test_monitor_matches_a_loop_over_agents_cells_and_neighbours(strategy):
    cap, mon = Capture(), TheoremMonitor()
    run = bg.simulate(
        strategy,
        agents=4,
        steps=6,
        model=LinearRegression(grid=9),
        rng=2,
        data=DATA,
        monitors=[cap, mon],
    )
    k_star, _ = true_cell(cap.grid, cap.split)
    kk = cap.grid.size
    kappa_sum = np.zeros(4)
    kl_sum = np.zeros(4)
    for t, (local, post, w) in enumerate(cap.seen):
        p = np.exp(local)
        for i in range(4):
            assert run.records["theorem_lhs"][t, i] == pytest.approx(1 - np.exp(post[i, k_star]))
            per_cell = [
                sum(w[i, j] * p[i, k] * (local[i, k] - local[j, k]) for j in range(4) if j != i)
                for k in range(kk)
            ]
            kappa = min(v for k, v in enumerate(per_cell) if k != k_star)
            kappa_sum[i] += kappa
            kl_sum[i] += sum(per_cell)
            log_k = np.log(kk - 1)
            recs = run.records
            assert recs["theorem_log_rhs"][t, i] == pytest.approx(log_k - kappa, abs=1e-9)
            assert recs["theorem_log_rhs_cumulative"][t, i] == pytest.approx(
                log_k - kappa_sum[i], abs=1e-9
            )
            assert recs["theorem_log_rhs_kl"][t, i] == pytest.approx(log_k - kl_sum[i], abs=1e-9)
    assert run.config["monitors"]["theorem"]["cell"] == k_star


def test_check_counts_and_recovers_an_exponential_rate():
    steps, rate = 30, -0.2
    lhs = np.exp(rate * np.arange(steps))[:, None] * np.array([[0.5, 0.9]])
    log_rhs = np.log(lhs)
    log_rhs[:10, 0] -= 1.0  # ten violations of agent 0, literal reading
    records = {
        "theorem_lhs": lhs,
        "theorem_log_rhs": log_rhs,
        "theorem_log_rhs_cumulative": np.full((steps, 2), 1.0),  # vacuous everywhere
        "theorem_log_rhs_kl": np.log(lhs) + 0.1,
    }
    run = types.SimpleNamespace(records=records, strategy="x", informative=0)
    c = theorem_check(run)
    assert c.pairs == 60
    assert c.holds == pytest.approx(50 / 60)
    assert c.vacuous == pytest.approx(np.mean(log_rhs >= 0))
    assert (c.holds_cumulative, c.vacuous_cumulative) == (1.0, 1.0)
    assert c.holds_kl == 1.0
    np.testing.assert_allclose(c.rate, [rate, rate])


def test_check_needs_records_and_a_graph():
    run = bg.simulate("nocol", agents=3, steps=2, model=LinearRegression(grid=5), rng=0, data=DATA)
    with pytest.raises(ValueError, match="no theorem records"):
        theorem_check(run)
    cen = bg.simulate(
        "cen",
        agents=3,
        steps=2,
        model=LinearRegression(grid=5),
        rng=0,
        data=DATA,
        monitors=[TheoremMonitor()],
    )
    with pytest.raises(ValueError, match="has no graph"):
        theorem_check(cen)


def test_other_models_need_theta_star():
    from baygo_graph.models import GaussianMean

    with pytest.raises(ValueError, match="needs theta_star"):
        bg.simulate("baygo", model="mean", agents=3, steps=2, rng=0, monitors=[TheoremMonitor()])
    run = bg.simulate(
        "baygo",
        model=GaussianMean(dims=2, grid=11),
        agents=3,
        steps=2,
        rng=0,
        monitors=[TheoremMonitor(theta_star=(0.0, 0.0))],
    )
    assert run.records["theorem_lhs"].shape == (2, 3)


# -- the likelihood reading ------------------------------------------------------------
def test_likelihood_reading_matches_a_direct_sum_over_samples(rng):
    from baygo_graph.analysis import likelihood_reading
    from baygo_graph.models.grid import make_grid

    m, n = 4, 7
    counts = rng.integers(1, n + 1, m)
    x = np.where(np.arange(n) < counts[:, None], rng.normal(size=(m, n)), 0.0)
    theta = make_grid(9, bounds=(-1.0, 1.0)).theta
    true, sigma = 40, 0.7
    r = likelihood_reading(x, counts, sigma=sigma, theta=theta, true_index=true)
    # brute force: mean over each agent's samples of KL between N(mu*, s^2) and N(mu, s^2)
    kl = np.full(len(theta), np.inf)
    for k in range(len(theta)):
        if k == true:
            continue
        per_agent = []
        for j in range(m):
            xs = x[j, : counts[j]]
            mu_star = theta[true, 0] + theta[true, 1] * xs
            mu = theta[k, 0] + theta[k, 1] * xs
            per_agent.append(np.mean((mu_star - mu) ** 2 / (2 * sigma**2)))
        kl[k] = np.mean(per_agent)
    assert r.rate == pytest.approx(kl.min(), rel=1e-12)
    assert r.cells == 81
    # informative from the first step whose right side is below 1
    assert r.log_rhs(r.informative_from) < 0 <= r.log_rhs(r.informative_from - 1)


def test_off_diagonal_terms_are_scipys_bit_for_bit(rng):
    """The one-neighbour-per-row shortcut (BayGo) and the general path give exactly
    what scipy's sparse row sums and product of ``W - diag(W)`` give."""
    import scipy.sparse as sp

    from baygo_graph.monitors import _off_diagonal_terms

    for case in range(60):
        m, k = int(rng.integers(2, 8)), 17
        if case % 2:  # BayGo-like: one chosen neighbour per agent
            dense = np.diag(rng.uniform(0.2, 0.8, m))
            chosen = (np.arange(m) + rng.integers(1, m, m)) % m
            dense[np.arange(m), chosen] = 1 - np.diag(dense)
        else:
            dense = rng.random((m, m)) * (rng.random((m, m)) < 0.4)
        w = sp.csr_array(dense)
        x = np.log(rng.dirichlet(np.ones(k), size=m)) * rng.uniform(1, 900)
        x[rng.random(x.shape) < 0.05] = -0.0
        x[rng.random(x.shape) < 0.02] = -np.inf
        off = sp.csr_array(dense - np.diag(np.diag(dense)))
        r, product = _off_diagonal_terms(w, x)
        with np.errstate(invalid="ignore"):
            want = off @ x
        np.testing.assert_array_equal(r, off.sum(axis=1))
        np.testing.assert_array_equal(product, want)
        assert not np.signbit(product[product == 0]).any()  # 0 + (-0.0), as scipy sums


def test_until_measures_the_first_steps_alone_and_the_same():
    kw = {"agents": 4, "steps": 9, "model": LinearRegression(grid=11), "rng": 3,
          "data": bg.synthetic_bodyfat(), "progress": False}  # fmt: skip
    full = bg.simulate("baygo", monitors=[TheoremMonitor()], **kw).records
    head = bg.simulate("baygo", monitors=[TheoremMonitor(until=5)], **kw).records
    assert set(full) == set(head)
    for key, values in full.items():
        np.testing.assert_array_equal(head[key][:5], values[:5])
        assert np.isnan(head[key][5:]).all()
    with pytest.raises(ValueError, match="until must be None or an integer >= 1, got 0"):
        TheoremMonitor(until=0)
