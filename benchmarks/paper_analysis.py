"""Connectivity and influence of BayGo's emergent graph on the paper setup, over seeds.

A thin call of :func:`baygo_graph.analysis.analysis_table` (what ``baygo analyze``
prints over many runs): one BayGo run per seed of ``SeedSequence(0).spawn(seeds)``
(paper setup: 12 agents, T = 60, delta = 0.5), then per run and summarised
(median, IQR) the smallest B (aligned and sliding windows), the share of the other
agents listening to the informative agent, its influence and influence rank.

Run::

    python benchmarks/paper_analysis.py --data /path/to/bodyfat.csv   # or $BAYGO_BODYFAT
    python benchmarks/paper_analysis.py --window 5 --seeds 20 --out analysis

With neither ``--data`` nor ``$BAYGO_BODYFAT`` the runs use the labelled synthetic
stand-in (and say so).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from baygo_graph import simulate
from baygo_graph.analysis import analysis_table, summarize_analysis
from baygo_graph.data import BODYFAT_ENV


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get(BODYFAT_ENV))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--agents", type=int, default=12)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--out", default=None, help="also save the runs in this folder")
    args = parser.parse_args(argv)

    tic = time.perf_counter()
    runs = {
        ("baygo", k): simulate(
            "baygo", agents=args.agents, steps=args.steps, rng=seq, data=args.data
        )
        for k, seq in enumerate(np.random.SeedSequence(0).spawn(args.seeds))
    }
    table = analysis_table(runs, window=args.window)
    elapsed = time.perf_counter() - tic
    if args.out:
        from baygo_graph.io.runs import save_runs

        save_runs(runs, args.out, overwrite=True)
    synthetic = " (SYNTHETIC)" if table["synthetic"].any() else ""
    print(
        f"BayGo, {args.agents} agents, T={args.steps}, {args.seeds} seeds "
        f"(SeedSequence(0).spawn), data {table['data'].iloc[0]}{synthetic}; "
        f"window {args.window}; simulation + analysis {elapsed:.1f} s\n"
    )
    print(table.drop(columns=["data", "synthetic"]).to_string(index=False))
    print()
    print(summarize_analysis(table).to_string(index=False))


if __name__ == "__main__":
    main()
