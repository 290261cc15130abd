"""The exact conjugate-Gaussian model: the paper's regression with no grid.

Prior and likelihood are Gaussian, so every posterior is a Gaussian in closed
form (docs/design.md, "An exact reference for the grid"): the local update is the
conjugate update, geometric pooling with weights ``w_ij`` gives precision
``sum_j w_ij P_j`` and precision-weighted mean, and BayGo's divergence is the
closed-form KL between Gaussians. The state is five numbers per agent
(:class:`~baygo_graph.models.exact.ExactState`), so a run reaches a million agents
on a sparse physical graph. The data split is :func:`baygo_graph.data.splits.shared_split`
(the paper's split where it exists, in O(M + N) memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.splits import shared_split
from .exact import exact_choices, exact_metrics, exact_pool, exact_prior, exact_update
from .grid import Measures
from .linear import RegressionSetup, batch_statistics

__all__ = ["ExactGaussian"]


class _Box:
    """One run's state: an :class:`~baygo_graph.models.exact.ExactState`, the noise, the
    test set."""

    def __init__(self, state, *, sigma, test):
        self.state = state
        self.sigma = sigma
        self.test = test


@dataclass(frozen=True)
class ExactGaussian(RegressionSetup):
    """The paper's linear regression with exact Gaussian posteriors (``"exact"``).

    Parameters
    ----------
    sigma : float, optional
        Likelihood noise; default: residual std of the least-squares fit on the
        training set.
    sigma_scale : float, default 1
        Factor on the likelihood noise.
    prior_var : (float, float), default (0.5, 0.5)
        Variances of the Gaussian prior N(0, diag(prior_var)).
    test_fraction, informative_range, other_range
        The data split, see :func:`baygo_graph.data.splits.shared_split`.

    Notes
    -----
    The entropy recorded is the Gaussian's differential entropy (nats); a grid
    run's discrete entropy is close to it minus the log of the grid cell's area.
    Posteriors are not kept (``keep_posteriors`` and monitors need a grid model).
    On the complete physical graph BayGo's choices cost M^2 pairs: up to 20,000
    agents; use a sparse physical graph (e.g. ``physical="regular-10"``) above.

    Examples
    --------
    >>> import baygo_graph as bg
    >>> from baygo_graph.strategies import BayGo
    >>> run = bg.simulate(BayGo(physical="regular-4"), model="exact", agents=1000, steps=3,
    ...                   rng=0, data=bg.synthetic_bodyfat())
    >>> run.mse.shape, run.config["model"], run.config["grid"]
    ((3, 1000), 'exact', None)
    """

    name = "exact"
    loss_name = "mse"
    #: Bytes per agent pair of a choice step on the complete physical graph (the
    #: budget's pairwise term): the listen matrix (dense bool, then CSR indices and
    #: data), each pair's row id and KL, and the tie masks: 39 B measured.
    pair_bytes = 40

    def split(self, data, *, agents: int, informative: int, rng):
        """The paper's split in O(M + N) memory (:func:`~baygo_graph.data.splits.shared_split`)."""
        return self.split_with(shared_split, data, agents=agents, informative=informative, rng=rng)

    def start(self, split, *, learners: int, dtype) -> _Box:
        """Every learner at the prior (float64 whatever ``dtype``)."""
        if np.dtype(dtype) != np.float64:
            raise ValueError(f"the exact model computes in float64, got dtype={dtype!r}")
        return _Box(
            exact_prior(learners, self.prior_var),
            sigma=self.noise(split),
            test=(split.x_test, split.y_test),
        )

    def statistics(self, x, y) -> np.ndarray:
        """Sufficient statistics of each row's batch (as the linear grid model)."""
        return batch_statistics(x, y)

    def update(self, box: _Box, stats) -> None:
        """The conjugate update."""
        box.state = exact_update(box.state, stats, box.sigma)

    def most_divergent(self, box: _Box, *, listen, rng) -> np.ndarray:
        """Each agent's allowed neighbour with the largest closed-form KL."""
        return exact_choices(box.state, listen, rng)

    def pool_choices(self, box: _Box, choices, delta: float) -> None:
        """Gaussian geometric pooling with one chosen neighbour per agent."""
        box.state = exact_pool(box.state, choices=choices, delta=delta)

    def pool_weights(self, box: _Box, w) -> None:
        """Gaussian geometric pooling with a weight matrix."""
        box.state = exact_pool(box.state, weights=w)

    def measure(self, box: _Box, t: int, agents: int) -> Measures:
        """Test MSE, differential entropy and mean of every agent's posterior."""
        mse, entropy, mean = exact_metrics(box.state, x_test=box.test[0], y_test=box.test[1])
        if len(mse) != agents:  # one learner stands for every agent
            mse, entropy = (np.broadcast_to(a[:1], (agents,)) for a in (mse, entropy))
            mean = np.broadcast_to(mean[:1], (agents, 2))
        return Measures(loss=mse, entropy=entropy, mean=mean)

    def posterior(self, box):
        """Not available: the exact model keeps no grid posteriors."""
        raise ValueError(
            "the exact model keeps no grid posteriors: keep_posteriors and monitors "
            "need a grid model"
        )

    posterior_local = posterior

    def finish(self, box) -> None:
        """Nothing to report."""

    def state_values(self) -> int:
        """Numbers per learner in the state: five (precision entries and ``P m``)."""
        return 5

    def config(self, box) -> dict:
        """The model's parameters for the run's config."""
        return {"grid": None, "bounds": None} | self.setup_config(box.sigma)
