"""The benchmark scripts still run, and their naive reference agrees with the package.

Timings are not checked here (machines are shared and noisy): `benchmarks/` prints them.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import baygo_graph as bg

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench(request):
    sys.path.insert(0, str(BENCH))
    yield lambda name: importlib.import_module(name)
    sys.path.remove(str(BENCH))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"agents": 6, "steps": 12, "grid": 11, "rng": 0},
        {
            "agents": 10,
            "steps": 8,
            "grid": 9,
            "rng": 1,
            "delta": 0.3,
            "batch": 2,
        },
        {
            "agents": 10,
            "steps": 8,
            "grid": 9,
            "rng": 2,
            "physical": nx.cycle_graph(10),
        },
    ],
)
@pytest.mark.filterwarnings("ignore::baygo_graph.GridResolutionWarning")
def test_naive_reference_makes_the_same_run(bench, kwargs):
    naive = bench("naive")
    data = bg.synthetic_bodyfat()
    choices, mse = naive.naive_simulate(data=data, **kwargs)
    strategy, options = naive.package_options(kwargs)
    run = bg.simulate(strategy, data=data, **options)
    np.testing.assert_array_equal(choices, run.choices)
    np.testing.assert_allclose(mse, run.mse, rtol=1e-9, atol=1e-12)


def test_step_profile_covers_every_phase(bench):
    phases = bench("bench_profile").profile(12, 11, steps=2)
    assert {"exp (local)", "KL cross product (M,K)x(K,M)", "pooling"} <= phases.keys()
    assert all(v >= 0 for v in phases.values())


def test_step_parts_time_the_real_loop_and_leave_it_unwrapped(bench):
    import baygo_graph as bg
    from baygo_graph.models.grid import GridModel

    before = GridModel.update
    parts = bench("bench_step_parts").measure(bg.synthetic_bodyfat(), runs=1, steps=3)
    assert GridModel.update is before  # the loop's methods are restored
    assert parts["the loop's steps"] >= parts["choice and pooling"] >= parts["  KL choice"] > 0
    assert parts["run"] >= parts["the loop's steps"]


def test_influence_benchmark_runs_and_agrees(bench, capsys):
    text = bench("bench_influence").main(
        ["--steps", "40", "--agents", "12", "--big-agents", "30", "--big-steps", "20"]
        + ["--sim-agents", "6", "--sim-steps", "30", "--prefix", "4"]
    )
    assert text.count("smallest_b(sliding)") == 4 and "analysis_report" in text
    diffs = [float(x.split()[0]) for x in text.split("max |new - old| ")[1:]]
    assert len(diffs) == 4 and max(diffs) < 1e-10
    assert "NaN pattern equal: False" not in text


def test_reproduce_memory_sums_the_process_tree(bench):
    import os
    import subprocess

    mod = bench("bench_reproduce_memory")
    me = mod.tree_rss(os.getpid())
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; b = bytearray(60 << 20); time.sleep(5)"]
    )
    try:
        import time

        for _ in range(50):  # until the child holds its 60 MiB
            if mod._rss(child.pid) > 50 << 20:
                break
            time.sleep(0.1)
        both = mod.tree_rss(os.getpid())
        assert both - me > 50 << 20
        assert both >= mod._rss(os.getpid()) + mod._rss(child.pid) - (20 << 20)
    finally:
        child.kill()
        child.wait()


def test_user_series_influence_benchmark_agrees_with_its_references(bench):
    lines = []
    bench("bench_influence").user_section(
        lines, events=3_000, steps=150, agents=25, wide=40, sample=6, rounds=1, seed=0
    )
    text = "\n".join(lines)
    assert text.count("sliding union influence, window") == 2
    assert text.count("SciPy eigs per window") == 2 and text.count("power iteration") == 4
    diffs = [float(x.split()[0].rstrip(";")) for x in text.split("max |ours - ")[1:] for x in
             [x.split("| ", 1)[1]]]  # fmt: skip
    assert len(diffs) == 8 and max(diffs) < 1e-10


def test_edge_list_memory_estimate_bounds_a_measured_load(bench, tmp_path):
    frame = bench("_user_series").user_frame("hub", 20_000, 100, 500)
    path = tmp_path / "edges.parquet"
    frame.to_parquet(path)
    r = bench("bench_edgelist").measure_load(path, len(frame))
    assert r["entries"] > 0 and 0 <= r["peak"] < r["estimate"]
