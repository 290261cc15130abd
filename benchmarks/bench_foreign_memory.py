"""Peak memory of reading GEXF files, DyNetX and networkx-temporal objects vs the budget's
estimate.

These readers check ``limits.estimate_edge_list_bytes(edge-steps, nodes=..., steps=...)``
before they build a series: the estimate of an edge list of as many rows as the
input's edge-steps (the spells, intervals or snapshot edges expanded). Each case is
read in a fresh subprocess (Linux: the peak resident size, VmHWM reset just before
the call, minus the resident size then, beside the estimate the reader checked; the
input object, or the file, is made
first, and a tiny input of the same kind is read before, so that first-use imports
are left out). The estimate must bound the peak (ratio below 1). Run::

    python benchmarks/bench_foreign_memory.py           # three sizes per kind
    python benchmarks/bench_foreign_memory.py --quick   # the two smaller sizes
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_MEASURE = """
import json, sys, time, os, tempfile
import numpy as np
from baygo_graph.inputs import as_series
from baygo_graph.limits import estimate_edge_list_bytes
kind, size = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)

def gexf(n_edges, span, path):
    nodes = max(2, int(n_edges ** 0.5))
    u, v = rng.integers(0, nodes, n_edges), rng.integers(0, nodes, n_edges)
    a = rng.integers(0, span, n_edges)
    with open(path, "w") as fh:
        fh.write('<gexf xmlns="http://gexf.net/1.3" version="1.3"><graph mode="dynamic" '
                 'defaultedgetype="directed" timeformat="integer"><nodes>')
        fh.write("".join(f'<node id="{k}"/>' for k in range(nodes)))
        fh.write("</nodes><edges>")
        fh.write("".join(
            f'<edge id="{k}" source="{u[k]}" target="{v[k]}"><attvalues><attvalue for="weight" '
            f'value="2" start="{a[k]}" end="{a[k] + span // 2}"/></attvalues><spells><spell '
            f'start="{a[k]}" end="{a[k] + span}"/></spells></edge>' for k in range(n_edges)))
        fh.write("</edges></graph></gexf>")
    return path

def make(kind, size):
    if kind == "gexf":  # size edges, each a spell of 200 steps (a weight change inside)
        return gexf(size, 200, os.path.join(tempfile.mkdtemp(), "s.gexf"))
    if kind == "gexf-long":  # two nodes, one spell of size steps
        p = os.path.join(tempfile.mkdtemp(), "l.gexf")
        with open(p, "w") as fh:
            fh.write('<gexf><graph defaultedgetype="directed"><nodes><node id="a"/><node id="b"/>'
                     f'</nodes><edges><edge source="a" target="b" start="0" end="{size}"/>'
                     '</edges></graph></gexf>')
        return p
    if kind == "dynetx":  # size interactions of 10 steps each among sqrt(size) nodes
        import dynetx as dn
        g = dn.DynGraph()
        nodes = max(2, int(size ** 0.5))
        times = np.sort(rng.integers(0, 50, size)) * 20  # in time order, 10-step intervals
        for u, v, t in zip(rng.integers(0, nodes, size), rng.integers(0, nodes, size), times):
            g.add_interaction(int(u), int(v), t=int(t), e=int(t) + 10)
        return g
    if kind == "temporal":  # 200 daily snapshots of size / 200 edges
        import networkx_temporal as tx
        tg = tx.TemporalDiGraph()
        nodes = max(2, int(size ** 0.5))
        for u, v, t in zip(rng.integers(0, nodes, size), rng.integers(0, nodes, size),
                           rng.integers(0, 200, size)):
            tg.add_edge(int(u), int(v), time=int(t))
        return tg.slice(attr="time")
    raise ValueError(kind)

import baygo_graph.io.foreign as foreign, baygo_graph.io.series_files as files
checked = []
def record(check):
    def wrapped(nbytes, **kw):
        checked.append(int(nbytes))
        return check(nbytes, **kw)
    return wrapped
foreign.check_budget = record(foreign.check_budget)
files.check_budget = record(files.check_budget)
as_series(make(kind, 4))  # first-use imports are not the data's memory
obj = make(kind, size)
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) * 1024 for x in fh if x.startswith(key))
try:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
except OSError:
    pass
checked.clear()
before = status("VmRSS:")
start = time.perf_counter()
s = as_series(obj)
seconds = time.perf_counter() - start
peak = status("VmHWM:") - before
entries = int(len(s.step_edges()[0]))
est = checked[-1]  # the reader's own estimate (GEXF: after its check of the XML tree)
print(json.dumps({"peak": peak, "estimate": est, "seconds": seconds, "nodes": s.n_agents,
                  "steps": s.n_steps, "entries": entries}))
"""

SIZES = {
    "gexf": (10_000, 30_000, 100_000),
    "gexf-long": (10**5, 10**6, 10**7),
    "dynetx": (10_000, 100_000, 300_000),
    "temporal": (10_000, 100_000, 300_000),
}


def measure(kind: str, size: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE, kind, str(size)],
                         capture_output=True, text=True)  # fmt: skip
    if out.returncode:
        raise RuntimeError(f"{kind} {size}: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    print("| input | size | steps | nodes | series entries | peak | estimate | peak / est. | s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for kind, sizes in SIZES.items():
        for size in sizes[:2] if args.quick else sizes:
            r = measure(kind, size)
            ratio = r["peak"] / r["estimate"]
            worst = max(worst, ratio)
            print(f"| {kind} | {size:,} | {r['steps']:,} | {r['nodes']:,} | {r['entries']:,} | "
                  f"{r['peak'] / 2**20:,.1f} MiB | {r['estimate'] / 2**20:,.1f} MiB | "
                  f"{ratio:.2f} | {r['seconds']:.1f} |", flush=True)  # fmt: skip
    print(f"largest peak / estimate: {worst:.2f} (must stay below 1)")


if __name__ == "__main__":
    main()
