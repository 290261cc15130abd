"""Per-step results: Parquet vs CSV, bytes per result row and read/write times.

Runs ``compare(..., tidy=False)`` on the synthetic data (every strategy), then
writes ``results.csv`` (``Comparison.write_csv`` with the ``data`` and
``synthetic`` columns: ``baygo reproduce --csv``) and ``results.parquet``
(:func:`~baygo_graph.io.results.write_results_parquet`: ``baygo reproduce``'s
default), side by side in one process, prints the bytes per result row of each
file and of each Parquet column (the constant ``data`` and ``synthetic`` columns
included), and times reading back:
the whole CSV (``Comparison.read_csv``), the whole Parquet file
(``Comparison.read_parquet``) and one column of it (``load_results(columns=["mse"])``),
interleaved over rounds. Run
``python benchmarks/bench_results.py [--steps T] [--agents M] [--seeds N] [--grid G]``
(``--steps 60 --agents 12 --seeds 20 --grid 61``: the default ``baygo reproduce``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import load_average, machine_lines, table  # noqa: E402

from baygo_graph import synthetic_bodyfat  # noqa: E402
from baygo_graph.analysis import Comparison  # noqa: E402
from baygo_graph.experiments import compare  # noqa: E402
from baygo_graph.io.results import (  # noqa: E402
    load_results,
    write_results_parquet,
)
from baygo_graph.models import LinearRegression


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--grid", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="T = 60, M = 40, 2 rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.agents, args.rounds = 60, 40, 2
    parts = ["\n".join(machine_lines()) + f"\nload average at start: {load_average()}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(seeds=args.seeds, steps=args.steps, agents=args.agents,
                    model=LinearRegression(grid=args.grid), rng=1, progress=False, tidy=False,
                    data=synthetic_bodyfat(max(600, 25 * args.agents), rng=1))  # fmt: skip
    rows_n = c.mse.size
    folder = Path(tempfile.mkdtemp())
    csv, pq = folder / "results.csv", folder / "results.parquet"
    times = {k: [] for k in ("write csv", "write parquet", "read csv", "read parquet", "mse only")}
    source = {"data": c.attrs["data_source"], "synthetic": c.attrs["synthetic"]}
    for _ in range(args.rounds):
        times["write csv"].append(_timed(c.write_csv, csv, overwrite=True, **source)[0])
        times["write parquet"].append(_timed(write_results_parquet, c, pq, overwrite=True)[0])
        t, back_csv = _timed(Comparison.read_csv, csv)
        times["read csv"].append(t)
        t, back = _timed(Comparison.read_parquet, pq)
        times["read parquet"].append(t)
        times["mse only"].append(_timed(load_results, pq, columns=["mse"])[0])
    exact = np.array_equal(back.mse, c.mse) and np.array_equal(back.influence, c.influence,
                                                               equal_nan=True)  # fmt: skip
    csv_err = float(np.nanmax(np.abs(back_csv.mse - c.mse) / np.abs(c.mse)))
    sizes = [
        ["CSV (write_csv, %.6g)", f"{csv.stat().st_size / rows_n:.1f}", f"{csv_err:.1e}"],
        [
            "Parquet (write_results_parquet)",
            f"{pq.stat().st_size / rows_n:.2f}",
            "0 (bit for bit)" if exact else "NOT EXACT",
        ],  # fmt: skip
    ]
    parts.append(
        table(
            ["file", "bytes per result row", "max relative MSE error read back"],
            sizes,
            title=f"{rows_n:,} result rows: {len(c.strategies)} strategies x {args.seeds} seeds "
            f"x T={args.steps} x M={args.agents} (target <= 10 bytes per row)",
        )  # fmt: skip
    )
    import pyarrow.parquet as pqm

    meta = pqm.ParquetFile(pq).metadata
    per_column = []
    for j in range(meta.num_columns):
        name = meta.schema.column(j).name
        size = sum(meta.row_group(g).column(j).total_compressed_size
                   for g in range(meta.num_row_groups))  # fmt: skip
        per_column.append([name, f"{size / rows_n:.4f}"])
    parts.append(
        table(["Parquet column", "bytes per result row (compressed, with page headers)"],
              per_column, title=f"Where the Parquet bytes go ({meta.num_row_groups} row groups)")
    )  # fmt: skip
    base = np.array(times["read csv"])
    parts.append(
        table(
            ["operation", "median s", "ratio to reading the CSV (median)"],
            [
                [k, f"{np.median(v):.3f}", f"{np.median(np.array(v) / base):.2f}"]
                for k, v in times.items()
            ],  # fmt: skip
            title=f"Write and read, {args.rounds} interleaved rounds",
        )  # fmt: skip
    )
    parts.append(f"load average at end: {load_average()}")
    out = "\n\n".join(parts)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
