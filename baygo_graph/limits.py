"""The memory budget: refuse inputs that would allocate too much, *before* allocating.

Every reader and :func:`baygo_graph.simulate` estimate what an input asks them to
allocate (an array header's shape, a declared number of steps, agents x grid
points) and call :func:`check_budget` first, so a small hostile file or an absurd
option fails at once with a one-line :class:`~baygo_graph.exceptions.BudgetError`
instead of driving the process into swap or the OOM killer.

The budget bounds the process's *peak* resident memory: every check compares what
this process already holds (:func:`process_memory`, its resident memory now) plus
the estimate against the budget, in one place (:func:`memory_budget`), so a run that
passes stays under it, and the limit a refusal advises counts what the process holds.

The budget is, by priority:

1. the ``limit`` keyword of the function called (bytes, or a text like ``"4GiB"``);
2. the environment variable ``BAYGO_MEMORY_LIMIT`` (e.g. ``BAYGO_MEMORY_LIMIT=8GiB``);
3. :data:`DEFAULT_LIMIT`, 8 GiB: far above any paper-sized run (12 agents, a
   61 x 61 grid, 60 steps need a few MB above the ~150 MB a Python process with the
   package imported holds), enough for the exact model's million agents over 20
   steps (about 1.2 GiB), and a third of a 24 GiB machine.
"""

from __future__ import annotations

import math
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from . import _text
from ._text import counted
from .exceptions import BudgetError, SettingError

__all__ = [
    "ADVICE_MARGIN",
    "Budget",
    "DEFAULT_LIMIT",
    "arrays_nbytes",
    "check_csv_budget",
    "JSON_BYTES_PER_FILE_BYTE",
    "LIMIT_ENV",
    "check_analysis_budget",
    "check_budget",
    "check_figure_budget",
    "check_results_budget",
    "estimate_edge_list_bytes",
    "estimate_series_bytes",
    "estimate_run_bytes",
    "following",
    "format_bytes",
    "memory_budget",
    "memory_limit",
    "process_memory",
    "series_nbytes",
    "parse_bytes",
    "physical_memory",
    "size_text",
]

#: Environment variable overriding the budget, e.g. ``"4GiB"``, ``"500MB"``, ``"1e9"``.
LIMIT_ENV = "BAYGO_MEMORY_LIMIT"
#: The budget when neither a keyword nor ``BAYGO_MEMORY_LIMIT`` sets one (bytes).
DEFAULT_LIMIT = 8 * 2**30

#: Upper bound of the memory of reading a JSON file, per byte of the file: the
#: parsed document and what is built from it. Measured (tracemalloc) worst cases:
#: about 45 for a graph series of many bare nodes ``{"id":1}``, 39 for many
#: one-node steps, 24 for a list of empty objects ``[{},{},...]`` (docs/formats.md).
JSON_BYTES_PER_FILE_BYTE = 64

#: Upper bound of reading a CSV table with pandas, per byte of the file, and per
#: column: measured (tracemalloc) at most about 9 bytes per file byte (empty or
#: short text cells) and 1.3 KB per column (a one-row file of 100,000 columns).
CSV_BYTES_PER_FILE_BYTE = 16
CSV_BYTES_PER_COLUMN = 2048

#: Peak bytes of reading an edge list into a series, per row (pandas' frame, the
#: factorised labels, the step and key arrays, the sort of np.unique, the normalised
#: entries), per node and per step: measured peaks (psutil/ru_maxrss above the size
#: before the call, ``benchmarks/bench_edgelist.py --memory``) were 330-355 B per row
#: with integer labels and up to 460 B with text labels (10^6 rows, CSV and Parquet;
#: 333 B at 10^7 rows on 10^5 nodes), since the self-weight rule stores a self-loop
#: entry for every node and step where the node hears someone (about 1.8 entries a
#: contact); these bounds leave a margin. A small file still takes ~20 MiB (pyarrow's
#: memory pool, the allocator's arenas): the fixed term. The connectivity questions
#: that follow add nothing measurable above the load's peak at 10^7 rows; the union
#: influence holds at most about 130 B per row more.
EDGE_LIST_BYTES_FIXED = 24 * 2**20
EDGE_LIST_BYTES_PER_ROW = 400
EDGE_LIST_TEXT_BYTES_PER_ROW = 560
EDGE_LIST_BYTES_PER_NODE = 512
EDGE_LIST_BYTES_PER_STEP = 64
#: Bytes per step of what :func:`~baygo_graph.analysis.analysis_report` (``baygo
#: analyze``) holds besides its (T, M) influence arrays and the influence's own work
#: (:func:`~baygo_graph.analysis.centrality.influence_bytes`, 72 B a step): the time to
#: connectivity, the per-window answers of both window kinds, the windows' class counts
#: and ends. Measured (tracemalloc peak, 2-node series of 10^5 steps, 2 and 10^5
#: contacts): 56-72 B a step above the influence; 192 counted both (1.9x, hostile19 X3).
ANALYSIS_BYTES_PER_STEP = 96

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_bytes(text) -> int:
    """A byte count from an int or a text such as ``"4GiB"``, ``"500 MB"``, ``"1e9"``.

    Parameters
    ----------
    text : int or str
        Decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB) units; case ignored.

    Returns
    -------
    int
        The number of bytes (> 0).

    Raises
    ------
    ValueError
        When the text is not a positive size.

    Examples
    --------
    >>> parse_bytes("4GiB"), parse_bytes("1.5 kB"), parse_bytes(1024)
    (4294967296, 1500, 1024)
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = _SIZE.match(str(text))
        unit = match and _UNITS.get(match.group(2).lower())
        if not unit:
            raise ValueError(f"a memory size must look like '4GiB' or '500MB', got {text!r}")
        number = float(match.group(1)) * unit
        value = int(number) if math.isfinite(number) else 0
    if value <= 0:
        raise ValueError(f"a memory size must be positive, got {text!r}")
    return value


def format_bytes(nbytes: int) -> str:
    """A short human-readable size, binary units.

    Examples
    --------
    >>> format_bytes(512), format_bytes(3 * 2**30), format_bytes(10**20)
    ('512 B', '3.0 GiB', '88817.8 PiB')
    """
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"


def memory_limit(limit=None) -> int:
    """The budget in bytes: ``limit`` if given, else ``$BAYGO_MEMORY_LIMIT``, else 8 GiB.

    Parameters
    ----------
    limit : int or str, optional
        Bytes, or a size text (see :func:`parse_bytes`).

    Raises
    ------
    ValueError
        When ``limit`` is not a valid size.
    SettingError
        When the environment variable is not (a reader of a file never mistakes it
        for a fault of that file).

    Examples
    --------
    >>> memory_limit("1GiB")
    1073741824
    """
    if limit is not None:
        return parse_bytes(limit)
    env = os.environ.get(LIMIT_ENV)
    if env:
        try:
            return parse_bytes(env)
        except ValueError as e:
            raise SettingError(
                f"{LIMIT_ENV}={env!r} is not a memory size like '4GiB' (unset it for the "
                "default, 8 GiB)"
            ) from e
    return DEFAULT_LIMIT


def size_text(nbytes: int) -> str:
    """The shortest size text of at most two significant digits (binary units) that
    :func:`parse_bytes` reads as ``>= nbytes``: what to set a limit to.

    Examples
    --------
    >>> size_text(2**40), size_text(3 * 2**30 + 1), size_text(1000), size_text(10**15)
    ('1TiB', '3.1GiB', '1000', '910TiB')
    """
    nbytes = int(nbytes)
    unit = next((u for u in ("TiB", "GiB", "MiB", "KiB") if nbytes >= _UNITS[u.lower()]), "")
    if not unit:
        return str(nbytes)
    value = nbytes / _UNITS[unit.lower()]
    step = 10.0 ** (math.floor(math.log10(value)) - 1)  # two significant digits
    text = f"{math.ceil(value / step) * step:.10g}{unit}"
    while parse_bytes(text) < nbytes:  # float rounding: never below the need
        value += step
        text = f"{math.ceil(value / step) * step:.10g}{unit}"
    return text


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say.

    Examples
    --------
    >>> m = physical_memory(); m is None or m > 2**20
    True
    """
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


#: The length of a refusal's line (the command line's error line): a longer ``what``
#: (a quoted file name) is cut in its middle so that the budget and the advice stay whole.
LINE_CHARS = 300

#: The limit a refusal advises is this much above what the process holds plus the
#: estimate (then rounded up to two significant digits), so that the next run, whose
#: resident memory at the same point differs by a few MB, passes too.
ADVICE_MARGIN = 1.05

_PROCESS: dict = {}  # pid -> psutil.Process: a forked worker measures itself, not its parent


def process_memory() -> int:
    """The resident memory this process holds now (bytes; psutil's RSS), or 0 where it
    cannot be measured (psutil missing or failing on this platform): the checks then
    count the estimates alone, as before the budget counted the process.

    Examples
    --------
    >>> process_memory() > 2**20   # a Python process with numpy holds tens of MB
    True
    """
    try:
        import psutil

        pid = os.getpid()
        proc = _PROCESS.get(pid)
        if proc is None:
            _PROCESS.clear()
            proc = _PROCESS[pid] = psutil.Process(pid)
        return int(proc.memory_info().rss)
    except Exception:  # noqa: BLE001 - any failure to measure counts 0, never a crash
        return 0


@dataclass(frozen=True)
class Budget:
    """The memory budget in force and what this process already holds of it.

    Attributes
    ----------
    limit : int
        The budget in bytes (:func:`memory_limit`).
    held : int
        Bytes this process holds now (:func:`process_memory`, or the bytes a caller
        knows it holds, whichever is larger).
    given : bool
        Whether the budget is a ``limit`` keyword (else the environment or the default).

    Examples
    --------
    >>> b = Budget(limit=300 * 2**20, held=200 * 2**20, given=True)
    >>> b.room // 2**20, b.fits(100 * 2**20), b.advised(100 * 2**20)
    (100, True, '320MiB')
    >>> b.over(150 * 2**20)
    'about 150.0 MiB on top of 200.0 MiB held, over the memory budget of 300.0 MiB (the ...'
    """

    limit: int
    held: int
    given: bool = False

    @property
    def room(self) -> int:
        """Bytes an allocation may still take (negative when already over)."""
        return self.limit - self.held

    def fits(self, nbytes: int) -> bool:
        """Whether ``nbytes`` more keep the process within the budget."""
        return self.held + int(nbytes) <= self.limit

    @property
    def source(self) -> str:
        """Where the budget comes from: ``"BAYGO_MEMORY_LIMIT=300M"``, ``"the default"``."""
        if self.given:
            return "the limit given"
        env = os.environ.get(LIMIT_ENV)
        return f"{LIMIT_ENV}={_text.shorten(env, 20)}" if env else "the default"

    def over(self, nbytes: int) -> str:
        """``"about X on top of Y held, over the memory budget of Z
        (BAYGO_MEMORY_LIMIT=...)"``: the words of every refusal (Y: what this process
        already holds; short, so the numbers of a long refusal stay whole)."""
        held = f" on top of {format_bytes(self.held)} held" if self.held else ""  # as below
        return (
            f"about {format_bytes(nbytes)}{held}, over the memory budget of "
            f"{format_bytes(self.limit)} ({self.source})"
        )

    def advised(self, nbytes: int) -> str:
        """The limit that lets ``nbytes`` pass on top of what is held (a size text), with
        :data:`ADVICE_MARGIN`."""
        return size_text(math.ceil(ADVICE_MARGIN * (self.held + int(nbytes))))

    def check(self, nbytes, *, what: str, advice: str = "", covers: tuple | None = None) -> int:
        """``nbytes``, or :class:`BudgetError` when they do not fit on top of what is held
        (the words of :func:`check_budget`). Several checks of one computation measured
        once (``simulate_seeds``: its loops and results; the window products of an
        analysis) use one ``Budget``: memory they freed stays resident, and measuring
        again would count it twice. ``covers``: ``(bytes, goal)``, the most the rest of
        those checks can ask and what they do (``"to run every window"``): the limit
        advised lets every one pass, so one retry runs."""
        nbytes = int(nbytes)
        if self.fits(nbytes):
            return nbytes
        machine = physical_memory()
        if machine is not None and self.held + nbytes > machine:  # no budget can help
            held = f" on top of {format_bytes(self.held)} held" if self.held else ""
            raise BudgetError(
                f"{what} needs about {format_bytes(nbytes)}{held}, more than this machine's "
                f"memory ({format_bytes(machine)}; the budget: {format_bytes(self.limit)}): "
                + (advice or "it cannot run here")
            )
        # a parse is estimated, not the work after it: its advice promises the read only
        goal = "to read it" if what.startswith(("parsing ", "reading ")) else "to run it"
        every, rest = covers or (nbytes, goal)
        if int(every) >= nbytes and (machine is None or self.held + int(every) <= machine):
            goal = rest
        else:  # nothing more, or more than the machine: this check's own need
            every = nbytes
        text = self.advised(every)
        how = f"pass a limit of {text}" if self.given else f"set {LIMIT_ENV}={text}"
        tail = (
            f" needs {self.over(nbytes)}: {f'{advice}, or ' if advice else ''}{how} or more {goal}"
        )
        raise BudgetError(_text.fit_head(what, LINE_CHARS - len(tail)) + tail)


def memory_budget(limit=None, *, used: int = 0) -> Budget:
    """The budget in force and what this process holds of it: the one computation every
    budget check of the package goes through.

    Parameters
    ----------
    limit : int or str, optional
        The budget (see :func:`memory_limit`).
    used : int, default 0
        Bytes the caller knows this process holds already (arrays read before): they
        are part of its resident memory, so they count only where that is smaller
        (where it cannot be measured: 0).

    Examples
    --------
    >>> b = memory_budget("1GiB")
    >>> b.limit, 0 < b.held < b.limit, b.fits(b.room), b.fits(b.room + 1)
    (1073741824, True, True, False)
    """
    budget = memory_limit(limit)
    return Budget(limit=budget, held=max(process_memory(), int(used)), given=limit is not None)


_FOLLOWING: ContextVar = ContextVar("baygo_following", default=None)


@contextmanager
def following(need, *, goal: str):
    """While the block runs, a reader's refusal of a series too large for the budget
    advises a limit that covers the work that follows the read too, so that following
    it runs the whole of that work (one retry, never one per stage).

    Parameters
    ----------
    need : callable
        ``need(steps, nodes, rows)``: an upper bound of the bytes that work allocates
        on top of the series read (``rows``: the contacts read).
    goal : str
        What that work does, for the advice (``"to write the page too"``).

    Examples
    --------
    >>> with following(lambda steps, nodes, rows: 64 * steps, goal="to write it too"):
    ...     after_reading(2**20, steps=10**6, nodes=2, rows=2)
    (64524288, 'to write it too')
    >>> after_reading(2**20, steps=10**6, nodes=2, rows=2) is None
    True
    """
    token = _FOLLOWING.set((need, goal))
    try:
        yield
    finally:
        _FOLLOWING.reset(token)


def after_reading(nbytes: int, *, steps: int, nodes: int, rows: int) -> tuple | None:
    """The ``covers`` of a reader's check (:meth:`Budget.check`) of a series of this
    shape whose read needs ``nbytes``: with a :func:`following` need in force, the larger
    of the read's need and half of it (what a read leaves resident, measured up to 35%)
    plus the need that follows, and its goal; else None."""
    after = _FOLLOWING.get()
    if after is None:
        return None
    need, goal = after
    return max(int(nbytes), int(nbytes) // 2 + int(need(steps, nodes, rows))), goal


def check_budget(nbytes, *, what: str, limit=None, used: int = 0, advice: str = "",
                 covers: tuple | None = None) -> int:  # fmt: skip
    """Raise :class:`BudgetError` when this process's memory plus ``nbytes`` exceeds the
    memory budget.

    Parameters
    ----------
    nbytes : int
        The estimated allocation (Python int: no overflow however large).
    what : str
        What would be allocated, for the message (``"member 'mse' of run.npz"``).
    limit : int or str, optional
        The budget (see :func:`memory_limit`).
    used : int, default 0
        Bytes this process is known to hold already for the same work (e.g. the
        members of a file read before this one); see :func:`memory_budget`.
    advice : str, optional
        What else would make the input fit (``"pass a wider bin (--bin 20)"``), said
        before the budget that would let it pass.
    covers : tuple, optional
        ``(bytes, goal)``: the most the work after this check asks, for the limit
        advised (:meth:`Budget.check`).

    Returns
    -------
    int
        ``nbytes``, so calls can be chained.

    Raises
    ------
    BudgetError
        One line: the estimate, what the process already holds, the budget and where
        it comes from, and a budget that would let this allocation pass counting what
        is held (never the one in force), or, when that is more than this machine's
        memory, that it cannot run here.

    Examples
    --------
    >>> check_budget(10**6, what="a small array")
    1000000
    >>> check_budget(3 * 2**30, what="a big array", limit="1GiB")
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.BudgetError: a big array needs about 3.0 GiB on top of ...
    """
    return memory_budget(limit, used=used).check(nbytes, what=what, advice=advice, covers=covers)


#: Bytes per grid point that each run of a loop holds besides its posterior buffers:
#: the model's values prepared from its split (the linear model's (K, 6) features) and
#: the step's temporaries; measured 68 B (the paper's grid, 50 to 235 runs in one loop).
RUN_BYTES_PER_SEED_POINT = 72
#: Bytes a call of :func:`baygo_graph.simulate` needs above its arrays (the data read,
#: modules imported on first use, the allocator's arenas): measured up to 7 MiB above
#: what the process held at the check plus the arrays (``docs/scaling.md``); 12 MiB
#: leaves a margin.
RUN_BYTES_FIXED = 12 << 20


def estimate_run_bytes(
    agents: int,
    steps: int,
    grid_points: int,
    *,
    learners: int | None = None,
    itemsize: int = 8,
    kept: int = 0,
    pairwise: bool = True,
    pair_bytes: int = 8,
    seeds: int = 1,
) -> int:
    """Bytes that :func:`baygo_graph.simulate` allocates for a run of this size (or
    :func:`baygo_graph.simulate_seeds` for ``seeds`` such runs made together).

    Counts, per run, the (learners, K) log-posterior and its two work buffers, the
    model's values prepared for it (:data:`RUN_BYTES_PER_SEED_POINT` per grid point),
    the per-step metrics (mse, entropy, mean, choices: T x M x 36 bytes), the kept
    posteriors and, with ``pairwise``, ``pair_bytes`` per agent pair;
    once, the grid and :data:`RUN_BYTES_FIXED`. Checked against measured peaks
    (``docs/scaling.md``); the process's own memory is counted by the check.

    Parameters
    ----------
    agents, steps, grid_points : int
        M, T and K (points of the whole 2-D grid).
    learners : int, optional
        Rows of the posterior array (1 for ``cen``); default ``agents``.
    itemsize : int, default 8
        Bytes per posterior value (4 for float32).
    kept : int, default 0
        Number of kept posterior snapshots.
    pairwise : bool, default True
        Count ``pair_bytes`` for each of the M x M pairs (KL scores or a dense W).
    pair_bytes : int, default 8
        Bytes per pair of the model's choice step (8: one float64 M x M array, the
        grid models'; the exact model's is its own, measured).
    seeds : int, default 1
        Runs made together in one loop.

    Examples
    --------
    >>> format_bytes(estimate_run_bytes(12, 60, 61 * 61))  # the paper's run
    '13.4 MiB'
    >>> two = estimate_run_bytes(12, 60, 61 * 61, seeds=2)
    >>> format_bytes(two - estimate_run_bytes(12, 60, 61 * 61))  # one more run in the loop
    '1.3 MiB'
    >>> estimate_run_bytes(10**11, 60, 3721) > 2**60
    True
    """
    m, t, k = int(agents), int(steps), int(grid_points)
    rows = m if learners is None else int(learners)
    posterior = 3 * rows * k * itemsize + kept * m * k * 8 + RUN_BYTES_PER_SEED_POINT * k
    grid = k * (2 + 3) * 8
    metrics = t * m * (8 + 8 + 16 + 4)
    one = posterior + metrics + (m * m * int(pair_bytes) if pairwise else 0)
    return RUN_BYTES_FIXED + grid + int(seeds) * one


#: Bytes per node and per edge of drawing a step's graph and a window's union (two
#: networkx graphs, about 310 bytes per node and per edge each, measured; the
#: figure's arrays): ``baygo plot``'s graph figures.
DRAW_NODE_BYTES = 700
DRAW_EDGE_BYTES = 700


def estimate_drawing_bytes(nodes: int, edges: int) -> int:
    """Peak bytes of drawing the graph figures of ``nodes`` nodes and ``edges`` edges
    (the last step's and the window union's, self-loops included).

    Examples
    --------
    >>> estimate_drawing_bytes(300_000, 600_000) / 2**20 > 600
    True
    """
    return DRAW_NODE_BYTES * int(nodes) + DRAW_EDGE_BYTES * int(edges)


def series_nbytes(series) -> int:
    """Bytes of a series' stored entries (an edge-list series' arrays; 0 for a series of
    choices or a fixed W): what it already takes from the budget.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> series_nbytes(SimpleNamespace(entries=(np.zeros(4), np.zeros(2, dtype=np.int32))))
    40
    >>> series_nbytes(SimpleNamespace())
    0
    """
    return sum(a.nbytes for a in (getattr(series, "entries", None) or ()))


#: What ``baygo plot`` of a series holds per step on top of its analysis besides its
#: window-connectivity bars (:data:`FIGURE_BYTES_PER_WINDOW`): measured 1.1-2.1 kB a step
#: in all with windows of 10 steps (hostile round 11, P9), ~1.2 kB of it the bars.
FIGURE_BYTES_PER_STEP = 1_024
#: Bytes a figure holds per window bar (a Rectangle artist each, drawn and saved:
#: measured 11.6 kB, 2 x 10^4 windows): :func:`~baygo_graph.figures.plot_window_connectivity`.
FIGURE_BYTES_PER_WINDOW = 16_384
#: Bytes a line figure holds per point (per step and line: its data, paths and their
#: transformed copies at draw; measured 64-120 B, 10^6 to 2 x 10^6 points):
#: :func:`~baygo_graph.figures.plot_influence_series`.
FIGURE_BYTES_PER_POINT = 160
#: Bytes an image figure holds per cell (the float copy, the normalised one and the
#: image's own at draw; measured 59-68 B, 2,000^2 and 4,000^2 cells):
#: :func:`~baygo_graph.figures.plot_listen_matrix`.
FIGURE_BYTES_PER_CELL = 96


#: Bytes per result entry (a strategy, seed, step and agent) that
#: :func:`~baygo_graph.experiments.compare` holds at its end: the (S, N, T, M) MSE and
#: influence arrays and, with ``tidy=True``, the tidy frame (measured 123 B), or without it
#: the arrays and their Parquet write (71 B); ``baygo compare`` holds the arrays, the frame,
#: the summary's and the table's copies (measured 155 B; 2.4 x 10^6 entries).
COMPARE_BYTES_PER_ENTRY = {"tidy": 160, "arrays": 96, "command": 224}


def check_results_budget(strategies: int, seeds: int, steps: int, agents: int, *, kind: str,
                         advice: str, limit=None) -> int:  # fmt: skip
    """Check the results a comparison will hold (:data:`COMPARE_BYTES_PER_ENTRY` of
    ``kind`` per entry) against the budget before its first run.

    Examples
    --------
    >>> check_results_budget(2, 100, 2000, 60, kind="command", advice="fewer seeds",
    ...                      limit="300M")
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.BudgetError: keeping the results of 2 strategies x 100 seeds x 2000 ...
    """
    entries = int(strategies) * int(seeds) * int(steps) * int(agents)
    names = "strategies" if strategies != 1 else "strategy"
    return check_budget(
        COMPARE_BYTES_PER_ENTRY[kind] * entries,
        what=f"keeping the results of {strategies} {names} x {counted(seeds, 'seed')} x "
        f"{counted(steps, 'step')} x "
        f"{counted(agents, 'agent')}",
        advice=advice,
        limit=limit,
    )


def check_figure_budget(units: int, per_unit: int, *, what: str, advice: str) -> int:
    """Check a figure's memory (``units`` points, cells or bars of ``per_unit`` bytes each,
    plus 16 MiB for the figure itself) against the budget before it is drawn.

    Examples
    --------
    >>> check_figure_budget(10**9, FIGURE_BYTES_PER_POINT, what="a figure", advice="less")
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.BudgetError: a figure needs about 149.0 GiB...
    """
    return check_budget((16 << 20) + int(units) * int(per_unit), what=what, advice=advice)


def check_analysis_budget(series, *, what: str, limit=None, per_step: int = 0,
                          stage: int = 0) -> int:  # fmt: skip
    """Check the per-step work of analysing ``series`` (its windows' answers and two
    (T, M) influence arrays, :data:`ANALYSIS_BYTES_PER_STEP`, plus ``per_step`` bytes a
    step of the caller's own, e.g. :data:`FIGURE_BYTES_PER_STEP`) and ``stage``, the
    largest work of one step of it besides the arrays it keeps (an influence's), against
    the budget, before any window is answered, so that the limit a refusal advises runs
    the whole analysis; ``what`` names the work (``"the analysis"``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> s = SimpleNamespace(n_steps=10**7, n_agents=2)
    >>> check_analysis_budget(s, what="the analysis", limit="1GiB")
    Traceback (most recent call last):
        ...
    baygo_graph.exceptions.BudgetError: the analysis of 10000000 steps x 2 nodes ...
    """
    t, m = int(series.n_steps), int(series.n_agents)
    held = series_nbytes(series)
    return check_budget(
        (ANALYSIS_BYTES_PER_STEP + per_step) * t + 16 * t * m + int(stage),
        what=f"{what} of {counted(t, 'step')} x {counted(m, 'node')}",
        limit=limit,
        used=held,
        advice="bin the times coarser (--bin) or take a shorter span",
    )


def estimate_edge_list_bytes(rows: int, *, nodes: int, steps: int, text_labels: bool = False,
                             directed: bool = True) -> int:  # fmt: skip
    """Peak bytes of reading an edge list of ``rows`` contacts into a series.

    What the readers and pandas allocate (the module constants, measured): a
    fixed part; per row, more when the labels are text (one Python object per
    cell) and twice the rows for undirected contacts; per node (labels, their
    order); per step (step offsets). Nothing grows with steps x nodes: a node
    nobody reaches at a step is not stored.

    Examples
    --------
    >>> format_bytes(estimate_edge_list_bytes(10**7, nodes=10**5, steps=10**3))
    '3.8 GiB'
    >>> estimate_edge_list_bytes(2, nodes=2, steps=10**7) > 2**29   # steps cost too
    True
    """
    per_row = EDGE_LIST_TEXT_BYTES_PER_ROW if text_labels else EDGE_LIST_BYTES_PER_ROW
    return (
        EDGE_LIST_BYTES_FIXED
        + per_row * int(rows) * (1 if directed else 2)
        + EDGE_LIST_BYTES_PER_NODE * int(nodes)
        + EDGE_LIST_BYTES_PER_STEP * int(steps)
    )


#: Peak bytes that building a series from contacts already held as arrays (step,
#: receiver, sender, weight) adds on top of what the process holds then (the tail of
#: :func:`~baygo_graph.io.edgelist.edge_list_series` after its check, and
#: :func:`~baygo_graph.series.series_from_edges`): per contact, its key, the sort of the
#: keys (when the contacts are not in key order) and the normalised entries (measured
#: with tracemalloc: 138 B unsorted, 98 B sorted); per self-loop entry the self-weight
#: rule adds (at most one per contact, and one per node and step: 120 B); per node, the
#: labels' tuple (``benchmarks/bench_series_stage.py``, 10^5-10^6 contacts).
SERIES_BYTES_FIXED = 2 * 2**20
SERIES_BYTES_PER_CONTACT = 144
SERIES_BYTES_PER_ADDED = 120
SERIES_BYTES_PER_NODE = 16
#: Bytes a built series holds per stored entry: its step, row, column and weight.
SERIES_BYTES_PER_ENTRY = 32
#: Bytes per edge-step that a reader expanding intervals of presence (DyNetX's) or
#: snapshots (networkx-temporal's) holds beside the build: its step, row, column and
#: weight arrays or lists (measured: the build alone 0.85x of the DyNetX stage).
SERIES_BYTES_PER_EXPANDED = 64


def estimate_series_bytes(contacts: int, *, nodes: int, steps: int) -> int:
    """Bytes that building a series of ``steps`` x ``nodes`` from ``contacts`` directed
    contacts already held (a reader's rows, counted twice for two-way ones) adds on top
    of what the process holds: the larger of the build's peak and the series it leaves
    (its entries) plus :data:`EDGE_LIST_BYTES_PER_STEP` a step.

    A step costs nothing to build (the series stores entries, never steps), but every
    command's use of a series holds at least that much a step (the influence 72 B, the
    viewer's page 64 B, the analysis 192 B): a span that no command could use is
    refused at the door, with a bin that fits.

    Examples
    --------
    >>> format_bytes(estimate_series_bytes(10**6, nodes=1_000, steps=100))
    '150.8 MiB'
    >>> format_bytes(estimate_series_bytes(2, nodes=2, steps=10**7))   # a sparse span
    '610.4 MiB'
    """
    contacts, nodes, steps = int(contacts), int(nodes), int(steps)
    added = min(contacts, nodes * steps)  # the self-loop entries the rule may add
    build = (SERIES_BYTES_FIXED + SERIES_BYTES_PER_CONTACT * contacts
             + SERIES_BYTES_PER_ADDED * added + SERIES_BYTES_PER_NODE * nodes)  # fmt: skip
    held = SERIES_BYTES_PER_ENTRY * (contacts + added) + EDGE_LIST_BYTES_PER_STEP * steps
    return max(build, held)


def arrays_nbytes(obj) -> int:
    """Bytes of the numpy arrays among ``obj``'s attributes (e.g. a data split's).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> arrays_nbytes(SimpleNamespace(x=np.zeros((2, 3)), n=4, y=np.zeros(5, dtype=np.int32)))
    68
    """
    import numpy as np

    values = vars(obj).values() if hasattr(obj, "__dict__") else ()
    return sum(v.nbytes for v in values if isinstance(v, np.ndarray))


def check_csv_budget(path, *, what: str | None = None, limit=None) -> int:
    """Check reading the CSV at ``path`` against the budget, before pandas reads it.

    The bound is ``16 x file size + 2 KiB x columns`` (columns counted on the first
    line, at most its first MiB read); returns it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"; _ = p.write_text("a,b\\n1,2\\n")
    >>> check_csv_budget(p)
    4224
    """
    import os

    with open(path, "rb") as fh:
        columns = fh.readline(2**20).count(b",") + 1
    nbytes = CSV_BYTES_PER_FILE_BYTE * os.path.getsize(path) + CSV_BYTES_PER_COLUMN * columns
    return check_budget(nbytes, what=what or f"reading {os.path.basename(path)}", limit=limit)
