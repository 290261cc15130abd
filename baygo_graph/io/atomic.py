"""Atomic file writes: a temporary file in the target folder, renamed over the target.

A crash or an interrupted sweep never leaves a half-written file behind. Files
get the mode an ordinary ``open(path, "w")`` would give (``0o666`` less the
umask), not ``mkstemp``'s private ``0o600``. A write killed by SIGKILL can leave
its hidden ``.<name>.<random>.tmp`` file; writers remove such files older than
:data:`STALE_TMP_SECONDS` from their folder (:func:`clean_stale_tmp`).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

__all__ = [
    "STALE_TMP_SECONDS",
    "atomic_text",
    "atomic_write",
    "clean_stale_tmp",
    "make_parent",
    "umask_mode",
]

#: Age (seconds) after which a leftover ``.*.tmp`` file is considered stale.
STALE_TMP_SECONDS = 3600.0


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` less the process umask (what ``open()`` would create).

    Examples
    --------
    >>> old = os.umask(0o022); umask_mode(), os.umask(old) == 0o022
    (420, True)
    """
    try:  # Linux: read it without changing it (os.umask is racy across threads)
        with open("/proc/self/status") as fh:
            line = next(x for x in fh if x.startswith("Umask:"))
        mask = int(line.split()[1], 8)
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return mode & ~mask


def clean_stale_tmp(folder, *, older_than: float = STALE_TMP_SECONDS) -> list[Path]:
    """Remove ``.*.tmp`` files in ``folder`` not modified for ``older_than`` seconds.

    Only files named like :func:`atomic_write`'s temporary files
    (``.<name>.<random>.tmp``) are touched; a missing folder is fine.

    Returns
    -------
    list of pathlib.Path
        The files removed.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / ".run.npz.x1.tmp").write_bytes(b"")
    >>> [p.name for p in clean_stale_tmp(d, older_than=0)], sorted(d.iterdir())
    (['.run.npz.x1.tmp'], [])
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    now, removed = time.time(), []
    for tmp in folder.glob(".*.tmp"):
        try:
            if tmp.is_file() and now - tmp.stat().st_mtime >= older_than:
                tmp.unlink()
                removed.append(tmp)
        except OSError:  # raced with another cleaner or not ours to remove
            continue
    return removed


def make_parent(path) -> Path:
    """Create the folder ``path`` goes in (and its parents); returns ``Path(path)``.

    A file where a folder should be is a ``NotADirectoryError`` naming both, and
    an existing folder at ``path`` itself an ``IsADirectoryError`` (not the
    system's "File exists" or "Is a directory" about a temporary file).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "x").write_text("")
    >>> make_parent(d / "x" / "y.txt")
    Traceback (most recent call last):
    ...
    NotADirectoryError: .../x/y.txt: parent .../x is a file, not a folder
    """
    path = Path(path)
    for parent in path.parents:  # the nearest existing one decides
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"{path}: parent {parent} is a file, not a folder")
            break
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a folder, not a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write(path, write) -> Path:
    """Call ``write(fh)`` on a binary temporary file, then rename it to ``path``.

    Creates the parent folder (:func:`make_parent`); the file's mode follows the
    umask; stale temporary files of killed writes in the folder are removed first.

    Examples
    --------
    >>> import tempfile
    >>> p = atomic_write(tempfile.mkdtemp() + "/a/b.bin", lambda fh: fh.write(b"hi"))
    >>> p.read_bytes(), oct(p.stat().st_mode & 0o777) == oct(umask_mode())
    (b'hi', True)
    """
    path = make_parent(path)
    clean_stale_tmp(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, umask_mode())
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))
