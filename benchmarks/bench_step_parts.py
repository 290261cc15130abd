"""The paper-size run's step, part by part, in the real loop: this checkout vs a baseline.

Wraps the loop's own methods (the plan's batch statistics, the model's local update,
the KL choice and pooling, the measures) with a CPU-time counter of the calling thread
and runs :func:`baygo_graph.simulate` as the paper does (12 agents, grid 61 x 61, 60
steps, one BLAS thread, the real data when ``--data`` or ``$BAYGO_BODYFAT`` names it):
microseconds per step of each part, the rest of the loop (its bookkeeping), and the
run's setup and finish (outside the loop) per step. With ``--baseline REV`` the same
in child processes importing a checkout of REV (a temporary git worktree), alternating
with this checkout, so that the two columns are measured side by side.

Thread CPU time, not wall time: a shared machine disturbs it least (the counters cost
about 1 us a call; both sides pay them).

Run ``python benchmarks/bench_step_parts.py [--baseline REV] [--rounds N] [--data PATH]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENTS, GRID, STEPS = 12, 61, 60
#: (label, module, class, method) of each part timed; a part inside another is indented.
PARTS = (
    ("batch statistics", "baygo_graph.strategies.base", "Plan", "statistics"),
    ("local update (likelihood + refresh)", "baygo_graph.models.grid", "GridModel", "update"),
    ("choice and pooling", "baygo_graph.strategies.choice", "ChoicePlan", "pool_seeds"),
    ("  KL choice", "baygo_graph.models.grid", "GridModel", "most_divergent"),
    ("  pooling + refresh", "baygo_graph.models.grid", "GridModel", "pool_choices"),
    ("measures (moments, entropy, loss)", "baygo_graph.models.grid", "GridModel", "measure"),
    ("the loop's steps", "baygo_graph.learning", "_Loop", "_steps"),
)


def measure(data=None, *, runs: int = 20, steps: int = STEPS) -> dict:
    """Microseconds per step of each part (and ``"run"``: the whole call) over ``runs``
    paper-size runs after a warm-up, in this process, on one BLAS thread."""
    import importlib

    from threadpoolctl import threadpool_limits

    from baygo_graph import simulate

    spent = dict.fromkeys([label for label, *_ in PARTS], 0)
    saved = []
    for label, module, cls, name in PARTS:
        owner = getattr(importlib.import_module(module), cls)
        method = getattr(owner, name)
        saved.append((owner, name, method))

        def timed(*args, _m=method, _label=label, **kwargs):
            t0 = time.thread_time_ns()
            try:
                return _m(*args, **kwargs)
            finally:
                spent[_label] += time.thread_time_ns() - t0

        setattr(owner, name, functools.wraps(method)(timed))

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            simulate("baygo", agents=AGENTS, steps=steps, rng=0, data=data, progress=False)

    try:
        with threadpool_limits(1, user_api="blas"):
            run()
            for key in spent:
                spent[key] = 0
            t0 = time.thread_time_ns()
            for _ in range(runs):
                run()
            total = time.thread_time_ns() - t0
    finally:
        for owner, name, method in saved:
            setattr(owner, name, method)
    per_step = runs * steps * 1e3  # ns -> us per step
    out = {label: ns / per_step for label, ns in spent.items()}
    out["run"] = total / per_step
    return out


_CHILD = """
import json, sys
sys.path.insert(1, sys.argv[1])
import bench_step_parts as b
from baygo_graph.data import resolve_data
data = resolve_data(sys.argv[2] or None)
print(json.dumps(b.measure(data, runs=int(sys.argv[3]))))
"""


def _child(root: Path, data: str | None, runs: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = [sys.executable, "-c", _CHILD, str(Path(__file__).resolve().parent), data or "",
            str(runs)]  # fmt: skip
    done = subprocess.run(args, env=env, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the step parts at {root} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def rows(sides: dict) -> list:
    """Table rows: each part's median over the rounds on each side (and their ratio)."""
    names = list(sides)
    labels = [label for label, *_ in PARTS]
    out = []
    for label in [*labels, "rest of the loop", "setup and finish (per step)", "run"]:
        meds = []
        for name in names:
            rounds = sides[name]
            if label == "rest of the loop":
                parts = ("batch statistics", "local update (likelihood + refresh)",
                         "choice and pooling", "measures (moments, entropy, loss)")  # fmt: skip
                vals = [r["the loop's steps"] - sum(r[p] for p in parts) for r in rounds]
            elif label == "setup and finish (per step)":
                vals = [r["run"] - r["the loop's steps"] for r in rounds]
            else:
                vals = [r[label] for r in rounds]
            meds.append(float(np.median(vals)))
        ratio = [f"{meds[0] / meds[1]:.2f}x"] if len(meds) == 2 and meds[1] > 0 else []
        out.append([label, *(f"{m:.1f}" for m in meds), *ratio])
    return out


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=None, help="git revision to compare with")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--runs", type=int, default=20, help="runs per round (default 20)")
    ap.add_argument("--data", default=None, help="bodyfat CSV (default $BAYGO_BODYFAT)")
    args = ap.parse_args(argv)
    lines = [*machine_lines(), f"load average before: {load_average()}"]
    sides: dict = {"this checkout": []}
    if args.baseline is None:
        from baygo_graph.data import resolve_data

        data = resolve_data(args.data)
        sides["this checkout"] = [measure(data, runs=args.runs) for _ in range(args.rounds)]
    else:
        from bench_busy import baseline_tree

        sides[f"baseline {args.baseline}"] = []
        with baseline_tree(args.baseline) as (base, _):
            order = [("this checkout", ROOT), (f"baseline {args.baseline}", base)]
            for r in range(args.rounds):
                for name, root in order if r % 2 == 0 else order[::-1]:
                    sides[name].append(_child(root, args.data, args.runs))
    headers = ["us per step (thread CPU, median)", *sides]
    if len(sides) == 2:
        headers.append("ratio")
    lines.append(table(headers, rows(sides), title=(
        f"paper run ({AGENTS} agents, {GRID}x{GRID}, {STEPS} steps, 1 BLAS thread), "
        f"part by part, {args.rounds} rounds of {args.runs} runs")))  # fmt: skip
    lines.append(f"load average after: {load_average()}")
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
