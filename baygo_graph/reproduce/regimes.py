"""Where each claim holds: the claims re-tested over a map of regimes.

:func:`regimes` runs the paper experiment (every strategy of
:data:`~baygo_graph.reproduce.STRATEGIES`, paired seeds, through
:func:`baygo_graph.experiments.compare`) in each regime of :data:`FACTORS` -
mini-batch size, pooling weight delta, grid points per axis and the likelihood
noise scale (:class:`~baygo_graph.models.LinearRegression`'s ``sigma_scale``) -
and evaluates the claims in each with :func:`~baygo_graph.reproduce.evaluate_claims`.

Two designs:

* ``"ofat"`` (default): one factor at a time around the paper's default
  (batch 1, delta 0.5, grid 61, x1 noise): 1 + 1 + 2 + 2 + 2 = 8 regimes. Each
  regime differs from the default in one factor, so a verdict that flips is
  attributed to that factor, at a seventh of the factorial's cost;
* ``"factorial"``: all 2 x 3 x 3 x 3 = 54 combinations, which also shows
  interactions (e.g. a coarse grid only hurting at large batches).

Seeds in rounds. A verdict whose interval straddles its margin is "cannot tell",
never a coin flip: a regime where some claim is undecided gets twice the seeds (by
default 10 -> 20 -> 40 -> 80, :func:`seed_rounds`): the runs of its earlier seeds are
kept and only the new seeds run, so each seed runs once per regime and strategy; the
runs of every pending regime at a look are spread over the workers together.
The error control is a Bonferroni correction over the looks:
with L planned looks every test runs at level ``1 - (1 - level) / L`` (e.g. 98.75%
intervals for L = 4, and 97.5% for the TOST's two sides), so the chance that any
look of a claim gives a false finding stays below ``1 - level`` however many looks
are taken. A claim is decided at the first look where its test decides, and keeps
that verdict; a claim still undecided at the last round stays "cannot tell at N
seeds". :meth:`RegimeMap.rounds` keeps every look's verdicts, and
:meth:`RegimeMap.reversals` lists the decided verdicts that reverse between a
regime's last two looks.
"""

from __future__ import annotations

import itertools
import os
import time

import numpy as np
import pandas as pd

from .._text import counted

__all__ = [
    "DEFAULT",
    "FACTORS",
    "RegimeMap",
    "escalating",
    "look_level",
    "plot_regimes",
    "regime_list",
    "regimes",
    "seed_rounds",
]

#: Factor -> levels of the regime map.
FACTORS = {"batch": (1, 5), "delta": (0.3, 0.5, 0.7), "grid": (31, 61, 121),
           "sigma_scale": (0.5, 1.0, 2.0)}  # fmt: skip
#: The paper's default regime.
DEFAULT = {"batch": 1, "delta": 0.5, "grid": 61, "sigma_scale": 1.0}


def regime_list(design: str = "ofat", *, factors=None, default=None) -> list[dict]:
    """The regimes of a design, the default first.

    Examples
    --------
    >>> len(regime_list("ofat")), len(regime_list("factorial"))
    (8, 54)
    >>> regime_list("ofat")[1]
    {'batch': 5, 'delta': 0.5, 'grid': 61, 'sigma_scale': 1.0}
    """
    factors = FACTORS if factors is None else dict(factors)
    default = DEFAULT if default is None else dict(default)
    if design == "factorial":
        cells = [dict(zip(factors, combo, strict=True))
                 for combo in itertools.product(*factors.values())]  # fmt: skip
        cells.sort(key=lambda c: c != default)
        return cells
    if design != "ofat":
        raise ValueError(f"design must be 'ofat' or 'factorial', got {design!r}")
    cells = [dict(default)]
    for name, levels in factors.items():
        cells += [default | {name: v} for v in levels if v != default[name]]
    return cells


def seed_rounds(seeds: int, max_seeds: int) -> tuple[int, ...]:
    """The seeds of each look: ``seeds``, doubled until ``max_seeds`` (the last, capped).

    Examples
    --------
    >>> seed_rounds(10, 80), seed_rounds(10, 50), seed_rounds(10, 10)
    ((10, 20, 40, 80), (10, 20, 40, 50), (10,))
    """
    if seeds < 2 or max_seeds < seeds:
        raise ValueError(
            f"need 2 <= seeds <= max_seeds, got seeds={seeds!r}, max_seeds={max_seeds!r}"
        )
    out = [seeds]
    while out[-1] < max_seeds:
        out.append(min(2 * out[-1], max_seeds))
    return tuple(out)


def look_level(level: float, looks: int) -> float:
    """Bonferroni over looks: the confidence level of each of ``looks`` looks.

    Examples
    --------
    >>> look_level(0.95, 4)
    0.9875
    """
    return 1.0 - (1.0 - level) / looks


#: How a verdict is coded in :meth:`RegimeMap.verdicts`.
STATE = {"holds": 1.0, "does not hold": 0.0, "violated where informative": 0.0,
         "vacuous": 0.5}  # fmt: skip


def _state(claim) -> float:
    if claim.outcome == "cannot tell":
        return 0.5
    return STATE.get(claim.verdict, np.nan)


def regime_label(cell: dict) -> str:
    """Short label of a regime: ``b1 d0.5 g61 s1``."""
    return (f"b{cell['batch']} d{cell['delta']:g} g{cell['grid']} "
            f"s{cell['sigma_scale']:g}")  # fmt: skip


class RegimeMap:
    """The claims over the regimes: a tidy table and the time it took.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (regime, claim), its final verdict: the factors, ``regime``
        (label), ``claim`` (key), ``verdict`` (with N when "cannot tell"),
        ``state`` (1 holds, 0 does not hold or violated, 0.5 cannot tell or
        vacuous, NaN not evaluated), ``holds`` (1.0 / 0.0 / NaN), ``seeds`` (N the
        verdict rests on), ``look`` (1-based), ``level`` (each look's confidence
        level), ``evidence`` and the main numbers (``mean_difference``, ``lo``,
        ``hi``, ``lo_tost``, ``hi_tost``, ``margin``, ``median_step``, ``reached``,
        ``informative_share``, ``holds_where_informative``, ``holds_lo``, ``holds_hi``,
        ``rate``).
    seconds : dict
        Per regime label, the summed run time of its runs (in the workers); under
        ``"total"``, the wall time of the map.
    caption : str or None
        Data and seeds (:func:`baygo_graph.figures.source_text`), drawn below the heat map.
    looks : pandas.DataFrame or None
        Every look's verdict: ``regime``, ``claim``, ``look``, ``seeds``,
        ``verdict``, ``state``.
    rounds : tuple of int
        The planned seeds of each look.
    runs : pandas.DataFrame or None
        One row per run made: ``regime``, ``strategy``, ``seed``, ``look`` (each seed
        once per regime and strategy).
    load : float or None
        The machine's 1-minute load average when the map finished (other processes
        share the cores: read the wall time with it).
    """

    def __init__(self, table, seconds, caption=None, looks=None, rounds=(), runs=None,
                 load=None):  # fmt: skip
        self.table = table
        self.seconds = seconds
        self.caption = caption
        self.looks = looks
        self.rounds = tuple(rounds)
        self.runs = runs
        self.load = load

    def verdicts(self) -> pd.DataFrame:
        """Claim x regime matrix of ``state`` (1 holds, 0 not, 0.5 cannot tell, NaN)."""
        t = self.table
        col = "state" if "state" in t else "holds"
        return t.pivot(index="claim", columns="regime", values=col).reindex(
            index=pd.unique(t["claim"]), columns=pd.unique(t["regime"])
        )

    def reversals(self) -> pd.DataFrame:
        """Decided verdicts that reverse between a regime's last two looks.

        One row per (regime, claim) decided at both of the regime's last two
        looks with opposite verdicts (holds <-> does not hold); empty when none.
        """
        cols = ["regime", "claim", "seeds_before", "verdict_before", "seeds", "verdict"]
        if self.looks is None or self.looks.empty:
            return pd.DataFrame(columns=cols)
        rows = []
        for (regime, claim), g in self.looks.groupby(["regime", "claim"], sort=False):
            g = g.sort_values("look")
            if len(g) < 2:
                continue
            a, b = g.iloc[-2], g.iloc[-1]
            if {a["state"], b["state"]} == {0.0, 1.0}:
                rows.append([regime, claim, a["seeds"], a["verdict"], b["seeds"], b["verdict"]])
        return pd.DataFrame(rows, columns=cols)


_NUMBERS = ("mean_difference", "lo", "hi", "lo_tost", "hi_tost", "margin", "median_step",
            "reached", "informative_share", "holds_where_informative", "holds_lo", "holds_hi",
            "rate")  # fmt: skip


def _regime_task(task, shared):
    """One (regime, strategy, seed) run: its MSE, and for BayGo what the claims need."""
    return _regime_tasks([task], shared)[0]


def _regime_tasks(tasks, shared):
    """Runs of one (regime, strategy), one per seed: each run's MSE, and for BayGo what
    the claims need.

    Runs in a worker: a BayGo run's smallest B, theorem check and belief spread are
    measured here, so only small arrays travel back, never the run. ``seconds``: the
    wall time of the runs, shared equally among them.
    """
    from ..analysis import theorem_check
    from ..learning import simulate_seeds
    from ..models import LinearRegression
    from .claims import coverage_rows
    from .consensus import belief_spread
    from .theorem import TruthMonitor

    cell_index, strategy, _, _ = tasks[0]
    cells, steps, dataset, agents, theorem, synthetic = shared
    cell = cells[cell_index]
    baygo = strategy == "baygo"
    t0 = time.perf_counter()
    runs = simulate_seeds(
        strategy, seeds=[task[3] for task in tasks], agents=agents, steps=steps, data=dataset,
        progress=False, model=LinearRegression(grid=cell["grid"], sigma_scale=cell["sigma_scale"]),
        batch=cell["batch"], delta=cell["delta"],
        monitors=[TruthMonitor(synthetic=synthetic)] if baygo and theorem else (),
    )  # fmt: skip
    outs = []
    for run in runs:
        out = {"mse": run.mse, "informative": int(run.informative)}
        if baygo:
            out["b"] = coverage_rows(run)
            out["check"] = theorem_check(run) if theorem else None
            out["beliefs"] = belief_spread(run.mean)
        outs.append(out)
    seconds = (time.perf_counter() - t0) / len(outs)
    for out in outs:
        out["seconds"] = seconds
    return outs


def _regime_group(task):
    """The group of a task: its (regime, strategy) (its seeds may run as one batch)."""
    return task[:2]


def _claims_of(done: dict, n: int, *, steps, theorem, level, attrs):
    """The claims of one regime from its first ``n`` seeds' runs (``done[(strategy, r)]``)."""
    from ..analysis.comparison import Comparison
    from .claims import STRATEGIES, evaluate_claims

    mse = np.stack([np.stack([done[(s, r)]["mse"] for r in range(n)]) for s in STRATEGIES])
    informative = np.array([[done[(s, r)]["informative"] for r in range(n)]
                            for s in STRATEGIES], dtype=np.int64)  # fmt: skip
    res = Comparison(strategies=STRATEGIES, mse=mse, influence=np.full(mse.shape, np.nan),
                     informative=informative, attrs=attrs | {"seeds": n})  # fmt: skip
    baygo = [done[("baygo", r)] for r in range(n)]
    rows = [{"seed": r} | row for r, out in enumerate(baygo) for row in out["b"]]
    checks = [out["check"] for out in baygo] if theorem else None
    beliefs = np.stack([out["beliefs"] for out in baygo])
    return evaluate_claims(res, smallest_b=pd.DataFrame(rows), theorem=checks, beliefs=beliefs,
                           level=level)  # fmt: skip


def _cost(cell) -> float:
    """Relative cost of a regime's run (grid points per axis squared): big runs first."""
    return float(cell["grid"]) ** 2


def escalating(key: str) -> bool:
    """Whether an undecided ``key`` adds seeds to its regime: every claim but the paper's
    sentences (:data:`~baygo_graph.reproduce.sentences.SENTENCES`), whose step-by-step
    and superiority tests may stay undecided at any N where the effect is nil.

    Examples
    --------
    >>> escalating("theorem_kl"), escalating("paper_outperforms_stars")
    (True, False)
    """
    from .sentences import SENTENCES

    return key not in SENTENCES


def regimes(*, design="ofat", cells=None, seeds=10, max_seeds=None, steps=60, rng=0, data=None,
            agents=12, n_jobs=None, scheduler=None, progress=None, theorem=True, level=0.95,
            log=None) -> RegimeMap:  # fmt: skip
    """Re-test the paper's claims in every regime of a design.

    A regime gets more seeds while a claim of :func:`escalating` is undecided (the
    paper's sentences are read at the regime's last look and add no seeds). Each
    seed runs once per regime and strategy: a look extends the previous look's
    seeds (the same paired child seeds ``SeedSequence(rng).spawn(max_seeds)[r]`` as
    :func:`~baygo_graph.experiments.compare` gives replicate ``r``), and the runs of
    every pending regime at a look go to the workers together (largest grids first).

    Parameters
    ----------
    design : {"ofat", "factorial"}, default "ofat"
        See the module docstring; ignored when ``cells`` is given.
    cells : list of dict, optional
        Regimes to run (keys ``batch``, ``delta``, ``grid``, ``sigma_scale``).
    seeds : int, default 10
        Paired seeds per regime at the first look (the same child seeds in every
        regime).
    max_seeds : int, optional
        The cap: a regime with an undecided claim gets twice the seeds (the earlier
        ones kept, new ones added) up to this many (:func:`seed_rounds`); default
        ``8 * seeds`` (three doublings: 10 -> 20 -> 40 -> 80); ``max_seeds=seeds``:
        one look.
    steps : int, default 60
    rng : int, default 0
    data : optional
        As in :func:`baygo_graph.simulate` (None: ``$BAYGO_BODYFAT``, else synthetic).
    agents : int, default 12
    n_jobs : int, optional
        Local worker processes (None: all cores).
    scheduler : str or distributed.Client, optional
        A Dask scheduler for the runs.
    progress : bool, optional
    theorem : bool, default True
        Also check the bound (BayGo runs with the theorem monitor).
    level : float, default 0.95
        Family level per claim over all looks: each look tests at
        :func:`look_level` ``(level, L)`` (Bonferroni over the L planned looks).
    log : callable, optional
        Called with one line per look.

    Returns
    -------
    RegimeMap

    Examples
    --------
    >>> import baygo_graph as bg
    >>> m = regimes(cells=[DEFAULT | {"grid": 11}], seeds=2, max_seeds=4, steps=4, agents=3,
    ...             data=bg.synthetic_bodyfat(), n_jobs=1, progress=False)
    >>> m.table["regime"].unique().tolist(), len(m.table)
    (['b1 d0.5 g11 s1'], 17)
    >>> m.rounds, float(m.table["level"].iloc[0])
    ((2, 4), 0.975)
    >>> int(m.runs.duplicated(["regime", "strategy", "seed"]).sum())  # each seed run once
    0
    """
    from ..data import resolve_data
    from ..experiments.runner import Batched, run_tasks, spawn_seeds
    from .claims import STRATEGIES

    log = log or (lambda msg: None)
    dataset = resolve_data(data)
    cells = regime_list(design) if cells is None else [DEFAULT | dict(c) for c in cells]
    rounds = seed_rounds(seeds, 8 * seeds if max_seeds is None else max_seeds)
    each = look_level(level, len(rounds))
    root, children = spawn_seeds(rng, rounds[-1])
    labels = [regime_label(c) for c in cells]
    shared = (cells, int(steps), dataset, int(agents), bool(theorem), bool(dataset.synthetic))
    attrs = {"synthetic": bool(dataset.synthetic), "data_source": str(dataset.source),
             "steps": int(steps), "agents": int(agents), "strategies": list(STRATEGIES),
             "entropy": str(root.entropy)}  # fmt: skip
    done = {i: {} for i in range(len(cells))}
    final = {i: {} for i in range(len(cells))}
    last_claims, at = {}, {}
    rows, look_rows, run_rows = [], [], []
    seconds = dict.fromkeys(labels, 0.0)
    pending, before = list(range(len(cells))), 0
    t0 = time.perf_counter()
    for look, n in enumerate(rounds, start=1):
        order = sorted(pending, key=lambda i: -_cost(cells[i]))
        tasks = [(i, s, r, children[r]) for i in order for s in STRATEGIES
                 for r in range(before, n)]  # fmt: skip
        left = {i: len(STRATEGIES) * (n - before) for i in pending}
        judged = {}

        def arrived(task, out, n=n, left=left, judged=judged):
            """Keep a run; judge its regime as soon as the regime's runs of this look are
            in, while the workers run the other regimes' (the next look waits for all)."""
            i, s, r, _ = task
            done[i][(s, r)] = out
            left[i] -= 1
            if not left[i]:
                judged[i] = _claims_of(done[i], n, steps=steps, theorem=theorem, level=each,
                                       attrs=attrs)  # fmt: skip

        task_fn = Batched(_regime_task, _regime_tasks, _regime_group)
        results = run_tasks(task_fn, tasks, shared=shared, n_jobs=n_jobs,
                            scheduler=scheduler, progress=progress, on_result=arrived,
                            desc=f"regimes, look {look}")  # fmt: skip
        for (i, s, r, _), out in zip(tasks, results, strict=True):
            seconds[labels[i]] += out["seconds"]
            run_rows.append({"regime": labels[i], "strategy": s, "seed": r, "look": look})
        still = []
        for i in pending:
            claims = judged[i]
            for c in claims:
                look_rows.append({"regime": labels[i], "claim": c.key, "look": look, "seeds": n,
                                  "verdict": c.verdict, "state": _state(c)})  # fmt: skip
                if c.key not in final[i] and c.outcome != "cannot tell":
                    final[i][c.key] = (c, look, n)  # decided (or not evaluated, or vacuous)
            last_claims[i], at[i] = claims, (look, n)
            if any(escalating(c.key) and c.key not in final[i] for c in claims):
                still.append(i)
        log(f"look {look} ({counted(n, 'seed')}): {counted(len(pending), 'regime')} run, "
            f"{len(still)} with an "
            f"undecided claim, {time.perf_counter() - t0:.1f} s so far")  # fmt: skip
        pending, before = still, n
        if not pending:
            break
    for i, cell in enumerate(cells):
        look, n = at[i]
        for c in last_claims[i]:  # undecided at the last look stay "cannot tell at N seeds"
            c, at_look, n_at = final[i].get(c.key, (c, look, n))
            row = dict(cell) | {"regime": labels[i], "claim": c.key, "verdict": c.verdict,
                                "state": _state(c),
                                "holds": np.nan if c.holds is None else float(c.holds),
                                "seeds": n_at, "look": at_look, "level": each}  # fmt: skip
            row |= {k: c.values.get(k, np.nan) for k in _NUMBERS}
            row["evidence"] = c.evidence
            rows.append(row)
    seconds["total"] = time.perf_counter() - t0
    from ..figures import source_text

    seed_text = (
        f"{' -> '.join(map(str, rounds))} paired seeds per regime (more only where a verdict "
        f"was undecided; each look at {100 * each:.4g}%, Bonferroni over {len(rounds)} looks) "
        f"from root seed {rng}"
    )
    caption = source_text(dataset.source, synthetic=dataset.synthetic, seeds=seed_text)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return RegimeMap(pd.DataFrame(rows), seconds, caption, pd.DataFrame(look_rows), rounds,
                     runs=pd.DataFrame(run_rows), load=load)  # fmt: skip


def plot_regimes(regime_map, *, ax=None, synthetic=False, title=None):
    """Heat map claim x regime: holds (blue), does not hold (orange), cannot tell or
    vacuous (sky blue), not evaluated (grey).

    Okabe-Ito colours (colour-blind safe), with a letter in every cell (H / - / ?,
    blank: not evaluated) so the map reads without colour; the legend sits outside
    the axes.

    Examples
    --------
    >>> t = pd.DataFrame({"regime": ["a", "a", "b", "b"], "claim": ["x", "y", "x", "y"],
    ...                   "state": [1.0, 0.0, np.nan, 0.5]})
    >>> ax = plot_regimes(RegimeMap(t, {}))
    >>> [t.get_text() for t in ax.texts][:4]
    ['H', '', '-', '?']
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from ..figures import figure_style, mark_synthetic, source_caption

    mat = regime_map.verdicts()
    colours = ["#E69F00", "#56B4E9", "#0072B2"]  # does not hold, cannot tell, holds
    with figure_style():
        if ax is None:
            width = 2.5 + 0.45 * mat.shape[1]
            _, ax = plt.subplots(figsize=(max(6.0, width), 2.0 + 0.35 * mat.shape[0]),
                                 layout="constrained")  # fmt: skip
        data = np.ma.masked_invalid(mat.to_numpy(dtype=float))
        cmap = ListedColormap(colours).with_extremes(bad="#BBBBBB")
        ax.imshow(data, cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        for (i, j), v in np.ndenumerate(mat.to_numpy(dtype=float)):
            text = "" if np.isnan(v) else {1.0: "H", 0.0: "-"}.get(v, "?")
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if v == 1 else "black")  # fmt: skip
        ax.set_xticks(range(mat.shape[1]), mat.columns, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(range(mat.shape[0]), mat.index, fontsize=7)
        ax.grid(False)
        handles = [Patch(color=colours[2], label="holds (H)"),
                   Patch(color=colours[0], label="does not hold / violated (-)"),
                   Patch(color=colours[1], label="cannot tell / vacuous (?)"),
                   Patch(color="#BBBBBB", label="not evaluated")]  # fmt: skip
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, fontsize="small")  # fmt: skip
        ax.set_title(title or "Where each claim holds (regime: batch, delta, grid, noise x)")
        mark_synthetic(ax, synthetic)
        source_caption(ax, regime_map.caption)
    return ax
