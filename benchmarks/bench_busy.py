"""Paper-size runs on an idle and on a busy machine, and ``baygo reproduce`` against a
baseline checkout: ratios measured side by side in one run.

The busy machine is made here, so that the figure is reproducible: one background
process that spins on one core (a Python ``while True`` loop in a subprocess), started
and stopped around the "busy" measurements.

1. **Run vs limit** (one BLAS thread): a paper-size BayGo run (12 agents, grid 61 x 61,
   60 steps, the real data when ``--data`` or ``$BAYGO_BODYFAT`` names it) against its
   limit, 60 x (one ``exp`` pass over 12 x 3,721 values + the 12 x 3,721 x 12 KL
   product), timed alternately, in wall-clock and in CPU time of the thread (the CPU
   ratio is the one a shared machine disturbs least). Target: <= 2x. With
   ``--baseline REV``, the same run of this checkout and of the baseline, in
   alternating child processes (also with ``--quick``).
   **1c. Seed-batched runs** (``simulate_seeds``): the per-seed time of S paper-size
   runs made in one loop, S = 1, 10, 20, 80 (and the automatic choice for 80 seeds),
   against the same limit, timed alternately, in wall-clock and in CPU time of the
   process (every thread: the element-wise passes of a batch run on the package's
   threads); the ratio to S = 1 is the gain of batching.
2. **Busy vs idle**: the same run with the package's BLAS threads (the loop picks them
   by the size of its products) and with BLAS's default threads (what the loop did
   before), each idle and with the spinning process, in alternating rounds; and the
   seed-batched run (20 seeds at once, per seed). Target: busy <= 1.5x idle.
3. **reproduce vs a baseline** (``--baseline REV``: a git revision, checked out in a
   temporary worktree): ``baygo reproduce --data DATA`` with default settings, this
   checkout and the baseline alternately, with the spinning process. Target: <= 0.4x.
   Also their CPU time (user + system of the command and the processes it waited for:
   its worker, loky's resource tracker, ffmpeg), which a shared machine disturbs least.

Run ``python benchmarks/bench_busy.py [--rounds N] [--baseline REV] [--data PATH]``
(``--quick``: parts 1 and 2 only, few repetitions; a baseline then only in part 1;
``--parts 3``: part 3 alone, e.g. ``--parts 3 --baseline 917c5a1 --data bodyfat.csv``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import fmt_time, load_average, machine_lines, table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENTS, GRID, STEPS = 12, 61, 60
SPIN = "while True:\n    pass\n"


@contextlib.contextmanager
def busy(processes: int = 1):
    """``processes`` background processes, each spinning on one core, while inside."""
    procs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(processes)]
    try:
        time.sleep(0.2)  # let them start spinning
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def num_threads() -> int:
    """Threads of the package's element-wise passes."""
    from baygo_graph.models.rows import num_threads as threads

    return threads()


def _data(path):
    from baygo_graph.data import resolve_data

    return resolve_data(path)  # None: $BAYGO_BODYFAT, else the synthetic stand-in


def paper_run(data, *, default_blas: bool = False):
    """One paper-size BayGo run (a function of no arguments); ``default_blas``: BLAS
    keeps its own threads in the loop (the loop before it picked them by size)."""
    import baygo_graph.learning as learning
    from baygo_graph import simulate

    def run():
        saved = learning.blas_threads
        if default_blas:
            learning.blas_threads = lambda flops: None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                simulate("baygo", agents=AGENTS, steps=STEPS, rng=0, data=data, progress=False)
        finally:
            learning.blas_threads = saved

    return run


#: Seeds made together in part 1c.
SEEDS = (1, 10, 20, 80)
#: Seeds at once of the batched run of part 2.
BATCH_SEEDS = 20


def batched_run(data, seeds: int, *, at_once: int | None = None):
    """``seeds`` paper-size BayGo runs made together (``at_once`` per loop; None: all
    of them, or the package's choice with ``at_once="auto"``)."""
    from baygo_graph import simulate_seeds

    chunk = None if at_once == "auto" else (at_once or seeds)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            simulate_seeds("baygo", seeds=range(seeds), at_once=chunk, agents=AGENTS,
                           steps=STEPS, data=data, progress=False)  # fmt: skip

    return run


def auto_at_once(seeds: int) -> int:
    """The seeds per loop :func:`~baygo_graph.simulate_seeds` picks for ``seeds`` paper runs."""
    from baygo_graph.learning import _at_once
    from baygo_graph.models import LinearRegression
    from baygo_graph.strategies import resolve_strategy

    sizes = {"agents": AGENTS, "steps": STEPS, "batch": 1, "dtype": np.dtype("float64"),
             "keep": set()}  # fmt: skip
    model, strat = LinearRegression(grid=GRID), resolve_strategy("baygo", agents=AGENTS)
    return _at_once(model, strat, seeds, learners=AGENTS, **sizes)


def limit_work():
    """60 x (one exp pass over 12 x 3,721 values + the 12 x 3,721 x 12 product)."""
    rng = np.random.default_rng(0)
    logp = rng.standard_normal((AGENTS, GRID * GRID)) - 5.0
    prob = np.exp(logp)
    out = np.empty_like(logp)

    def work():
        for _ in range(STEPS):
            prob @ logp.T
            np.exp(logp, out=out)

    return work


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _clocked(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this thread) of ``fn()``."""
    w0, c0 = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w0, time.thread_time() - c0


def run_vs_limit(data, *, reps: int) -> dict:
    """Part 1: the run and its limit, alternately, on one BLAS thread; wall and CPU times."""
    from threadpoolctl import threadpool_limits

    run, limit = paper_run(data), limit_work()
    out = {"run": [], "limit": [], "run_cpu": [], "limit_cpu": []}
    with threadpool_limits(1, user_api="blas"):
        run(), limit()
        for _ in range(reps):
            for name, fn in (("run", run), ("limit", limit)):
                wall, cpu = _clocked(fn)
                out[name].append(wall)
                out[f"{name}_cpu"].append(cpu)
    return out


def _process_clocked(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process) of ``fn()``."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def seeds_vs_limit(data, *, reps: int) -> dict:
    """Part 1c: per-seed times of S runs made together and the limit, alternately, on one
    BLAS thread: {label: {"wall", "cpu", "limit_wall", "limit_cpu"}} (per seed)."""
    from threadpoolctl import threadpool_limits

    runs = {f"S = {n}": (n, batched_run(data, n)) for n in SEEDS}
    runs[f"80 seeds, automatic ({auto_at_once(80)} at once)"] = (
        80,
        batched_run(data, 80, at_once="auto"),
    )
    limit = limit_work()
    out = {label: {"wall": [], "cpu": [], "limit_wall": [], "limit_cpu": []} for label in runs}
    with threadpool_limits(1, user_api="blas"):
        for n, fn in runs.values():
            if n <= 10:
                fn()  # warm-up
        limit()
        for _ in range(reps):
            for label, (n, fn) in runs.items():
                wall, cpu = _process_clocked(fn)
                lim_wall, lim_cpu = _process_clocked(limit)
                for key, value in zip(out[label], (wall / n, cpu / n, lim_wall, lim_cpu),
                                      strict=True):  # fmt: skip
                    out[label][key].append(value)
    return out


def _seeds_rows(times: dict) -> list:
    """Rows of part 1c: medians per seed, their ratio to the limit and to S = 1."""
    base = {c: _med(times["S = 1"][c]) for c in ("wall", "cpu")}
    rows = []
    for label, t in times.items():
        wall, cpu = np.array(t["wall"]), np.array(t["cpu"])
        rw, rc = wall / np.array(t["limit_wall"]), cpu / np.array(t["limit_cpu"])
        rows.append([
            label,
            fmt_time(_med(wall)),
            fmt_time(_med(cpu)),
            fmt_time(_med(t["limit_cpu"])),
            f"{np.median(rw):.2f}x",
            f"{np.median(rc):.2f}x",
            f"{_med(wall) / base['wall']:.2f}x",
            f"{_med(cpu) / base['cpu']:.2f}x",
            "<= 2x",
        ])  # fmt: skip
    return rows


_CHILD = """
import json, sys
sys.path.insert(1, sys.argv[1])
import bench_busy
data = bench_busy._data(sys.argv[2] or None)
print(json.dumps(bench_busy.run_vs_limit(data, reps=int(sys.argv[3]))))
"""


def _child_run_vs_limit(root: Path, data: str | None, reps: int) -> dict:
    """Part 1 in a child process that imports the package at ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = [
        sys.executable,
        "-c",
        _CHILD,
        str(Path(__file__).resolve().parent),
        data or "",
        str(reps),
    ]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the paper run at {root} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


@contextlib.contextmanager
def baseline_tree(baseline: str):
    """A temporary git worktree of ``baseline`` (removed after the block)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-busy-"))
    base = tmp / "baseline"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), baseline],
        check=True,
        capture_output=True,
    )
    try:
        yield base, tmp
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)])
        shutil.rmtree(tmp, ignore_errors=True)


def run_ab(baseline: str, data: str | None, *, rounds: int, reps: int) -> dict:
    """Part 1 of this checkout and of ``baseline`` in alternating child processes:
    {name: {"run", "limit", "run_cpu", "limit_cpu"}}, every round's times appended."""
    names = {"this checkout": ROOT, f"baseline {baseline}": None}
    times = {name: {} for name in names}
    with baseline_tree(baseline) as (base, _):
        names[f"baseline {baseline}"] = base
        order = list(names.items())
        for r in range(rounds):
            for name, root in order if r % 2 == 0 else order[::-1]:
                for key, values in _child_run_vs_limit(root, data, reps).items():
                    times[name].setdefault(key, []).extend(values)
    return times


def busy_vs_idle(data, *, rounds: int, reps: int) -> dict:
    """Part 2: {(blas, load): times}; rounds alternate idle and busy, both BLAS rules."""
    runs = {
        "package": (1, paper_run(data)),
        "BLAS default": (1, paper_run(data, default_blas=True)),
        BATCHED: (BATCH_SEEDS, batched_run(data, BATCH_SEEDS)),
    }
    for _, fn in runs.values():
        fn()
    out = {(name, load): [] for name in runs for load in ("idle", "busy")}
    for _ in range(rounds):
        for load in ("idle", "busy"):
            with busy() if load == "busy" else contextlib.nullcontext():
                for name, (n, fn) in runs.items():
                    out[name, load] += [_timed(fn) / n for _ in range(reps)]
    return out


BATCHED = f"batched: {BATCH_SEEDS} seeds at once (per seed)"


def _reproduce(root: Path, data: str, out: Path) -> tuple[float, float]:
    """``(wall s, CPU s)`` of ``baygo reproduce --data DATA --out OUT`` with the package at
    ``root``; the CPU is user + system of the command and of the processes it waited for
    (its worker, loky's resource tracker, ffmpeg: ``os.wait4``)."""
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    args = [sys.executable, "-c", code, "reproduce", "--data", data, "--out", str(out)]
    t0 = time.perf_counter()
    # cwd = the tree: ``python -c`` puts the working directory first on sys.path, ahead of
    # PYTHONPATH (run from a checkout, both sides imported that checkout's package)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            text = err.read().decode(errors="replace")
            raise RuntimeError(f"reproduce at {root} failed:\n{text[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def reproduce_ab(baseline: str, data: str, *, rounds: int) -> dict:
    """Part 3: this checkout and ``baseline`` alternately, each with one spinning process."""
    times = {"this checkout": [], f"baseline {baseline}": []}
    cpu = {name: [] for name in times}
    with baseline_tree(baseline) as (base, tmp):
        for r in range(rounds):
            order = [("this checkout", ROOT), (f"baseline {baseline}", base)]
            for name, root in order if r % 2 == 0 else order[::-1]:
                with busy():
                    wall, used = _reproduce(root, data, tmp / f"out-{r}-{len(name)}")
                times[name].append(wall)
                cpu[name].append(used)
    return times, cpu


def _paired_rows(what: str, each: str, this, base, target: str) -> list:
    """Two rows of part 3: the medians and their ratio, then every round of each side."""
    return [
        [f"{what} (median s)", f"{_med(this):.1f}", f"{_med(base):.1f}",
         f"{_med(this) / _med(base):.2f}x", target],
        [each, " ".join(f"{x:.1f}" for x in this), " ".join(f"{x:.1f}" for x in base), "", ""],
    ]  # fmt: skip


def _med(xs) -> float:
    return float(np.median(xs))


def _ratio_row(what: str, times: dict, clock: str) -> list:
    """A row of part 1: medians of the run and the limit and of their per-pair ratio."""
    key = "" if clock == "wall" else "_cpu"
    run, limit = np.array(times[f"run{key}"]), np.array(times[f"limit{key}"])
    ratio = run / limit
    return [
        what,
        clock,
        fmt_time(_med(run)),
        fmt_time(_med(limit)),
        f"{np.median(ratio):.2f}x",
        f"{ratio.min():.2f}x",
        "<= 2x",
    ]


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--reps", type=int, default=5, help="runs per round (default 5)")
    ap.add_argument("--baseline", default=None, help="git revision for part 3 (reproduce)")
    ap.add_argument("--data", default=None, help="bodyfat CSV (default $BAYGO_BODYFAT)")
    ap.add_argument("--quick", action="store_true", help="parts 1-2, few repetitions")
    ap.add_argument("--parts", default="1,2,3", type=_parts,
                    help="parts to run, e.g. 3 (part 3 alone) or 1,2 (default 1,2,3)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.reps = 1, 2
    data = _data(args.data)
    lines = [*machine_lines(), f"load average before: {load_average()}", f"data: {data.source}"]
    if 1 in args.parts:
        lines += _part_one(args, data)
    if 2 in args.parts:
        lines += _part_two(args, data)
    if 3 in args.parts and args.baseline and not args.quick:
        lines += _part_three(args)
    elif 3 in args.parts and args.parts == {3}:
        raise SystemExit("part 3 needs --baseline REV (and not --quick)")
    lines.append(f"load average after: {load_average()}")
    text = "\n".join(lines)
    print(text)
    return text


def _parts(text: str) -> set:
    """``--parts``: a comma-separated subset of 1, 2, 3."""
    try:
        parts = {int(p) for p in text.split(",") if p.strip()}
    except ValueError:
        parts = set()
    if not parts or not parts <= {1, 2, 3}:
        raise argparse.ArgumentTypeError(f"parts must be a comma list of 1, 2, 3, got {text!r}")
    return parts


def _part_one(args, data) -> list:
    """Part 1 (run vs limit; with a baseline, 1b) and 1c (seed-batched runs): tables."""
    lines = []
    one = run_vs_limit(data, reps=args.reps * args.rounds)
    what = f"paper run ({AGENTS} agents, {GRID}x{GRID}, {STEPS} steps), 1 BLAS thread"
    lines.append(
        table(
            ["", "clock", "run (median)", "limit (median)", "ratio median", "ratio min", "target"],
            [_ratio_row(what, one, clock) for clock in ("wall", "CPU")],
            title="1. run vs its limit (timed alternately)",
        )
    )
    if args.baseline:
        ab = run_ab(args.baseline, args.data, rounds=max(2, args.rounds), reps=args.reps)
        rows = [_ratio_row(name, t, clock) for name, t in ab.items() for clock in ("wall", "CPU")]
        (this, base) = ab.values()
        speed = _med(base["run_cpu"]) / _med(this["run_cpu"])
        rows.append([f"baseline / this checkout, CPU time of the run: {speed:.2f}x", *[""] * 6])
        lines.append(
            table(
                [
                    "",
                    "clock",
                    "run (median)",
                    "limit (median)",
                    "ratio median",
                    "ratio min",
                    "target",
                ],  # fmt: skip
                rows,
                title=f"1b. this checkout vs {args.baseline} (alternating child processes)",
            )
        )
    seeds = seeds_vs_limit(data, reps=max(1, args.rounds * args.reps // 2))
    lines.append(
        table(
            [
                "runs made together",
                "wall / seed",
                "CPU / seed",
                "limit (CPU)",
                "ratio wall",
                "ratio CPU",
                "wall vs S = 1",
                "CPU vs S = 1",
                "target",
            ],  # fmt: skip
            _seeds_rows(seeds),
            title=f"1c. seed-batched paper runs (simulate_seeds), per seed, vs the limit "
            f"(timed alternately; 1 BLAS thread, {num_threads()} threads for the passes)",
        )
    )
    return lines


def _part_two(args, data) -> list:
    """Part 2 (busy vs idle): its table."""
    two = busy_vs_idle(data, rounds=args.rounds, reps=args.reps)
    rows = []
    for name in ("package", "BLAS default", BATCHED):
        idle, hot = _med(two[name, "idle"]), _med(two[name, "busy"])
        rows.append([name, fmt_time(idle), fmt_time(hot), f"{hot / idle:.2f}x", "<= 1.5x"])
    return [
        table(
            ["BLAS threads", "idle (median)", "1 busy process (median)", "busy / idle", "target"],
            rows,
            title="2. paper run, idle vs one spinning background process (alternating rounds)",
        )
    ]


def _part_three(args) -> list:
    """Part 3 (reproduce vs the baseline, one spinning process): its table."""
    path = args.data or os.environ.get("BAYGO_BODYFAT")
    if not path:
        raise SystemExit("part 3 needs --data or $BAYGO_BODYFAT (the real data)")
    load = load_average()
    three, cpu = reproduce_ab(args.baseline, str(Path(path).resolve()), rounds=args.rounds)
    (this, base), (this_cpu, base_cpu) = three.values(), cpu.values()
    return [
        f"part 3 load average before: {load}",
        table(
            ["", "this checkout", f"baseline {args.baseline}", "ratio", "target"],
            _paired_rows(
                "reproduce, default settings, 1 busy process",
                "  each round (s)",
                this,
                base,
                "<= 0.4x",
            )
            + _paired_rows(
                "  CPU, user + system of the process tree",
                "  CPU, each round (s)",
                this_cpu,
                base_cpu,
                "",
            ),  # fmt: skip
            title="3. baygo reproduce on the real data, alternating with the baseline",
        ),
    ]


if __name__ == "__main__":
    main()
