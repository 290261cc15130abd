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
"""

from __future__ import annotations

import inspect
import itertools
import time

import numpy as np
import pandas as pd

__all__ = ["DEFAULT", "FACTORS", "RegimeMap", "plot_regimes", "regime_list", "regimes"]

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


def regime_label(cell: dict) -> str:
    """Short label of a regime: ``b1 d0.5 g61 s1``."""
    return (f"b{cell['batch']} d{cell['delta']:g} g{cell['grid']} "
            f"s{cell['sigma_scale']:g}")  # fmt: skip


class RegimeMap:
    """The claims over the regimes: a tidy table and the time it took.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (regime, claim): the factors, ``regime`` (label), ``claim``
        (key), ``verdict``, ``holds`` (1.0 / 0.0 / NaN), ``evidence`` and the main
        numbers (``mean_difference``, ``lo``, ``hi``, ``lo_tost``, ``hi_tost``,
        ``margin``, ``median_step``, ``reached``, ``holds_share``, ``vacuous_share``, ``rate``).
    seconds : dict
        Wall time per regime label and ``"total"``.
    caption : str or None
        Data and seeds (:func:`baygo_graph.figures.source_text`), drawn below the heat map.
    """

    def __init__(self, table, seconds, caption=None):
        self.table = table
        self.seconds = seconds
        self.caption = caption

    def verdicts(self) -> pd.DataFrame:
        """Claim x regime matrix of ``holds`` (1, 0, NaN)."""
        t = self.table
        return t.pivot(index="claim", columns="regime", values="holds").reindex(
            index=pd.unique(t["claim"]), columns=pd.unique(t["regime"])
        )


_NUMBERS = ("mean_difference", "lo", "hi", "lo_tost", "hi_tost", "margin", "median_step",
            "reached", "holds_share", "vacuous_share", "rate")  # fmt: skip


def _cell_claims(cell, *, seeds, steps, rng, n_jobs, scheduler, progress, data, agents,
                 theorem, synthetic):  # fmt: skip
    from ..analysis import smallest_b, theorem_check
    from ..experiments import compare
    from ..models import LinearRegression
    from .claims import STRATEGIES, evaluate_claims
    from .theorem import TruthMonitor

    extra = {}
    if scheduler is not None:
        if "scheduler" not in inspect.signature(compare).parameters:
            raise ValueError("scheduler is not supported by this version of compare()")
        extra["scheduler"] = scheduler
    if theorem:
        extra["monitors"] = [TruthMonitor(synthetic=synthetic)]
    df, runs = compare(
        STRATEGIES, seeds=seeds, steps=steps, rng=rng, n_jobs=n_jobs, progress=progress,
        return_runs=True, influence_window=min(10, steps), data=data, agents=agents, tidy=False,
        batch=cell["batch"], delta=cell["delta"],
        model=LinearRegression(grid=cell["grid"], sigma_scale=cell["sigma_scale"]), **extra,
    )  # fmt: skip
    rows = []
    for r in range(seeds):
        run = runs[("baygo", r)]
        for kind in ("aligned", "sliding"):
            b = smallest_b(run, windows=kind)
            rows.append({"seed": r, "windows": kind, "smallest_b": np.nan if b is None else b})
    checks = [theorem_check(runs[("baygo", r)]) for r in range(seeds)] if theorem else None
    return evaluate_claims(df, smallest_b=pd.DataFrame(rows), theorem=checks)


def regimes(*, design="ofat", cells=None, seeds=10, steps=60, rng=0, data=None, agents=12,
            n_jobs=None, scheduler=None, progress=None, theorem=True,
            log=None) -> RegimeMap:  # fmt: skip
    """Re-test the paper's claims in every regime of a design.

    Parameters
    ----------
    design : {"ofat", "factorial"}, default "ofat"
        See the module docstring; ignored when ``cells`` is given.
    cells : list of dict, optional
        Regimes to run (keys ``batch``, ``delta``, ``grid``, ``sigma_scale``).
    seeds : int, default 10
        Paired seeds per regime (the same child seeds in every regime).
    steps : int, default 60
    rng : int, default 0
    data : optional
        As in :func:`baygo_graph.simulate` (None: ``$BAYGO_BODYFAT``, else synthetic).
    agents : int, default 12
    n_jobs : int, optional
        Local worker processes of :func:`~baygo_graph.experiments.compare`.
    scheduler : str or distributed.Client, optional
        A Dask scheduler, forwarded to compare.
    progress : bool, optional
    theorem : bool, default True
        Also check the bound (BayGo runs with the theorem monitor).
    log : callable, optional
        Called with one line per regime.

    Returns
    -------
    RegimeMap

    Examples
    --------
    >>> import baygo_graph as bg
    >>> m = regimes(cells=[DEFAULT | {"grid": 11}], seeds=2, steps=4, agents=3,
    ...             data=bg.synthetic_bodyfat(), n_jobs=1, progress=False)
    >>> m.table["regime"].unique().tolist(), len(m.table)
    (['b1 d0.5 g11 s1'], 13)
    """
    from ..data import resolve_data

    log = log or (lambda msg: None)
    dataset = resolve_data(data)
    cells = regime_list(design) if cells is None else [DEFAULT | dict(c) for c in cells]
    rows, seconds = [], {}
    t0 = time.perf_counter()
    for cell in cells:
        label = regime_label(cell)
        t1 = time.perf_counter()
        claims = _cell_claims(
            cell, seeds=seeds, steps=steps, rng=rng, n_jobs=n_jobs, scheduler=scheduler,
            progress=progress, data=dataset, agents=agents, theorem=theorem,
            synthetic=dataset.synthetic,
        )  # fmt: skip
        seconds[label] = time.perf_counter() - t1
        log(f"regime {label}: {seconds[label]:.1f} s")
        for c in claims:
            row = dict(cell) | {"regime": label, "claim": c.key, "verdict": c.verdict,
                                "holds": np.nan if c.holds is None else float(c.holds)}  # fmt: skip
            row |= {k: c.values.get(k, np.nan) for k in _NUMBERS}
            row["evidence"] = c.evidence
            rows.append(row)
    seconds["total"] = time.perf_counter() - t0
    from ..figures import source_text

    seed_text = f"{seeds} paired seeds per regime from root seed {rng}"
    caption = source_text(dataset.source, synthetic=dataset.synthetic, seeds=seed_text)
    return RegimeMap(pd.DataFrame(rows), seconds, caption)


def plot_regimes(regime_map, *, ax=None, synthetic=False, title=None):
    """Heat map claim x regime: holds (blue), does not hold (orange), not evaluated (grey).

    Okabe-Ito colours (colour-blind safe), with a letter in every cell (H / -)
    so the map reads without colour; the legend sits outside the axes.

    Examples
    --------
    >>> t = pd.DataFrame({"regime": ["a", "a", "b", "b"], "claim": ["x", "y", "x", "y"],
    ...                   "holds": [1.0, 0.0, np.nan, 1.0]})
    >>> ax = plot_regimes(RegimeMap(t, {}))
    >>> len(ax.texts) >= 4
    True
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from ..figures import figure_style, mark_synthetic, source_caption

    mat = regime_map.verdicts()
    colours = ["#E69F00", "#0072B2"]  # does not hold, holds
    with figure_style():
        if ax is None:
            width = 2.5 + 0.45 * mat.shape[1]
            _, ax = plt.subplots(figsize=(max(6.0, width), 2.0 + 0.35 * mat.shape[0]),
                                 layout="constrained")  # fmt: skip
        data = np.ma.masked_invalid(mat.to_numpy(dtype=float))
        cmap = ListedColormap(colours).with_extremes(bad="#BBBBBB")
        ax.imshow(data, cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        for (i, j), v in np.ndenumerate(mat.to_numpy(dtype=float)):
            text = "?" if np.isnan(v) else ("H" if v else "-")
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if v == 1 else "black")  # fmt: skip
        ax.set_xticks(range(mat.shape[1]), mat.columns, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(range(mat.shape[0]), mat.index, fontsize=7)
        ax.grid(False)
        handles = [Patch(color=colours[1], label="holds (H)"),
                   Patch(color=colours[0], label="does not hold (-)"),
                   Patch(color="#BBBBBB", label="not evaluated (?)")]  # fmt: skip
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, fontsize="small")  # fmt: skip
        ax.set_title(title or "Where each claim holds (regime: batch, delta, grid, noise x)")
        mark_synthetic(ax, synthetic)
        source_caption(ax, regime_map.caption)
    return ax
