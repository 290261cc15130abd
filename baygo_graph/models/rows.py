"""Row-block passes over (M, K) arrays on both cores: numpy in a thread pool.

The element-wise passes of a grid step (log-likelihood add, row-max shift,
``exp``, normalisers, pooling, the KL scores' corrections and argmin) are
independent per row. :func:`for_rows` cuts the rows into cache-sized blocks
(~256 KiB), gives each thread one contiguous share of them, and calls a
function on every block: a block's passes run back to back while it sits in
cache (fused), and numpy releases the GIL inside its loops, so the threads run
in parallel. Every row is computed by the same numpy calls on the same values
as on the whole array, so the results are bit-identical to the single-pass
code, whatever the number of threads or the block size (tests check this).

Threads: ``BAYGO_NUM_THREADS`` if set, else ``OMP_NUM_THREADS`` (joblib's loky
workers set it to their share of the cores), else the cores this process may
run on; inside :func:`limit_threads` (a task of a Dask worker) at most that many.
Arrays under ~131,000 values take one call, no threads.

BLAS: :func:`blas_threads` picks the BLAS threads of a loop's matrix products by
their size (one thread below :data:`SMALL_PRODUCT_FLOPS`: a thread team costs more
than it saves on a product of tens of microseconds, and its waiting threads spin on
a busy machine), and :func:`blas_limit` applies it with :mod:`threadpoolctl`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = [
    "BLOCK_BYTES",
    "MIN_VALUES",
    "SMALL_PRODUCT_FLOPS",
    "blas_limit",
    "blas_threads",
    "exp_into",
    "for_rows",
    "limit_threads",
    "num_threads",
]

#: Below this many values (rows x cols), one call on all rows: threads would not pay.
MIN_VALUES = 1 << 17
#: Bytes of one block of rows: fits in a core's L2 cache.
BLOCK_BYTES = 1 << 18
#: Floating-point operations of a product below which BLAS runs on one thread (about a
#: millisecond on one core): the paper's KL product, 12 x 3,721 x 12, is 1.1e6.
SMALL_PRODUCT_FLOPS = 1 << 25
_EXECUTORS: dict = {}  # (pid, workers) -> ThreadPoolExecutor (none survive a fork)
_LIMIT: contextvars.ContextVar = contextvars.ContextVar("baygo_threads", default=None)
_CONTROLLER: list = []  # threadpoolctl's controller, made once (it scans the libraries)
# exp: below "fast", numpy's vector exp takes a per-value special path (~10x slower,
# ~100x for subnormal results); at or below "zero", exp(x) rounds to +0.0 exactly.
_EXP_LIMITS = {np.dtype(np.float64): (-700.0, -745.2), np.dtype(np.float32): (-80.0, -104.0)}


def num_threads() -> int:
    """Threads of :func:`for_rows`: ``BAYGO_NUM_THREADS``, ``OMP_NUM_THREADS`` or the cores.

    Examples
    --------
    >>> num_threads() >= 1
    True
    """
    limit = _LIMIT.get()
    for var in ("BAYGO_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").strip()
        if value.isdigit() and int(value) >= 1:
            return int(value) if limit is None else min(int(value), limit)
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return n if limit is None else min(n, limit)


@contextlib.contextmanager
def limit_threads(threads: int):
    """At most ``threads`` threads for :func:`for_rows` and BLAS inside the block (in
    this thread: e.g. one task of a Dask worker that runs several at once).

    Examples
    --------
    >>> with limit_threads(1):
    ...     num_threads()
    1
    """
    threads = max(1, int(threads))
    token = _LIMIT.set(threads)
    try:
        with blas_limit(threads):
            yield
    finally:
        _LIMIT.reset(token)


def blas_threads(flops: float) -> int | None:
    """BLAS threads for products of ``flops`` floating-point operations: 1 below
    :data:`SMALL_PRODUCT_FLOPS`, else this process's share of the cores
    (:func:`num_threads`: a loky worker's share, a Dask task's limit).

    Examples
    --------
    >>> blas_threads(2 * 12 * 3721 * 12)  # the paper's KL product
    1
    >>> blas_threads(2 * 1000 * 3721 * 1000) == num_threads()
    True
    """
    return 1 if flops < SMALL_PRODUCT_FLOPS else num_threads()


def _controller():
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


@contextlib.contextmanager
def blas_limit(threads: int | None):
    """BLAS (OpenBLAS, MKL, BLIS) on at most ``threads`` threads inside the block
    (None: unchanged), with :mod:`threadpoolctl`; the previous limits come back after.

    Examples
    --------
    >>> with blas_limit(1):
    ...     _ = np.ones((3, 3)) @ np.ones((3, 3))
    """
    if threads is None:
        yield
        return
    controller = _controller()
    current = [lib.num_threads for lib in controller.select(user_api="blas").lib_controllers]
    if all(n <= threads for n in current):  # nothing to lower: no calls into the libraries
        yield
        return
    with controller.limit(limits=threads, user_api="blas"):
        yield


def _executor(workers: int) -> ThreadPoolExecutor:
    key = (os.getpid(), workers)
    pool = _EXECUTORS.get(key)
    if pool is None:
        pool = _EXECUTORS[key] = ThreadPoolExecutor(workers, thread_name_prefix="baygo-rows")
    return pool


def for_rows(fn, rows: int, cols: int, *, itemsize: int = 8, threads: int | None = None) -> None:
    """Call ``fn(lo, hi)`` on blocks of rows covering ``range(rows)``, in parallel.

    Parameters
    ----------
    fn : callable
        ``fn(lo, hi)`` works on rows ``lo:hi`` only (and may read anything
        the other blocks do not write).
    rows, cols : int
        Shape of the arrays ``fn`` works on.
    itemsize : int, default 8
        Bytes per value (the block size is ~256 KiB of one array).
    threads : int, optional
        Default :func:`num_threads`. With 1, or fewer than ~131,000 values,
        everything runs in the calling thread (blocks still cache-sized above
        that size; one call on all rows below it).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(12.0).reshape(4, 3)
    >>> for_rows(lambda lo, hi: np.exp(a[lo:hi], out=a[lo:hi]), 4, 3)
    >>> bool(np.array_equal(a, np.exp(np.arange(12.0).reshape(4, 3))))
    True
    """
    if rows * cols < MIN_VALUES:
        if rows:
            fn(0, rows)
        return
    block = max(1, BLOCK_BYTES // max(1, cols * itemsize))
    n = max(1, min(num_threads() if threads is None else int(threads), -(-rows // block)))

    def share(lo, hi):
        for a in range(lo, hi, block):
            fn(a, min(a + block, hi))

    if n == 1:
        share(0, rows)
        return
    # contiguous shares, cut on block boundaries
    blocks = -(-rows // block)
    cuts = [min(rows, (blocks * i // n) * block) for i in range(n + 1)]
    futures = [_executor(n - 1).submit(share, cuts[i], cuts[i + 1]) for i in range(1, n)]
    try:
        share(cuts[0], cuts[1])
    finally:
        for f in futures:
            f.result()


def exp_into(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``numpy.exp(x, out=out)``, bit for bit, without numpy's slow path for most values.

    Log-posteriors shifted to maximum 0 are mostly far below -700 after a few
    hundred steps; numpy's vector ``exp`` computes such values one by one (and
    subnormal results very slowly). Here every value is clamped to -700 (-80
    in float32) for one fast vector pass; values below that are then set to
    0.0 (a multiplication by a mask), which is what ``exp`` rounds them to at or
    below -745.2 (-104), and only the few values in between get ``exp`` of their
    own value. Bit-identical because numpy's ``exp`` of a value does not
    depend on its neighbours in the array (tests check this). ``x`` and ``out``
    are C-contiguous and of the same shape, not the same array.

    Examples
    --------
    >>> x = np.array([0.0, -1.0, -710.0, -800.0, -np.inf, np.nan])
    >>> bool(np.array_equal(exp_into(x, np.empty(6)), np.exp(x), equal_nan=True))
    True
    """
    limits = _EXP_LIMITS.get(x.dtype)
    if limits is None:
        return np.exp(x, out=out)
    fast, zero = limits
    if x.size == 0 or x.min() >= fast:  # nothing on the slow path (NaN goes below)
        return np.exp(x, out=out)
    np.maximum(x, fast, out=out)
    np.exp(out, out=out)
    keep = x >= fast  # False below "fast" and for NaN
    if not keep.all():
        np.multiply(out, keep, out=out)  # 0.0 below "fast"; x * 1.0 == x elsewhere, NaN stays
        idx = np.flatnonzero((x < fast) & (x > zero))
        if len(idx):
            flat = out.reshape(-1)
            flat[idx] = np.exp(x.reshape(-1)[idx])
    return out
