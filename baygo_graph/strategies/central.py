"""Centralised learners: one posterior that learns from everyone's data, no graph.

* :class:`Centralised` (``"cen"``) - the paper's ideal benchmark: one learner with
  access to all the training data. Each step it draws ``M x batch`` samples
  uniformly, with replacement, from the pooled training set of all agents.
* :class:`CentralisedStratified` (``"cen-stratified"``) - one learner that sees
  every agent's own batch each step (one draw per agent from its own samples): the
  same per-agent data budget as the decentralised strategies, so it under-weights
  the region only the informative agent holds and can be beaten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .base import Capabilities, Plan

__all__ = ["Centralised", "CentralisedStratified"]


@dataclass(frozen=True)
class Centralised:
    """Cen: one learner with access to all the training data (the paper's benchmark).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> run = bg.simulate("cen", agents=3, steps=2, model=bg.models.LinearRegression(grid=11),
    ...                   rng=0, data=bg.synthetic_bodyfat())
    >>> run.series is None, bool((run.mse == run.mse[:, :1]).all())  # one learner
    (True, True)
    """

    name: str = field(default="cen", init=False)
    #: One learner, no communication graph.
    capabilities = Capabilities(graph=False)

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A plan with one learner that draws from the pooled training set."""
        return _PooledPlan(agents)


@dataclass(frozen=True)
class CentralisedStratified:
    """One learner that sees the union of every agent's own batch each step."""

    name: str = field(default="cen-stratified", init=False)
    #: One learner, no communication graph.
    capabilities = Capabilities(graph=False)

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A plan with one learner fed by every agent's batch."""
        return _StratifiedPlan(agents)


class _StratifiedPlan(Plan):
    def __init__(self, agents):
        super().__init__(agents)
        self.learners = 1

    def statistics(self, split, batch, rng, statistics) -> np.ndarray:
        return super().statistics(split, batch, rng, statistics).sum(axis=0, keepdims=True)

    def config(self) -> dict:
        return {"central_data": "one batch from each agent's own samples"}


class _PooledPlan(Plan):
    def __init__(self, agents):
        super().__init__(agents)
        self.learners = 1
        self.pool_xy = None

    def statistics(self, split, batch, rng, statistics) -> np.ndarray:
        if self.pool_xy is None:
            self.pool_xy = split.pooled()
        x, y = self.pool_xy
        idx = rng.integers(0, len(x), size=split.agents * batch)
        return statistics(x[idx][None, :], y[idx][None, :])

    def config(self) -> dict:
        return {"central_data": "agents x batch draws from the pooled training set"}
