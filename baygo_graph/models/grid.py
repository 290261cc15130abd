"""Grid models: log-domain posteriors over a regular grid of K parameter values.

A grid model keeps, for every learner, an unnormalised log-posterior ``logp`` (each
row shifted to maximum 0) and ``expo = exp(logp)``; the normaliser is the row sum
of ``expo``. Everything is computed for all learners and grid points at once. A
concrete model (:mod:`.linear`, :mod:`.mean`, :mod:`.logistic`) supplies the
prior, the batch statistics and the log-likelihood, the data split and the test
loss; :class:`GridModel` does the rest: the local update, BayGo's KL choices,
geometric pooling and the per-step metrics.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .. import _text
from .._validate import check_real, check_scale
from ..data import resolve_data
from ..exceptions import GridResolutionWarning
from . import rows as _rows
from .kl import kl_choices
from .rows import for_rows

__all__ = [
    "check_grid",
    "check_options",
    "Grid",
    "GridModel",
    "GridState",
    "Measures",
    "log_normalize",
    "make_grid",
    "pool",
    "pool_into",
]

# A posterior with more mass than this on one grid cell has collapsed onto it.
_COLLAPSE = 0.99
#: Log-weights (each row shifted to maximum 0) below this are flushed to exact 0
#: before ``exp``: each flushed probability is < exp(-708) = 3.3e-308 (float64;
#: float32: exp(-87) = 1.6e-38), the total variation to the unflushed posterior
#: < K * exp(-708) (< 1e-300 for K < 3e7). Both thresholds give normal numbers,
#: so ``exp`` never takes numpy's slow subnormal path. See docs/scaling.md.
FLUSH_BELOW = {np.dtype(np.float64): -708.0, np.dtype(np.float32): -87.0}


def _safe_exp(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``exp(x)`` with values below :data:`FLUSH_BELOW` set to exact 0 (``x`` row-max shifted).

    Values at or above the threshold (and NaN) get numpy's ``exp`` bit for bit;
    the others are not computed at all (a masked ``exp``), so late, concentrated
    posteriors cost no more than early ones. ``out`` must not be ``x``.
    """
    out = np.empty_like(x) if out is None else out
    low = FLUSH_BELOW.get(x.dtype)
    if low is None or x.size == 0 or x.min() >= low:  # nothing to flush (NaN: min is NaN)
        return np.exp(x, out=out)
    keep = np.less(x, low)
    np.logical_not(keep, out=keep)  # True at or above the threshold, and for NaN
    out.fill(0.0)
    return np.exp(x, out=out, where=keep)


@dataclass(frozen=True, eq=False)
class Grid:
    """A regular grid over a model's parameters (e.g. intercept and slope).

    Attributes
    ----------
    axes : tuple of numpy.ndarray
        The grid values of each parameter.
    theta : numpy.ndarray, shape (K, d)
        Every grid point, the first parameter varying slowest.
    """

    axes: tuple = field(repr=False)
    theta: np.ndarray = field(repr=False)

    @property
    def shape(self) -> tuple:
        """Points per axis."""
        return tuple(len(a) for a in self.axes)

    @property
    def size(self) -> int:
        """Number of grid points K."""
        return len(self.theta)

    @property
    def spacing(self) -> tuple:
        """Distance between neighbouring points on each axis."""
        return tuple(float(a[1] - a[0]) for a in self.axes)

    @property
    def bounds(self) -> tuple:
        """(low, high) of each axis."""
        return tuple((float(a[0]), float(a[-1])) for a in self.axes)


def check_grid(points=61, *, bounds=(-2.0, 2.0), dims: int = 2, name: str = "points") -> tuple:
    """``(points per axis, (dims, 2) bounds)`` of a grid, checked before it is made.

    A model checks its ``grid`` and ``bounds`` options with it when it is built, so a
    bad value is refused before any run.

    Examples
    --------
    >>> check_grid(3, bounds=(0, 1))[0]
    (3, 3)
    >>> check_grid(3, bounds="abc", dims=1)
    Traceback (most recent call last):
    ...
    ValueError: bounds must be [lo, hi] with finite lo < hi, got 'abc'
    """
    per_axis = "" if dims == 1 else f", or {dims} of them (one per axis)"
    pts = (points,) * dims if np.ndim(points) == 0 else tuple(points)
    if len(pts) != dims or any(
        isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 2 for p in pts
    ):
        raise ValueError(f"{name} must be an integer >= 2{per_axis}, got {points!r}")
    try:
        bnds = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):  # text, ragged lists
        bnds = np.empty(0)
    if bnds.shape == (2,):
        bnds = np.tile(bnds, (dims, 1))
    ok = bnds.shape == (dims, 2) and np.all(np.isfinite(bnds)) and np.all(bnds[:, 0] < bnds[:, 1])
    if not ok:
        pairs = "" if dims == 1 else f", or {dims} such pairs (one per axis)"
        raise ValueError(f"bounds must be [lo, hi] with finite lo < hi{pairs}, got {bounds!r}")
    return pts, bnds


def check_options(model, *, dims: int | None = None, points=None) -> None:
    """Check a grid model's common options when it is built (before any run): ``grid``
    and ``bounds`` (with ``dims`` axes, ``points`` per axis: default ``model.grid``),
    ``sigma`` (None or a scale), ``test_fraction`` in (0, 1), the split's
    ``informative_range`` and ``other_range`` (None or ``(lo, hi)``, lo < hi) and
    ``assignment`` (None or integers), ``dtype`` ('float64' or 'float32') and the
    ``feature`` and ``label`` column names (text); each option the model has.

    Examples
    --------
    >>> from baygo_graph.models import LinearRegression
    >>> LinearRegression(test_fraction=2)
    Traceback (most recent call last):
    ...
    ValueError: test_fraction must be in (0, 1), got 2.0
    """
    if dims is not None:
        points = model.grid if points is None else points
        check_grid(points, bounds=model.bounds, dims=dims, name="grid")
    if getattr(model, "sigma", None) is not None:
        check_scale("sigma", model.sigma)
    if hasattr(model, "test_fraction"):
        check_real(
            "test_fraction", model.test_fraction, low=0, high=1, low_open=True, high_open=True
        )
    for name in ("feature", "label"):  # column names of the data
        value = getattr(model, name, None)
        if hasattr(model, name) and not (isinstance(value, str) and value.strip()):
            raise TypeError(
                f"{name} must be a column name of the data (text), got {_text.short_repr(value)}"
            )
    for name in ("informative_range", "other_range"):
        value = getattr(model, name, None)
        if value is not None and not _interval(value):
            raise ValueError(f"{name} must be [lo, hi] with finite lo < hi, got {value!r}")
    assignment = getattr(model, "assignment", None)
    try:
        rows = None if assignment is None else np.asarray(assignment)
    except (TypeError, ValueError):  # ragged lists
        rows = np.empty((0, 0))
    if rows is not None and (rows.ndim != 1 or rows.dtype.kind not in "iu"):
        raise ValueError(
            f"assignment must be a 1-D integer array (each sample's agent, -1: test), got "
            f"{_text.shorten(repr(assignment), 60)}"
        )
    if np.dtype(_precision(model.dtype)) not in (np.float64, np.float32):
        raise ValueError(f"dtype must be 'float64' or 'float32', got {model.dtype!r}")


def _interval(value) -> bool:
    try:
        pair = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return pair.shape == (2,) and bool(np.all(np.isfinite(pair)) and pair[0] < pair[1])


def _precision(dtype):
    try:
        return np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be 'float64' or 'float32', got {dtype!r}") from None


def make_grid(points=61, *, bounds=(-2.0, 2.0), dims: int = 2) -> Grid:
    """Make a regular parameter grid of ``dims`` axes.

    Parameters
    ----------
    points : int or sequence of int, default 61
        Points per axis (>= 2), the same for every axis when an int.
    bounds : (float, float) or sequence of them, default (-2, 2)
        Closed interval of each axis, the same for all when one pair is given.
    dims : int, default 2
        Number of parameters.

    Returns
    -------
    Grid

    Examples
    --------
    >>> g = make_grid(5, bounds=(-1, 1))
    >>> g.size, g.spacing, g.theta[:2].tolist()
    (25, (0.5, 0.5), [[-1.0, -1.0], [-1.0, -0.5]])
    >>> make_grid(3, dims=1).theta.ravel().tolist()
    [-2.0, 0.0, 2.0]
    """
    pts, bnds = check_grid(points, bounds=bounds, dims=dims)
    axes = tuple(np.linspace(lo, hi, p) for (lo, hi), p in zip(bnds, pts, strict=True))
    mesh = np.meshgrid(*axes, indexing="ij")
    return Grid(axes=axes, theta=np.column_stack([a.ravel() for a in mesh]))


def log_normalize(logp: np.ndarray) -> np.ndarray:
    """Normalise log-weights along the last axis, in place when possible.

    A max-shift log-sum-exp written with numpy: several times faster than
    :func:`scipy.special.logsumexp` on large arrays.

    Examples
    --------
    >>> p = log_normalize(np.log(np.array([[1.0, 3.0]])))
    >>> np.exp(p).round(3).tolist()
    [[0.25, 0.75]]
    """
    logp -= logp.max(axis=-1, keepdims=True)
    logp -= np.log(_safe_exp(logp).sum(axis=-1, keepdims=True))
    return logp


def pool(logp: np.ndarray, *, choices=None, weights=None, delta: float = 0.5) -> np.ndarray:
    """Geometric pooling: ``log mu_i = sum_j w_ij log p_j`` (unnormalised).

    Either ``choices`` (BayGo: ``w_ii = delta``, ``w_i,choice = 1 - delta``,
    ``w_ii = 1`` where the choice is -1) or a (sparse) ``weights`` matrix.

    Examples
    --------
    >>> lp = np.log(np.array([[0.5, 0.5], [0.9, 0.1]]))
    >>> np.exp(pool(lp, choices=np.array([1, -1]))).round(2).tolist()
    [[0.67, 0.22], [0.9, 0.1]]
    """
    if choices is not None:
        return pool_into(np.empty_like(logp), logp.copy(), choices, delta)
    return np.asarray(weights @ logp)


def pool_into(out, logp, choices, delta, *, after=None):
    """:func:`pool` with ``choices``, written into ``out``; scales ``logp`` in place.

    In two passes over blocks of rows on the thread pool of
    :func:`~baygo_graph.models.rows.for_rows`: gather and scale the chosen
    rows, then (once every block has read the unscaled ``logp``) add the
    scaled own rows. With ``delta = 0.5`` both weights are 0.5: every row is
    scaled once, then the chosen scaled rows are gathered and the own ones added
    (the same products and sums, one pass fewer). ``after(lo, hi)``, if given,
    runs on each block right after it is pooled (while it is in cache).
    """
    rows, cols = out.shape
    src = choices
    if rows and np.minimum.reduce(choices) < 0:  # -1: the agent keeps its own row
        src = np.where(choices >= 0, choices, np.arange(len(choices)))

    def gather(lo, hi):
        block = out[lo:hi]
        np.take(logp, src[lo:hi], axis=0, out=block, mode="clip")  # "raise" would buffer
        block *= 1.0 - delta

    def mix(lo, hi):
        own = logp[lo:hi]
        own *= delta
        out[lo:hi] += own
        if after is not None:
            after(lo, hi)

    def scale(lo, hi):
        logp[lo:hi] *= delta

    def gather_add(lo, hi):  # the chosen rows, already scaled, plus the own ones
        block = out[lo:hi]
        np.take(logp, src[lo:hi], axis=0, out=block, mode="clip")
        block += logp[lo:hi]
        if after is not None:
            after(lo, hi)

    if 1.0 - delta == delta:  # 0.5: scale every row once, the same products as below
        for_rows(scale, rows, cols, itemsize=out.itemsize)
        for_rows(gather_add, rows, cols, itemsize=out.itemsize)
        return out
    for_rows(gather, rows, cols, itemsize=out.itemsize)
    for_rows(mix, rows, cols, itemsize=out.itemsize)
    return out


@dataclass
class GridState:
    """The learners' posteriors on the grid, with reused buffers (no M x K allocation).

    Attributes
    ----------
    logp : numpy.ndarray, shape (learners, K)
        Unnormalised log-posteriors, each row shifted to maximum 0.
    expo : numpy.ndarray, shape (learners, K)
        ``exp(logp)``; its row sums are the normalisers.
    spare : numpy.ndarray, shape (learners, K)
        A buffer pooling writes into (then swapped with ``logp``).
    """

    logp: np.ndarray
    expo: np.ndarray
    spare: np.ndarray
    collapsed: tuple | None = None
    logz: np.ndarray | None = None
    #: Row sums of ``expo`` (the normalisers) after the local update (:meth:`refresh`);
    #: pooling does not recompute them (:meth:`GridModel.measure` sums the pooled ones).
    z: np.ndarray | None = None
    #: The run's grid (made by the model's ``make_grid``).
    space: Grid | None = None
    #: The run's values of the model fixed from the split (``GridModel.prepare``).
    values: dict = field(default_factory=dict)
    #: ``[1, theta]`` per grid point: one product gives normaliser and mean.
    moments: np.ndarray | None = None
    #: ``f(mean) -> (loss, extra)`` on the run's test set.
    loss: object = None
    #: Runs (seeds) held: row block ``s`` (``learners`` rows) is run ``s``'s (its
    #: :attr:`lanes` entry has its values, loss and warnings).
    seeds: int = 1
    #: One state per run, its arrays views of its block of rows (empty for one run:
    #: the state is its own lane; see :attr:`per_seed`).
    lanes: list = field(default_factory=list, repr=False)

    @property
    def per_seed(self) -> list:
        """The state of each run held (its arrays: views of its rows now): :attr:`lanes`,
        or ``[self]`` for one run."""
        self.relane()
        return self.lanes or [self]

    def relane(self) -> None:
        """Point every lane's arrays at its block of rows (after the buffers swap)."""
        if not self.lanes:
            return
        rows = self.logp.shape[0] // self.seeds
        for s, lane in enumerate(self.lanes):
            block = slice(s * rows, (s + 1) * rows)
            lane.logp, lane.expo, lane.spare = self.logp[block], self.expo[block], self.spare[block]
            lane.z = None if self.z is None else self.z[block]
            lane.logz = None if self.logz is None else self.logz[block]

    def refresh(self, add: np.ndarray | None = None, *, sums: bool = True) -> None:
        """Add ``add`` (if given) to ``logp``, shift it to row maximum 0, recompute
        ``expo`` and (``sums``) its row sums :attr:`z`: one fused pass per block of
        rows, on both cores (:func:`~baygo_graph.models.rows.for_rows`)."""
        if self.z is None or self.z.shape != self.logp.shape[:1]:
            self.z = np.empty(self.logp.shape[0], dtype=self.logp.dtype)
        for_rows(
            lambda lo, hi: self.refresh_rows(lo, hi, add, sums=sums),
            *self.logp.shape,
            itemsize=self.logp.itemsize,
        )

    def refresh_rows(self, lo: int, hi: int, add=None, *, sums: bool = True) -> None:
        """:meth:`refresh` of rows ``lo:hi`` only (:attr:`z` must exist)."""
        logp = self.logp[lo:hi]
        if add is not None:
            logp += add[lo:hi]
        logp -= logp.max(axis=1, keepdims=True)
        _safe_exp(logp, self.expo[lo:hi])
        if sums:
            np.sum(self.expo[lo:hi], axis=1, out=self.z[lo:hi])

    def pooled_rows(self, lo: int, hi: int) -> None:
        """:meth:`refresh_rows` after pooling: no row sums (:meth:`GridModel.measure`
        computes the pooled normalisers with the moments)."""
        self.refresh_rows(lo, hi, sums=False)

    def swap(self) -> None:
        """Make the pooled buffer the posterior, then :meth:`refresh` it (no row sums)."""
        self.logp, self.spare = self.spare, self.logp
        self.refresh(sums=False)

    def log_normalised(self) -> np.ndarray:
        """Normalised log-posteriors (a new array)."""
        return self.logp - np.log(self.expo.sum(axis=1, dtype=np.float64))[:, None]


def _collapse(state: GridState, z: np.ndarray, t: int) -> None:
    """Record in ``state`` the first step where a posterior collapsed onto one cell."""
    if state.collapsed is None:
        # the largest peak mass, 1 / min(z): one small reduction per step
        if 1.0 / np.minimum.reduce(z) > _COLLAPSE:
            peak = 1.0 / z
            state.collapsed = (t, int(peak.argmax()), float(peak.max()))


def _spread(a: np.ndarray, seeds: int, agents: int) -> np.ndarray:
    """Each run's first learner's row (one learner stands for every agent) for all its
    agents: (seeds * agents, ...)."""
    if seeds == 1:
        return np.broadcast_to(a[:1], (agents, *a.shape[1:]))
    return np.repeat(a[:: len(a) // seeds], agents, axis=0)


@dataclass(frozen=True)
class Measures:
    """What a model measures of every agent's posterior at one step.

    Attributes
    ----------
    loss : numpy.ndarray, shape (M,)
        The model's test loss (test MSE for regression, log-loss for classification).
    entropy : numpy.ndarray, shape (M,)
        Entropy of the posterior (nats).
    mean : numpy.ndarray, shape (M, d)
        Posterior mean of the parameters.
    extra : dict of str to numpy.ndarray
        Further per-agent metrics (e.g. ``"error_rate"``), kept in ``run.records``.
    """

    loss: np.ndarray
    entropy: np.ndarray
    mean: np.ndarray
    extra: dict = field(default_factory=dict)


class GridModel:
    """Base of the grid models: the log-domain machinery every grid model shares.

    A subclass is a frozen dataclass of its options; it sets :attr:`name`,
    :attr:`loss_name` and implements :meth:`make_grid`, :meth:`log_prior`,
    :meth:`split`, :meth:`statistics`, :meth:`log_likelihood` and
    :meth:`loss_function` (and :meth:`prepare` for values fixed from the split,
    :meth:`config` for the run's record). The model object never changes: a run's
    grid, values and posteriors live in the :class:`GridState` that :meth:`start`
    makes.
    """

    name = "grid"
    #: What :attr:`Measures.loss` is (``run.config["loss"]``).
    loss_name = "loss"
    #: Precision of the posterior arrays (a dataclass field of the concrete models).
    dtype = "float64"

    # -- what a concrete model supplies ---------------------------------------
    def make_grid(self) -> Grid:
        """The parameter grid."""
        raise NotImplementedError

    def log_prior(self, grid: Grid) -> np.ndarray:
        """Normalised log-prior over the grid, shape (K,)."""
        raise NotImplementedError

    def resolve_data(self, data):
        """The model's data set from what the caller gave (default: the bodyfat data)."""
        return resolve_data(data)

    def split(self, data, *, agents: int, informative: int, rng):
        """Share the samples among the agents: a :class:`~baygo_graph.data.Split`."""
        raise NotImplementedError

    def prepare(self, split, grid: Grid) -> dict:
        """The run's values fixed from the split (e.g. the likelihood noise): ``state.values``."""
        return {}

    def statistics(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Sufficient statistics of each row's batch, shape (rows, S)."""
        raise NotImplementedError

    def log_likelihood(self, stats: np.ndarray, *, out: np.ndarray, state: GridState):
        """Log-likelihood of each row's batch at every grid point (``state.space``), into
        ``out``."""
        raise NotImplementedError

    def loss_function(self, split, state: GridState):
        """``f(mean) -> (loss (M,), extra dict)`` on the test set of ``split``."""
        raise NotImplementedError

    def config(self, state: GridState) -> dict:
        """The run's model parameters for its config (JSON-able): the grid by default."""
        return {
            "grid": list(state.space.shape),
            "bounds": [list(b) for b in state.space.bounds],
        }

    def grid_shape(self) -> tuple:
        """Points per axis, from the options alone (default: made by :meth:`make_grid`)."""
        return self.make_grid().shape

    def state_values(self) -> int:
        """Numbers per learner in the state (K grid points), from the options alone.

        Used to check the memory budget before anything of size M x K is allocated.
        """
        pts = self.grid_shape()
        ok = all(isinstance(p, int | np.integer) and p > 0 for p in pts)
        return math.prod(int(p) for p in pts) if ok else 1

    # -- the shared machinery ---------------------------------------------------
    def start(self, split, *, learners: int, dtype) -> GridState:
        """Every learner at the prior, with the run's grid, values and test loss."""
        return self.start_seeds([split], learners=learners, dtype=dtype)

    def start_seeds(self, splits, *, learners: int, dtype) -> GridState:
        """:meth:`start` of several runs of one configuration (one split each) in one state.

        Run ``s`` holds rows ``s * learners`` to ``(s + 1) * learners`` of every array
        (its lane, :attr:`GridState.lanes`, has its own values and test loss), so each
        element-wise pass covers every run at once; a row's values are those of the
        run alone, bit for bit. One split: the state of one run.
        """
        space = self.make_grid()
        values = [self.prepare(split, space) for split in splits]
        prior = self.log_prior(space).astype(dtype)
        logp = np.tile(prior, (len(splits) * learners, 1))
        # [1, theta] per grid point: one pass gives normaliser and posterior mean.
        moments = np.column_stack([np.ones(space.size), space.theta]).astype(dtype)
        state = GridState(
            logp=logp,
            expo=np.empty_like(logp),
            spare=np.empty_like(logp),
            space=space,
            values=values[0] if len(splits) == 1 else {},
            moments=moments,
            seeds=len(splits),
        )
        if len(splits) == 1:
            state.loss = self.loss_function(splits[0], state)
            return state
        for split, vals in zip(splits, values, strict=True):
            lane = GridState(logp, logp, logp, space=space, values=vals, moments=moments)
            lane.loss = self.loss_function(split, lane)
            state.lanes.append(lane)
        state.relane()
        return state

    def update(self, state: GridState, stats: np.ndarray) -> None:
        """Local Bayesian step: add each learner's log-likelihood, then refresh."""
        # computed in the expo buffer, which refresh() overwrites with exp(logp)
        state.refresh(add=self.log_likelihood_seeds(stats, out=state.expo, state=state))

    def log_likelihood_seeds(self, stats: np.ndarray, *, out: np.ndarray, state: GridState):
        """:meth:`log_likelihood` of every run ``state`` holds, each with its own values
        (``stats`` and ``out``: all runs' rows); by default one call per run."""
        if not state.lanes:
            return self.log_likelihood(stats, out=out, state=state)
        rows = len(stats) // state.seeds
        for s, lane in enumerate(state.per_seed):
            block = slice(s * rows, (s + 1) * rows)
            self.log_likelihood(stats[block], out=out[block], state=lane)
        return out

    def most_divergent(self, state: GridState, *, listen, rng) -> np.ndarray:
        """BayGo's choices: each agent's most divergent allowed neighbour (KL).

        For a state of several runs, ``listen`` and ``rng`` are sequences (one per
        run) and the result is (runs, M); on the complete graph every run's KL
        product and choices come from one call (the same values, and the same draws
        from each run's generator, as run alone).
        """
        if not state.lanes:
            z = state.z if state.z is not None else state.expo.sum(axis=1)
            return kl_choices(
                state.expo, state.logp, listen=listen, rng=rng, row_scale=z, col_shift=np.log(z)
            )
        if any(h is not None for h in listen):  # a physical graph: run by run
            return np.stack(
                [
                    self.most_divergent(lane, listen=h, rng=g)
                    for lane, h, g in zip(state.per_seed, listen, rng, strict=True)
                ]
            )
        z = state.z if state.z is not None else state.expo.sum(axis=1)
        shape = (state.seeds, -1, state.logp.shape[1])
        out = kl_choices(
            state.expo.reshape(shape),
            state.logp.reshape(shape),
            rng=list(rng),
            row_scale=z,
            col_shift=np.log(z),
        )
        return out.reshape(state.seeds, -1)

    def pool_choices(self, state: GridState, choices: np.ndarray, delta: float) -> None:
        """Geometric pooling with one chosen neighbour per agent (for a state of several
        runs: each run's choices, (runs, M), agents numbered within the run)."""
        # pooled into spare, then each block shifted and exponentiated while in cache
        if state.z is None:
            state.z = np.empty(state.logp.shape[0], dtype=state.logp.dtype)
        if state.lanes:
            c = np.asarray(choices).reshape(state.seeds, -1)
            first = (np.arange(state.seeds) * c.shape[1])[:, None]  # each run's first row
            choices = np.where(c >= 0, c + first, -1).ravel()
        state.logp, state.spare = state.spare, state.logp
        pool_into(state.logp, state.spare, choices, delta, after=state.pooled_rows)

    def pool_weights(self, state: GridState, w) -> None:
        """Geometric pooling with a weight matrix (sparse or dense).

        For a state of several runs: a sparse ``w`` covers all rows (one block per
        run, :func:`scipy.sparse.block_diag`); a dense ``w`` is one run's, applied
        to every run (one matrix product per run, as run alone).
        """
        if sp.issparse(w):
            state.spare[...] = w @ state.logp
        elif state.lanes:
            shape = (state.seeds, w.shape[1], state.logp.shape[1])
            np.matmul(w, state.logp.reshape(shape), out=state.spare.reshape(shape))
        else:
            np.matmul(w, state.logp, out=state.spare)
        state.swap()

    def measure(self, state: GridState, t: int, agents: int) -> Measures:
        """Loss, entropy and mean of every agent's posterior ``expo / z`` (for a state
        of several runs: every run's agents, run after run)."""
        expo, logp, seeds = state.expo, state.logp, state.seeds
        if state.lanes:  # one product per run, as run alone
            rows = expo.shape[0] // seeds
            mom = np.matmul(expo.reshape(seeds, rows, -1), state.moments).reshape(len(expo), -1)
        else:
            mom = np.matmul(expo, state.moments)
        if mom.dtype != np.float64:
            mom = mom.astype(np.float64)
        z = mom[:, 0]
        mean = mom[:, 1:] / z[:, None]
        logz = state.logz = np.log(z)
        rows, cols = expo.shape
        if rows * cols < _rows.MIN_VALUES:  # one call: what for_rows would do, without it
            dots = np.einsum("mk,mk->m", expo, logp)
        else:
            dots = np.empty(rows, dtype=np.result_type(expo, logp))
            for_rows(
                lambda lo, hi: np.einsum("mk,mk->m", expo[lo:hi], logp[lo:hi], out=dots[lo:hi]),
                rows,
                cols,
                itemsize=expo.itemsize,
            )
        entropy = logz - dots / z
        loss, extra = self.loss_seeds(state, mean)
        if not state.lanes:
            _collapse(state, z, t)
        else:  # the runs with a new collapse: one small reduction for all
            peak = 1.0 / np.minimum.reduce(z.reshape(seeds, -1), axis=1)
            size = len(z) // seeds
            for s in np.flatnonzero(peak > _COLLAPSE):
                _collapse(state.lanes[s], z[s * size : (s + 1) * size], t)
        rows //= seeds
        if rows != agents:  # one learner stands for every agent
            mean, entropy, loss = (_spread(a, seeds, agents) for a in (mean, entropy, loss))
            extra = {k: _spread(v, seeds, agents) for k, v in extra.items()}
        return Measures(loss=loss, entropy=entropy, mean=mean, extra=extra)

    def loss_seeds(self, state: GridState, mean: np.ndarray) -> tuple:
        """``(loss, extra)`` of the posterior means of every run ``state`` holds, each run
        on its own test set; by default one call of each run's loss function."""
        if not state.lanes:
            return state.loss(mean)
        rows = len(mean) // state.seeds
        parts = [lane.loss(mean[s * rows : (s + 1) * rows]) for s, lane in enumerate(state.lanes)]
        loss = np.concatenate([p[0] for p in parts])
        extra = {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
        return loss, extra

    def posterior_local(self, state: GridState) -> np.ndarray:
        """Normalised local log-posteriors, before pooling (a new array)."""
        return state.log_normalised()

    def posterior(self, state: GridState) -> np.ndarray:
        """Normalised log-posteriors after :meth:`measure`, (learners, K) (a new array)."""
        return state.logp - state.logz[:, None].astype(state.logp.dtype)

    def finish(self, state: GridState) -> None:
        """Warn when a posterior collapsed onto one grid cell."""
        if state.collapsed is None:
            return
        t, i, p = state.collapsed
        spacing = " x ".join(f"{s:.3g}" for s in state.space.spacing)
        warnings.warn(
            f"at step {t}, agent {i}'s posterior put {p:.3f} of its mass on one grid cell: "
            f"the grid (spacing {spacing}) is too coarse for "
            "this posterior, and KL-based neighbour choices degenerate; use a finer grid "
            "or narrower bounds",
            GridResolutionWarning,
            stacklevel=3,
        )
