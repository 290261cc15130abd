"""The Strategy protocol: how a run pools, step by step, and the strategy registry.

A strategy is a small immutable object with a ``name`` and a ``start`` method. The
learning loop calls ``start`` once per run and gets a :class:`Plan`, the run's
mutable state of the strategy, which the loop asks three things each step:

1. :meth:`Plan.statistics` - the mini-batch sufficient statistics of every learner
   (each agent draws from its own samples; a centralised learner from all of them),
   through the model's ``statistics``;
2. :meth:`Plan.pool` - given the model and its state after the local update, pool
   through the model (``model.most_divergent``, ``model.pool_choices``,
   ``model.pool_weights``), or say that nothing is pooled;
3. at the end, :meth:`Plan.series` - the communication graph series of the run
   (None for a centralised learner) and :meth:`Plan.config` - what the run's config
   must record to reproduce it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..data import Split, draw_batches
from ..series import GraphSeries

__all__ = ["Plan", "Strategy"]


class Plan:
    """One run's state of a strategy (base class: per-agent data, no pooling).

    Attributes
    ----------
    learners : int
        Number of posteriors the loop keeps (M, or 1 for a centralised learner).
    """

    learners: int

    def __init__(self, agents: int):
        self.learners = agents

    def statistics(
        self, split: Split, batch: int, rng: np.random.Generator, statistics
    ) -> np.ndarray:
        """Every learner's batch statistics, ``statistics(x, y)`` of each agent's own batch."""
        x, y = draw_batches(split, batch, rng)
        return statistics(x, y)

    def pool(self, t: int, model, state, rng) -> bool:
        """Pool step ``t``'s local posteriors through ``model`` (in ``state``); False: none."""
        return False

    def weights(self, t: int):
        """Step ``t``'s row-stochastic W (``scipy.sparse``) once pooled; None: no graph."""
        return None

    def series(self) -> GraphSeries | None:
        """The run's communication graph series (None: no graph)."""
        return None

    def records(self) -> dict:
        """Per-step arrays for ``run.records`` (e.g. a time-varying physical graph)."""
        return {}

    def config(self) -> dict:
        """Entries for the run's config (JSON-serialisable)."""
        return {}


@runtime_checkable
class Strategy(Protocol):
    """What :func:`baygo_graph.simulate` needs of a strategy."""

    name: str

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A fresh :class:`Plan` for one run."""
        ...
