"""Peak memory of ``baygo reproduce`` at scale: T = M = 1,000, 7 strategies (the paper's 6 and
Cen-stratified) x 5 seeds.

The whole :func:`baygo_graph.reproduce.reproduce` (the comparison, the long
BayGo runs with the theorem monitor, the analysis, every figure, the
animation, the tables: ``results.parquet`` is written run by run, one row group per
run; ``--csv``: ``results.csv`` as before) runs in a fresh
subprocess on synthetic data with enough samples for M agents (grid 21 x 21,
K = 441, so the runs take minutes, not hours: the posteriors are not what this
measures). A thread samples, every 0.2 s, the resident memory of that process
and of every process below it (the loky workers), and keeps the largest sum;
the process's own high-water mark (``VmHWM``) is printed beside it. Run
``python benchmarks/bench_reproduce_memory.py [--quick] [--jobs N] [--csv]``
(``--quick``: T = M = 200, 2 seeds). It prints the peak, the stage times (``write``:
the tables) and the results file's size in bytes per result row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

LIMIT_GIB = 4.0
FULL = (1000, 1000, 5, 21)
QUICK = (200, 200, 2, 21)


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children() -> dict:
    """pid -> parent pid of every process on the machine (from /proc)."""
    out = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as fh:
                    out[int(entry.name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return out


def tree_rss(root: int) -> int:
    """Resident memory of ``root`` and all its descendants (bytes)."""
    parent = _children()
    tree, todo = {root}, [root]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in tree:
                tree.add(c)
                todo.append(c)
    return sum(_rss(p) for p in tree)


def child(
    steps: int,
    agents: int,
    seeds: int,
    grid: int,
    jobs: int,
    out: str,
    results_format: str = "parquet",
) -> None:
    """Run reproduce here; print the peak of this process tree and the stage times."""
    import warnings

    from _common import bench_data

    from baygo_graph.reproduce import reproduce

    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], tree_rss(os.getpid()))
            stop.wait(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    data = bench_data(agents)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = reproduce(out, seeds=seeds, steps=steps, agents=agents, grid=grid, data=data,
                        n_jobs=jobs, video=False, progress=False,
                        results_format=results_format)  # fmt: skip
    stop.set()
    thread.join()
    with open("/proc/self/status") as fh:
        hwm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
    path = Path(rep.files["results"])
    rows = len(rep.summary) * seeds * steps * agents  # strategies x N x T x M
    print(json.dumps({"tree_peak": peak[0], "hwm": hwm, "timings": rep.timings,
                      "results_file": path.name, "results_bytes": path.stat().st_size,
                      "rows": rows, "verdicts": [c.verdict for c in rep.claims]}))  # fmt: skip


def measure(size, jobs: int, out: str, results_format: str = "parquet") -> dict:
    args = [sys.executable, __file__, "--child", *map(str, size), str(jobs), out,
            results_format]  # fmt: skip
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode:
        return {"error": proc.stderr[-800:], "returncode": proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: Records of the last measurement in this process (``run_all`` reuses them).
LAST: dict = {}


def headline(quick: bool) -> list[list]:
    """Rows for run_all's headline table: the command's peak beside the 4 GiB target."""
    key = (quick, 2)
    if key not in LAST:
        import tempfile

        LAST[key] = measure(QUICK if quick else FULL, 2, tempfile.mkdtemp(prefix="bench-rep-"))
    rec = LAST[key]
    steps, agents, seeds, grid = QUICK if quick else FULL
    what = f"peak RSS of baygo reproduce, 7 strategies x {seeds} seeds, T={steps}, M={agents}"
    if "error" in rec:
        return [[what, "failed", f"{LIMIT_GIB:g} GiB", "-", f"< {LIMIT_GIB:g} GiB"]]
    gib = rec["tree_peak"] / 2**30
    return [[what, f"{gib:.2f} GiB", f"{LIMIT_GIB:g} GiB", f"{gib / LIMIT_GIB:.2f}",
             f"< {LIMIT_GIB:g} GiB"]]  # fmt: skip


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="T = M = 200, 2 seeds")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out", default=None, help="output folder (default: a temporary one)")
    parser.add_argument("--csv", action="store_true", help="write results.csv (as before)")
    parser.add_argument(
        "--child", nargs=7, metavar=("T", "M", "SEEDS", "GRID", "JOBS", "OUT", "FORMAT")
    )
    args = parser.parse_args(argv)
    if args.child:
        t, m, n, g, j, out, fmt = args.child
        child(int(t), int(m), int(n), int(g), int(j), out, fmt)
        return ""
    import tempfile

    size = QUICK if args.quick else FULL
    out = args.out or tempfile.mkdtemp(prefix="bench-reproduce-")
    t0 = time.perf_counter()
    rec = measure(size, args.jobs, out, "csv" if args.csv else "parquet")
    LAST[(args.quick, args.jobs)] = rec
    wall = time.perf_counter() - t0
    steps, agents, seeds, grid = size
    title = (f"baygo reproduce, 7 strategies x {seeds} seeds, T = {steps}, M = {agents}, "
             f"grid {grid}x{grid}, n_jobs={args.jobs} (fresh subprocess)")  # fmt: skip
    if "error" in rec:
        text = f"{title}\n\nfailed (exit {rec['returncode']}): {rec['error']}"
    else:
        gib = rec["tree_peak"] / 2**30
        rows = [
            ["process tree (sampled every 0.2 s)", f"{gib:.2f} GiB",
             "under" if gib < LIMIT_GIB else "OVER"],
            ["main process VmHWM", f"{rec['hwm'] / 2**30:.2f} GiB", ""],
        ]  # fmt: skip
        text = table(["peak resident memory", "GiB", f"{LIMIT_GIB:g} GiB"], rows, title=title)
        stages = ", ".join(f"{k} {v:.0f} s" for k, v in rec["timings"].items())
        size_mib = rec["results_bytes"] / 2**20
        text += (f"\n\nstages: {stages}; wall {wall:.0f} s; {rec['results_file']} "
                 f"{size_mib:.1f} MiB for {rec['rows']:,} result rows "
                 f"({rec['results_bytes'] / rec['rows']:.2f} bytes per row); "
                 f"verdicts {rec['verdicts']}")  # fmt: skip
    out_text = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n" + text
    print(out_text, flush=True)
    return out_text


if __name__ == "__main__":
    main()
