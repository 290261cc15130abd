"""Smallest sliding B of a long BayGo-like series: our CSR two-pointer vs per-window NetworkX.

The series: T steps, M agents, every agent listens to one uniformly random other
agent per step (what BayGo's choices look like when no agent stands out). Both
methods find the smallest B such that every window of B consecutive steps has a
strongly connected union:

* ours - ``baygo_graph.analysis.smallest_b(run, windows="sliding")`` on a ``Run``
  (window unions built from the choice arrays into CSR, two pointers, scipy's
  strong components);
* reference - scan B = 1, 2, ...; for each B check the windows in order with
  ``nx.compose_all`` of the step digraphs + ``nx.is_strongly_connected``,
  stopping at the first failing window (step graphs built once per window scan
  and kept only while in the window).

With ``--archive``, instead: an archive-scale user series (synthetic 30%-hub edge list,
``_user_series.py``; default 10^7 events, M = 10^5 nodes, T = 10^3 steps, integer labels,
Parquet) in a fresh subprocess: ``as_series`` + smallest sliding B + ``is_b_connected``
at that B, timed, with the peak resident memory (``ru_maxrss``) against the budget's
estimate; then union influence at that size (aligned windows of length B, and sliding
windows with ``--stride``), timed, with the peak again. Targets: the first three in
<= 5 minutes and <= 4 GiB. With ``--baseline REV`` the load and connectivity phases of
that git revision follow in their own subprocess, and the ratio is printed (the
revision before window condensations took ~20 minutes at 10^7 events: try
``--events 1000000 --nodes 10000``). With ``--partitions P --max-b B``, instead: the load
and connectivity phases in one process against ``P`` local time partitions (``P`` worker
processes, ``smallest_b(..., max_b=B, partitions=P)`` and ``is_b_connected(...,
partitions=P)``), both with that ``max_b``, alternately in fresh subprocesses over
``--rounds`` (default 2): wall, CPU (the caller's and its workers'), peak resident
memory per process, the ratios.

With ``--horizon``, instead: ``analysis.horizon_table`` at the size ``baygo reproduce``
runs it (20 BayGo runs of 12 agents x 300 steps, horizons 30, 60, 120, 300, influence
window 10; the real data with ``--data`` or ``$BAYGO_BODYFAT``, else the synthetic
stand-in), this checkout against ``--baseline REV`` (a git revision, exported to a
temporary folder), alternately in fresh subprocesses, with the two tables compared.
Run::

    python benchmarks/bench_connectivity.py            # T=10,000, M=1,000 (minutes: NetworkX)
    python benchmarks/bench_connectivity.py --quick    # T=1,000, M=200
    python benchmarks/bench_connectivity.py --archive  # 10^7 events (~5 minutes, ~3.5 GiB)
    python benchmarks/bench_connectivity.py --archive --partitions 2 --max-b 250 --stride 0
    python benchmarks/bench_connectivity.py --horizon --baseline 04cb005  # ~1 minute
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import networkx as nx
import numpy as np

from baygo_graph import Run
from baygo_graph.analysis import smallest_b, time_to_connectivity
from baygo_graph.series import ChoiceSeries


def random_choices(steps: int, agents: int, rng) -> np.ndarray:
    """(T, M) ints: each agent's uniformly random other agent."""
    ch = rng.integers(0, agents - 1, size=(steps, agents))
    return ch + (ch >= np.arange(agents))


def as_run(choices: np.ndarray) -> Run:
    t, m = choices.shape
    zeros = np.broadcast_to(0.0, (t, m))
    return Run(
        strategy="baygo",
        informative=0,
        delta=0.5,
        mse=zeros,
        entropy=zeros,
        mean=np.broadcast_to(0.0, (t, m, 2)),
        series=ChoiceSeries.from_choices(choices, delta=0.5),
    )


def step_graph(choice: np.ndarray) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(choice)))
    g.add_edges_from(zip(choice.tolist(), range(len(choice)), strict=True))
    return g


def networkx_smallest_sliding_b(choices: np.ndarray) -> tuple[int | None, int]:
    """Reference: per-window NetworkX union + strong-connectivity check."""
    t = len(choices)
    checks = 0
    for b in range(1, t + 1):
        cache: OrderedDict[int, nx.DiGraph] = OrderedDict()
        ok = True
        for s in range(t - b + 1):
            for k in range(s, s + b):
                if k not in cache:
                    cache[k] = step_graph(choices[k])
            while next(iter(cache)) < s:
                cache.popitem(last=False)
            checks += 1
            union = nx.compose_all([cache[k] for k in range(s, s + b)])
            if not nx.is_strongly_connected(union):
                ok = False
                break
        if ok:
            return b, checks
    return None, checks


def timed(fn, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


_ARCHIVE = """
import json, os, resource, sys, time
from baygo_graph.analysis import influence_series, is_b_connected, smallest_b
from baygo_graph.limits import estimate_edge_list_bytes, format_bytes
from baygo_graph.inputs import as_series

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

def say(**kw):
    kw["cpu"] = time.process_time()  # CPU seconds so far: the work, whatever the load
    print(json.dumps(kw), flush=True)

path, stride = sys.argv[1], int(sys.argv[2])
opts = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
max_b, parts = opts.get("max_b"), opts.get("partitions")
kw = {"max_b": max_b} if max_b else {}
where = {"partitions": parts, "n_jobs": parts} if parts else {}
t0 = time.perf_counter()
s = as_series(path)
t1 = time.perf_counter()
est = estimate_edge_list_bytes(int(sys.argv[3]), nodes=s.n_agents, steps=s.n_steps)
say(phase="load", seconds=t1 - t0, peak=peak(), estimate=est, nodes=s.n_agents,
    steps=s.n_steps, entries=len(s.entries[0]))
c = smallest_b(s, windows="sliding", **kw, **where)
b = c.B
t2 = time.perf_counter()
say(phase="smallest sliding B", seconds=t2 - t1, peak=peak(), b=b, max_b=c.max_b)
ok = is_b_connected(s, b or s.n_steps, windows="sliding", **where)
t3 = time.perf_counter()
workers = {}
if parts:  # the local workers' peaks (VmHWM: ru_maxrss keeps the caller's across fork + exec),
    # asked of the same workers; their CPU once they have ended
    from joblib import Parallel, cpu_count, delayed, parallel_config
    from joblib.externals.loky import get_reusable_executor

    def own(_):
        time.sleep(1)  # one each
        with open("/proc/self/status") as f:
            hwm = next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmHWM"))
        return os.getpid(), (hwm, time.process_time())  # its peak and CPU so far


    with parallel_config(backend="loky", inner_max_num_threads=max(1, cpu_count() // parts)):
        seen = dict(Parallel(n_jobs=parts)(delayed(own)(k) for k in range(parts)))
    get_reusable_executor().shutdown(wait=True)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = {"workers_cpu": ch.ru_utime + ch.ru_stime,
               "workers_peak": max(p for p, _ in seen.values()),
               "worker_peaks": sorted(p for p, _ in seen.values()),
               "worker_cpus": sorted(c for _, c in seen.values())}
say(phase="is_b_connected", seconds=t3 - t2, peak=peak(), holds=ok,
    total=t3 - t0, load=os.getloadavg()[0], **workers)
w = b or s.n_steps
for windows, step in (("aligned", 1), ("sliding", stride)) if stride else ():
    t = time.perf_counter()
    rows = influence_series(s, window=w, method="union", windows=windows, stride=step)
    done = rows.defined.sum()
    say(phase=f"union influence, {windows} windows of {w} steps, every {step}",
        seconds=time.perf_counter() - t, peak=peak(), windows=int(done))
"""


def _archive_run(file: Path, root: Path, every: int, events: int, opts: dict, cwd) -> dict:
    """One fresh subprocess of ``_ARCHIVE``: its phase lines printed, returned by phase."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _ARCHIVE, str(file), str(every), str(events), json.dumps(opts)],
        stdout=subprocess.PIPE, text=True, cwd=cwd,
        env=os.environ | {"PYTHONPATH": str(root)},
    )  # fmt: skip
    phases = {}
    for line in proc.stdout:
        r = json.loads(line)
        phases[r["phase"]] = r
        extra = {k: v for k, v in r.items() if k not in ("phase", "seconds", "peak", "cpu")}
        print(f"{r['phase']:50s} {r['seconds']:8.1f} s (CPU so far {r['cpu']:.0f} s)  "
              f"peak RSS {r['peak'] / 2**30:.2f} GiB   {extra}", flush=True)  # fmt: skip
        if r["phase"] == "is_b_connected":
            print(f"load + smallest sliding B + is_b_connected: {r['total']:.1f} s wall, "
                  f"{r['cpu'] + r.get('workers_cpu', 0):.0f} s CPU "
                  f"(target <= 300 s), peak {r['peak'] / 2**30:.2f} GiB (target <= 4 "
                  f"GiB), load average {r['load']:.1f}", flush=True)  # fmt: skip
    if proc.wait():
        raise SystemExit(f"the archive run failed (exit {proc.returncode})")
    return phases


def archive(events: int, nodes: int, steps: int, stride: int, path: str | None,
            baseline: str | None = None, partitions: int = 0, max_b: int | None = None,
            rounds: int = 1) -> None:  # fmt: skip
    """The archive-scale run of the module docstring, in a fresh subprocess; with
    ``baseline`` (a git revision), then its load and connectivity phases too; with
    ``partitions``, one process against that many local partitions instead, both with
    ``max_b``, alternately over ``rounds``."""
    from _user_series import user_frame

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        file = Path(path) if path else tmp / "hub.parquet"
        if not file.exists():
            user_frame("hub", events, steps, nodes).to_parquet(file)
        size = file.stat().st_size / 2**20
        print(f"archive-scale series (synthetic 30% hub): {events:,} events, M={nodes:,}, "
              f"T={steps:,}, {size:.0f} MiB Parquet", flush=True)  # fmt: skip
        if partitions:
            _side_by_side(file, events, partitions, max_b, rounds, tmp)
            return
        roots = [("this checkout", ROOT, stride)]
        if baseline:
            roots.append((f"baseline {baseline}", _export(baseline, tmp / "base"), 0))
        opts = {"max_b": max_b} if max_b else {}
        done = {}
        for name, root, every in roots:
            print(f"-- {name}", flush=True)
            done[name] = _archive_run(file, root, every, events, opts, tmp)
        if len(done) == 2:
            (new, old) = (d["is_b_connected"] for d in done.values())
            same = [(d["smallest sliding B"]["b"], d["is_b_connected"]["holds"])
                    for d in done.values()]  # fmt: skip
            print(f"ratio this checkout / baseline (load + smallest sliding B + is_b_connected): "
                  f"{new['total'] / old['total']:.3f} wall, {new['cpu'] / old['cpu']:.3f} CPU; "
                  f"same B and verdict: {same[0] == same[1]}")  # fmt: skip


def _side_by_side(file: Path, events: int, partitions: int, max_b, rounds: int, tmp) -> None:
    """One process against ``partitions`` local partitions (as many worker processes),
    alternating, each in a fresh subprocess: medians of wall, CPU (the caller's and its
    workers'), peak resident memory per process, and their ratios."""
    if not max_b:
        raise SystemExit("--partitions needs --max-b (the overlap of the partitions)")
    sides = {
        "one process": {"max_b": max_b},
        f"{partitions} partitions (local)": {"max_b": max_b, "partitions": partitions},
    }
    runs = {k: [] for k in sides}
    for r in range(rounds):
        order = list(sides.items())
        for name, opts in order if r % 2 == 0 else order[::-1]:
            print(f"-- {name}, round {r + 1} of {rounds}", flush=True)
            runs[name].append(_archive_run(file, ROOT, 0, events, opts, tmp))
    rows = {}
    for name, done in runs.items():

        def med(f, done=done):
            return float(np.median([f(d) for d in done]))

        rows[name] = {
            "load s": med(lambda d: d["load"]["seconds"]),
            "smallest B s": med(lambda d: d["smallest sliding B"]["seconds"]),
            "is_b_connected s": med(lambda d: d["is_b_connected"]["seconds"]),
            "connectivity wall s": med(
                lambda d: d["smallest sliding B"]["seconds"] + d["is_b_connected"]["seconds"]
            ),  # fmt: skip
            "connectivity CPU s": med(
                lambda d: (
                    d["is_b_connected"]["cpu"]
                    - d["load"]["cpu"]
                    + d["is_b_connected"].get("workers_cpu", 0)
                )
            ),  # fmt: skip
            "caller peak GiB": med(lambda d: d["is_b_connected"]["peak"]) / 2**30,
            "largest worker peak GiB": med(lambda d: d["is_b_connected"].get("workers_peak", 0))
            / 2**30,
            "workers": len(done[0]["is_b_connected"].get("worker_peaks", [])),
            "busiest worker CPU s": med(lambda d: max(d["is_b_connected"].get("worker_cpus", [0]))),
            "B": done[0]["smallest sliding B"]["b"],
            "holds": done[0]["is_b_connected"]["holds"],
            "load average": med(lambda d: d["is_b_connected"]["load"]),
        }
    names = list(rows)
    print(f"\nmedians over {rounds} round(s), alternating; max_b = {max_b} for both "
          f"(the partitions' overlap); CPU = the caller's + its workers'")  # fmt: skip
    print(f"{'':28s}" + "".join(f"{n:>28s}" for n in names) + f"{'ratio':>10s}")
    for key in rows[names[0]]:
        a, b = rows[names[0]][key], rows[names[1]][key]
        ratio = f"{b / a:10.2f}" if isinstance(a, float) and a else ""
        print(f"{key:28s}" + "".join(f"{v!s:>28s}" if not isinstance(v, float) else f"{v:28.2f}"
                                     for v in (a, b)) + ratio)  # fmt: skip
    same = all(rows[n]["B"] == rows[names[0]]["B"] and rows[n]["holds"] == rows[names[0]]["holds"]
               for n in names)  # fmt: skip
    print(f"same B and verdict on both sides: {same}; ratio = "
          f"{names[1]} / {names[0]}")  # fmt: skip
    if not same:
        raise SystemExit("MISMATCH between one process and the partitions")


_HORIZON = """
import json, sys, time
import numpy as np
from baygo_graph import Run
from baygo_graph.analysis import horizon_table

arrays = np.load(sys.argv[1])
runs = [Run.from_choices(c, delta=float(arrays["delta"]), informative=int(arrays["informative"]))
        for c in arrays["choices"]]
horizons = [int(h) for h in sys.argv[2].split(",")]
t = time.perf_counter()
table = horizon_table(runs, horizons, window=int(sys.argv[3]))
seconds = time.perf_counter() - t
table.to_pickle(sys.argv[4])
print(json.dumps({"seconds": seconds, "package": __import__("baygo_graph").__file__}))
"""

ROOT = Path(__file__).resolve().parents[1]


def _export(rev: str, into: Path) -> Path:
    """The package at git revision ``rev``, exported (``git archive``) into ``into``."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "baygo_graph"],
                          check=True, capture_output=True).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into


def horizon(baseline: str, *, runs: int, steps: int, agents: int, rounds: int, data) -> None:
    """horizon_table at reproduce size: this checkout vs ``baseline``, alternately."""
    import pandas as pd

    import baygo_graph as bg
    from baygo_graph.data import resolve_data

    ds = resolve_data(data)
    horizons = ",".join(str(h) for h in (30, 60, 120, 300) if h <= steps)
    window = 10
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        made = [bg.simulate("baygo", agents=agents, steps=steps, rng=r, data=ds)
                for r in range(runs)]  # fmt: skip
        print(f"{runs} BayGo runs of {agents} agents x {steps} steps on {ds.source} "
              f"({'synthetic' if ds.synthetic else 'real'} data) in "
              f"{time.perf_counter() - t0:.1f} s; horizons {horizons}, influence window "
              f"{window}", flush=True)  # fmt: skip
        file = tmp / "runs.npz"
        np.savez(file, choices=np.stack([r.choices for r in made]), delta=made[0].delta,
                 informative=made[0].informative)  # fmt: skip
        roots = {"this checkout": ROOT, f"baseline {baseline}": _export(baseline, tmp / "base")}
        times = {k: [] for k in roots}
        for r in range(rounds):
            order = list(roots.items())
            for name, root in order if r % 2 == 0 else order[::-1]:
                out = tmp / f"{len(name)}.pkl"
                env = os.environ | {"PYTHONPATH": str(root)}
                done = subprocess.run(
                    [sys.executable, "-c", _HORIZON, str(file), horizons, str(window), str(out)],
                    env=env, capture_output=True, text=True, check=True, cwd=tmp,
                )  # fmt: skip
                got = json.loads(done.stdout.splitlines()[-1])
                assert got["package"].startswith(str(root)), (got["package"], root)
                times[name].append(got["seconds"])
        tables = [pd.read_pickle(tmp / f"{len(name)}.pkl") for name in roots]
        pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
        (new, old) = (float(np.median(v)) for v in times.values())
        for name, v in times.items():
            print(f"horizon_table {name:30s} median {np.median(v):7.2f} s over {rounds} "
                  f"({', '.join(f'{x:.2f}' for x in v)})")  # fmt: skip
        print(f"ratio this checkout / baseline: {new / old:.3f} ({old / new:.1f}x faster); "
              f"tables identical ({len(tables[0])} rows); load average "
              f"{os.getloadavg()[0]:.1f}")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="T=1,000, M=200")
    parser.add_argument("--archive", action="store_true", help="the archive-scale run")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--archive-steps", type=int, default=1_000)
    parser.add_argument("--stride", type=int, default=50, help="sliding influence: every Nth")
    parser.add_argument("--path", help="reuse (or write) the archive's Parquet file here")
    parser.add_argument("--partitions", type=int, default=0,
                        help="--archive: one process vs this many local partitions")  # fmt: skip
    parser.add_argument("--max-b", type=int, default=None,
                        help="--archive: largest B tried (needed with --partitions)")  # fmt: skip
    parser.add_argument("--horizon", action="store_true", help="horizon_table vs --baseline")
    parser.add_argument(
        "--baseline",
        default=None,
        help="git revision: --horizon against it (default main); --archive adds its phases",
    )
    parser.add_argument(
        "--rounds", type=int, default=None, help="alternating rounds (--horizon 5, --partitions 2)"
    )
    parser.add_argument("--data", default=None, help="bodyfat CSV (default $BAYGO_BODYFAT)")
    args = parser.parse_args(argv)
    if args.horizon:
        runs, steps, rounds = (4, 120, 2) if args.quick else (20, 300, args.rounds or 5)
        horizon(args.baseline or "main", runs=runs, steps=steps, agents=12, rounds=rounds,
                data=args.data)  # fmt: skip
        return
    if args.archive:
        if args.quick:
            args.events, args.nodes, args.archive_steps = 200_000, 2_000, 200
        archive(
            args.events,
            args.nodes,
            args.archive_steps,
            args.stride,
            args.path,
            baseline=args.baseline,
            partitions=args.partitions,
            max_b=args.max_b,
            rounds=args.rounds or 2,
        )
        return
    if args.quick:
        args.steps, args.agents = 1_000, 200
    rng = np.random.default_rng(args.seed)
    choices = random_choices(args.steps, args.agents, rng)
    run = as_run(choices)
    print(f"series: T={args.steps:,} steps, M={args.agents:,} agents, seed {args.seed}")

    ours, t_ours, c_ours = timed(smallest_b, run, windows="sliding")
    aligned, t_aligned, c_aligned = timed(smallest_b, run, windows="aligned")
    ours, aligned = ours.B, aligned.B  # the window lengths of the two BCoverage results
    ttc, t_ttc, c_ttc = timed(time_to_connectivity, run)
    print(f"ours      smallest sliding B = {ours}  in {t_ours:8.2f} s wall, {c_ours:8.2f} s CPU")
    print(
        f"ours      smallest aligned B = {aligned}  in {t_aligned:8.2f} s wall, "
        f"{c_aligned:8.2f} s CPU"
    )
    print(
        f"ours      time_to_connectivity: median {np.median(ttc[ttc > 0]):.0f}, "
        f"max {ttc.max()} steps, in {t_ttc:.2f} s wall, {c_ttc:.2f} s CPU"
    )
    (ref, checks), t_ref, c_ref = timed(networkx_smallest_sliding_b, choices)
    print(
        f"networkx  smallest sliding B = {ref}  in {t_ref:8.2f} s wall, {c_ref:8.2f} s CPU "
        f"({checks:,} window checks)"
    )
    print(
        f"ratio networkx / ours (smallest sliding B) = {t_ref / t_ours:.0f}x wall, "
        f"{c_ref / c_ours:.0f}x CPU; answers agree: {ours == ref}"
    )
    if ours != ref:
        raise SystemExit("MISMATCH between ours and the NetworkX reference")


if __name__ == "__main__":
    main()
