"""Connectivity and influence of BayGo's emergent graph on the paper setup, over seeds.

Paper setup: bodyfat data, 12 agents, T = 60, delta = 0.5, 20 seeds from
``np.random.SeedSequence(0).spawn(20)``. For every seed one BayGo run; the
script prints distributions over seeds of

* the smallest B (aligned and sliding windows, incomplete windows dropped);
* the informative agent's influence and rank, per sliding window union and per
  window product (windows of ``--window`` steps; a window without a unique
  influence vector is left out), and per single step;
* the fraction of the other agents listening to the informative agent, per step;

next to the informative agent's influence under the fixed references (PosM star,
NegM star, complete graph) computed with the same functions.

Run::

    python benchmarks/paper_analysis.py      # data: $BAYGO_BODYFAT, else the shared file
    python benchmarks/paper_analysis.py --window 5 --seeds 20
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from baygo_graph import simulate
from baygo_graph.analysis import (
    influence_rank,
    influence_series,
    listener_fraction,
    reference_influence,
    smallest_b,
    time_to_connectivity,
)

DEFAULT_DATA = "/work/shared/data/bodyfat.csv"


def dist(values) -> str:
    """median [q25, q75] (min..max) of the finite values, and how many."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) == 0:
        return "n/a"
    q = np.percentile(v, [0, 25, 50, 75, 100])
    return f"{q[2]:7.3f} [{q[1]:.3f}, {q[3]:.3f}] ({q[0]:.3f}..{q[4]:.3f}) n={len(v)}"


def top_share(rank) -> float:
    """Share of the windows with a defined rank where the agent ranks first."""
    rank = rank[~np.isnan(rank)]
    return float(np.mean(rank == 1)) if len(rank) else np.nan


def analyse(run, window: int) -> dict:
    agent = run.informative
    out = {
        "b_aligned": smallest_b(run, windows="aligned"),
        "b_sliding": smallest_b(run, windows="sliding"),
        "ttc": time_to_connectivity(run),
        "listening": listener_fraction(run),
    }
    for method in ("union", "product"):
        inf = influence_series(run, window=window, method=method)
        out[f"{method}_inf"] = inf[:, agent]
        out[f"{method}_rank"] = influence_rank(inf, agent)
        out[f"{method}_defined"] = float(np.mean(~np.isnan(inf[window - 1 :, agent])))
    step = influence_series(run, window=1)
    out["step_inf"] = step[:, agent]
    out["step_defined"] = float(np.mean(~np.isnan(step[:, agent])))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("BAYGO_BODYFAT", DEFAULT_DATA))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--agents", type=int, default=12)
    parser.add_argument("--window", type=int, default=10)
    args = parser.parse_args(argv)

    tic = time.perf_counter()
    results = []
    synthetic = False
    for seq in np.random.SeedSequence(0).spawn(args.seeds):
        run = simulate("baygo", agents=args.agents, steps=args.steps, rng=seq, data=args.data)
        synthetic |= run.synthetic
        results.append(analyse(run, args.window))
    elapsed = time.perf_counter() - tic
    m, w = args.agents, args.window
    refs = reference_influence(m, delta=0.5)

    print(
        f"BayGo, {m} agents, T={args.steps}, delta=0.5, {args.seeds} seeds "
        f"(SeedSequence(0).spawn), data {args.data}{' (SYNTHETIC)' if synthetic else ''}"
    )
    print(f"window w = {w} steps; simulation + analysis {elapsed:.1f} s\n")

    def col(key):
        return [r[key] for r in results]

    print("== smallest B over seeds (None: no B <= T works) ==")
    for kind in ("aligned", "sliding"):
        bs = col(f"b_{kind}")
        found = [b for b in bs if b is not None]
        print(f"  {kind:8s} values {bs}")
        print(f"  {kind:8s} {dist(found)}; none for {bs.count(None)}/{len(bs)} seeds")
    reach = [np.mean(r["ttc"] > 0) for r in results]
    ttc = [np.median(r["ttc"][r["ttc"] > 0]) if (r["ttc"] > 0).any() else np.nan for r in results]
    print(
        "  share of start steps from which the union ever becomes strongly connected: "
        f"{dist(reach)}"
    )
    print(f"  median time to strong connectivity (steps, per seed): {dist(ttc)}\n")

    print("== informative agent's influence (per seed: mean over windows where unique) ==")
    print(
        f"  reference PosM {refs['posm']:.4f}, NegM {refs['negm']:.4f}, "
        f"complete {refs['complete']:.4f}  (uniform share 1/M = {1 / m:.4f})"
    )
    for method in ("union", "product"):
        inf = [np.nanmean(r[f"{method}_inf"]) for r in results]
        rank = [np.nanmean(r[f"{method}_rank"]) for r in results]
        top = [top_share(r[f"{method}_rank"]) for r in results]
        last = [r[f"{method}_inf"][-1] for r in results]
        defined = [r[f"{method}_defined"] for r in results]
        print(f"  {method:7s} influence  {dist(inf)}")
        print(f"  {method:7s} final-window influence {dist(last)}")
        print(f"  {method:7s} rank (1=top) {dist(rank)}")
        print(f"  {method:7s} share of windows where it ranks 1st {dist(top)}")
        print(f"  {method:7s} share of windows with a unique influence {dist(defined)}")
    step_def = [r["step_defined"] for r in results]
    step_inf = [np.nanmean(r["step_inf"]) if r["step_defined"] else np.nan for r in results]
    print(f"  single steps: share with a unique influence {dist(step_def)}")
    print(f"  single steps: informative influence where unique {dist(step_inf)}\n")

    print("== fraction of the other agents listening to the informative agent ==")
    lis = np.array(col("listening"))  # (seeds, T)
    print(f"  overall mean per seed {dist(lis.mean(axis=1))}  (chance 1/(M-1) = {1 / (m - 1):.4f})")
    thirds = np.array_split(np.arange(args.steps), 3)
    for part, idx in zip(("first", "middle", "last"), thirds, strict=True):
        print(f"  {part:6s} third (steps {idx[0]}-{idx[-1]}) {dist(lis[:, idx].mean(axis=1))}")
    print("  mean over seeds, per step:")
    for lo in range(0, args.steps, 10):
        vals = " ".join(f"{v:.2f}" for v in lis[:, lo : lo + 10].mean(axis=0))
        print(f"    steps {lo:3d}-{min(lo + 9, args.steps - 1):3d}: {vals}")


if __name__ == "__main__":
    main()
