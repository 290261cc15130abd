"""Peak memory (RSS) of a run, measured in a fresh subprocess.

A run keeps compact per-step arrays only (choices, MSE, entropy, posterior
mean: 36 bytes per agent per step), never T x M x K posteriors, so its peak
RSS must not grow with T beyond those arrays. Run
``python benchmarks/bench_memory.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

from baygo_graph.models import LinearRegression  # noqa: E402
from baygo_graph.strategies import BayGo  # noqa: E402

# bytes kept per agent per step: mse, entropy (8 + 8), mean (16), choices (4)
PER_STEP_BYTES = 36
LIMIT_GIB = 4.0


def peak_rss() -> int:
    """High-water mark of this process's resident memory, in bytes.

    ``VmHWM`` from /proc/self/status: it starts afresh at ``exec``, unlike
    ``getrusage().ru_maxrss``, which Linux carries over from the parent process.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(agents: int, grid: int, steps: int, graph: str) -> None:
    """Run one simulation and print its peak RSS as JSON (runs in the subprocess)."""
    import warnings

    from _common import bench_data, physical_graph

    from baygo_graph import simulate

    data = bench_data(agents)
    phys = physical_graph(graph, agents)
    base = peak_rss()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = simulate(
            BayGo(physical=phys),
            agents=agents,
            steps=steps,
            model=LinearRegression(grid=grid),
            rng=0,
            data=data,
            progress=False,
        )
    seconds = time.perf_counter() - t0
    peak = peak_rss()
    print(
        json.dumps(
            {
                "peak": peak,
                "before_run": base,
                "seconds": seconds,
                "kept": int(
                    run.mse.nbytes + run.entropy.nbytes + run.mean.nbytes + run.choices.nbytes
                ),
            }
        )
    )


def measure(agents: int, grid: int, steps: int, graph: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(agents), str(grid), str(steps), graph],
        check=True,
        capture_output=True,
        text=True,
    )
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec.update(agents=agents, grid=grid, steps=steps, graph=graph)
    return rec


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", nargs=4, metavar=("M", "GRID", "T", "GRAPH"))
    args = parser.parse_args(argv)
    if args.child:
        m, g, t, graph = args.child
        child(int(m), int(g), int(t), graph)
        return ""
    m, g = (2000, 61) if args.quick else (10_000, 61)
    t_short, t_long = (10, 40) if args.quick else (50, 200)
    graph = "regular-10"
    recs = [measure(m, g, t, graph) for t in (t_short, t_long)]
    rows = []
    for r in recs:
        rows.append(
            [
                r["graph"],
                r["agents"],
                r["grid"] ** 2,
                r["steps"],
                f"{r['peak'] / 2**30:.2f} GiB",
                f"{r['before_run'] / 2**20:.0f} MiB",
                f"{r['kept'] / 2**20:.1f} MiB",
                f"{r['seconds']:.0f} s",
            ]
        )
    grow = recs[1]["peak"] - recs[0]["peak"]
    expected = PER_STEP_BYTES * m * (t_long - t_short)
    text = table(
        [
            "physical",
            "M",
            "K",
            "T",
            "peak RSS",
            "peak RSS before run (data, graph)",
            "kept per-step arrays",
            "run time",
        ],
        rows,
        title="Peak memory of a BayGo run (fresh subprocess, float64)",
    )
    text += (
        f"\n\npeak growth T={t_short} -> T={t_long}: {grow / 2**20:.1f} MiB "
        f"(compact per-step arrays: {expected / 2**20:.1f} MiB); "
        f"peak at T={t_long}: {recs[1]['peak'] / 2**30:.2f} GiB "
        f"({'under' if recs[1]['peak'] < LIMIT_GIB * 2**30 else 'OVER'} the {LIMIT_GIB:.0f} GiB "
        "target)"
    )
    out = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n" + text
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
