"""Per-row reductions over CSR-ordered edge scores, vectorised over all rows."""

from __future__ import annotations

import numpy as np

__all__ = ["TIE_RTOL", "segment_argmax"]

#: Relative tolerance under which two scores of one row count as a tie (the rule
#: of :func:`baygo_graph.strategies.kl_choices`).
TIE_RTOL = 1e-12


def segment_argmax(scores, indptr, rows, columns, rng) -> np.ndarray:
    """Per CSR row, the column of the largest score; ties at random; -1 for an empty row.

    Scores within ``TIE_RTOL * max(scale, 1)`` of the row's best, where ``scale``
    is the row's largest finite ``|score|``, count as ties; one uniform draw
    ``rng.integers(0, n_ties)`` for the rows with several ties, all at once (the
    rule of :func:`baygo_graph.strategies.kl_choices`, mirrored). A row whose
    best score is not finite gets -1.

    Examples
    --------
    >>> indptr, rows = np.array([0, 2, 2, 3]), np.array([0, 0, 2])
    >>> segment_argmax(np.array([1.0, 3.0, 0.5]), indptr, rows, np.array([4, 5, 6]),
    ...                np.random.default_rng(0)).tolist()
    [5, -1, 6]
    """
    n_rows = len(indptr) - 1
    out = np.full(n_rows, -1, dtype=np.int64)
    deg = np.diff(indptr)
    nonempty = np.flatnonzero(deg > 0)
    if len(nonempty) == 0:
        return out
    starts = indptr[nonempty]
    rowmax = np.full(n_rows, -np.inf)
    rowmax[nonempty] = np.maximum.reduceat(scores, starts)
    finite = np.isfinite(scores)
    if finite.all():
        rowmin = np.minimum.reduceat(scores, starts)
        scale = np.maximum(np.abs(rowmin), np.abs(rowmax[nonempty]))
    else:
        scale = np.maximum.reduceat(np.where(finite, np.abs(scores), 0.0), starts)
    ok = np.isfinite(rowmax)
    thresh = np.full(n_rows, np.inf)
    thresh[nonempty] = rowmax[nonempty] - TIE_RTOL * np.maximum(scale, 1.0)
    tie = scores >= thresh[rows]
    n_ties = np.zeros(n_rows, dtype=np.int64)
    n_ties[nonempty] = np.add.reduceat(tie.astype(np.int64), starts)
    pick = np.zeros(n_rows, dtype=np.int64)
    multi = np.flatnonzero(ok & (n_ties > 1))
    if len(multi):
        pick[multi] = rng.integers(0, n_ties[multi])
    sel = np.flatnonzero(tie)  # ties in CSR order
    first = np.cumsum(n_ties) - n_ties  # index in `sel` of each row's first tie
    good = np.flatnonzero(ok & (n_ties > 0))
    out[good] = columns[sel[first[good] + pick[good]]]
    return out
