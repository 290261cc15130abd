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

What a strategy needs and offers is declared by its :class:`Capabilities` (the
``capabilities`` attribute, read through :func:`capabilities`): whether it makes a
communication graph, whether it takes a physical graph, whether it scores all M x M
pairs each step. The loop, ``compare``, ``sweep``, ``analyze`` and ``reproduce``
consult only these, never a strategy's name or class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..data import Split, draw_batches
from ..series import GraphSeries

__all__ = ["Capabilities", "Plan", "Strategy", "capabilities"]


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

    def pool_seeds(self, plans, t: int, model, state, rngs) -> bool:
        """:meth:`pool` of several runs of one configuration held in one model state.

        Called on the first run's plan with every run's plan (``plans``, this one
        first) and generator (``rngs``); each run must pool exactly as its own
        :meth:`pool` would. The default takes one run (:meth:`pool`), or several when
        the plan does not pool; a plan that overrides :meth:`pool` without this one
        runs one seed at a time (:attr:`seeds_at_once` is False).
        """
        if len(plans) == 1:
            return self.pool(t, model, state, rngs[0])
        if type(self).pool is Plan.pool:
            return False
        raise TypeError(f"{type(self).__name__} pools one run at a time (seeds_at_once)")

    @property
    def seeds_at_once(self) -> bool:
        """Whether :meth:`pool_seeds` pools several runs in one call."""
        kind = type(self)
        return kind.pool is Plan.pool or kind.pool_seeds is not Plan.pool_seeds

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
    """What :func:`baygo_graph.simulate` needs of a strategy: a ``name`` and ``start``.

    A strategy may also declare ``capabilities`` (:class:`Capabilities`; default:
    a graph, no physical graph, no pairwise scores) and, when it takes a physical
    graph, ``with_physical(physical)`` returning a copy that uses it. A dynamic
    strategy that picks one neighbour per agent and step subclasses
    :class:`~baygo_graph.strategies.ChoiceStrategy` and writes ``choose`` only.
    """

    name: str

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A fresh :class:`Plan` for one run."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What a strategy needs and offers; the commands consult only this.

    Attributes
    ----------
    graph : bool, default True
        Its plan makes a communication graph series (False: a single learner, no
        graph, e.g. ``"cen"``; influence and connectivity are then undefined).
    physical : bool, default False
        It takes a physical graph (who may talk to whom) through
        ``strategy.with_physical(physical)``: ``BayGo(physical=...)``,
        ``baygo run --physical`` and a sweep's ``"physical"`` parameter reach it.
    pairwise : bool, default False
        Each step it scores all M x M agent pairs (BayGo on the complete physical
        graph): counted in the memory budget checked before a run.

    Examples
    --------
    >>> Capabilities().graph, Capabilities(physical=True).physical
    (True, True)
    """

    graph: bool = True
    physical: bool = False
    pairwise: bool = False


def capabilities(strategy) -> Capabilities:
    """The :class:`Capabilities` a strategy declares (the defaults when it declares none).

    Examples
    --------
    >>> from baygo_graph.strategies import BayGo, Centralised
    >>> capabilities(BayGo()).physical, capabilities(Centralised()).graph
    (True, False)
    """
    caps = getattr(strategy, "capabilities", None)
    if caps is None:
        return Capabilities()
    if not isinstance(caps, Capabilities):
        raise TypeError(
            f"strategy {getattr(strategy, 'name', strategy)!r}: capabilities must be a "
            f"baygo_graph.strategies.Capabilities, got {type(caps).__name__}"
        )
    return caps
