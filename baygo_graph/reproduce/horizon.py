"""Long BayGo runs of the reproduction: the theorem check and the horizon study.

One BayGo run per seed, as long as the longest horizon, recorded with
:class:`~baygo_graph.reproduce.theorem.TruthMonitor`. A T-step run is the head of
a longer run on the same seed (:meth:`baygo_graph.Run.head`), so these runs serve
the theorem check (on their first T steps, the same runs as the claims' BayGo
runs) and every horizon of :func:`baygo_graph.analysis.horizon_table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..experiments.runner import Batched
from .theorem import TruthMonitor

__all__ = ["HORIZONS", "LongRuns", "default_horizons", "horizon_summary", "long_runs"]

#: Run lengths of the paper's horizon study (at its T = 60 steps: T/2, T, 2T, 5T).
HORIZONS = (30, 60, 120, 300)


def default_horizons(steps: int) -> tuple:
    """The horizon study's run lengths for runs of ``steps`` = T steps: T/2 (at least
    2), T, 2T and 5T, the paper's ratios (its 30, 60, 120, 300 at T = 60), so a short
    run is a quick look and the paper's run is the paper's study.

    Examples
    --------
    >>> default_horizons(60) == HORIZONS, default_horizons(3), default_horizons(2)
    (True, (2, 3, 6, 15), (2, 4, 10))
    """
    t = int(steps)
    return tuple(sorted({max(2, (t + 1) // 2), t, 2 * t, 5 * t}))


@dataclass(frozen=True)
class LongRuns:
    """The long BayGo runs and what the analysis layer says about them.

    Attributes
    ----------
    runs : list of Run
        One per seed, ``max(horizons, steps)`` steps long; the theorem monitor's
        records cover the first ``steps`` steps (NaN after).
    checks : list of TheoremCheck
        :func:`~baygo_graph.analysis.theorem_check` of each run's first ``steps`` steps.
    horizon : pandas.DataFrame
        :func:`~baygo_graph.analysis.horizon_table` over the horizons.
    theorem : pandas.DataFrame
        One row per seed: the check's shares per reading, mean rate, final error.
    ttc : list of numpy.ndarray
        Each run's :func:`~baygo_graph.analysis.time_to_connectivity` (the horizon
        table's; :meth:`head_ttc` gives its first steps' without another pass).
    """

    runs: list = field(repr=False)
    checks: list = field(repr=False)
    horizon: pd.DataFrame
    theorem: pd.DataFrame
    ttc: list = field(default_factory=list, repr=False)

    def head_ttc(self, steps: int) -> list:
        """The time to connectivity of each run's first ``steps`` steps (of
        :meth:`heads`), read from the whole run's: the shortest connected window from a
        step is the same when it ends within the head, and none otherwise.

        Examples
        --------
        >>> import baygo_graph as bg
        >>> from baygo_graph.analysis import time_to_connectivity
        >>> from baygo_graph.models import LinearRegression
        >>> lr = long_runs(seeds=1, steps=4, horizons=(8,), agents=4, n_jobs=1,
        ...                model=LinearRegression(grid=11), progress=False, window=2,
        ...                data=bg.synthetic_bodyfat(), synthetic=True)
        >>> bool((lr.head_ttc(4)[0] == time_to_connectivity(lr.heads(4)[0])).all())
        True
        """
        from ..analysis.horizon import _head_ttc

        return [_head_ttc(ttc, steps) for ttc in self.ttc]

    def heads(self, steps: int) -> list:
        """Each run's first ``steps`` steps as :func:`~baygo_graph.experiments.compare`
        makes that run (same seed, same draws: the same arrays bit for bit), without the
        theorem monitor's records: the reproduction's BayGo runs (``compare(made=)``).

        Examples
        --------
        >>> import baygo_graph as bg
        >>> from baygo_graph.models import LinearRegression
        >>> lr = long_runs(seeds=1, steps=4, horizons=(6,), agents=4, n_jobs=1,
        ...                model=LinearRegression(grid=11), progress=False, window=2,
        ...                data=bg.synthetic_bodyfat(), synthetic=True)
        >>> head = lr.heads(4)[0]
        >>> head.n_steps, head.records, "monitors" in head.config
        (4, {}, False)
        """
        import dataclasses

        out = []
        for run in self.runs:
            head = run.head(steps)
            config = {k: v for k, v in head.config.items() if k != "monitors"}
            out.append(dataclasses.replace(head, records={}, config=config))
        return out


def long_runs(*, seeds, steps, horizons=HORIZONS, rng=0, n_jobs=None, progress=None,
              window=10, synthetic=False, **simulate_kwargs) -> LongRuns:  # fmt: skip
    """BayGo over ``seeds`` seeds for ``max(horizons, steps)`` steps, checked and measured.

    Seeds are those of :func:`baygo_graph.experiments.compare` with the same ``rng``
    (paired with the reproduction's other runs); ``simulate_kwargs`` go to
    :func:`~baygo_graph.simulate`. Each seed is one task on the workers: its run, its
    theorem check and its rows of the horizon table are made there (only the run and
    the small results travel back).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> lr = long_runs(seeds=2, steps=6, horizons=(6, 12), agents=4, n_jobs=1,
    ...                model=LinearRegression(grid=11), progress=False, window=3,
    ...                data=bg.synthetic_bodyfat(), synthetic=True)
    >>> len(lr.runs), lr.runs[0].n_steps, lr.horizon["steps"].tolist()
    (2, 12, [6, 12, 6, 12])
    """
    from ..experiments.runner import run_tasks

    children, shared = _long_plan(
        seeds=seeds, steps=steps, horizons=horizons, rng=rng, window=window,
        synthetic=synthetic, **simulate_kwargs,
    )  # fmt: skip
    # no first task here: the claims' runs have already checked these arguments
    done = run_tasks(LONG_TASK, children, shared=shared, n_jobs=n_jobs, progress=progress,
                     desc="long BayGo runs", first_here=False)  # fmt: skip
    return _long_result(done)


def _long_plan(*, seeds, steps, horizons, rng, window, synthetic, **simulate_kwargs):
    """The tasks of :func:`long_runs` (one seed each) and what they share."""
    from ..experiments.runner import spawn_seeds
    from ..models import resolve_model

    horizons = sorted({int(h) for h in horizons})
    length = max([*horizons, int(steps)])
    kwargs = dict(simulate_kwargs)
    model = kwargs["model"] = resolve_model(kwargs.get("model"))
    kwargs["data"] = model.resolve_data(kwargs.get("data"))
    _, children = spawn_seeds(rng, int(seeds))
    shared = (length, int(steps), horizons, min(window, min(horizons)), bool(synthetic), kwargs)
    return children, shared


def _long_result(done) -> LongRuns:
    """:class:`LongRuns` from the results of the tasks of :func:`_long_plan`, in order."""
    runs = [run for run, _, _, _ in done]
    checks = [check for _, check, _, _ in done]
    horizon = pd.concat([rows.assign(run=r) for r, (_, _, rows, _) in enumerate(done)],
                        ignore_index=True)  # fmt: skip
    rows = [
        {
            "seed": r,
            **{f"holds{s}": getattr(c, f"holds{s}") for s in ("", "_cumulative", "_kl")},
            **{f"vacuous{s}": getattr(c, f"vacuous{s}") for s in ("", "_cumulative", "_kl")},
            **{f"informative{s}": c.where_informative(s)[0] for s in ("", "_cumulative", "_kl")},
            **{
                f"holds_informative{s}": c.where_informative(s)[1]
                for s in ("", "_cumulative", "_kl")
            },  # fmt: skip
            "rate": float(np.nanmean(c.rate)),
            "final_error": float(np.mean(c.final_error)),
            "theta_star": str(runs[r].config["monitors"]["theorem"]["theta_star"]),
        }
        for r, c in enumerate(checks)
    ]
    return LongRuns(runs, checks, horizon, pd.DataFrame(rows), [ttc for *_, ttc in done])


def _long_run(seed, shared):
    """One seed's long BayGo run (theorem monitor), its theorem check on the first
    ``steps`` steps, its rows of the horizon table (``run`` = 0) and its time to
    connectivity."""
    return _long_runs([seed], shared)[0]


def _long_runs(seeds, shared):
    """:func:`_long_run` of several seeds, their runs made at once."""
    from ..analysis import horizon_table, theorem_check, time_to_connectivity
    from ..learning import simulate_seeds

    length, steps, horizons, window, synthetic, kwargs = shared
    # the bound is checked on the first `steps` steps: the monitor measures only those
    monitor = TruthMonitor(synthetic=synthetic, until=steps)
    runs = simulate_seeds("baygo", seeds=seeds, steps=length, progress=False,
                          monitors=[monitor], **kwargs)  # fmt: skip
    out = []
    for run in runs:
        ttc = time_to_connectivity(run)  # once: the horizons' and the claims' smallest B
        rows = horizon_table([run], horizons, window=window, ttc=[ttc])
        out.append((run, theorem_check(run.head(steps)), rows, ttc))
    return out


def _one_group(seed) -> int:
    """Every seed of the long runs is in one group (they may run as one batch)."""
    return 0


#: The task function of :func:`long_runs`: one seed, or several seeds at once.
LONG_TASK = Batched(_long_run, _long_runs, _one_group)


def horizon_summary(table) -> pd.DataFrame:
    """Per horizon: median (and IQR) of the smallest B, seeds with no B, hub measures.

    Examples
    --------
    >>> t = pd.DataFrame({"steps": [10, 10, 20, 20], "b_aligned": [3.0, 5.0, 4.0, np.nan],
    ...                   "b_sliding": [4.0, 6, 5, 7], "listening_share": 0.5,
    ...                   "influence": 0.3, "influence_rank": 1.0})
    >>> horizon_summary(t).loc[20, ["b_aligned", "no_b_aligned"]].tolist()
    [4.0, 1.0]
    """
    g = table.groupby("steps")
    out = pd.DataFrame(index=pd.Index(sorted(table["steps"].unique()), name="T"))
    for kind in ("aligned", "sliding"):
        col = g[f"b_{kind}"]
        out[f"b_{kind}"] = col.median()
        out[f"b_{kind}_q25"] = col.quantile(0.25)
        out[f"b_{kind}_q75"] = col.quantile(0.75)
        out[f"no_b_{kind}"] = col.apply(lambda s: float(s.isna().sum()))
    out["b_aligned_over_T"] = out["b_aligned"] / out.index.to_numpy()
    if "b_aligned_tail_connected" in table:  # the aligned B's unchecked tail
        out["aligned_tail_not_connected"] = g["b_aligned_tail_connected"].apply(
            lambda s: float((s == 0).sum())
        )
    out["listening_share"] = g["listening_share"].mean()
    out["influence"] = g["influence"].mean()
    out["influence_rank"] = g["influence_rank"].mean()
    return out
