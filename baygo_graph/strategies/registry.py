"""Strategy names: one registry table from a name to a factory, open to plug-ins.

:func:`register` adds a strategy under a name (from any module: a plug-in needs no
package file edited); :func:`resolve_strategy` turns a name, a graph or an object
into a strategy; :func:`strategy_names` lists what is registered. The CLI resolves
``--strategy``/``--strategies`` through the same table (``baygo --plugin FILE.py``
imports a file that registers more).
"""

from __future__ import annotations

import inspect

import networkx as nx

from .._validate import check_registry_name
from .base import Strategy, capabilities
from .baygo import BayGo
from .central import Centralised, CentralisedStratified
from .fixed import FixedGraph, complete, nocol, star

__all__ = [
    "DEFAULT_STRATEGY",
    "PAPER_STRATEGIES",
    "STRATEGY_NAMES",
    "build_strategy",
    "register",
    "resolve_strategy",
    "strategy_factory",
    "strategy_names",
]

#: The strategy of a run when none is named.
DEFAULT_STRATEGY = "baygo"
#: The strategies of the paper's comparison (``compare``'s default), in order.
PAPER_STRATEGIES = ("baygo", "complete", "posm", "negm", "nocol", "cen")

# The one table: name -> (factory, aliases). A factory takes the keywords it names
# among ``agents``, ``informative`` and ``weights`` and returns a strategy object.
_REGISTRY: dict = {}
_ALIASES: dict = {}
# The context a factory may ask for.
_CONTEXT = ("agents", "informative", "weights")


def register(name: str, factory, *, aliases=(), replace: bool = False) -> None:
    """Register a strategy under ``name``: usable by every command that takes a name.

    Parameters
    ----------
    name : str
        The strategy's name (lower case, no spaces), e.g. ``"lazy"``.
    factory : callable
        Returns a strategy object (:class:`~baygo_graph.strategies.Strategy`); called
        with the keywords it accepts among ``agents``, ``informative`` and
        ``weights`` (a class whose options all have defaults works as is).
    aliases : sequence of str, default ()
        Other names for it.
    replace : bool, default False
        Allow replacing a registered name (otherwise a ValueError).

    Examples
    --------
    >>> from baygo_graph.strategies import nocol
    >>> register("alone", lambda *, agents: nocol(agents), replace=True)
    >>> resolve_strategy("alone", agents=3).name
    'nocol'
    """
    check_registry_name(name)
    for alias in aliases:
        check_registry_name(alias, what="alias")
    if not callable(factory):
        raise TypeError(f"factory must be callable, got {type(factory).__name__}")
    keys = [name, *aliases]
    taken = [k for k in keys if (k in _REGISTRY or k in _ALIASES) and not replace]
    if taken:
        raise ValueError(f"strategy name {taken[0]!r} is taken: pass replace=True to replace it")
    _REGISTRY[name] = factory
    _ALIASES.pop(name, None)
    for alias in aliases:
        _ALIASES[alias] = name


def strategy_names() -> tuple:
    """The registered strategy names, built-in first, in order of registration.

    Examples
    --------
    >>> strategy_names()[:3]
    ('baygo', 'complete', 'posm')
    """
    return tuple(_REGISTRY)


def strategy_factory(name: str):
    """The factory registered under ``name`` (or an alias): picklable for workers.

    Examples
    --------
    >>> build_strategy(strategy_factory("star-posm"), agents=4, informative=2).graph.degree(2)
    3
    """
    if not isinstance(name, str):
        raise TypeError(f"strategy name must be a str, got {type(name).__name__}")
    key = name.lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in _REGISTRY:
        raise ValueError(
            f"strategy must be one of {strategy_names()} (or registered with "
            f"baygo_graph.strategies.register), a graph or a strategy, got {name!r}"
        )
    return _REGISTRY[key]


def build_strategy(factory, *, agents: int, informative: int = 0, weights=None, physical=None):
    """The strategy a registered ``factory`` makes for a run (with ``physical`` given).

    Used where a worker process builds the strategy of a task from the factory it was
    sent (a strategy registered in the launching process only is then still known).
    """
    strat = _call(factory, agents=agents, informative=informative, weights=weights)
    if not isinstance(strat, Strategy):
        raise TypeError(
            f"a strategy factory must return a strategy (name and start), got "
            f"{type(strat).__name__}"
        )
    return _with_physical(strat, physical)


def _with_physical(strat, physical):
    if physical is None:
        return strat
    if not capabilities(strat).physical:
        raise ValueError(
            f"physical applies to strategies that take a physical graph "
            f"(capabilities.physical), not to {strat.name!r}"
        )
    return strat.with_physical(physical)


def _call(factory, *, agents, informative, weights):
    context = {"agents": agents, "informative": informative, "weights": weights}
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin: no keywords
        return factory()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return factory(**context)
    return factory(**{k: v for k, v in context.items() if k in params})


def resolve_strategy(
    strategy,
    *,
    agents: int,
    informative: int = 0,
    weights: str | None = None,
    physical=None,
):
    """Turn a strategy name, graph or object into a strategy object.

    Parameters
    ----------
    strategy : str, networkx.Graph or Strategy
        A registered name (:func:`strategy_names`: ``"posm"``: star with the
        informative agent at the centre; ``"negm"``: star centred on the first
        non-informative agent, ``(informative + 1) % agents``; ``"cen"``: one
        learner drawing from the pooled training data; ``"cen-stratified"``: one
        learner fed every agent's own batch), a graph (fixed, see
        :class:`FixedGraph`), or any object with a ``name`` and a ``start``
        method (:class:`~baygo_graph.strategies.Strategy`, returned as is).
    agents : int
    informative : int, default 0
    weights : str, optional
        Weight rule for fixed graphs made here (None: their default, "equal", the
        paper's rule; "delta" is the former default; see :class:`FixedGraph`).
    physical : optional
        A physical graph for a strategy that takes one
        (``capabilities.physical``), given through its ``with_physical``.

    Examples
    --------
    >>> resolve_strategy("negm", agents=12).graph.degree(1)
    11
    >>> resolve_strategy("cen", agents=12).name
    'cen'
    >>> resolve_strategy("baygo", agents=4, physical="regular-2").physical
    'regular-2'
    """
    if isinstance(strategy, nx.Graph):
        strat = FixedGraph(strategy, **_weights(weights))
    elif isinstance(strategy, Strategy):
        strat = strategy
    elif not isinstance(strategy, str):
        raise TypeError(
            "strategy must be a name, a networkx graph or a strategy, "
            f"got {type(strategy).__name__}"
        )
    else:
        factory = strategy_factory(strategy)
        return build_strategy(
            factory, agents=agents, informative=informative, weights=weights, physical=physical
        )
    return _with_physical(strat, physical)


def _weights(weights):
    return {} if weights is None else {"weights": weights}


register("baygo", BayGo)
register("complete", lambda *, agents, weights=None: complete(agents, **_weights(weights)))
register(
    "posm",
    lambda *, agents, informative, weights=None: star(
        agents, center=informative, name="posm", **_weights(weights)
    ),
    aliases=("star-posm",),
)
register(
    "negm",
    lambda *, agents, informative, weights=None: star(
        agents, center=(informative + 1) % agents, name="negm", **_weights(weights)
    ),
    aliases=("star-negm",),
)
register("nocol", lambda *, agents: nocol(agents))
register("cen", Centralised, aliases=("centralised",))
register("cen-stratified", CentralisedStratified)

#: The built-in names (registered plug-ins are in :func:`strategy_names`).
STRATEGY_NAMES = strategy_names()
