"""Run every benchmark and print (and optionally save) their tables.

    python benchmarks/run_all.py [--quick] [--threads N] [--only step,naive,...] [--out FILE.md]

The report ends with one headline table: each target of issue 13 beside its
reference, measured in this run (the BayGo step vs its limit with default
threads; peak RSS of a reproduce-like study streaming vs through the tidy
frame; influence; connectivity). A section module contributes rows to it
through ``headline(quick) -> [[quantity, measured, reference, ratio,
target], ...]``; for the connectivity script the rows are read from its output.

Sections: profile (where a step spends its time), step (step time vs M and K
against the limit, sparse KL scaling), naive (research-style reference, checked
to make the same choices), float32 (accuracy and speed), memory (peak RSS in a
subprocess), compare_memory (peak RSS of a reproduce-like comparison,
per-run arrays vs tidy frame, fresh subprocesses), sweep (throughput on 1 and
2 workers), influence (``benchmarks/bench_influence.py`` when that file
exists), connectivity (runs ``benchmarks/bench_connectivity.py`` when that
file exists), exact (the exact Gaussian mode at M = 10^6: wall time, peak RSS,
step profile), headline (the table above). ``--quick`` uses
smaller sizes (a few minutes); the full run takes about half an hour.
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import load_average, machine_lines, table  # noqa: E402

SECTIONS = {
    "profile": "bench_profile",
    "step": "bench_step",
    "naive": "naive",
    "float32": "bench_float32",
    "memory": "bench_memory",
    "compare_memory": "bench_compare_memory",
    "reproduce_memory": "bench_reproduce_memory",
    "sweep": "bench_sweep",
    "influence": "bench_influence",
    "connectivity": "bench_connectivity",
    "hub_analysis": "bench_hub_analysis",
    "results": "bench_results",
    "exact": "bench_exact",
    "headline": None,
}
# Sections that may not exist yet (written separately): skipped when absent.
OPTIONAL = {"influence", "connectivity"}
# Sections run as scripts (their main prints rather than returns).
SCRIPTS = {"connectivity"}
_OUTPUTS: dict = {}  # section -> its text, for the headline table
HEADLINE = ["quantity", "measured", "reference", "ratio", "target"]


def run_section(name: str, quick: bool) -> str:
    if name == "headline":
        return headline(quick)
    module = SECTIONS[name]
    argv = ["--quick"] if quick else []
    script = HERE / f"{module}.py"
    if name in OPTIONAL and not script.exists():
        return f"(benchmarks/{module}.py not present: skipped)"
    if name in SCRIPTS:
        out = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True)
        text = out.stdout + (
            f"\n(exit {out.returncode}: {out.stderr[-2000:]})" if out.returncode else ""
        )
    else:
        text = importlib.import_module(module).main(argv)
    _OUTPUTS[name] = text
    return text


def _connectivity_rows(quick: bool) -> list[list]:
    """The connectivity script's smallest-B times (ours vs NetworkX), read from its output."""
    text = _OUTPUTS.get("connectivity")
    if text is None:
        text = run_section("connectivity", quick)
    ours = re.search(r"ours\s+smallest sliding B = (\S+)\s+in\s+([\d.]+) s wall", text)
    ref = re.search(r"networkx\s+smallest sliding B = (\S+)\s+in\s+([\d.]+) s wall", text)
    series = re.search(r"series: T=([\d,]+) steps, M=([\d,]+) agents", text)
    if not (ours and ref and series):
        return [["smallest sliding B (connectivity)", "see its section", "-", "-", "-"]]
    t_ours, t_ref = float(ours.group(2)), float(ref.group(2))
    return [
        [
            f"smallest sliding B, T={series.group(1)}, M={series.group(2)}",
            f"{t_ours:.2f} s",
            f"NetworkX per window {t_ref:.2f} s",
            f"{t_ours / t_ref:.3f}" if t_ref else "-",
            f"same B: {ours.group(1) == ref.group(1)}",
        ]
    ]


def _influence_rows(name: str, quick: bool) -> list[list]:
    """influence_series (product, sliding) vs smallest_b on the first series, from its text."""
    if not (HERE / f"{SECTIONS[name]}.py").exists():
        return [[name, f"(benchmarks/{SECTIONS[name]}.py not present)", "-", "-", "-"]]
    if hasattr(importlib.import_module(SECTIONS[name]), "headline"):
        return _module_rows(name, quick)
    text = _OUTPUTS.get(name)
    if text is None:
        text = run_section(name, quick)
    series = re.search(r"### ([^:]+): T=([\d,]+), M=([\d,]+), window (\d+)", text)
    b = re.search(r"smallest_b\(sliding\) = \S+ in ([\d.]+) s", text)
    new = re.search(r"product\s+new\s+([\d.]+) s .*?= ([\d.]+)x smallest_b", text)
    if not (series and b and new):
        return [["influence_series", "see its section", "-", "-", "-"]]
    return [
        [
            f"influence_series (window {series.group(4)}), {series.group(1)}, "
            f"T={series.group(2)}, M={series.group(3)}",
            f"{float(new.group(1)):.2f} s",
            f"smallest_b {float(b.group(1)):.2f} s",
            new.group(2),
            "a few x smallest_b",
        ]
    ]


def _module_rows(name: str, quick: bool) -> list[list]:
    module = SECTIONS[name]
    if name in OPTIONAL and not (HERE / f"{module}.py").exists():
        return [[name, f"(benchmarks/{module}.py not present)", "-", "-", "-"]]
    mod = importlib.import_module(module)
    if not hasattr(mod, "headline"):
        return [[name, "see its section", "-", "-", "-"]]
    return [list(map(str, row)) for row in mod.headline(quick)]


def headline(quick: bool) -> str:
    """One table: each target beside its reference (measured now, or reused)."""
    rows = []
    for name, fn in (
        ("step", _module_rows),
        ("compare_memory", _module_rows),
        ("reproduce_memory", _module_rows),
        ("influence", _influence_rows),
        ("connectivity", lambda name, quick: _connectivity_rows(quick)),
    ):
        try:
            rows += fn(name, quick)
        except Exception as exc:  # a failing benchmark must not hide the others
            rows.append([name, f"failed: {type(exc).__name__}: {exc}"[:80], "-", "-", "-"])
    return table(HEADLINE, rows, title="Headline: each target beside its reference")


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
        if name in SCRIPTS or name == "headline":
            print(text, flush=True)
        parts.append(f"## {name} ({time.perf_counter() - t0:.0f} s)\n\n{text}")
    if args.out is not None:
        args.out.write_text("\n\n".join(parts) + "\n")
        print(f"\nreport written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
