"""Monitors: per-step measurements of the loop's internals, kept in ``run.records``.

A run keeps its metrics but not its posteriors (docs/design.md, Storage). A quantity
that needs the local posteriors and the weights of every step, such as the paper's
convergence bound, is measured while the loop runs, by a monitor passed to
:func:`baygo_graph.simulate` (``monitors=[...]``). A monitor has three methods:

* ``start(*, agents, steps, grid, split, model)`` - once, before the first step;
* ``observe(t, *, local, posterior, weights)`` - after every step, with the
  normalised local log-posteriors ``local`` (after the Bayesian update, before
  pooling), the pooled ones ``posterior`` (both (learners, K)) and the step's
  row-stochastic W (``scipy.sparse.csr_array``; None for a centralised learner);
* ``finish() -> (records, config)`` - arrays to keep in ``run.records`` (saved
  with the run) and JSON-able entries for ``run.config["monitors"]``.

A monitor may say when it stops: an attribute ``until`` (an int; None or absent:
never). Once every monitor of a run has stopped, the loop neither shows them the
later steps nor computes what they would have read (the local posteriors and W).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .models.rows import exp_into

__all__ = ["TheoremMonitor", "true_cell"]


def true_cell(grid, split, theta_star=None) -> tuple[int, np.ndarray]:
    """Index of the grid cell nearest to ``theta_star`` and that parameter.

    Parameters
    ----------
    grid : baygo_graph.models.Grid
    split : baygo_graph.data.Split
    theta_star : (float, float), optional
        (intercept, slope) in standardised units; default: the least-squares fit
        of the pooled training data.

    Examples
    --------
    >>> from baygo_graph.data import paper_split, synthetic_bodyfat
    >>> from baygo_graph.models import make_grid
    >>> k, theta = true_cell(make_grid(5), paper_split(synthetic_bodyfat(), rng=0), (0.0, 1.0))
    >>> int(k), theta.tolist()
    (13, [0.0, 1.0])
    """
    if theta_star is None:
        slope, intercept = np.polyfit(*split.pooled(), 1)
        theta_star = (intercept, slope)
    theta_star = np.asarray(theta_star, dtype=float)
    if theta_star.shape != (2,) or not np.all(np.isfinite(theta_star)):
        raise ValueError(f"theta_star must be two finite numbers, got {theta_star!r}")
    k = int(np.argmin(((grid.theta - theta_star) ** 2).sum(axis=1)))
    return k, theta_star


class TheoremMonitor:
    """Measures both sides of the paper's convergence bound at every step.

    The paper states ``|mu_{i,t}(theta*) - 1| <= (K - 1) exp(-(K(Theta) - eps))``
    with ``K(Theta) = min_{theta_k != theta*} sum_{j != i} w_ij^(t)
    KL(mu~_{i,t}(theta_k) || mu~_{j,t}(theta_k))``. Our reading, as literal as
    the formula allows:

    * ``mu_{i,t}`` is agent ``i``'s pooled posterior after step ``t``, ``mu~`` the
      local posteriors of step ``t`` (after the Bayesian update, before pooling);
    * ``theta*`` is the grid cell nearest to the true parameter (:func:`true_cell`),
      ``K`` the number of grid cells;
    * ``KL(mu~_i(theta_k) || mu~_j(theta_k))`` is the ``theta_k`` summand of the KL
      divergence, ``mu~_i(k) (log mu~_i(k) - log mu~_j(k))`` (a KL "at" one point);
    * ``w_ij^(t)`` are the weights of step ``t``, ``eps = 0``.

    It records ``theorem_lhs`` = ``1 - mu_{i,t}(theta*)`` and ``theorem_log_rhs``
    = ``log(K - 1) - K_t(Theta)`` (the log of the right side, which overflows when
    ``K(Theta)`` is very negative), both (T, M). As written the bound has no ``t``
    in its exponent, while the text says the error falls exponentially with each
    iteration; ``theorem_log_rhs_cumulative`` = ``log(K - 1) - sum_{s <= t}
    K_s(Theta)`` records that second reading. A third reading takes the whole KL
    divergence instead of its summand at ``theta_k`` (then the minimum over
    ``theta_k`` drops out) with the exponent summed over the steps:
    ``theorem_log_rhs_kl`` = ``log(K - 1) - sum_{s <= t} sum_{j != i} w_ij^(s)
    KL(mu~_{i,s} || mu~_{j,s})``.

    Parameters
    ----------
    theta_star : (float, float), optional
        True (intercept, slope) in standardised units; default: the least-squares
        fit of the pooled training data.
    until : int, optional
        Measure steps ``0 .. until - 1`` only (the records are NaN after): a long run
        whose bound is checked on its first steps (default: every step).

    Examples
    --------
    >>> import baygo_graph as bg
    >>> run = bg.simulate("baygo", agents=4, steps=5, model=bg.models.LinearRegression(grid=11),
    ...                   rng=0, data=bg.synthetic_bodyfat(), monitors=[TheoremMonitor()])
    >>> run.records["theorem_lhs"].shape, run.config["monitors"]["theorem"]["reading"][:7]
    ((5, 4), 'literal')
    """

    def __init__(self, theta_star=None, *, until: int | None = None):
        if until is not None and (isinstance(until, bool) or not isinstance(until, int)
                                  or until < 1):  # fmt: skip
            raise ValueError(f"until must be None or an integer >= 1, got {until!r}")
        self.theta_star = theta_star
        self.until = until

    def start(self, *, agents, steps, grid, split, model=None) -> None:
        """Find the true cell and allocate the (T, M) records."""
        if grid is None:
            raise ValueError(
                f"TheoremMonitor needs a grid model; the {getattr(model, 'name', '?')!r} "
                "model has no grid"
            )
        if self.theta_star is None and getattr(model, "name", "linear") != "linear":
            raise ValueError(
                f"TheoremMonitor needs theta_star for the {model.name!r} model (its default "
                "is the least-squares line of the linear model)"
            )
        self.cell, self.theta = true_cell(grid, split, self.theta_star)
        self.k = grid.size
        self.lhs = np.full((steps, agents), np.nan)
        self.kappa = np.full((steps, agents), np.nan)
        self.kl = np.full((steps, agents), np.nan)

    def observe(self, t, *, local, posterior, weights) -> None:
        """Both sides of the bound at step ``t``, for every agent at once."""
        if self.until is not None and t >= self.until:
            return
        self.lhs[t] = -np.expm1(posterior[:, self.cell])
        if weights is None:  # a centralised learner: no graph, no bound
            return
        # sum_j w_ij (log p_i(k) - log p_j(k)) = r_i log p_i(k) - (W_off log p)_i(k)
        r, product = _off_diagonal_terms(weights, local)
        diff = np.multiply(r[:, None], local)
        diff -= product
        terms = exp_into(local, np.empty_like(local))  # np.exp, bit for bit, faster
        terms *= diff
        self.kl[t] = terms.sum(axis=1)
        terms[:, self.cell] = np.inf
        self.kappa[t] = terms.min(axis=1)

    def finish(self) -> tuple[dict, dict]:
        """The records and the reading."""
        config = {
            "theta_star": self.theta.tolist(),
            "cell": self.cell,
            "grid_points": self.k,
            "reading": "literal: pointwise KL summand at theta_k, weights of step t, "
            "local posteriors of step t, eps = 0",
        }
        if self.until is not None:
            config["until"] = self.until
        log_k = np.log(self.k - 1)
        records = {
            "theorem_lhs": self.lhs,
            "theorem_log_rhs": log_k - self.kappa,
            "theorem_log_rhs_cumulative": log_k - np.cumsum(self.kappa, axis=0),
            "theorem_log_rhs_kl": log_k - np.cumsum(self.kl, axis=0),
        }
        return records, {"theorem": config}


def _off_diagonal_terms(weights, x) -> tuple[np.ndarray, np.ndarray]:
    """Row sums ``r`` of ``W_off = W - diag(W)`` and the product ``W_off @ x``, the
    numbers scipy gives for :func:`_off_diagonal` (``.sum(axis=1)``, ``@``).

    When every row has exactly one off-diagonal entry (BayGo: one chosen neighbour
    per agent), the product is one gather and one scale, ``0 + w_ij x_j`` as
    scipy's sparse product sums it, with no sparse matrix built; otherwise
    scipy's product on :func:`_off_diagonal`.

    Examples
    --------
    >>> w = sp.csr_array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.25, 0.0, 0.75]])
    >>> r, p = _off_diagonal_terms(w, np.eye(3))
    >>> r.tolist(), p.tolist()
    ([0.5, 0.0, 0.25], [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0], [0.25, 0.0, 0.0]])
    >>> r, p = _off_diagonal_terms(sp.csr_array([[0.5, 0.5], [0.3, 0.7]]), np.eye(2))
    >>> r.tolist(), p.tolist()
    ([0.5, 0.3], [[0.0, 0.5], [0.3, 0.0]])
    """
    w, rows, keep = _canonical_parts(weights)
    m = w.shape[0]
    if np.count_nonzero(keep) == m and np.array_equal(rows[keep], np.arange(m)):
        data = w.data[keep]
        product = x[w.indices[keep]]
        product *= data.reshape((m,) + (1,) * (x.ndim - 1))
        product += 0.0  # scipy's sum starts at 0: -0.0 becomes 0.0
        return data, product
    off = _off_diagonal(weights)
    return np.asarray(off.sum(axis=1), dtype=float), off @ x


def _canonical_parts(weights):
    """``W`` in scipy's canonical CSR (float, sorted, no repeats), the row of each
    stored entry and the mask of the off-diagonal non-zero ones."""
    if type(weights) is sp.csr_array and weights.dtype == np.float64:
        w = weights
    else:
        w = sp.csr_array(weights, dtype=float)
    if not w.has_canonical_format:
        w = w.copy()
        w.sum_duplicates()  # sorted, no repeats: scipy's canonical form
    rows = np.repeat(np.arange(w.shape[0]), np.diff(w.indptr))
    keep = (w.indices != rows) & (w.data != 0)  # a zero result is not stored
    return w, rows, keep


def _off_diagonal(weights) -> sp.csr_array:
    """``W - diag(W)`` without its zeros, as scipy's subtraction makes it (canonical CSR:
    the same entries in the same order), from the arrays of ``W`` in one pass: the
    subtraction built a diagonal matrix and merged two matrices every step.

    Examples
    --------
    >>> w = sp.csr_array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.25, 0.0, 0.75]])
    >>> _off_diagonal(w).toarray().tolist()
    [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0], [0.25, 0.0, 0.0]]
    """
    w, rows, keep = _canonical_parts(weights)
    m = w.shape[0]
    indptr = np.zeros(m + 1, dtype=w.indptr.dtype)
    np.cumsum(np.bincount(rows[keep], minlength=m), out=indptr[1:])
    return sp.csr_array((w.data[keep], w.indices[keep], indptr), shape=w.shape)
