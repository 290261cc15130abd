"""Reading a node-link JSON graph series: ``read_series``'s parser against the previous one.

The previous reader was ``json.loads`` then ``networkx.node_link_graph`` per step;
``read_series`` parses each step's DiGraph in bulk and checks ids, endpoints and
weights (``io.series_files._read_json``, timed here; the series is built from its
graphs afterwards). Both read the same file, one after the other, ``--repeat`` times (best
time kept), and must give the same graphs. The file is BayGo-like: ``--agents``
agents, ``--steps`` steps, one in-edge per agent per step plus the self-loops.

    python benchmarks/bench_series_files.py [--agents 1000] [--steps 1000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import fmt_time, load_average, machine_lines, table  # noqa: E402


def baygo_like(agents: int, steps: int, seed: int = 0):
    """A run whose agents each listen to one random other agent per step."""
    from baygo_graph import Run

    rng = np.random.default_rng(seed)
    choices = rng.integers(0, agents - 1, size=(steps, agents))
    return Run.from_choices(choices + (choices >= np.arange(agents)), delta=0.5)


def previous_reader(path) -> list[nx.DiGraph]:
    """The reader before this change: node_link_graph per step."""
    doc = json.loads(Path(path).read_text())
    return [nx.node_link_graph(d, directed=True, edges="edges") for d in doc["graphs"]]


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        dict(g.nodes(data=True)) == dict(h.nodes(data=True))
        and {(u, v): d for u, v, d in g.edges(data=True)}
        == {(u, v): d for u, v, d in h.edges(data=True)}
        and g.graph == h.graph
        for g, h in zip(a, b, strict=True)
    )


def main(argv=None) -> str:
    from baygo_graph import write_series
    from baygo_graph.io.series_files import _read_json

    def read_series(path):  # the step graphs read_series builds its series from
        return _read_json(Path(path))[0]

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, default=1000)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = write_series(baygo_like(args.agents, args.steps), Path(folder) / "s.json")
        size = path.stat().st_size
        times = {"previous (node_link_graph)": [], "read_series": []}
        for _ in range(args.repeat):
            out = []
            for name, reader in zip(times, (previous_reader, read_series), strict=True):
                start = time.perf_counter()
                out.append(reader(path))
                times[name].append(time.perf_counter() - start)
            ok = same(*out)
            del out
    best = {k: min(v) for k, v in times.items()}
    ref = best["previous (node_link_graph)"]
    rows = [[k, fmt_time(t), f"{size / t / 1e6:.1f}", f"{ref / t:.2f}"] for k, t in best.items()]
    text = "\n".join(
        [
            *machine_lines(),
            f"load average: {load_average()}",
            f"file: {args.agents} agents x {args.steps} steps, {size / 1e6:.1f} MB; "
            f"same graphs: {ok}",
            table(["reader", "best time", "MB/s", "speed-up"], rows, title="JSON series read"),
        ]
    )
    print(text)
    return text


if __name__ == "__main__":
    main()
