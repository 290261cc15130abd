"""Atomic file writes: a temporary file in the target folder, renamed over the target.

A crash or an interrupted sweep never leaves a half-written file behind. Files
get the mode an ordinary ``open(path, "w")`` would give (``0o666`` less the
umask), not ``mkstemp``'s private ``0o600``.

Temporary files carry a name only this package makes,
``.<name>.baygo-<pid>-<random>.tmp`` (:data:`TMP_NAME`). A write killed by SIGKILL
can leave one behind; writers remove such leftovers from their folder
(:func:`clean_stale_tmp`) only when they are provably ours: the name matches
:data:`TMP_NAME` exactly, the writing process (its pid is in the name) is gone,
and the file was not modified for :data:`STALE_TMP_SECONDS`. Any other file,
``.notes.tmp`` or ``.x.1234.tmp`` included, is never touched.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

__all__ = [
    "STALE_TMP_SECONDS",
    "TMP_NAME",
    "atomic_text",
    "atomic_write",
    "clean_stale_tmp",
    "make_parent",
    "umask_mode",
]

#: Age (seconds) after which a leftover temporary file of a dead writer is stale.
STALE_TMP_SECONDS = 3600.0
#: The names of our temporary files: ``.<name>.baygo-<pid>-<8 random chars>.tmp``.
TMP_NAME = re.compile(r"^\..+\.baygo-(?P<pid>[0-9]{1,10})-[a-z0-9_]{8}\.tmp$")


def _tmp_prefix(path: Path) -> str:
    return f".{path.name}.baygo-{os.getpid()}-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's live process, or not a pid we can judge: keep
    return True


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
    """Remove our leftover temporary files in ``folder`` (see the module docstring).

    A file is removed only when its name matches :data:`TMP_NAME`, its writer's pid
    is not a live process, and it was not modified for ``older_than`` seconds;
    a missing folder is fine.

    Returns
    -------
    list of pathlib.Path
        The files removed.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in (".run.npz.baygo-999999999-abcd1234.tmp", ".run.npz.x1.tmp"):
    ...     _ = (d / name).write_bytes(b"")
    >>> [p.name for p in clean_stale_tmp(d, older_than=0)], [p.name for p in d.iterdir()]
    (['.run.npz.baygo-999999999-abcd1234.tmp'], ['.run.npz.x1.tmp'])
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    now, removed = time.time(), []
    for tmp in folder.glob(".*.baygo-*.tmp"):
        match = TMP_NAME.match(tmp.name)
        if match is None or _pid_alive(int(match["pid"])):
            continue
        try:
            if tmp.is_file() and not tmp.is_symlink() and now - tmp.stat().st_mtime >= older_than:
                tmp.unlink()
                removed.append(tmp)
        except OSError:  # raced with another cleaner
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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_tmp_prefix(path), suffix=".tmp")
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
