"""BayGo step time vs M and K against the limit, and the sparse KL scaling.

The limit is the unavoidable work of a step on the complete graph, timed in the
same process: one (M, K) x (K, M) matrix product (the dense KL cross terms) plus
one ``exp`` pass over M x K values. The headline (:func:`step_vs_limit`) times
single steps of the loop's own calls interleaved with the limit, and keeps the
fastest of each (robust to other processes on a shared machine), with the
element-wise passes on the default threads and on one thread
(``BAYGO_NUM_THREADS=1``; BLAS keeps its threads in both). Run
``python benchmarks/bench_step.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    bench_data,
    best_time,
    fmt_time,
    load_average,
    machine_lines,
    physical_graph,
    step_time,
    table,
)

# Rough cost model used only to pick the number of steps and skip huge combos.
_FLOPS = 3e10  # dense matmul flop/s on this machine (2 cores)
_BYTES = 5e9  # streamed bytes/s
_MAX_STEP_S = {True: 1.5, False: 6.0}  # quick / full: skip a combo slower than this
_MAX_BYTES = 6 * 2**30


def _limit_work(m: int, k: int, *, dtype="float64"):
    """One (M, K) x (K, M) product plus one exp pass over (M, K), as a function."""
    rng = np.random.default_rng(0)
    logp = rng.standard_normal((m, k)).astype(dtype)
    prob = np.exp(logp)
    out = np.empty_like(logp)

    def work():
        prob @ logp.T
        np.exp(logp, out=out)

    work()
    return work


def limit_time(m: int, k: int, *, dtype="float64", repeat: int = 3) -> float:
    """Seconds of one (M, K) x (K, M) product plus one exp pass over (M, K)."""
    return best_time(_limit_work(m, k, dtype=dtype), repeat=repeat)


def _estimate(m, k, edges, dense):
    passes = 20 * m * k * 8 / _BYTES
    kl = 2 * m * m * k / _FLOPS if dense else 5 * edges * k * 8 / _BYTES
    mem = 3 * m * k * 8 + (3 * m * m * 8 if dense else 0)
    return passes + kl, mem


def _stepper(m: int, g: int, *, seed: int = 0):
    """One BayGo step on the complete graph per call: the loop's own model and plan calls."""
    from _common import bench_data

    from baygo_graph.models import LinearRegression
    from baygo_graph.strategies import BayGo

    rng = np.random.default_rng(seed)
    model = LinearRegression(grid=g)
    split = model.split(bench_data(m), agents=m, informative=0, rng=rng)
    dtype = np.dtype("float64")
    plan = BayGo().start(agents=m, steps=1 << 20, delta=0.5, dtype=dtype, rng=rng)
    state = model.start(split, learners=m, dtype=dtype)
    t = [0]

    def step():
        model.update(state, plan.statistics(split, 1, rng, model.statistics))
        plan.pool(t[0], model, state, rng)
        model.measure(state, t[0], m)
        t[0] += 1

    return step


def step_vs_limit(
    m: int = 1000, g: int = 61, *, reps: int = 12, threads=None, warmup: int = 2
) -> dict:
    """Fastest of ``reps`` single steps and of ``reps`` limits, timed alternately.

    ``warmup`` steps run first (untimed): after ~100 steps the posteriors are
    concentrated and many log-posterior entries sit below -700, where numpy's
    ``exp`` is slow. ``threads`` sets ``BAYGO_NUM_THREADS`` for the element-wise passes during
    the measurement (None: the default, all cores).
    """
    old = os.environ.get("BAYGO_NUM_THREADS")
    if threads is not None:
        os.environ["BAYGO_NUM_THREADS"] = str(threads)
    try:
        step, limit = _stepper(m, g), _limit_work(m, g * g)
        for _ in range(warmup):
            step()
        ts, tl = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            step()
            t1 = time.perf_counter()
            limit()
            tl.append(time.perf_counter() - t1)
            ts.append(t1 - t0)
    finally:
        if old is None:
            os.environ.pop("BAYGO_NUM_THREADS", None)
        else:
            os.environ["BAYGO_NUM_THREADS"] = old
    from baygo_graph.models.rows import num_threads

    return {
        "M": m,
        "K": g * g,
        "warmup": warmup,
        "threads": threads if threads is not None else num_threads(),
        "step": min(ts),
        "limit": min(tl),
        "step_median": float(np.median(ts)),
        "limit_median": float(np.median(tl)),
    }


def _exact_exp(x, out=None):
    """The step's ``exp`` before the flush (numpy's ``exp`` bit for bit, subnormals kept)."""
    from baygo_graph.models.rows import exp_into

    return exp_into(x, np.empty_like(x) if out is None else out)


def flush_ab(m: int = 1000, g: int = 61, *, warmup: int = 200, reps: int = 12) -> dict:
    """Late steps with and without the flush below ``FLUSH_BELOW``, beside the limit.

    After ``warmup`` steps, ``reps`` rounds of: one step with the flush, one
    limit, one step with the exact (unflushed) ``exp``, timed alternately on the
    same evolving run, so all three see the same machine load. Returns the
    per-round ratios to the limit (median and quartiles) and the share of
    log-weights below the threshold.
    """
    from baygo_graph.models import grid as grid_module

    step, limit = _stepper(m, g), _limit_work(m, g * g)
    flushed = grid_module._safe_exp
    for _ in range(warmup):
        step()
    ts, tl, tx = [], [], []
    try:
        for _ in range(reps):
            grid_module._safe_exp = flushed
            t0 = time.perf_counter()
            step()
            t1 = time.perf_counter()
            limit()
            t2 = time.perf_counter()
            grid_module._safe_exp = _exact_exp
            step()
            t3 = time.perf_counter()
            ts.append(t1 - t0)
            tl.append(t2 - t1)
            tx.append(t3 - t2)
    finally:
        grid_module._safe_exp = flushed
    rs, rx = np.array(ts) / np.array(tl), np.array(tx) / np.array(tl)
    return {
        "M": m,
        "K": g * g,
        "warmup": warmup,
        "flushed": np.percentile(rs, [25, 50, 75]).tolist(),
        "exact": np.percentile(rx, [25, 50, 75]).tolist(),
        "fastest": [min(ts) / min(tl), min(tx) / min(tl)],
    }


def flush_table(quick: bool) -> str:
    """The late-step ratios with and without the flush, measured in one run."""
    m, g, warmup = (500, 41, 40) if quick else (1000, 61, 200)
    rows = []
    for w in (2, warmup):
        r = flush_ab(m, g, warmup=w)
        for key, col in (("flushed", 0), ("exact", 1)):
            q1, med, q3 = r[key]
            rows.append(
                [
                    f"M={m}, K={g * g}, after {w} steps",
                    key,
                    f"{med:.2f}",
                    f"{q1:.2f}-{q3:.2f}",
                    f"{r['fastest'][col]:.2f}",
                ]
            )
    return table(
        ["BayGo step", "exp", "step/limit median", "quartiles", "fastest/fastest"],
        rows,
        title="Flush below exp(-708) vs exact exp, interleaved with the limit (target <= 1.5)",
    )


def headline_rows(quick: bool) -> tuple[list[list], list[dict]]:
    """Rows of the step-vs-limit table: default threads and one thread."""
    m, g, reps = (500, 41, 10) if quick else (1000, 61, 12)
    late = 40 if quick else 200
    recs = [
        step_vs_limit(m, g, reps=reps),
        step_vs_limit(m, g, reps=reps, warmup=late),
        step_vs_limit(m, g, reps=reps, threads=1),
    ]
    rows = [
        [
            f"M={r['M']}, K={r['K']}, complete, after {r['warmup']} steps",
            r["threads"],
            fmt_time(r["step"]),
            fmt_time(r["limit"]),
            f"{r['step'] / r['limit']:.2f}",
            f"{r['step_median'] / r['limit_median']:.2f}",
        ]
        for r in recs
    ]
    return rows, recs


def headline(quick: bool) -> list[list]:
    """Rows for run_all's headline table: the step beside its limit, default threads."""
    m, g, reps = (500, 41, 10) if quick else (1000, 61, 12)
    rows = []
    for warmup in (2, 40 if quick else 200):
        r = step_vs_limit(m, g, reps=reps, warmup=warmup)
        rows.append(
            [
                f"BayGo step, M={m}, K={g * g}, complete, {r['threads']} threads, "
                f"after {warmup} steps",
                fmt_time(r["step"]),
                f"limit {fmt_time(r['limit'])}",
                f"{r['step'] / r['limit']:.2f} (median {r['step_median'] / r['limit_median']:.2f})",
                "<= 1.5",
            ]
        )
    return rows


def headline_table(quick: bool) -> str:
    rows, _ = headline_rows(quick)
    return table(
        [
            "BayGo step",
            "element-wise threads",
            "step (fastest)",
            "limit (fastest)",
            "step/limit",
            "median step/median limit",
        ],
        rows,
        title="BayGo step vs its limit (one MxK.KxM product + one exp), BLAS on default threads",
    )


def step_table(quick: bool) -> tuple[str, list[dict]]:
    agents = [12, 100, 1000] if quick else [12, 100, 1000, 10_000]
    grids = [11, 61] if quick else [11, 31, 61, 101]
    rows, records, skipped = [], [], []
    for graph in ["complete", "regular-10"]:
        for m in agents:
            data = bench_data(m)
            phys = physical_graph(graph, m) if m > 11 else None
            if graph != "complete" and m <= 11:
                continue
            edges = m * (m - 1) if phys is None else 2 * phys.number_of_edges()
            for g in grids:
                k = g * g
                est, mem = _estimate(m, k, edges, phys is None)
                if est > _MAX_STEP_S[quick] or mem > _MAX_BYTES:
                    skipped.append(
                        f"{graph} M={m} K={k} (estimated {est:.0f} s/step, {mem / 2**30:.1f} GiB)"
                    )
                    continue
                steps = int(np.clip(0.3 / max(est, 1e-5), 2, 200 if quick else 400))
                repeat = 5 if est < 0.05 else 3 if est < 1 else 2
                if m * m * k > 5e10:  # the dense limit itself would take too long
                    st = step_time(m, g, physical=phys, steps=steps, data=data, repeat=repeat)
                    lim = np.nan
                else:
                    st, lim = step_time(
                        m,
                        g,
                        physical=phys,
                        steps=steps,
                        data=data,
                        repeat=repeat,
                        alongside=_limit_work(m, k),
                    )
                rec = {"graph": graph, "M": m, "K": k, "edges": edges, "step": st, "limit": lim}
                records.append(rec)
                rows.append(
                    [
                        graph,
                        m,
                        k,
                        edges,
                        fmt_time(st),
                        fmt_time(lim),
                        f"{st / lim:.2f}" if np.isfinite(lim) else "-",
                        f"{st / (m * k) * 1e9:.1f}",
                    ]
                )
    text = table(
        [
            "physical",
            "M",
            "K",
            "edges",
            "BayGo step",
            "limit (MxK.KxM + exp)",
            "step/limit",
            "ns per M*K",
        ],
        rows,
        title="BayGo step time vs M and K (float64)",
    )
    if skipped:
        text += "\n\nskipped (time or memory budget): " + "; ".join(skipped)
    return text, records


def kl_table(quick: bool) -> tuple[str, list[dict]]:
    """kl_choices alone: complete (dense product) vs sparse graphs, work per edge."""
    from baygo_graph.strategies import kl_choices, listen_matrix

    g = 31
    k = g * g
    agents = [250, 500, 1000, 2000] if quick else [250, 500, 1000, 2000, 4000, 8000]
    rows, records = [], []
    rng = np.random.default_rng(0)
    for m in agents:
        logp = rng.standard_normal((m, k)) * 3
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        prob = np.exp(logp)
        for name in ["complete", "regular-10", "geometric"]:
            phys = physical_graph(name, m)
            listen = None if phys is None else listen_matrix(phys, m)
            edges = m * (m - 1) if listen is None else listen.nnz
            if listen is None and m > 4000:
                rows.append([name, m, k, edges, "-", "-", "skipped (M^2 memory/time)"])
                continue
            t = best_time(
                lambda p=prob, lp=logp, h=listen: kl_choices(
                    p, lp, listen=h, rng=np.random.default_rng(0)
                ),
                repeat=3,
            )
            records.append({"graph": name, "M": m, "K": k, "edges": edges, "kl": t})
            rows.append([name, m, k, edges, fmt_time(t), f"{t / (edges * k) * 1e9:.2f}", ""])
    text = table(
        ["physical", "M", "K", "directed edges", "kl_choices", "ns per edge*K", "note"],
        rows,
        title="KL neighbour choice: work scales with the edges",
    )
    return text, records


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (~1 min)")
    parser.add_argument("--flush", action="store_true", help="only the flush A/B table")
    args = parser.parse_args(argv)
    parts = ["\n".join(machine_lines()) + f"\nload average at start: {load_average()}"]
    parts.append(flush_table(args.quick))
    if args.flush:
        parts.append(f"load average at end: {load_average()}")
        print("\n\n".join(parts), flush=True)
        return "\n\n".join(parts)
    parts.append(headline_table(args.quick))
    text, _ = step_table(args.quick)
    parts.append(text)
    text, _ = kl_table(args.quick)
    parts.append(text)
    parts.append(f"load average at end: {load_average()}")
    out = "\n\n".join(parts)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
