"""Influence series of long BayGo-like series: the choice kernels vs smallest_b and the old solve.

Everything is timed side by side in one process:

* ``influence_series(run, window=10).values`` (product and union, sliding windows) on a
  BayGo-like series - every agent listens to a uniformly random other agent
  each step (T x M, default 10,000 x 1,000) - against
  ``smallest_b(run, windows="sliding")`` on the same series;
* the old implementation (one matrix per window: ``window_matrix`` +
  ``influence``, i.e. a dense LAPACK solve on the closed class) on the first
  ``--prefix`` windows only, extrapolated per window to the whole series, and
  the max abs difference of the new results to it;
* the max abs difference to a dense ``numpy.linalg.eig`` on a few windows;
* the same on the choices of a real ``simulate("baygo")`` run at small M;
* a wide series (``--big-agents``, default M = 10,000, T = 1,000);
* ``analysis_report`` on the T x M series, with the time of its parts.

Run::

    python benchmarks/bench_influence.py            # T=10,000, M=1,000 (a few minutes)
    python benchmarks/bench_influence.py --quick    # T=1,000, M=200
    python benchmarks/bench_influence.py --threads 1   # one BLAS thread (loaded machines)
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.analysis import (
    analysis_report,
    b_connectivity,
    influence,
    influence_series,
    smallest_b,
    strongly_connected_steps,
    time_to_connectivity,
    window_matrix,
)
from baygo_graph.models import LinearRegression  # noqa: E402

WINDOW = 10


def random_choices(steps: int, agents: int, rng) -> np.ndarray:
    """(T, M) ints: each agent's uniformly random other agent (as bench_connectivity)."""
    ch = rng.integers(0, agents - 1, size=(steps, agents))
    return (ch + (ch >= np.arange(agents))).astype(np.int32)


def hub_choices(steps: int, agents: int, rng, share: float = 0.3) -> np.ndarray:
    """:func:`random_choices` with ``share`` of every step's choices on agent 0 (a hub):
    slowly mixing windows, the hard case of the window influence."""
    ch = random_choices(steps, agents, rng)
    ch[rng.random(ch.shape) < share] = 0
    ch[:, 0] = rng.integers(1, agents, size=steps)
    return ch


def _say(lines, text):
    """Print a result line at once (long runs) and keep it for the returned report."""
    print(text, flush=True)
    lines.append(text)


def timed(fn, *args, **kwargs):
    """(result, wall seconds)."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def old_influence(run, ends, method):
    """The previous implementation: form each window matrix, solve on its closed class."""
    out = np.full((len(ends), run.n_agents), np.nan)
    for n, e in enumerate(ends):
        mat = window_matrix(run, int(e) - WINDOW + 1, int(e) + 1, method=method)
        out[n] = influence(mat, on_nonunique="nan")
    return out


def eig_diff(run, new, ends, method):
    """Max abs difference of rows ``new[ends]`` to dense numpy.linalg.eig."""
    worst = 0.0
    for e in ends:
        mat = window_matrix(run, int(e) - WINDOW + 1, int(e) + 1, method=method).toarray()
        vals, vecs = np.linalg.eig(mat.T)
        v = np.real(vecs[:, np.argmin(np.abs(vals - 1.0))])
        if not np.isnan(new[e]).any():
            worst = max(worst, float(np.abs(v / v.sum() - new[e]).max()))
    return worst


def compare(run, label, prefix, n_eig, lines):
    """Time new vs smallest_b vs the old solve on one series; append text lines."""
    T, m = run.n_steps, run.n_agents
    b, t_b = timed(smallest_b, run, windows="sliding")
    _say(lines, f"### {label}: T={T:,}, M={m:,}, window {WINDOW}, sliding windows")
    _say(lines, f"smallest_b(sliding) = {b.B} in {t_b:.2f} s")
    for method in ("product", "union"):
        new, t_new = timed(influence_series, run, window=WINDOW, method=method, windows="sliding")
        defined = (~np.isnan(new[WINDOW - 1 :]).any(axis=1)).mean()
        line = (
            f"{method:8s} new {t_new:7.2f} s ({t_new / (T - WINDOW + 1) * 1e3:.3f} ms/window, "
            f"{defined:.0%} windows unique) = {t_new / t_b:.2f}x smallest_b"
        )
        if prefix:
            line += old_line(run, new, t_new, prefix, n_eig, method)
        _say(lines, line)


def old_line(run, new, t_new, prefix, n_eig, method):
    """The old solve on the first ``prefix`` windows, extrapolated; differences."""
    T = run.n_steps
    ends = np.arange(WINDOW - 1, min(T, WINDOW - 1 + prefix))
    old, t_old = timed(old_influence, run, ends, method)
    per_old = t_old / len(ends)
    full_old = per_old * (T - WINDOW + 1)
    same_nan = np.array_equal(np.isnan(old), np.isnan(new[ends]))
    diff = np.nanmax(np.abs(old - new[ends])) if not np.isnan(old).all() else 0.0
    eig = eig_diff(run, new, ends[:n_eig], method)
    return (
        f" | old {per_old * 1e3:.1f} ms/window on the first {len(ends)} windows -> "
        f"~{full_old:,.0f} s extrapolated = {full_old / t_new:,.0f}x new | max |new - old| "
        f"{diff:.1e} (NaN pattern equal: {same_nan}), max |new - eig| {eig:.1e} "
        f"({min(n_eig, len(ends))} windows)"
    )


def report_parts(run, lines):
    """Time the calls analysis_report makes, then analysis_report itself."""
    ttc = time_to_connectivity(run)
    parts = {
        "time_to_connectivity": lambda: time_to_connectivity(run),
        "smallest_b x2 (given ttc)": lambda: [
            smallest_b(run, windows=k, ttc=ttc) for k in ("aligned", "sliding")
        ],
        "strongly_connected_steps": lambda: strongly_connected_steps(run),
        "b_connectivity aligned": lambda: b_connectivity(run, WINDOW, windows="aligned"),
        "b_connectivity sliding": lambda: b_connectivity(run, WINDOW, windows="sliding"),
        "influence_series product": lambda: (
            influence_series(run, window=WINDOW, windows="sliding").values
        ),
        "influence_series union": lambda: (
            influence_series(run, window=WINDOW, method="union", windows="sliding").values
        ),
    }
    times = {name: timed(fn)[1] for name, fn in parts.items()}
    rep, t_rep = timed(analysis_report, run)
    _say(
        lines,
        f"### analysis_report: T={run.n_steps:,}, M={run.n_agents:,}: {t_rep:.1f} s "
        f"(load average {os.getloadavg()[0]:.1f}); its parts, timed just before:",
    )
    for name, t in times.items():
        _say(lines, f"  {name:26s} {t:7.2f} s ({t / t_rep:.0%})")
    _say(lines, f"  (report: smallest sliding B {rep['smallest_b']['sliding']})")


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--agents", type=int, default=1_000)
    parser.add_argument("--big-agents", type=int, default=10_000)
    parser.add_argument("--big-steps", type=int, default=1_000)
    parser.add_argument("--sim-agents", type=int, default=100)
    parser.add_argument("--sim-steps", type=int, default=2_000)
    parser.add_argument("--prefix", type=int, default=40, help="windows timed with the old solve")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="T=1,000, M=200; small extras")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="limit BLAS threads (threadpoolctl); 1 keeps the old solve's LAPACK calls "
        "from fighting over a loaded machine's cores",
    )
    args = parser.parse_args(argv)
    if args.threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    if args.quick:
        args.steps, args.agents, args.big_agents, args.big_steps = 1_000, 200, 2_000, 300
        args.sim_agents, args.sim_steps, args.prefix = 30, 500, 20
    rng = np.random.default_rng(args.seed)
    lines = []
    run = Run.from_choices(random_choices(args.steps, args.agents, rng), delta=0.5)
    compare(run, "random choices", args.prefix, 3, lines)
    data = synthetic_bodyfat(n=max(252, 20 * args.sim_agents), rng=args.seed)
    sim, t_sim = timed(
        simulate,
        "baygo",
        agents=args.sim_agents,
        steps=args.sim_steps,
        model=LinearRegression(grid=31),
        rng=0,
        data=data,
    )
    _say(lines, f"(simulate: {t_sim:.1f} s)")
    compare(sim, "simulate('baygo') choices", args.prefix, args.prefix, lines)
    big = Run.from_choices(random_choices(args.big_steps, args.big_agents, rng), delta=0.5)
    compare(big, "wide random choices (old solve not run)", 0, 0, lines)
    hub = Run.from_choices(hub_choices(args.steps, args.agents, rng), delta=0.5)
    compare(hub, "30% of choices on one hub (old solve not run)", 0, 0, lines)
    report_parts(run, lines)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
