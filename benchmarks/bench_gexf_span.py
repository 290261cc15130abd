"""GEXF export of a long sparse span: one pass over the series' rows vs a matrix per step.

A 2-contact edge list spanning T steps (``a -> b`` at step 0, ``b -> a`` at step T - 1,
as ``write_series`` of a 2-row file with times 0 and 10^6 gives) has its self-weight runs
and its digest (what :func:`baygo_graph.io.gexf.write_gexf` and every series-file reader
compute) computed two ways, interleaved (one pass, per step, per step, one pass, ...) so
that both see the same machine load: from :meth:`GraphSeries.step_rows` in one vectorised
pass (the package), and from ``series.weights(t)`` built for every step (the path before;
hostile round 13, R6). Both must give the same digest and the same runs. Then the whole
``write_series(..., ".gexf")`` is timed once. Run
``python benchmarks/bench_gexf_span.py [--steps T ...] [--rounds R]`` (the per-step path
takes ~0.4 ms a step: ~40 s at 10^5 steps).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

from baygo_graph import write_series  # noqa: E402
from baygo_graph.io import gexf  # noqa: E402
from baygo_graph.series import series_from_edges  # noqa: E402


def span_series(steps: int):
    """Two contacts, at the first and the last of ``steps`` steps."""
    return series_from_edges([0, steps - 1], [1, 0], [0, 1], [1.0, 1.0], n_steps=steps,
                             nodes=("a", "b"), self_weight="equal")  # fmt: skip


def per_step(series):
    """The path before: the digest and the self-weight runs from one matrix per step."""
    h = hashlib.sha256()
    marks = (tuple(series.nodes), series.n_steps, series.informative, bool(series.synthetic))
    h.update(repr(marks).encode())
    m = series.n_agents
    value, since, runs = np.zeros(m), np.zeros(m, dtype=np.int64), []
    for t in range(series.n_steps + 1):
        if t < series.n_steps:
            w = sp.csr_array(series.weights(t), dtype=np.float64)
            w.eliminate_zeros()
            w.sum_duplicates()
            w.sort_indices()
            for part in (w.indptr.astype(np.int64), w.indices.astype(np.int64), w.data):
                h.update(part.tobytes())
        now = w.diagonal() if t < series.n_steps else np.zeros(m)
        changed = np.flatnonzero(now != value)
        runs += [(int(k), float(value[k]), int(since[k]), t - 1)
                 for k in changed[value[changed] > 0]]  # fmt: skip
        since[changed] = t
        value = now
    return h.hexdigest(), sorted(runs, key=lambda r: (r[0], r[2]))


def one_pass(series):
    """The package: :func:`gexf.series_digest` and :func:`gexf._self_weight_runs`."""
    runs = gexf._self_weight_runs(series)
    return gexf.series_digest(series), list(zip(*(a.tolist() for a in runs), strict=True))


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    rows, equal = [], True
    lines = [*machine_lines(), f"load average before: {load_average()}"]
    for steps in args.steps:
        series = span_series(steps)
        times: dict = {"one pass": [], "per step": []}
        out = {}
        for r in range(args.rounds):
            for name in ("one pass", "per step") if r % 2 == 0 else ("per step", "one pass"):
                t0 = time.perf_counter()
                out[name] = (one_pass if name == "one pass" else per_step)(series)
                times[name].append(time.perf_counter() - t0)
        equal &= out["one pass"] == out["per step"]
        with tempfile.TemporaryDirectory() as folder:
            t0 = time.perf_counter()
            write_series(series, Path(folder) / "span.gexf")
            whole = time.perf_counter() - t0
        fast, slow = np.array(times["one pass"]), np.array(times["per step"])
        ratio = slow / fast
        rows.append([f"{steps:,}", f"{np.median(fast):.4f}", f"{np.median(slow):.3f}",
                     f"{np.median(ratio):.0f}x ({ratio.min():.0f}x-{ratio.max():.0f}x)",
                     f"{whole:.3f}"])  # fmt: skip
    lines += [
        f"digest + self-weight runs of a 2-contact span, {args.rounds} rounds interleaved; "
        f"the same digest and runs both ways: {equal}",
        table(
            [
                "steps",
                "one pass median s",
                "per step median s",
                "per step / one pass",
                "write_series .gexf s",
            ],
            rows,
        ),  # fmt: skip
        f"load average after: {load_average()}",
    ]
    text = "\n".join(lines)
    print(text)
    if not equal:
        raise SystemExit("the two paths differ")
    return text


if __name__ == "__main__":
    main()
