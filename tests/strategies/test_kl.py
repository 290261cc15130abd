"""KL kernels: choices against dense brute force, ties at random with the rng."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.strategies import (
    kl_choices,
    kl_matrix,
    listen_matrix,
)


def random_logp(rng, m, k):
    logp = rng.normal(scale=3, size=(m, k))
    return logp - np.log(np.exp(logp).sum(1, keepdims=True))


def test_kl_matrix_brute_force(rng):
    lp = random_logp(rng, 5, 8)
    p = np.exp(lp)
    ref = np.array([[np.sum(p[i] * (lp[i] - lp[j])) for j in range(5)] for i in range(5)])
    np.testing.assert_allclose(kl_matrix(lp), ref, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(2, 9), k=st.integers(2, 12), p=st.floats(0.1, 1.0), seed=st.integers(0, 10**6))
def test_choices_match_dense_argmax_on_any_physical_graph(m, k, p, seed):
    rng = np.random.default_rng(seed)
    lp = random_logp(rng, m, k)
    graph = nx.gnp_random_graph(m, p, seed=seed, directed=True)
    listen = listen_matrix(graph, m)
    kl = kl_matrix(lp)
    allowed = listen.toarray()
    expected = np.where(allowed.any(1), np.where(allowed, kl, -np.inf).argmax(1), -1)
    got = kl_choices(np.exp(lp), lp, listen=listen, rng=rng)
    np.testing.assert_array_equal(got, expected)
    if listen.nnz == m * (m - 1):
        np.testing.assert_array_equal(kl_choices(np.exp(lp), lp, rng=rng), expected)


def test_sparse_path_equals_dense_path(rng):
    m, k = 60, 30
    lp = random_logp(rng, m, k)
    graph = nx.random_regular_graph(4, m, seed=1)
    listen = listen_matrix(graph, m)
    assert listen.nnz < m * m // 4  # takes the edge path
    sparse_choice = kl_choices(np.exp(lp), lp, listen=listen, rng=rng)
    dense = np.where(listen.toarray(), kl_matrix(lp), -np.inf).argmax(1)
    np.testing.assert_array_equal(sparse_choice, dense)


def test_ties_are_broken_uniformly_with_the_rng():
    lp = np.log(np.full((4, 3), 1 / 3))  # everyone identical: all neighbours tie
    rng = np.random.default_rng(0)
    picks = np.array([kl_choices(np.exp(lp), lp, rng=rng) for _ in range(3000)])
    assert (picks != np.arange(4)).all()
    freq = np.array([np.bincount(picks[:, i], minlength=4) for i in range(4)]) / 3000
    off = freq[~np.eye(4, dtype=bool)]
    np.testing.assert_allclose(off, 1 / 3, atol=0.04)
    a = kl_choices(np.exp(lp), lp, rng=np.random.default_rng(5))
    b = kl_choices(np.exp(lp), lp, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_no_tie_draws_nothing_from_the_rng(rng):
    lp = random_logp(rng, 5, 6)
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    kl_choices(np.exp(lp), lp, rng=r1)
    assert r1.random() == r2.random()
