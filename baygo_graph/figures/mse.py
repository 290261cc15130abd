"""Test-MSE curves: strategies compared over seeds (the paper's four figures).

Every function draws on ``ax`` (a new figure when None) and returns the Axes.
The input is the tidy table of :func:`baygo_graph.analysis.compare` (columns
strategy, seed, step, agent, informative, mse) or, for one run, a
:class:`~baygo_graph.Run`. Curves are means over seeds with shaded log-scale
t-intervals, positive like the MSE (see :func:`~baygo_graph.figures._bands.seed_bands`);
the informative agent's curves are solid with a star marker, the non-informative agents' mean is
dashed.

Unpaired bands of two strategies can overlap where their paired difference is
clearly nonzero (the seeds share data splits and draws), so the comparison
figures (:func:`plot_vs_baselines`, :func:`plot_vs_complete`,
:func:`plot_vs_stars`) put a paired-difference panel beside the curves
(:func:`plot_paired_difference`: BayGo minus each baseline, per step, with the
paired t-interval over seeds, and the final-step test of
:func:`~baygo_graph.analysis.stats.paired_difference` in the legend).
"""

from __future__ import annotations

import numpy as np

from .._text import counted, figure_label, loss_label
from ._bands import (
    paired_band,
    paired_difference,
    seed_bands,
    table_seeds,
    table_steps,
    table_strategies,
)
from ._palettes import crest
from ._style import (
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    OTHERS_LINESTYLE,
    SINGLE_LEARNERS,
    STEP_LABEL,
    figure_style,
    frame_caption,
    is_synthetic,
    loss_axis_label,
    loss_name_of,
    mark_synthetic,
    new_axes,
    run_caption,
    source_caption,
    strategy_color,
    strategy_label,
)

__all__ = [
    "plot_agents_mse",
    "plot_mse",
    "plot_paired_difference",
    "plot_vs_baselines",
    "plot_vs_complete",
    "plot_vs_stars",
]

_GROUP_TEXT = {
    "informative": "informative agent",
    "others": "non-informative agents (mean)",
    "all": "all agents (mean)",
}


def _markevery(n_steps: int) -> int:
    return max(1, n_steps // 10)


def plot_mse(
    df,
    *,
    strategies=None,
    groups=("informative", "others"),
    level=0.95,
    ax=None,
    synthetic=None,
    title=None,
    legend=True,
):
    """Mean test MSE per step over seeds, with a shaded interval, per strategy.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy comparison table (see module docstring).
    strategies : sequence of str, optional
        Strategies to draw, in order (default: every strategy in ``df``).
    groups : sequence of {"informative", "others", "all"}
        Curves per strategy. A centralised learner (a strategy of
        :data:`SINGLE_LEARNERS`) has one curve whatever ``groups`` says (all its
        agents are the same learner).
    level : float, default 0.95
        Coverage of the bands.
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, optional
        Label the axes "SYNTHETIC DATA"; default ``df.attrs["synthetic"]``.
    title : str, optional
    legend : bool, default True

    Returns
    -------
    matplotlib.axes.Axes
        One line (gid ``"mse:<strategy>:<group>"``) and one band
        (gid ``"band:<strategy>:<group>"``) per curve.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"strategy": "baygo", "seed": [0, 1, 0, 1], "step": [0, 0, 1, 1],
    ...                    "agent": 0, "informative": True, "mse": [1.0, 0.8, 0.5, 0.4]})
    >>> ax = plot_mse(df, groups=("informative",))
    >>> ax.get_lines()[0].get_ydata().tolist()
    [0.9, 0.45]
    """
    present = table_strategies(df)
    strategies = present if strategies is None else list(strategies)
    for g in groups:
        if g not in _GROUP_TEXT:
            raise ValueError(f"groups must hold values of {tuple(_GROUP_TEXT)}, got {g!r}")
    absent = [s for s in strategies if s not in present]
    if absent:
        raise ValueError(f"strategies {absent} are not in df (it has {sorted(present)})")
    with figure_style():
        ax = new_axes(ax, figsize=(9.0, 4.2))
        steps = table_steps(df)
        for k, s in enumerate(strategies):
            one = s in SINGLE_LEARNERS
            for group in ("all",) if one else groups:
                band = seed_bands(df, group=group, level=level, strategies=[s])
                x = band["step"].to_numpy()
                color = strategy_color(s, k)
                is_inf = group == "informative"
                label = (
                    f"{strategy_label(s)} (central learner)"
                    if one
                    else f"{strategy_label(s)}: {_GROUP_TEXT[group]}"
                )
                ax.fill_between(
                    x,
                    band["lo"].to_numpy(),
                    band["hi"].to_numpy(),
                    color=color,
                    alpha=0.18,
                    linewidth=0,
                    gid=f"band:{s}:{group}",
                )
                ax.plot(
                    x,
                    band["mean"].to_numpy(),
                    color=color,
                    linestyle="-" if (is_inf or one) else OTHERS_LINESTYLE,
                    marker=INFORMATIVE_MARKER if is_inf else "",
                    markersize=9 if is_inf else 0,
                    markevery=_markevery(steps),
                    linewidth=1.8,
                    label=label,
                    gid=f"mse:{s}:{group}",
                )
        ax.set_xlabel(STEP_LABEL)
        ax.set_ylabel(loss_axis_label(loss_name_of(df)))
        ax.set_xlim(0, max(steps - 1, 1))
        if title:
            ax.set_title(title)
        if legend:  # below the axes: the plot keeps the figure's width
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.16),
                ncol=2,
                title=f"shaded: {level:.0%} log-scale t-interval over "
                f"{counted(table_seeds(df), 'seed')}",
                fontsize="small",
                title_fontsize="small",
            )
        mark_synthetic(ax, is_synthetic(df, synthetic))
        source_caption(ax, frame_caption(df, synthetic))
    return ax


def plot_vs_baselines(df, *, level=0.95, ax=None, synthetic=None, paired=True):
    """BayGo (informative and non-informative agents) vs Cen and NoCol.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
    level : float, default 0.95
    ax : matplotlib.axes.Axes or pair of Axes, optional
        Default: a new figure, the curves on the left and (``paired=True``) the
        paired differences BayGo - Cen and BayGo - NoCol on the right
        (:func:`plot_paired_difference`). One Axes: the curves only. A pair:
        curves and paired differences.
    synthetic : bool, optional
    paired : bool, default True
        Add the paired-difference panel to a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes of the curves (``.figure`` holds both panels).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=r, step=0, agent=a, informative=a == 0, mse=1.0 + r)
    ...         for s in ("baygo", "cen", "nocol") for a in (0, 1) for r in (0, 1)]
    >>> ax = plot_vs_baselines(pd.DataFrame(rows))
    >>> len(ax.get_lines()), len(ax.figure.axes)
    (5, 2)
    """
    return _with_paired(
        df,
        ("baygo", "cen", "nocol"),
        "BayGo vs the centralised learner (Cen) and no collaboration (NoCol)",
        level=level,
        ax=ax,
        synthetic=synthetic,
        paired=paired,
    )


def plot_vs_complete(df, *, level=0.95, ax=None, synthetic=None, paired=True):
    """BayGo vs the fixed complete graph (informative and non-informative agents).

    Parameters and result as :func:`plot_vs_baselines` (paired panel: BayGo -
    complete).
    """
    return _with_paired(
        df,
        ("baygo", "complete"),
        "BayGo vs the complete graph",
        level=level,
        ax=ax,
        synthetic=synthetic,
        paired=paired,
    )


def _with_paired(df, strategies, title, *, level, ax, synthetic, paired):
    """Curves of ``strategies`` and, beside them, BayGo minus each other one."""
    pair = isinstance(ax, list | tuple | np.ndarray)
    if ax is not None and not pair:
        return plot_mse(df, strategies=strategies, level=level, ax=ax, synthetic=synthetic,
                        title=title)  # fmt: skip
    if ax is None and not paired:
        return plot_mse(df, strategies=strategies, level=level, synthetic=synthetic, title=title)
    with figure_style():
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(
                1, 2, figsize=(14.0, 5.6), layout="constrained", width_ratios=(1.35, 1.0)
            )
        curves, diff = ax
        plot_mse(df, strategies=strategies, level=level, ax=curves, synthetic=synthetic,
                 title=title)  # fmt: skip
        plot_paired_difference(df, baselines=strategies[1:], strategy=strategies[0], level=level,
                               ax=diff, synthetic=synthetic)  # fmt: skip
    return curves


_PAIRED_STYLE = {"informative": "-", "others": OTHERS_LINESTYLE}
_PAIRED_GROUP = {"informative": "informative", "others": "others' mean"}


def plot_paired_difference(
    df,
    *,
    baselines,
    strategy="baygo",
    groups=("informative", "others"),
    level=0.95,
    ax=None,
    synthetic=None,
    legend=True,
):
    """Paired difference of test MSE, ``strategy`` minus each baseline, per step.

    For every seed both strategies ran (seeds are paired: the same child seed
    gives the same data split and draws), the difference of the group's MSE
    curves; the line is its mean over seeds and the band its paired Student-t
    interval (:func:`~baygo_graph.figures._bands.paired_band`). Below zero:
    ``strategy`` has the lower error. Each legend entry gives the final-step
    paired test of :func:`~baygo_graph.analysis.stats.paired_difference`: mean
    difference, interval, p-value of the paired t-test and number of seeds.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        The comparison (tidy table or per-run arrays).
    baselines : sequence of str
        The strategies subtracted.
    strategy : str, default "baygo"
    groups : sequence of {"informative", "others"}
        Which agents' curves are compared (solid: informative agent; dashed:
        the non-informative agents' mean). A central learner (Cen) has one
        curve (all its agents are the same learner), compared with each group
        of ``strategy``.
    level : float, default 0.95
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, optional
        Default: read from ``df``.
    legend : bool, default True

    Returns
    -------
    matplotlib.axes.Axes
        Lines with gid ``"paired:<strategy>-<baseline>:<group>"`` and bands
        ``"paired-band:<strategy>-<baseline>:<group>"``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"strategy": ["a"] * 2 + ["b"] * 2, "seed": [0, 1] * 2, "step": 0,
    ...                    "agent": 0, "informative": True, "mse": [1.0, 2.0, 2.0, 4.0]})
    >>> ax = plot_paired_difference(df, baselines=["b"], strategy="a", groups=("informative",))
    >>> ax.get_lines()[1].get_ydata().tolist()  # line 0: the zero line
    [-1.5]
    """
    present = table_strategies(df)
    absent = [s for s in (strategy, *baselines) if s not in present]
    if absent:
        raise ValueError(f"strategies {absent} are not in df (it has {sorted(present)})")
    for g in groups:
        if g not in _PAIRED_STYLE:
            raise ValueError(f"groups must hold values of {tuple(_PAIRED_STYLE)}, got {g!r}")
    with figure_style():
        ax = new_axes(ax, figsize=(7.0, 4.2))
        ax.axhline(0.0, color="#333333", linewidth=1.0, zorder=1)
        for k, base in enumerate(baselines):
            color = strategy_color(base, k + 1)
            finals = paired_difference(df, strategy, base, level=level)
            for group in groups:
                one = base in SINGLE_LEARNERS
                steps, mean, lo, hi, n = paired_band(
                    df, strategy, base, group=group, base_group="all" if one else group,
                    level=level,
                )  # fmt: skip
                name = f"{strategy}-{base}:{group}"
                ax.fill_between(steps, lo, hi, color=color, alpha=0.18, linewidth=0,
                                gid=f"paired-band:{name}")  # fmt: skip
                label = (
                    f"{strategy_label(strategy)} \u2212 {strategy_label(base)}, "
                    f"{_PAIRED_GROUP[group]}\n{_final_text(finals, group)}"
                )
                ax.plot(steps, mean, color=color, linestyle=_PAIRED_STYLE[group],
                        linewidth=1.8, label=label, gid=f"paired:{name}")  # fmt: skip
        ax.set_xlabel(STEP_LABEL)
        ax.set_ylabel(f"paired difference of test {figure_label(loss_label(loss_name_of(df)))}")
        ax.set_xlim(0, max(table_steps(df) - 1, 1))
        ax.set_title(
            f"{strategy_label(strategy)} minus each baseline, same seeds\n"
            f"(below 0: {strategy_label(strategy)} lower)",
            fontsize="medium",
        )
        if legend:
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.16),
                title=f"shaded: paired {level:.0%} t-interval over seeds\n"
                "final step: mean [interval], paired t-test",
                fontsize="x-small",
                title_fontsize="x-small",
                ncol=2 if len(baselines) * len(groups) > 2 else 1,  # short: no empty band
            )
        mark_synthetic(ax, is_synthetic(df, synthetic))
        source_caption(ax, frame_caption(df, synthetic))
    return ax


def _final_text(finals, group: str) -> str:
    """``"final -0.12 [-0.15, -0.09], p=0.003, n=10"`` or why it is undefined."""
    row = finals.loc[f"final_mse_{group}"]
    n = int(row["n"])
    if n < 2:
        return f"final {row['mean']:+.3g}, no interval ({counted(n, 'paired seed')})"
    p = row["p_value"]
    ptext = "p undefined (all differences equal)" if not np.isfinite(p) else f"p={p:.2g}"
    return f"final {row['mean']:+.3g} [{row['lo']:+.3g}, {row['hi']:+.3g}], {ptext}, n={n}"


def plot_vs_stars(df, *, level=0.95, ax=None, synthetic=None, paired=True):
    """BayGo vs the star graphs: informative agent at the centre (PosM) or a leaf (NegM).

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy comparison table with strategies baygo, posm and negm.
    level : float, default 0.95
    ax : matplotlib.axes.Axes or sequence of 2 or 3 Axes, optional
        Default: a new figure with three panels: the informative agent, the
        non-informative agents' mean (sharing the y axis; three bands each) and
        (``paired=True``) the paired differences BayGo - PosM and BayGo - NegM
        (:func:`plot_paired_difference`). One Axes: both groups on it (six
        bands). Two or three Axes: the panels in that order.
    synthetic : bool, optional
    paired : bool, default True
        Add the paired-difference panel to a new figure.

    Returns
    -------
    matplotlib.figure.Figure or matplotlib.axes.Axes
        The figure of the panels, or the one Axes given.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=0, step=0, agent=a, informative=a == 0, mse=1.0)
    ...         for s in ("baygo", "posm", "negm") for a in (0, 1)]
    >>> fig = plot_vs_stars(pd.DataFrame(rows))
    >>> [len(a.get_lines()) for a in fig.axes]
    [3, 3, 5]
    """
    strategies = ("baygo", "posm", "negm")
    title = "BayGo vs star graphs (PosM: informative centre; NegM: other centre)"
    if ax is not None and not isinstance(ax, list | tuple | np.ndarray):
        return plot_mse(df, strategies=strategies, level=level, ax=ax, synthetic=synthetic,
                        title=title)  # fmt: skip
    with figure_style():
        if ax is None:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=(17.0, 5.8) if paired else (12.0, 4.2), layout="constrained")
            grid = fig.add_gridspec(1, 3 if paired else 2, width_ratios=(1, 1, 1.15)[: 2 + paired])
            left = fig.add_subplot(grid[0])
            ax = [left, fig.add_subplot(grid[1], sharey=left)]
            if paired:
                ax.append(fig.add_subplot(grid[2]))
        left, right = ax[0], ax[1]
        for a, group, legend in ((left, "informative", False), (right, "others", True)):
            plot_mse(df, strategies=strategies, groups=(group,), level=level, ax=a,
                     synthetic=synthetic, title=_GROUP_TEXT[group], legend=legend)  # fmt: skip
            if a is right:
                a.set_ylabel("")
        from matplotlib.lines import Line2D

        handles = [
            Line2D([], [], color=strategy_color(name, k), lw=1.8, label=strategy_label(name))
            for k, name in enumerate(strategies)
        ]
        right.legend(
            handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
            fontsize="small",
            title=f"shaded: {level:.0%} log-scale t-interval over "
                  f"{counted(table_seeds(df), 'seed')}\n"
            "(★ solid: informative agent; dashed: others' mean)",
            title_fontsize="small",
        )  # fmt: skip
        if len(ax) > 2:
            plot_paired_difference(df, baselines=strategies[1:], level=level, ax=ax[2],
                                   synthetic=synthetic)  # fmt: skip
        fig = left.figure
        fig.suptitle(title, fontsize="medium")
    return fig


def plot_agents_mse(data, *, strategy="baygo", seed=None, ax=None, synthetic=None):
    """Every agent's test MSE per step: do the agents reach consensus?

    Parameters
    ----------
    data : Run, pandas.DataFrame or Comparison
        One run, or a comparison (the tidy table or its per-run arrays; then the
        curves are each agent's mean over seeds, or one seed's values when
        ``seed`` is given).
    strategy : str, default "baygo"
        Strategy to show when ``data`` is a table.
    seed : int, optional
        One seed of the table instead of the mean over seeds.
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, optional
        Default: read from ``data``.

    Returns
    -------
    matplotlib.axes.Axes
        One line per agent, in agent order (gid ``"agent:<i>"``); the informative
        agent's is drawn in :data:`INFORMATIVE_COLOR` with a star marker.

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("baygo", agents=3, steps=4, model=LinearRegression(grid=21),
    ...                rng=0, data=synthetic_bodyfat())
    >>> ax = plot_agents_mse(run)
    >>> len(ax.get_lines()), ax.get_lines()[0].get_marker()
    (3, '*')
    """
    from ..analysis.comparison import Comparison
    from ..run import Run

    if isinstance(data, Run):
        mse, informative = np.asarray(data.mse), data.informative
        name, seeds = data.strategy, None
    elif isinstance(data, Comparison):
        mse, informative = data.agent_mse(strategy, seed=seed)
        name, seeds = strategy, (None if seed is not None else data.n_seeds)
    else:
        mse, informative = _frame_agent_mse(data, strategy, seed)
        name, seeds = strategy, (None if seed is not None else table_seeds(data))
    t_len, m = mse.shape
    steps = np.arange(t_len)
    with figure_style():
        ax = new_axes(ax, figsize=(8.0, 4.2))
        others = crest(max(m - 1, 1))
        k = 0
        for i in range(m):
            if i == informative:
                kw = {
                    "color": INFORMATIVE_COLOR,
                    "marker": INFORMATIVE_MARKER,
                    "markersize": 10,
                    "markevery": _markevery(t_len),
                    "linewidth": 2.4,
                    "zorder": 5,
                    "label": f"agent {i} (informative)",
                }
            else:
                kw = {
                    "color": others[k % len(others)],
                    "linewidth": 1.0,
                    "alpha": 0.85,
                    "label": "non-informative agents" if k == 0 else "_nolegend_",
                }
                k += 1
            ax.plot(steps, mse[:, i], gid=f"agent:{i}", **kw)
        ax.set_xlabel(STEP_LABEL)
        loss = loss_name_of(data)  # a logistic run's log-loss is no MSE (hostile21 Z12)
        ax.set_ylabel(loss_axis_label(loss))
        ax.set_xlim(0, max(t_len - 1, 1))
        where = f"mean over {counted(seeds, 'seed')}" if seeds else "one run"
        ax.set_title(
            f"Every agent's test {figure_label(loss_label(loss))} under {strategy_label(name)} "
            f"({where})"
        )
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        mark_synthetic(ax, is_synthetic(data, synthetic))
        source_caption(ax, _data_caption(data, synthetic))
    return ax


def _data_caption(data, synthetic) -> str | None:
    """The source caption of a compare table or of one Run (its data and seed)."""
    if hasattr(data, "data_source"):
        return run_caption(data)
    return frame_caption(data, synthetic)


def _frame_agent_mse(df, strategy, seed):
    """Each agent's MSE per step of the tidy table (mean over seeds, or one seed)."""
    df = df[df["strategy"] == strategy]
    if df.empty:
        raise ValueError(f"strategy {strategy!r} is not in the table")
    if seed is not None:
        df = df[df["seed"] == seed]
        if df.empty:
            raise ValueError(f"seed {seed!r} is not in the table for {strategy!r}")
    table = df.pivot_table(index="step", columns="agent", values="mse", aggfunc="mean")
    inf_agents = df.loc[df["informative"].astype(bool), "agent"].unique()
    return table.to_numpy(), int(inf_agents[0]) if len(inf_agents) else -1
