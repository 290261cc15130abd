"""Reading a temporal edge list into a series: our arrays path vs one NetworkX graph per step.

The edge list: ``rows`` contacts ``(source, target, time)`` between ``nodes``
string-labelled nodes over ``steps`` integer times, written to a CSV. Timed:

* ours - ``as_series("contacts.csv")`` (pandas reads the CSV; labels factorised;
  repeated rows added and rows normalised in numpy; no graph objects);
* reference - the same CSV read with pandas, then one ``nx.DiGraph`` per step
  (edges added with their summed weights) and ``as_series(graphs)``.

Both give the same weights (checked). With ``--memory``, instead: the peak memory
of ``as_series(file)`` in a fresh subprocess (Linux: the peak resident size, VmHWM
reset just before the call, minus the resident size then, after a warm-up read of a
2-row file of the same kind so that the readers' first-use imports are left out) for
CSV and Parquet files of integer and text labels, many nodes and many steps
(synthetic hub series, ``_user_series.py``), beside the budget's
estimate (``limits.estimate_edge_list_bytes``): the estimate must bound the peak
(ratio below 1), so that no load's peak exceeds the budget it passed. Run::

    python benchmarks/bench_edgelist.py            # 1,000,000 rows, 1,000 nodes, 1,000 steps
    python benchmarks/bench_edgelist.py --quick    # 100,000 rows, 300 nodes, 300 steps
    python benchmarks/bench_edgelist.py --memory   # peaks vs the estimate (10^6 rows)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from baygo_graph.inputs import as_series


def make_csv(path: Path, *, rows: int, nodes: int, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    names = np.array([f"n{k:05d}" for k in range(nodes)])
    src = rng.integers(0, nodes, rows)
    dst = (src + rng.integers(1, nodes, rows)) % nodes
    frame = pd.DataFrame(
        {"source": names[src], "target": names[dst], "time": rng.integers(0, steps, rows)}
    )
    frame.to_csv(path, index=False)


def reference(path: Path):
    frame = pd.read_csv(path)
    t0 = int(frame["time"].min())
    graphs = [nx.DiGraph() for _ in range(int(frame["time"].max()) - t0 + 1)]
    labels = sorted(set(frame["source"]) | set(frame["target"]))
    for g in graphs:
        g.add_nodes_from(labels)
    for s, d, t in frame.itertuples(index=False):
        g = graphs[t - t0]
        g.add_edge(s, d, weight=g.edges[s, d]["weight"] + 1.0 if g.has_edge(s, d) else 1.0)
    return as_series(graphs)


_MEASURE = """
import json, sys, time
import pandas, pyarrow.parquet
from baygo_graph.inputs import as_series
from baygo_graph.limits import estimate_edge_list_bytes
import os, tempfile
warm = os.path.join(tempfile.mkdtemp(), "warm" + os.path.splitext(sys.argv[1])[1])
pandas.DataFrame({"source": [1, 2], "target": [2, 1], "time": [0, 1]}).pipe(
    lambda f: f.to_parquet(warm) if warm.endswith(".parquet") else f.to_csv(warm, index=False))
as_series(warm)  # the readers' first-use imports are not the data's memory
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) * 1024 for x in fh if x.startswith(key))
try:  # reset the peak (VmHWM) to the resident size now: the import's peak is left out
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
except OSError:
    pass
before = status("VmRSS:")
start = time.perf_counter()
s = as_series(sys.argv[1], directed=sys.argv[2] == "directed")
seconds = time.perf_counter() - start
peak = status("VmHWM:") - before  # Linux /proc
text = not all(isinstance(v, int) for v in s.nodes[:100])
rows = int(sys.argv[3])
est = estimate_edge_list_bytes(rows, nodes=s.n_agents, steps=s.n_steps, text_labels=text,
                               directed=sys.argv[2] == "directed")
print(json.dumps({"peak": peak, "estimate": est, "seconds": seconds, "nodes": s.n_agents,
                  "steps": s.n_steps, "entries": len(s.entries[0])}))
"""


def measure_load(path: Path, rows: int, directed: bool = True) -> dict:
    """Peak and estimate of ``as_series(path)`` in a fresh subprocess."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path), "directed" if directed else "two-way",
         str(rows)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory_table(rows: int) -> list[str]:
    """Peak of each load beside its estimate, one line each."""
    from _user_series import user_frame

    cases = [  # (nodes, steps, format, text labels, directed)
        (1_000, 10_000, "parquet", False, True),
        (1_000, 10_000, "csv", False, True),
        (100_000, 1_000, "csv", False, True),
        (100_000, 1_000, "csv", True, True),
        (100_000, 1_000, "parquet", True, True),
        (100_000, 1_000, "csv", True, False),
        (1_000, 100_000, "parquet", False, True),
    ]
    head = "| nodes | steps | file | labels | contacts | peak | estimate | peak / estimate |"
    lines = [f"### as_series(file): peak memory vs the budget's estimate, {rows:,} rows "
             "(synthetic hub series), fresh subprocess each", head + " seconds |",
             "| ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for nodes, steps, fmt, text, directed in cases:
            frame = user_frame("hub", rows, steps, nodes)
            if text:
                for c in ("source", "target"):
                    frame[c] = "node-" + frame[c].astype(str)
            path = Path(tmp) / f"edges.{fmt}"
            frame.to_parquet(path) if fmt == "parquet" else frame.to_csv(path, index=False)
            r = measure_load(path, len(frame), directed)
            ratio = r["peak"] / r["estimate"]
            worst = max(worst, ratio)
            lines.append(
                f"| {nodes:,} | {steps:,} | {fmt} | {'text' if text else 'integer'} | "
                f"{'directed' if directed else 'two-way'} | {r['peak'] / 2**20:,.0f} MiB | "
                f"{r['estimate'] / 2**20:,.0f} MiB | {ratio:.2f} | {r['seconds']:.1f} |"
            )
    lines.append(f"largest peak / estimate: {worst:.2f} (must stay below 1: the estimate "
                 "is what the budget checks)")  # fmt: skip
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--memory", action="store_true", help="peak memory vs the estimate")
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    if args.memory:
        print("\n".join(memory_table(100_000 if args.quick else args.rows)), flush=True)
        return
    rows, nodes, steps = (100_000, 300, 300) if args.quick else (1_000_000, 1_000, 1_000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "contacts.csv"
        make_csv(path, rows=rows, nodes=nodes, steps=steps)
        start = time.perf_counter()
        ours = as_series(path)
        t_ours = time.perf_counter() - start
        start = time.perf_counter()
        ref = reference(path)
        t_ref = time.perf_counter() - start
    same = ours.nodes == ref.nodes and all(
        np.allclose(ours.weights(t).toarray(), ref.weights(t).toarray())
        for t in range(0, ours.n_steps, max(1, ours.n_steps // 20))
    )
    print(f"{rows} rows, {nodes} nodes, {steps} steps")
    print(f"as_series(csv): {t_ours:.2f} s; per-step NetworkX graphs: {t_ref:.2f} s; "
          f"ratio {t_ref / t_ours:.1f}x; same weights: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
