"""Ctrl-C (and SIGTERM, SIGHUP) while the ``baygo`` command runs or is still importing
the package.

The command's own handler (:func:`baygo_graph.cli.main`: ``baygo: aborted``, exit code
130) starts only once numpy, SciPy, pandas and matplotlib are imported, seconds on a busy
machine; a Ctrl-C before that printed an import traceback. Imported first by the
package, this module gives the ``baygo`` script the same one line from its first
moment; :func:`baygo_graph.cli.main` puts Python's own handler back. The command's
worker processes ignore Ctrl-C (:data:`CLI_PID_ENV`). Importing the package from
Python changes nothing (the script's name and that variable decide).
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time

__all__ = [
    "CLI_PID_ENV",
    "STOP_SIGNALS",
    "Terminated",
    "aborted_while_starting",
    "deferred_interrupt",
    "is_script",
    "never_lose_a_stop",
    "restart_dead_tracker",
    "say_aborted",
    "stop_behind",
    "stop_exception",
    "stop_pending",
    "workers_ignore_ctrl_c",
]

#: Set by :func:`baygo_graph.cli.main` while a command runs: the command's process id.
#: A process that imports the package with another id in it is one of the command's
#: workers (loky hands them the script's ``sys.argv``): it ignores Ctrl-C, the command
#: stops it, so a Ctrl-C prints ``baygo: aborted`` once and no worker's traceback.
CLI_PID_ENV = "BAYGO_CLI_PID"


#: The signals besides Ctrl-C that stop a command like it: SIGTERM (``timeout``, a batch
#: system's time limit, ``kill``) and SIGHUP (the terminal closed, an ssh connection
#: dropped); the command exits with 128 + the signal's number (143, 129).
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


class Terminated(KeyboardInterrupt):
    """A signal of :data:`STOP_SIGNALS` while a ``baygo`` command runs: it stops like a
    Ctrl-C (temporary files removed, the files said finished are whole) and exits with
    128 + ``signum``.

    Examples
    --------
    >>> Terminated(signal.SIGHUP).name, Terminated().signum == signal.SIGTERM
    ('SIGHUP', True)
    """

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        """The signal's name (``"SIGTERM"``)."""
        return signal.Signals(self.signum).name


#: The stop signals a handler of ours turned into an exception while a command runs
#: (:func:`stop_on_signals`; while it starts, :func:`aborted_while_starting`): a stop
#: whose exception was swallowed on its way (a bare ``except:`` in a library, Python's
#: ``__set_name__`` wrapping it in a RuntimeError) is still known here.
_pending: list[int] = []


def stop_pending() -> int | None:
    """The signal of a stop this command received, or None (see :data:`_pending`)."""
    return _pending[0] if _pending else None


def stop_behind(exc: BaseException) -> int | None:
    """The stop signal an exception stands for: itself or one in its chain (``raise ...
    from``, an exception raised while handling one) a Ctrl-C or :class:`Terminated`,
    else the pending stop (see :data:`_pending`), else None."""
    seen = 0
    while exc is not None and seen < 50:
        signum = _stop_signal(exc)
        if signum is not None:
            return signum
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return stop_pending()


def stop_exception(signum: int) -> KeyboardInterrupt:
    """The exception a stop by ``signum`` raises in a command."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _terminated(signum, frame):
    _pending.append(signum)
    raise Terminated(signum)


def _interrupted(signum, frame):
    """Python's own Ctrl-C (``KeyboardInterrupt``), recorded as pending."""
    _pending.append(signum)
    raise KeyboardInterrupt


#: Whether ``baygo: aborted`` has been said in this process (it is said once).
_said = []


def say_aborted(line: str) -> None:
    """Write the abort line to stderr, once per process (a stop signal delivered again
    after Python dropped it, see :func:`_unraisable`, says nothing more)."""
    if _said:
        return
    _said.append(line)
    with contextlib.suppress(OSError, ValueError):  # a closed terminal takes no line
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _stop_signal(exc) -> int | None:
    """The signal a stop exception of ours (or Python's Ctrl-C) stands for, else None."""
    if isinstance(exc, Terminated):
        return exc.signum
    if isinstance(exc, KeyboardInterrupt):
        return signal.SIGINT
    return None


def _unraisable(args) -> None:
    """A stop raised where Python cannot raise (a ``__del__``, a weakref callback: Python
    prints "Exception ignored in ..." and drops it) is sent again, quietly: it stops the
    command at its next statement outside such a callback. A signal handler's exception
    lands wherever the main thread is; matplotlib runs weakref callbacks at every figure,
    and a SIGTERM there was lost (the command ran on and exited 0)."""
    signum = _stop_signal(args.exc_value)
    if signum is None:
        return _unraisable.before(args)
    # sent from another thread, a moment later: sent from here, its handler would run
    # inside this hook, where it would be dropped again
    _thread.start_new_thread(_send_later, (signum,))
    return None


def _send_later(signum: int) -> None:
    time.sleep(0.01)
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signum)  # to the process: Python runs it in the main thread


_unraisable.before = sys.__unraisablehook__


def never_lose_a_stop() -> None:
    """From now on, in this process, a stop signal's exception dropped inside a callback
    is delivered again (:func:`_unraisable`); other unraisable exceptions go to the hook
    before. For the ``baygo`` command's own process, from its first moment."""
    if sys.unraisablehook is not _unraisable:
        _unraisable.before = sys.unraisablehook
        sys.unraisablehook = _unraisable


@contextlib.contextmanager
def stop_on_signals():
    """While the block runs (in the main thread), each signal of :data:`STOP_SIGNALS`
    that is not handled already raises :class:`Terminated`, and a stop dropped inside a
    callback is delivered again (:func:`never_lose_a_stop`); the handlers before are
    restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    previous = {s: h for s, h in previous.items() if h in (signal.SIG_DFL, aborted_while_starting)}
    for s in previous:
        signal.signal(s, _terminated)
    ctrl_c = signal.getsignal(signal.SIGINT)
    if ctrl_c is signal.default_int_handler:  # Python's own: the same, and recorded
        signal.signal(signal.SIGINT, _interrupted)
    hook = sys.unraisablehook
    never_lose_a_stop()
    try:
        if _pending:  # a stop while the command started, dropped on its way: said
            raise stop_exception(_pending[0])
        _said.clear()  # this run says its own abort line
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if ctrl_c is signal.default_int_handler:
            signal.signal(signal.SIGINT, ctrl_c)
        sys.unraisablehook = hook
        _pending.clear()  # the next command of this process starts afresh


def is_script() -> bool:
    """True in the ``baygo`` script's own process (not in its workers)."""
    owner = os.environ.get(CLI_PID_ENV)
    if owner is not None and owner != str(os.getpid()):
        return False
    return os.path.basename(sys.argv[0] if sys.argv else "") in ("baygo", "baygo.exe")


def aborted_while_starting(signum, frame):  # pragma: no cover - timing-dependent
    """``baygo: aborted`` on stderr and exit code 130 (for SIGTERM or SIGHUP ``baygo: aborted
    (SIGTERM)``), 128 + the signal's number, as the command says it later.

    The process ends here, at once: nothing is written while the command starts, and an
    exception raised into the import under way (a class body's ``__set_name__``) came
    out wrapped, as a traceback with exit code 1 (hostile16 U10)."""
    if signum == signal.SIGINT:
        line = "baygo: aborted"
    else:
        line = f"baygo: aborted ({signal.Signals(signum).name})"
    say_aborted(line)
    os._exit(128 + signum)


@contextlib.contextmanager
def deferred_interrupt():
    """A Ctrl-C (or a SIGTERM the command handles) during the block takes effect when the
    block ends, not inside it.

    For the few statements that must happen together: a file renamed to its name, listed
    in its folder's record and said on the console (``wrote PATH``), so that after
    ``baygo: aborted`` every file said is whole and every whole file is said. Only in the
    main thread, and only when Python handles Ctrl-C (a handler that is a function);
    otherwise the block runs as it is.

    Examples
    --------
    >>> import signal
    >>> before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own
    >>> try:
    ...     with deferred_interrupt():
    ...         signal.raise_signal(signal.SIGINT)
    ...         print("finished first")
    ... except KeyboardInterrupt:
    ...     print("then interrupted")
    finished first
    then interrupted
    >>> _ = signal.signal(signal.SIGINT, before)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {s: signal.getsignal(s) for s in (signal.SIGINT, *STOP_SIGNALS)}
    held = {s: h for s, h in held.items() if callable(h)}  # Python handles it: hold it
    caught: list = []
    for s in held:
        signal.signal(s, lambda signum, frame: caught.append((signum, frame)))
    try:
        yield
    finally:
        for s, h in held.items():
            signal.signal(s, h)
        if caught:
            signum, frame = caught[0]
            held[signum](signum, frame)
    if _pending:  # a stop the command received was swallowed on its way: it stops here
        raise stop_exception(_pending[0])


#: The warning filter loky's resource tracker gets in a ``baygo`` command: after a
#: Ctrl-C that stopped the workers mid-task it cleans up what they left (a semaphore),
#: which is its job, and said so in two warnings ("There appear to be 1 leaked semlock
#: objects to clean up at shutdown"), printed after ``baygo: aborted``.
_TRACKER_QUIET = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def workers_ignore_ctrl_c() -> None:
    """Worker processes started from now on (joblib's loky), and loky's resource tracker,
    begin with Ctrl-C and SIGHUP blocked.

    A terminal's Ctrl-C (and the SIGHUP of a closed terminal or a dropped ssh session)
    reaches every process of the command; a worker still importing joblib or numpy
    (before :data:`CLI_PID_ENV` makes it ignore Ctrl-C) printed an import traceback, and
    loky's resource tracker, which ignores only SIGINT and SIGTERM, died of SIGHUP with a
    "process died unexpectedly" warning and six KeyError tracebacks. These signals are
    blocked in the launching thread while a worker or the tracker is forked and exec'd
    (the child keeps that mask from its first instruction; the launcher gets a signal of
    that moment right after). The command stops its workers itself (SIGKILL); the tracker
    ends when the command does, and in a ``baygo`` command it cleans up what stopped
    workers left without a warning (:data:`_TRACKER_QUIET`). Installed once per process
    (by the runner before its pool starts); elsewhere (no loky, not POSIX) nothing
    changes.

    Examples
    --------
    >>> workers_ignore_ctrl_c(); workers_ignore_ctrl_c()  # once, however often called
    """
    if not hasattr(signal, "pthread_sigmask"):
        return
    try:
        from joblib.externals.loky.backend import fork_exec as launcher
        from joblib.externals.loky.backend import resource_tracker
    except ImportError:
        return
    deaf = {signal.SIGINT, *(s for s in STOP_SIGNALS if s != signal.SIGTERM)}
    held = signal.pthread_sigmask(signal.SIG_BLOCK, deaf)
    quiet = os.environ.get(CLI_PID_ENV) == str(os.getpid())  # the command's own tracker
    before = os.environ.get("PYTHONWARNINGS")
    if quiet:  # its notes on what it cleans up after a stop: noise, not news
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (before, _TRACKER_QUIET)))
    try:  # started now, if not running yet: with the mask (a no-op once it runs)
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if quiet and before is None:
            os.environ.pop("PYTHONWARNINGS", None)
        elif quiet:
            os.environ["PYTHONWARNINGS"] = before
    original = launcher.fork_exec
    if getattr(original, "_baygo_deaf", False):
        return

    def fork_exec(*args, **kwargs):
        held = signal.pthread_sigmask(signal.SIG_BLOCK, deaf)
        try:
            return original(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    fork_exec._baygo_deaf = True
    launcher.fork_exec = fork_exec


def _install() -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set a signal handler
    # a handler someone chose for Ctrl-C (or to ignore it, as a script's `baygo ... &`
    # does) stays theirs; SIGTERM and SIGHUP are taken wherever they are the default
    # (a background command went silent on SIGTERM while it started: hostile18 W7)
    own_ctrl_c = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    owner = os.environ.get(CLI_PID_ENV)
    if owner is not None and owner != str(os.getpid()):
        if own_ctrl_c:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a worker: the command stops it
    elif is_script():
        never_lose_a_stop()
        if own_ctrl_c:
            signal.signal(signal.SIGINT, aborted_while_starting)
        for s in STOP_SIGNALS:  # SIGTERM, SIGHUP while importing: the same line
            if signal.getsignal(s) is signal.SIG_DFL:
                signal.signal(s, aborted_while_starting)


_install()


#: The line said once when loky's resource tracker was found dead and started again.
TRACKER_NOTE = (
    "loky's resource tracker (the process that removes the workers' temporary files "
    "if the command is killed) died while the command ran (killed from outside?) and "
    "was started again; the results are not affected"
)
_TRACKER_SAID: list[bool] = []


def restart_dead_tracker() -> bool:
    """If loky's resource tracker died (killed from outside: ``kill -9``, the OOM
    killer), start it again now, quietly, and say so once; returns whether it had died.

    loky starts it again at its next message, with a ``UserWarning`` and one ``KeyError``
    traceback for each temporary file or semaphore the new tracker never heard of (38
    lines after a ``compare --jobs 2``; hostile round 13, R2): the results were whole,
    the noise said otherwise. Started here, the new tracker's stderr is discarded (what
    it would say is only those KeyErrors), and the command says one line
    (:data:`TRACKER_NOTE`: ``baygo: note: ...`` in a ``baygo`` command, a
    ``RuntimeWarning`` from Python). The runner calls this as each batch of its workers
    arrives, when its tasks are done and at exit (before joblib's own exit handlers), the
    ``baygo`` command as it ends; a live tracker (or none started) costs one write.

    Examples
    --------
    >>> restart_dead_tracker()  # no tracker started, or a live one
    False
    """
    try:
        from joblib.externals.loky.backend import resource_tracker
    except ImportError:
        return False
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    alive = getattr(tracker, "_check_alive", None)
    if alive is None or getattr(tracker, "_fd", None) is None or alive():
        return False
    import warnings

    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)  # the new tracker's stderr: its KeyErrors of the old names
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # loky's "died unexpectedly, relaunching"
            resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
    if not _TRACKER_SAID:
        _TRACKER_SAID.append(True)
        if os.environ.get(CLI_PID_ENV) == str(os.getpid()):
            sys.stderr.write(f"baygo: note: {TRACKER_NOTE}\n")
            sys.stderr.flush()
        else:
            warnings.warn(TRACKER_NOTE, RuntimeWarning, stacklevel=2)
    return True
