"""Compare strategies over many seeds: a tidy table of runs and its summary.

:func:`compare` runs every strategy on the same replicate seeds (paired
comparison), in parallel, into one tidy :class:`pandas.DataFrame`;
:func:`summarize` reduces it to one row per strategy; :func:`final_mse` and
:func:`paired_difference` give the per-seed final errors and paired contrasts
between two strategies. Everything here returns data; figures draw it.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ..data import resolve_data
from ..learning import simulate
from ..strategies import STRATEGY_NAMES

__all__ = ["compare", "final_mse", "paired_difference", "summarize"]

#: Columns of the tidy frame returned by :func:`compare`, in order.
COLUMNS = ("strategy", "seed", "step", "agent", "informative", "mse", "influence")

# Parameters of simulate that compare sets itself.
_OWN = frozenset({"strategy", "steps", "rng", "progress"})


# -- running -------------------------------------------------------------------
def _seed_sequence(rng) -> np.random.SeedSequence:
    """The root SeedSequence of a comparison; the caller's objects are not mutated."""
    if isinstance(rng, np.random.SeedSequence):
        return np.random.SeedSequence(rng.entropy, spawn_key=rng.spawn_key, pool_size=rng.pool_size)
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer):
        raise TypeError(
            "rng must be an int, a numpy Generator, a SeedSequence or None, "
            f"got {type(rng).__name__}"
        )
    if rng < 0:
        raise ValueError(f"rng must be a non-negative integer, got {rng!r}")
    return np.random.SeedSequence(int(rng))


def _resolve_strategies(strategies) -> dict:
    """``{label: strategy}`` from names or a mapping of labels to strategies."""
    if isinstance(strategies, str):
        strategies = (strategies,)
    if isinstance(strategies, Mapping):
        out = dict(strategies)
        bad = [k for k in out if not isinstance(k, str)]
        if bad:
            raise TypeError(f"strategies labels must be str, got {bad[0]!r}")
    else:
        try:
            names = list(strategies)
        except TypeError:
            raise TypeError(
                "strategies must be a sequence of names or a mapping of labels to "
                f"strategies, got {type(strategies).__name__}"
            ) from None
        bad = [s for s in names if not isinstance(s, str) or s not in STRATEGY_NAMES]
        if bad:
            raise ValueError(f"strategies must be names from {STRATEGY_NAMES}, got {bad[0]!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"strategies must not repeat a name, got {names!r}")
        out = {s: s for s in names}
    if not out:
        raise ValueError("strategies must name at least one strategy, got none")
    return out


def _n_workers(n_jobs, n_tasks: int) -> int:
    from joblib import cpu_count

    if n_jobs is None:
        n = cpu_count()
    elif isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    else:
        n = int(n_jobs) if n_jobs > 0 else max(cpu_count() + 1 + int(n_jobs), 1)
    return max(1, min(n, n_tasks))


def _one_run(label, strategy, seed_seq, steps, dataset, window, kwargs, keep):
    """One (strategy, seed) task: the run's MSE and influence arrays (T, M)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = simulate(strategy, steps=steps, rng=seed_seq, data=dataset, progress=False, **kwargs)
        if run.kind == "cen" or window > run.n_steps:  # no graph, or no complete window
            infl = np.full(run.mse.shape, np.nan)
        else:
            from .centrality import influence_series

            infl = np.asarray(
                influence_series(run, window=window, method="product", windows="sliding"),
                dtype=float,
            )
            if infl.shape != run.mse.shape:
                raise RuntimeError(
                    f"influence_series returned shape {infl.shape} for a run of shape "
                    f"{run.mse.shape}"
                )
    notes = [(w.category, str(w.message)) for w in caught]
    return label, run.mse, infl, run.informative, notes, (run if keep else None)


def _reemit(notes, n_tasks: int) -> None:
    """Warnings of the runs (also those raised in worker processes), once per category."""
    by_cat: dict = {}
    for cat, msg in notes:
        by_cat.setdefault(cat, []).append(msg)
    for cat, msgs in by_cat.items():
        warnings.warn(
            f"{len(msgs)} warning(s) in {n_tasks} runs; first: {msgs[0]}", cat, stacklevel=3
        )


def compare(
    strategies=STRATEGY_NAMES,
    *,
    seeds: int = 20,
    steps: int = 60,
    rng=0,
    n_jobs: int | None = None,
    progress: bool | None = None,
    return_runs: bool = False,
    influence_window: int = 10,
    **simulate_kwargs,
):
    """Run several strategies over many seeds into one tidy table.

    Replicate ``r`` of every strategy runs with the same child seed,
    ``SeedSequence(rng).spawn(seeds)[r]``, so strategies see the same test
    split, the same sharing of samples and the same mini-batch draws
    (a paired comparison). Tasks ``(strategy, seed)`` run in parallel with
    joblib (loky processes); the result does not depend on ``n_jobs``.

    Parameters
    ----------
    strategies : sequence of str or mapping, default all six
        Names from :data:`baygo_graph.strategies.STRATEGY_NAMES`, or a mapping
        ``{label: strategy}`` whose values are anything :func:`~baygo_graph.simulate`
        accepts (a name, a NetworkX graph, a strategy object).
    seeds : int, default 20
        Number of replicates N per strategy.
    steps : int, default 60
        Steps T of every run.
    rng : int, numpy.random.SeedSequence, numpy.random.Generator or None, default 0
        Root of the replicate seeds. An int or SeedSequence gives the same table
        every time; a Generator is drawn from once; None uses fresh entropy
        (recorded in ``df.attrs["entropy"]``).
    n_jobs : int, optional
        Worker processes; None: all cores; 1: serial, no pool; negative counts
        back from the number of cores (joblib's rule). The first task always
        runs in the calling process, so bad arguments fail before a pool starts.
    progress : bool, optional
        Progress bar over the tasks; default: when stderr is a terminal.
    return_runs : bool, default False
        Also return every :class:`~baygo_graph.Run`.
    influence_window : int, default 10
        Window w of :func:`baygo_graph.analysis.centrality.influence_series`
        (``method="product"``, ``windows="sliding"``) for the influence column:
        row ``t`` holds the influence of the product of ``W_{t-w+1} .. W_t``, so
        steps ``t < w - 1`` (all steps when ``w > steps``) are NaN, as are
        windows whose product has several closed classes (no unique influence).
    **simulate_kwargs
        Passed to :func:`~baygo_graph.simulate` (``agents``, ``data``, ``delta``,
        ``grid``, ...). ``data`` is read once here and shared with the workers.

    Returns
    -------
    df : pandas.DataFrame
        One row per (strategy, seed, step, agent), in that order, with columns
        ``strategy`` (str), ``seed`` (int, replicate 0..N-1), ``step`` (int,
        0..T-1), ``agent`` (int), ``informative`` (bool), ``mse`` (float, test
        MSE of the agent's posterior-mean prediction) and ``influence`` (float:
        the agent's share in the left Perron vector of the product of the
        window's weight matrices, see ``influence_window``; NaN where undefined,
        and for ``"cen"``).
        ``df.attrs`` holds ``synthetic``, ``data_source``, ``steps``,
        ``agents``, ``seeds``, ``strategies`` (labels in order), ``entropy``
        (of the root seed) and ``influence_window``.
    runs : dict, only with ``return_runs=True``
        ``{(strategy, seed): Run}``.

    Raises
    ------
    ValueError, TypeError
        For bad arguments (named in the message); errors of
        :func:`~baygo_graph.simulate` pass through.

    Warns
    -----
    UserWarning subclasses
        Warnings raised by the runs (also in worker processes) are re-emitted
        once per category with a count and the first message.

    Examples
    --------
    >>> from baygo_graph import synthetic_bodyfat
    >>> df = compare(["nocol", "cen"], seeds=2, steps=3, agents=3, grid=11,
    ...              data=synthetic_bodyfat(), n_jobs=1, progress=False)
    >>> df.shape, df.attrs["synthetic"], df.attrs["strategies"]
    ((36, 7), True, ['nocol', 'cen'])
    >>> df.columns.tolist()
    ['strategy', 'seed', 'step', 'agent', 'informative', 'mse', 'influence']
    """
    labels = _resolve_strategies(strategies)
    for name, value in (("seeds", seeds), ("steps", steps), ("influence_window", influence_window)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    allowed = set(inspect.signature(simulate).parameters) - _OWN
    unknown = sorted(set(simulate_kwargs) - allowed)
    if unknown:
        raise TypeError(f"compare() got an unexpected keyword argument {unknown[0]!r}")
    root = _seed_sequence(rng)
    children = root.spawn(int(seeds))
    kwargs = dict(simulate_kwargs)
    dataset = resolve_data(kwargs.pop("data", None))
    tasks = [(label, strat, r) for label, strat in labels.items() for r in range(seeds)]
    args = (int(steps), dataset, int(influence_window), kwargs, bool(return_runs))
    n = _n_workers(n_jobs, len(tasks) - 1)
    from tqdm.auto import tqdm

    show = sys.stderr.isatty() if progress is None else bool(progress)
    bar = tqdm(total=len(tasks), desc="compare", disable=not show, leave=False)
    with bar:
        # The first task runs here: bad arguments fail before any worker starts.
        lab, s, r = tasks[0]
        out = [_one_run(lab, s, children[r], *args)]
        bar.update()
        if n == 1 or len(tasks) == 1:
            results = (_one_run(lab, s, children[r], *args) for lab, s, r in tasks[1:])
        else:
            from joblib import Parallel, delayed

            results = Parallel(n_jobs=n, backend="loky", return_as="generator")(
                delayed(_one_run)(lab, s, children[r], *args) for lab, s, r in tasks[1:]
            )
        for result in results:
            out.append(result)
            bar.update()

    mse = np.stack([o[1] for o in out])  # (S*N, T, M)
    infl = np.stack([o[2] for o in out])
    n_runs, t, m = mse.shape
    informative = np.array([o[3] for o in out])
    agent = np.tile(np.arange(m), n_runs * t)
    df = pd.DataFrame(
        {
            "strategy": np.repeat(np.array(list(labels), dtype=object), seeds * t * m),
            "seed": np.tile(np.repeat(np.arange(seeds, dtype=np.int64), t * m), len(labels)),
            "step": np.tile(np.repeat(np.arange(t, dtype=np.int64), m), n_runs),
            "agent": agent.astype(np.int64),
            "informative": agent == np.repeat(informative, t * m),
            "mse": mse.ravel().astype(float),
            "influence": infl.ravel(),
        }
    )
    df["strategy"] = df["strategy"].astype(str)
    df.attrs = {
        "synthetic": bool(dataset.synthetic),
        "data_source": str(dataset.source),
        "steps": int(t),
        "agents": int(m),
        "seeds": int(seeds),
        "strategies": list(labels),
        "entropy": str(root.entropy),
        "influence_window": int(influence_window),
    }
    _reemit([note for o in out for note in o[4]], len(tasks))
    if return_runs:
        runs = {(lab, r): o[5] for (lab, _, r), o in zip(tasks, out, strict=True)}
        return df, runs
    return df


# -- summaries -------------------------------------------------------------------
_REQUIRED = ("strategy", "seed", "step", "agent", "informative", "mse")


def _check_frame(df) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column(s) {missing} (see compare())")
    if df.empty:
        raise ValueError("df has no rows")


def _strategy_order(df) -> list:
    listed = list(df.attrs.get("strategies", []))
    present = list(pd.unique(df["strategy"]))
    return [s for s in listed if s in present] + [s for s in present if s not in listed]


def _t_interval(values: pd.Series, level: float) -> pd.DataFrame:
    """Mean and t-interval of the mean over the seeds, per strategy (first index level)."""
    g = values.groupby(level=0, sort=False)
    agg = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count()})
    n = agg["n"].to_numpy(float)
    q = np.full(len(n), np.nan)
    ok = n > 1
    q[ok] = stats.t.ppf(0.5 + level / 2, n[ok] - 1)
    half = q * agg["sd"].to_numpy(float) / np.sqrt(n)
    agg["lo"] = agg["mean"] - half
    agg["hi"] = agg["mean"] + half
    return agg


def _first_stable(ok: pd.Series) -> pd.Series:
    """Per group (all index levels but the last, ``step``): the first step from
    which ``ok`` holds at every later step of the group; NaN when it fails at
    the group's last step."""
    keys = list(ok.index.names[:-1])
    frame = ok.rename("ok").reset_index().sort_values([*keys, "step"], kind="stable")
    frame["bad"] = (~frame["ok"].astype(bool)).astype(np.int64)
    frame["bad_from_here"] = frame.iloc[::-1].groupby(keys, sort=False)["bad"].cumsum()
    groups = frame.groupby(keys, sort=False)["step"].first().index
    first = frame[frame["bad_from_here"] == 0].groupby(keys, sort=False)["step"].min()
    return first.reindex(groups).astype(float)


def final_mse(df) -> pd.DataFrame:
    """Final-step MSE of every run: the informative agent and the others' mean.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame as returned by :func:`compare`.

    Returns
    -------
    pandas.DataFrame
        Index (strategy, seed); columns ``informative`` (MSE of the informative
        agent at the run's last step; mean if several are flagged) and
        ``others`` (mean over the non-informative agents at that step).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "a", "seed": 0, "step": [0, 0, 1, 1],
    ...                    "agent": [0, 1, 0, 1], "informative": [True, False] * 2,
    ...                    "mse": [9.0, 9.0, 1.0, 3.0]})
    >>> final_mse(df).to_dict("records")
    [{'informative': 1.0, 'others': 3.0}]
    """
    _check_frame(df)
    last = df["step"] == df.groupby(["strategy", "seed"], sort=False)["step"].transform("max")
    fin = df.loc[last, ["strategy", "seed", "informative", "mse"]]
    out = fin.pivot_table(
        index=["strategy", "seed"], columns="informative", values="mse", aggfunc="mean", sort=False
    )
    out = out.reindex(columns=[True, False]).rename(columns={True: "informative", False: "others"})
    out.columns.name = None
    rank = {s: i for i, s in enumerate(_strategy_order(df))}
    pos = out.index.get_level_values("strategy").map(rank).to_numpy()
    return out.iloc[np.lexsort((out.index.get_level_values("seed").to_numpy(), pos))]


def summarize(df, *, tolerance: float = 0.05, consensus_tol: float = 0.01, level: float = 0.95):
    """One row per strategy: final errors with intervals, speed, consensus, influence.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame as returned by :func:`compare` (the ``influence`` column
        may be absent).
    tolerance : float, default 0.05
        Relative tolerance of ``steps_to_cen``.
    consensus_tol : float, default 0.01
        Absolute tolerance (MSE units) of ``consensus_step``.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Index ``strategy`` (in the order of ``df.attrs["strategies"]``, else of
        appearance), columns:

        ``final_mse_informative``, ``_lo``, ``_hi``
            Mean over seeds of the informative agent's MSE at the last step, and
            the t-interval of that mean, ``mean ± t_{n-1, (1+level)/2} · sd / sqrt(n)``
            with ``sd`` the sample standard deviation (ddof=1) over the ``n``
            seeds (NaN bounds when n = 1).
        ``final_mse_others``, ``_lo``, ``_hi``
            The same for the mean over the non-informative agents.
        ``steps_to_cen``
            With ``m_s(t)`` the strategy's MSE averaged over agents, then over
            seeds, at step ``t``, and ``c(t)`` the same for ``"cen"``: the first
            step ``t`` (0-based, as in ``df.step``) such that
            ``m_s(u) <= (1 + tolerance) · c(u)`` for every later step ``u >= t``.
            One-sided: a strategy below Cen counts as within. NaN when it fails
            at the last step, or when ``df`` has no ``"cen"`` rows.
        ``consensus_step``
            Per seed, the first step from which ``max - min`` of the agents' MSE
            stays ``<= consensus_tol`` at every later step; the median over the
            seeds, counting a seed that never gets there as infinite (NaN when
            the median is infinite).
        ``consensus_reached``
            Fraction of seeds that reach consensus.
        ``influence_informative``
            Mean of the informative agent's ``influence`` over all seeds and
            steps where it is defined (NaN if nowhere).
        ``seeds``
            Number of seeds.

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "cen", "seed": [0, 0, 1, 1], "step": 0,
    ...                    "agent": [0, 1, 0, 1], "informative": [True, False] * 2,
    ...                    "mse": [1.0, 1.0, 3.0, 3.0]})
    >>> s = summarize(df)
    >>> s.loc["cen", ["final_mse_informative", "steps_to_cen", "consensus_step"]].tolist()
    [2.0, 0.0, 0.0]
    >>> round(float(s.loc["cen", "final_mse_informative_hi"]), 4)  # 2 + t(0.975, 1) * 1
    14.7062
    """
    _check_frame(df)
    for name, value, lo, hi in (
        ("tolerance", tolerance, 0.0, np.inf),
        ("consensus_tol", consensus_tol, 0.0, np.inf),
        ("level", level, 0.0, 1.0),
    ):
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
        inside = (0.0 < value < 1.0) if name == "level" else (lo <= value < hi)
        if not inside:
            raise ValueError(
                f"{name} must be in {'(0, 1)' if name == 'level' else '[0, inf)'}, got {value!r}"
            )
    order = _strategy_order(df)
    out = pd.DataFrame(index=pd.Index(order, name="strategy"))

    fin = final_mse(df)
    for col, name in (("informative", "final_mse_informative"), ("others", "final_mse_others")):
        ci = _t_interval(fin[col].dropna(), level).reindex(order)
        out[name] = ci["mean"]
        out[f"{name}_lo"] = ci["lo"]
        out[f"{name}_hi"] = ci["hi"]

    per_seed = df.groupby(["strategy", "seed", "step"], sort=False)["mse"]
    curve = per_seed.mean().groupby(level=["strategy", "step"], sort=False).mean()
    if "cen" in order:
        cen = curve.xs("cen", level="strategy")
        ref = cen.reindex(curve.index.get_level_values("step")).to_numpy()
        ok = pd.Series(curve.to_numpy() <= (1.0 + tolerance) * ref, index=curve.index)
        out["steps_to_cen"] = _first_stable(ok).reindex(order)
    else:
        out["steps_to_cen"] = np.nan

    spread = per_seed.max() - per_seed.min()
    first = _first_stable(spread <= consensus_tol)
    by_strategy = first.groupby(level="strategy", sort=False)
    median = first.fillna(np.inf).groupby(level="strategy", sort=False).median()
    out["consensus_step"] = median.replace(np.inf, np.nan).reindex(order)
    out["consensus_reached"] = by_strategy.count() / by_strategy.size()

    if "influence" in df.columns:
        inf_rows = df.loc[df["informative"], ["strategy", "influence"]]
        out["influence_informative"] = inf_rows.groupby("strategy", sort=False)["influence"].mean()
    else:
        out["influence_informative"] = np.nan
    out["seeds"] = df.groupby("strategy", sort=False)["seed"].nunique().reindex(order)
    return out


def paired_difference(df, strategy: str, baseline: str, *, level: float = 0.95):
    """Paired difference ``strategy - baseline`` of the final MSEs over seeds.

    Seeds are paired by their replicate index (the same child seed in
    :func:`compare`); only seeds present for both strategies count.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy frame as returned by :func:`compare`.
    strategy, baseline : str
        Labels in ``df.strategy``.
    level : float, default 0.95
        Confidence level of the t-interval of the mean difference.

    Returns
    -------
    pandas.DataFrame
        Index ``metric`` (``"final_mse_informative"``, ``"final_mse_others"``);
        columns ``mean`` (mean over seeds of the per-seed difference), ``lo``,
        ``hi`` (t-interval of that mean), ``p_value`` (two-sided paired t-test),
        ``n`` (seeds) and ``wins`` (fraction of seeds where ``strategy`` is lower).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": ["a"] * 3 + ["b"] * 3, "seed": [0, 1, 2] * 2,
    ...                    "step": 0, "agent": 0, "informative": True,
    ...                    "mse": [1.0, 2.0, 3.0, 2.0, 4.0, 3.0]})
    >>> paired_difference(df, "a", "b").loc["final_mse_informative", ["mean", "n"]].tolist()
    [-1.0, 3.0]
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    fin = final_mse(df)
    present = set(fin.index.get_level_values("strategy"))
    for name, label in (("strategy", strategy), ("baseline", baseline)):
        if label not in present:
            raise ValueError(f"{name} {label!r} is not in df (has {sorted(present)})")
    diff = (fin.xs(strategy, level="strategy") - fin.xs(baseline, level="strategy")).dropna(
        how="all"
    )
    rows = {}
    for col, name in (("informative", "final_mse_informative"), ("others", "final_mse_others")):
        d = diff[col].dropna()
        ci = _t_interval(pd.Series(d.to_numpy(), index=np.zeros(len(d))), level)
        n = len(d)
        spread = np.ptp(d) > 1e-12 * max(1.0, float(np.abs(d).max())) if n else False
        p = float(stats.ttest_1samp(d, 0.0).pvalue) if n > 1 and spread else np.nan
        rows[name] = {
            "mean": float(ci["mean"].iloc[0]) if n else np.nan,
            "lo": float(ci["lo"].iloc[0]) if n else np.nan,
            "hi": float(ci["hi"].iloc[0]) if n else np.nan,
            "p_value": p,
            "n": n,
            "wins": float((d < 0).mean()) if n else np.nan,
        }
    out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")
    return out.astype({"n": np.int64})
