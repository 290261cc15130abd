"""Atomic file writes: a temporary file in the target folder, renamed over the target.

A crash or an interrupted sweep never leaves a half-written file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_text", "atomic_write"]


def atomic_write(path, write) -> Path:
    """Call ``write(fh)`` on a binary temporary file, then rename it to ``path``.

    Examples
    --------
    >>> import tempfile
    >>> p = atomic_write(tempfile.mkdtemp() + "/a/b.bin", lambda fh: fh.write(b"hi"))
    >>> p.read_bytes()
    b'hi'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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
