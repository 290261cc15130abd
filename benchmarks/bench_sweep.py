"""Sweep throughput: tasks per second on 1 and 2 local workers, and on a local Dask cluster.

Every backend runs the same tasks into a fresh folder. Run
``python benchmarks/bench_sweep.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402


def throughput(grid, *, strategies, seeds, steps, **backend) -> tuple[int, float]:
    from baygo_graph import synthetic_bodyfat
    from baygo_graph.experiments import sweep

    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        table_ = sweep(
            grid,
            strategies=strategies,
            seeds=seeds,
            steps=steps,
            out=out,
            data=synthetic_bodyfat(),
            progress=False,
            **backend,
        )
        return len(table_), time.perf_counter() - t0


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    grid = {"delta": [0.3, 0.5, 0.7], "agents": [24], "grid": [61]}
    spec = {
        "strategies": ["baygo", "complete"],
        "seeds": 4 if args.quick else 8,
        "steps": 100 if args.quick else 200,
    }
    rows, base = [], None
    backends = [
        ("1 worker (in process, BLAS 1 thread)", {"n_jobs": 1, "blas": 1}),
        ("1 worker (in process, BLAS default threads)", {"n_jobs": 1}),
        ("joblib, 2 workers (loky, 1 BLAS thread each)", {"n_jobs": 2}),
    ]
    try:
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=40,
        )
        backends.append(
            (
                "dask LocalCluster, 2 workers (1 BLAS thread each)",
                {"scheduler": cluster.scheduler_address},
            )
        )
    except ImportError:
        cluster = None
    try:
        for name, backend in backends:
            blas = backend.pop("blas", None)
            if blas is None:
                n, seconds = throughput(grid, **spec, **backend)
            else:
                from threadpoolctl import threadpool_limits

                with threadpool_limits(blas, user_api="blas"):
                    n, seconds = throughput(grid, **spec, **backend)
            rate = n / seconds
            base = base or rate
            rows.append([name, n, f"{seconds:.1f} s", f"{rate:.2f}", f"{rate / base:.2f}"])
    finally:
        if cluster is not None:
            cluster.close()
    text = table(
        ["backend", "tasks", "wall time", "tasks/s", "vs 1 worker (1 thread)"],
        rows,
        title=f"Sweep throughput (M=24, K=3721, T={spec['steps']}, baygo + complete)",
    )
    out = "\n".join(machine_lines()) + f"\nload average: {load_average()}\n\n{text}"
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
