"""benchmarks/bench_busy.py runs (quick) and prints its ratios; its spinning process
stops with the block. Timings are not checked here: machines are shared."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench_busy():
    sys.path.insert(0, str(BENCH))
    yield importlib.import_module("bench_busy")
    sys.path.remove(str(BENCH))


def test_quick_run_prints_both_ratios(bench_busy, capsys):
    text = bench_busy.main(["--quick"])
    assert "1. run vs its limit" in text and "2. paper run, idle vs one spinning" in text
    rows = [line for line in text.splitlines() if line.startswith("| package")]
    assert len(rows) == 1 and rows[0].count("x |") == 1


def test_busy_process_spins_and_stops(bench_busy):
    psutil = pytest.importorskip("psutil", reason="psutil comes with the bench extra")

    before = {p.pid for p in psutil.Process().children()}
    with bench_busy.busy():
        spinning = [p for p in psutil.Process().children() if p.pid not in before]
        assert len(spinning) == 1 and spinning[0].is_running()
    assert not spinning[0].is_running() or spinning[0].status() == psutil.STATUS_ZOMBIE


def test_parts_flag_picks_the_parts(bench_busy):
    assert bench_busy._parts("3") == {3} and bench_busy._parts("1,2") == {1, 2}
    with pytest.raises(Exception, match="parts must be a comma list of 1, 2, 3, got '4'"):
        bench_busy._parts("4")
    with pytest.raises(SystemExit, match="part 3 needs --baseline"):
        bench_busy.main(["--parts", "3"])
