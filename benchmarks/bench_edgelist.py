"""Reading a temporal edge list into a series: our arrays path vs one NetworkX graph per step.

The edge list: ``rows`` contacts ``(source, target, time)`` between ``nodes``
string-labelled nodes over ``steps`` integer times, written to a CSV. Timed:

* ours - ``as_series("contacts.csv")`` (pandas reads the CSV; labels factorised;
  repeated rows added and rows normalised in numpy; no graph objects);
* reference - the same CSV read with pandas, then one ``nx.DiGraph`` per step
  (edges added with their summed weights) and ``as_series(graphs)``.

Both give the same weights (checked). Run::

    python benchmarks/bench_edgelist.py            # 1,000,000 rows, 1,000 nodes, 1,000 steps
    python benchmarks/bench_edgelist.py --quick    # 100,000 rows, 300 nodes, 300 steps
"""

from __future__ import annotations

import argparse
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
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
