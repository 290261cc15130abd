"""Reading ``.npz`` run files without trusting them (the zip part of the reading gate).

:func:`read_npz` opens the zip itself and reads only the members it is told
about. For each, *before* any byte is inflated, it refuses a member that is
encrypted or compressed with anything but stored/deflate (bzip2 and LZMA have no
useful bound on their expansion ratio), then parses the ``.npy`` header from the
decompressing stream and checks dtype, number of dimensions, the size the header
claims against the member's declared size, its compressed size (deflate cannot
shrink data by more than :data:`MAX_DEFLATE_RATIO`) and the memory budget (a text
member, the run's JSON metadata, counted with what parsing it takes:
:data:`~baygo_graph.limits.JSON_BYTES_PER_FILE_BYTE` a character). The
data are then streamed into a buffer of exactly the claimed size: a member that
holds more (whatever its declared size) fails at the first extra byte, one that
holds less fails as truncated. Object dtypes are refused (no pickles). Peak
memory: the arrays returned (within the budget) plus one block of 1 MiB (read in
blocks: asked for a whole member at once, a zip member reads it into new bytes
first, three times its size at the peak).

Why not ``numpy.load``: it inflates a member before its header can be checked
against the budget, and it accepts any compression :mod:`zipfile` knows. What is
kept here is only that: :mod:`zipfile` does the zip parsing, CRC and inflation,
numpy parses the ``.npy`` header.

:func:`validate_run_arrays` then checks a run's arrays against its metadata and
against each other, so an inconsistent file fails with
:class:`~baygo_graph.exceptions.RunFormatError` instead of giving wrong answers.
"""

from __future__ import annotations

import math
import tokenize
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .. import _text
from ..exceptions import RunFormatError
from ..limits import JSON_BYTES_PER_FILE_BYTE, check_budget, memory_limit

#: File name of a run inside a run folder.
RUN_FILE = "run.npz"

__all__ = [
    "MAX_DEFLATE_RATIO",
    "RUN_MEMBERS",
    "RUN_PREFIXES",
    "read_npz",
    "validate_run_arrays",
]

#: Deflate's largest possible expansion (about 1032:1) with some slack.
MAX_DEFLATE_RATIO = 1100
#: The members of a saved run: name -> (allowed dtype kinds, ndim).
RUN_MEMBERS = {
    "meta": ("U", 0),
    "mse": ("f", 2),
    "entropy": ("f", 2),
    "mean": ("f", 3),
    "choices": ("i", 2),
    "w_data": ("f", 1),
    "w_indices": ("iu", 1),
    "w_indptr": ("iu", 1),
    "e_step": ("iu", 1),
    "e_row": ("iu", 1),
    "e_col": ("iu", 1),
    "e_weight": ("f", 1),
    "posterior_steps": ("i", 1),
    "posteriors": ("f", 3),
}
#: Members named by a prefix: monitor and physical-graph records (1-D or 2-D).
RUN_PREFIXES = {"rec_": ("fiu", (1, 2))}
_KINDS = ("dynamic", "fixed", "edges", "cen")
_HEADER_MAX = 10_000
#: Bytes of a member read at a time (the member's own array is the only large one).
_BLOCK = 1 << 20
#: The only zip compressions accepted: their expansion is bounded (deflate ~1032:1).
_COMPRESSIONS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
# What a damaged zip or .npy makes the standard library raise.
_CORRUPT = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    RuntimeError,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    SyntaxError,
    tokenize.TokenError,  # numpy's fallback parse of an old-style .npy header
    KeyError,
)


def read_npz(path, *, expected: dict, prefixes=None, budget=None) -> dict:
    """Read the ``expected`` members of an ``.npz`` file, checking each before reading.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file.
    expected : dict of str to (str, int)
        Member name (without ``.npy``) -> (allowed dtype kinds, e.g. ``"iu"``,
        number of dimensions). Members not named here are never read; named
        members missing from the file are left out of the result.
    prefixes : dict of str to (str, tuple of int), optional
        Members whose name starts with a prefix: (allowed dtype kinds, allowed
        numbers of dimensions).
    budget : int or str, optional
        Memory budget for all members together (see
        :func:`baygo_graph.limits.memory_limit`).

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    RunFormatError
        Naming the member and the problem (not a zip, bad header, dtype, shape,
        sizes that do not add up, corrupt data).
    BudgetError
        When the headers claim more memory than the budget.

    Examples
    --------
    >>> import io, tempfile
    >>> p = tempfile.mkdtemp() + "/a.npz"
    >>> np.savez_compressed(p, x=np.arange(3), junk=np.zeros(5))
    >>> read_npz(p, expected={"x": ("i", 1)})
    {'x': array([0, 1, 2])}
    >>> read_npz(p, expected={"x": ("f", 1)})
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.RunFormatError: ...: member 'x' has dtype int64, expected kind 'f'
    """
    path = Path(path)
    memory_limit(budget)  # a bad budget fails before the file is opened
    where = repr(str(path))
    shown = _text.shorten(where, 80)  # in a budget refusal
    try:
        zf = zipfile.ZipFile(path)
    except _CORRUPT as e:
        raise RunFormatError(f"{where} is not a readable .npz (zip) file: {e}") from e
    out, total = {}, 0
    with zf:
        listed = zf.namelist()
        names = set(listed)
        if len(names) != len(listed):  # zipfile would read the last copy, unsaid
            twice = next(n for n in listed if listed.count(n) > 1)
            raise RunFormatError(
                f"{where}: member {_text.short_repr(twice, 60)} appears {listed.count(twice)} "
                "times in the zip: which copy is the run's is not said (refused)"
            )
        wanted = dict(expected)
        for prefix, spec in (prefixes or {}).items():
            wanted |= {
                n[:-4]: spec for n in sorted(names) if n.startswith(prefix) and n.endswith(".npy")
            }
        for name, (kinds, ndim) in wanted.items():
            if f"{name}.npy" not in names:
                continue
            info = zf.getinfo(f"{name}.npy")
            _check_info(info, name, where)
            try:
                with zf.open(info) as fh:
                    array, nbytes = _read_member(
                        fh, info, name, kinds, ndim, (budget, total), shown
                    )
            except _CORRUPT as e:
                if isinstance(e, RunFormatError):
                    raise RunFormatError(f"{where}: {e}") from None
                raise RunFormatError(f"{where}: member {name!r} is corrupt: {e}") from e
            total += nbytes
            out[name] = array
    return out


def _check_info(info, name, where) -> None:
    """Refuse an encrypted member or a compression other than stored/deflate, unread."""
    if info.flag_bits & 0x1:
        raise RunFormatError(f"{where}: member {name!r} is encrypted (refused)")
    if info.compress_type not in _COMPRESSIONS:
        raise RunFormatError(
            f"{where}: member {name!r} uses zip compression method {info.compress_type} "
            "(only stored and deflate are accepted)"
        )
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
        raise RunFormatError(f"{where}: stored member {name!r} has inconsistent sizes")


def _read_member(fh, info, name, kinds, ndim, budget, shown: str = "the file"):
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh, max_header_size=_HEADER_MAX)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh, max_header_size=_HEADER_MAX)
    else:
        raise RunFormatError(f"member {name!r} has unsupported .npy version {version}")
    if dtype.hasobject:
        raise RunFormatError(f"member {name!r} holds Python objects (refused)")
    if dtype.kind not in kinds:
        raise RunFormatError(
            f"member {name!r} has dtype {dtype}, expected kind {'/'.join(repr(k) for k in kinds)}"
        )
    ndims = ndim if isinstance(ndim, tuple) else (ndim,)
    if len(shape) not in ndims:
        want = " or ".join(map(str, ndims))
        raise RunFormatError(f"member {name!r} has shape {shape}, expected {want} dimensions")
    nbytes = math.prod(shape) * dtype.itemsize
    header = fh.tell() if fh.seekable() else None
    declared = info.file_size - (header or 0)
    if nbytes > declared:
        raise RunFormatError(
            f"member {name!r} claims shape {shape} ({nbytes} bytes) but holds {declared} bytes"
        )
    if nbytes > MAX_DEFLATE_RATIO * info.compress_size + 4096:
        raise RunFormatError(
            f"member {name!r} claims {nbytes} bytes from {info.compress_size} compressed "
            "bytes: more than deflate can produce"
        )
    limit, used = budget  # the file's budget, and what its members read so far took
    what = f"member {name!r} of {shown} (shape {shape})"
    need = nbytes
    if dtype.kind == "U":  # text: a run's JSON metadata, parsed to many times its size
        need += JSON_BYTES_PER_FILE_BYTE * (nbytes // 4)  # 4 bytes a character
        what = f"member {name!r} of {shown} ({nbytes // 4} characters of JSON, parsed)"
    check_budget(need, what=what, limit=limit, used=used)
    buf = bytearray(nbytes)
    view, got = memoryview(buf), 0
    while got < nbytes:  # in blocks: a zip member's readinto reads all it is asked for
        n = fh.readinto(view[got : got + _BLOCK])  # into a new bytes first, then copies
        if not n:
            raise RunFormatError(f"member {name!r} is truncated: {got} of {nbytes} bytes")
        got += n
    if fh.read(1):
        raise RunFormatError(f"member {name!r} has data after its {nbytes} bytes")
    array = np.frombuffer(buf, dtype=dtype)
    array = array.reshape(shape, order="F" if fortran else "C")
    return array, need


def _fail(msg):
    raise RunFormatError(msg)


def _check_float(name, a, shape):
    """The member's shape, and finite values: a run's metrics are never NaN or infinite
    (:class:`~baygo_graph.exceptions.NonFiniteError` stops a run that goes so)."""
    if a.shape != shape:
        _fail(f"{name} has shape {a.shape}, expected {shape}")
    bad = ~np.isfinite(a)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        _fail(
            f"member {name!r} holds {float(a[at])!r} at step {at[0]}, agent {at[1]} (a run's "
            "metrics are finite: a run that goes non-finite is stopped, never saved)"
        )


def _check_meta(meta, m):
    if not isinstance(meta, dict):
        _fail(f"meta must be a JSON object, got {type(meta).__name__}")
    for key in ("strategy", "kind", "informative", "delta", "config"):
        if key not in meta:
            _fail(f"meta has no {key!r}")
    if not isinstance(meta["strategy"], str):
        _fail(f"strategy must be a string, got {meta['strategy']!r}")
    if meta["kind"] not in _KINDS:
        _fail(f"kind must be one of {_KINDS}, got {meta['kind']!r}")
    if not isinstance(meta["config"], dict):
        _fail(f"config must be a JSON object, got {type(meta['config']).__name__}")
    data = meta["config"].get("data", {})
    if not isinstance(data, dict):
        _fail(f"config['data'] must be a JSON object, got {type(data).__name__}")
    if not isinstance(data.get("source", ""), str) or not isinstance(
        data.get("synthetic", False), bool
    ):
        _fail("config['data'] must have a text 'source' and a true/false 'synthetic'")
    inf = meta["informative"]
    if isinstance(inf, bool) or not isinstance(inf, int) or not 0 <= inf < m:
        _fail(f"informative must be an agent id in [0, {m}), got {inf!r}")
    delta = meta["delta"]
    if isinstance(delta, bool) or not isinstance(delta, int | float) or not 0 <= delta <= 1:
        _fail(f"delta must be a number in [0, 1], got {delta!r}")


def _check_csr(arrays, m):
    data, indices, indptr = (arrays.get(k) for k in ("w_data", "w_indices", "w_indptr"))
    if data is None or indices is None or indptr is None:
        _fail("a fixed run needs w_data, w_indices and w_indptr")
    if indptr.shape != (m + 1,) or indptr[0] != 0 or (np.diff(indptr) < 0).any():
        _fail(f"w_indptr must be {m + 1} non-decreasing offsets from 0")
    if not len(data) == len(indices) == indptr[-1]:
        _fail(f"w_data ({len(data)}), w_indices ({len(indices)}) and w_indptr[-1] disagree")
    if len(indices) and (indices.min() < 0 or indices.max() >= m):
        _fail(f"w_indices must be agent ids in [0, {m})")
    if not np.isfinite(data).all() or (data < 0).any():
        _fail("w_data must be finite and non-negative")
    rows = np.add.reduceat(data, indptr[:-1]) if len(data) else np.zeros(m)
    rows = np.where(np.diff(indptr) > 0, rows, 0.0)
    if not np.allclose(rows, 1.0, atol=1e-6):
        _fail("the fixed weight matrix is not row-stochastic (rows must sum to 1)")


def _check_edges(arrays, t, m):
    keys = ("e_step", "e_row", "e_col", "e_weight")
    if any(k not in arrays for k in keys):
        _fail(f"an edges run needs {', '.join(keys)}")
    step, row, col, w = (arrays[k] for k in keys)
    if not len(step) == len(row) == len(col) == len(w):
        _fail("e_step, e_row, e_col and e_weight must have one length")
    if len(step) and (step.min() < 0 or step.max() >= t or (np.diff(step) < 0).any()):
        _fail(f"e_step must be sorted steps in [0, {t})")
    for name, ids in (("e_row", row), ("e_col", col)):
        if len(ids) and (ids.min() < 0 or ids.max() >= m):
            _fail(f"{name} must be agent ids in [0, {m})")
    if not np.isfinite(w).all() or (w < 0).any():
        _fail("e_weight must be finite and non-negative")


def _check_records(arrays, t, m):
    for key, a in arrays.items():
        if not key.startswith("rec_") or key.startswith("rec_physical_"):
            continue
        if a.shape != (t, m):
            _fail(f"record {key[4:]!r} has shape {a.shape}, expected {(t, m)}")
    src, dst = arrays.get("rec_physical_src"), arrays.get("rec_physical_dst")
    if (src is None) != (dst is None) or (src is not None and src.shape != dst.shape):
        _fail("physical_src and physical_dst must come together, of one length")
    if (
        src is not None
        and len(src)
        and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= m)
    ):
        _fail(f"physical edges must be agent ids in [0, {m})")
    ptr = arrays.get("rec_physical_ptr")
    if ptr is not None:
        if src is None or ptr.shape != (t + 1,) or ptr[0] != 0 or (np.diff(ptr) < 0).any():
            _fail(f"physical_ptr must be {t + 1} non-decreasing offsets from 0")
        if ptr[-1] != len(src):
            _fail("physical_ptr does not end at the number of physical edges")


def validate_run_arrays(meta, arrays: dict) -> None:
    """Check a run's arrays against its metadata and each other.

    Parameters
    ----------
    meta : dict
        The decoded ``meta`` JSON (format marker already checked).
    arrays : dict of str to numpy.ndarray
        As :func:`read_npz` returns them for :data:`RUN_MEMBERS`.

    Raises
    ------
    RunFormatError
        Naming the first inconsistency found.

    Examples
    --------
    >>> meta = {"strategy": "nocol", "kind": "cen", "informative": 0, "delta": 0.5,
    ...         "config": {}}
    >>> z = np.zeros((2, 3))
    >>> arrays = {"mse": z, "entropy": z, "mean": np.zeros((2, 3, 2)),
    ...           "posterior_steps": np.zeros(0, dtype=int)}
    >>> validate_run_arrays(meta, arrays)
    >>> validate_run_arrays(meta | {"informative": 3}, arrays)
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.RunFormatError: informative must be an agent id in [0, 3), got 3
    """
    for key in ("mse", "entropy", "mean", "posterior_steps"):
        if key not in arrays:
            _fail(f"the run has no {key!r} array")
    if arrays["mse"].ndim != 2 or 0 in arrays["mse"].shape:
        _fail(f"mse must be a non-empty (T, M) array, got shape {arrays['mse'].shape}")
    t, m = arrays["mse"].shape
    _check_meta(meta, m)
    _check_float("mse", arrays["mse"], (t, m))
    _check_float("entropy", arrays["entropy"], (t, m))
    d = arrays["mean"].shape[-1] if arrays["mean"].ndim == 3 else 0
    if not 1 <= d <= 16:
        _fail(f"mean must have shape (T, M, d) with 1 <= d <= 16, got {arrays['mean'].shape}")
    _check_float("mean", arrays["mean"], (t, m, d))
    kind = meta["kind"]
    if kind == "dynamic":
        ch = arrays.get("choices")
        if ch is None or ch.shape != (t, m):
            _fail(f"a dynamic run needs choices of shape {(t, m)}")
        if ch.min() < -1 or ch.max() >= m:
            _fail(f"choices must be agent ids in [-1, {m}), got {ch.min()}..{ch.max()}")
    elif "choices" in arrays:
        _fail(f"a {kind} run has no choices array")
    if kind == "fixed":
        _check_csr(arrays, m)
    elif "w_data" in arrays:
        _fail(f"a {kind} run has no fixed weights")
    if kind == "edges":
        _check_edges(arrays, t, m)
    _check_records(arrays, t, m)
    steps = arrays["posterior_steps"]
    if len(steps) and (steps.min() < 0 or steps.max() >= t or len(np.unique(steps)) < len(steps)):
        _fail(f"posterior_steps must be distinct steps in [0, {t})")
    post = arrays.get("posteriors")
    if len(steps) and (post is None or post.shape[:2] != (len(steps), m)):
        _fail(f"posteriors must have shape ({len(steps)}, {m}, K)")
    if not len(steps) and post is not None:
        _fail("posteriors present but posterior_steps is empty")
    if post is not None and np.isposinf(post).any() | np.isnan(post).any():
        _fail("posteriors must be log-probabilities (no NaN or +inf)")
