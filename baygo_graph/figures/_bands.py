"""The bands the figures draw, computed in :mod:`baygo_graph.analysis.stats`.

:mod:`baygo_graph.figures` does no statistics of its own: the per-step mean over
seeds and its Student-t interval come from :func:`~baygo_graph.analysis.stats.seed_bands`
(tidy tables or :class:`~baygo_graph.analysis.Comparison`) and
:func:`~baygo_graph.analysis.stats.array_band` (arrays); the paired difference of
two strategies per step is :func:`~baygo_graph.analysis.stats.array_band` of the
per-seed differences (:func:`paired_band`), and at the final step
:func:`~baygo_graph.analysis.stats.paired_difference`. The ``table_*`` helpers of
:mod:`~baygo_graph.analysis.tables` read the shape of either kind of comparison
table.
"""

from __future__ import annotations

import numpy as np

from ..analysis.comparison import Comparison
from ..analysis.stats import GROUPS, array_band, paired_difference, seed_bands
from ..analysis.tables import table_seeds, table_steps, table_strategies

__all__ = [
    "GROUPS",
    "array_band",
    "paired_band",
    "paired_difference",
    "seed_bands",
    "seed_curves",
    "table_seeds",
    "table_steps",
    "table_strategies",
]


def seed_curves(df, strategy: str, group: str):
    """Per-seed curves of one strategy: the group's mean MSE per step.

    Returns
    -------
    seeds : numpy.ndarray
        Seed labels (a Comparison's replicate indices), the rows of ``curves``.
    steps : numpy.ndarray
    curves : numpy.ndarray, shape (seeds, steps)

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"strategy": "a", "seed": [0, 0, 1, 1], "step": [0, 1, 0, 1],
    ...                    "agent": 0, "informative": True, "mse": [1.0, 2.0, 3.0, 4.0]})
    >>> seeds, steps, c = seed_curves(df, "a", "informative")
    >>> seeds.tolist(), c.tolist()
    ([0, 1], [[1.0, 2.0], [3.0, 4.0]])
    """
    if isinstance(df, Comparison):
        c = df.curves(value="mse", group=group)[df.index(strategy)]
        return np.arange(c.shape[0]), np.arange(c.shape[1]), c
    sub = df[df["strategy"] == strategy]
    if group == "informative":
        sub = sub[sub["informative"].astype(bool)]
    elif group == "others":
        sub = sub[~sub["informative"].astype(bool)]
    table = sub.groupby(["seed", "step"], sort=True)["mse"].mean().unstack("step")
    return table.index.to_numpy(), table.columns.to_numpy(), table.to_numpy(dtype=float)


def paired_band(df, strategy: str, baseline: str, *, group="informative", base_group=None,
                level=0.95):  # fmt: skip
    """Per-step paired difference ``strategy - baseline`` over the seeds both have.

    Seeds are paired by label (the same child seed in ``compare``); the band is
    :func:`~baygo_graph.analysis.stats.array_band` of the per-seed differences.

    Returns
    -------
    steps, mean, lo, hi : numpy.ndarray
    n : int
        Number of paired seeds.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"strategy": ["a"] * 2 + ["b"] * 2, "seed": [0, 1] * 2, "step": 0,
    ...                    "agent": 0, "informative": True, "mse": [1.0, 2.0, 2.0, 4.0]})
    >>> steps, mean, lo, hi, n = paired_band(df, "a", "b")
    >>> mean.tolist(), n
    ([-1.5], 2)
    """
    sa, steps, a = seed_curves(df, strategy, group)
    sb, steps_b, b = seed_curves(df, baseline, group if base_group is None else base_group)
    common = np.intersect1d(sa, sb)
    a = a[np.searchsorted(sa, common)]
    b = b[np.searchsorted(sb, common)]
    t = min(len(steps), len(steps_b))
    mean, lo, hi = array_band(a[:, :t] - b[:, :t], level=level)
    return steps[:t], mean, lo, hi, len(common)
