"""Analysis of a long sparse span: its active steps only vs every step and window.

A series of T steps of which only a few hold an edge (a long time span binned
finely: most bins empty) is analysed by :func:`analysis_report` (what ``baygo
analyze`` prints) twice, interleaved (sparse, every, every, sparse, ...) so that both
see the same machine load: as the package does it (windows of the same active steps
answered once, the time to connectivity visiting the active steps only) and with every
step treated as active and every window answered on its own (the path before). Both
reports must be equal (floats within 1e-9: warm starts from other windows); the ratios
are per round, then their median. Run
``python benchmarks/bench_sparse_span.py [--steps T] [--nodes M] [--events E]
[--rounds R]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

from baygo_graph.analysis import analysis_report, centrality, connectivity  # noqa: E402
from baygo_graph.series import series_from_edges  # noqa: E402


def sparse_series(steps: int, nodes: int, events: int, seed: int = 0):
    """``events`` random contacts among ``nodes`` nodes at random steps of ``steps``,
    the first and last step included (so the series spans all of them)."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(0, steps, events))
    t[0], t[-1] = 0, steps - 1
    src = rng.integers(0, nodes, events)
    dst = (src + rng.integers(1, nodes, events)) % nodes
    return series_from_edges(t, dst, src, np.ones(events), n_steps=steps,
                             nodes=tuple(range(nodes)), self_weight="equal")  # fmt: skip


@contextmanager
def every_step():
    """Every step active and every window answered on its own (the path before)."""
    saved = (connectivity.active_steps, centrality.active_steps, connectivity.window_groups,
             centrality.window_groups)  # fmt: skip

    def active(series):
        return np.ones(series.n_steps, dtype=bool)

    def groups(series, start, stop):
        return np.arange(len(start)), np.arange(len(start))

    connectivity.active_steps = centrality.active_steps = active
    connectivity.window_groups = centrality.window_groups = groups
    try:
        yield
    finally:
        (connectivity.active_steps, centrality.active_steps, connectivity.window_groups,
         centrality.window_groups) = saved  # fmt: skip


def same(a, b) -> bool:
    """Equal reports: the same keys and values, floats within 1e-9 (sums in another order)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def compare(series, rounds: int) -> tuple[list, dict]:
    """Seconds of each path per round (interleaved) and the two reports' JSON."""
    times: dict = {"active steps": [], "every step": []}
    reports = {}
    for r in range(rounds):
        for name in (
            ("active steps", "every step") if r % 2 == 0 else ("every step", "active steps")
        ):
            t0 = time.perf_counter()
            if name == "every step":
                with every_step():
                    rep = analysis_report(series, window=10)
            else:
                rep = analysis_report(series, window=10)
            times[name].append(time.perf_counter() - t0)
            reports[name] = rep.as_dict()
    return times, reports


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    series = sparse_series(args.steps, args.nodes, args.events)
    times, reports = compare(series, args.rounds)
    equal = same(reports["active steps"], reports["every step"])
    fast, slow = np.array(times["active steps"]), np.array(times["every step"])
    ratio = slow / fast
    lines = [
        *machine_lines(),
        f"load average before: {load_average()}",
        f"analysis_report of {args.steps} steps, {args.nodes} nodes, {args.events} events "
        f"(window 10), {args.rounds} rounds interleaved; reports equal (floats within 1e-9): "
        f"{equal}",
        table(
            ["path", "median s", "min s", "max s"],
            [
                [k, f"{np.median(v):.3f}", f"{min(v):.3f}", f"{max(v):.3f}"]
                for k, v in times.items()
            ],  # fmt: skip
        ),
        f"every step / active steps: median {np.median(ratio):.1f}x "
        f"(range {ratio.min():.1f}x to {ratio.max():.1f}x)",
        f"load average after: {load_average()}",
    ]
    text = "\n".join(lines)
    print(text)
    if not equal:
        raise SystemExit("the two paths' reports differ")
    return text


if __name__ == "__main__":
    main()
