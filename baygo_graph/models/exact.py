"""The exact conjugate-Gaussian BayGo model: no grid, closed forms, M up to millions.

Prior ``N(0, diag(prior_var))`` and the likelihood ``y = a + b x + N(0, sigma^2)``
are Gaussian, so every agent's posterior stays Gaussian and each step of the loop
has a closed form (docs/design.md, "An exact reference for the grid"):

* local update: ``P += X^T X / sigma^2`` and ``P m += X^T y / sigma^2``;
* geometric pooling with weights ``w_ij``: precision ``sum_j w_ij P_j`` and
  mean ``(sum_j w_ij P_j)^-1 sum_j w_ij P_j m_j``;
* ``KL(N_i || N_j)`` in closed form for BayGo's choice of neighbour.

Both the update and the pooling are linear in the natural parameters
``(P, h = P m)``, so :class:`ExactState` stores those: one (5, M) float64 array
``[P_aa, P_ab, P_bb, h_a, h_b]`` (structure of arrays: each row contiguous).
No per-agent object and no Python loop over agents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._text import counted
from .._validate import check_scale
from .linear import mse_function
from .segment import segment_argmax

__all__ = [
    "ExactState",
    "exact_choices",
    "exact_metrics",
    "exact_pool",
    "exact_prior",
    "exact_update",
    "gaussian_kl_edges",
]

# Edges whose KL is computed at once (bounded temporaries that stay in cache).
_EDGE_CHUNK = 1 << 16
# Differential entropy of a 2-D Gaussian is LOG_2PIE - 0.5 log det P.
_LOG_2PIE = float(np.log(2 * np.pi * np.e))


@dataclass(frozen=True, eq=False)
class ExactState:
    """Gaussian posteriors of M agents in natural parameters.

    Attributes
    ----------
    natural : numpy.ndarray, shape (5, M), float64
        ``[P_aa, P_ab, P_bb, h_a, h_b]`` per agent: the precision entries and the
        precision-weighted mean ``h = P m``.

    Examples
    --------
    >>> s = exact_prior(3, prior_var=(0.5, 2.0))
    >>> s.agents, s.mean.tolist()[0], s.precision[:, 0].tolist()
    (3, [0.0, 0.0], [2.0, 0.0, 0.5])
    """

    natural: np.ndarray = field(repr=False)

    def __post_init__(self):
        nat = self.natural
        if not isinstance(nat, np.ndarray) or nat.ndim != 2 or nat.shape[0] != 5:
            raise ValueError(
                f"natural must be a (5, M) array, got shape {getattr(nat, 'shape', None)}"
            )

    @property
    def agents(self) -> int:
        """Number of agents M."""
        return self.natural.shape[1]

    @property
    def precision(self) -> np.ndarray:
        """``[P_aa, P_ab, P_bb]``, shape (3, M) (a view)."""
        return self.natural[:3]

    @property
    def shift(self) -> np.ndarray:
        """``h = P m``, shape (2, M) (a view)."""
        return self.natural[3:]

    @property
    def logdet(self) -> np.ndarray:
        """``log det P`` per agent, shape (M,)."""
        paa, pab, pbb = self.natural[:3]
        return np.log(paa * pbb - pab * pab)

    @property
    def mean(self) -> np.ndarray:
        """Posterior means ``P^-1 h``, shape (M, 2)."""
        paa, pab, pbb, ha, hb = self.natural
        det = paa * pbb - pab * pab
        out = np.empty((self.agents, 2))
        np.divide(pbb * ha - pab * hb, det, out=out[:, 0])
        np.divide(paa * hb - pab * ha, det, out=out[:, 1])
        return out

    @property
    def covariance(self) -> np.ndarray:
        """Posterior covariances ``P^-1``, shape (M, 2, 2)."""
        paa, pab, pbb = self.natural[:3]
        det = paa * pbb - pab * pab
        cov = np.empty((self.agents, 2, 2))
        cov[:, 0, 0] = pbb / det
        cov[:, 1, 1] = paa / det
        cov[:, 0, 1] = cov[:, 1, 0] = -pab / det
        return cov


def exact_prior(agents: int, prior_var=(0.5, 0.5)) -> ExactState:
    """Every agent at the prior ``N(0, diag(prior_var))``.

    Examples
    --------
    >>> exact_prior(2).natural[:, 0].tolist()
    [2.0, 0.0, 2.0, 0.0, 0.0]
    """
    if isinstance(agents, bool) or not isinstance(agents, int | np.integer) or agents < 1:
        raise ValueError(f"agents must be an integer >= 1, got {agents!r}")
    v = check_scale("prior_var", prior_var, size=2)  # finite, > 0 and in range: 1 / v stays finite
    nat = np.zeros((5, agents))
    nat[0] = 1.0 / v[0]
    nat[2] = 1.0 / v[1]
    return ExactState(nat)


def exact_update(state: ExactState, stats: np.ndarray, sigma: float) -> ExactState:
    """Conjugate update of every agent with its batch.

    Parameters
    ----------
    state : ExactState
    stats : numpy.ndarray, shape (M, 6)
        ``(sum y^2, sum y, sum x y, n, sum x, sum x^2)`` per agent, as made by
        :func:`baygo_graph.models.batch_statistics`.
    sigma : float
        Noise standard deviation (> 0).

    Returns
    -------
    ExactState
        ``P + X^T X / sigma^2`` and ``h + X^T y / sigma^2``.

    Examples
    --------
    >>> s = exact_update(exact_prior(1), np.array([[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]), 1.0)
    >>> s.natural[:, 0].tolist()  # one sample x = y = 1
    [3.0, 1.0, 3.0, 1.0, 1.0]
    """
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")
    check_scale("sigma", float(sigma))  # and in range: 1 / sigma**2 stays finite
    stats = np.asarray(stats, dtype=float)
    if stats.shape != (state.agents, 6):
        raise ValueError(f"stats must have shape ({state.agents}, 6), got {stats.shape}")
    scaled = stats.T / sigma**2  # (6, M)
    nat = state.natural.copy()
    nat[:3] += scaled[3:6]  # n, sum x, sum x^2
    nat[3:] += scaled[1:3]  # sum y, sum x y
    return ExactState(nat)


def _kl_tables(state: ExactState) -> tuple[np.ndarray, np.ndarray]:
    """Per agent: ``[P_aa, 2 P_ab, P_bb, m_a, m_b, log det P]`` and ``[S_aa, S_ab, S_bb]``."""
    paa, pab, pbb = state.natural[:3]
    det = paa * pbb - pab * pab
    m = state.mean
    table = np.column_stack([paa, 2.0 * pab, pbb, m, np.log(det)])  # (M, 6): gathered rows
    cov = np.stack([pbb / det, -pab / det, paa / det])  # (3, M)
    return table, cov


def _kl_from_tables(table, cov, src, dst) -> np.ndarray:
    """KL for one chunk of pairs (``src`` listens, ``dst`` candidate)."""
    tj = np.take(table, dst, axis=0)  # (n, 6): one row gather per pair (take: no
    ti = np.take(table, src, axis=0)  # fancy-indexing overhead)
    da = tj[:, 3] - ti[:, 3]
    db = tj[:, 4] - ti[:, 4]
    # tr(P_j S_i) + d^T P_j d, grouped per precision entry
    val = tj[:, 0] * (np.take(cov[0], src) + da * da)
    val += tj[:, 1] * (np.take(cov[1], src) + da * db)
    val += tj[:, 2] * (np.take(cov[2], src) + db * db)
    val += ti[:, 5] - tj[:, 5] - 2.0
    val *= 0.5
    return val


def gaussian_kl_edges(state: ExactState, src, dst) -> np.ndarray:
    """``KL(N_src || N_dst)`` for arrays of agent pairs, in closed form.

    ``0.5 [tr(P_d S_s) + (m_d - m_s)^T P_d (m_d - m_s) - 2 + log det P_s - log det P_d]``
    with ``S = P^-1``, computed in cache-sized chunks of pairs.

    Examples
    --------
    >>> s = exact_update(exact_prior(2), np.array([[0.0] * 6, [1.0] * 6]), 1.0)
    >>> gaussian_kl_edges(s, [0, 1, 0], [1, 0, 0]).round(6).tolist()
    [0.403426, 0.221574, 0.0]
    """
    src = np.asarray(src, dtype=np.intp)
    dst = np.asarray(dst, dtype=np.intp)
    if src.shape != dst.shape or src.ndim != 1:
        raise ValueError(f"src and dst must be 1-D of one length, got {src.shape}, {dst.shape}")
    m = state.agents
    for name, idx in (("src", src), ("dst", dst)):
        if idx.size and (idx.min() < 0 or idx.max() >= m):
            raise ValueError(
                f"{name} must hold agent ids in [0, {m}), got {idx.min()}..{idx.max()}"
            )
    table, cov = _kl_tables(state)
    out = np.empty(len(src))
    for lo in range(0, len(src), _EDGE_CHUNK):
        hi = lo + _EDGE_CHUNK
        out[lo:hi] = _kl_from_tables(table, cov, src[lo:hi], dst[lo:hi])
    return out


def _listen_kl(state: ExactState, listen: sp.csr_array):
    """KL of every stored edge ``(i, j)`` of ``listen``, in CSR order, and the row of each."""
    indptr, cols = listen.indptr, listen.indices
    rows = np.repeat(np.arange(state.agents, dtype=np.intp), np.diff(indptr))
    table, cov = _kl_tables(state)
    kl = np.empty(len(cols))
    for lo in range(0, len(cols), _EDGE_CHUNK):
        hi = lo + _EDGE_CHUNK
        kl[lo:hi] = _kl_from_tables(table, cov, rows[lo:hi], cols[lo:hi])
    return kl, rows


def exact_choices(state: ExactState, listen, rng) -> np.ndarray:
    """BayGo's graph step: ``argmax_{j in S_i} KL(N_i || N_j)`` for every agent.

    Parameters
    ----------
    state : ExactState
        The local (updated, not yet pooled) posteriors.
    listen : scipy.sparse.csr_array of bool, shape (M, M), or None
        ``listen[i, j]``: ``i`` may listen to ``j`` (diagonal ignored). None: the
        complete graph, made here (M^2 pairs: only for M <= 20,000).
    rng : numpy.random.Generator
        Breaks ties (relative 1e-12, as :func:`baygo_graph.strategies.kl_choices`).

    Returns
    -------
    numpy.ndarray of int64, shape (M,)
        Chosen neighbour, -1 for an agent with no neighbour.

    Examples
    --------
    >>> s = exact_update(exact_prior(3), np.array([[0.0] * 6, [1.0] * 6, [2.0] * 6]), 1.0)
    >>> exact_choices(s, None, np.random.default_rng(0)).tolist()
    [2, 0, 0]
    """
    m = state.agents
    if listen is None:
        if m > 20_000:
            raise ValueError(
                f"listen=None (complete graph) holds M^2 pairs: use a sparse physical graph "
                f"for {counted(m, 'agent')}"
            )
        full = np.ones((m, m), dtype=bool)
        np.fill_diagonal(full, False)
        listen = sp.csr_array(full)
    if not sp.issparse(listen) or listen.shape != (m, m):
        raise ValueError(
            f"listen must be a sparse ({m}, {m}) matrix or None, got "
            f"{type(listen).__name__} of shape {getattr(listen, 'shape', None)}"
        )
    listen = sp.csr_array(listen, dtype=bool)
    if listen.diagonal().any():
        listen = listen.copy()
        listen.setdiag(False)
        listen.eliminate_zeros()
    listen.sort_indices()
    kl, rows = _listen_kl(state, listen)
    return segment_argmax(kl, listen.indptr, rows, listen.indices, rng)


def exact_pool(state: ExactState, *, choices=None, weights=None, delta: float = 0.5):
    """Geometric pooling of Gaussians: precision ``sum_j w_ij P_j``, shift ``sum_j w_ij h_j``.

    Either ``choices`` (BayGo: ``w_ii = delta``, ``w_i,choice = 1 - delta``;
    ``w_ii = 1`` where the choice is -1) or a (sparse) row-stochastic ``weights``
    matrix W. The pooled mean is ``(sum_j w_ij P_j)^-1 sum_j w_ij P_j m_j``.

    Examples
    --------
    >>> s = exact_update(exact_prior(2), np.array([[0.0] * 6, [2.0] * 6]), 1.0)
    >>> p = exact_pool(s, choices=np.array([1, -1]), delta=0.5)
    >>> p.natural[:, 0].tolist(), p.mean[1].round(4).tolist()
    ([3.0, 1.0, 3.0, 1.0, 1.0], [0.3333, 0.3333])
    """
    if (choices is None) == (weights is None):
        raise ValueError("give exactly one of choices and weights")
    nat = state.natural
    m = state.agents
    if choices is not None:
        if not 0.0 <= delta <= 1.0:
            raise ValueError(f"delta must be in [0, 1], got {delta!r}")
        choices = np.asarray(choices)
        if choices.shape != (m,) or (m and (choices.min() < -1 or choices.max() >= m)):
            raise ValueError(
                f"choices must be {m} agent ids in [-1, {m}), got shape {choices.shape}"
            )
        src = np.where(choices >= 0, choices, np.arange(m))
        out = np.take(nat, src, axis=1)
        out *= 1.0 - delta
        out += delta * nat
        return ExactState(out)
    if weights.shape != (m, m):
        raise ValueError(f"weights must be ({m}, {m}), got shape {weights.shape}")
    pooled = weights @ nat.T  # (M, 5)
    return ExactState(np.ascontiguousarray(np.asarray(pooled).T))


def exact_metrics(state: ExactState, *, x_test, y_test):
    """Per agent: test MSE of the posterior-mean prediction, entropy, posterior mean.

    The entropy is the Gaussian's differential entropy in nats,
    ``log(2 pi e) - 0.5 log det P``; a grid run's (discrete) entropy is close to
    it minus ``log`` of the grid cell's area.

    Returns
    -------
    mse, entropy : numpy.ndarray, shape (M,)
    mean : numpy.ndarray, shape (M, 2)

    Examples
    --------
    >>> mse, ent, mean = exact_metrics(exact_prior(1, (1.0, 1.0)), x_test=[0.0, 1.0],
    ...                                y_test=[1.0, 1.0])
    >>> float(mse[0]), round(float(ent[0]), 4), mean.tolist()
    (1.0, 2.8379, [[0.0, 0.0]])
    """
    mean = state.mean
    mse = mse_function(x_test, y_test)(mean)
    return mse, _LOG_2PIE - 0.5 * state.logdet, mean
