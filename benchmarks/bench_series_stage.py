"""What building a series adds after an edge list is read, beside the budget's estimate.

The series check of an edge-list reader (``io.edgelist._check_series_budget``) runs once
the rows are read and held: it must count what building the series adds on top
(``limits.estimate_series_bytes``), never the rows again (hostile17 V2). For each
synthetic shape (CSV files written here: integer or text labels, many nodes and few
steps, few nodes and many steps, dense and sparse, sorted and shuffled rows, two-way),
a fresh subprocess reads the file with ``as_series`` and measures the stage from the
check to the series: the tracemalloc peak above what was traced at the check, and
(``--rss``) the peak resident size (Linux VmHWM, reset at the check) above the resident
size then. Prints each stage beside the estimate and their ratio (must stay within
[0.8, 2]). Run::

    python benchmarks/bench_series_stage.py            # 10^5 and 10^6 rows
    python benchmarks/bench_series_stage.py --quick    # 10^5 rows
    python benchmarks/bench_series_stage.py --rss      # resident memory instead
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

_MEASURE = r"""
import json, sys, tracemalloc
import pandas as pd
from baygo_graph.inputs import as_series
from baygo_graph.io import edgelist
from baygo_graph.limits import estimate_series_bytes
path, rss, directed = sys.argv[1], sys.argv[2] == "rss", sys.argv[3] == "directed"
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) * 1024 for x in fh if x.startswith(key))
seen = {}
check = edgelist._check_series_budget
def spy(n_steps, m, column, bin, *, rows, directed):
    seen["need"] = estimate_series_bytes(rows * (1 if directed else 2), nodes=m, steps=n_steps)
    if rss:
        seen["at"] = status("VmRSS:")
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    else:
        seen["at"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
    return check(n_steps, m, column, bin, rows=rows, directed=directed)
edgelist._check_series_budget = spy
as_series(path, directed=directed)  # warm: first-use imports are not the stage
if not rss:
    tracemalloc.start()
s = as_series(path, directed=directed)
stage = status("VmHWM:") - seen["at"] if rss else tracemalloc.get_traced_memory()[1] - seen["at"]
print(json.dumps({"stage": stage, "need": seen["need"], "steps": s.n_steps, "nodes": s.n_agents,
                  "entries": len(s.entries[0])}))
"""


def shapes(rows: int) -> dict:
    """name -> (frame, directed)."""
    rng = np.random.default_rng(0)
    out = {}

    def rand(nodes, steps, text=False, sort=True):
        src = rng.integers(0, nodes, rows)
        dst = (src + rng.integers(1, nodes, rows)) % nodes
        t = rng.integers(0, steps, rows)
        f = pd.DataFrame({"source": src, "target": dst, "time": np.sort(t) if sort else t})
        if text:
            for c in ("source", "target"):
                f[c] = "node-" + f[c].astype(str)
        return f

    out["random, 1,000 nodes x 100 steps, integers"] = (rand(1_000, 100), True)
    out["random, 1,000 nodes x 100 steps, text"] = (rand(1_000, 100, text=True), True)
    out["random, 10,000 nodes x 100 steps"] = (rand(10_000, 100), True)
    out["random, two-way"] = (rand(1_000, 100), False)
    n = rows // 2
    k = np.arange(n)
    out["ring, many nodes x 2 steps"] = (pd.DataFrame(
        {"source": np.tile(k, 2), "target": np.tile((k + 1) % n, 2), "time": np.repeat([0, 1], n)}
    ), True)  # fmt: skip
    out["star, one step, shuffled"] = (pd.DataFrame(
        {"source": 0, "target": rng.permutation(rows) + 1, "time": 0}), True)  # fmt: skip
    out["3 nodes, a step per row"] = (
        pd.DataFrame(
            {"source": rng.integers(0, 3, rows), "target": 3, "time": 3 * np.arange(rows)}
        ),
        True,
    )
    c = int(np.sqrt(rows)) + 1
    a, b = np.meshgrid(np.arange(c), np.arange(c))
    off = a != b
    out["complete digraph, one step, sorted"] = (pd.DataFrame(
        {"source": a[off], "target": b[off], "time": 0}), True)  # fmt: skip
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rss", action="store_true", help="resident memory, not tracemalloc")
    args = parser.parse_args(argv)
    sizes = (100_000,) if args.quick else (100_000, 1_000_000)
    print("| rows | shape | steps | nodes | entries | stage | estimate | estimate / stage |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for rows in sizes:
            for name, (frame, directed) in shapes(rows).items():
                path = Path(tmp) / "edges.csv"
                frame.to_csv(path, index=False)
                out = subprocess.run(
                    [sys.executable, "-c", _MEASURE, str(path), "rss" if args.rss else "trace",
                     "directed" if directed else "two-way"],
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                r = json.loads(out.stdout.strip().splitlines()[-1])
                ratios.append(r["need"] / r["stage"])
                print(f"| {len(frame):,} | {name} | {r['steps']:,} | {r['nodes']:,} | "
                      f"{r['entries']:,} | {r['stage'] / 2**20:.1f} MiB | "
                      f"{r['need'] / 2**20:.1f} MiB | {ratios[-1]:.2f} |", flush=True)  # fmt: skip
    print(f"estimate / stage: {min(ratios):.2f}-{max(ratios):.2f} (must stay within [0.8, 2])")


if __name__ == "__main__":
    main()
