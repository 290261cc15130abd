"""Claim files: let several processes share a folder of tasks without doing one twice.

Also :func:`die_with_parent`, so worker processes never outlive the process that
hands them tasks.

A process about to run task ``<id>`` creates ``<id>.claim`` with
``O_CREAT | O_EXCL`` (atomic: exactly one creator wins, also on NFS v3+), holding
``{"pid", "host", "time"}``. It removes the claim once the task's result is
written. A claim is *stale*, and may be retaken, when its process is dead (same
host) or it is older than ``timeout`` seconds (any host); a claim file left
empty or unreadable by a killed writer is stale after :data:`EMPTY_GRACE` seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

__all__ = ["CLAIM_TIMEOUT", "EMPTY_GRACE", "claim", "die_with_parent", "is_stale", "release"]

#: Seconds after which any claim is stale (a task never takes this long).
CLAIM_TIMEOUT = 6 * 3600.0
#: Seconds after which an empty or unreadable claim file is stale.
EMPTY_GRACE = 60.0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's live process, or not a pid we can judge
    return True


def _read(path: Path):
    try:
        doc = json.loads(path.read_text())
        return doc if isinstance(doc, dict) else None
    except (OSError, ValueError):
        return None


def is_stale(path, *, timeout: float = CLAIM_TIMEOUT) -> bool:
    """True when the claim at ``path`` may be retaken (see the module's docstring).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.claim"
    >>> claim(p), is_stale(p), claim(p)
    (True, False, False)
    >>> is_stale(p, timeout=-1.0)
    True
    """
    path = Path(path)
    doc = _read(path)
    now = time.time()
    if doc is None:
        try:
            return now - path.stat().st_mtime > EMPTY_GRACE
        except OSError:
            return True
    started = doc.get("time")
    if not isinstance(started, int | float) or now - started > timeout:
        return True
    pid = doc.get("pid")
    if doc.get("host") == socket.gethostname() and isinstance(pid, int):
        return not _pid_alive(pid)
    return False


def claim(path, *, timeout: float = CLAIM_TIMEOUT) -> bool:
    """Try to claim the task of ``path``; True when this process now holds it.

    A stale claim is retaken: it is first renamed aside (one process wins the
    rename), checked to still be the stale claim, then a fresh claim is created.
    """
    path = Path(path)
    body = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": time.time()})
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            seen = path.read_bytes() if path.exists() else b""
            if not is_stale(path, timeout=timeout):
                return False
            aside = path.with_name(f"{path.name}.{os.getpid()}.stale")
            try:
                os.rename(path, aside)
            except FileNotFoundError:
                continue  # another process retook it first; try once more
            if aside.read_bytes() != seen:  # raced: that was a fresh claim, put it back
                with contextlib.suppress(FileExistsError):
                    os.link(aside, path)
                aside.unlink(missing_ok=True)
                return False
            aside.unlink(missing_ok=True)
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(body)
        return True
    return False


def release(path) -> None:
    """Remove the claim at ``path`` if this process holds it (missing is fine)."""
    path = Path(path)
    doc = _read(path)
    if (
        doc is not None
        and doc.get("pid") == os.getpid()
        and doc.get("host") == (socket.gethostname())
    ):
        path.unlink(missing_ok=True)


def die_with_parent() -> None:
    """Linux: have the kernel kill this process when its parent dies (even by SIGKILL).

    Called at the start of each task in a local sweep worker, so no worker - nor the
    resource tracker the workers keep alive - outlives the sweep. Elsewhere a no-op.

    Examples
    --------
    >>> die_with_parent()  # doctest: +SKIP
    """
    if sys.platform != "linux":  # pragma: no cover - other systems: loky's own checks
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        pass
