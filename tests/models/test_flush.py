"""The flush of tiny log-weights before ``exp``: its bound, and runs that stay reproducible."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.experiments import compare
from baygo_graph.models import LinearRegression, rows
from baygo_graph.models import grid as grid_module

DATA = bg.synthetic_bodyfat(600, rng=3)
# A run whose posteriors concentrate: most log-weights end far below the threshold.
RUN = {
    "agents": 23,
    "steps": 30,
    "model": LinearRegression(grid=21),
    "batch": 20,
    "rng": 99,
    "progress": False,
}


def _normalised(w):
    return w / w.sum(axis=-1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(
    low=st.sampled_from([-5.0, -90.0, -120.0, -709.0, -760.0, -3000.0]),
    dtype=st.sampled_from(["float64", "float32"]),
    seed=st.integers(0, 10**6),
    n=st.integers(0, 3000),
)
def test_safe_exp_is_exp_above_the_threshold_and_zero_below(low, dtype, seed, n):
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, 0.0, size=n).astype(dtype)
    special = rng.random(n)
    x[special < 0.02] = -np.inf
    x[special > 0.995] = np.nan
    got = grid_module._safe_exp(x)
    cut = grid_module.FLUSH_BELOW[np.dtype(dtype)]
    ref = np.where(x < cut, 0.0, np.exp(x)).astype(dtype)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)  # NaN stays NaN
    assert not np.any((got > 0) & (got < np.finfo(dtype).tiny))  # never a subnormal


def test_the_threshold_gives_normal_numbers_and_its_bound_is_below_1e_300():
    cut = grid_module.FLUSH_BELOW[np.dtype(np.float64)]
    assert np.exp(cut) >= np.finfo(np.float64).tiny  # kept values are normal numbers
    assert np.exp(cut) < 3.31e-308
    assert 30_000_000 * np.exp(cut) < 1e-300  # total variation for any K < 3e7


@pytest.mark.parametrize("k", [2, 3721, 200_000])
@pytest.mark.parametrize("just", ["below", "above", "mixed"])
def test_adversarial_rows_stay_within_the_bound_of_the_unflushed_posterior(k, just):
    # one weight at the maximum, every other one as close to the threshold as possible
    cut = grid_module.FLUSH_BELOW[np.dtype(np.float64)]
    below, above = np.nextafter(cut, -np.inf), cut
    rng = np.random.default_rng(k)
    x = np.full((3, k), {"below": below, "above": above}.get(just, 0.0))
    if just == "mixed":
        x[:] = rng.choice([below, above, cut - 30.0, -1.0], size=x.shape)
    x[:, 0] = 0.0
    flushed = _normalised(grid_module._safe_exp(x))
    dense = _normalised(np.exp(x))  # unflushed: subnormals and all
    tv = 0.5 * np.abs(flushed - dense).sum(axis=1)
    assert np.all(tv <= k * np.exp(cut))
    assert np.all(tv < 1e-300)
    assert np.all(np.abs(flushed - dense) <= np.exp(cut))  # each probability, too
    if just == "below":
        assert np.all(tv > 0) and np.all(flushed[:, 1:] == 0)  # the flush did happen


def test_log_normalize_matches_the_dense_computation():
    x = np.linspace(-900.0, 0.0, 4001)[None, :] * np.array([[1.0], [0.5], [2.0]])
    got = grid_module.log_normalize(x.copy())
    ref = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=0)


def _run():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bg.GridResolutionWarning)
        run = bg.simulate("baygo", data=DATA, **RUN)
    return [run.mse, run.entropy, run.mean, run.choices]


def test_a_concentrated_run_flushes_and_matches_the_exact_run(monkeypatch):
    seen = []
    flush = grid_module._safe_exp

    def spy(x, out=None):
        seen.append(np.count_nonzero(x < grid_module.FLUSH_BELOW[x.dtype]) / max(x.size, 1))
        return flush(x, out)

    monkeypatch.setattr(grid_module, "_safe_exp", spy)
    got = _run()
    assert max(seen) > 0.3  # most of the late log-weights are flushed
    monkeypatch.setattr(grid_module, "_safe_exp", lambda x, out=None: np.exp(x, out=out))
    exact = _run()
    for a, b in zip(got[:3], exact[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(got[3], exact[3])


def test_a_flushing_run_is_bit_identical_across_blocks_threads_and_processes(monkeypatch):
    monkeypatch.setattr(rows, "MIN_VALUES", 1 << 62)
    reference = _run()
    monkeypatch.setattr(rows, "MIN_VALUES", 0)
    monkeypatch.setattr(rows, "BLOCK_BYTES", 3 * 8 * 21)
    monkeypatch.setenv("BAYGO_NUM_THREADS", "2")
    for got, ref in zip(_run(), reference, strict=True):
        np.testing.assert_array_equal(got, ref)
    plain = {k: v for k, v in RUN.items() if k != "model"}
    code = (
        "import sys, warnings, numpy as np, baygo_graph as bg\n"
        "from baygo_graph.models import LinearRegression\n"
        "warnings.simplefilter('ignore')\n"
        "r = bg.simulate('baygo', data=bg.synthetic_bodyfat(600, rng=3), "
        f"model=LinearRegression(grid=21), **{plain!r})\n"
        "sys.stdout.write(''.join(a.tobytes().hex() for a in "
        "(r.mse, r.entropy, r.mean, r.choices)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "".join(np.ascontiguousarray(a).tobytes().hex() for a in reference)


def test_compare_gives_the_same_bits_with_one_or_two_jobs():
    kw = {
        "seeds": 2,
        "steps": 25,
        "model": LinearRegression(grid=21),
        "batch": 20,
        "agents": 12,
        "rng": 5,
        "data": DATA,
        "progress": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = compare(["baygo"], n_jobs=1, tidy=False, **kw)
        two = compare(["baygo"], n_jobs=2, tidy=False, **kw)
    np.testing.assert_array_equal(one.mse, two.mse)
    np.testing.assert_array_equal(one.influence, two.influence)
