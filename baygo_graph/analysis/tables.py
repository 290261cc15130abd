"""The shape of a comparison, whichever form it has: a tidy frame or a Comparison.

:func:`baygo_graph.experiments.compare` returns a tidy frame (one row per
strategy, seed, step and agent) or, with ``tidy=False``, a
:class:`~baygo_graph.analysis.Comparison` of per-run arrays. These helpers read
either: the strategies, the number of steps and of seeds, and one strategy's
(seeds, steps, agents) array, so callers (the claims, the figures) need not care
which they were given.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .comparison import Comparison

__all__ = ["table_array", "table_seeds", "table_steps", "table_strategies"]


def table_strategies(table) -> list:
    """The strategies of a tidy frame (order of appearance) or of a Comparison.

    Examples
    --------
    >>> table_strategies(pd.DataFrame({"strategy": ["b", "a", "b"]}))
    ['b', 'a']
    """
    if isinstance(table, Comparison):
        return list(table.strategies)
    return list(dict.fromkeys(table["strategy"]))


def table_steps(table) -> int:
    """Steps T of a tidy frame (largest step + 1; 1 when empty) or of a Comparison.

    Examples
    --------
    >>> table_steps(pd.DataFrame({"step": [0, 4, 2]}))
    5
    """
    if isinstance(table, Comparison):
        return table.n_steps
    return int(table["step"].max()) + 1 if len(table) else 1


def table_seeds(table) -> int:
    """Seeds of a tidy frame (1 without a ``seed`` column) or of a Comparison.

    Examples
    --------
    >>> table_seeds(pd.DataFrame({"seed": [0, 0, 3]}))
    2
    """
    if isinstance(table, Comparison):
        return table.n_seeds
    return int(table["seed"].nunique()) if "seed" in table.columns else 1


def table_array(table, strategy: str, *, value: str = "mse") -> np.ndarray:
    """The (seeds N, steps T, agents M) array of ``value`` for one strategy.

    Parameters
    ----------
    table : pandas.DataFrame or Comparison
    strategy : str
    value : {"mse", "influence"}, default "mse"

    Returns
    -------
    numpy.ndarray
        A view of the Comparison's array, or the frame's values pivoted (NaN
        where the frame has no row).

    Examples
    --------
    >>> df = pd.DataFrame({"strategy": "a", "seed": [0, 0, 1, 1], "step": 0,
    ...                    "agent": [0, 1, 0, 1], "mse": [1.0, 2.0, 3.0, 4.0]})
    >>> table_array(df, "a").tolist()
    [[[1.0, 2.0]], [[3.0, 4.0]]]
    """
    if isinstance(table, Comparison):
        return table.values(value)[table.index(strategy)]
    sub = table[table["strategy"] == strategy]
    if sub.empty:
        raise ValueError(f"strategy {strategy!r} is not in the table")
    cube = sub.pivot_table(index=["seed", "step"], columns="agent", values=value, dropna=False)
    seeds = cube.index.get_level_values("seed").unique()
    steps = cube.index.get_level_values("step").unique()
    full = pd.MultiIndex.from_product([seeds, steps], names=["seed", "step"])
    return cube.reindex(full).to_numpy().reshape(len(seeds), len(steps), -1)
