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

    def statistics_seeds(self, plans, splits, batch: int, rngs, statistics) -> np.ndarray:
        """:meth:`statistics` of several runs (``plans``, this one first; their
        ``splits`` and generators), run after run: (runs x learners, S).

        Each run draws from its own generator in its own order; where every plan
        draws as this class does (each agent from its own samples of a padded
        :class:`~baygo_graph.data.Split`), the runs' batches are gathered in one pass.
        """
        if len(plans) == 1:
            return self.statistics(splits[0], batch, rngs[0], statistics)
        if all(type(p).statistics is Plan.statistics for p in plans) and _padded(splits):
            return statistics(*self._stacked(splits).draw(batch, rngs))
        return np.concatenate(
            [
                plan.statistics(split, batch, rng, statistics)
                for plan, split, rng in zip(plans, splits, rngs, strict=True)
            ]
        )

    def _stacked(self, splits) -> _StackedSplits:
        """The runs' samples side by side, made once for these splits."""
        held = getattr(self, "_stack", None)
        if (
            held is None
            or len(held.splits) != len(splits)
            or any(a is not b for a, b in zip(held.splits, splits, strict=True))
        ):
            held = self._stack = _StackedSplits(list(splits))
        return held

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


def _padded(splits) -> bool:
    """Whether every split is a padded :class:`~baygo_graph.data.Split` that draws as such."""
    return all(type(s).draw is Split.draw for s in splits) and len({s.agents for s in splits}) == 1


class _StackedSplits:
    """Several runs' padded splits side by side, (runs, M, widest share): every run's
    mini-batches in one gather, each the one :meth:`Split.draw` gives that run."""

    def __init__(self, splits):
        self.splits = splits
        width = max(s.x.shape[1] for s in splits)
        shape = (len(splits), splits[0].agents, width)
        self.x, self.y = np.zeros(shape), np.zeros(shape)
        for i, s in enumerate(splits):  # set-up only: a loop over runs
            self.x[i, :, : s.x.shape[1]] = s.x
            self.y[i, :, : s.y.shape[1]] = s.y
        self.counts = np.stack([s.counts for s in splits])[:, :, None]
        self.runs = np.arange(len(splits))[:, None, None]
        self.agents = np.arange(splits[0].agents)[None, :, None]

    def draw(self, batch: int, rngs) -> tuple[np.ndarray, np.ndarray]:
        """Every run's agents' batches, (runs x M, batch): run ``s`` draws from ``rngs[s]``."""
        m = self.x.shape[1]
        u = np.stack([rng.random((m, batch)) for rng in rngs])  # each run's own draws
        idx = (u * self.counts).astype(np.intp)
        x, y = self.x[self.runs, self.agents, idx], self.y[self.runs, self.agents, idx]
        return x.reshape(-1, batch), y.reshape(-1, batch)


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
