"""Analysis cost on hub-heavy series vs random ones, and the yes/no B check.

BayGo-like choice series of T steps and M agents: every agent listens to a
uniformly random other agent (random), or the same with a share of every
step's choices on agent 0 (hub 30%, hub 90%). :func:`analysis_report` (what
``baygo analyze`` prints) is timed on each, interleaved (random, hub, hub, random, ...)
so that all see the same machine load; the ratios are per round, then the
median and spread over rounds. Then ``is_b_connected(series, B)`` against
``b_connectivity(series, B).holds`` (every window). Run
``python benchmarks/bench_hub_analysis.py [--steps T] [--agents M] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402
from bench_influence import hub_choices, random_choices  # noqa: E402

from baygo_graph import Run  # noqa: E402
from baygo_graph.analysis import analysis_report, b_connectivity, is_b_connected  # noqa: E402


def _timed(fn, *args, **kwargs) -> float:
    t0 = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t0


def series(steps: int, agents: int, seed: int = 0) -> dict:
    """The three series: random, hub 30%, hub 90%."""
    rng = np.random.default_rng(seed)
    return {
        "random": Run.from_choices(random_choices(steps, agents, rng), delta=0.5),
        "hub 30%": Run.from_choices(hub_choices(steps, agents, rng, 0.3), delta=0.5),
        "hub 90%": Run.from_choices(hub_choices(steps, agents, rng, 0.9), delta=0.5),
    }


def report_ratios(runs: dict, rounds: int) -> list[list]:
    """analysis_report time of each series, per round, and its ratio to random."""
    times = {k: [] for k in runs}
    for r in range(rounds):
        order = list(runs) if r % 2 == 0 else list(runs)[::-1]
        for k in order:
            times[k].append(_timed(analysis_report, runs[k]))
    base = np.array(times["random"])
    rows = []
    for k, v in times.items():
        ratio = np.array(v) / base
        rows.append(
            [
                k,
                f"{np.median(v):.2f}",
                f"{np.median(ratio):.2f}",
                f"{ratio.min():.2f}-{ratio.max():.2f}",
            ]
        )
    return rows


def bcheck_rows(runs: dict, B: int) -> list[list]:
    """is_b_connected vs the full b_connectivity, same B, both kinds of windows."""
    rows = []
    for k, run in runs.items():
        for kind in ("aligned", "sliding"):
            full = _timed(b_connectivity, run, B, windows=kind)
            quick = _timed(is_b_connected, run, B, windows=kind)
            verdict = is_b_connected(run, B, windows=kind)
            rows.append([k, kind, B, verdict, f"{full:.3f}", f"{quick:.4f}", f"{full / quick:.0f}"])
    return rows


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--B", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="T = 1,000, M = 300, 2 rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.agents, args.rounds = 1000, 300, 2
    runs = series(args.steps, args.agents)
    parts = ["\n".join(machine_lines()) + f"\nload average at start: {load_average()}"]
    parts.append(
        table(
            ["series", "analysis_report median s", "ratio to random (median)", "ratio range"],
            report_ratios(runs, args.rounds),
            title=f"analysis_report, T={args.steps}, M={args.agents}, {args.rounds} interleaved "
            "rounds (target: hub <= 1.5x random)",
        )
    )
    parts.append(
        table(
            ["series", "windows", "B", "holds", "b_connectivity s", "is_b_connected s", "speed-up"],
            bcheck_rows(runs, args.B),
            title="Yes/no B check: stops at the first window not strongly connected",
        )
    )
    parts.append(f"load average at end: {load_average()}")
    out = "\n\n".join(parts)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
