"""float32 posteriors: accuracy against float64 (MSE, choices) and speed.

``simulate(..., dtype="float32")`` keeps the (M, K) posterior arrays in single
precision (metrics stay float64). This measures what it changes: the largest
difference in test MSE, the number of neighbour choices that differ, and the step
time. Run ``python benchmarks/bench_float32.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_data, fmt_time, load_average, machine_lines, step_time, table  # noqa: E402

from baygo_graph.models import LinearRegression


def accuracy(agents, grid, steps, seeds) -> dict:
    from baygo_graph import simulate

    data = bench_data(agents)
    mse_abs, mse_rel, agree, first = [], [], [], []
    for seed in seeds:
        runs = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for dtype in ("float64", "float32"):
                runs[dtype] = simulate(
                    "baygo",
                    agents=agents,
                    steps=steps,
                    model=LinearRegression(grid=grid, dtype=dtype),
                    rng=seed,
                    data=data,
                    progress=False,
                )
        a, b = runs["float64"], runs["float32"]
        mse_abs.append(np.abs(a.mse - b.mse).max())
        mse_rel.append((np.abs(a.mse[-1] - b.mse[-1]) / a.mse[-1]).max())
        same = a.choices == b.choices
        agree.append(int((~same).sum()))
        diverged = np.flatnonzero(~same.all(axis=1))
        first.append(int(diverged[0]) if len(diverged) else steps)
    return {
        "mse_abs": max(mse_abs),
        "mse_rel": max(mse_rel),
        "differ": sum(agree),
        "total": len(seeds) * steps * agents,
        "first": min(first),
    }


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    n_seeds = 3 if args.quick else 10
    rows = []
    for m, g, t in [(12, 61, 100), (100, 61, 60)] + ([] if args.quick else [(1000, 61, 20)]):
        r = accuracy(m, g, t, range(n_seeds))
        rows.append(
            [
                m,
                g * g,
                t,
                n_seeds,
                f"{r['mse_abs']:.1e}",
                f"{r['mse_rel']:.1e}",
                f"{r['differ']} of {r['total']}",
                r["first"] if r["differ"] else "none",
            ]
        )
    acc = table(
        [
            "M",
            "K",
            "T",
            "seeds",
            "max abs. MSE diff (all steps)",
            "max rel. diff final MSE",
            "choices that differ",
            "first step with a difference",
        ],
        rows,
        title="float32 vs float64: accuracy (BayGo, complete graph)",
    )
    rows = []
    for m, g in [(100, 61), (1000, 61)]:
        data = bench_data(m)
        steps = 20 if m == 100 else 3
        t64 = step_time(m, g, steps=steps, data=data, repeat=3)
        t32 = step_time(m, g, steps=steps, data=data, repeat=3, dtype="float32")
        rows.append([m, g * g, fmt_time(t64), fmt_time(t32), f"{t64 / t32:.2f}"])
    speed = table(
        ["M", "K", "float64 step", "float32 step", "speed-up"],
        rows,
        title="float32 vs float64: step time",
    )
    out = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n{acc}\n\n{speed}"
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
