"""Plug-ins: files or modules of the user's that register strategies and models, known
in every process that runs a task.

:func:`load_plugin` imports a plug-in (``baygo --plugin FILE.py``, ``$BAYGO_PLUGINS``)
and records it: a file's text travels with the tasks, so that every worker process
(local, :mod:`joblib`'s loky workers, or a Dask cluster, whose machines need not hold
the file) imports the same text under the same module name before it reads a task
(:func:`import_plugins`, run by :func:`~baygo_graph.experiments.runner.run_tasks` in
each worker). A plug-in that fails to import raises one
:class:`~baygo_graph.exceptions.PluginError` naming the file and the error; an error
raised later by a plug-in's code, in a worker process or here, is named the same way
(:func:`blame`: the file, the line, the function and the strategy or model of the
task).

:func:`definition` names the code of a strategy factory or a model: a declared
``version``, else the text of the module that defines it (a plug-in's file, a
user's module). A sweep puts it in every task's identity, so an edited plug-in
re-runs its tasks instead of returning the old rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import io
import marshal
import os
import sys
import traceback
import types
from dataclasses import dataclass

from .._text import shorten
from .._version import __version__
from ..exceptions import PluginError

__all__ = ["Plugin", "blame", "definition", "import_plugins", "load_plugin", "loaded_plugins"]

#: Prefix of the module name a plug-in file is imported under (then a hash of its path).
MODULE_PREFIX = "baygo_plugin_"
#: Attribute set on an imported plug-in module: the digest of the text it ran.
_DIGEST = "__baygo_plugin_digest__"

#: The plug-ins this process loaded, by module name, in order of loading.
_LOADED: dict = {}


@dataclass(frozen=True)
class Plugin:
    """A loaded plug-in: what a worker needs to import it again.

    Attributes
    ----------
    module : str
        The module name it is imported under (``baygo_plugin_<hash of the path>`` for
        a file, the module's own name otherwise).
    path : str or None
        The file (resolved), or None for a module imported by name.
    source : str or None
        A file's text (None for a module imported by name: workers import it by name).
    digest : str
        A hash of the text (of the module's file, for a module imported by name).
    """

    module: str
    path: str | None
    source: str | None
    digest: str


def _digest(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha1(data).hexdigest()[:16]


def _where(path: str, error: BaseException) -> str:
    """`` (line N)`` of the deepest frame of ``error`` in ``path``, if any."""
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.realpath(frame.filename) == path or frame.filename == path:
            line = frame.lineno
    return f" (line {line})" if line else ""


def _run_text(plugin: Plugin) -> types.ModuleType:
    """Import a plug-in file's text as module ``plugin.module`` (errors: one PluginError)."""
    path = plugin.path
    try:
        code = compile(plugin.source, path, "exec")
    except SyntaxError as e:
        raise PluginError(f"plug-in {path} does not compile: {e.msg} (line {e.lineno})") from e
    module = types.ModuleType(plugin.module)
    module.__file__ = path
    setattr(module, _DIGEST, plugin.digest)
    sys.modules[plugin.module] = module  # dataclasses and pickle look it up there
    said = io.StringIO()  # what it prints on stderr: its own, unless it exits (argparse)
    try:
        with contextlib.redirect_stderr(said):
            exec(code, module.__dict__)
    except BaseException as e:
        del sys.modules[plugin.module]
        if isinstance(e, KeyboardInterrupt):
            raise
        if isinstance(e, SystemExit):  # never a silent end of baygo (hostile21 Z14)
            raise PluginError(_exited(path, e, said.getvalue(), _where(path, e))) from None
        sys.stderr.write(said.getvalue())
        raise PluginError(
            f"plug-in {path} failed to import: {type(e).__name__}: {e}{_where(path, e)}"
        ) from e
    sys.stderr.write(said.getvalue())
    return module


def _exited(name, e: SystemExit, said: str, where: str = "") -> str:
    """Why a plug-in that exited while imported did not load: its code runs at import (a
    script's top-level ``sys.exit`` or ``argparse`` ``parse_args()``)."""
    how = "argparse refused baygo's own arguments" if said.startswith("usage:") else (
        f"sys.exit({shorten(repr(e.code), 60)})")  # fmt: skip
    line = where.strip().strip("()")
    return (f"plug-in {name} exited while it was imported ({how}{', ' + line if line else ''}): "
            "a plug-in's code runs when it is imported: guard a script's own code with "
            "if __name__ == '__main__'")  # fmt: skip


def load_plugin(spec: str) -> types.ModuleType:
    """Import a plug-in: a path to a ``.py`` file, or an importable module name.

    The plug-in registers its strategies and models when imported; the module is
    returned and recorded (:func:`loaded_plugins`), so that the tasks of
    :func:`~baygo_graph.experiments.compare` and :func:`~baygo_graph.experiments.sweep`
    import it in their worker processes too. A file is imported once per process
    (by its resolved path).

    Parameters
    ----------
    spec : str
        A file (ends in ``.py`` or holds a path separator) or a module name.

    Returns
    -------
    module

    Raises
    ------
    PluginError
        No such file or module, or the plug-in raised (a syntax error included) while
        imported: the message names the file and the error (the traceback is chained).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "broken.py"
    >>> _ = path.write_text("x = 1\\nraise RuntimeError('no network')\\n")
    >>> try:
    ...     load_plugin(str(path))
    ... except PluginError as e:
    ...     print(str(e).replace(str(path), "broken.py"))
    plug-in broken.py failed to import: RuntimeError: no network (line 2)
    """
    if not isinstance(spec, str) or not spec:
        raise TypeError(f"a plug-in must be a file or module name, got {spec!r}")
    if spec.endswith(".py") or os.sep in spec or (os.altsep and os.altsep in spec):
        path = os.path.realpath(spec)
        name = MODULE_PREFIX + _digest(path)
        if name in sys.modules and name in _LOADED:
            return sys.modules[name]
        try:
            with open(path, encoding="utf-8") as fh:
                source = fh.read()
        except (OSError, UnicodeDecodeError) as e:
            from .._text import shorten

            if isinstance(e, FileNotFoundError):
                reason = "no such file"
            elif isinstance(e, OSError) and e.strerror:  # the reason, not the path again
                reason = e.strerror[:1].lower() + e.strerror[1:]
            else:
                reason = shorten(str(e), 120)
            raise PluginError(f"plug-in {shorten(spec, 120)}: {reason}") from e
        plugin = Plugin(module=name, path=path, source=source, digest=_digest(source))
        module = _run_text(plugin)
    else:
        module = _import_module(spec)
        file = getattr(module, "__file__", None)
        try:
            with open(file, "rb") as fh:
                digest = _digest(fh.read())
        except (OSError, TypeError):  # a namespace package, a built-in module
            digest = _digest(spec)
        plugin = Plugin(module=spec, path=None, source=None, digest=digest)
    _LOADED[plugin.module] = plugin
    return module


def _import_module(name: str) -> types.ModuleType:
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            module = importlib.import_module(name)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        file = getattr(sys.modules.get(name), "__file__", None) or name
        if isinstance(e, SystemExit):
            raise PluginError(_exited(file, e, said.getvalue())) from None
        sys.stderr.write(said.getvalue())
        raise PluginError(f"plug-in {file} failed to import: {type(e).__name__}: {e}") from e
    sys.stderr.write(said.getvalue())
    return module


def _plugin_files() -> dict[str, str]:
    """``{resolved file: name shown}`` of the loaded plug-ins (a module by name: its file)."""
    files = {}
    for plugin in _LOADED.values():
        file = plugin.path or getattr(sys.modules.get(plugin.module), "__file__", None)
        if file:
            files[os.path.realpath(file)] = plugin.path or plugin.module
    return files


def _task_text(task) -> str:
    """The strategy or model a task runs, as words (empty when the task does not say)."""
    if isinstance(task, dict):
        named = [f"{k} {task[k]!r}" for k in ("strategy", "model") if isinstance(task.get(k), str)]
        return ", ".join(named)
    if isinstance(task, tuple) and task and isinstance(task[0], str):
        return f"strategy {task[0]!r}"
    return ""


def blame(error: BaseException, task=None) -> PluginError | None:
    """A :class:`~baygo_graph.exceptions.PluginError` naming the loaded plug-in whose code
    raised ``error`` (the deepest frame of its traceback in a plug-in's file): the file,
    the line, the function and what ``task`` ran (its strategy or model); None when no
    plug-in's code is in the traceback.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.py"
    >>> _ = path.write_text("def start():\\n    raise RuntimeError('boom')\\n")
    >>> module = load_plugin(str(path))
    >>> try:
    ...     module.start()
    ... except RuntimeError as e:
    ...     print(str(blame(e, ("mine", None))).replace(str(path.resolve()), "mine.py"))
    plug-in mine.py (strategy 'mine') raised RuntimeError: boom (line 2, in start)
    """
    files = _plugin_files()
    hit = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.realpath(frame.filename) in files:
            hit = frame
    if hit is None:
        return None
    what = _task_text(task)
    text = " ".join(str(error).split()) or "(no message)"
    return PluginError(
        f"plug-in {files[os.path.realpath(hit.filename)]}{f' ({what})' if what else ''} raised "
        f"{type(error).__name__}: {shorten(text, 200)} (line {hit.lineno}, in {hit.name})"
    )


def loaded_plugins() -> tuple[Plugin, ...]:
    """The plug-ins this process loaded with :func:`load_plugin`, in order.

    Examples
    --------
    >>> all(isinstance(p, Plugin) for p in loaded_plugins())
    True
    """
    return tuple(_LOADED.values())


def import_plugins(plugins) -> None:
    """Import ``plugins`` (from :func:`loaded_plugins` of the launching process) here.

    Run in each worker process before it reads a task. A plug-in already imported
    with the same text is kept; one imported with another text (a worker that
    outlived an edit of the file) is refused, since a process cannot drop the
    classes it already made.

    Examples
    --------
    >>> import_plugins(loaded_plugins())  # all loaded here already: nothing to do
    """
    for plugin in plugins:
        present = sys.modules.get(plugin.module)
        if present is not None:
            digest = getattr(present, _DIGEST, plugin.digest)
            if digest != plugin.digest:
                raise PluginError(
                    f"plug-in {plugin.path or plugin.module} changed since this worker "
                    "imported it: restart the workers"
                )
        elif plugin.source is not None:
            _run_text(plugin)
        else:
            _import_module(plugin.module)
        _LOADED.setdefault(plugin.module, plugin)


def definition(obj) -> str:
    """What names the code of a strategy factory or a model (object, class or function).

    A declared ``version`` attribute, if any; for the package's own code, the package
    version; for a plug-in, the digest of its text; for other code, a digest of the
    text of the module that defines it, else of its own source, else of its compiled
    code. Any edit of that text gives another value.

    Examples
    --------
    >>> from baygo_graph.models import LinearRegression
    >>> definition(LinearRegression()) == definition(LinearRegression)
    True
    >>> definition(type("Mine", (), {"version": "2"}))
    'version 2'
    """
    target = getattr(obj, "func", obj)  # functools.partial
    if not isinstance(target, type) and not inspect.isroutine(target):
        target = type(target)
    version = getattr(target, "version", None)
    if isinstance(version, str | int):
        return f"version {version}"
    module = getattr(target, "__module__", None) or ""
    if module == "baygo_graph" or module.startswith("baygo_graph."):
        return f"baygo_graph {__version__}"
    if module in _LOADED:
        return f"plug-in {_LOADED[module].digest}"
    for source in (sys.modules.get(module), target):
        try:
            return f"source {_digest(inspect.getsource(source))}"
        except (OSError, TypeError):
            continue
    return f"code {_digest(_code_bytes(target))}"


def _code_bytes(target) -> bytes:
    """The compiled code of a function, or of a class's methods, as bytes."""
    if isinstance(target, type):
        parts = [target.__qualname__.encode()]
        for key, value in sorted(vars(target).items()):
            func = getattr(value, "__func__", value)
            code = getattr(func, "__code__", None)
            parts.append(key.encode() + (marshal.dumps(code) if code else repr(value).encode()))
        return b"\0".join(parts)
    code = getattr(target, "__code__", None)
    return marshal.dumps(code) if code is not None else repr(target).encode()
