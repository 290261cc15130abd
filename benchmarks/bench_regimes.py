"""Wall time of the regime map: this tree against another version, side by side.

Each version runs :func:`baygo_graph.reproduce.regimes` in a fresh subprocess (its
own ``PYTHONPATH``), alternating A (this tree) and B (``--baseline DIR``, a source
tree of the other version, e.g. ``git archive <commit> | tar -x -C DIR``), so both
see the same machine load. It prints each wall time, the median ratio B / A, the
runs each version made (simulations: strategy x seed x regime, counted from each
map's looks), and whether the verdicts of the claims both versions test agree.

Run ``python benchmarks/bench_regimes.py --data bodyfat.csv [--baseline DIR]``: the
full default map (8 regimes, 10 -> 20 -> 40 -> 80 seeds, T = 60, all cores), the
configuration of docs/paper.md. ``--looks``: two regimes (grid 61 and 31), 2 -> 4 -> 5
seeds, T = 30, so that every regime takes every look in both versions (5 seeds never
decide a consensus claim): the cost of the looks themselves, side by side in minutes.
``--quick``: synthetic data, 2 regimes, 4 -> 8 -> 16 seeds, T = 20, grid 21 (checks
the script). ``--first-look``: the full map's first look only (8 regimes x 10 seeds x 7
strategies = 560 runs, T = 60), an eighth of the full map's runs in the same mix of
regimes; when every regime takes all four looks (as on bodyfat), the full map runs
each of those regimes' runs 8 times, so it prints 8 x its wall time as the estimate of
the full map (the claims' own cost grows with the seeds; it overlaps the runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
TARGET_S = 150.0

_CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
from baygo_graph.reproduce import regimes, STRATEGIES
args = json.loads(sys.argv[1])
cells = args.pop("cells")
t0 = time.perf_counter()
m = regimes(cells=cells, progress=False, **args) if cells else regimes(progress=False, **args)
wall = time.perf_counter() - t0
runs = getattr(m, "runs", None)
if runs is not None:
    made = len(runs)
else:  # a version that re-runs every look: each look of a regime runs all its seeds
    per = m.looks.groupby(["regime", "look"])["seeds"].first()
    made = int(per.sum()) * len(STRATEGIES)
verdicts = {f"{r} | {c}": v for r, c, v in m.table[["regime", "claim", "verdict"]].values}
print(json.dumps({"wall": wall, "runs": made, "verdicts": verdicts}))
"""


def _run(tree: Path, config: dict) -> dict:
    env = os.environ | {"PYTHONPATH": str(tree)}
    # cwd = the tree: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(config)], env=env,
                         cwd=tree, capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None, help="bodyfat CSV (default: synthetic)")
    ap.add_argument("--baseline", type=Path, default=None, help="source tree of version B")
    ap.add_argument("--repeat", type=int, default=1, help="A/B pairs")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: all)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--looks", action="store_true")
    ap.add_argument("--first-look", action="store_true", help="8 regimes x 10 seeds (x8: map)")
    args = ap.parse_args(argv)
    if args.first_look:
        config = {"cells": None, "seeds": 10, "max_seeds": 10, "steps": 60}
    elif args.looks:
        config = {"cells": [{"grid": 61}, {"grid": 31}], "seeds": 2, "max_seeds": 5,
                  "steps": 30}  # fmt: skip
    elif args.quick:
        config = {"cells": [{"grid": 21}, {"grid": 21, "batch": 5}], "seeds": 4,
                  "max_seeds": 16, "steps": 20}  # fmt: skip
    else:
        config = {"cells": None, "seeds": 10, "max_seeds": 80, "steps": 60}
    config |= {"data": args.data, "n_jobs": args.jobs}
    print("\n".join(machine_lines()))
    print(f"load average before: {load_average()}")
    print(f"config: {json.dumps(config)}")
    a_times, b_times, a, b = [], [], None, None
    for k in range(args.repeat):
        a = _run(HERE, config)
        a_times.append(a["wall"])
        print(f"pair {k + 1}: A (this tree) {a['wall']:.1f} s, {a['runs']} runs", flush=True)
        if args.baseline is not None:
            b = _run(args.baseline, config)
            b_times.append(b["wall"])
            print(f"pair {k + 1}: B (baseline) {b['wall']:.1f} s, {b['runs']} runs", flush=True)
    print(f"load average after: {load_average()}")
    med_a = statistics.median(a_times)
    print(f"A: median {med_a:.1f} s over {len(a_times)} run(s), {a['runs']} runs made")
    if args.first_look:
        print(
            f"estimate of the full map (8 x the first look): {8 * med_a:.0f} s; target <= "
            f"{TARGET_S:.0f} s on 2 cores: {'met' if 8 * med_a <= TARGET_S else 'not met'}"
        )
    elif not (args.quick or args.looks):
        print(f"target <= {TARGET_S:.0f} s on 2 cores: {'met' if med_a <= TARGET_S else 'not met'}")
    if b_times:
        med_b = statistics.median(b_times)
        print(
            f"B: median {med_b:.1f} s, {b['runs']} runs made"
            + (f" (full map estimate {8 * med_b:.0f} s)" if args.first_look else "")
        )
        print(f"ratio B / A (wall): {med_b / med_a:.2f}; runs A / B: {a['runs'] / b['runs']:.2f}")
        common = sorted(set(a["verdicts"]) & set(b["verdicts"]))
        same = [key for key in common if a["verdicts"][key] == b["verdicts"][key]]
        print(f"verdicts of the claims both test: {len(same)} of {len(common)} equal")
        for key in common:
            if a["verdicts"][key] != b["verdicts"][key]:
                print(f"  differs: {key}: A {a['verdicts'][key]!r}, B {b['verdicts'][key]!r}")


if __name__ == "__main__":
    main()
