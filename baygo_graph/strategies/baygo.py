"""BayGo: every step, each agent listens to its most divergent physical neighbour."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ..series import ChoiceSeries
from .base import Plan
from .physical import edge_arrays, resolve_physical
from .timevarying import physical_process

__all__ = ["BayGo"]


@dataclass(frozen=True, eq=False)
class BayGo:
    """The BayGo rule: listen to the most divergent physical neighbour.

    Agent ``i`` listens to ``s = argmax_{j in S_i} KL(p_i || p_j)`` (ties at
    random) with ``w_ii = delta`` and ``w_is = 1 - delta``.

    Parameters
    ----------
    physical : networkx.Graph, str, sequence, callable, PhysicalProcess or None
        Who can talk to whom: a graph on ``0..M-1`` (in a digraph, edge ``(j, i)``
        lets ``i`` hear ``j``), a name for
        :func:`~baygo_graph.strategies.physical_graph` (``"regular-4"``,
        ``"geometric"``; drawn from the run's rng), None for the complete graph,
        or a graph that changes every step (:mod:`~baygo_graph.strategies.timevarying`:
        ``"gossip"``, ``"failures-P"``, ``"exponential"``, a sequence of graphs
        cycled over the steps, a callable ``(t, rng) -> graph``).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> run = bg.simulate(BayGo(nx.cycle_graph(4)), agents=4, steps=3, grid=11, rng=0,
    ...                   data=bg.synthetic_bodyfat())
    >>> sorted(set(abs(run.choices - np.arange(4)).ravel().tolist()))  # ring neighbours
    [1, 3]
    """

    physical: nx.Graph | str | None = None
    name: str = field(default="baygo", init=False)

    def start(self, *, agents: int, steps: int, delta: float, dtype, rng) -> Plan:
        """A plan that records one choice per agent and step."""
        process = physical_process(self.physical)
        if process is not None:
            return _BayGoPlan(agents, steps, delta, process=process.bind(agents, rng.spawn(1)[0]))
        return _BayGoPlan(
            agents, steps, delta, listen=resolve_physical(self.physical, agents, rng=rng)
        )


class _BayGoPlan(Plan):
    def __init__(self, agents, steps, delta, *, listen=None, process=None):
        super().__init__(agents)
        self.delta = delta
        self.listen = listen
        self.process = process
        self.edges = []  # a time-varying graph's (src, dst) per step
        self.choices = np.empty((steps, agents), dtype=np.int32)

    def pool(self, t, model, state, rng) -> bool:
        listen = self.listen
        if self.process is not None:
            listen = self.process.at(t)
            self.edges.append(edge_arrays(listen))
        self.choices[t] = model.most_divergent(state, listen=listen, rng=rng)
        model.pool_choices(state, self.choices[t], self.delta)
        return True

    def weights(self, t: int):
        return ChoiceSeries.from_choices(self.choices[t : t + 1], delta=self.delta).weights(0)

    def series(self) -> ChoiceSeries:
        return ChoiceSeries.from_choices(self.choices, delta=self.delta)

    def physical_name(self) -> str:
        p = self.process
        return f"failures-{p.p}" if hasattr(p, "p") else p.name

    def records(self) -> dict:
        if self.process is None:
            if self.listen is None:
                return {}
            src, dst = edge_arrays(self.listen)
            return {"physical_src": src, "physical_dst": dst}
        sizes = [len(src) for src, _ in self.edges]
        return {
            "physical_ptr": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "physical_src": np.concatenate([src for src, _ in self.edges]),
            "physical_dst": np.concatenate([dst for _, dst in self.edges]),
        }

    def config(self) -> dict:
        if self.process is not None:
            spec = self.physical_name()
            return {"physical": spec, "physical_edges": "records: physical_ptr/src/dst"}
        listen = self.listen
        if listen is None:
            return {"physical": None}
        return {"physical": int(listen.nnz), "physical_edges": "records: physical_src/dst"}
