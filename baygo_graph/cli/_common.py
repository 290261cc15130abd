"""Options and output helpers shared by the sub-commands."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import click

from .._format import synthetic_banner
from .._text import console, counted, loss_label, short_path, shorten
from ..defaults import BODYFAT_ENV, DEFAULT_WINDOW, resolve_window

__all__ = [
    "InputPath",
    "NamedPath",
    "Real",
    "SchedulerAddress",
    "default_data",
    "load_input",
    "samples_option",
    "stdout_failed",
    "reach_scheduler",
    "scheduler_option",
    "series_options",
    "check_out_file",
    "data_option",
    "emit",
    "ensure_writable",
    "fit_window",
    "force_option",
    "loss_label",
    "note",
    "os_error_text",
    "out_error",
    "output_file",
    "output_folder",
    "command_inputs",
    "seed_option",
    "strategy_list",
    "strategy_name",
    "model_name",
    "build_model",
    "model_pairs",
    "parse_options",
    "saved_banner",
    "synthetic_banner",
]


def _unknown(what: str, value, known) -> click.BadParameter:
    from .._text import short_repr

    return click.BadParameter(f"unknown {what} {short_repr(value)}; choose from {','.join(known)}")


def strategy_list(ctx, param, value: str) -> list[str]:
    """``--strategies``: registered names (plug-ins loaded by ``--plugin`` included),
    comma-separated, each once. A bad value is a usage error (exit code 2), as every
    option's: the one rule (docs/cli.md).

    Examples
    --------
    >>> strategy_list(None, None, "baygo, nocol")
    ['baygo', 'nocol']
    """
    from ..strategies import strategy_names

    names = [s.strip().lower() for s in value.split(",") if s.strip()]
    known = strategy_names()
    if not names:
        raise click.BadParameter(f"give at least one of {','.join(known)}")
    bad = [s for s in names if s not in known]
    if bad:
        raise _unknown("strategy", bad[0], known)
    if len(set(names)) != len(names):
        raise click.BadParameter(f"a strategy is named twice in {value!r}")
    return names


def strategy_name(ctx, param, value: str) -> str:
    """``--strategy``: one registered name (see :func:`strategy_list`)."""
    from ..strategies import strategy_names

    name = value.strip().lower()
    if name not in strategy_names():
        raise _unknown("strategy", value, strategy_names())
    return name


def model_name(ctx, param, value: str) -> str:
    """``--model``: a registered model's name (plug-ins included): a usage error otherwise.

    Examples
    --------
    >>> model_name(None, None, "linear")
    'linear'
    """
    from ..models import model_names

    if value not in model_names():
        raise _unknown("model", value, model_names())
    return value


def _shown(param) -> str:
    """``"--data: "`` for an option, ``""`` for an argument: how an error names it."""
    name = param.opts[0] if param is not None and param.opts else ""
    return f"{name}: " if name.startswith("-") else ""


class NamedPath(click.Path):
    """A path argument or option of a command: an empty one (``--out "$OUT"`` with
    ``OUT`` unset) is refused in one line, never taken as the current folder.

    Examples
    --------
    >>> @click.command()
    ... @click.option("--out", type=NamedPath(file_okay=False))
    ... def show(out):
    ...     pass
    >>> try:
    ...     show.main(["--out", ""], standalone_mode=False)
    ... except click.ClickException as e:
    ...     print(e.message)
    --out: the path is empty (an unset shell variable?)

    A folder option naming a file (``--out report.txt``) says so in the words of every
    ``--out`` (``--out: report.txt: is a file, not a folder``), not click's "Directory
    ... is a file".
    """

    def convert(self, value, param, ctx):
        if isinstance(value, (str, os.PathLike)) and not os.fspath(value):
            raise click.ClickException(f"{_shown(param)}the path is empty (an unset shell "
                                       "variable?)")  # fmt: skip
        if isinstance(value, (str, os.PathLike)):  # in our words, as every --out says it
            path = Path(value)
            if not self.file_okay and path.exists() and not path.is_dir():
                raise click.ClickException(
                    f"{_shown(param)}{short_path(value)}: is a file, not a folder"
                )
            if not self.dir_okay and path.is_dir():
                raise click.ClickException(
                    f"{_shown(param)}{short_path(value)}: is a folder, not a file"
                )
        return super().convert(value, param, ctx)


#: What a command's input argument takes, for the line of a missing one.
INPUT_TAKES = (
    "a run (folder or .npz from baygo run --out), a saved series (.json/.graphml/.gexf) "
    "or an edge list (.csv/.tsv, .parquet, SNAP .txt, KONECT out.NAME, also compressed)"
)


def missing_text(error: click.MissingParameter) -> str:
    """The line of a missing argument or required option: click's words, what it takes
    (the argument type's ``takes``, an option's help) and where to read more.

    Examples
    --------
    >>> @click.command()
    ... @click.argument("run", type=InputPath(takes="a run folder"))
    ... def show(run):
    ...     pass
    >>> try:
    ...     show.main([], prog_name="baygo show", standalone_mode=False)
    ... except click.MissingParameter as e:
    ...     print(missing_text(e))
    Missing argument 'RUN': a run folder (see 'baygo show --help')
    """
    param = error.param
    takes = getattr(getattr(param, "type", None), "takes", None)
    if takes is None and isinstance(param, click.Option) and param.help:
        takes = param.help.split(". ")[0].rstrip(".")
        takes = takes[:1].lower() + takes[1:]
    command = error.ctx.command_path if error.ctx is not None else "baygo COMMAND"
    head = error.format_message().rstrip(".")
    said = f"{head}: {takes}" if takes else head
    return f"{said} (see '{command} --help')"


class InputPath(NamedPath):
    """A path the command reads (an argument or an option such as ``--data``): a missing
    one is refused before any work, in one line and our words, ``PATH: no such file or
    folder`` (``--data: PATH: ...`` for an option; exit code 1, as every error of an input;
    not click's "Invalid value for 'RUN_DIR': Path ... does not exist"); a FIFO, device or
    socket (``<(zcat x.gz)``, a link to ``/dev/zero``) is named as such, never opened.
    What a file holds is its reader's to say.

    Examples
    --------
    >>> @click.command()
    ... @click.option("--data", type=InputPath(dir_okay=False))
    ... def show(data):
    ...     pass
    >>> try:
    ...     show.main(["--data", "no/such.csv"], standalone_mode=False)
    ... except click.ClickException as e:
    ...     print(e.message)
    --data: no/such.csv: no such file or folder

    ``takes``: what the argument takes, said when it is missing (:func:`missing_text`).
    """

    def __init__(self, *args, takes: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.takes = takes

    def convert(self, value, param, ctx):
        if isinstance(value, (str, os.PathLike)) and os.fspath(value):
            text, shown = os.fspath(value), _shown(param)
            if not os.path.exists(text):
                why = "no such file or folder"
                if os.path.islink(text):
                    why += f" (a symbolic link to {os.readlink(text)}, which does not exist)"
                raise click.ClickException(f"{shown}{text}: {why}")
            if not self.dir_okay and os.path.isdir(text):
                raise click.ClickException(f"{shown}{text}: is a folder, not a file")
            if not os.path.isfile(text) and not os.path.isdir(text):  # never opened: no hang
                raise click.ClickException(
                    f"{shown}{text}: is not a regular file (a FIFO, device or socket): baygo "
                    "reads files; save it to a file first"
                )
        return super().convert(value, param, ctx)


class Real(click.FloatRange):
    """A number option (``--delta``, ``--tolerance``): :class:`click.FloatRange`, with the
    one rule for numbers typed (:func:`~baygo_graph._validate.real_text`): text of a
    nonzero that is 0 as a float (``1e-400``) refused, ``-0`` read as 0.

    Examples
    --------
    >>> Real(0, 1).convert("-0", None, None), Real(0, 1).convert("0.5", None, None)
    (0.0, 0.5)
    """

    def convert(self, value, param, ctx):
        from .._validate import real_text

        if isinstance(value, str):
            name = param.opts[0] if param is not None and param.opts else "value"
            try:
                real_text(name, value)
            except ValueError as e:
                self.fail(str(e), param, ctx)
        number = super().convert(value, param, ctx) + 0.0
        if number != number:  # nan: every range comparison with it is false
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def _usage_error(name: str = "", *, hint: str | None = None):
    """Make ``check(value)`` a click callback: a value the library's own check refuses
    (no input makes it valid) is a usage error in that check's words, without its
    argument name ``name`` (and with ``hint`` as the option's name, where given); None
    (not given) passes; the value goes on as typed."""

    def wrap(check):
        @functools.wraps(check)
        def callback(ctx, param, value):
            if value is None:
                return None
            try:
                check(value)
            except ValueError as e:
                text = str(e).removeprefix(f"{name} ") if name else str(e)
                raise click.BadParameter(text, param_hint=hint) from None
            return value

        return callback

    return wrap


@_usage_error("self_weight")
def _self_weight(value):
    """``--self-weight``: 'equal' or a number in [0, 1]."""
    from ..series import check_self_weight

    check_self_weight(value)


@_usage_error("time_format")
def _time_format(value):
    """``--time-format``: a unix unit or a strftime format."""
    from ..io.times import check_time_format

    check_time_format(value)


@_usage_error("bin")
def _bin(value):
    """``--bin``: a width some file could take (:func:`~baygo_graph.io.times.check_bin`);
    whether it fits the file's times is checked as it is read."""
    from ..io.times import check_bin

    check_bin(value)


data_option = click.option(
    "--data",
    "data",
    type=InputPath(dir_okay=False),
    default=None,
    help=f"bodyfat CSV (default: ${BODYFAT_ENV}, else synthetic data, labelled so).",
)
#: The root seed: any 64-bit non-negative integer (results tables keep it as int64).
seed_option = click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0,
                           show_default=True, help="Root seed (0 to 2**63 - 1).")  # fmt: skip
force_option = click.option(
    "--force",
    is_flag=True,
    help="Also replace files of the same names that baygo did not write in the output "
    "folder (without it, only files baygo wrote there, unchanged since, are replaced).",
)


class SchedulerAddress(click.ParamType):
    """A Dask scheduler address (``--scheduler``), checked as it is read, before any work
    (:func:`~baygo_graph._cluster.check_scheduler`, the one check of every command and
    function that takes a scheduler).

    Examples
    --------
    >>> SchedulerAddress().convert("tcp://10.0.0.5:8786", None, None)
    'tcp://10.0.0.5:8786'
    """

    name = "address"

    def convert(self, value, param, ctx):
        from .._cluster import check_scheduler

        try:
            return check_scheduler(value, name="--scheduler", local="--jobs")
        except ValueError as e:  # no scheduler answers at a malformed address: exit code 2
            self.fail(str(e).removeprefix("--scheduler: "), param, ctx)


def reach_scheduler(scheduler) -> None:
    """Before any work: a Dask scheduler answers at ``--scheduler`` (the address was
    checked as it was read, :class:`SchedulerAddress`); else one line naming it."""
    if scheduler is None:
        return
    from .._cluster import check_scheduler

    try:
        check_scheduler(scheduler, name="--scheduler", local="--jobs", reach=True)
    except (ValueError, OSError) as e:
        raise click.ClickException(str(e)) from None


def scheduler_option(help: str):
    """The ``--scheduler ADDRESS`` option (:class:`SchedulerAddress`) with ``help``."""
    return click.option("--scheduler", type=SchedulerAddress(), default=None,
                        metavar="ADDRESS", help=help)  # fmt: skip


samples_option = click.option(
    "--samples",
    type=click.IntRange(min=10),
    default=None,
    help="Size of the synthetic data used without --data / $BAYGO_BODYFAT "
    "[default: max(252, 10 x agents), so any --agents works].",
)


def saved_banner(source) -> str:
    """The synthetic-data line of a saved run or series (``synthetic_banner(...,
    saved=True)``), naming a model's own synthetic data where the run's model is not one
    of the bodyfat data's (a logistic run's data is no bodyfat stand-in: hostile21 Z12)."""
    config = getattr(source, "config", None) or {}
    return synthetic_banner(bool(getattr(source, "synthetic", False)), saved=True,
                            model=config.get("model"),
                            source=getattr(source, "data_source", None))  # fmt: skip


def default_data(data, *, agents: int, samples: int | None):
    """What ``--data`` means: the path given, else ``$BAYGO_BODYFAT`` (None: the
    library reads it), else synthetic data of ``samples`` samples (default
    :func:`~baygo_graph.datasets.synthetic_samples` of ``agents``).

    Examples
    --------
    >>> len(default_data(None, agents=200, samples=None)) if not os.environ.get(
    ...     BODYFAT_ENV) else 2000
    2000
    """
    from ..datasets import synthetic_bodyfat, synthetic_samples

    if data is not None or os.environ.get(BODYFAT_ENV):
        if samples is not None:
            raise click.UsageError("--samples sizes the synthetic data; it needs no --data "
                                   f"and no ${BODYFAT_ENV}")  # fmt: skip
        return data
    return synthetic_bodyfat(samples if samples is not None else synthetic_samples(agents))


# the option named with no quotes: the value's own quotes stay paired when a long line is
# shortened
@_usage_error(hint="--columns")
def _roles(value):
    """``--columns``: checked as typed (a usage error, exit code 2), passed on as typed."""
    from ..io.archives import parse_columns

    parse_columns(value)


#: The edge-list options every command that reads a series takes (docs/user_series.md).
_SERIES_OPTIONS = [
    click.option("--source", "source_column", default=None, metavar="COLUMN",
                 help="Edge lists: the source column [default: source]."),
    click.option("--target", "target_column", default=None, metavar="COLUMN",
                 help="Edge lists: the target column (who receives) [default: target]."),
    click.option("--time-column", "time_column", default=None, metavar="COLUMN",
                 help="Edge lists: the time column [default: time]."),
    click.option("--weight-column", "weight_column", default=None, metavar="COLUMN",
                 help="Edge lists: the weight column [default: weight, when present]."),
    click.option("--bin", "time_bin", default=None, metavar="WIDTH", callback=_bin,
                 help="Edge lists: width of one step: an integer for integer times, a pandas "
                 "offset alias (1D, 6h, 15min) for timestamps (required for them)."),
    click.option("--undirected", is_flag=True,
                 help="Edge lists: each row is a two-way contact (both nodes hear each other)."),
    click.option("--columns", "columns", default=None, metavar="ROLES", callback=_roles,
                 help="Edge lists without a header row: the role of each column by position, "
                 "e.g. time,source,target (SocioPatterns); - skips one [default: SNAP source,"
                 "target,time; KONECT source,target,weight,time]."),
    click.option("--time-format", "time_format", default=None, metavar="FORMAT",
                 callback=_time_format,
                 help="Edge lists: unix (unix-ms, unix-us, unix-ns) for Unix times binned by a "
                 "duration, or a strftime format such as %d/%m/%Y for dates that are not ISO "
                 "8601 (never guessed)."),
    click.option("--origin", "origin", type=click.Choice(["first", "epoch"]), default=None,
                 help="Edge lists: where bins start: the first time (its day's midnight for "
                 "timestamps) or multiples of --bin since 1970 [default: first]."),
    click.option("--self-weight", "self_weight", default=None, metavar="RULE",
                 callback=_self_weight,
                 help="Series built from edges: the weight a node that hears others in a step "
                 "puts on itself: 'equal' (1/(d+1) for d in-neighbours, the paper's equal rule; "
                 "the default for edge lists) or a number in [0, 1] (0: none). A saved series "
                 "keeps its stored weights; a run keeps its strategy's."),
]  # fmt: skip


def series_options(command):
    """Add the edge-list options (``--source``, ``--target``, ``--time-column``,
    ``--weight-column``, ``--bin``, ``--undirected``, ``--columns``, ``--time-format``,
    ``--origin``, ``--self-weight``) to a command; pass the values to :func:`load_input`
    as ``**options``."""
    for option in reversed(_SERIES_OPTIONS):
        command = option(command)
    return command


def _bin_value(text):
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def load_input(path, *, source_column=None, target_column=None, time_column=None,
               weight_column=None, time_bin=None, undirected=False, columns=None,
               time_format=None, origin=None, self_weight=None):  # fmt: skip
    """What a command reads (:func:`baygo_graph.inputs.load`, the one door): a
    :class:`~baygo_graph.Run` for a run folder or ``.npz``, else a
    :class:`~baygo_graph.series.GraphSeries`.

    Errors become one-line :class:`click.ClickException`; options the input's kind
    does not take (edge-list options for a run or a saved series) are refused,
    named by their flags.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text("source,target,time\\na,b,0\\nb,a,1\\n")
    >>> load_input(p).nodes
    ('a', 'b')
    """
    from .. import inputs
    from ..exceptions import RunFormatError

    options = {
        "source": source_column,
        "target": target_column,
        "time": time_column,
        "weight": weight_column,
        "bin": _bin_value(time_bin),
        "directed": False if undirected else None,
        "columns": columns,
        "time_format": time_format,
        "origin": origin,
        "self_weight": self_weight,
    }
    given = {k: v for k, v in options.items() if v is not None}
    kind = inputs.kind_of(path, columns=columns)
    extra = [k for k in given if k not in kind.options]
    if "self_weight" in extra:
        raise click.UsageError(
            f"--self-weight applies to series built from edges; {path} is a {kind.name}, "
            "which keeps its own weights"
        )
    if extra:
        if Path(path).is_file():  # what it is, read alone: an archive says so (hostile22 Q5)
            try:
                inputs.load(path)
            except (RunFormatError, ValueError, TypeError, OSError) as e:
                raise click.ClickException(str(e)) from e
        flags = {"time": "--time-column", "weight": "--weight-column", "directed":
                 "--undirected", "time_format": "--time-format"}  # fmt: skip
        names = ", ".join(flags.get(k, f"--{k}") for k in extra)
        raise click.UsageError(f"{names}: options of edge lists, but {path} is a {kind.name}")
    try:
        return inputs.load(path, **given)
    except (RunFormatError, ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e


#: The error that cut this command's standard output short (:func:`stdout_failed`), said
#: once the command has finished (``baygo_graph.cli.main``).
STDOUT_ERRORS: list[tuple[str, OSError]] = []


def stdout_failed(e: OSError, stream) -> None:
    """What a failed write to ``stream`` (standard output, or standard error for the
    ``wrote`` lines under ``--json``) does: the rest of what the command prints there is
    dropped, and its work and files go on. A reader that has gone (``| head -1``: a
    broken pipe) is not news; any other error (``> file`` on a full disk, ``> /dev/full``)
    is kept in :data:`STDOUT_ERRORS`, said at the end, and the command exits with 1."""
    if not isinstance(e, BrokenPipeError):
        name = "standard error" if stream is sys.stderr else "standard output"
        STDOUT_ERRORS.append((name, e))
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())  # the rest: dropped


def _json_banner(summary: dict, text) -> str:
    """The SYNTHETIC line of a JSON output, as its text for people would say it."""
    lines = text.splitlines() if isinstance(text, str) else list(text)
    said = [line for line in lines if str(line).startswith("NOTE: SYNTHETIC DATA")]
    return (said[0] if said else summary.get("banner") or summary.get("note")
            or "NOTE: SYNTHETIC DATA: these numbers come from the synthetic stand-in for the "
            "bodyfat data")  # fmt: skip


def emit(summary: dict, *, as_json: bool, text) -> None:
    """Print ``summary`` as JSON, or ``text`` for people.

    ``text`` is a list of lines (each one line on screen: a newline or tab inside one,
    e.g. from a node label or run metadata, becomes a space) or one string (its
    newlines kept, so it cannot tell a field's newline from a line break: for text
    that holds no user content). Control characters are removed either way
    (:func:`~baygo_graph._text.console`). JSON of synthetic data (``"synthetic": true``)
    is said on stderr too, one line: every output says it.

    Examples
    --------
    >>> emit({}, as_json=False, text=["data: a\\nb", "next"])
    data: a b
    next
    """
    try:
        if as_json:
            click.echo(json.dumps(summary, indent=2))
            if summary.get("synthetic") is True:  # the screen says it too, as every output
                click.echo(console(_json_banner(summary, text)), err=True)
        elif isinstance(text, str):
            click.echo(console(text, lines=True))  # run metadata cannot drive the terminal
        else:
            click.echo("\n".join(console(line) for line in text))
        sys.stdout.flush()
    except OSError as e:  # the files still written; said at the end (stdout_failed)
        stdout_failed(e, sys.stdout)


def _remove_created(created: list[Path]) -> None:
    for folder in reversed(created):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            return


def _make_folder(folder: Path) -> list[Path]:
    from ..io.atomic import make_folders

    missing = [p for p in [folder, *folder.parents] if not p.exists()]
    make_folders(folder)  # no recursion: a path 2,000 folders deep (hostile21 Z15)
    return missing[::-1]


def _blocker(path: Path) -> str | None:
    """Why ``path`` cannot be made: the nearest existing parent is a file, or None."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else f"parent {parent} is a file, not a folder"
    return None


def os_error_text(e: OSError, path=None) -> str:
    """One line for an OSError about ``path`` (default: the error's file name).

    Says which parent is a file ("File exists" and "Not a directory" do not),
    and gives the system's reason in words, without ``[Errno N]``.

    Examples
    --------
    >>> os_error_text(PermissionError(errno.EACCES, "Permission denied", "/x/y"))
    '/x/y: permission denied'
    """
    path = Path(path if path is not None else e.filename or "")
    shown = short_path(path)  # the reason after it is never what a long line cuts
    system = e.errno is not None and e.strerror == os.strerror(e.errno)  # not ours
    if (system and isinstance(e, FileExistsError | NotADirectoryError)
            and (why := _blocker(path))):  # fmt: skip
        return f"{shown}: {why}"
    if system and isinstance(e, FileExistsError) and path.exists() and not path.is_dir():
        return f"{shown}: is a file, not a folder"
    if e.strerror is None:  # raised with a message of its own
        return " ".join(str(e).split())
    other = "" if getattr(e, "filename2", None) is None else f" -> {short_path(e.filename2)}"
    return f"{shown}{other}: {e.strerror[:1].lower()}{e.strerror[1:]}"


def out_error(option: str, path, e: OSError | None = None) -> click.ClickException:
    """``option: path: reason`` as a one-line error (``e``: the OSError met, if any; the
    file it names, when it names one, is the path reported: a file in the folder
    ``path``, say)."""
    path = Path(e.filename if e is not None and e.filename else path)
    shown = short_path(path)
    if e is None:
        why = _blocker(path) or "cannot be written"
        return click.ClickException(f"{option}: {shown}: {why}")
    text = os_error_text(e, path)
    if isinstance(e, PermissionError) and e.strerror == os.strerror(errno.EACCES):
        where = next((p for p in [path, *path.parents] if p.exists()), path)
        text = f"{shown}: permission denied (cannot write in {short_path(where)})"
    elif not text.startswith(f"{shown}:"):
        text = f"{shown}: {text}"
    return click.ClickException(f"{option}: {text}")


def ensure_writable(folder, *, option: str = "--out") -> tuple[Path, list[Path]]:
    """Create ``folder`` if needed and check that files can be written in it.

    Call before computing so a bad ``--out`` fails at once, not after the work.

    Returns
    -------
    folder : pathlib.Path
    created : list of pathlib.Path
        The folders this call created (outermost first), for clean-up.

    Raises
    ------
    click.ClickException
        One line, ``OPTION: FOLDER: reason``: it is a file, a parent is a file,
        permission denied...; folders this call created are removed again.

    Examples
    --------
    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp())
    >>> folder, created = ensure_writable(base / "a" / "b")
    >>> folder.is_dir(), [p.name for p in created]
    (True, ['a', 'b'])
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise click.ClickException(f"{option}: {folder}: is a file, not a folder")
    if _blocker(folder):
        raise out_error(option, folder)
    created: list[Path] = []
    try:
        created = _make_folder(folder)
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as e:  # named as the folder asked for, not the probe's random name
            raise OSError(e.errno, e.strerror or str(e), str(folder)) from e
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, "Permission denied", str(folder))
    except OSError as e:
        _remove_created(created)
        raise out_error(option, folder, e) from None
    return folder, created


def check_out_file(path, *, option: str = "--out", overwrite: bool = False) -> Path:
    """Check, before computing, that the file ``path`` can be written (nothing is made).

    Its nearest existing parent must be a folder the process can write in, ``path``
    must not be a folder, a symbolic link nor one of the command's inputs
    (:func:`command_inputs`), and, unless ``overwrite``, must not exist; otherwise a
    one-line ``OPTION: PATH: reason``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "f").write_text("")
    >>> check_out_file(d / "new" / "page.html") == d / "new" / "page.html"
    True
    >>> try:
    ...     check_out_file(d / "f" / "page.html")
    ... except click.ClickException as e:
    ...     print(e.message.replace(str(d), "D"))
    --out: D/f/page.html: parent D/f is a file, not a folder
    """
    text = os.fspath(path)
    path = Path(path)
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise click.ClickException(f"{option}: {text}: is a folder, not a file")
    if _blocker(path):
        raise out_error(option, path)
    from ..io.atomic import check_target, protected_inputs

    try:
        with protected_inputs(command_inputs(option=option)):  # none of them is the output
            check_target(path, overwrite=overwrite)
    except OSError as e:
        raise out_error(option, path, e) from None
    where = next(p for p in path.parents if p.exists())
    if not os.access(where, os.W_OK | os.X_OK):
        raise out_error(option, path, PermissionError(errno.EACCES, "Permission denied"))
    return path


def fit_window(
    window: int | None, n_steps: int, *, default: int = DEFAULT_WINDOW, what="the run"
) -> int:
    """The window used on ``n_steps`` steps: ``window``, at most ``n_steps``.

    None gives ``min(default, n_steps)``. A ``--window`` longer than the run is
    cut to its length, with a one-line note on stderr (the window of a run of
    T steps is at most the whole run; stdout and ``--json`` stay clean).

    Examples
    --------
    >>> fit_window(None, 4), fit_window(3, 4)
    (4, 3)
    """
    if window is None:
        return min(default, n_steps)
    used, cut = resolve_window(window, n_steps)  # the one window rule
    if cut:
        note(f"--window {window} is longer than {what} ({counted(n_steps, 'step')}): using {used}")
    return used


def note(text: str) -> None:
    """``baygo: note: text`` on stderr (stdout and ``--json`` stay clean)."""
    click.echo(f"baygo: note: {console(text)}", err=True)


@contextlib.contextmanager
def output_file(path, *, option: str = "--out", overwrite: bool = False):
    """:func:`check_out_file`, then, as :func:`output_folder` does for a folder, remove
    the missing parent folders that writing the file made if the block fails.

    Missing parents of an output file are created, as every ``--out`` folder is.

    Examples
    --------
    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp())
    >>> try:
    ...     with output_file(base / "new" / "page.html") as page:
    ...         page.parent.mkdir()
    ...         raise ValueError("render failed")
    ... except ValueError:
    ...     pass
    >>> (base / "new").exists()
    False
    """
    from ..io.atomic import protected_inputs

    path = check_out_file(path, option=option, overwrite=overwrite)
    missing = [p for p in path.parents if not p.exists()][::-1]  # outermost first
    try:
        with protected_inputs(command_inputs(option=option)):  # at the write too
            yield path
    except BaseException:
        _remove_created(missing)
        raise


def command_inputs(*, exclude=None, option: str | None = None) -> list:
    """The files the running command reads: every existing path among its arguments
    and options (``--data``, the run folders or series given, ``--plugin`` files; for a
    run folder, its ``run.npz``), except the folder ``exclude`` it writes and the value
    of its output ``option`` (``"--out"``). An output
    folder protects them (:func:`~baygo_graph.io.atomic.protected_inputs`): no output
    replaces one, even with ``--force``.

    Examples
    --------
    >>> command_inputs()  # outside a command: none
    []
    """
    from ..io.atomic import input_files

    ctx = click.get_current_context(silent=True)
    found: list = []  # paths, or (path, shown) for a run folder's run.npz
    own = None if option is None else option.lstrip("-").replace("-", "_")
    while ctx is not None:  # the command's parameters, then the group's (--plugin)
        for key, value in ctx.params.items():
            if key == own:  # the output option itself
                continue
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if not isinstance(item, str | os.PathLike):  # a number is no file (samefile
                    continue  # takes an int as a file descriptor: 2**32 overflowed)
                try:
                    if exclude is not None and os.path.samefile(item, exclude):
                        continue
                except (OSError, ValueError, TypeError):  # not a path that exists
                    pass
                found.extend(input_files(item))
        ctx = ctx.parent
    return found


@contextlib.contextmanager
def output_folder(folder, *, option: str = "--out", lock: bool = True, force: bool = False,
                  names=(), table: str | None = None):  # fmt: skip
    """The one way a command writes into a folder.

    :func:`ensure_writable`, then hold the folder for this process while the block
    runs (:func:`~baygo_graph.io.atomic.output_lock`: a second baygo writing there is
    refused in one line, ``OPTION: FOLDER: in use by another baygo process ...``), keep
    its record of the files baygo wrote (:func:`~baygo_graph.io.atomic.output_record`:
    an existing file is replaced only when baygo wrote it there, else only with
    ``force``, ``--force``), refuse at once any of the files ``names`` (relative to
    the folder) that could not be replaced, and, for a command writing a results
    ``table`` (``"results"``: compare, reproduce; ``"sweep"``), a table of the other
    kind there (:func:`~baygo_graph.io.results.check_tables`: a sweep's folder belongs
    to the sweep), and remove the folders it created if the block fails and left them
    empty. ``lock=False`` for a folder several processes
    share on purpose (a sweep's).

    Examples
    --------
    >>> import tempfile
    >>> base = Path(tempfile.mkdtemp())
    >>> try:
    ...     with output_folder(base / "figs"):
    ...         raise ValueError("plot failed")
    ... except ValueError:
    ...     pass
    >>> (base / "figs").exists()
    False
    """
    from ..io.atomic import (
        LOCK_NAME,
        RECORD_NAME,
        check_replace,
        check_target,
        output_lock,
        output_record,
        protected_inputs,
    )

    folder, created = ensure_writable(folder, option=option)
    try:
        with (
            output_lock(folder) if lock else contextlib.nullcontext(),
            output_record(folder, force=force),
            protected_inputs(command_inputs(exclude=folder, option=option)),
        ):
            for name in names:  # before the work, not after it
                try:
                    check_target(
                        folder / name, within=folder, overwrite=True
                    )  # a linked sub-folder too
                    check_replace(folder / name)
                except OSError as e:
                    raise out_error(option, folder / name, e) from None
            if table is not None:
                from ..io.results import check_tables

                try:
                    check_tables(folder, kind=table)
                except OSError as e:
                    raise out_error(option, Path(e.filename), e) from None
            yield folder
    except OSError as e:
        _remove_created(created)
        record = e.filename is not None and Path(e.filename).name in (RECORD_NAME, LOCK_NAME)
        if record or (e.errno == errno.EBUSY and e.filename == str(folder)):
            raise out_error(option, folder, e) from None
        raise
    except BaseException:
        _remove_created(created)
        raise


#: A number word as Python writes it (nan, inf, -inf, infinity), standing alone.
_NUMBER_WORD = re.compile(r"(?<![\w.\"])([+-]?)(nan|inf(?:inity)?)(?![\w.\"])", re.IGNORECASE)


def option_value(text: str):
    """The value a ``--model-option`` VALUE stands for: JSON (``[-3,3]``, ``0.5``,
    ``"x"``), where the number words nan, inf and -inf are numbers (so a model says the
    number is not finite) and a bare list ``lo,hi`` is the list ``[lo,hi]``; other text
    as it is (``float32``).

    Examples
    --------
    >>> option_value("[-3,3]"), option_value("-3,3"), option_value("float32")
    ([-3, 3], [-3, 3], 'float32')
    >>> option_value("nan"), option_value("[1,-inf]")
    (nan, [1, -inf])
    """
    bare = text.strip()
    tries = [bare]
    if "," in bare and not bare.startswith(("[", "{", '"')):
        tries.append(f"[{bare}]")  # lo,hi
    for candidate in tries:
        words = _NUMBER_WORD.sub(
            lambda m: "NaN" if m[2].lower() == "nan" else f"{m[1]}Infinity", candidate
        )
        try:
            return json.loads(words)
        except json.JSONDecodeError:
            continue
    return text


def parse_options(pairs) -> dict:
    """``KEY=VALUE`` strings as a dict, each VALUE read by :func:`option_value`.

    Examples
    --------
    >>> parse_options(["bounds=[-3,3]", "dtype=float32"])
    {'bounds': [-3, 3], 'dtype': 'float32'}
    """
    out, said = {}, {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--model-option must be KEY=VALUE, got {shorten(repr(pair), 60)}")
        if key in said:  # a re-edited command line's typo: neither value is guessed
            raise ValueError(
                f"--model-option {key} given twice ({shorten(said[key], 40)}, "
                f"{shorten(pair, 40)}): give each key once"
            )
        said[key] = pair
        out[key] = option_value(value)
    return out


def model_pairs(ctx, param, pairs) -> tuple:
    """``--model-option`` values: each KEY=VALUE (a usage error otherwise), as typed."""
    try:
        parse_options(pairs)
    except ValueError as e:
        raise click.BadParameter(str(e).removeprefix("--model-option ")) from None
    return pairs


def build_model(name: str, *, grid=None, pairs=(), grid_hint: str = "'--grid'"):
    """The model ``--model``, ``--grid`` and ``--model-option`` name, built before any
    work: a key the model does not take, or a value it refuses, is a usage error naming
    the option, the value as typed and what the model takes (the built-in models check
    every option when they are built).

    Examples
    --------
    >>> build_model("linear", grid=11, pairs=["bounds=[-3,3]"]).bounds
    [-3, 3]
    >>> try:
    ...     build_model("linear", pairs=["k=1"])
    ... except click.BadParameter as e:
    ...     print(e.format_message()[:70])
    Invalid value for '--model-option': the linear model has no option 'k'
    """
    from ..models import model_options

    options = parse_options(pairs)
    known = model_options(name)
    if grid is not None and known is not None and "grid" not in known:
        raise click.BadParameter(
            f"the {name} model has no grid (it takes no grid=)", param_hint=grid_hint
        )
    typed = {pair.partition("=")[0]: pair for pair in pairs}  # each key once (parse_options)
    if grid is not None and "grid" in options:  # one would silently win over the other
        raise click.BadParameter(
            f"the grid given twice ({grid_hint.strip(chr(39))} {grid} and "
            f"{shorten(typed['grid'], 40)}): give it once",
            param_hint="'--model-option'",
        )
    for key in options:
        if known is not None and key not in known:
            raise click.BadParameter(
                f"the {name} model has no option {shorten(repr(key), 40)} (its options: "
                f"{', '.join(known)})",
                param_hint="'--model-option'",
            )
    base = {} if grid is None else {"grid": grid}
    for key, value in options.items():  # one at a time: the error names its own pair
        _build(name, base | {key: value}, what=shorten(typed[key], 60), hint="'--model-option'")
    return _build(name, base | options, what=", ".join(shorten(p, 40) for p in pairs),
                  hint="'--model-option'" if pairs else grid_hint)  # fmt: skip


def _build(name, options, *, what, hint):
    from ..models import resolve_model

    try:
        return resolve_model(name, **options)
    except (ValueError, TypeError) as e:
        raise click.BadParameter(option_refusal(what, e), param_hint=hint) from None


def option_refusal(what: str, error: Exception) -> str:
    """A model's refusal of an option as one line: the option as typed (``what``), then
    what the model says it takes; the model's own echo of the value (``, got ...``, in
    Python's words) is left off, as the value is named as typed, and a plug-in's
    message of many lines is put on one.

    Examples
    --------
    >>> option_refusal("sigma=abc", TypeError("sigma must be a finite number > 0, got str 'abc'"))
    'sigma=abc: sigma must be a finite number > 0'
    """
    said = " ".join(str(error).split())
    head, got, _ = said.rpartition(", got ")
    said = head if got and head else said
    return shorten(f"{what}: {said}" if what else said, 240)
