"""The ``baygo`` command: parses, calls the API, writes files; nothing more.

Each sub-command lives in its own module and is imported only when used, so
``baygo --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
import traceback
import warnings
from concurrent.futures.process import BrokenProcessPool

import click

from .._text import console, escaped_path, short_line, shorten
from ..exceptions import BayGoError
from ..limits import LINE_CHARS

__all__ = ["DEBUG_ENV", "PLUGINS_ENV", "cli", "main"]

#: Environment variable that makes ``baygo`` print tracebacks (like ``--debug``).
DEBUG_ENV = "BAYGO_DEBUG"
#: Environment variable listing plug-ins to load (like ``--plugin``), separated by
#: the path separator (``:`` on POSIX).
PLUGINS_ENV = "BAYGO_PLUGINS"
#: Errors shown as one line: the package's, the system's, bad values, memory.
_USER_ERRORS = (BayGoError, OSError, ValueError, TypeError, MemoryError, RecursionError)

_COMMANDS = {
    "run": ("baygo_graph.cli.run", "run"),
    "analyze": ("baygo_graph.cli.analyze", "analyze"),
    "compare": ("baygo_graph.cli.compare", "compare"),
    "plot": ("baygo_graph.cli.figures", "plot"),
    "animate": ("baygo_graph.cli.figures", "animate"),
    "reproduce": ("baygo_graph.cli.figures", "reproduce"),
    "sweep": ("baygo_graph.cli.sweep", "sweep"),
    "view": ("baygo_graph.cli.view", "view"),
}


class _Stopped(Exception):
    """A Ctrl-C or a stop signal inside a command, carried past click's own handler of
    KeyboardInterrupt (which writes a blank line to stderr first) to :func:`main`."""


class _LazyGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as e:  # Terminated too
            raise _Stopped() from e

    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name]
        command = getattr(importlib.import_module(module), attr)
        if not getattr(command.callback, "_baygo_in_a_folder", False):
            command.callback = _in_a_folder(command.callback)
        return command


def _in_a_folder(callback):
    """``callback`` (a command's) run only when the current folder exists: one removed
    under the shell (a scratch or job folder cleaned) made relative paths fail as "no
    such file" of the output's name and the worker processes fail to start with a bare
    "[Errno 2] No such file or directory" (hostile21 Z7). Checked once the command's
    options are read (``--help`` still works)."""
    import functools

    @functools.wraps(callback)
    def run(*args, **kwargs):
        try:
            os.getcwd()
        except FileNotFoundError:
            raise click.ClickException(
                "the current folder no longer exists (it was removed after this shell "
                "entered it): cd to a folder that exists and run the command again"
            ) from None
        return callback(*args, **kwargs)

    run._baygo_in_a_folder = True
    return run

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if name in _COMMANDS or name.startswith("-"):
            return super().resolve_command(ctx, args)
        import difflib  # 'analyse' (the docs' spelling) -> 'analyze', as click does for options

        close = difflib.get_close_matches(name, list(_COMMANDS), n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else " See baygo --help."
        ctx.fail(f"No such command {shorten(name, 60)!r}.{hint}")


@click.group(name="baygo", cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="baygo-graph")
@click.option(
    "--debug", is_flag=True, help=f"Show the traceback of an error (or set {DEBUG_ENV}=1)."
)
@click.option(
    "--plugin",
    "plugins",
    multiple=True,
    metavar="FILE.py|MODULE",
    help="Import a Python file or module that registers strategies or models "
    f"(baygo_graph.strategies.register, baygo_graph.models.register); repeatable; "
    f"also read from ${PLUGINS_ENV}.",
)
def cli(debug, plugins):
    """BayGo: joint Bayesian learning and communication-graph optimisation.

    Data: --data PATH, else the file named by $BAYGO_BODYFAT, else a synthetic
    stand-in that every output labels as synthetic. Errors are one line
    "baygo: error: ..." (exit code 1; 2 for a mistyped command or option); a stop says
    "baygo: aborted" (exit code 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP);
    --debug shows the traceback.
    Strategies and models of your own: --plugin my_strategy.py.
    """
    from ..io.atomic import announce_written, one_write_per_file

    # until the command ends: 'wrote PATH' as each file is finished, and no file written
    # twice (two outputs of one name)
    ctx = click.get_current_context()
    ctx.with_resource(announce_written(_say_wrote))
    ctx.with_resource(one_write_per_file())
    if debug:
        os.environ[DEBUG_ENV] = "1"
    listed = [p for p in os.environ.get(PLUGINS_ENV, "").split(os.pathsep) if p]
    if listed or plugins:  # known in every worker process too (experiments.plugins)
        from ..experiments.plugins import load_plugin

        for spec in [*listed, *plugins]:
            load_plugin(spec)


#: Longest error line ``baygo`` prints (before "... (N more characters)"); a longer one
#: has its long quoted values cut first, so what went wrong stays readable; a line
#: within it is printed whole. The length a budget refusal is fitted to
#: (:data:`baygo_graph.limits.LINE_CHARS`): one bound for both.
ERROR_CHARS = LINE_CHARS


def _debug() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, OSError) and e.filename is not None:
        from ._common import os_error_text  # "PATH: reason", not "[Errno N] ...: 'PATH'"

        text = os_error_text(e)
        text = text if str(e.filename) in text else f"{text}: {e.filename}"
    if isinstance(e, MemoryError) and not isinstance(e, BayGoError):
        text = f"out of memory ({text}); lower the sizes asked for"
    return _bounded(text)


def _bounded(text: str) -> str:
    """One printable line (a file name or metadata quoted in an error stays text) of at
    most :data:`ERROR_CHARS` characters after ``baygo: error: ``, then how many were
    cut, long quoted values shortened first (:func:`~baygo_graph._text.short_line`): the
    last guard for messages that quote a user's input."""
    return short_line(console(text), ERROR_CHARS)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_show_python_warning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning of the package as one line, ``baygo: note: ...`` on stderr (not Python's
    ``file:line: Category: ...`` block with a line of our source); others as Python
    shows them."""
    ours = category.__module__.startswith("baygo_graph") or os.path.abspath(
        str(filename)).startswith(_PACKAGE + os.sep)  # fmt: skip
    if not ours:
        _show_python_warning(message, category, filename, lineno, file, line)
        return
    text = " ".join(str(message).split()) or category.__name__
    click.echo(f"baygo: note: {_bounded(text)}", err=True)


def _say_wrote(path, what: str = "wrote", note: str = "") -> None:
    """``wrote PATH`` (then the writer's ``note``, if any) as each file of the command is
    finished, flushed at once (so a Ctrl-C later leaves the list of the whole files on
    screen), ``removed PATH`` as a stale file baygo wrote is removed; on stderr under
    ``--json``, whose stdout is the JSON document alone."""
    ctx = click.get_current_context(silent=True)
    as_json = ctx is not None and bool(ctx.params.get("as_json"))
    stream = sys.stderr if as_json else sys.stdout
    try:
        click.echo(f"{what} {escaped_path(path)}{' ' + note if note else ''}", err=as_json)
        stream.flush()
    except OSError as e:  # `| head -1`, `> /dev/full`: the line is lost, not the file
        from ._common import stdout_failed

        stdout_failed(e, stream)


def _matplotlib_folder() -> str | None:
    """``MPLCONFIGDIR`` set to a private temporary folder (removed at exit) when the one
    matplotlib would use (``$MPLCONFIGDIR``, else ``~/.config/matplotlib`` and
    ``~/.cache/matplotlib`` or their XDG folders) cannot be written: a read-only home on a
    cluster node, ``HOME=/`` of a service user. Matplotlib would make the same temporary
    folder itself, with a two-line log of advice on stderr (hostile21 Z2); figures are
    the same either way. Returns the value to put back afterwards (None: unset)."""
    before = os.environ.get("MPLCONFIGDIR")
    if "matplotlib" in sys.modules:  # its folders are chosen already
        return before
    from pathlib import Path

    try:
        home = Path.home()
    except RuntimeError:  # no home at all
        home = None
    if before:
        folders = [Path(before)]
    elif sys.platform.startswith(("linux", "freebsd")):
        folders = [
            Path(os.environ[env]) if os.environ.get(env) else home and home / default
            for env, default in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"))
        ]
        folders = [f and f / "matplotlib" for f in folders]
    else:
        folders = [home and home / ".matplotlib"]
    for folder in folders:
        try:
            folder.resolve().mkdir(parents=True, exist_ok=True)  # as matplotlib does
            usable = folder.is_dir() and os.access(folder, os.W_OK)
        except (OSError, AttributeError):  # AttributeError: no home to put it in
            usable = False
        if not usable:
            import atexit
            import shutil
            import tempfile

            with contextlib.suppress(OSError):  # none at all: matplotlib says so itself
                private = tempfile.mkdtemp(prefix="baygo-matplotlib-")
                atexit.register(shutil.rmtree, private, ignore_errors=True)
                os.environ["MPLCONFIGDIR"] = private
            break
    return before


def main(argv=None) -> int:
    """Entry point of the ``baygo`` script; returns the exit code.

    Errors become one line on stderr, ``baygo: error: ...``: click's usage
    errors (exit code 2) and the package's, file-system, value and memory errors
    (exit code 1). ``baygo --debug ...`` or ``BAYGO_DEBUG=1`` adds the traceback.
    A Ctrl-C, SIGTERM or SIGHUP stops it with ``baygo: aborted`` (exit code 128 + the
    signal's number: 130, 143, 129); one that comes once the work is done is ignored.
    Each file a command writes is said, ``wrote PATH``, as soon as it is finished.
    """
    # a standard stream closed when the command started (``>&-``, ``2>&-``: Python then
    # holds None): what would go there is dropped, as for a reader that has gone
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, os.fdopen(os.open(os.devnull, os.O_WRONLY), "w"))  # the run
    import signal

    from .._interrupt import (
        CLI_PID_ENV,
        STOP_SIGNALS,
        Terminated,
        aborted_while_starting,
        is_script,
        restart_dead_tracker,
        say_aborted,
        stop_behind,
        stop_exception,
        stop_on_signals,
    )

    # joblib's notes when an interrupted command drops its parallel generator (it is
    # collected after this function has printed 'baygo: aborted'): noise, not news
    for note in (r".* tasks which were still being processed", r".* tasks have been successfully"):
        warnings.filterwarnings("ignore", message=note, category=UserWarning)
    debug_before = os.environ.get(DEBUG_ENV)
    mpl_before = _matplotlib_folder()
    pid_before = os.environ.get(CLI_PID_ENV)
    os.environ[CLI_PID_ENV] = str(os.getpid())  # workers started now ignore Ctrl-C
    from ._common import STDOUT_ERRORS

    STDOUT_ERRORS.clear()
    try:
        # Ctrl-C raises from here on, inside this try (hostile16 U12: handed back before
        # it, a KeyboardInterrupt in between came out as a traceback); until here the
        # starting handler ends the process with its one line
        if signal.getsignal(signal.SIGINT) is aborted_while_starting:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # click's Abort now
        with warnings.catch_warnings(), stop_on_signals():
            warnings.showwarning = _show_warning
            try:
                code = cli.main(args=argv, prog_name="baygo", standalone_mode=False)
            except Exception as e:  # a stop wrapped on its way (a RuntimeError from
                # __set_name__ while matplotlib imports), or one swallowed before e
                signum = stop_behind(e)
                if signum is None:
                    raise
                raise stop_exception(signum) from e
            if "joblib.externals.loky" in sys.modules:  # the workers' tracker, killed?
                restart_dead_tracker()  # one line, before the pool's exit speaks to it
        if STDOUT_ERRORS and code in (0, None):  # its files are written; its lines are not
            name, e = STDOUT_ERRORS[0]
            why = (e.strerror or str(e)).lower()
            click.echo(f"baygo: error: {name}: {why}: what this command printed there was cut "
                       "short (the files it wrote are whole)", err=True)  # fmt: skip
            code = 1
    except click.exceptions.NoArgsIsHelpError as e:  # `baygo` alone: the help, whole
        click.echo(e.ctx.get_help() if e.ctx is not None else e.format_message())
        code = 0
    except click.ClickException as e:
        if _debug():
            traceback.print_exception(e, file=sys.stderr)
        if isinstance(e, click.MissingParameter):  # what it takes, and where to read more
            from ._common import missing_text

            said = missing_text(e)
        else:
            said = e.format_message()
        click.echo(f"baygo: error: {_bounded(said)}", err=True)
        code = e.exit_code
    except (click.exceptions.Abort, _Stopped, KeyboardInterrupt) as e:
        term = e if isinstance(e, Terminated) else e.__cause__
        term = term if isinstance(term, Terminated) else None
        tty = False
        with contextlib.suppress(OSError, ValueError):  # a closed terminal takes no line
            sys.stdout.flush()  # the files said finished come before the line that ends them
            tty = sys.stderr.isatty()
        # after the terminal's '^C', on a line of its own; a stop signal has no '^C'
        start = "\n" if term is None and tty else ""
        say_aborted(start + (f"baygo: aborted ({term.name})" if term else "baygo: aborted"))
        code = 128 + (term.signum if term else signal.SIGINT)
    except _USER_ERRORS as e:
        if _debug():
            traceback.print_exc(file=sys.stderr)
        click.echo(f"baygo: error: {_one_line(e)}", err=True)
        code = 1
    except BrokenProcessPool as e:  # a worker killed (the OOM killer, a crash in C code)
        if _debug():
            traceback.print_exc(file=sys.stderr)
        codes = re.search(r"exit codes of the workers are \{([^}]*)\}", str(e))
        text = (
            "a worker process died" + (f" ({codes.group(1)})" if codes else "") + " while "
            "running tasks (killed: out of memory, or a crash in compiled code), and the "
            "tasks it held are lost: run the same command again (a sweep resumes from its "
            "tasks/ folder), with fewer --jobs or a lower BAYGO_MEMORY_LIMIT"
        )
        click.echo(f"baygo: error: {_bounded(text)}", err=True)
        code = 1
    except Exception as e:  # a plug-in's code raised: one line naming it (else a bug of ours)
        from ..experiments.plugins import blame

        named = blame(e)
        if named is None:
            raise
        if _debug():
            traceback.print_exc(file=sys.stderr)
        click.echo(f"baygo: error: {_one_line(named)}", err=True)
        code = 1
    finally:
        for env, value in ((DEBUG_ENV, debug_before), ("MPLCONFIGDIR", mpl_before)):
            if value is None:
                os.environ.pop(env, None)
            else:
                os.environ[env] = value
        if pid_before is None:
            os.environ.pop(CLI_PID_ENV, None)
        else:
            os.environ[CLI_PID_ENV] = pid_before
        if is_script():  # the work is done: a Ctrl-C or stop signal now would only cut
            # the exit short (the worker pool's join) and print a traceback from it
            for s in (signal.SIGINT, *STOP_SIGNALS):
                signal.signal(s, signal.SIG_IGN)
    return code if isinstance(code, int) else 0
