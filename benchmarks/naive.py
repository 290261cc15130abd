"""A naive BayGo loop, written the way research code usually is, and the speed-up.

Python loop over agents, ``scipy.special.logsumexp`` per agent, a NetworkX graph
built and queried every step, KL computed pair by pair. It uses the package's
data split and prior (set-up) and draws the same random numbers in the same
order, so it makes the same neighbour choices as :func:`baygo_graph.simulate`:
:func:`check` verifies that on small cases, then :func:`main` times both.

Run ``python benchmarks/naive.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_data, fmt_time, load_average, machine_lines, step_time, table  # noqa: E402

from baygo_graph.models import LinearRegression  # noqa: E402

TIE_RTOL = 1e-12


def package_options(kw: dict):
    """The naive reference's keywords (``grid``, ``physical``) as the package takes them:
    ``(strategy, options)`` for ``simulate(strategy, **options)``."""
    from baygo_graph.strategies import BayGo

    options = {k: v for k, v in kw.items() if k not in ("grid", "physical")}
    options["model"] = LinearRegression(grid=kw["grid"])
    return BayGo(physical=kw.get("physical")), options


def naive_simulate(*, agents, steps, rng, data, grid=61, delta=0.5, batch=1, physical=None):
    """BayGo, naively. Returns (choices (T, M), mse (T, M))."""
    from baygo_graph.data import paper_split, resolve_data
    from baygo_graph.models import log_prior, make_grid

    rng = np.random.default_rng(rng)
    split = paper_split(resolve_data(data), agents=agents, rng=rng)
    g = make_grid(grid)
    theta = g.theta
    sigma = split.sigma_ls
    logp = [log_prior(g).copy() for _ in range(agents)]
    edges = list(nx.complete_graph(agents).edges) if physical is None else list(physical.edges)
    choices = np.zeros((steps, agents), dtype=int)
    mse = np.zeros((steps, agents))
    for t in range(steps):
        # local Bayesian update, agent by agent, sample by sample
        local = []
        for i in range(agents):
            u = rng.random(batch)
            idx = (u * split.counts[i]).astype(int)
            lp = logp[i].copy()
            for n in idx:
                x, y = split.x[i, n], split.y[i, n]
                lp = lp - 0.5 * (y - theta[:, 0] - theta[:, 1] * x) ** 2 / sigma**2
            local.append(lp - logsumexp(lp))
        # the communication graph, rebuilt and queried every step
        graph = nx.Graph()
        graph.add_nodes_from(range(agents))
        graph.add_edges_from(edges)
        ties = []
        for i in range(agents):
            p_i = np.exp(local[i])
            nbrs = sorted(graph.neighbors(i))
            if not nbrs:
                choices[t, i] = -1
                continue
            kl = np.array([np.sum(p_i * (local[i] - local[j])) for j in nbrs])
            best = kl.max()
            tied = [
                j
                for j, v in zip(nbrs, kl, strict=True)
                if v >= best - TIE_RTOL * max(np.abs(kl).max(), 1.0)
            ]
            choices[t, i] = tied[0]
            if len(tied) > 1:
                ties.append((i, tied))
        if ties:  # the package draws all tie-breaks of a step at once, in agent order
            picks = rng.integers(0, [len(tied) for _, tied in ties])
            for (i, tied), k in zip(ties, picks, strict=True):
                choices[t, i] = tied[k]
        # geometric pooling and metrics, agent by agent
        for i in range(agents):
            s = choices[t, i] if choices[t, i] >= 0 else i
            lp = delta * local[i] + (1 - delta) * local[s]
            logp[i] = lp - logsumexp(lp)
            p = np.exp(logp[i])
            a, b = p @ theta
            mse[t, i] = np.mean((a + b * split.x_test - split.y_test) ** 2)
    return choices, mse


def check(quick: bool = True) -> str:
    """Same choices (and MSE to 1e-9) as the package on small cases."""
    from baygo_graph import simulate

    lines = []
    cases = [
        {"agents": 12, "steps": 30, "grid": 21, "rng": 0},
        {
            "agents": 12,
            "steps": 30,
            "grid": 31,
            "rng": 1,
            "delta": 0.3,
            "batch": 2,
        },
        {
            "agents": 30,
            "steps": 20,
            "grid": 21,
            "rng": 2,
            "physical": nx.random_regular_graph(4, 30, seed=2),
        },
    ]
    for kw in cases:
        data = bench_data(kw["agents"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            strategy, options = package_options(kw)
            run = simulate(strategy, data=data, progress=False, **options)
        ch, mse = naive_simulate(data=data, **kw)
        same = np.array_equal(ch, run.choices)
        err = float(np.abs(mse - run.mse).max())
        desc = ", ".join(f"{k}={v}" for k, v in kw.items() if k != "physical")
        if "physical" in kw:
            desc += ", physical=4-regular"
        lines.append(f"{desc}: choices identical: {same}, max |MSE diff| = {err:.1e}")
        if not same or err > 1e-9:
            raise AssertionError("naive reference and package disagree: " + lines[-1])
    return "\n".join(lines)


def speed(quick: bool) -> tuple[str, list[dict]]:
    rows, records = [], []
    sizes = [(12, 61), (100, 61)] if quick else [(12, 61), (100, 31), (100, 61), (300, 61)]
    for m, g in sizes:
        data = bench_data(m)
        steps = 3 if m >= 100 else 10
        t0 = time.perf_counter()
        naive_simulate(agents=m, steps=1, rng=0, data=data, grid=g)
        t1 = time.perf_counter()
        naive_simulate(agents=m, steps=1 + steps, rng=0, data=data, grid=g)
        t2 = time.perf_counter()
        naive = ((t2 - t1) - (t1 - t0)) / steps
        fast = step_time(m, g, steps=max(5, steps * 10), data=data, repeat=3)
        records.append({"M": m, "K": g * g, "naive": naive, "package": fast})
        rows.append([m, g * g, fmt_time(naive), fmt_time(fast), f"{naive / fast:.0f}x"])
    text = table(
        ["M", "K", "naive step", "baygo_graph step", "speed-up"],
        rows,
        title="Naive research-style loop vs the package (complete graph)",
    )
    return text, records


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    parts = ["\n".join(machine_lines()) + f"\nload average: {load_average()}"]
    parts.append("naive reference check:\n" + check(args.quick))
    text, _ = speed(args.quick)
    parts.append(text)
    out = "\n\n".join(parts)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
