"""Test-MSE curves: strategies compared over seeds (the paper's four figures).

Every function draws on ``ax`` (a new figure when None) and returns the Axes.
The input is the tidy table of :func:`baygo_graph.analysis.compare` (columns
strategy, seed, step, agent, informative, mse) or, for one run, a
:class:`~baygo_graph.Run`. Curves are means over seeds with shaded Student-t
intervals (see :func:`~baygo_graph.figures._bands.seed_bands`); the informative
agent's curves are solid with a star marker, the non-informative agents' mean is
dashed.
"""

from __future__ import annotations

import numpy as np

from ._bands import seed_bands, table_seeds, table_steps, table_strategies
from ._style import (
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    MSE_LABEL,
    OTHERS_LINESTYLE,
    SINGLE_LEARNERS,
    STEP_LABEL,
    figure_style,
    frame_caption,
    is_synthetic,
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
        ax.set_ylabel(MSE_LABEL)
        ax.set_xlim(0, max(steps - 1, 1))
        if title:
            ax.set_title(title)
        if legend:
            ax.legend(
                loc="upper left",
                bbox_to_anchor=(1.01, 1.0),
                title=f"shaded: {level:.0%} t-interval over {table_seeds(df)} seeds",
                fontsize="small",
                title_fontsize="small",
            )
        mark_synthetic(ax, is_synthetic(df, synthetic))
        source_caption(ax, frame_caption(df, synthetic))
    return ax


def plot_vs_baselines(df, *, level=0.95, ax=None, synthetic=None):
    """BayGo (informative and non-informative agents) vs Cen and NoCol.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=0, step=0, agent=a, informative=a == 0, mse=1.0)
    ...         for s in ("baygo", "cen", "nocol") for a in (0, 1)]
    >>> len(plot_vs_baselines(pd.DataFrame(rows)).get_lines())
    5
    """
    return plot_mse(
        df,
        strategies=("baygo", "cen", "nocol"),
        level=level,
        ax=ax,
        synthetic=synthetic,
        title="BayGo vs the centralised learner (Cen) and no collaboration (NoCol)",
    )


def plot_vs_complete(df, *, level=0.95, ax=None, synthetic=None):
    """BayGo vs the fixed complete graph (informative and non-informative agents)."""
    return plot_mse(
        df,
        strategies=("baygo", "complete"),
        level=level,
        ax=ax,
        synthetic=synthetic,
        title="BayGo vs the complete graph",
    )


def plot_vs_stars(df, *, level=0.95, ax=None, synthetic=None):
    """BayGo vs the star graphs: informative agent at the centre (PosM) or a leaf (NegM).

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy comparison table with strategies baygo, posm and negm.
    level : float, default 0.95
    ax : matplotlib.axes.Axes or pair of Axes, optional
        Default: a new figure with two panels sharing the y axis, the informative
        agent on the left and the non-informative agents' mean on the right (three
        bands each). One Axes: both groups on it (six bands).
    synthetic : bool, optional

    Returns
    -------
    matplotlib.figure.Figure or matplotlib.axes.Axes
        The figure of the two panels, or the one Axes given.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(strategy=s, seed=0, step=0, agent=a, informative=a == 0, mse=1.0)
    ...         for s in ("baygo", "posm", "negm") for a in (0, 1)]
    >>> fig = plot_vs_stars(pd.DataFrame(rows))
    >>> [len(a.get_lines()) for a in fig.axes]
    [3, 3]
    """
    strategies = ("baygo", "posm", "negm")
    title = "BayGo vs star graphs (PosM: informative centre; NegM: other centre)"
    if ax is not None and not isinstance(ax, list | tuple | np.ndarray):
        return plot_mse(df, strategies=strategies, level=level, ax=ax, synthetic=synthetic,
                        title=title)  # fmt: skip
    with figure_style():
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(1, 2, figsize=(12.0, 4.2), sharey=True, layout="constrained")
        left, right = ax
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
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
            title=f"shaded: {level:.0%} t-interval\nover {table_seeds(df)} seeds\n"
            "(★ solid: informative agent;\ndashed: others' mean)",
            title_fontsize="small",
        )  # fmt: skip
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
    >>> run = simulate("baygo", agents=3, steps=4, grid=21, rng=0, data=synthetic_bodyfat())
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
        import seaborn as sns

        ax = new_axes(ax, figsize=(8.0, 4.2))
        others = sns.color_palette("crest", n_colors=max(m - 1, 1))
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
        ax.set_ylabel(MSE_LABEL)
        ax.set_xlim(0, max(t_len - 1, 1))
        where = f"mean over {seeds} seeds" if seeds else "one run"
        ax.set_title(f"Every agent's test MSE under {strategy_label(name)} ({where})")
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
