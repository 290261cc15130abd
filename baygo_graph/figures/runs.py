"""Across-run figures: the measures of :func:`baygo_graph.analysis.analysis_table`."""

from __future__ import annotations

import numpy as np

from .._text import counted
from ._style import (
    describe_seeds,
    figure_style,
    mark_synthetic,
    source_caption,
    source_text,
    strategy_color,
    strategy_label,
)
from .connectivity import plot_smallest_b

__all__ = ["MEASURE_LABELS", "analysis_caption", "plot_analysis_table", "plot_table_smallest_b"]

#: Axis label of each measure of the analysis table.
MEASURE_LABELS = {
    "b_aligned": "smallest B, aligned",
    "b_sliding": "smallest B, sliding",
    "listening_share": "share listening to\nthe informative agent",
    "influence": "informative agent's\ninfluence",
    "influence_rank": "its influence rank\n(1 = top)",
}


def analysis_caption(table) -> str:
    """The source caption of an analysis table: data file(s) and seeds."""
    sources = sorted(set(table["data"].astype(str))) if len(table) else []
    synthetic = bool(table["synthetic"].all()) if len(table) else False
    data = ", ".join(source_text(s).removeprefix("data: ") for s in sources)
    seeds = list(table["seed"])
    spawned = [str(s).split("/") for s in seeds]
    if seeds and all(len(p) == 2 and p[1].isdigit() for p in spawned):
        roots = {p[0] for p in spawned}
        if len(roots) == 1:
            reps = describe_seeds([int(p[1]) for p in spawned]).replace("seed", "replicate")
            seeds = f"root seed {roots.pop()}, {reps}"
    return source_text(data, synthetic=synthetic, seeds=seeds)


def plot_analysis_table(table, *, ax=None, measures=None):
    """Every run's measures, per strategy: dots, median bar and interquartile line.

    Strategies are rows (labels written once, horizontally, on the left
    panel), measures are panels side by side; the figure grows with the number
    of strategies and measures, so no two labels overlap.

    Parameters
    ----------
    table : pandas.DataFrame
        What :func:`baygo_graph.analysis.analysis_table` returns.
    ax : sequence of matplotlib.axes.Axes, optional
        One Axes per measure (default: a new figure with one row of panels
        sharing the strategy axis).
    measures : sequence of str, optional
        Columns to draw (default: those of :data:`MEASURE_LABELS` in the table).

    Returns
    -------
    matplotlib.figure.Figure
        Panel ``k`` holds per strategy a scatter with gid ``"runs:<strategy>"`` (one
        dot per run with a value, x: the measure; NaN runs left out and counted
        in a note with gid ``"none:<strategy>"``), a line ``"median:<strategy>"``
        and a line ``"iqr:<strategy>"``; a caption names the data and the seeds.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"strategy": ["baygo"] * 3, "seed": ["0", "1", "2"],
    ...                   "data": "bodyfat.csv", "synthetic": False,
    ...                   "b_aligned": [2.0, 3.0, float("nan")]})
    >>> fig = plot_analysis_table(t)
    >>> sorted(c.get_offsets()[:, 0].tolist() for c in fig.axes[0].collections)
    [[2.0, 3.0]]
    """
    measures = [m for m in (measures or MEASURE_LABELS) if m in table.columns]
    if not measures:
        raise ValueError(f"table has none of the measure columns {list(MEASURE_LABELS)}")
    strategies = list(dict.fromkeys(table["strategy"]))
    counts = table["strategy"].value_counts()
    rng = np.random.default_rng(0)  # fixed jitter: the same figure every time
    with figure_style():
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(
                1,
                len(measures),
                sharey=True,
                figsize=(2.2 + 2.3 * len(measures), 1.9 + 0.42 * len(strategies)),
                layout="constrained",
            )
        axes = np.atleast_1d(ax)
        rows = {s: len(strategies) - 1 - k for k, s in enumerate(strategies)}  # first on top
        for a, measure in zip(axes, measures, strict=True):
            for k, strategy in enumerate(strategies):
                y = rows[strategy]
                v = table.loc[table["strategy"] == strategy, measure].to_numpy(dtype=float)
                ok = v[np.isfinite(v)]
                a.scatter(
                    ok, y + rng.uniform(-0.15, 0.15, len(ok)), s=14,
                    color=strategy_color(strategy, k), alpha=0.7, edgecolors="none",
                    gid=f"runs:{strategy}",
                )  # fmt: skip
                if len(ok):
                    q25, med, q75 = np.percentile(ok, [25, 50, 75])
                    a.plot([q25, q75], [y, y], color="black", lw=1.5, alpha=0.8,
                           gid=f"iqr:{strategy}")  # fmt: skip
                    a.plot([med, med], [y - 0.3, y + 0.3], color="black", lw=2,
                           gid=f"median:{strategy}")  # fmt: skip
                missing = len(v) - len(ok)
                if missing:
                    a.text(
                        0.99, y, f"{missing} without a value", transform=a.get_yaxis_transform(),
                        ha="right", va="center", fontsize="x-small", color="#555555",
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                              "alpha": 0.8},
                        gid=f"none:{strategy}",
                    )  # fmt: skip
            a.set_ylim(-0.6, len(strategies) - 0.4)
            a.set_title(MEASURE_LABELS.get(measure, measure), fontsize="small")
            a.tick_params(axis="x", labelsize="small")
        axes[0].set_yticks(
            [rows[s] for s in strategies],
            [f"{strategy_label(s)} ({counted(counts[s], 'run')})" for s in strategies],
            fontsize="small",
        )
        fig = axes[0].figure
        fig.suptitle(
            f"{counted(len(table), 'run')}: per run (dots), median (bar), interquartile range "
            "(line)",
            fontsize="medium",
        )
        # any run on synthetic data marks the figure (its numbers are partly synthetic)
        mark_synthetic(fig, bool(table["synthetic"].astype(bool).any()))
        source_caption(fig, analysis_caption(table))
    return fig


def plot_table_smallest_b(table, *, strategy="baygo", ax=None):
    """:func:`plot_smallest_b` of one strategy's runs of an analysis table.

    Returns
    -------
    matplotlib.axes.Axes
        As :func:`plot_smallest_b`, captioned with the data and the seeds, its title
        naming the strategy; the aligned B's tails (``b_aligned_tail``,
        ``b_aligned_tail_connected`` of the table) counted in its legend.
    """
    import pandas as pd

    part = table[table["strategy"] == strategy]
    if part.empty:
        raise ValueError(f"table has no run of strategy {strategy!r}")
    tails = {}  # the aligned B's unchecked tail, marked as the reproduction's figure does
    if {"b_aligned_tail", "b_aligned_tail_connected"} <= set(part.columns):
        tails = {
            "tail_length": part["b_aligned_tail"].to_numpy(dtype=float),
            "tail_connected": part["b_aligned_tail_connected"].to_numpy(dtype=float),
        }
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "seed": part["run"],
                    "windows": k,
                    "smallest_b": part[f"b_{k}"],
                    **(tails if k == "aligned" else {}),
                }
            )  # fmt: skip
            for k in ("aligned", "sliding")
        ]
    )
    ax = plot_smallest_b(
        long,
        steps=int(part["steps"].max()),
        ax=ax,
        synthetic=bool(part["synthetic"].astype(bool).any()),
    )
    source_caption(ax, analysis_caption(part))
    ax.set_title(f"{strategy}: {ax.get_title()}" if ax.get_title() else str(strategy))
    return ax
