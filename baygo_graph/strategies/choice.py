"""Dynamic strategies that pick one neighbour per agent and step: write ``choose`` only.

:class:`ChoiceStrategy` does everything but the choice: the physical graph (fixed,
by name, or changing every step), the record of every choice, pooling
(``w_ii = delta``, ``w_i,choice = 1 - delta``), the graph series, the records and
config of the run. A subclass sets ``name`` and writes :meth:`ChoiceStrategy.choose`;
:class:`~baygo_graph.strategies.BayGo` is one (the most divergent neighbour).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import networkx as nx
import numpy as np

from ..series import ChoiceSeries
from .base import Capabilities, Plan
from .physical import edge_arrays, resolve_physical
from .timevarying import _label, physical_process, warn_alone_steps

__all__ = ["ChoicePlan", "ChoiceStrategy"]


@dataclass(frozen=True, eq=False)
class ChoiceStrategy:
    """Base of the strategies where each agent listens to one chosen neighbour per step.

    Parameters
    ----------
    physical : networkx.Graph, str, sequence, callable, PhysicalProcess or None
        Who can talk to whom (see :class:`~baygo_graph.strategies.BayGo`); None:
        the complete graph.

    Notes
    -----
    A subclass sets the class attribute ``name`` and writes :meth:`choose`; it
    declares ``capabilities`` with a physical graph and, on the complete graph,
    M x M pairwise scores (override the property when ``choose`` needs less).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> class Next(ChoiceStrategy):  # everyone listens to the next agent
    ...     name = "next"
    ...     def choose(self, t, *, model, state, listen, rng, choices):
    ...         return (np.arange(choices.shape[1]) + 1) % choices.shape[1]
    >>> run = bg.simulate(Next(), agents=3, steps=2, model=bg.models.LinearRegression(grid=11),
    ...                   rng=0, data=bg.synthetic_bodyfat())
    >>> run.choices.tolist()
    [[1, 2, 0], [1, 2, 0]]
    """

    physical: nx.Graph | str | None = None
    name: ClassVar[str] = "choice"

    @property
    def capabilities(self) -> Capabilities:
        """A graph; takes a physical graph; pairwise scores on the complete graph."""
        return Capabilities(graph=True, physical=True, pairwise=self.physical is None)

    def with_physical(self, physical):
        """A copy of this strategy on the physical graph ``physical``."""
        if self.physical is not None:
            raise ValueError(
                f"strategy {self.name!r} already has a physical graph; give physical once"
            )
        return dataclasses.replace(self, physical=physical)

    def choose(self, t: int, *, model, state, listen, rng, choices) -> np.ndarray:
        """Step ``t``'s chosen neighbour of every agent (-1: none), shape (M,).

        Parameters
        ----------
        t : int
            The step.
        model, state
            The model and its state after the local update (e.g.
            ``model.most_divergent(state, listen=listen, rng=rng)``).
        listen : scipy.sparse.csr_array or None
            This step's physical graph (``listen[i, j]``: ``i`` may hear ``j``);
            None: everyone may hear everyone.
        rng : numpy.random.Generator
            The run's generator.
        choices : numpy.ndarray, shape (T, M)
            The choices so far (rows ``< t`` are filled; read only).
        """
        raise NotImplementedError(f"strategy {self.name!r} must define choose()")

    def choose_seeds(self, t: int, *, model, state, listens, rngs, choices) -> list:
        """:meth:`choose` of several runs held in one model state: one choice array per run.

        ``listens``, ``rngs`` and ``choices`` hold one entry per run. The default calls
        :meth:`choose` run by run on each run's part of the state (``state.per_seed``;
        a state of one run is its own part); a subclass may choose for every run at once.
        """
        lanes = getattr(state, "per_seed", None) or [state]
        return [
            self.choose(t, model=model, state=lane, listen=h, rng=g, choices=c)
            for lane, h, g, c in zip(lanes, listens, rngs, choices, strict=True)
        ]

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A :class:`ChoicePlan` that records one choice per agent and step."""
        process = physical_process(self.physical)
        if process is self.physical:  # the caller's object: each run binds its own copy
            process = copy.copy(process)
        if process is not None:
            return ChoicePlan(
                self, agents, steps, delta, process=process.bind(agents, rng.spawn(1)[0])
            )
        return ChoicePlan(
            self, agents, steps, delta, listen=resolve_physical(self.physical, agents, rng=rng)
        )


class ChoicePlan(Plan):
    """One run of a :class:`ChoiceStrategy`: its choices, physical graph and pooling."""

    def __init__(self, strategy, agents, steps, delta, *, listen=None, process=None):
        super().__init__(agents)
        self.strategy = strategy
        self.delta = delta
        self.listen = listen
        self.process = process
        self.edges = []  # a time-varying graph's (src, dst) per step
        # the steps each agent had someone to listen to, for a process that cannot say
        # before the run which agents it leaves alone (a sequence warns now)
        self.heard = None
        if process is not None and not process.check_alone(steps):
            self.heard = np.zeros(agents, dtype=np.int64)
        self.choices = np.empty((steps, agents), dtype=np.int32)
        self._seen = self.choices.view()  # what choose() may read: read only
        self._seen.flags.writeable = False

    def pool(self, t, model, state, rng) -> bool:
        """Choose (through the strategy), record and pool with the chosen neighbours."""
        return self.pool_seeds([self], t, model, state, [rng])

    def pool_seeds(self, plans, t, model, state, rngs) -> bool:
        """:meth:`pool` of several runs at once: each run's physical graph and choices
        (:meth:`ChoiceStrategy.choose_seeds`), then one pooling of every run."""
        listens = []
        for plan in plans:
            listen = plan.listen
            if plan.process is not None:
                listen = plan.process.at(t)
                plan.edges.append(edge_arrays(listen))
                if plan.heard is not None:
                    plan.heard += np.diff(listen.indptr) > 0
            listens.append(listen)
        chosen = self.strategy.choose_seeds(
            t,
            model=model,
            state=state,
            listens=listens,
            rngs=rngs,
            choices=[plan._seen for plan in plans],
        )
        for plan, c in zip(plans, chosen, strict=True):
            plan.choices[t] = c
        if len(plans) == 1:
            model.pool_choices(state, self.choices[t], self.delta)
        else:
            model.pool_choices(state, np.stack([plan.choices[t] for plan in plans]), self.delta)
        return True

    def weights(self, t: int):
        """Step ``t``'s W from its choices."""
        return ChoiceSeries.from_choices(self.choices[t : t + 1], delta=self.delta).weights(0)

    def series(self) -> ChoiceSeries:
        """The run's choices as a graph series."""
        return ChoiceSeries.from_choices(self.choices, delta=self.delta)

    def physical_name(self) -> str:
        """The name of a time-varying physical graph."""
        return _label(self.process)

    def records(self) -> dict:
        """The physical edges (every step's, when the graph changes)."""
        if self.process is None:
            if self.listen is None:
                return {}
            src, dst = edge_arrays(self.listen)
            return {"physical_src": src, "physical_dst": dst}
        if self.heard is not None:
            warn_alone_steps(self.process, self.heard, len(self.edges))
        sizes = [len(src) for src, _ in self.edges]
        return {
            "physical_ptr": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "physical_src": np.concatenate([src for src, _ in self.edges]),
            "physical_dst": np.concatenate([dst for _, dst in self.edges]),
        }

    def config(self) -> dict:
        """The physical graph's entry of the config."""
        if self.process is not None:
            spec = self.physical_name()
            return {"physical": spec, "physical_edges": "records: physical_ptr/src/dst"}
        listen = self.listen
        if listen is None:
            return {"physical": None}
        return {"physical": int(listen.nnz), "physical_edges": "records: physical_src/dst"}
