"""How the emergent graph's measures depend on the run length (the horizon T).

The smallest B of B-strong connectivity is measured on a finite run, and it grows
with the run's length (longer runs hold rarer bad stretches). :func:`horizon_table`
measures it, and the informative agent's hub measures, on the first T steps of each
run for several T: a T-step run is the head of a longer run on the same seed
(:meth:`baygo_graph.Run.head`), so one long run per seed serves every horizon: its
time to connectivity, computed once, gives every head's (a window of the head is a
window of the run), hence both smallest B of every horizon.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._text import counted
from .._validate import check_int
from .centrality import influence_rank, influence_series
from .connectivity import smallest_b, time_to_connectivity
from .topology import listener_fraction

__all__ = ["horizon_table"]


def horizon_table(runs, horizons, *, window: int = 10, ttc=None) -> pd.DataFrame:
    """Connectivity and hub measures of each run over its first T steps, for each T.

    Parameters
    ----------
    runs : sequence of Run
        Runs with a graph (e.g. BayGo over several seeds), each at least
        ``max(horizons)`` steps long.
    horizons : sequence of int
        Run lengths T to measure.
    window : int, default 10
        Window of the influence (product of ``window`` step matrices, sliding).
    ttc : sequence of numpy.ndarray, optional
        Each run's :func:`~baygo_graph.analysis.time_to_connectivity` when the caller
        has it already (skips that pass).

    Returns
    -------
    pandas.DataFrame
        One row per (run, T): ``run`` (its position in ``runs``), ``seed`` (the
        run's int seed, or its replicate index for a seed spawned from a root),
        ``steps``, ``b_aligned`` and ``b_sliding`` (smallest
        B; NaN when no B works), ``b_aligned_tail`` (steps after the aligned B's
        last full window, unchecked by it: ``T mod B``) and
        ``b_aligned_tail_connected`` (1.0 / 0.0: whether that tail's union is
        strongly connected; NaN: no tail), ``listening_share`` (mean fraction of the other
        agents listening to the informative agent), ``influence`` (its mean
        influence over the windows), ``influence_rank`` (its mean rank,
        1 = most influential; tied agents share the better rank) and
        ``influence_tied`` (share of those windows in which another agent has
        the same influence: the rank there is shared).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> runs = [bg.simulate("baygo", agents=5, steps=40, model=LinearRegression(grid=21), rng=s,
    ...                     data=bg.synthetic_bodyfat()) for s in range(2)]
    >>> t = horizon_table(runs, [20, 40], window=5)
    >>> t.shape, t["steps"].tolist()
    ((4, 11), [20, 40, 20, 40])
    """
    horizons = [check_int("horizons", h, minimum=1) for h in horizons]
    check_int("window", window, minimum=1)
    rows = []
    for k, run in enumerate(runs):
        if max(horizons) > run.n_steps:
            raise ValueError(
                f"horizons must be <= the runs' length, got {max(horizons)} for run {k} "
                f"of {counted(run.n_steps, 'step')}"
            )
        infl = influence_series(run, window=window, windows="sliding").values
        run_ttc = time_to_connectivity(run) if ttc is None else np.asarray(ttc[k])
        listening = listener_fraction(run)
        for steps in horizons:
            head = run.head(steps)
            share = infl[:steps, run.informative]
            ranks = influence_rank(infl[:steps], run.informative)
            head_ttc = _head_ttc(run_ttc, steps)
            aligned = smallest_b(head, windows="aligned", ttc=head_ttc)
            rows.append(
                {
                    "run": k,
                    "seed": _seed_label(run.config.get("seed")),
                    "steps": steps,
                    "b_aligned": _b(aligned.B),
                    "b_sliding": _b(smallest_b(head, windows="sliding", ttc=head_ttc).B),
                    "b_aligned_tail": _b(aligned.tail_length),
                    "b_aligned_tail_connected": np.nan
                    if aligned.B is None or aligned.tail_connected is None
                    else float(aligned.tail_connected),
                    "listening_share": float(np.mean(listening[:steps])),
                    "influence": float(np.nanmean(share)) if np.isfinite(share).any() else np.nan,
                    "influence_rank": float(np.nanmean(ranks))
                    if np.isfinite(ranks).any()
                    else np.nan,
                    "influence_tied": _tied(infl[:steps], run.informative),
                }
            )
    return pd.DataFrame(rows)


def _head_ttc(ttc: np.ndarray, steps: int) -> np.ndarray:
    """The time to connectivity of a series' first ``steps`` steps, from the whole
    series' ``ttc``: the shortest connected window from ``s`` is the same when it ends
    within the head, and no window of the head from ``s`` is connected otherwise."""
    head = ttc[:steps]
    return np.where((head >= 1) & (np.arange(steps) + head <= steps), head, -1)


def _seed_label(seed):
    """An int seed as is; a spawned seed as its replicate index (last spawn key)."""
    if isinstance(seed, dict) and seed.get("spawn_key"):
        return int(seed["spawn_key"][-1])
    return seed if isinstance(seed, int) else str(seed)


def _tied(infl: np.ndarray, agent: int, tol: float = 1e-12) -> float:
    """Share of the defined windows in which another agent's influence equals the
    agent's (within ``tol``): its rank there is a shared one (NaN: no window)."""
    defined = np.isfinite(infl).all(axis=1)
    if not defined.any():
        return np.nan
    x = infl[defined]
    return float(((np.abs(x - x[:, [agent]]) <= tol).sum(axis=1) > 1).mean())


def _b(value) -> float:
    return np.nan if value is None else float(value)
