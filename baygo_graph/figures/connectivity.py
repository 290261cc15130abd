"""Connectivity of the emergent graph: per-window strong connectivity, smallest B.

Inputs come from :mod:`baygo_graph.analysis.connectivity`: the per-window result
of :func:`~baygo_graph.analysis.b_connectivity` and, over seeds, the values of
:func:`~baygo_graph.analysis.smallest_b` gathered in a small table.
"""

from __future__ import annotations

import numpy as np

from .._render import b_counts
from .._text import counted
from ..limits import FIGURE_BYTES_PER_WINDOW, check_figure_budget
from ._style import (
    INFORMATIVE_COLOR,
    figure_style,
    mark_synthetic,
    new_axes,
    source_caption,
)

__all__ = ["plot_smallest_b", "plot_window_connectivity"]

CONNECTED_COLOR = "#009E73"
BROKEN_COLOR = INFORMATIVE_COLOR
_KIND_COLORS = {"aligned": "#0072B2", "sliding": "#E69F00"}


def _field(obj, *names):
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise TypeError(f"{type(obj).__name__} has none of the attributes {names}")


def plot_window_connectivity(result, *, ax=None, synthetic=False, title=None, caption=None):
    """Number of strongly connected components of each window's union graph.

    Parameters
    ----------
    result : b_connectivity result
        What :func:`baygo_graph.analysis.b_connectivity` returns: per window its
        first step, its length, whether its union is strongly connected and its
        number of strongly connected components.
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One bar per window (x: its first step, width: its length, height: the
        number of components), green where the union is strongly connected,
        vermillion where it is not; a dotted line at 1 component.

    Raises
    ------
    BudgetError
        Before drawing, when the bars (:data:`~baygo_graph.limits.FIGURE_BYTES_PER_WINDOW`
        each) would exceed the memory budget.
    """
    starts = np.asarray(_field(result, "starts", "start"), dtype=float)
    stops = np.asarray(_field(result, "stops", "stop", "ends"), dtype=float)
    ncomp = np.asarray(_field(result, "n_components", "components"), dtype=float)
    ok = np.asarray(_field(result, "strongly_connected", "connected"), dtype=bool)
    b = _field(result, "B", "b")
    kind = getattr(result, "windows", "aligned")
    widths = stops - starts
    check_figure_budget(
        len(starts), FIGURE_BYTES_PER_WINDOW, what=f"the figure of {len(starts)} window bars",
        advice="take aligned windows or a longer window (fewer bars), or a shorter span",
    )  # fmt: skip
    with figure_style():
        ax = new_axes(ax, figsize=(8.0, 3.6))
        colors = np.where(ok, CONNECTED_COLOR, BROKEN_COLOR)
        ax.bar(
            starts, ncomp, width=widths * (0.9 if kind == "aligned" else 1.0), align="edge",
            color=colors, edgecolor="none", alpha=0.85 if kind == "aligned" else 0.5,
            gid="windows",
        )  # fmt: skip
        ax.axhline(1, color="black", ls=":", lw=1.0, gid="one-component")
        from matplotlib.patches import Patch

        ax.legend(
            handles=[
                Patch(color=CONNECTED_COLOR, label="union strongly connected"),
                Patch(color=BROKEN_COLOR, label="not strongly connected"),
            ],
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
        ax.set_xlabel("window start step (bar width: the window length)")
        ax.set_ylabel("strongly connected\ncomponents of the union")
        ax.set_ylim(0, max(2.0, float(ncomp.max(initial=1)) + 0.5))
        ax.yaxis.get_major_locator().set_params(integer=True)
        if len(starts):
            ax.set_xlim(starts.min(), stops.max())
        n_ok = int(ok.sum())
        ax.set_title(
            # analyze's words: "B" is the smallest B, the window length is said in steps
            title or f"{kind} windows of {counted(b, 'step')}: {n_ok}/{len(ok)} strongly connected",
            fontsize="medium",
        )
        mark_synthetic(ax, bool(synthetic))
        source_caption(ax, caption)
    return ax


def plot_smallest_b(table, *, steps=None, limit=None, ax=None, synthetic=False, caption=None):
    """Each seed's smallest B, aligned and sliding windows, as a dot plot.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per seed and window kind: columns ``seed``, ``windows``
        (``"aligned"`` or ``"sliding"``) and ``smallest_b`` (NaN: no B works),
        rows of :func:`baygo_graph._render.b_row` of
        :func:`baygo_graph.analysis.smallest_b`. With the coverage columns
        ``tail_length`` and ``tail_connected`` each legend entry also counts the
        seeds whose B leaves a tail, and those whose tail is not strongly connected
        (:func:`baygo_graph._render.b_counts`, the report's counts; seeds without a
        B and sliding windows have no tail).
    steps : int, optional
        Run length T: the x axis ends there and seeds without any B are drawn
        as crosses just beyond it.
    limit : float, optional
        A threshold drawn as a dashed vertical line (e.g. a claim's largest
        admissible B).
    ax : matplotlib.axes.Axes, optional
    synthetic : bool, default False
    caption : str, optional
        Data source and seeds, written small below the figure (see
        :func:`~baygo_graph.figures.source_text`).

    Returns
    -------
    matplotlib.axes.Axes
        Per window kind ``k`` (rows from the top: aligned, sliding), a scatter
        collection with gid ``"b:<k>"`` (one dot per seed with a B, equal values
        stacked) and, if some seed has no B, ``"none:<k>"``; the median of the
        seeds with a B is a vertical tick, a line with gid ``"median:<k>"``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"seed": [0, 1, 0, 1], "windows": ["aligned"] * 2 + ["sliding"] * 2,
    ...                   "smallest_b": [2.0, float("nan"), 3.0, 3.0]})
    >>> ax = plot_smallest_b(t, steps=10)
    >>> {c.get_gid(): c.get_offsets()[:, 0].tolist() for c in ax.collections}
    {'b:aligned': [2.0], 'none:aligned': [10.5], 'b:sliding': [3.0, 3.0]}
    """
    missing = [c for c in ("seed", "windows", "smallest_b") if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the column(s) {missing}")
    kinds = [k for k in ("aligned", "sliding") if (table["windows"] == k).any()]
    kinds += [k for k in table["windows"].unique() if k not in kinds]
    b_all = table["smallest_b"].to_numpy(dtype=float)
    top = float(steps) if steps else float(np.nanmax(b_all, initial=1.0))
    with figure_style():
        ax = new_axes(ax, figsize=(8.0, 2.2 + 0.9 * len(kinds)))
        # Equal values stack upwards, at most 0.7 of a row for the tallest stack.
        tallest = max(
            [int(np.unique(table.loc[table["windows"] == k, "smallest_b"].dropna(),
                           return_counts=True)[1].max(initial=1)) for k in kinds]
            + [int(table.loc[table["windows"] == k, "smallest_b"].isna().sum()) for k in kinds]
        )  # fmt: skip
        step = min(0.09, 0.7 / max(tallest, 1))
        for row, kind in enumerate(kinds):
            y0 = len(kinds) - 1 - row
            b = table.loc[table["windows"] == kind, "smallest_b"].to_numpy(dtype=float)
            ok = np.isfinite(b)
            found = np.sort(b[ok])
            # Stack equal values: the k-th seed with a value sits k steps up.
            _, first = np.unique(found, return_index=True)
            rank = np.arange(len(found)) - np.repeat(first, np.diff(np.append(first, len(found))))
            color = _KIND_COLORS.get(kind, "#7F7F7F")
            label = f"{kind} ({ok.sum()}/{counted(len(b), 'seed')})"
            counts = b_counts(table[table["windows"] == kind])  # as the report's B table
            if counts.get("with_tail"):  # what each B leaves unchecked (no B: no tail)
                label += (
                    f"; tail after [0, k*B) in {counts['with_tail']}, not connected in "
                    f"{counts['tail_not_connected']}"
                )
            ax.scatter(
                found, y0 + step * rank, s=28, color=color, edgecolors="black",
                linewidths=0.4, zorder=3, label=label, gid=f"b:{kind}",
            )  # fmt: skip
            if len(found):
                med = float(np.median(found))
                ax.plot([med, med], [y0 - 0.25, y0 + 0.25], color="black", lw=2.0,
                        gid=f"median:{kind}")  # fmt: skip
            if (~ok).any():
                n_none = int((~ok).sum())
                ax.scatter(
                    np.full(n_none, top + 0.5), y0 + step * np.arange(n_none), marker="x",
                    s=30, color=BROKEN_COLOR, zorder=3, gid=f"none:{kind}",
                    label=f"{kind}: no B ({counted(n_none, 'seed')})",
                )  # fmt: skip
        if limit is not None:
            ax.axvline(limit, color="black", ls="--", lw=1.0, label=f"limit B = {limit:g}",
                       gid="limit")  # fmt: skip
        ax.set_yticks(range(len(kinds)), kinds[::-1])
        ax.set_ylim(-0.5, len(kinds) - 0.5 + 0.3)
        ax.set_xlim(0, top + 1.5)
        ax.set_xlabel("smallest B (steps per window); bar: median over seeds")
        seeds = table["seed"].nunique()
        where = f", T = {steps}" if steps else ""
        ax.set_title(f"Smallest B for B-strong connectivity ({counted(seeds, 'seed')}{where})",
                     fontsize="medium")  # fmt: skip
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        mark_synthetic(ax, bool(synthetic))
        source_caption(ax, caption)
    return ax
