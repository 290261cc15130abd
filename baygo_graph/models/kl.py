"""KL kernels of BayGo's graph step: who diverges most from whom, and ties at random.

``KL(p_i || p_j) = sum_k p_ik log p_ik - sum_k p_ik log p_jk``; the first term does
not depend on ``j``, so the most divergent neighbour is the one with the smallest
cross term. On the complete graph that is one (M, K) x (K, M) product; on a sparse
physical graph one dot product per edge, in cache-sized chunks.
"""

from __future__ import annotations

import numpy as np

from . import rows as _rows
from .rows import for_rows

__all__ = ["dense_argmin", "kl_choices", "kl_matrix", "segment_argmin"]

# Relative tolerance under which two KL scores of one agent count as a tie.
_TIE_RTOL = 1e-12
# Largest number of values gathered at once on the sparse KL path (~4 MB: stays in cache).
_CHUNK_VALUES = 1 << 19


def kl_matrix(logp: np.ndarray) -> np.ndarray:
    """Dense matrix of ``KL(p_i || p_j)`` between normalised log-posteriors.

    Parameters
    ----------
    logp : numpy.ndarray, shape (M, K)
        Normalised log-posteriors, one row per agent.

    Returns
    -------
    numpy.ndarray, shape (M, M)

    Examples
    --------
    >>> lp = np.log([[0.5, 0.5], [0.9, 0.1]])
    >>> kl_matrix(lp).round(4).tolist()
    [[0.0, 0.5108], [0.3681, 0.0]]
    """
    p = np.exp(logp)
    cross = p @ logp.T
    return np.diag(cross)[:, None] - cross


def segment_argmin(scores, indptr, columns, rng) -> np.ndarray:
    """Per CSR row, the column of the smallest finite score; ties at random; -1 if none."""
    rows = len(indptr) - 1
    out = np.full(rows, -1, dtype=np.int64)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if len(nonempty) == 0:
        return out
    starts = indptr[nonempty]
    lengths = np.diff(indptr)[nonempty]
    rowmin = np.minimum.reduceat(scores, starts)
    scale = np.maximum.reduceat(np.where(np.isfinite(scores), np.abs(scores), 0.0), starts)
    ok = np.isfinite(rowmin)
    row_of = np.repeat(np.arange(len(nonempty)), lengths)
    base = indptr[nonempty[0]]
    tie = scores[base : indptr[-1]] <= (rowmin + _TIE_RTOL * np.maximum(scale, 1.0))[row_of]
    n_ties = np.add.reduceat(tie.astype(np.int64), starts - base)
    # k-th tie of each row, k uniform in [0, n_ties); one draw per row with a tie only.
    pick = np.zeros(len(nonempty), dtype=np.int64)
    multi = np.flatnonzero(ok & (n_ties > 1))
    if len(multi):
        pick[multi] = rng.integers(0, n_ties[multi])
    rank = np.cumsum(tie) - 1
    first = np.concatenate([[0], np.cumsum(n_ties)[:-1]])
    chosen = tie & (rank == (first + pick)[row_of])
    sel = np.flatnonzero(chosen)
    out_rows = nonempty[row_of[sel]]
    out[out_rows] = columns[base + sel]
    out[nonempty[~ok]] = -1
    return out


def dense_argmin(
    scores, rng, *, mask_diagonal=False, row_scale=None, col_shift=None, seeds: int = 1
) -> np.ndarray:
    """:func:`segment_argmin` for a dense (M, N) score matrix (every row full).

    Same result and same draws from ``rng`` as the CSR version, with a few
    passes over each block of rows while it is in cache, the blocks on both
    cores (:func:`~baygo_graph.models.rows.for_rows`). With ``mask_diagonal``
    the diagonal is set to +inf here (complete graph), and each row's scale
    (largest finite ``|score|``) comes from its min and max over the other
    entries: two reductions instead of a masked ``abs`` pass. With
    ``row_scale`` and ``col_shift`` the scores are first corrected in place,
    ``scores[i, j] / row_scale[i] - col_shift[j]``.

    With ``seeds`` > 1 the rows are ``seeds`` runs' (N, N) score matrices one after
    the other, ``col_shift`` holds each run's shifts (``seeds * N`` values) and
    ``rng`` is a sequence of one generator per run: every run's rows give what they
    give alone, and draw from their own run's generator in the same order.
    """
    m, n = scores.shape
    if seeds > 1 and col_shift is not None:  # each row's own run's shifts
        col_shift = col_shift.reshape(seeds, 1, n)
    if m * n < _rows.MIN_VALUES:  # one block (what for_rows would do), no buffers to fill
        rowmin, bound, n_ties, out = _block_argmin(
            scores, 0, mask_diagonal, row_scale, col_shift, seeds
        )
    else:
        rowmin = np.empty(m, dtype=scores.dtype)
        bound = np.empty(m, dtype=scores.dtype)
        n_ties = np.empty(m, dtype=np.int64)
        out = np.empty(m, dtype=np.int64)

        def block(lo, hi):
            scale = None if row_scale is None else row_scale[lo:hi]
            rowmin[lo:hi], bound[lo:hi], n_ties[lo:hi], out[lo:hi] = _block_argmin(
                scores[lo:hi], lo, mask_diagonal, scale, col_shift, seeds
            )

        for_rows(block, m, n, itemsize=scores.itemsize)
    if m and np.maximum.reduce(n_ties) == 1 and np.isfinite(rowmin).all():
        return out  # one best neighbour each (the usual case): no draw, no -1
    ok = np.isfinite(rowmin)
    multi = np.flatnonzero(ok & (n_ties > 1))
    if len(multi):
        pick = _tie_picks(rng, n_ties[multi], multi // (m // seeds), seeds)
        tie = scores[multi] <= bound[multi, None]
        out[multi] = np.argmax(np.cumsum(tie, axis=1) > pick[:, None], axis=1)
    out[~ok] = -1
    return out


def _tie_picks(rng, n_ties, run, seeds) -> np.ndarray:
    """Which tie each tied row takes, uniform in ``[0, n_ties)``: one draw per run from
    its own generator (``run``: each row's run, ascending)."""
    if seeds == 1:
        return (rng[0] if isinstance(rng, list | tuple) else rng).integers(0, n_ties)
    pick = np.empty(len(n_ties), dtype=np.int64)
    for s in np.unique(run):  # the runs with a tie this step: a loop over runs
        mine = run == s
        pick[mine] = rng[s].integers(0, n_ties[mine])
    return pick


def _block_argmin(s, lo, mask_diagonal, row_scale, col_shift, seeds=1):
    """One block of rows of :func:`dense_argmin` (rows ``lo:lo + len(s)``; the
    corrections are applied to ``s`` in place): ``(rowmin, bound, n_ties, first tie)``."""
    if row_scale is not None:
        s /= row_scale[:, None]
        if seeds > 1:  # each row minus its own run's shifts
            n = s.shape[1]
            run = np.arange(lo, lo + len(s)) // n
            s -= col_shift[run, 0]
        else:
            s -= col_shift
    rowmin, bound = _row_bounds(s, lo, mask_diagonal, seeds)
    tie = s <= bound[:, None]
    # the count of ties as a sum of bools (count_nonzero with an axis is Python code)
    return rowmin, bound, tie.sum(axis=1), np.argmax(tie, axis=1)


def _row_bounds(s, lo, mask_diagonal, seeds=1):
    """Row minima of a block of scores and the tie bound ``min + 1e-12 max(scale, 1)``."""
    if mask_diagonal:
        n = s.shape[1]
        if seeds == 1 and s.flags.c_contiguous:  # the diagonal (r, lo + r), a strided view
            diag = s.reshape(-1)[lo : lo + len(s) * (n + 1) : n + 1]
        else:  # each row's own agent: (r, (lo + r) mod N) for stacked runs
            rows = np.arange(len(s))
            diag = _Cells(s, (rows, (rows + lo) % n))
        diag[...] = -np.inf
        rowmax = np.maximum.reduce(s, axis=1)
        diag[...] = np.inf
        rowmin = np.minimum.reduce(s, axis=1)
        if np.isfinite(rowmin).all() and np.isfinite(rowmax).all():  # the usual case
            scale = np.maximum(np.abs(rowmin), np.abs(rowmax))
        else:
            with np.errstate(invalid="ignore"):
                scale = np.maximum(np.abs(rowmin), np.abs(rowmax))
            odd = np.flatnonzero(~(np.isfinite(rowmin) & np.isfinite(rowmax)))
            if len(odd):  # a non-finite score off the diagonal: the general formula
                sub = s[odd]
                scale[odd] = np.abs(sub, where=np.isfinite(sub), out=np.zeros_like(sub)).max(axis=1)
    else:
        rowmin = s.min(axis=1)
        finite = np.isfinite(s)
        scale = np.abs(s, where=finite, out=np.zeros_like(s)).max(axis=1)
    return rowmin, rowmin + _TIE_RTOL * np.maximum(scale, 1.0)


class _Cells:
    """``cells[...] = value`` sets the cells ``index`` of ``array`` (a non-contiguous block's
    diagonal)."""

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __setitem__(self, key, value):
        self.array[self.index] = value


def _edge_cross(prob, logp, listen) -> np.ndarray:
    """``sum_k prob[i, k] logp[j, k]`` for every stored edge ``(i, j)`` of ``listen``.

    Rows are grouped by degree ``d``; each chunk of rows gathers only the
    ``logp`` rows of its neighbours, (b, d, K), and multiplies them by its own
    ``prob`` rows with one batched matrix-vector product. Chunks are small
    enough to stay in cache, so the work and memory traffic scale with the
    number of edges times K, not with M^2.
    """
    indptr, cols = listen.indptr, listen.indices
    deg = np.diff(indptr)
    k = prob.shape[1]
    cross = np.empty(len(cols), dtype=np.result_type(prob, logp))
    for d in np.unique(deg[deg > 0]):
        rows = np.flatnonzero(deg == d)
        step = max(1, _CHUNK_VALUES // (int(d) * k))
        for lo in range(0, len(rows), step):  # chunks of rows, bounded memory
            r = rows[lo : lo + step]
            pos = indptr[r][:, None] + np.arange(d)
            cross[pos] = np.matmul(logp[cols[pos]], prob[r, :, None])[..., 0]
    return cross


def kl_choices(prob, logp, *, listen=None, rng, row_scale=None, col_shift=None) -> np.ndarray:
    """BayGo's graph step: each agent's most divergent allowed neighbour.

    ``s_i = argmax_{j in S_i} KL(p_i || p_j)``. Since ``KL(p_i || p_j) =
    sum_k p_ik log p_ik - sum_k p_ik log p_jk`` and the first term does not
    depend on ``j``, this is the ``j`` with the smallest cross term
    ``sum_k p_ik log p_jk``: one (M, K) x (K, M) product on the complete graph,
    and one dot product per edge of a sparse ``listen`` graph (work scales with
    its number of edges; rows are processed in cache-sized chunks). Scores
    within a relative 1e-12 of the best count as ties and are broken uniformly
    at random with ``rng``.

    Parameters
    ----------
    prob, logp : numpy.ndarray, shape (M, K)
        Normalised posteriors and their logs.
    listen : scipy.sparse.csr_array of bool, shape (M, M), optional
        ``listen[i, j]`` is True when ``i`` may listen to ``j``; default: the
        complete graph. A dense path is used when it holds over a quarter of all
        pairs.
    rng : numpy.random.Generator
    row_scale, col_shift : numpy.ndarray, shape (M,), optional
        For unnormalised inputs: ``prob`` holds ``exp(logp)`` with row sums
        ``row_scale`` and ``logp`` is shifted per row by ``-col_shift`` (the
        log-normaliser). The scores are then corrected on the (M, M) or
        per-edge values, so no M x K normalisation pass is needed. Default:
        ``prob`` and ``logp`` are normalised.

    Returns
    -------
    numpy.ndarray of int, shape (M,)
        Chosen neighbour of each agent, ``-1`` for an agent with no neighbour.

    Notes
    -----
    Several runs at once, on the complete graph: ``prob`` and ``logp`` of shape
    (S, M, K) (run ``s``'s agents in ``[s]``), ``rng`` one generator per run,
    ``row_scale`` and ``col_shift`` of S x M values; the result (S x M,) holds each
    run's choices (agents numbered within the run), the same as run by run: one
    BLAS product per run, and each run's ties drawn from its own generator.

    Examples
    --------
    >>> lp = np.log([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    >>> kl_choices(np.exp(lp), lp, rng=np.random.default_rng(0)).tolist()
    [1, 2, 1]
    """
    if prob.ndim == 3:
        return _stacked_choices(prob, logp, rng, row_scale, col_shift)
    m = prob.shape[0]
    if listen is None or listen.nnz > m * m // 4:
        if row_scale is not None and prob.shape[1] < m:
            # fewer grid points than agents: normalising the (M, K) inputs is
            # cheaper than correcting the (M, M) scores
            prob = prob / row_scale[:, None]
            logp = logp - col_shift[:, None]
            row_scale = None
        cross = prob @ logp.T
        if listen is None:  # corrections fused with the argmin, block by block
            return dense_argmin(
                cross, rng, mask_diagonal=True, row_scale=row_scale, col_shift=col_shift
            )
        if row_scale is not None:
            cross /= row_scale[:, None]
            cross -= col_shift[None, :]
        cross[~listen.toarray()] = np.inf
        return dense_argmin(cross, rng)
    cross = _edge_cross(prob, logp, listen)
    if row_scale is not None:
        cross /= np.repeat(row_scale, np.diff(listen.indptr))
        cross -= col_shift[listen.indices]
    return segment_argmin(cross, listen.indptr, listen.indices, rng)


def _stacked_choices(prob, logp, rngs, row_scale, col_shift) -> np.ndarray:
    """:func:`kl_choices` of S runs on the complete graph: (S, M, K) inputs, (S x M,) out."""
    seeds, m, k = prob.shape
    if row_scale is not None and k < m:  # as kl_choices: normalise the inputs instead
        prob = prob / row_scale.reshape(seeds, m, 1)
        logp = logp - col_shift.reshape(seeds, m, 1)
        row_scale = col_shift = None
    cross = np.matmul(prob, logp.transpose(0, 2, 1))  # one BLAS product per run
    return dense_argmin(
        cross.reshape(seeds * m, m),
        rngs,
        mask_diagonal=True,
        row_scale=row_scale,
        col_shift=col_shift,
        seeds=seeds,
    )
