"""Strategy names and the Strategy protocol: a user-defined strategy plugs into the loop."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from baygo_graph.models import LinearRegression
from baygo_graph.series import ChoiceSeries
from baygo_graph.strategies import (
    BayGo,
    Centralised,
    CentralisedStratified,
    Plan,
    Strategy,
    resolve_strategy,
)


def test_resolve_strategy_names():
    assert isinstance(resolve_strategy("baygo", agents=4), BayGo)
    assert isinstance(resolve_strategy("Cen", agents=4), Centralised)
    assert resolve_strategy("posm", agents=4, informative=2).graph.degree(2) == 3
    assert resolve_strategy("star-negm", agents=4, informative=3).graph.degree(0) == 3
    assert resolve_strategy(nx.cycle_graph(4), agents=4).name == "graph"
    with pytest.raises(TypeError, match="strategy must be"):
        resolve_strategy(3, agents=4)


def test_cen_names():
    assert isinstance(resolve_strategy("cen-stratified", agents=4), CentralisedStratified)
    assert isinstance(resolve_strategy("centralised", agents=4), Centralised)
    with pytest.raises(ValueError, match="strategy must be one of"):
        resolve_strategy("ring", agents=4)


class RoundRobin:
    """A user strategy: at step t, agent i listens to agent (i + 1 + t) % M with weight 1/2."""

    name = "round-robin"

    def start(self, *, agents, steps, delta, dtype, rng):
        return _RoundRobinPlan(agents, steps)


class _RoundRobinPlan(Plan):
    def __init__(self, agents, steps):
        super().__init__(agents)
        self.choices = np.empty((steps, agents), dtype=np.int32)

    def pool(self, t, model, state, rng):
        m = self.learners
        self.choices[t] = (np.arange(m) + 1 + t % (m - 1)) % m
        model.pool_choices(state, self.choices[t], 0.5)
        return True

    def series(self):
        return ChoiceSeries.from_choices(self.choices, delta=0.5)


def test_a_user_strategy_plugs_into_the_loop():
    import baygo_graph as bg

    assert isinstance(RoundRobin(), Strategy)
    data = bg.synthetic_bodyfat()
    run = bg.simulate(
        RoundRobin(), agents=5, steps=6, model=LinearRegression(grid=11), rng=0, data=data
    )
    assert run.strategy == "round-robin"
    expected = (np.arange(5)[None, :] + 1 + np.arange(6)[:, None] % 4) % 5
    np.testing.assert_array_equal(run.choices, expected)
    w = run.weights(2).toarray()
    assert np.allclose(w.sum(axis=1), 1) and np.allclose(np.diag(w), 0.5)
    from baygo_graph.analysis import smallest_b

    assert smallest_b(run, windows="sliding").B is not None


@pytest.mark.parametrize("bad", ["x,y", "x\ny", "x\x00", "</script>", "..", "a/b", "x_y", "-x",
                                 "x-", "NA", "a b", "", "Baygo", 1])  # fmt: skip
def test_register_refuses_a_name_no_command_could_select(bad):
    """register took 'x,y' (no --strategies can select it: commas split), 'x\\ny' (a
    compare header split in two), 'x\\x00' (listed as another 'x') (hostile round 13, R4)."""
    from baygo_graph.models import register as register_model
    from baygo_graph.strategies import nocol, register

    with pytest.raises(ValueError, match="lower-case letters and digits"):
        register(bad, lambda *, agents: nocol(agents))
    with pytest.raises(ValueError, match="lower-case letters and digits"):
        register_model(bad, lambda **o: None)
    with pytest.raises(ValueError, match="alias must be"):
        register("fine-name", lambda *, agents: nocol(agents), aliases=[bad], replace=True)
