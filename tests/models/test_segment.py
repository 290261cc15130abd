"""segment_argmax against a per-row loop, with ties, empty and non-finite rows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph.models.segment import TIE_RTOL, segment_argmax


def test_empty_and_nonfinite_rows_get_minus_one():
    indptr = np.array([0, 2, 2, 4, 5])
    rows = np.repeat(np.arange(4), np.diff(indptr))
    scores = np.array([1.0, 2.0, np.nan, np.nan, -np.inf])
    out = segment_argmax(scores, indptr, rows, np.array([7, 8, 9, 10, 11]), np.random.default_rng())
    assert out.tolist() == [8, -1, -1, -1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12), st.integers(0, 2**32 - 1))
def test_matches_a_loop_over_rows(degrees, seed):
    rng = np.random.default_rng(seed)
    indptr = np.concatenate([[0], np.cumsum(degrees)])
    rows = np.repeat(np.arange(len(degrees)), degrees)
    scores = rng.integers(0, 3, indptr[-1]).astype(float)  # small integers: many ties
    scores += rng.choice([0.0, 0.1 * TIE_RTOL], indptr[-1])  # within the tolerance: still ties
    columns = rng.permutation(100)[: indptr[-1]]
    out = segment_argmax(scores, indptr, rows, columns, np.random.default_rng(seed))
    # reference: one row at a time, the same single draw for the rows with several ties
    ties = []
    for r in range(len(degrees)):
        seg = scores[indptr[r] : indptr[r + 1]]
        if len(seg) == 0:
            ties.append([])
            continue
        ties.append(np.flatnonzero(seg >= seg.max() - TIE_RTOL * max(np.abs(seg).max(), 1.0)))
    multi = [r for r, t in enumerate(ties) if degrees[r] and len(t) > 1]
    picks = np.random.default_rng(seed).integers(0, [len(ties[r]) for r in multi]) if multi else []
    pick = dict(zip(multi, picks, strict=True))
    expected = [
        columns[indptr[r] + ties[r][pick.get(r, 0)]] if degrees[r] else -1
        for r in range(len(degrees))
    ]
    assert out.tolist() == [int(e) for e in expected]
