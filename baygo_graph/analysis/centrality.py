"""Influence over time: per step or per window of a series, ranks and fixed-graph references.

The influence of one weight matrix (left Perron vector, closed classes,
uniqueness) is :mod:`baygo_graph.analysis.perron`; here it is taken over the
windows of a series. Windows and their arguments (``windows="aligned"``/
``"sliding"``, ``incomplete="drop"``/``"keep"``, half-open ``[start, stop)``)
are those of :mod:`baygo_graph.analysis.windows`; array columns follow the
series' node order ``series.nodes``. An undefined float (a non-unique
influence, the rank in such a row, a row without a window) is NaN.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import networkx as nx  # noqa: F401  (used by the doctests)
import numpy as np
import scipy.sparse as sp

from .._text import counted
from .._validate import check_choice, check_int
from ..inputs import series_input
from ..limits import check_budget, series_nbytes
from ..strategies import WEIGHT_RULES, resolve_strategy
from ._window_solver import _BATCH_ENTRIES
from .perron import (
    DAMPING,
    ON_NONUNIQUE,
    _closed,
    class_influence,
    closed_classes,
    damped_influence,
    influence,
    perron_vector,
)
from .weights import METHODS, weight_matrix, window_matrix, window_products
from .window_influence import (
    BATCH_BYTES_PER_ENTRY,
    choice_form_bytes,
    series_choices,
    union_window_influence,
    window_closed_classes,
    window_influence,
)
from .windows import INCOMPLETE, WINDOWS, active_steps, window_groups

__all__ = [
    "DAMPING",
    "InfluenceSeries",
    "NonUniqueWindows",
    "class_influence",
    "closed_classes",
    "damped_influence",
    "nonunique_windows",
    "influence",
    "influence_order",
    "influence_rank",
    "influence_series",
    "reference_influence",
    "window_matrix",
]

# Dense (T, M, M) stacks up to this many values are used by influence_series (the
# stack, its running products and a window's solve: ~36 B a value, at most ~36 MiB).
_STACK_MAX = 1 << 20


def _to_weights(graph_or_weights, nodelist) -> sp.csr_array:
    return weight_matrix(graph_or_weights, nodelist=nodelist)


@dataclass(frozen=True, eq=False)
class InfluenceSeries:
    """Influence over the windows of a series (result of :func:`influence_series`).

    Rows follow the steps (row ``t``: the window that ends at step ``t``) so they
    line up with ``run.mse``; columns follow ``nodes``.

    Attributes
    ----------
    values : numpy.ndarray, shape (T, M)
        Row ``t``: the influence of the window ending at ``t`` (sums to 1); NaN
        where ``defined`` is False.
    n_classes : numpy.ndarray of int, shape (T,)
        The reason code of each row: the number of closed classes of the matrix of
        the window ending at ``t`` (1: a unique influence; ``k > 1``: ``k`` groups
        that listen to no one outside, no single influence exists); 0 where no
        window ends at ``t`` (rows before the first full window, aligned rows
        between window ends, windows left out by ``stride``).
    window : int
    method : {"product", "union"}
    windows : {"aligned", "sliding"}
    incomplete : {"drop", "keep"}
    nodes : tuple
        The node labels of the columns (``series.nodes``).
    self_weight : str, float or None
        The self-weight rule of the series' weights (``series.self_weight``;
        None: weights as stored, e.g. a run's).

    Notes
    -----
    Until 0.3 the result also acts as the ``(T, M)`` array that
    :func:`influence_series` returned before (``numpy.asarray(result)``,
    ``result[t]``), with a FutureWarning: read :attr:`values`.

    Examples
    --------
    >>> a = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2)])     # two pairs
    >>> r = influence_series([a, nx.complete_graph(4, nx.DiGraph)], window=1, windows="aligned")
    >>> r.n_classes.tolist(), r.defined.tolist(), r.values[1].round(3).tolist()
    ([2, 1], [False, True], [0.25, 0.25, 0.25, 0.25])
    """

    values: np.ndarray = field(repr=False)
    n_classes: np.ndarray = field(repr=False)
    window: int
    method: str
    windows: str
    incomplete: str
    nodes: tuple = field(repr=False)
    self_weight: object = None

    @property
    def defined(self) -> np.ndarray:
        """Rows with a unique influence: ``n_classes == 1``."""
        return self.n_classes == 1

    @property
    def ends(self) -> np.ndarray:
        """Steps at which a window ends (``n_classes > 0``)."""
        return np.flatnonzero(self.n_classes > 0)

    @property
    def undefined(self) -> np.ndarray:
        """Steps whose window has several closed classes (``n_classes > 1``)."""
        return np.flatnonzero(self.n_classes > 1)

    @property
    def shape(self) -> tuple:
        """``values.shape``: (T, M)."""
        return self.values.shape

    def __array__(self, dtype=None, copy=None):
        _array_warning()
        return self.values if dtype is None else self.values.astype(dtype)

    def __getitem__(self, key):
        _array_warning()
        return self.values[key]


def _array_warning() -> None:
    warnings.warn(
        "influence_series returns an InfluenceSeries (values, n_classes, defined); using it "
        "as an array stops working in 0.3: read .values",
        FutureWarning,
        stacklevel=3,
    )


#: Bytes :func:`influence_series` holds per step besides its (T, M) arrays: the window
#: ends and counts, the windows' groups of active steps and their index copies. Fitted
#: on tracemalloc peaks of long sparse spans (2 to 200 nodes, 10^4 to 3 x 10^6 steps:
#: 65 B a step and 13 B a step and node above a fixed 3 MB); 72 leaves a margin.
INFLUENCE_BYTES_PER_STEP = 72


def influence_bytes(series, window: int, *, ends: int | None = None) -> int:
    """Peak bytes :func:`influence_series` allocates for ``series`` with windows of
    ``window`` steps, besides the window products (checked one by one as they are formed,
    :func:`~baygo_graph.analysis.weights.window_products`): for a choice series (one
    in-neighbour a node and step) 10 B a step and node (the (T, M) result and its
    copies), :data:`INFLUENCE_BYTES_PER_STEP` a step, its choices and the kernel's rows
    (:func:`~baygo_graph.analysis.window_influence.choice_form_bytes`) for the distinct
    windows only (windows holding the same active steps are solved once); for any other
    the union's sums and iterates (16 B a step and node, 40 B a stored entry). What a
    caller that holds the result besides other work (``baygo view``, the GEXF writer)
    counts for it.

    Examples
    --------
    >>> from baygo_graph import Run
    >>> run = Run.from_choices([[1, 0, -1]] * 1000, delta=0.3)
    >>> influence_bytes(run.series, 10) > 8 * 1000 * 3
    True
    """
    s = series
    t, m = s.n_steps, s.n_agents
    # the windows computed (``ends``; by default every sliding one, T - w + 1), of which
    # those of the same active steps are one group: at most 2 a step that is active
    # (hostile19 X3: counting T windows on a 3-step star was 3.9x)
    ends = max(1, t - int(window) + 1) if ends is None else max(1, int(ends))
    distinct = min(ends, 2 * int(np.count_nonzero(active_steps(s))) + 1)
    # the kernels: fitted on tracemalloc peaks of the larger method (the union) on rings
    # of 10^4 and 10^5 nodes, checked on a 2 x 10^5-leaf star and 2-node spans of 10^5
    # steps (1.0-1.8x): 64 B a window and node, 40 B a batch entry, 8 B a step and node
    kernels = choice_form_bytes(s, distinct, window, result=64, per_entry=40)
    if kernels:  # one in-neighbour a node and step: the kernels, never the window sums
        return 8 * t * m + INFLUENCE_BYTES_PER_STEP * t + kernels
    # the union's slid sums and warm-started iterates (the larger method: 15 B a step and
    # node with its result, 33 B a stored entry, tracemalloc, 5,000 nodes x 200 steps of
    # 2 x 10^4 and 2 x 10^5 contacts; it was counted 130 B an entry: 0.8x of the first)
    return 16 * t * m + INFLUENCE_BYTES_PER_STEP * t + 40 * series_nbytes(s) // 32


def influence_bound(steps: int, nodes: int, *, rows: int, window: int) -> int:
    """An upper bound of :func:`influence_bytes` for any series of ``steps`` x ``nodes``
    read from ``rows`` contacts, before it exists (what a reader advises for the work
    after it, :func:`~baygo_graph.limits.following`): at most 4 stored entries of 32 B
    a contact (an undirected one both ways, each with its target's self-weight), a
    step active per contact, and the choices built.

    Examples
    --------
    >>> influence_bound(10**6, 2, rows=2, window=10) // 2**20
    103
    """
    t, m, rows = int(steps), int(nodes), int(rows)
    distinct = min(t, 2 * min(t, rows) + 1)
    batch = min(max(_BATCH_ENTRIES, m * window), distinct * window * m)
    return (
        10 * t * m
        + INFLUENCE_BYTES_PER_STEP * t
        + 130 * 4 * rows
        + 8 * t * m
        + 8 * distinct * m
        + BATCH_BYTES_PER_ENTRY * batch
    )


@series_input
def influence_series(
    source,
    *,
    window: int = 10,
    method: str = "product",
    windows: str | None = None,
    incomplete: str = "drop",
    on_nonunique: str = "nan",
    stride: int = 1,
) -> InfluenceSeries:
    """Influence of every agent over time, from windows of ``window`` steps.

    Parameters
    ----------
    source : Run, GraphSeries or sequence of networkx.DiGraph
        See :func:`~baygo_graph.inputs.as_series` (a centralised run has no
        graph: ValueError).
    window : int, default 10
        Window length w, ``1 <= w <= T``. ``window=1`` gives the per-step
        influence (where unique; both methods agree).
    method : {"product", "union"}, default "product"
        ``"product"``: influence of ``W_t W_{t-1} ... W_{t-w+1}`` (the influence
        the window exerts on the long-run average of the beliefs it starts
        from); ``"union"``: influence of the mean W of the window (the union
        graph, row-normalised). See :func:`window_matrix`.
    windows : {"aligned", "sliding"}, default "sliding" (changing to "aligned")
        Aligned windows ``[nw, (n+1)w)`` or every window ``[s, s+w)`` of ``w``
        consecutive steps (see :mod:`baygo_graph.analysis.windows`). Each
        window's influence is the row of its last step, ``stop - 1``; every
        other row has no window (``n_classes`` 0, values NaN), so the shape stays
        (T, M) and rows line up with ``run.mse``. Sliding fills every row
        ``t >= w - 1`` with the window ``[t-w+1, t+1)``; aligned the rows
        ``(n+1)w - 1`` (the same values as sliding there). Not passing
        ``windows`` means ``"sliding"`` with a FutureWarning: the default
        becomes ``"aligned"``, as in
        :func:`~baygo_graph.analysis.b_connectivity`, in 0.3.
    incomplete : {"drop", "keep"}, default "drop"
        Leave out the windows that reach outside steps ``0 .. T-1``, or keep
        them cut at the ends of the series: with ``"keep"``, sliding rows
        ``t < w - 1`` hold the window ``[0, t+1)`` and aligned row ``T - 1``
        the tail ``[nw, T)`` when ``w`` does not divide ``T``.
    on_nonunique : {"nan", "raise"}, default "nan"
        A window whose matrix has several closed classes gives an undefined row
        (its number of classes in ``n_classes``), or raises
        :class:`~baygo_graph.exceptions.NotUniqueError`.
    stride : int, default 1
        Compute one window in ``stride`` only, counted back from the last (the last
        window is always computed, then the ``stride``-th before it, ...; the others
        are left out like rows without a window: NaN, ``n_classes`` 0, not in
        ``ends``): a sample of the windows of a long series. Windows cut by
        ``incomplete="keep"`` are all computed.

    Returns
    -------
    InfluenceSeries
        ``values`` (T, M): rows sum to 1 where ``defined``; ``n_classes`` (T,):
        why a row is undefined (0: no window ends there; k > 1: k closed
        classes). For a fixed strategy every defined row is ``influence(W)``
        (``influence(W^w)`` for the product, the same when W is aperiodic, e.g.
        ``delta > 0``).

    Notes
    -----
    A series of chosen neighbours (a BayGo run) goes through
    :func:`~baygo_graph.analysis.window_influence.window_influence`, which never
    forms the window matrices (T = 10,000, M = 1,000, window 10: about as long as
    the smallest sliding B). The union of any other series goes through
    :func:`~baygo_graph.analysis.window_influence.union_window_influence`: each
    window's summed weights come from the previous window's, and its vector from
    an iteration warm-started at the previous window's (T = 10,000, M = 1,000,
    10^6 events: within 10x of the smallest sliding B; docs/scaling.md). The
    product of other series forms each window matrix; there, products of long
    windows of small weights may underflow to exact zeros (``0.5**1075``), which
    would change the closed classes: keep ``w`` well below 1000 steps.

    Examples
    --------
    >>> from baygo_graph import simulate, synthetic_bodyfat
    >>> from baygo_graph.models import LinearRegression
    >>> run = simulate("posm", agents=3, steps=4, model=LinearRegression(grid=9), rng=0,
    ...                data=synthetic_bodyfat())
    >>> r = influence_series(run, window=2, windows="sliding")
    >>> r.values.round(3).tolist()
    [[nan, nan, nan], [0.429, 0.286, 0.286], [0.429, 0.286, 0.286], [0.429, 0.286, 0.286]]
    >>> r.n_classes.tolist()
    [0, 1, 1, 1]
    >>> a = nx.DiGraph([(1, 0), (0, 1)]); a.add_node(2)     # 0 and 1 talk
    >>> b = nx.DiGraph([(1, 2), (2, 1)]); b.add_node(0)     # 1 and 2 talk
    >>> influence_series([a, b, a, b], window=2, method="union", windows="aligned").values.round(3)
    array([[  nan,   nan,   nan],
           [0.333, 0.333, 0.333],
           [  nan,   nan,   nan],
           [0.333, 0.333, 0.333]])
    >>> influence_series([a, b, a, b], window=1, windows="aligned").n_classes.tolist()  # 2 alone
    [2, 2, 2, 2]
    >>> r = influence_series([a, b, a, b, a], window=2, method="union", windows="sliding",
    ...                      stride=2)
    >>> r.ends.tolist()     # windows ending at 2 and 4: the last is always computed
    [2, 4]
    """
    s = source
    check_choice("method", method, METHODS)
    windows = _windows_default(windows)
    check_choice("windows", windows, WINDOWS)
    check_choice("incomplete", incomplete, INCOMPLETE)
    check_choice("on_nonunique", on_nonunique, ON_NONUNIQUE)
    w = check_int("window", window, minimum=1, maximum=s.n_steps)
    stride = check_int("stride", stride, minimum=1)
    T, m = s.n_steps, s.n_agents
    ends = np.arange(w - 1, T)
    if windows == "aligned":
        ends = ends[(ends + 1) % w == 0]
    ends = ends[::-1][::stride][::-1]  # from the last window back: the last is computed
    check_budget(
        influence_bytes(s, w, ends=len(ends) + (w - 1 if incomplete == "keep" else 0)),
        what=f"the influence of {counted(T, 'step')} x {counted(m, 'node')} (a (T, M) float array)",
        used=series_nbytes(s),
    )
    out = np.full((T, m), np.nan)
    counts = np.zeros(T, dtype=np.int64)
    if incomplete == "keep":
        _fill_incomplete(s, out, counts, w, windows=windows, method=method,
                         on_nonunique=on_nonunique)  # fmt: skip
    if len(ends):
        _fill_windows(s, out, counts, ends, w, method=method, on_nonunique=on_nonunique)
    return InfluenceSeries(
        values=out,
        n_classes=counts,
        window=w,
        method=method,
        windows=windows,
        incomplete=incomplete,
        nodes=tuple(s.nodes),
        self_weight=getattr(s, "self_weight", None),
    )


def _fill_windows(s, out, counts, ends, w, *, method, on_nonunique) -> None:
    """Rows ``ends`` of ``out`` (influence) and ``counts`` (closed classes); windows of
    the same active steps (:func:`~baygo_graph.analysis.windows.window_groups`: the same
    matrix) are solved once, so a long sparse span costs its active steps."""
    if s.fixed is None:
        first, group = window_groups(s, ends - w + 1, ends + 1)
        if len(first) < len(ends):
            once = ends[first]
            _fill_windows(s, out, counts, once, w, method=method, on_nonunique=on_nonunique)
            out[ends], counts[ends] = out[once][group], counts[once][group]
            return
    T, m = s.n_steps, s.n_agents
    if s.fixed is not None:
        mat = next(window_products(s, [(0, w)])) if method == "product" else s.fixed
        out[ends], counts[ends] = _solve(_to_weights(mat, None), on_nonunique)
        return
    form = series_choices(s)
    if form is not None:  # one in-neighbour per agent and step: the fast kernels
        choices, delta = form
        out[ends] = window_influence(
            choices, delta=delta, window=w, ends=ends, method=method, on_nonunique=on_nonunique
        )
        counts[ends] = 1
        bad = ends[np.isnan(out[ends]).any(axis=1)]
        if len(bad):  # the reason: count the closed classes of those windows only
            counts[bad] = window_closed_classes(
                choices, delta=delta, window=w, ends=bad, method=method
            ).counts
        return
    if method == "union":  # any other series: window sums slid, warm-started solves
        out[ends], counts[ends] = union_window_influence(
            s, window=w, ends=ends, on_nonunique=on_nonunique
        )
        return
    if T * m * m <= _STACK_MAX:
        stack = s.weight_stack()
        acc = stack.copy()
        for k in range(1, w):  # acc[t] = W_t ... W_{t-k}
            acc[k:] = np.matmul(acc[k:], stack[: T - k])
        for t in ends:
            out[t], counts[t] = _solve(_to_weights(_renorm(acc[t]), None), on_nonunique)
        return
    # one window matrix held at a time, rescaled where it is; what the process holds is
    # measured once for all of them (limits: what freed products leave resident)
    # (no zip or enumerate: their reused result tuple would keep the last matrix alive
    # while the next is formed)
    at = iter(ends.tolist())
    for mat in window_products(s, [(t - w + 1, t + 1) for t in ends.tolist()]):
        t = next(at)
        mat = _renorm(mat, own=True)
        out[t], counts[t] = _solve(_to_weights(mat, None), on_nonunique)
        del mat


def _solve(w: sp.csr_array, on_nonunique: str) -> tuple[np.ndarray, int]:
    """The influence of W (NaN when not unique) and its number of closed classes."""
    classes = _closed(w)
    n = len(classes[1])
    if n != 1 and on_nonunique == "nan":
        return np.full(w.shape[0], np.nan), n
    return perron_vector(w, on_nonunique=on_nonunique, classes=classes), n


@dataclass(frozen=True, eq=False)
class NonUniqueWindows:
    """The windows without an influence and the alternative (:func:`nonunique_windows`).

    Attributes
    ----------
    ends : numpy.ndarray of int, shape (N,)
        Last step of each window whose matrix has several closed classes.
    n_classes : numpy.ndarray of int, shape (N,)
        Its number of closed classes (groups that listen to no one outside): the
        reason code the tellers word (:func:`baygo_graph._render.undefined_text`).
    damped : numpy.ndarray, shape (K, M)
        :func:`damped_influence` of the matrices of the windows ``damped_ends``.
    damped_ends : numpy.ndarray of int, shape (K,)
        All of ``ends`` when ``N <= max_windows``, else ``max_windows`` of them,
        evenly spaced.
    damping : float
    """

    ends: np.ndarray = field(repr=False)
    n_classes: np.ndarray = field(repr=False)
    damped: np.ndarray = field(repr=False)
    damped_ends: np.ndarray = field(repr=False)
    damping: float = DAMPING


@series_input
def nonunique_windows(
    source,
    *,
    window: int | None = None,
    method: str = "product",
    ends=None,
    damping: float = DAMPING,
    max_windows: int = 100,
    influence: InfluenceSeries | None = None,
) -> NonUniqueWindows:
    """The windows whose influence is undefined (several closed classes), with
    :func:`damped_influence` as the alternative.

    Parameters
    ----------
    source : Run, GraphSeries or anything :func:`~baygo_graph.inputs.as_series` takes
    window : int, optional
        Window length w (default: ``influence.window``; needed without ``influence``).
    method : {"product", "union"}, default "product"
        As in :func:`influence_series` (``influence.method`` when given).
    ends : array_like of int, optional
        Last steps of the windows to check (default every ``e >= w - 1``: the
        sliding windows; with ``influence``: its window ends).
    damping : float, default 0.85
    max_windows : int, default 100
        At most this many undefined windows (evenly spaced) get a damped vector
        (power iteration on the window's step matrices, never their product).
    influence : InfluenceSeries, optional
        :func:`influence_series` of ``source`` when the caller has it: its
        ``n_classes`` say which windows are undefined, and nothing is recounted.

    Returns
    -------
    NonUniqueWindows

    Examples
    --------
    >>> a = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2)])     # two pairs
    >>> r = nonunique_windows([a, a], window=1)
    >>> r.ends.tolist(), r.n_classes.tolist(), r.damped.round(2).tolist()[0]
    ([0, 1], [2, 2], [0.25, 0.25, 0.25, 0.25])
    """
    s = source
    if influence is None:
        if window is None:
            raise TypeError("nonunique_windows needs window= (or influence=)")
        w = check_int("window", window, minimum=1, maximum=s.n_steps)
        check_choice("method", method, METHODS)
        ends = np.arange(w - 1, s.n_steps) if ends is None else np.asarray(ends, dtype=np.int64)
        check_budget(  # a choice series' choices, class memberships and batch (Q9)
            choice_form_bytes(s, len(ends), w, result=1),
            what=f"the closed classes of {counted(len(ends), 'window', spec=',')} x "
            f"{counted(s.n_agents, 'node', spec=',')}",
            advice="pass influence= (influence_series' counts), or fewer ends",
        )
        counts = _count_classes(s, ends, w, method)
    else:
        w, method = influence.window, influence.method
        ends = influence.ends if ends is None else np.asarray(ends, dtype=np.int64)
        counts = influence.n_classes[ends]
    bad = counts > 1
    bad_ends = ends[bad]
    pick = bad_ends
    if len(bad_ends) > max_windows:
        pick = bad_ends[np.linspace(0, len(bad_ends) - 1, max_windows).round().astype(int)]
    damped = np.zeros((len(pick), s.n_agents))
    cache: dict = {}
    active = active_steps(s)  # the other steps' W is the identity: no factor
    for k, e in enumerate(pick.tolist()):
        steps = range(max(e - w + 1, 0), e + 1)  # a kept window may be cut at the start
        factors = [  # W_t transposed, as CSR: pi W_t = W_t^T pi, a fast matvec
            None
            if not active[t]  # the identity
            else cache[t]
            if t in cache
            else cache.setdefault(t, sp.csr_array(s.weights(t).T))
            for t in steps
        ]
        damped[k] = _damped_power(factors, s.n_agents, method=method, damping=damping)
        for t in [t for t in cache if t <= e - w + 1]:  # windows move forward: drop old steps
            del cache[t]
    return NonUniqueWindows(
        ends=bad_ends, n_classes=counts[bad], damped=damped, damped_ends=pick, damping=damping
    )


def _count_classes(s, ends, w: int, method: str) -> np.ndarray:
    """Closed classes of the window matrices ending at ``ends``."""
    form = series_choices(s) if s.fixed is None else None
    if form is not None:
        choices, delta = form
        return window_closed_classes(
            choices, delta=delta, window=w, ends=ends, method=method
        ).counts
    first = group = np.arange(len(ends))
    if len(ends) and ends.min() >= w - 1 and ends.max() < s.n_steps:  # else window_matrix says
        first, group = window_groups(s, ends - w + 1, ends + 1)  # the same matrix: once
    counts = np.zeros(len(first), dtype=np.int64)
    k = 0
    for mat in _window_weights(s, ends[first], w, method):  # one window's weights held
        counts[k] = len(_closed(mat)[1])
        k += 1
        del mat
    return counts[group]


def _damped_power(factors, m: int, *, method: str, damping: float, tol: float = 1e-11,
                  max_iter: int = 2000) -> np.ndarray:  # fmt: skip
    """:func:`damped_influence` of a window on ``m`` nodes given by its transposed step
    matrices ``W_s^T .. W_e^T`` (in step order; None: the identity, a step without
    edges), without forming their product: power iteration
    ``pi <- damping * pi P + (1 - damping) / M`` with ``pi P`` as successive sparse
    vector-matrix products (``pi W_e ... W_s``; union: the mean of ``pi W_t``). It
    contracts by ``damping`` per iteration; stopped when the change is below ``tol``
    (about 160 iterations at 0.85; error below 1e-10)."""
    pi = np.full(m, 1.0 / m)
    for _ in range(max_iter):
        if method == "product":
            v = pi
            for mat_t in reversed(factors):
                v = v if mat_t is None else mat_t @ v
        else:
            v = sum(pi if mat_t is None else mat_t @ pi for mat_t in factors) / len(factors)
        new = damping * v + (1.0 - damping) / m
        new /= new.sum()
        if np.abs(new - pi).sum() < tol:
            return new
        pi = new
    return pi


def _window_weights(s, ends, w: int, method: str):
    """The weights of the windows of ``w`` steps ending at ``ends``, one at a time (the
    products under one budget, :func:`~baygo_graph.analysis.weights.window_products`)."""
    if s.fixed is not None:  # the same matrix at every end
        mat = next(window_products(s, [(0, w)])) if method == "product" else s.fixed
        yield from (_to_weights(_renorm(sp.csr_array(mat)), None) for _ in ends)
        return
    spans = [(int(e) - w + 1, int(e) + 1) for e in ends]
    for start, stop in spans:
        if not 0 <= start < stop <= s.n_steps:
            window_matrix(s, start, stop)  # its words for a window outside the series
    if method == "product":
        for mat in window_products(s, spans):
            mat = _to_weights(_renorm(mat, own=True), None)
            yield mat
            del mat  # before the next product is formed
        return
    for start, stop in spans:
        yield _to_weights(_renorm(window_matrix(s, start, stop, method=method)), None)


def _windows_default(windows):
    if windows is None:
        warnings.warn(
            "influence_series: the default of windows= changes from 'sliding' to "
            "'aligned' (as in b_connectivity) in 0.3; pass windows='sliding' to keep "
            "the current rows",
            FutureWarning,
            stacklevel=3,
        )
        return "sliding"
    return windows


def _fill_incomplete(s, out, counts, w, *, windows, method, on_nonunique) -> None:
    """Rows of the windows cut at the ends of the series (``incomplete="keep"``)."""
    t_all = s.n_steps
    if windows == "sliding":
        cut = [(0, t + 1) for t in range(min(w - 1, t_all))]
    else:
        tail = (t_all // w) * w
        cut = [(tail, t_all)] if tail < t_all else []
    if method == "product":  # under one budget, measured once (window_products)
        mats = window_products(s, cut)
    else:
        mats = (window_matrix(s, start, stop, method=method) for start, stop in cut)
    stops = iter([stop for _, stop in cut])
    for mat in mats:  # no zip: its result tuple would hold the last matrix (_fill_windows)
        stop = next(stops)
        mat = _renorm(mat, own=True)
        out[stop - 1], counts[stop - 1] = _solve(_to_weights(mat, None), on_nonunique)
        del mat


def _renorm(mat, *, own: bool = False):
    """Rescale rows to sum exactly 1 (products and means drift by rounding); with
    ``own`` (a sparse matrix just formed) in place, without a copy of its size."""
    if sp.issparse(mat):
        rows = np.asarray(mat.sum(axis=1)).ravel()
        if own:
            mat = sp.csr_array(mat)
            mat.data *= np.repeat(1.0 / rows, np.diff(mat.indptr))  # as diags(1/rows) @ mat
            return mat
        return sp.csr_array(sp.diags_array(1.0 / rows) @ mat)
    return mat / mat.sum(axis=1, keepdims=True)


def influence_rank(influence, agent: int, *, tol: float = 1e-12):
    """Rank of ``agent`` by influence: 1 = most influential.

    Competition ranking: one plus the number of agents whose influence exceeds
    the agent's by more than ``tol`` (so ties share the better rank).

    Parameters
    ----------
    influence : array_like, shape (M,) or (T, M)
        One influence vector or a series (e.g. from :func:`influence_series`).
    agent : int
        Column of the agent.
    tol : float, default 1e-12

    Returns
    -------
    float or numpy.ndarray of float, shape (T,)
        NaN where the row holds NaN.

    Examples
    --------
    >>> influence_rank([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [np.nan] * 3], 0).tolist()
    [1.0, 3.0, nan]
    >>> influence_rank(np.full(4, 0.25), 2)
    1.0
    """
    x = np.asarray(influence, dtype=float)
    if x.ndim not in (1, 2):
        raise ValueError(f"influence must have shape (M,) or (T, M), got {x.shape}")
    m = x.shape[-1]
    agent = check_int("agent", agent, minimum=0, maximum=m - 1)
    own = x[..., agent : agent + 1]
    rank = 1.0 + (x > own + tol).sum(axis=-1)
    rank = np.where(np.isnan(x).any(axis=-1), np.nan, rank)
    return float(rank) if x.ndim == 1 else rank


def influence_order(values, *, tol: float = 1e-12) -> np.ndarray:
    """Node indices from most to least influential, ties in node order.

    Values within ``tol`` of their neighbour in the sorted order are tied (the
    tolerance of :func:`influence_rank`), so rounding noise never decides who
    comes first: exact ties computed in another summation order (a reloaded
    series, another door) give the same order. NaN comes last.

    Parameters
    ----------
    values : array_like, shape (M,)
        One influence vector (e.g. a mean over windows).
    tol : float, default 1e-12

    Returns
    -------
    numpy.ndarray of int, shape (M,)

    Examples
    --------
    >>> influence_order([0.2, 0.2 + 1e-16, 0.2 - 1e-16, 0.4]).tolist()
    [3, 0, 1, 2]
    >>> influence_order([np.nan, 0.1, 0.3]).tolist()
    [2, 1, 0]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"values must have shape (M,), got {v.shape}")
    key = np.where(np.isnan(v), -np.inf, v)
    order = np.argsort(-key, kind="stable")
    s = key[order]
    with np.errstate(invalid="ignore"):  # -inf - -inf: NaNs tie with each other
        gap = np.diff(s) < -tol
    group = np.concatenate([[0], np.cumsum(gap)])
    return order[np.lexsort((order, group))]


def reference_influence(
    agents: int,
    *,
    informative: int = 0,
    delta: float = 0.5,
    weights: str = "equal",
) -> dict:
    """The informative agent's influence under the fixed reference strategies.

    Computed with :func:`influence` on the weight matrices of
    :mod:`baygo_graph.strategies`: ``"posm"`` (star centred on the informative
    agent), ``"negm"`` (star centred on agent ``(informative + 1) % M``, the
    informative agent at a leaf) and ``"complete"``.

    With the ``"delta"`` rule (``0 <= delta < 1``) these are, whatever delta:
    PosM ``1/2``, NegM ``1 / (2 (M - 1))``, complete ``1 / M``. With
    ``"equal"`` (the default, the paper's weights): PosM ``M / (3M - 2)``, NegM
    ``2 / (3M - 2)``, complete ``1 / M``; ``"edge"`` gives the same (the
    reference graphs carry unit weights). These closed forms are returned
    directly (no M x M graph is built, so any M is cheap); ``delta = 1`` with the
    ``"delta"`` rule is solved (and has no unique influence).

    Parameters
    ----------
    agents : int
        Number of agents M (>= 2).
    informative : int, default 0
    delta : float, default 0.5
    weights : {"equal", "delta", "edge", "uniform"}, default "equal"

    Returns
    -------
    dict
        ``{"posm": float, "negm": float, "complete": float}``.

    Examples
    --------
    >>> {k: round(v, 4) for k, v in reference_influence(12).items()}
    {'posm': 0.3529, 'negm': 0.0588, 'complete': 0.0833}
    """
    agents = check_int("agents", agents, minimum=2)
    informative = check_int("informative", informative, minimum=0, maximum=agents - 1)
    check_choice("weights", weights, WEIGHT_RULES)
    m = agents
    # closed forms (tested against the solve); "edge" reads the graphs' unit weights,
    # which gives the equal rule's matrices on these unweighted reference graphs
    if weights in ("equal", "uniform", "edge"):
        return {"posm": m / (3 * m - 2), "negm": 2 / (3 * m - 2), "complete": 1 / m}
    if weights == "delta" and 0 <= delta < 1:
        return {"posm": 0.5, "negm": 1 / (2 * (m - 1)), "complete": 1 / m}
    out = {}
    for name in ("posm", "negm", "complete"):
        strat = resolve_strategy(name, agents=agents, informative=informative, weights=weights)
        pi = influence(strat.matrix(agents, delta=delta))
        out[name] = float(pi[informative])
    return out
