"""The paper's convergence bound and the horizon study, drawn.

Inputs come from the analysis: a run's theorem records
(:class:`~baygo_graph.monitors.TheoremMonitor`) and
:func:`~baygo_graph.analysis.horizon_table`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ._style import (
    INFORMATIVE_COLOR,
    figure_style,
    mark_synthetic,
    new_axes,
    run_caption,
    source_caption,
)

__all__ = ["plot_horizon", "plot_theorem"]

_OTHERS = "#0072B2"
_BOUND = "#555555"


def plot_theorem(run, *, ax=None, title=None, caption=None):
    """Both sides of the paper's bound over the steps, on a log scale.

    Parameters
    ----------
    run : Run
        Made with ``monitors=[TheoremMonitor()]``.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    caption : str, optional
        Source caption; default: the run's data and seed.

    Returns
    -------
    matplotlib.axes.Axes
        The error ``1 - mu_{i,t}(theta*)`` of the informative agent (vermillion) and
        of the other agents (blue, their median and range), and the right side of
        the bound, literal (grey, solid), cumulative (dashed) and with the whole
        KL divergence (dash-dotted); a dotted
        line at 1 (a bound above it says nothing: the error never exceeds 1).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.models import LinearRegression
    >>> from baygo_graph.monitors import TheoremMonitor
    >>> run = bg.simulate("baygo", agents=4, steps=10, model=LinearRegression(grid=21), rng=0,
    ...                   data=bg.synthetic_bodyfat(), monitors=[TheoremMonitor()])
    >>> len(plot_theorem(run).get_lines())  # 2 errors, 3 bounds, the line at 1
    6
    """
    recs = run.records
    if "theorem_lhs" not in recs:
        raise ValueError("run has no theorem records: simulate it with TheoremMonitor()")
    lhs = recs["theorem_lhs"]
    steps = np.arange(1, lhs.shape[0] + 1)
    others = np.delete(lhs, run.informative, axis=1)
    bounds = {
        key: np.exp(np.median(recs[key], axis=1))
        for key in ("theorem_log_rhs", "theorem_log_rhs_cumulative", "theorem_log_rhs_kl")
    }
    # a bound far above 1 says nothing: clip the view at 100 and say what is off it
    positive = np.concatenate([lhs[lhs > 0].ravel()] + [b[b > 0] for b in bounds.values()])
    bottom = max(float(positive.min()) / 2, 1e-12) if len(positive) else 1e-3
    top = 1e2
    with figure_style():
        ax = new_axes(ax, figsize=(7.4, 5.6))
        ax.axhline(1.0, color="black", linewidth=0.6, linestyle=":", zorder=1)
        for key, style, label in (
            ("theorem_log_rhs", "-", "bound (literal)"),
            ("theorem_log_rhs_cumulative", "--", "bound (cumulative exponent)"),
            ("theorem_log_rhs_kl", "-.", "bound (whole KL, cumulative)"),
        ):
            b = bounds[key]
            off = np.isfinite(b) & (b > top)
            if off.all():
                label += f" (above {top:g}: vacuous)"
            elif off.any():
                label += f" (above {top:g} until step {int(steps[off][-1])})"
            ax.plot(steps, np.clip(b, None, top * 1.5), style, color=_BOUND, linewidth=1.2,
                    label=label, zorder=2)  # fmt: skip
        ax.fill_between(steps, others.min(axis=1), others.max(axis=1), color=_OTHERS,
                        alpha=0.25, zorder=3)  # fmt: skip
        ax.plot(steps, np.median(others, axis=1), color=_OTHERS, linewidth=2.2,
                label="error, other agents (median, range)", zorder=4)  # fmt: skip
        ax.plot(steps, lhs[:, run.informative], color=INFORMATIVE_COLOR, linewidth=2.2,
                marker="o", markevery=max(1, len(steps) // 10), markersize=4,
                label="error, informative agent", zorder=5)  # fmt: skip
        ax.set_yscale("log")
        ax.set_ylim(bottom, top)
        ax.set_xlabel("step t")
        ax.set_ylabel(r"$1 - \mu_{i,t}(\theta^*)$ and its bound")
        ax.set_title(title or "The paper's bound (median over agents)")
        # below the plot, so the plot keeps the figure's width
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False,
                  fontsize="small")  # fmt: skip
        # the error sits just under 1 on a fine grid: a linear inset (upper right, where
        # the falling bounds leave room) shows it; its label sits inside it, clear of ticks
        inset = ax.inset_axes([0.56, 0.58, 0.41, 0.36])
        inset.fill_between(steps, others.min(axis=1), others.max(axis=1), color=_OTHERS,
                           alpha=0.25)  # fmt: skip
        inset.plot(steps, np.median(others, axis=1), color=_OTHERS, linewidth=1.5)
        inset.plot(steps, lhs[:, run.informative], color=INFORMATIVE_COLOR, linewidth=1.5)
        inset.text(0.97, 0.92, "error alone\n(linear scale)", transform=inset.transAxes,
                   ha="right", va="top", fontsize="x-small")  # fmt: skip
        inset.tick_params(labelsize="x-small")
        inset.yaxis.set_major_locator(MaxNLocator(3))
        mark_synthetic(ax, run.synthetic)
        source_caption(ax, run_caption(run) if caption is None else caption)
    return ax


def plot_horizon(table, *, ax=None, synthetic=False, title=None, caption=None):
    """Smallest B (aligned and sliding) against the run length, over seeds.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`baygo_graph.analysis.horizon_table`.
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    title : str, optional
    caption : str, optional
        Source caption (data, seeds).

    Returns
    -------
    matplotlib.axes.Axes
        Median and interquartile range of each B per horizon; runs with no B are
        left out of the median (their count per horizon is in the legend).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"run": [0, 0, 1, 1], "steps": [10, 20, 10, 20],
    ...                   "b_aligned": [4.0, 6.0, 5.0, 7.0], "b_sliding": [5.0, 8, 6, 9]})
    >>> len(plot_horizon(t).get_lines())
    2
    """
    colors = {"aligned": "#0072B2", "sliding": "#E69F00"}
    with figure_style():
        ax = new_axes(ax)
        for kind, color in colors.items():
            col = table.groupby("steps")[f"b_{kind}"]
            q = col.quantile([0.25, 0.5, 0.75]).unstack()
            runs = table.groupby("steps")[f"b_{kind}"].size()
            missing = table[f"b_{kind}"].isna().groupby(table["steps"]).sum()
            ax.fill_between(q.index, q[0.25], q[0.75], color=color, alpha=0.2)
            gaps = ", ".join(f"T={t}: {int(n)}/{runs[t]}" for t, n in missing.items() if n)
            label = f"{kind} (median, IQR)" + (f"; runs with no B: {gaps}" if gaps else "")
            ax.plot(q.index, q[0.5], marker="o", color=color, label=label)
        ax.set_xlabel("run length T (steps)")
        ax.set_ylabel("smallest B")
        ax.set_title(title or "Smallest B grows with the horizon")
        ax.legend(loc="upper left", frameon=False, fontsize="small")
        mark_synthetic(ax, synthetic)
        source_caption(ax, caption)
    return ax
