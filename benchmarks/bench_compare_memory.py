"""Peak memory of a reproduce-like comparison: tidy frame vs per-run arrays.

A reproduce-like study (all six strategies x seeds, T steps, M agents, then
``summarize``, the paired differences of BayGo against every baseline, and the
informative/others seed bands the figures draw) runs in a fresh subprocess
(``VmHWM``, one process: ``n_jobs=1``) twice: once through the tidy frame
(``compare(...)``, strategies x seeds x T x M rows, then the
:mod:`baygo_graph.analysis.stats` functions) and once streaming
(``compare(..., tidy=False)``: per-run arrays, and the
:class:`~baygo_graph.experiments.Comparison` reductions). Run
``python benchmarks/bench_compare_memory.py [--quick]``; the full size is
T = M = 1,000, 6 strategies x 5 seeds, grid 21 x 21 (K = 441, to keep the runs
feasible on 2 cores: the posteriors are not what this measures).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

from baygo_graph.models import LinearRegression

LIMIT_GIB = 4.0
STRATEGIES = ("baygo", "complete", "posm", "negm", "nocol", "cen")


def peak_rss() -> int:
    """High-water mark of this process's resident memory (bytes), from /proc."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0  # pragma: no cover


def child(mode: str, steps: int, agents: int, seeds: int, grid: int) -> None:
    """One study in this (fresh) process; prints peaks and a result digest as JSON."""
    import warnings

    from _common import bench_data

    from baygo_graph.analysis import paired_difference, seed_bands, summarize
    from baygo_graph.experiments import compare

    if mode.startswith("arrays-"):  # the analysis alone, on per-run arrays of the full size
        return _arrays_child(mode.split("-", 1)[1], steps, agents, seeds)
    data = bench_data(agents)
    kw = {
        "seeds": seeds,
        "steps": steps,
        "agents": agents,
        "model": LinearRegression(grid=grid),
        "data": data,
        "n_jobs": 1,
    }
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "tidy":
            res = compare(STRATEGIES, progress=False, **kw)
            after_runs = peak_rss()
            summary = summarize(res)
            diffs = [paired_difference(res, "baygo", s) for s in STRATEGIES[1:]]
            bands = [seed_bands(res, group=g) for g in ("informative", "others")]
        else:
            res = compare(STRATEGIES, progress=False, tidy=False, **kw)
            after_runs = peak_rss()
            summary = res.summarize()
            diffs = [res.paired_difference("baygo", s) for s in STRATEGIES[1:]]
            bands = [res.seed_bands(group=g) for g in ("informative", "others")]
    seconds = time.perf_counter() - t0
    out = {
        "peak": peak_rss(),
        "after_runs": after_runs,
        "seconds": seconds,
        "final_mse_informative": summary["final_mse_informative"].tolist(),
        "steps_to_cen": summary["steps_to_cen"].tolist(),
        "diff": [float(d.loc["final_mse_others", "mean"]) for d in diffs],
        "band_sum": [float(b["mean"].sum()) for b in bands],
    }
    print(json.dumps(out))


def _arrays_child(path: str, steps: int, agents: int, seeds: int) -> None:
    """The analysis of a study without its runs: random per-run arrays of the study's size."""
    import numpy as np

    from baygo_graph.analysis import paired_difference, seed_bands, summarize
    from baygo_graph.experiments import Comparison

    rng = np.random.default_rng(0)
    shape = (len(STRATEGIES), seeds, steps, agents)
    res = Comparison(
        strategies=STRATEGIES,
        mse=rng.gamma(2.0, size=shape),
        influence=rng.random(shape),
        informative=np.zeros(shape[:2], dtype=np.int64),
        attrs={"strategies": list(STRATEGIES)},
    )
    after_runs = peak_rss()
    t0 = time.perf_counter()
    if path == "tidy":
        df = res.to_frame()
        summary = summarize(df)
        diffs = [paired_difference(df, "baygo", s) for s in STRATEGIES[1:]]
        bands = [seed_bands(df, group=g) for g in ("informative", "others")]
    else:
        summary = res.summarize()
        diffs = [res.paired_difference("baygo", s) for s in STRATEGIES[1:]]
        bands = [res.seed_bands(group=g) for g in ("informative", "others")]
    out = {
        "peak": peak_rss(),
        "after_runs": after_runs,
        "seconds": time.perf_counter() - t0,
        "final_mse_informative": summary["final_mse_informative"].tolist(),
        "steps_to_cen": summary["steps_to_cen"].tolist(),
        "diff": [float(d.loc["final_mse_others", "mean"]) for d in diffs],
        "band_sum": [float(b["mean"].sum()) for b in bands],
    }
    print(json.dumps(out))


def measure(mode, steps, agents, seeds, grid, *, env=None) -> dict:
    args = [sys.executable, __file__, "--child", mode, str(steps), str(agents), str(seeds)]
    out = subprocess.run([*args, str(grid)], capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        return {"mode": mode, "error": out.stderr[-600:], "returncode": out.returncode}
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec.update(mode=mode)
    return rec


#: Records of the last :func:`study` in this process (``run_all`` reuses them).
LAST: dict = {}


def study(quick: bool, modes=("stream", "tidy")) -> list[dict]:
    """Both paths at the full (or quick) size, each in a fresh subprocess."""
    size = (200, 200, 2, 21) if quick else (1000, 1000, 5, 21)
    key = (quick, tuple(modes))
    if key not in LAST:
        LAST[key] = [dict(measure(mode, *size), size=size) for mode in modes]
    return LAST[key]


def headline(quick: bool) -> list[list]:
    """Rows for run_all's headline table: streaming peak RSS beside the tidy path's."""
    recs = {r["mode"]: r for r in study(quick)}
    steps, agents, seeds, grid = recs["stream"]["size"]
    what = f"peak RSS, 6 strategies x {seeds} seeds, T={steps}, M={agents}, grid {grid}"

    def gib(r):
        return f"{r['peak'] / 2**30:.2f} GiB" if "peak" in r else "failed"

    s, t = recs["stream"], recs["tidy"]
    ratio = f"{s['peak'] / t['peak']:.2f}" if "peak" in s and "peak" in t else "-"
    return [[what, f"streaming {gib(s)}", f"tidy frame {gib(t)}", ratio, "< 4 GiB"]]


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="T = M = 200, 2 seeds")
    parser.add_argument("--child", nargs=5, metavar=("MODE", "T", "M", "SEEDS", "GRID"))
    parser.add_argument("--modes", default="stream,tidy")
    args = parser.parse_args(argv)
    if args.child:
        mode, t, m, n, g = args.child
        child(mode, int(t), int(m), int(n), int(g))
        return ""
    steps, agents, seeds, grid = (200, 200, 2, 21) if args.quick else (1000, 1000, 5, 21)
    recs = study(args.quick, tuple(args.modes.split(",")))
    rows = []
    for r in recs:
        if "error" in r:
            rows.append([r["mode"], "-", "-", "-", f"failed (exit {r['returncode']})"])
            continue
        rows.append(
            [
                r["mode"],
                f"{r['after_runs'] / 2**30:.2f} GiB",
                f"{r['peak'] / 2**30:.2f} GiB",
                f"{r['seconds']:.0f} s",
                "under" if r["peak"] < LIMIT_GIB * 2**30 else "OVER",
            ]
        )
    title = (
        f"Peak RSS of a reproduce-like study: {len(STRATEGIES)} strategies x {seeds} seeds, "
        f"T = {steps}, M = {agents}, grid {grid}x{grid} (fresh subprocess, n_jobs=1)"
    )
    text = table(
        ["path", "peak RSS after the runs", "peak RSS (runs + analysis)", "time", "4 GiB"],
        rows,
        title=title,
    )
    ok = [r for r in recs if "error" not in r]
    if len(ok) == 2:
        same = all(
            abs(a - b) <= 1e-9 * max(1.0, abs(a)) or (a != a and b != b)
            for k in ("final_mse_informative", "steps_to_cen", "diff", "band_sum")
            for a, b in zip(ok[0][k], ok[1][k], strict=True)
        )
        text += f"\n\nsame summary, paired differences and band sums on both paths: {same}"
    for r in recs:
        if "error" in r:
            text += f"\n\n{r['mode']} failed: {r['error']}"
    out = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n" + text
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
