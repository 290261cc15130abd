"""Influence of the informative agent over time, next to the fixed-graph references.

Inputs come from :mod:`baygo_graph.analysis`: the ``influence`` column of the
comparison table (:func:`~baygo_graph.analysis.compare`), a (T, M) series from
:func:`~baygo_graph.analysis.centrality.influence_series`, and the reference
levels of :func:`~baygo_graph.analysis.centrality.reference_influence`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from .._text import counted, figure_label
from ..analysis.centrality import influence_order
from ..limits import FIGURE_BYTES_PER_POINT, check_figure_budget
from ._bands import seed_bands, table_seeds, table_steps
from ._palettes import colorblind
from ._style import (
    INFLUENCE_LABEL,
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    STEP_LABEL,
    figure_style,
    frame_caption,
    is_synthetic,
    mark_synthetic,
    new_axes,
    source_caption,
    strategy_color,
    strategy_label,
)

__all__ = ["plot_influence", "plot_influence_series"]

_REFERENCE_STYLES = {"posm": "--", "negm": "-.", "complete": ":"}


def _reference_items(references) -> list[tuple[str, float]]:
    """``[(name, level), ...]`` from a mapping, a dataclass or an object with attributes."""
    if references is None:
        return []
    if dataclasses.is_dataclass(references) and not isinstance(references, type):
        references = dataclasses.asdict(references)
    if not isinstance(references, Mapping):
        references = {
            k: getattr(references, k) for k in _REFERENCE_STYLES if hasattr(references, k)
        }
    out = []
    for name, value in references.items():
        if isinstance(value, int | float | np.number) and not isinstance(value, bool):
            out.append((str(name), float(value)))
    return out


def _draw_references(ax, references) -> None:
    for k, (name, level) in enumerate(_reference_items(references)):
        ax.axhline(
            level,
            color=strategy_color(name, k),
            linestyle=_REFERENCE_STYLES.get(name, ":"),
            linewidth=1.4,
            label=f"{strategy_label(name)} (reference: {level:.3g})",
            gid=f"reference:{name}",
        )


def plot_influence(
    df,
    *,
    strategies=("baygo",),
    references=None,
    level=0.95,
    ax=None,
    synthetic=None,
    title=None,
):
    """The informative agent's influence per step, mean over seeds with a band.

    Parameters
    ----------
    df : pandas.DataFrame or Comparison
        The comparison table (columns strategy, seed, step, agent, informative,
        influence; NaN where the influence is undefined, which is skipped), or
        its per-run arrays.
    strategies : sequence of str, default ("baygo",)
    references : mapping or result object, optional
        Reference levels of the informative agent's influence, e.g.
        ``{"posm": ..., "negm": ..., "complete": 1 / M}`` or what
        :func:`~baygo_graph.analysis.centrality.reference_influence` returns;
        each is drawn as a horizontal line (gid ``"reference:<name>"``).
    level : float, default 0.95
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, optional
        Default ``df.attrs["synthetic"]``.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Lines with gid ``"influence:<strategy>"`` (star marker), bands
        ``"band:influence:<strategy>"``; a strategy whose influence is NaN
        everywhere gets a note (text with gid ``"undefined:<strategy>"``) instead.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"strategy": "baygo", "seed": [0, 1], "step": 0, "agent": 0,
    ...                    "informative": True, "mse": 1.0, "influence": [0.2, 0.4]})
    >>> ax = plot_influence(df, references={"complete": 0.1})
    >>> ax.get_lines()[0].get_ydata().round(3).tolist(), len(ax.get_lines())
    ([0.3], 2)
    """
    if hasattr(df, "columns") and "influence" not in df.columns:
        raise ValueError("df has no 'influence' column (see experiments.compare)")
    window = df.attrs.get("influence_window")
    with figure_style():
        ax = new_axes(ax, figsize=(9.0, 4.2))
        steps = table_steps(df)
        for k, s in enumerate(strategies):
            band = seed_bands(df, value="influence", level=level, strategies=[s])
            band = band[band["n"] > 0]
            if band.empty:
                ax.text(
                    0.5, 0.6, f"{strategy_label(s)}: influence undefined at every step\n"
                    "(no unique left Perron vector)", transform=ax.transAxes, ha="center",
                    va="center", fontsize="small", gid=f"undefined:{s}",
                )  # fmt: skip
                continue
            color = strategy_color(s, k)
            x = band["step"].to_numpy()
            ax.fill_between(
                x, band["lo"], band["hi"], color=color, alpha=0.2, lw=0,
                gid=f"band:influence:{s}",
            )  # fmt: skip
            ax.plot(
                x,
                band["mean"].to_numpy(),
                color=color,
                marker=INFORMATIVE_MARKER,
                markerfacecolor=INFORMATIVE_COLOR,
                markevery=max(1, steps // 10),
                markersize=9,
                lw=1.8,
                label=f"{strategy_label(s)}: informative agent",
                gid=f"influence:{s}",
            )
        _draw_references(ax, references)
        ax.set_xlim(0, max(steps - 1, 1))
        ax.set_ylim(bottom=0)
        ax.set_xlabel(STEP_LABEL)
        ax.set_ylabel(INFLUENCE_LABEL)
        if title is None:
            title = "Influence of the informative agent"
            if window:
                title += f"\n(product of W over sliding windows of {counted(window, 'step')})"
        ax.set_title(title, fontsize="medium")
        seeds = table_seeds(df)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(
                fontsize="small",
                loc="upper left",
                bbox_to_anchor=(1.01, 1.0),
                title=f"shaded: {level:.0%} bootstrap interval over {counted(seeds, 'seed')}",
                title_fontsize="small",
            )
        mark_synthetic(ax, is_synthetic(df, synthetic))
        source_caption(ax, frame_caption(df, synthetic))
    return ax


def plot_influence_series(
    series,
    *,
    informative=0,
    references=None,
    ax=None,
    synthetic=False,
    title=None,
    caption=None,
    top=5,
    labels=None,
):
    """Every agent's influence along one run: the top ``top`` agents in colour, the rest grey.

    Readable at any number of agents: the ``top`` agents of highest mean
    influence (over the steps where it is defined) get their own colour and a
    legend entry with their mean; the informative agent (when given) is
    always highlighted, vermillion with a star; every other agent is a thin
    grey line behind them, named once in the legend with their count.

    Parameters
    ----------
    series : InfluenceSeries or array_like, shape (T, M)
        Influence per step or per window (NaN where undefined): the result of
        :func:`~baygo_graph.analysis.centrality.influence_series` (its node
        labels and self-weight rule are then shown), or its ``values``.
    informative : int or None, default 0
        Array index of the informative agent; None for a series without one.
    references : mapping or result object, optional
        Reference levels drawn as horizontal lines (see :func:`plot_influence`).
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).
    title : str, optional
    top : int, default 5
        How many agents (besides the informative one) to highlight.
    labels : sequence, optional
        Node labels in array order (default: the indices).

    Returns
    -------
    matplotlib.axes.Axes
        One line per agent (gid ``"agent:<i>"``; highlighted ones drawn last),
        then the reference lines.

    Raises
    ------
    BudgetError
        Before drawing, when its lines (:data:`~baygo_graph.limits.FIGURE_BYTES_PER_POINT`
        a step and agent) would exceed the memory budget.

    Examples
    --------
    >>> ax = plot_influence_series([[0.5, 0.25, 0.25], [0.6, 0.2, 0.2]])
    >>> ax.get_lines()[-1].get_marker(), ax.get_lines()[-1].get_ydata().tolist()
    ('*', [0.5, 0.6])
    """
    rule = None
    if hasattr(series, "n_classes"):  # an InfluenceSeries: its labels and weight rule
        labels = list(series.nodes) if labels is None else labels
        if series.self_weight is not None:
            from .._render import self_weight_text

            rule = self_weight_text(series.self_weight)
        series = series.values
    s = np.asarray(series, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"series must be 2-D (steps, agents), got shape {s.shape}")
    t, m = s.shape
    if informative is not None and not 0 <= informative < m:
        raise ValueError(f"informative must be an agent in [0, {m}) or None, got {informative!r}")
    if isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 0:
        raise ValueError(f"top must be an int >= 0, got {top!r}")
    labels = list(range(m)) if labels is None else list(labels)
    if len(labels) != m:
        raise ValueError(
            f"labels must hold {counted(m, 'label')} (one per agent), got {len(labels)}"
        )
    labels = [figure_label(label) for label in labels]  # as written, at most 40 characters
    check_figure_budget(
        t * m, FIGURE_BYTES_PER_POINT, what=f"the figure of {counted(t, 'step')} x {m} agents' "
                                            "lines",
        advice="plot a slice of the steps (its values[a:b]) or fewer agents",
    )  # fmt: skip
    highlighted = _top_agents(s, top, informative)
    steps = np.arange(t)
    with figure_style():
        ax = new_axes(ax, figsize=(8.4, 4.2))
        grey = [i for i in range(m) if i not in highlighted and i != informative]
        for k, i in enumerate(grey):
            ax.plot(
                steps, s[:, i], color="#9A9A9A", lw=0.6, alpha=0.35 if m > 30 else 0.6, zorder=1,
                label=f"other agents ({len(grey)})" if k == 0 else "_nolegend_", gid=f"agent:{i}",
            )  # fmt: skip
        palette = colorblind()
        palette = [palette[k] for k in (0, 2, 4, 6, 9, 8)]  # no orange next to vermillion
        mean = _mean_influence(s)
        for k, i in enumerate(highlighted):
            ax.plot(
                steps, s[:, i], color=palette[k % len(palette)], lw=1.6, zorder=3,
                label=f"agent {labels[i]} (mean {_fmt(mean[i])})", gid=f"agent:{i}",
            )  # fmt: skip
        if informative is not None:
            i = informative
            ax.plot(
                steps, s[:, i], color=INFORMATIVE_COLOR, marker=INFORMATIVE_MARKER,
                markevery=max(1, t // 10), markersize=9, lw=2.2, zorder=5,
                label=f"agent {labels[i]} (informative, mean {_fmt(mean[i])})", gid=f"agent:{i}",
            )  # fmt: skip
        _draw_references(ax, references)
        ax.set_xlim(0, max(t - 1, 1))
        ax.set_ylim(bottom=0)
        ax.set_xlabel(STEP_LABEL)
        ax.set_ylabel(INFLUENCE_LABEL)
        title = title or "Influence along one run"
        ax.set_title(title if rule is None else f"{title}\n{rule}", fontsize="medium")
        ax.legend(
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            title=f"top {len(highlighted)} of {m} by mean influence" if highlighted else None,
            title_fontsize="small",
        )
        mark_synthetic(ax, bool(synthetic))
        source_caption(ax, caption)
    return ax


def _mean_influence(s: np.ndarray) -> np.ndarray:
    """Each agent's mean influence over the rows where it is defined (NaN if none)."""
    ok = np.isfinite(s)
    count = ok.sum(axis=0)
    total = np.where(ok, s, 0.0).sum(axis=0)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _top_agents(s: np.ndarray, top: int, informative) -> list[int]:
    """The ``top`` agents of highest mean influence, informative left out, highest first.

    Examples
    --------
    >>> _top_agents(np.array([[0.1, 0.5, 0.2, 0.2]]), 2, 1)
    [2, 3]
    """
    mean = _mean_influence(s)
    order = influence_order(mean).tolist()  # ties in node order, NaN last
    return [i for i in order if i != informative and np.isfinite(mean[i])][:top]


def _fmt(x: float) -> str:
    return "undefined" if not np.isfinite(x) else f"{x:.3g}"
