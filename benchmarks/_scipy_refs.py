"""Independent SciPy references for the union influence of a user series (benchmarks only).

Short scripts written for the benchmarks, on purpose not using the package's solver:
each window's mean W is formed from the raw edge list with ``scipy.sparse``, then

* :func:`eigs_influence` - ARPACK's largest-magnitude eigenvector of ``U^T``
  (``scipy.sparse.linalg.eigs``, ``k=1``), made positive and summing to 1;
* :func:`power_influence` - a power iteration ``x <- x U`` from the uniform vector
  (U's diagonal is positive: aperiodic) until the largest change is below ``1e-15``
  (a mean W whose agents hear no one in most steps contracts slowly, ~0.9995 per
  iteration at M = 10^4: tens of thousands of iterations).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def window_means(step, src, dst, weight, m, windows):
    """Yield the mean W of each ``(start, stop)`` window: row-normalised per step (a
    node nobody reaches at a step keeps w_ii = 1 there), summed, divided by the length."""
    order = np.argsort(step, kind="stable")
    step, src, dst, weight = step[order], src[order], dst[order], weight[order]
    for start, stop in windows:
        lo, hi = np.searchsorted(step, [start, stop])
        s, i, j, w = step[lo:hi], dst[lo:hi], src[lo:hi], weight[lo:hi]
        rows, inverse = np.unique((s - start) * m + i, return_inverse=True)
        share = w / np.bincount(inverse, weights=w)[inverse]
        heard = np.bincount(rows % m, minlength=m)  # steps in which i heard someone
        off = sp.coo_array((share, (i, j)), shape=(m, m)).tocsr()
        yield (off + sp.diags_array((stop - start) - heard.astype(float))) / (stop - start)


def eigs_influence(u) -> np.ndarray:
    _, vec = spla.eigs(u.T, k=1, which="LM", tol=0)
    v = np.abs(vec[:, 0].real)
    return v / v.sum()


def power_influence(u, *, tol=1e-15, max_iter=1_000_000) -> np.ndarray:
    ut = sp.csr_array(u.T)
    x = np.full(u.shape[0], 1.0 / u.shape[0])
    for _ in range(max_iter):
        new = ut @ x
        new /= new.sum()
        if np.abs(new - x).max() < tol:
            return new
        x = new
    return x
