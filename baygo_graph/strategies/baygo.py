"""BayGo: every step, each agent listens to its most divergent physical neighbour."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import networkx as nx
import numpy as np

from .choice import ChoiceStrategy

__all__ = ["BayGo"]


@dataclass(frozen=True, eq=False)
class BayGo(ChoiceStrategy):
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
    >>> run = bg.simulate(BayGo(nx.cycle_graph(4)), agents=4, steps=3, rng=0,
    ...                   model=bg.models.LinearRegression(grid=11), data=bg.synthetic_bodyfat())
    >>> sorted(set(abs(run.choices - np.arange(4)).ravel().tolist()))  # ring neighbours
    [1, 3]
    """

    physical: nx.Graph | str | None = None
    name: ClassVar[str] = "baygo"

    def choose(self, t: int, *, model, state, listen, rng, choices) -> np.ndarray:
        """Each agent's most divergent physical neighbour (``model.most_divergent``)."""
        return model.most_divergent(state, listen=listen, rng=rng)

    def choose_seeds(self, t: int, *, model, state, listens, rngs, choices) -> list:
        """Every run's choices at once (``model.most_divergent`` of a state of several
        runs: one KL product per run, one argmin pass for all on the complete graph)."""
        if len(listens) == 1:
            return [self.choose(t, model=model, state=state, listen=listens[0], rng=rngs[0],
                                choices=choices[0])]  # fmt: skip
        return list(model.most_divergent(state, listen=listens, rng=rngs))
