"""Smallest sliding B of a long BayGo-like series: our CSR two-pointer vs per-window NetworkX.

The series: T steps, M agents, every agent listens to one uniformly random other
agent per step (what BayGo's choices look like when no agent stands out). Both
methods find the smallest B such that every window of B consecutive steps has a
strongly connected union:

* ours - ``baygo_graph.analysis.smallest_b(run, windows="sliding")`` on a ``Run``
  (window unions built from the choice arrays into CSR, two pointers, scipy's
  strong components);
* reference - scan B = 1, 2, ...; for each B check the windows in order with
  ``nx.compose_all`` of the step digraphs + ``nx.is_strongly_connected``,
  stopping at the first failing window (step graphs built once per window scan
  and kept only while in the window).

Run::

    python benchmarks/bench_connectivity.py            # T=10,000, M=1,000 (minutes: NetworkX)
    python benchmarks/bench_connectivity.py --quick    # T=1,000, M=200
"""

from __future__ import annotations

import argparse
import time
from collections import OrderedDict

import networkx as nx
import numpy as np

from baygo_graph import Run
from baygo_graph.analysis import smallest_b, time_to_connectivity
from baygo_graph.series import ChoiceSeries


def random_choices(steps: int, agents: int, rng) -> np.ndarray:
    """(T, M) ints: each agent's uniformly random other agent."""
    ch = rng.integers(0, agents - 1, size=(steps, agents))
    return ch + (ch >= np.arange(agents))


def as_run(choices: np.ndarray) -> Run:
    t, m = choices.shape
    zeros = np.broadcast_to(0.0, (t, m))
    return Run(
        strategy="baygo",
        informative=0,
        delta=0.5,
        mse=zeros,
        entropy=zeros,
        mean=np.broadcast_to(0.0, (t, m, 2)),
        series=ChoiceSeries.from_choices(choices, delta=0.5),
    )


def step_graph(choice: np.ndarray) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(choice)))
    g.add_edges_from(zip(choice.tolist(), range(len(choice)), strict=True))
    return g


def networkx_smallest_sliding_b(choices: np.ndarray) -> tuple[int | None, int]:
    """Reference: per-window NetworkX union + strong-connectivity check."""
    t = len(choices)
    checks = 0
    for b in range(1, t + 1):
        cache: OrderedDict[int, nx.DiGraph] = OrderedDict()
        ok = True
        for s in range(t - b + 1):
            for k in range(s, s + b):
                if k not in cache:
                    cache[k] = step_graph(choices[k])
            while next(iter(cache)) < s:
                cache.popitem(last=False)
            checks += 1
            union = nx.compose_all([cache[k] for k in range(s, s + b)])
            if not nx.is_strongly_connected(union):
                ok = False
                break
        if ok:
            return b, checks
    return None, checks


def timed(fn, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="T=1,000, M=200")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.agents = 1_000, 200
    rng = np.random.default_rng(args.seed)
    choices = random_choices(args.steps, args.agents, rng)
    run = as_run(choices)
    print(f"series: T={args.steps:,} steps, M={args.agents:,} agents, seed {args.seed}")

    ours, t_ours, c_ours = timed(smallest_b, run, windows="sliding")
    aligned, t_aligned, c_aligned = timed(smallest_b, run, windows="aligned")
    ours, aligned = ours.B, aligned.B  # the window lengths of the two BCoverage results
    ttc, t_ttc, c_ttc = timed(time_to_connectivity, run)
    print(f"ours      smallest sliding B = {ours}  in {t_ours:8.2f} s wall, {c_ours:8.2f} s CPU")
    print(
        f"ours      smallest aligned B = {aligned}  in {t_aligned:8.2f} s wall, "
        f"{c_aligned:8.2f} s CPU"
    )
    print(
        f"ours      time_to_connectivity: median {np.median(ttc[ttc > 0]):.0f}, "
        f"max {ttc.max()} steps, in {t_ttc:.2f} s wall, {c_ttc:.2f} s CPU"
    )
    (ref, checks), t_ref, c_ref = timed(networkx_smallest_sliding_b, choices)
    print(
        f"networkx  smallest sliding B = {ref}  in {t_ref:8.2f} s wall, {c_ref:8.2f} s CPU "
        f"({checks:,} window checks)"
    )
    print(
        f"ratio networkx / ours (smallest sliding B) = {t_ref / t_ours:.0f}x wall, "
        f"{c_ref / c_ours:.0f}x CPU; answers agree: {ours == ref}"
    )
    if ours != ref:
        raise SystemExit("MISMATCH between ours and the NetworkX reference")


if __name__ == "__main__":
    main()
