"""The exact Gaussian mode at scale: M = 10^6 agents, random 10-regular graph, BayGo.

In a fresh subprocess (so the peak RSS is this run's alone): wall time and peak
RSS of ``simulate(model="exact")`` (set-up included: split, physical graph), then a
per-phase profile of the same loop written out with the public kernels. Beside
it, at a size the grid loop can run, the per-step time of the grid loop and of
the exact one on the same machine load. Target: under 60 s and under 8 GiB at
M = 10^6, T = 20. Run ``python benchmarks/bench_exact.py [--quick]`` (quick:
M = 10^5, T = 10).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_data, fmt_time, load_average, machine_lines, table  # noqa: E402
from bench_memory import peak_rss  # noqa: E402

from baygo_graph.models import LinearRegression  # noqa: E402
from baygo_graph.strategies import BayGo  # noqa: E402

LIMIT_S = 60.0
LIMIT_GIB = 8.0
GRAPH = "regular-10"
PHASES = ("batches", "update", "KL choices", "pooling", "metrics")


def profile(agents: int, steps: int, *, graph: str = GRAPH) -> dict:
    """Seconds per phase over ``steps`` BayGo steps of the exact loop (plus set-up)."""
    from baygo_graph.data import resolve_data
    from baygo_graph.data.splits import shared_split
    from baygo_graph.models import (
        batch_statistics,
        exact_choices,
        exact_metrics,
        exact_pool,
        exact_prior,
        exact_update,
    )
    from baygo_graph.strategies.physical import resolve_listen

    rng = np.random.default_rng(0)
    spent = dict.fromkeys(("split", "physical graph", *PHASES), 0.0)
    t0 = time.perf_counter()
    split = shared_split(resolve_data(None), agents=agents, rng=rng)
    t1 = time.perf_counter()
    listen = resolve_listen(graph, agents)
    spent["split"], spent["physical graph"] = t1 - t0, time.perf_counter() - t1
    state = exact_prior(agents)
    for _ in range(steps):
        marks = [time.perf_counter()]
        stats = batch_statistics(*split.draw(1, rng))
        marks.append(time.perf_counter())
        state = exact_update(state, stats, split.sigma_ls)
        marks.append(time.perf_counter())
        choices = exact_choices(state, listen, rng)
        marks.append(time.perf_counter())
        state = exact_pool(state, choices=choices, delta=0.5)
        marks.append(time.perf_counter())
        exact_metrics(state, x_test=split.x_test, y_test=split.y_test)
        marks.append(time.perf_counter())
        for name, a, b in zip(PHASES, marks, marks[1:], strict=False):
            spent[name] += b - a
    return spent


def child(agents: int, steps: int) -> None:
    """Time one run, record its peak RSS, then profile (runs in the subprocess)."""
    from baygo_graph import simulate
    from baygo_graph.data import resolve_data

    data = resolve_data(None)
    base = peak_rss()
    t0 = time.perf_counter()
    run = simulate(
        BayGo(physical=GRAPH),
        model="exact",
        agents=agents,
        steps=steps,
        rng=0,
        data=data,
        progress=False,
    )
    seconds = time.perf_counter() - t0
    rec = {
        "seconds": seconds,
        "peak": peak_rss(),
        "before_run": base,
        "kept": int(run.mse.nbytes + run.entropy.nbytes + run.mean.nbytes + run.choices.nbytes),
        "edges": run.config["physical"],
        "data": data.source,
        "final_mse": [float(run.mse[-1, 0]), float(run.mse[-1, 1:].mean())],
    }
    del run
    rec["profile"] = profile(agents, steps)
    print(json.dumps(rec))


def measure(agents: int, steps: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(agents), str(steps)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def grid_vs_exact(agents: int) -> tuple[float, float]:
    """Seconds per step of the grid loop (K = 61^2) and of the exact loop, side by side.

    Grid: (time of 1 + 3 steps - time of 1 step) / 3, the best of two tries (removes
    the set-up). Exact: the sum of the phases of :func:`profile` over 30 steps / 30
    (a step is too short for the difference of two runs to beat the set-up's noise).
    """
    import warnings

    from baygo_graph import simulate
    from baygo_graph.strategies import physical_graph

    # enough samples for paper_split (the grid loop's split) to give each agent some
    kw = {"agents": agents, "rng": 0, "data": bench_data(agents), "progress": False}
    kw["physical"] = physical_graph(GRAPH, agents)
    best = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            t0 = time.perf_counter()
            simulate("baygo", steps=1, model=LinearRegression(grid=61), **kw)
            t1 = time.perf_counter()
            simulate("baygo", steps=4, model=LinearRegression(grid=61), **kw)
            best = min(best, (time.perf_counter() - t1) - (t1 - t0))
    spent = profile(agents, 30)
    return max(best, 0.0) / 3, sum(spent[p] for p in PHASES) / 30


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("M", "T"))
    args = parser.parse_args(argv)
    if args.child:
        child(int(args.child[0]), int(args.child[1]))
        return ""
    agents, steps = (100_000, 10) if args.quick else (1_000_000, 20)
    rec = measure(agents, steps)
    prof = rec["profile"]
    loop = sum(prof[p] for p in PHASES)
    peak_gib = rec["peak"] / 2**30
    rows = [
        [
            name,
            fmt_time(prof[name]),
            fmt_time(prof[name] / steps) if name in PHASES else "-",
            f"{100 * prof[name] / loop:.0f} %" if name in PHASES else "-",
        ]
        for name in ("split", "physical graph", *PHASES)
    ]
    text = table(
        ["phase", "total", "per step", "share of loop"],
        rows,
        title=f"Exact BayGo step profile, M = {agents:,}, T = {steps}, {GRAPH} ({rec['edges']:,} "
        "directed edges)",
    )
    ok_t, ok_m = rec["seconds"] < LIMIT_S, peak_gib < LIMIT_GIB
    text += (
        f"\n\nsimulate(model='exact'), fresh subprocess: {rec['seconds']:.1f} s wall "
        f"({'under' if ok_t else 'OVER'} the {LIMIT_S:.0f} s target), peak RSS "
        f"{peak_gib:.2f} GiB ({'under' if ok_m else 'OVER'} the {LIMIT_GIB:.0f} GiB target); "
        f"before the run {rec['before_run'] / 2**20:.0f} MiB; kept per-step arrays "
        f"{rec['kept'] / 2**20:.0f} MiB; data: {rec['data']}; final MSE informative "
        f"{rec['final_mse'][0]:.4f}, others {rec['final_mse'][1]:.4f}"
    )
    small = 2_000 if args.quick else 10_000
    g, e = grid_vs_exact(small)
    text += (
        f"\n\nper step at M = {small:,} ({GRAPH}), side by side: grid (K = 61^2) "
        f"{fmt_time(g)}, exact {fmt_time(e)}: exact is {g / max(e, 1e-9):.0f}x faster"
    )
    out = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n" + text
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
