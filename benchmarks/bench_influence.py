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
* ``analysis_report`` on the T x M series, with the time of its parts;
* with ``--user``, only user series instead (edge lists with several in-edges per
  node and step, synthetic: a 30% hub and an activity-driven one, ``_user_series.py``;
  default 10^6 events, T = 10^4, M = 10^3): sliding union influence (window = the
  smallest sliding B) against that smallest B, and against the cold solve of each
  window on a sample; aligned union influence against a short SciPy script (one
  ARPACK eigensolve per window, ``_scipy_refs.py``); and at ``--wide-agents`` (10^4)
  aligned and sliding union influence against a SciPy power iteration per window.
  SciPy and ours alternate, three rounds, medians.

Run::

    python benchmarks/bench_influence.py            # T=10,000, M=1,000 (a few minutes)
    python benchmarks/bench_influence.py --quick    # T=1,000, M=200
    python benchmarks/bench_influence.py --threads 1   # one BLAS thread (loaded machines)
    python benchmarks/bench_influence.py --user     # user series (about 10 minutes)
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import numpy as np
from _scipy_refs import eigs_influence, power_influence, window_means
from _user_series import user_frame

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
from baygo_graph.analysis.window_influence import union_window_influence
from baygo_graph.inputs import as_series
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
        new = new.values
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
    _say(lines, f"  (report: smallest sliding B {rep.smallest_b['sliding'].B})")


def _alternate(fns: dict, rounds: int) -> dict:
    """Median wall time of each function, the functions called in turn ``rounds`` times."""
    times = {k: [] for k in fns}
    out = {}
    for _ in range(rounds):
        for k, fn in fns.items():
            out[k], t = timed(fn)
            times[k].append(t)
    return {k: (out[k], float(np.median(v))) for k, v in times.items()}


def _reference(series, frame, bounds, solve):
    """The SciPy script on the windows ``bounds``: (len(bounds), M) rows in series order."""
    m = series.n_agents
    index = {v: k for k, v in enumerate(series.nodes)}
    src = frame["source"].map(index).to_numpy()
    dst = frame["target"].map(index).to_numpy()
    step = frame["time"].to_numpy() - frame["time"].min()
    w = np.ones(len(frame))
    return np.array([solve(u) for u in window_means(step, src, dst, w, m, bounds)])


def _b(result):
    """B from smallest_b's answer (a BCoverage; None when no B)."""
    return None if result.B is None else int(result.B)


def _rows(result, ends):
    """Rows ``ends`` of an influence_series result."""
    return result.values[np.asarray(ends)]


def user_section(lines, *, events, steps, agents, wide, sample, rounds, seed, wide_sample=8,
                 wide_rounds=1, kinds=("hub", "activity")):  # fmt: skip
    """Union influence of user series: sliding vs smallest B, aligned vs SciPy eigs,
    and at ``wide`` nodes aligned and sliding vs a SciPy power iteration."""
    for kind in kinds:
        frame = user_frame(kind, events, steps, agents, seed=seed)
        # self_weight=0: the edges' weights alone, as the SciPy references sum them
        s, t_load = timed(as_series, frame, self_weight=0)
        b, t_b = timed(smallest_b, s, windows="sliding")
        b = _b(b)
        rows, t_u = timed(influence_series, s, window=b, method="union", windows="sliding")
        rows = rows.values
        _say(lines, f"### user series, {kind} (synthetic): {events:,} events, T={steps:,}, "
                    f"M={agents:,} (loaded in {t_load:.1f} s), load average {load()}")  # fmt: skip
        ends = np.arange(b - 1, steps)
        defined = np.isfinite(rows[ends]).all(axis=1).mean()
        pick = np.unique(np.r_[ends[: sample // 2], ends[:: max(1, len(ends) // (sample // 2))]])
        cold = np.array([
            influence(window_matrix(s, e - b + 1, e + 1, method="union"), on_nonunique="nan")
            for e in pick
        ])  # fmt: skip
        diff = float(np.nanmax(np.abs(cold - rows[pick])))
        _say(lines, f"sliding union influence, window = smallest sliding B = {b}: "
                    f"{len(ends):,} windows ({defined:.0%} unique) in {t_u:.2f} s; smallest "
                    f"sliding B {t_b:.2f} s; ratio {t_u / t_b:.2f}x (target <= 10x); max |ours - "
                    f"cold solve| {diff:.1e} on {len(pick)} windows")  # fmt: skip
        a = _b(smallest_b(s, windows="aligned")) or b
        a_ends = np.arange(a - 1, steps, a)
        bounds = [(e - a + 1, e + 1) for e in a_ends]
        res = _alternate(
            {
                "ours": partial(influence_series, s, window=a, method="union", windows="aligned"),
                "eigs": partial(_reference, s, frame, bounds, eigs_influence),
            },
            rounds,
        )
        (ours, t_o), (ref, t_r) = res["ours"], res["eigs"]
        diff = float(np.nanmax(np.abs(_rows(ours, a_ends) - ref)))
        _say(lines, f"aligned union influence, window = smallest aligned B = {a} "
                    f"({len(a_ends)} windows): ours {t_o:.3f} s, SciPy eigs per window "
                    f"{t_r:.3f} s (medians of {rounds}, alternated): ours / SciPy = "
                    f"{t_o / t_r:.2f} (target <= 1); max |ours - SciPy| {diff:.1e}")  # fmt: skip
        if not wide:
            continue
        frame = user_frame(kind, events, steps, wide, seed=seed)
        s = as_series(frame, self_weight=0)
        a = _b(smallest_b(s, windows="aligned")) or steps // 5  # 5 windows when no B
        for windows, w_ends in (
            ("aligned", np.arange(a - 1, steps, a)),
            ("sliding", np.arange(a - 1, a - 1 + wide_sample)),
        ):
            bounds = [(e - a + 1, e + 1) for e in w_ends]
            if windows == "aligned":
                ours = partial(influence_series, s, window=a, method="union", windows="aligned")
            else:
                ours = partial(union_window_influence, s, window=a, ends=w_ends)
            res = _alternate(
                {"ours": ours, "power": partial(_reference, s, frame, bounds, power_influence)},
                wide_rounds,
            )
            (got, t_o), (ref, t_r) = res["ours"], res["power"]
            got = _rows(got, w_ends) if windows == "aligned" else got[0]
            diff = float(np.nanmax(np.abs(got - ref)))
            _say(lines, f"M={wide:,} ({kind}, synthetic, window {a}): {windows} union influence "
                        f"of {len(w_ends)} windows: ours {t_o:.2f} s, SciPy power iteration per "
                        f"window {t_r:.2f} s ({wide_rounds} round): ours / SciPy = "
                        f"{t_o / t_r:.2f} (target <= 1); "
                        f"max |ours - SciPy| {diff:.1e}")  # fmt: skip


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


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
    parser.add_argument("--user", action="store_true", help="only the user-series section")
    parser.add_argument("--user-events", type=int, default=1_000_000)
    parser.add_argument("--user-steps", type=int, default=10_000)
    parser.add_argument("--user-agents", type=int, default=1_000)
    parser.add_argument("--wide-agents", type=int, default=10_000, help="0: skip")
    parser.add_argument("--sample", type=int, default=40, help="windows checked / timed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", default="hub,activity", help="user series to run")
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
    lines = []
    if args.user:
        if args.quick:
            args.user_events, args.user_steps, args.user_agents = 40_000, 1_000, 100
            args.wide_agents = 300 if args.wide_agents else 0
        user_section(
            lines, events=args.user_events, steps=args.user_steps, agents=args.user_agents,
            wide=args.wide_agents, sample=args.sample, rounds=args.rounds, seed=args.seed,
            kinds=args.kinds.split(","),
        )  # fmt: skip
        return "\n".join(lines)
    rng = np.random.default_rng(args.seed)
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
