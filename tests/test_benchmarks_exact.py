"""The exact-mode benchmark still runs (timings are printed by benchmarks/, not checked)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench_exact():
    sys.path.insert(0, str(BENCH))
    yield importlib.import_module("bench_exact")
    sys.path.remove(str(BENCH))


def test_exact_profile_covers_every_phase(bench_exact):
    spent = bench_exact.profile(2_000, 2)
    assert set(bench_exact.PHASES) | {"split", "physical graph"} == spent.keys()
    assert all(v >= 0 for v in spent.values())


def test_exact_benchmark_is_a_run_all_section():
    sys.path.insert(0, str(BENCH))
    try:
        assert importlib.import_module("run_all").SECTIONS["exact"] == "bench_exact"
    finally:
        sys.path.remove(str(BENCH))
