"""Task locks: let several processes share a folder of tasks without doing one twice.

Also :func:`die_with_parent`, so worker processes never outlive the process that
hands them tasks.

A process about to run task ``<id>`` takes a non-blocking OS file lock on
``<id>.claim`` with :class:`filelock.FileLock` (``flock``; also honoured over NFS
v4 by Linux) and holds it until the task's result is written. The kernel drops
the lock when its process exits, however it dies, so there is no "stale claim"
to judge and no window in which two processes can both believe they hold one
(the hand-written ``O_EXCL`` claim files this replaces had to guess staleness
from a pid and a clock, and two processes retaking one stale claim could both
win). :mod:`filelock` also handles the lock file being removed by a releasing
peer while another waits on it.

What filelock cannot do, and is kept here: remember which locks this process
holds by path (:func:`claim` / :func:`release` take a path, so callers need not
carry lock objects between the code that claims tasks and the callback that
finishes them); remove the lock file on release (on Unix filelock keeps it, and
a finished sweep folder should not fill with empty ``.claim`` files): it is
unlinked *while still locked*, so a peer waiting on the old file finds it
unlinked once it gets the lock and retries on a fresh one (filelock >= 4.3 checks
``st_nlink`` after locking); and :func:`die_with_parent`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["claim", "die_with_parent", "held", "release"]

_HELD: dict[Path, FileLock] = {}
_GUARD = threading.Lock()
_WATCHING = False  # die_with_parent's thread started in this process


def _key(path) -> Path:
    return Path(path).absolute()


def claim(path) -> bool:
    """Try to lock the task of ``path`` without waiting; True when this process holds it.

    False when another process (or another claim of this one) holds it.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.claim"
    >>> claim(p), claim(p), held(p)
    (True, False, True)
    >>> release(p); held(p), claim(p)
    (False, True)
    >>> release(p)
    """
    key = _key(path)
    with _GUARD:
        if key in _HELD:
            return False
        lock = FileLock(key, blocking=False, thread_local=False)
        try:
            lock.acquire()
        except Timeout:
            return False
        _HELD[key] = lock
        return True


def held(path) -> bool:
    """True when this process holds the lock of ``path``."""
    with _GUARD:
        return _key(path) in _HELD


def release(path) -> None:
    """Give back the lock of ``path`` if this process holds it (otherwise nothing)."""
    with _GUARD:
        lock = _HELD.pop(_key(path), None)
    if lock is not None:
        with contextlib.suppress(OSError):  # unlink first, while the lock is still ours
            Path(lock.lock_file).unlink()
        lock.release(force=True)


def die_with_parent() -> None:
    """End this process when its parent dies (even by SIGKILL); call it in a worker.

    Two guards, so no worker - nor the resource tracker the workers keep alive -
    outlives the sweep: on Linux the kernel's ``PR_SET_PDEATHSIG`` (which fires on
    the death of the parent *thread* that started the worker), and everywhere a
    daemon thread that ends the process within a second of its parent's death
    (its parent process id changes). Called once per worker, at its start.

    Examples
    --------
    >>> die_with_parent()  # doctest: +SKIP
    """
    global _WATCHING
    with _GUARD:
        if _WATCHING:
            return
        _WATCHING = True
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)  # the parent is gone: no one reads what this worker would send

    threading.Thread(target=watch, name="baygo-die-with-parent", daemon=True).start()
    if sys.platform != "linux":  # pragma: no cover - other systems: the thread alone
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        pass
