"""Run every benchmark and print (and optionally save) their tables.

    python benchmarks/run_all.py [--quick] [--threads N] [--only step,naive,...] [--out FILE.md]

Sections: profile (where a step spends its time), step (step time vs M and K
against the limit, sparse KL scaling), naive (research-style reference, checked
to make the same choices), float32 (accuracy and speed), memory (peak RSS in a
subprocess), sweep (throughput on 1 and 2 workers), connectivity (runs
``benchmarks/bench_connectivity.py`` when that file exists), exact (the exact
Gaussian mode at M = 10^6: wall time, peak RSS, step profile). ``--quick`` uses
smaller sizes (a few minutes); the full run takes about half an hour.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import load_average, machine_lines  # noqa: E402

SECTIONS = {
    "profile": "bench_profile",
    "step": "bench_step",
    "naive": "naive",
    "float32": "bench_float32",
    "memory": "bench_memory",
    "sweep": "bench_sweep",
    "connectivity": "bench_connectivity",
    "exact": "bench_exact",
}


def run_section(name: str, quick: bool) -> str:
    module = SECTIONS[name]
    argv = ["--quick"] if quick else []
    if name == "connectivity":  # written separately: run it as a script if it exists
        script = HERE / f"{module}.py"
        if not script.exists():
            return "(benchmarks/bench_connectivity.py not present: skipped)"
        out = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True)
        return out.stdout + (
            f"\n(exit {out.returncode}: {out.stderr[-2000:]})" if out.returncode else ""
        )
    return importlib.import_module(module).main(argv)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes, a few minutes")
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections from {', '.join(SECTIONS)}",
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="limit BLAS threads (threadpoolctl here, OPENBLAS_NUM_THREADS in "
        "subprocesses); default: the machine's. 1 gives steadier ratios on a "
        "loaded machine",
    )
    args = parser.parse_args(argv)
    if args.threads is not None:
        import os

        from threadpoolctl import threadpool_limits

        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
        threadpool_limits(args.threads)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    bad = [n for n in names if n not in SECTIONS]
    if bad:
        parser.error(f"unknown sections {bad}: choose from {', '.join(SECTIONS)}")
    title = "# baygo-graph benchmarks" + (" (quick)" if args.quick else "")
    if args.threads is not None:
        title += f" (BLAS limited to {args.threads} thread(s))"
    header = "\n".join([title, "", *machine_lines(), f"load average at start: {load_average()}"])
    print(header, flush=True)
    parts = [header]
    for name in names:
        print(f"\n## {name}\n", flush=True)
        t0 = time.perf_counter()
        text = run_section(name, args.quick)
        if name == "connectivity":
            print(text, flush=True)
        parts.append(f"## {name} ({time.perf_counter() - t0:.0f} s)\n\n{text}")
    if args.out is not None:
        args.out.write_text("\n\n".join(parts) + "\n")
        print(f"\nreport written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
