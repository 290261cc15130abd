"""Exceptions and warnings raised by baygo_graph."""

__all__ = [
    "BayGoError",
    "BudgetError",
    "CellError",
    "DataError",
    "GridResolutionWarning",
    "NonFiniteError",
    "NotUniqueError",
    "PluginError",
    "RunFormatError",
    "SettingError",
    "TimeBinWarning",
]


class BayGoError(Exception):
    """Base class of the package's errors."""


class DataError(BayGoError, ValueError):
    """A data file or table cannot be used: missing, unreadable, or malformed."""


class RunFormatError(BayGoError, ValueError):
    """A file is not a saved run (or graph series) of this package, or is corrupt."""


class CellError(BayGoError, ValueError):
    """A cell of an edge list (a label, a time, a weight) is refused. The message names
    its row: a DataFrame's (or Parquet file's) row position, from 0; the readers of text
    files say the file's line instead, from 1 as an editor counts them, the header and
    comment lines included (``docs/formats.md``). ``row`` holds the position."""

    def __init__(self, before: str, row: int | None = None, after: str = ""):
        self.before, self.row, self.after = before, row, after
        super().__init__(before if row is None else f"{before}row {row}{after}")

    def __reduce__(self):  # pickled whole (a worker process' error), message as it is
        return _cell_error, (self.args, self.before, self.row, self.after)

    def at_line(self, line: int) -> str:
        """The message with the row said as the file's line ``line``."""
        return f"{self.before}line {line}{self.after}"


def _cell_error(args, before, row, after) -> CellError:
    error = CellError(before, row, after)
    error.args = args
    return error


class BudgetError(BayGoError, MemoryError):
    """An input would make the process allocate more memory than the budget allows.

    Raised *before* the allocation; see :mod:`baygo_graph.limits`.
    """


class NonFiniteError(BayGoError, FloatingPointError):
    """A run's numbers went non-finite (NaN or infinite); the message names the step
    and the agent. Raised instead of finishing with meaningless results."""


class NotUniqueError(BayGoError, ValueError):
    """A quantity asked for is not unique (e.g. influence with several closed classes)."""


class PluginError(BayGoError, ImportError):
    """A plug-in (``baygo --plugin FILE.py``) cannot be imported: no such file or module,
    a syntax error, or an error raised while it ran; the message names the file."""


class GridResolutionWarning(UserWarning):
    """The parameter grid is too coarse or too narrow for the posterior."""


class TimeBinWarning(UserWarning):
    """An edge list's times were binned as given, but likely not as meant: integer times
    that look like Unix seconds, read without a bin, make one step per second (the
    message names the step count and the option that bins them by days)."""


class SettingError(BayGoError, RuntimeError):
    """A setting of the package (an environment variable such as ``BAYGO_MEMORY_LIMIT``)
    is malformed: the error names the setting, never the file being read."""
