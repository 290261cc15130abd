"""The flush, hub-analysis and Parquet benchmarks run at tiny sizes and print their ratios."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    yield lambda name: importlib.import_module(name)
    sys.path.remove(str(BENCH))


@pytest.mark.filterwarnings("ignore::baygo_graph.GridResolutionWarning")
def test_flush_ab_times_both_exps_beside_the_limit(bench):
    r = bench("bench_step").flush_ab(40, 11, warmup=3, reps=3)
    assert r["K"] == 121 and len(r["flushed"]) == len(r["exact"]) == 3
    assert all(v > 0 for v in r["flushed"] + r["exact"] + r["fastest"])
    from baygo_graph.models import grid

    assert grid._safe_exp is not bench("bench_step")._exact_exp  # restored


def test_hub_analysis_benchmark_prints_ratios(bench):
    text = bench("bench_hub_analysis").main(["--steps", "30", "--agents", "12", "--rounds", "2"])
    assert "hub 90%" in text and "ratio to random" in text and "is_b_connected" in text


@pytest.mark.filterwarnings("ignore")
def test_results_benchmark_prints_bytes_per_row(bench):
    pytest.importorskip("pyarrow")
    text = bench("bench_results").main(
        ["--steps", "5", "--agents", "6", "--seeds", "1", "--grid", "7", "--rounds", "1"]
    )
    assert "0 (bit for bit)" in text and "bytes per result row" in text


def test_sparse_span_benchmark_gives_the_same_report_both_ways(bench):
    text = bench("bench_sparse_span").main(["--steps", "300", "--nodes", "5", "--events", "12",
                                            "--rounds", "2"])  # fmt: skip
    assert "reports equal (floats within 1e-9): True" in text
    assert "every step / active steps: median" in text
