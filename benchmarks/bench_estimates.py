"""Memory checks beside the stages they count: analysis, influence, viewer and plot.

Each check counts what its stage adds on top of what the process holds when it runs
(the series, read before): ``baygo analyze``'s first check
(``limits.check_analysis_budget`` with the influence's work as its stage), the
influence's own count (``analysis.centrality.influence_bytes``), ``baygo view``'s
(``figures.html._viewer_bytes``) and ``baygo plot``'s (``cli.figures``'s drawing
check). For each synthetic shape (a many-leaf star over 3 steps, rings of 10^4 to 10^5
nodes, 200,000 random contacts among 5,000 text labels over 200 steps, a 2-node span
of 10^5 steps), a fresh subprocess builds the series, runs each stage once to warm it
(first-use imports are not the stage), then measures the stage's tracemalloc peak above
what was traced before it. Prints each estimate beside the stage and their ratio: the
target is [0.8, 1.5] (an under-count lets a run pass and then exceed the budget; an
over-count refuses runs that fit). Run::

    python benchmarks/bench_estimates.py            # every shape
    python benchmarks/bench_estimates.py --quick    # the small ones
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_MEASURE = r"""
import json, sys, tracemalloc, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import baygo_graph as bg
from baygo_graph.analysis import analysis_report, influence_series
from baygo_graph.analysis.centrality import influence_bytes
from baygo_graph.analysis import report
from baygo_graph.figures import html
from baygo_graph.cli import figures as cf
from baygo_graph import limits

kind, n, t = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import tempfile
tmp = tempfile.mkdtemp()
rng = np.random.default_rng(0)
if kind == "star":  # hub 0 to n leaves, leaf k at step k % t
    k = np.arange(1, n + 1)
    df = pd.DataFrame({"source": 0, "target": k, "time": k % t})
elif kind == "ring":  # the ring of n nodes at each of t steps
    k = np.arange(n)
    df = pd.DataFrame({"source": np.tile(k, t), "target": np.tile((k + 1) % n, t),
                       "time": np.repeat(np.arange(t), n)})
elif kind == "random":  # n contacts among 5,000 text labels over t steps
    df = pd.DataFrame({"source": [f"n{v}" for v in rng.integers(0, 5000, n)],
                       "target": [f"n{v}" for v in rng.integers(0, 5000, n)],
                       "time": rng.integers(0, t, n)})
else:  # span: n contacts between 2 nodes spread over t steps
    df = pd.DataFrame({"source": "a", "target": "b", "time": np.linspace(0, t - 1, n).astype(int)})
s = bg.as_series(df)
T, M = s.n_steps, s.n_agents
w = min(10, T)
budget_seen = {}
def max_of(calls):
    # the larger of each call's own peak (a stage that runs them one after another)
    best = 0
    for call in calls:
        at = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        call()
        best = max(best, tracemalloc.get_traced_memory()[1] - at)
    tracemalloc.reset_peak()
    return best
real = limits.check_budget
def spy(nbytes, **kw):
    budget_seen[kw.get("what", "")] = int(nbytes)
    return 0
def drawing():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cf._series_figures(s, window=w)
    plt.close("all")
stages = {
    "analysis": (lambda: analysis_report(s, window=w),
                 lambda: (limits.ANALYSIS_BYTES_PER_STEP * T + 16 * T * M
                          + report.analysis_stage_bytes(s, w))),
    "influence": (lambda: max_of(lambda m=m: influence_series(s, window=w, method=m,
                                                              windows="sliding")
                                 for m in ("product", "union")),
                  lambda: influence_bytes(s, w)),
    "viewer": (lambda: html.to_html(s, tmp + "/v.html", window=w, overwrite=True),
               lambda: html._viewer_bytes(s, window=w, layout="auto")),
}
if "--parts" in sys.argv:
    stages["layout"] = (lambda: html._layout(s, 0, "auto"),
                        lambda: html._layout_bytes(M, "auto", html._union_pairs(s)))
    stages["page"] = (lambda: (html._connected(s, w), html._aligned_windows(s, w),
                               html._graph_data(s)),
                      lambda: html._VIEWER_BYTES_PER_STEP * T
                      + html._VIEWER_BYTES_PER_ENTRY * len(s.entries[0]))
if M <= 30000:
    def plot_need():
        limits.check_budget = spy
        cf.check_budget = spy if hasattr(cf, "check_budget") else None
        import baygo_graph.limits as L
        L.check_budget = spy
        try:
            cf._check_drawing_budget(s, w)
        finally:
            L.check_budget = real
        return list(budget_seen.values())[-1]
    stages["plot"] = (drawing, plot_need)
out = {"steps": T, "nodes": M, "entries": len(s.entries[0])}
only = next((a[7:].split(",") for a in sys.argv if a.startswith("--only=")), None)
for name, (run, need) in stages.items():
    if only and name not in only:
        continue
    if "--cold" not in sys.argv:
        run()  # warm: first-use imports are not the stage
    tracemalloc.start()
    at = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    got = run()
    peak = tracemalloc.get_traced_memory()[1] - at
    if name == "influence":
        peak = got
    tracemalloc.stop()
    out[name] = [int(need()), int(peak)]
print(json.dumps(out))
"""

SHAPES = {
    "quick": [("star", 20_000, 3), ("ring", 10_000, 2), ("ring", 10_000, 10),
              ("random", 20_000, 200), ("span", 2, 100_000)],
    "full": [("star", 200_000, 3), ("ring", 100_000, 2), ("ring", 100_000, 10),
             ("random", 200_000, 200), ("span", 2, 1_000_000), ("ring", 20_000, 50)],
}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--parts", action="store_true", help="the viewer's stages one by one")
    p.add_argument("--only", default="", help="stages to measure, e.g. viewer,plot")
    p.add_argument("--cold", action="store_true", help="each stage's first call, as a command")
    args = p.parse_args()
    print(f"{'shape':>22} {'steps':>7} {'nodes':>7} {'stage':>10} {'estimate':>10} "
          f"{'measured':>10} {'ratio':>6}")  # fmt: skip
    for kind, n, t in SHAPES["quick" if args.quick else "full"]:
        extra = (["--parts"] if args.parts else []) + ([f"--only={args.only}"] if args.only else [])
        extra += ["--cold"] if args.cold else []
        done = subprocess.run([sys.executable, "-c", _MEASURE, kind, str(n), str(t), *extra],
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            print(kind, n, t, "failed:", done.stderr[-400:])
            continue
        r = json.loads(done.stdout)
        for stage in ("analysis", "influence", "viewer", "layout", "page", "plot"):
            if stage in r:
                need, peak = r[stage]
                print(
                    f"{kind + f' {n}x{t}':>22} {r['steps']:>7} {r['nodes']:>7} {stage:>10} "
                    f"{need / 2**20:>9.1f}M {peak / 2**20:>9.1f}M {need / max(peak, 1):>6.2f}"
                )


if __name__ == "__main__":
    main()
