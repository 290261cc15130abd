"""Strategy names: turn ``"baygo"``, ``"posm"``, ... or a graph into a strategy object."""

from __future__ import annotations

import networkx as nx

from .base import Strategy
from .baygo import BayGo
from .central import Centralised, CentralisedStratified
from .fixed import FixedGraph, complete, nocol, star

__all__ = ["STRATEGY_NAMES", "resolve_strategy"]

#: Names understood by :func:`resolve_strategy`.
STRATEGY_NAMES = ("baygo", "complete", "posm", "negm", "nocol", "cen", "cen-stratified")

_ALIASES = {"star-posm": "posm", "star-negm": "negm", "centralised": "cen"}


def resolve_strategy(strategy, *, agents: int, informative: int = 0, weights: str = "equal"):
    """Turn a strategy name or graph into a strategy object.

    Parameters
    ----------
    strategy : str, networkx.Graph or Strategy
        A name from :data:`STRATEGY_NAMES` (``"posm"``: star with the informative
        agent at the centre; ``"negm"``: star centred on the first
        non-informative agent, ``(informative + 1) % agents``; ``"cen"``: one
        learner drawing from the pooled training data; ``"cen-stratified"``: one
        learner fed every agent's own batch), a graph (fixed, see
        :class:`FixedGraph`), or any object with a ``name`` and a ``start``
        method (:class:`~baygo_graph.strategies.Strategy`, returned as is).
    agents : int
    informative : int, default 0
    weights : str, default "equal"
        Weight rule for fixed graphs made here (see :class:`FixedGraph`; "equal" is
        the paper's rule, "delta" the former default).

    Examples
    --------
    >>> resolve_strategy("negm", agents=12).graph.degree(1)
    11
    >>> resolve_strategy("cen", agents=12).name
    'cen'
    """
    if isinstance(strategy, nx.Graph):
        return FixedGraph(strategy, weights=weights)
    if isinstance(strategy, Strategy):
        return strategy
    if not isinstance(strategy, str):
        raise TypeError(
            "strategy must be a name, a networkx graph or a strategy, "
            f"got {type(strategy).__name__}"
        )
    key = strategy.lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    makers = {
        "baygo": BayGo,
        "complete": lambda: complete(agents, weights=weights),
        "posm": lambda: star(agents, center=informative, weights=weights, name="posm"),
        "negm": lambda: star(
            agents, center=(informative + 1) % agents, weights=weights, name="negm"
        ),
        "nocol": lambda: nocol(agents),
        "cen": Centralised,
        "cen-stratified": CentralisedStratified,
    }
    if key not in makers:
        raise ValueError(f"strategy must be one of {STRATEGY_NAMES} or a graph, got {strategy!r}")
    return makers[key]()
