"""Grid machinery on row blocks and threads: the same bits as one pass over all rows."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.models import LinearRegression, rows
from baygo_graph.models import grid as grid_module
from baygo_graph.models.kl import dense_argmin, kl_matrix
from baygo_graph.strategies import BayGo

DATA = bg.synthetic_bodyfat(600, rng=3)


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of a few rows on 2 threads, even for small arrays."""
    monkeypatch.setattr(rows, "MIN_VALUES", 0)
    monkeypatch.setattr(rows, "BLOCK_BYTES", 3 * 8 * 11)
    monkeypatch.setenv("BAYGO_NUM_THREADS", "2")


@pytest.fixture
def one_pass(monkeypatch):
    """Every pass on all rows at once, in the calling thread."""
    monkeypatch.setattr(rows, "MIN_VALUES", 1 << 62)


@settings(max_examples=60, deadline=None)
@given(
    n_rows=st.integers(0, 70),
    cols=st.integers(1, 40),
    threads=st.integers(1, 4),
    block=st.integers(1, 2000),
)
def test_for_rows_visits_every_row_once(n_rows, cols, threads, block):
    seen = np.zeros(n_rows, dtype=int)
    lock = threading.Lock()

    def mark(lo, hi):
        assert 0 <= lo < hi <= n_rows
        with lock:
            seen[lo:hi] += 1

    old = rows.MIN_VALUES, rows.BLOCK_BYTES
    rows.MIN_VALUES, rows.BLOCK_BYTES = 0, block
    try:
        rows.for_rows(mark, n_rows, cols, threads=threads)
    finally:
        rows.MIN_VALUES, rows.BLOCK_BYTES = old
    np.testing.assert_array_equal(seen, np.ones(n_rows, dtype=int))


def test_for_rows_propagates_errors_of_any_block(tiny_blocks):
    def fail(lo, hi):
        if hi == 40:
            raise ZeroDivisionError(lo)

    with pytest.raises(ZeroDivisionError):
        rows.for_rows(fail, 40, 3)


def test_num_threads_reads_the_environment(monkeypatch):
    monkeypatch.setenv("BAYGO_NUM_THREADS", "3")
    assert rows.num_threads() == 3
    monkeypatch.delenv("BAYGO_NUM_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert rows.num_threads() == 1


def _arrays(strategy, **kw):
    model = LinearRegression(grid=11, **{k: kw.pop(k) for k in ("dtype",) if k in kw})
    if "physical" in kw:
        strategy = BayGo(physical=kw.pop("physical"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bg.GridResolutionWarning)
        run = bg.simulate(
            strategy,
            agents=23,
            steps=6,
            model=model,
            batch=2,
            rng=99,
            data=DATA,
            progress=False,
            **kw,
        )
    out = [run.mse, run.entropy, run.mean]
    if run.choices is not None:
        out.append(run.choices)
    return out


CASES = [
    ("baygo", {}),
    ("baygo", {"dtype": "float32"}),
    ("baygo", {"physical": "regular-4"}),
    ("baygo", {"delta": 0.3, "keep_posteriors": (-1,)}),
    ("complete", {}),
    ("nocol", {}),
    ("posm", {}),
]


@pytest.mark.parametrize(("strategy", "kw"), CASES)
def test_blocked_threaded_run_is_bit_identical_to_one_pass(strategy, kw, monkeypatch):
    monkeypatch.setattr(rows, "MIN_VALUES", 1 << 62)
    reference = _arrays(strategy, **kw)
    monkeypatch.setattr(rows, "MIN_VALUES", 0)
    monkeypatch.setattr(rows, "BLOCK_BYTES", 3 * 8 * 23)  # KL scores: 3 rows; posteriors: 1
    monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    for got, ref in zip(_arrays(strategy, **kw), reference, strict=True):
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)


def test_pool_into_matches_the_dense_weight_matrix(rng, tiny_blocks):
    m, k, delta = 17, 9, 0.3
    logp = rng.normal(size=(m, k))
    choices = rng.integers(-1, m, size=m)
    w = np.eye(m)
    has = choices >= 0
    w[has] *= delta
    w[np.flatnonzero(has), choices[has]] += 1 - delta
    got = grid_module.pool(logp, choices=choices, delta=delta)
    np.testing.assert_allclose(got, w @ logp, rtol=1e-13, atol=1e-13)


def test_refresh_shifts_exponentiates_and_sums_every_row(rng, tiny_blocks):
    logp = rng.normal(size=(31, 7)) * 4
    add = rng.normal(size=(31, 7))
    state = grid_module.GridState(logp=logp.copy(), expo=np.empty_like(logp), spare=None)
    state.refresh(add=add)
    shifted = (logp + add) - (logp + add).max(axis=1, keepdims=True)
    np.testing.assert_array_equal(state.logp, shifted)
    np.testing.assert_array_equal(state.expo, np.exp(shifted))
    np.testing.assert_array_equal(state.z, np.exp(shifted).sum(axis=1))


@pytest.mark.parametrize("blocks", ["tiny", "one"])
def test_dense_argmin_with_corrections_picks_the_most_divergent(rng, blocks, monkeypatch):
    if blocks == "tiny":
        monkeypatch.setattr(rows, "MIN_VALUES", 0)
        monkeypatch.setattr(rows, "BLOCK_BYTES", 2 * 8 * 13)
        monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    m, k = 13, 6
    logp = rng.normal(size=(m, k)) * 3
    expo = np.exp(logp - logp.max(axis=1, keepdims=True))
    z = expo.sum(axis=1)
    scores = expo @ (logp - logp.max(axis=1, keepdims=True)).T
    got = dense_argmin(
        scores, np.random.default_rng(0), mask_diagonal=True, row_scale=z, col_shift=np.log(z)
    )
    normalised = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
    kl = kl_matrix(normalised)
    np.fill_diagonal(kl, -np.inf)
    np.testing.assert_array_equal(got, kl.argmax(axis=1))


def test_dense_argmin_breaks_ties_with_the_same_draws_in_blocks(monkeypatch):
    scores = np.zeros((9, 9))  # every off-diagonal entry ties
    one = dense_argmin(scores.copy(), np.random.default_rng(4), mask_diagonal=True)
    monkeypatch.setattr(rows, "MIN_VALUES", 0)
    monkeypatch.setattr(rows, "BLOCK_BYTES", 2 * 8 * 9)
    monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    blocked = dense_argmin(scores.copy(), np.random.default_rng(4), mask_diagonal=True)
    np.testing.assert_array_equal(blocked, one)
    assert not np.any(blocked == np.arange(9))
    assert len(set(blocked.tolist())) > 1


@pytest.mark.parametrize("blocks", ["tiny", "one"])
def test_dense_argmin_of_a_non_contiguous_matrix_equals_a_contiguous_one(rng, blocks, monkeypatch):
    """The diagonal of a C-contiguous block is set through a strided view; any other layout
    takes the index arrays: the same choices and the same corrected scores."""
    if blocks == "tiny":
        monkeypatch.setattr(rows, "MIN_VALUES", 0)
        monkeypatch.setattr(rows, "BLOCK_BYTES", 2 * 8 * 11)
        monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    m = 11
    scores = rng.normal(size=(m, m))
    scores[:, 3] = scores[:, 5]  # ties for some rows: drawn the same way in both layouts
    z, shift = rng.uniform(0.5, 2.0, m), rng.normal(size=m)
    c_order, f_order = scores.copy(), np.asfortranarray(scores)
    kw = {"mask_diagonal": True, "row_scale": z, "col_shift": shift}
    got = dense_argmin(f_order, np.random.default_rng(1), **kw)
    ref = dense_argmin(c_order, np.random.default_rng(1), **kw)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(f_order, c_order)  # corrected in place alike
    brute = scores / z[:, None] - shift[None, :]
    np.fill_diagonal(brute, np.inf)
    best = brute.min(axis=1) + 1e-12 * np.abs(np.where(np.isinf(brute), 0, brute)).max(axis=1)
    assert np.all(brute[np.arange(m), got] <= best)


def test_pooling_leaves_the_local_normalisers_and_measure_sums_the_pooled_ones():
    """Pooling does not sum the pooled rows (measure does): z stays the local update's."""
    model = LinearRegression(grid=11)
    split = model.split(DATA, agents=5, informative=0, rng=0)
    state = model.start(split, learners=5, dtype=np.dtype("float64"))
    rng = np.random.default_rng(0)
    model.update(state, model.statistics(*split.draw(1, rng)))
    local_z = state.expo.sum(axis=1)
    np.testing.assert_array_equal(state.z, local_z)
    model.pool_choices(state, np.array([1, 2, 3, 4, 0]), 0.5)
    np.testing.assert_array_equal(state.z, local_z)
    m = model.measure(state, 0, 5)
    pooled = np.exp(state.logp)
    np.testing.assert_allclose(m.mean, (pooled @ state.space.theta) / pooled.sum(1)[:, None])


@settings(max_examples=60, deadline=None)
@given(
    low=st.sampled_from([-5.0, -90.0, -120.0, -760.0, -3000.0]),
    dtype=st.sampled_from(["float64", "float32"]),
    seed=st.integers(0, 10**6),
    n=st.integers(0, 3000),
)
def test_exp_into_is_numpy_exp_bit_for_bit(low, dtype, seed, n):
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, 0.0, size=n).astype(dtype)
    special = rng.random(n)
    x[special < 0.02] = -np.inf
    x[special > 0.995] = np.nan
    got = rows.exp_into(x, np.empty_like(x))
    ref = np.exp(x)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def test_exp_into_covers_the_subnormal_band_and_exact_zeros():
    x = np.linspace(-760.0, -690.0, 70_001)  # subnormal results, zeros, slow and fast values
    got = rows.exp_into(x, np.empty_like(x))
    np.testing.assert_array_equal(got, np.exp(x))
    assert np.count_nonzero((got > 0) & (got < np.finfo(float).tiny)) > 1000
    assert np.count_nonzero(got == 0) > 1000
