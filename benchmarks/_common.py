"""Shared helpers of the benchmarks: machine description, timers, data, tables.

Absolute times on a shared 2-core machine are noisy; every benchmark prints
ratios of quantities timed side by side in the same process, with the absolute
times beside them.
"""

from __future__ import annotations

import os
import platform
import time
import warnings

import numpy as np

from baygo_graph.models import LinearRegression
from baygo_graph.strategies import BayGo, physical_graph

__all__ = [
    "best_time",
    "bench_data",
    "machine",
    "physical_graph",
    "load_average",
    "step_time",
    "table",
]


def machine() -> dict:
    """Cores, CPU model, memory, numpy and its BLAS (threadpoolctl)."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
    }
    try:
        import psutil

        info["memory_gib"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:  # pragma: no cover
        pass
    try:
        from threadpoolctl import threadpool_info

        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        info["blas"] = ", ".join(
            f"{p['internal_api']} {p['version']} ({p.get('architecture', '?')}, "
            f"{p['num_threads']} threads)"
            for p in blas
        )
    except ImportError:  # pragma: no cover
        info["blas"] = "? (threadpoolctl not installed)"
    return info


def machine_lines() -> list[str]:
    m = machine()
    return [
        f"machine: {m['cores']} cores, {m['cpu']}, {m.get('memory_gib', '?')} GiB RAM",
        f"python {m['python']}, numpy {m['numpy']}, BLAS {m['blas']}, "
        f"OPENBLAS_CORETYPE={m['OPENBLAS_CORETYPE']}",
    ]


def best_time(fn, *, repeat: int = 3, number: int = 1) -> float:
    """Smallest wall time of ``repeat`` timings of ``number`` calls, per call (s)."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def bench_data(agents: int):
    """Synthetic bodyfat-like data with enough samples for ``agents`` agents.

    Enough samples in [70, 85) for every non-informative agent; the informative
    range [85, 120] is capped at 400 samples so that the informative agent's
    data (and the split's padded (M, max samples) arrays) stay as in the paper.
    """
    from baygo_graph.data import Dataset, synthetic_bodyfat

    ds = synthetic_bodyfat(10 * agents + 300, rng=1)
    abdomen = ds.frame["Abdomen"].to_numpy()
    informative = (abdomen >= 85) & (abdomen <= 120)
    keep = ~informative | (np.cumsum(informative) <= 400)
    frame = ds.frame[keep].reset_index(drop=True)
    return Dataset(frame=frame, source=f"synthetic (n={len(frame)})", synthetic=True)


def step_time(
    agents, grid, *, physical=None, steps=4, data=None, dtype="float64", repeat=2, alongside=None
):
    """Seconds per BayGo step: (best time of 1 + steps steps - best time of 1 step) / steps.

    The difference removes the set-up (data split, grid, physical graph). With
    ``alongside`` (a function), it is called between the timed runs of each
    repetition and its best time is returned too, so that both see the same
    machine load: ``(step_seconds, alongside_seconds)``.
    """
    from baygo_graph import simulate

    data = bench_data(agents) if data is None else data
    kw = {
        "agents": agents,
        "model": LinearRegression(grid=grid, dtype=dtype),
        "rng": 0,
        "data": data,
        "progress": False,
    }
    baygo = BayGo(physical=physical)
    short = long = other = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeat):
            t0 = time.perf_counter()
            simulate(baygo, steps=1, **kw)
            t1 = time.perf_counter()
            simulate(baygo, steps=1 + steps, **kw)
            t2 = time.perf_counter()
            short, long = min(short, t1 - t0), min(long, t2 - t1)
            if alongside is not None:
                other = min(other, best_time(alongside, repeat=1, number=max(1, steps)))
    step = max((long - short) / steps, 0.0)
    return step if alongside is None else (step, other)


def load_average() -> str:
    """The 1-minute load average (other processes share this machine)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:  # pragma: no cover
        return "?"


def fmt_time(seconds: float) -> str:
    if not np.isfinite(seconds):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def table(headers: list[str], rows: list[list], *, title: str | None = None) -> str:
    """A GitHub-flavoured markdown table."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    out = [] if title is None else [f"### {title}", ""]
    out.append("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |")
    out.append("| " + " | ".join("-" * w for w in widths) + " |")
    out += [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in cells
    ]
    return "\n".join(out)
