"""Peak resident memory of runs at the edge of the memory budget, and at the limit a
refusal advises: the budget bounds the process's peak (``docs/scaling.md``, "The memory
budget").

Each case runs in a fresh subprocess under ``BAYGO_MEMORY_LIMIT``; its peak resident
size is ``/usr/bin/time -f "%M kB"`` (Linux; ``ru_maxrss`` of the child elsewhere).
Two runs per case:

* **edge**: the largest size that passes the budget check (found with the package's
  own check in the child, then run; a few per cent smaller if the run's own check
  refuses it), its peak beside the budget;
* **advice**: a size just past the budget: the refusal's line, then the same run with
  ``BAYGO_MEMORY_LIMIT`` set to the limit the line advises, its peak beside that limit.

A ratio peak / budget above 1 is a run that passed the check and went past the budget.
Cases: ``seeds-at-once`` (``simulate_seeds(at_once=1000)`` of the paper's grid, 2 steps),
``seeds-many`` (20 agents, 200 steps, grid 5: the results of every seed),
``gif`` (``baygo animate`` of a 3-agent run, ``--dpi 40``), ``gexf``, ``graphml``,
``json`` (``write_series`` to that format of a series whose edges, self-weights and
influence change at every step: ``--nodes`` x ``--steps``, each node hearing 1 or 2
random others a step). Run::

    python benchmarks/bench_budget.py                 # every case
    python benchmarks/bench_budget.py --case gif --frames 1000
    python benchmarks/bench_budget.py --case gexf --nodes 300 --steps 3000
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_SEEDS = """
import sys, warnings, baygo_graph as bg
warnings.simplefilter("ignore")  # coarse-grid warnings: not what is measured
from baygo_graph import learning
from baygo_graph.exceptions import BudgetError
from baygo_graph.models import LinearRegression
mode, agents, steps, grid, at_once = sys.argv[1], *map(int, sys.argv[2:6])
opts = dict(agents=agents, steps=steps, model=LinearRegression(grid=grid),
            data=bg.synthetic_bodyfat(), progress=False, at_once=at_once or None)

def passes(n):  # the package's first check of simulate_seeds(seeds=range(n))
    model = opts["model"]
    strat = learning.resolve_strategy("baygo", agents=agents, informative=0)
    sizes = dict(agents=agents, steps=steps, batch=1, dtype=learning.np.dtype("float64"),
                 keep=set())
    try:
        learning._check_memory(model, strat, seeds=min(at_once or 1, n), runs=n, **sizes)
    except BudgetError:
        return False
    return True

if mode == "edge":
    lo, hi = 1, 1
    while passes(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if passes(mid) else (lo, mid)
    n = lo
else:
    n = int(sys.argv[6])
for _ in range(5):
    try:
        runs = bg.simulate_seeds("baygo", seeds=range(n), **opts)
        print(f"RAN {n}")
        break
    except BudgetError as e:
        if mode != "edge":
            print(f"REFUSED {n} {e}")
            break
        n = int(n * 0.98)
"""


_WRITE = """
import sys, numpy as np, baygo_graph as bg
from baygo_graph.exceptions import BudgetError
from baygo_graph.series import series_from_edges
nodes, steps = map(int, sys.argv[1:3])
rng = np.random.default_rng(0)
per = rng.integers(1, 3, (steps, nodes))
step = np.repeat(np.arange(steps), per.sum(axis=1))
dst = np.concatenate([np.repeat(np.arange(nodes), row) for row in per])
src = (dst + rng.integers(1, nodes, len(dst))) % nodes
s = series_from_edges(step, src, dst, np.ones(len(dst)), n_steps=steps,
                      nodes=tuple(range(nodes)), self_weight="equal")
try:
    bg.write_series(s, "s" + sys.argv[3], window=1, overwrite=True)
    print("RAN written")
except BudgetError as e:
    print(f"REFUSED {e}")
"""


_WRITERS = ("gexf", "graphml", "json")


def _peak(cmd: list, limit: str, cwd=None) -> tuple[int, str]:
    """(peak kB, stdout + stderr) of ``cmd`` under ``BAYGO_MEMORY_LIMIT=limit``."""
    env = os.environ | {"BAYGO_MEMORY_LIMIT": limit, "OPENBLAS_NUM_THREADS": "1"}
    timer = shutil.which("time") or "/usr/bin/time"
    if Path(timer).exists():
        done = subprocess.run([timer, "-f", "PEAK %M kB", *cmd], capture_output=True,
                              text=True, env=env, cwd=cwd)  # fmt: skip
        kb = int(re.findall(r"PEAK (\d+) kB", done.stderr)[-1])
    else:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
        kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return kb, done.stdout + done.stderr


def _advised(text: str) -> str | None:
    found = re.search(r"BAYGO_MEMORY_LIMIT=(\S+) or more", text)
    return found.group(1) if found else None


def _row(case: str, run: str, what: str, limit: str, kb: int) -> None:
    from baygo_graph.limits import parse_bytes

    budget = parse_bytes(limit)
    print(f"| {case} | {run} | {what} | {limit} | {kb * 1024 / 2**20:.0f} MiB | "
          f"{kb * 1024 / budget:.2f} |", flush=True)  # fmt: skip


def seeds_case(name: str, limit: str, agents, steps, grid, at_once, past: int) -> None:
    args = [str(agents), str(steps), str(grid), str(at_once)]
    kb, out = _peak([sys.executable, "-c", _SEEDS, "edge", *args], limit)
    ran = re.findall(r"RAN (\d+)", out)
    _row(name, "edge", f"{ran[-1]} seeds ran" if ran else out.strip()[-200:], limit, kb)
    kb, out = _peak([sys.executable, "-c", _SEEDS, "size", *args, str(past)], limit)
    advised = _advised(out)
    print(f"  {past} seeds under {limit}: {out.strip()[-320:]}")
    if advised:
        kb, out = _peak([sys.executable, "-c", _SEEDS, "size", *args, str(past)], advised)
        what = f"{past} seeds at the advised limit: " + ("ran" if "RAN" in out else "refused")
        _row(name, "advice", what, advised, kb)


def gif_case(limit: str, frames: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        baygo = [
            sys.executable,
            "-c",
            "import sys; from baygo_graph.cli import main; sys.exit(main())",
        ]
        subprocess.run([*baygo, "run", "--strategy", "baygo", "--agents", "3", "--steps",
                        str(frames), "--grid", "5", "--out", "r", "--no-progress"], cwd=tmp,
                       check=True, capture_output=True)  # fmt: skip
        cmd = [*baygo, "animate", "r", "--out", "a.gif", "--dpi", "40", "--force"]
        kb, out = _peak(cmd, limit, cwd=tmp)
        advised = _advised(out)
        print(f"  {frames} frames under {limit}: {out.strip()[-320:]}")
        _row("gif", "under the limit", f"{frames} frames: " + (
            "refused" if advised else "written"), limit, kb)  # fmt: skip
        if advised:
            kb, out = _peak(cmd, advised, cwd=tmp)
            what = f"{frames} frames at the advised limit: " + (
                "written" if "wrote" in out else out.strip()[-120:])  # fmt: skip
            _row("gif", "advice", what, advised, kb)


def write_case(fmt: str, limit: str, nodes: int, steps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", _WRITE, str(nodes), str(steps), f".{fmt}"]
        kb, out = _peak(cmd, limit, cwd=tmp)
        advised = _advised(out)
        print(f"  {nodes} nodes x {steps} steps under {limit}: {out.strip()[-320:]}")
        _row(fmt, "under the limit", "refused" if advised else "written", limit, kb)
        if advised:
            kb, out = _peak(cmd, advised, cwd=tmp)
            what = "at the advised limit: " + ("written" if "RAN" in out else out.strip()[-120:])
            _row(fmt, "advice", what, advised, kb)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["seeds-at-once", "seeds-many", "gif", *_WRITERS, "all"],
                        default="all")  # fmt: skip
    parser.add_argument("--frames", type=int, default=3000, help="GIF frames (run steps)")
    parser.add_argument("--nodes", type=int, default=150, help="written series: nodes")
    parser.add_argument("--steps", type=int, default=1000, help="written series: steps")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| case | run | what | budget | peak RSS | peak / budget |")
    print("| --- | --- | --- | --- | --- | --- |")
    if args.case in ("seeds-at-once", "all"):
        seeds_case("seeds-at-once", "300M", 12, 2, 61, 1000, past=240)
    if args.case in ("seeds-many", "all"):
        seeds_case("seeds-many", "200M", 20, 200, 5, 0, past=1200)
    if args.case in ("gif", "all"):
        gif_case("300M", args.frames)
    for fmt in _WRITERS:
        if args.case in (fmt, "all"):
            write_case(fmt, "300M", args.nodes, args.steps)


if __name__ == "__main__":
    main()
