"""Grid, prior and likelihood against direct formulas."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import multivariate_normal, norm

from baygo_graph.models import (
    batch_statistics,
    log_likelihood,
    log_normalize,
    log_prior,
    make_grid,
)


def test_grid_layout():
    g = make_grid((3, 5), bounds=((-1, 1), (0, 4)))
    assert g.shape == (3, 5) and g.size == 15
    assert g.theta[:, 0].tolist()[:6] == [-1, -1, -1, -1, -1, 0]
    assert g.spacing == (1.0, 1.0) and g.bounds == ((-1.0, 1.0), (0.0, 4.0))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"points": 1}, "points must be"),
        ({"points": (3, 3, 3)}, "points must be"),
        ({"bounds": (1, -1)}, "bounds must be"),
    ],
)
def test_grid_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_grid(**kwargs)


def test_prior_is_the_normalised_gaussian_density():
    g = make_grid(21, bounds=(-2, 2))
    dens = multivariate_normal(mean=[0, 0], cov=np.diag([0.5, 0.5])).logpdf(g.theta)
    np.testing.assert_allclose(log_prior(g), dens - logsumexp(dens), atol=1e-12)
    with pytest.raises(ValueError, match="prior_var must be a finite number > 0 or 2 such numbers"):
        log_prior(g, var=(0.5, -1))


@settings(max_examples=50, deadline=None)
@given(
    agents=st.integers(1, 4),
    batch=st.integers(1, 5),
    sigma=st.floats(0.05, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_likelihood_equals_sum_of_gaussian_log_densities(agents, batch, sigma, seed):
    rng = np.random.default_rng(seed)
    g = make_grid(7, bounds=(-2, 2))
    x, y = rng.normal(size=(2, agents, batch))
    ours = log_likelihood(g, batch_statistics(x, y), sigma)
    mu = g.theta[None, None, :, 0] + g.theta[None, None, :, 1] * x[..., None]
    ref = norm.logpdf(y[..., None], loc=mu, scale=sigma).sum(axis=1)
    # equal up to a per-agent constant (normalisation drops it)
    diff = ours - ref
    np.testing.assert_allclose(diff - diff[:, :1], 0, atol=1e-8 * (1 + np.abs(ref).max()))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e5, 1e5), min_size=1, max_size=30))
def test_log_normalize_matches_scipy(values):
    a = np.array([values])
    np.testing.assert_allclose(log_normalize(a.copy()), a - logsumexp(a), atol=1e-9)


def test_likelihood_rejects_bad_sigma():
    with pytest.raises(ValueError, match="sigma must be"):
        log_likelihood(make_grid(3), np.zeros((1, 6)), 0.0)
