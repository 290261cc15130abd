"""Across-run analysis: one row per saved run, and its median/IQR summary.

:func:`analysis_table` measures every run with a graph (e.g. BayGo over 20 seeds,
as kept by ``baygo compare --save-runs``) the way :func:`.horizon_table` does over
the run's whole length: smallest B (aligned and sliding windows) and the
informative agent's hub measures (listening share, influence and its rank).
:func:`summarize_analysis` reduces the rows per strategy to median and IQR.
``baygo analyze DIR...`` prints both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validate import check_int
from ..run import MIXED, SETUP_COLUMNS, check_same_setup, labelled_runs
from .horizon import horizon_table

__all__ = [
    "ANALYSIS_MEASURES",
    "MIXED",
    "SETUP_COLUMNS",
    "TAIL_COLUMNS",
    "analysis_table",
    "check_same_setup",
    "summarize_analysis",
]

#: The per-run measures of :func:`analysis_table`, in column order.
ANALYSIS_MEASURES = ("b_aligned", "b_sliding", "listening_share", "influence", "influence_rank")
#: What the aligned B leaves unchecked, per run: the steps after its last full window
#: (NaN: no B) and whether their union is strongly connected (1.0 / 0.0, NaN: no tail).
TAIL_COLUMNS = ("b_aligned_tail", "b_aligned_tail_connected")
#: Why a run has no row.
CEN_REASON = "centralised learner: one central posterior, no communication graph to analyse"


def _seed(seed):
    """An int seed as is; a spawned SeedSequence's ``{"entropy", "spawn_key"}`` as
    ``"<entropy>/<replicate>"``; anything else as a string."""
    if isinstance(seed, int):
        return seed
    if isinstance(seed, dict) and seed.get("spawn_key"):
        return f"{seed.get('entropy')}/{'/'.join(map(str, seed['spawn_key']))}"
    return str(seed)


def analysis_table(runs, *, window: int = 10, mixed: str = "refuse") -> pd.DataFrame:
    """Smallest B and the informative agent's hub measures, one row per run.

    Parameters
    ----------
    runs : sequence of Run, or mapping of label -> Run
        E.g. :func:`baygo_graph.run.load_runs` or the runs of
        ``experiments.compare(..., return_runs=True)`` (keys
        ``(strategy, seed)`` become ``"strategy/seed"``). Centralised runs
        (``kind == "cen"``, no graph) have no row: they are listed in
        ``table.attrs["skipped"]`` with the reason.
    window : int, default 10
        Window of the influence (product of ``window`` step matrices, sliding),
        cut to each run's length.
    mixed : {"refuse", "group"}, default "refuse"
        Runs of different steps, agents or data: ValueError naming the groups
        (see :func:`check_same_setup`), or rows for all of them
        (:func:`summarize_analysis` then summarises each setup apart).

    Returns
    -------
    pandas.DataFrame
        One row per run with a graph, in input order: ``run`` (its label or
        position), ``strategy``, ``seed`` (the run's
        recorded seed: an int, or ``"<root entropy>/<replicate>"`` for a spawned
        seed), ``data``
        (data source), ``synthetic``, ``steps``, ``agents``, then
        :data:`ANALYSIS_MEASURES`: ``b_aligned``/``b_sliding`` (smallest B, NaN
        when no B works), ``listening_share`` (mean fraction of the other agents
        listening to the informative agent), ``influence`` (its mean influence
        over the windows) and ``influence_rank`` (its mean rank, 1 = top; tied
        agents share the better rank), then ``influence_tied`` (share of the
        windows in which another agent has the same influence: the rank there
        is a tie), then :data:`TAIL_COLUMNS` (what the aligned B leaves unchecked: a
        B over ``[0, k B)`` with a tail not strongly connected is no plain B).
        ``attrs["skipped"]``: ``[{"run", "strategy", "reason"}]``.
        A pure function of the runs.

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> runs = [bg.simulate("baygo", agents=4, steps=12, model=LinearRegression(grid=11), rng=s,
    ...                     data=bg.synthetic_bodyfat()) for s in range(3)]
    >>> t = analysis_table(runs, window=4)
    >>> t.shape, t["run"].tolist(), bool(t["synthetic"].all())
    ((3, 15), ['0', '1', '2'], True)
    >>> cen = bg.simulate("cen", agents=4, steps=12, model=LinearRegression(grid=21),
    ...                   rng=0, data=bg.synthetic_bodyfat())
    >>> analysis_table({"c": cen, "b": runs[0]}, window=4).attrs["skipped"][0]["run"]
    'c'
    """
    check_int("window", window, minimum=1)
    for label, run in labelled_runs(runs):
        if not hasattr(run, "series"):
            raise TypeError(f"runs must hold Run objects, got {type(run).__name__} for {label!r}")
    check_same_setup(runs, mixed=mixed)
    rows, skipped = [], []
    for label, run in labelled_runs(runs):
        if run.series is None:  # a centralised learner: no graph
            skipped.append({"run": label, "strategy": run.strategy, "reason": CEN_REASON})
            continue
        row = horizon_table([run], [run.n_steps], window=min(window, run.n_steps)).iloc[0]
        rows.append(
            {
                "run": label,
                "strategy": run.strategy,
                "seed": _seed(run.config.get("seed")),
                "data": run.data_source,
                "synthetic": run.synthetic,
                "steps": run.n_steps,
                "agents": run.n_agents,
                **{k: float(row[k]) for k in ANALYSIS_MEASURES},
                "influence_tied": float(row["influence_tied"]),
                **{k: float(row[k]) for k in TAIL_COLUMNS},
            }
        )
    columns = ["run", "strategy", "seed", "data", "synthetic", "steps", "agents"]
    table = pd.DataFrame(rows, columns=[*columns, *ANALYSIS_MEASURES, "influence_tied",
                                        *TAIL_COLUMNS])  # fmt: skip
    table.attrs["skipped"] = skipped
    return table


def summarize_analysis(table: pd.DataFrame) -> pd.DataFrame:
    """Median, quartiles and counts of each measure over the runs of each strategy.

    Parameters
    ----------
    table : pandas.DataFrame
        What :func:`analysis_table` returns.

    Returns
    -------
    pandas.DataFrame
        One row per (strategy, measure), strategies in order of appearance:
        ``strategy``, ``measure``, ``median``, ``q25``, ``q75``, ``n`` (runs with a
        value), ``missing`` (runs where it is NaN, e.g. no B works) and
        ``tail_not_connected`` (for ``b_aligned``: runs whose B leaves a tail that is
        not strongly connected, so their B covers only ``[0, k B)``; 0 for the
        others). When the
        table holds runs of several setups (``steps``, ``agents``, ``data``: see
        ``mixed="group"``), one row per (strategy, setup, measure), with the
        setup columns that vary after ``strategy``.

    Examples
    --------
    >>> t = pd.DataFrame({"strategy": ["baygo"] * 4, "b_aligned": [2.0, 4.0, 6.0, np.nan],
    ...                   "b_sliding": 3.0, "listening_share": 0.5, "influence": 0.2,
    ...                   "influence_rank": 1.0})
    >>> s = summarize_analysis(t)
    >>> s.loc[0, ["median", "q25", "q75", "n", "missing"]].astype(float).tolist()
    [4.0, 3.0, 5.0, 3.0, 1.0]
    """
    missing = [c for c in ("strategy", *ANALYSIS_MEASURES) if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the column(s) {missing}")
    varying = [c for c in SETUP_COLUMNS if c in table.columns and table[c].nunique() > 1]
    keys = ["strategy", *varying]
    rows = []
    for key, part in table.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for measure in ANALYSIS_MEASURES:
            v = part[measure].to_numpy(dtype=float)
            ok = v[np.isfinite(v)]
            q = np.percentile(ok, [25, 50, 75]) if len(ok) else [np.nan] * 3
            rows.append(
                {
                    **dict(zip(keys, key, strict=True)),
                    "measure": measure,
                    "median": float(q[1]),
                    "q25": float(q[0]),
                    "q75": float(q[2]),
                    "n": len(ok),
                    "missing": len(v) - len(ok),
                    "tail_not_connected": _loose_tails(part) if measure == "b_aligned" else 0,
                }
            )
    return pd.DataFrame(rows, columns=[*keys, "measure", "median", "q25", "q75", "n", "missing",
                                       "tail_not_connected"])  # fmt: skip


def _loose_tails(part) -> int:
    """Runs whose aligned B leaves a tail that is not strongly connected (0 for a table
    without the tail columns)."""
    if not set(TAIL_COLUMNS) <= set(part.columns):
        return 0
    tail = part["b_aligned_tail"].to_numpy(dtype=float)
    connected = part["b_aligned_tail_connected"].to_numpy(dtype=float)
    return int(((tail > 0) & (connected == 0)).sum())
