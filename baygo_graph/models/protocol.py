"""The Model protocol: what the learning loop asks of a model.

A model is a small frozen object (its configuration: grid, bounds, noise, prior,
split rule, ``dtype``; hashable when its options are) and never changes during a
run: everything a run computes (the grid, the likelihood noise fixed from the
training split, the test loss, the posteriors) lives in the state that
:meth:`Model.start` creates and the loop hands back to every other method.

Grid models get all of this from :class:`~baygo_graph.models.GridModel` by
writing six short methods (grid, prior, split, statistics, likelihood, loss);
see the extending page of the docs (``docs/extending.md``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["MODEL_METHODS", "Model"]

#: What a model must have (checked by :func:`~baygo_graph.models.resolve_model`).
MODEL_METHODS = (
    "name",
    "loss_name",
    "resolve_data",
    "split",
    "start",
    "statistics",
    "update",
    "most_divergent",
    "pool_choices",
    "pool_weights",
    "measure",
    "posterior",
    "posterior_local",
    "finish",
    "config",
)


@runtime_checkable
class Model(Protocol):
    """What :func:`baygo_graph.simulate` needs of a model.

    Attributes
    ----------
    name : str
        Its name in ``run.config["model"]``.
    loss_name : str
        What its per-step loss is (``"mse"``, ``"log_loss"``, ...): ``run.loss_name``,
        and the label of every banner, table and figure of the loss.
    """

    name: str
    loss_name: str

    def resolve_data(self, data):
        """The model's data set (a :class:`~baygo_graph.data.Dataset`) from what the
        caller gave; None: the model's default data."""
        ...

    def split(self, data, *, agents: int, informative: int, rng):
        """Share the samples among the agents (a :class:`~baygo_graph.data.Split`)."""
        ...

    def start(self, split, *, learners: int, dtype):
        """A fresh per-run state: every learner at the prior."""
        ...

    def statistics(self, x, y):
        """Sufficient statistics of each row's batch, shape (rows, S)."""
        ...

    def update(self, state, stats) -> None:
        """The local Bayesian update of every learner, in ``state``."""
        ...

    def most_divergent(self, state, *, listen, rng):
        """Each agent's most divergent allowed neighbour (BayGo's choice), shape (M,)."""
        ...

    def pool_choices(self, state, choices, delta: float) -> None:
        """Geometric pooling with one chosen neighbour per agent, in ``state``."""
        ...

    def pool_weights(self, state, w) -> None:
        """Geometric pooling with a row-stochastic weight matrix, in ``state``."""
        ...

    def measure(self, state, t: int, agents: int):
        """Step ``t``'s :class:`~baygo_graph.models.Measures` of every agent."""
        ...

    def posterior(self, state):
        """Normalised log-posteriors (learners, K) (grid models)."""
        ...

    def posterior_local(self, state):
        """Normalised log-posteriors before pooling (grid models)."""
        ...

    def finish(self, state) -> None:
        """End of the run (e.g. warn that the grid was too coarse)."""
        ...

    def config(self, state) -> dict:
        """The run's model entries of ``run.config`` (JSON-serialisable)."""
        ...
