"""Where a BayGo step spends its time, phase by phase.

Replays the operations of one step of :func:`baygo_graph.simulate` (same
functions, same buffers) with a timer around each phase, and prints the share
of each. Run ``python benchmarks/bench_profile.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_data, fmt_time, load_average, machine_lines, table  # noqa: E402


def profile(agents: int, grid: int, *, steps: int = 5, dtype="float64") -> dict:
    from baygo_graph.data import draw_batches, paper_split
    from baygo_graph.models import (
        batch_statistics,
        log_likelihood,
        log_prior,
        make_grid,
        mse_function,
        pool_into,
    )
    from baygo_graph.models.kl import dense_argmin

    rng = np.random.default_rng(0)
    split = paper_split(bench_data(agents), agents=agents, rng=rng)
    g = make_grid(grid)
    logp = np.tile(log_prior(g).astype(dtype), (agents, 1))
    expo, pooled = np.empty_like(logp), np.empty_like(logp)
    moments = np.column_stack([np.ones(g.size), g.theta]).astype(dtype)
    test_mse = mse_function(split.x_test, split.y_test)
    acc: dict[str, float] = {}

    def lap(name, t0):
        t = time.perf_counter()
        acc[name] = acc.get(name, 0.0) + t - t0
        return t

    for _ in range(steps + 1):
        if _ == 1:
            acc.clear()  # the first step warms up caches and pages
        t0 = time.perf_counter()
        x, y = draw_batches(split, 1, rng)
        stats = batch_statistics(x, y)
        t0 = lap("batch + statistics", t0)
        logp += log_likelihood(g, stats, split.sigma_ls, out=expo)
        t0 = lap("likelihood (M,6)x(6,K) + add", t0)
        logp -= logp.max(axis=1, keepdims=True)
        t0 = lap("max shift (local)", t0)
        np.exp(logp, out=expo)
        t0 = lap("exp (local)", t0)
        z = expo.sum(axis=1)
        t0 = lap("row sums", t0)
        cross = expo @ logp.T
        t0 = lap("KL cross product (M,K)x(K,M)", t0)
        cross /= z[:, None]
        cross -= np.log(z)[None, :]
        np.fill_diagonal(cross, np.inf)
        choice = dense_argmin(cross, rng)
        t0 = lap("argmax + ties (M,M)", t0)
        pool_into(pooled, logp, choice, 0.5)
        logp, pooled = pooled, logp
        t0 = lap("pooling", t0)
        logp -= logp.max(axis=1, keepdims=True)
        t0 = lap("max shift (pooled)", t0)
        np.exp(logp, out=expo)
        t0 = lap("exp (pooled)", t0)
        mom = (expo @ moments).astype(np.float64)
        m = mom[:, 1:] / mom[:, :1]
        ent = np.log(mom[:, 0]) - np.einsum("mk,mk->m", expo, logp) / mom[:, 0]
        test_mse(m)
        del ent
        t0 = lap("metrics (mean, entropy, MSE)", t0)
    return {k: v / steps for k, v in acc.items()}


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    parts = ["\n".join(machine_lines()) + f"\nload average: {load_average()}"]
    for m, g in [(100, 61), (1000, 61)]:
        res = profile(m, g, steps=3 if args.quick else 10)
        total = sum(res.values())
        rows = [
            [k, fmt_time(v), f"{v / total:.0%}"]
            for k, v in sorted(res.items(), key=lambda kv: -kv[1])
        ]
        rows.append(["total", fmt_time(total), "100%"])
        parts.append(
            table(
                ["phase", "time", "share"],
                rows,
                title=f"One BayGo step, M={m}, K={g * g}, complete graph, float64",
            )
        )
    out = "\n\n".join(parts)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
