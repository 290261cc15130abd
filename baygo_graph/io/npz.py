"""The run file: one ``.npz`` (numpy's zip of ``.npy`` arrays, compressed, no pickle).

It holds

* ``meta`` - a JSON string: ``{"format": "baygo-run", "format_version": 1, ...}``
  with the strategy, kind, informative agent, delta and the full ``config``;
* ``mse``, ``entropy`` (T, M) and ``mean`` (T, M, 2) - per-step metrics;
* the graph series' arrays (:meth:`baygo_graph.series.GraphSeries.arrays`):
  ``choices`` (T, M) ints - BayGo's chosen neighbour per step (-1: none), or
  ``w_data``/``w_indices``/``w_indptr`` - a fixed CSR weight matrix, or
  ``e_step``/``e_row``/``e_col``/``e_weight`` - the entries of any weighted series;
* ``posterior_steps`` (n,) and ``posteriors`` (n, M, K) - kept log-posteriors.

Writes are atomic (a temporary file renamed over the target).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import numpy as np

from .._text import counted, quoted_path
from ..exceptions import RunFormatError
from .atomic import atomic_write, check_target
from .filekind import folder_outputs_text, missing_message, not_a_run_message
from .safenpz import RUN_FILE, RUN_MEMBERS, RUN_PREFIXES, read_npz, validate_run_arrays

__all__ = ["FORMAT", "FORMAT_VERSION", "RUN_FILE", "read_run_file", "run_path", "write_run_file"]

FORMAT = "baygo-run"
FORMAT_VERSION = 1


def run_path(path) -> Path:
    """The ``.npz`` file of ``path`` (a file, or a folder holding ``run.npz``)."""
    path = Path(path)
    return path if path.suffix == ".npz" else path / RUN_FILE


def write_run_file(path, meta: dict, arrays: dict, *, overwrite: bool = False) -> Path:
    """Write ``meta`` (JSON-able) and ``arrays`` to a run file; returns the file written.
    A run file already there is replaced only with ``overwrite=True`` (else
    :class:`FileExistsError`: every writer's rule)."""
    path = check_target(run_path(path), overwrite=overwrite)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION} | meta
    arrays = {"meta": np.array(json.dumps(meta))} | arrays
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays), overwrite=overwrite)
    return path


#: Saved runs a folder with none of its own is searched for, below it, at the most (a
#: refusal names a few of them; the search never walks a whole large tree).
_RUNS_SHOWN = 1000


class RunFilesBelow:
    """The run files anywhere below ``folder``, lazily, in name order: files named
    ``run.npz`` only (a folder of that name is no run). The walk keeps its own stack
    (no depth limit: Python's own walk of 3.11 stops at about 950 levels), never follows
    a link to a folder, and counts the sub-folders it could not read
    (:attr:`unreadable`, once iterated), which each caller says."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.unreadable = 0

    def __iter__(self):
        stack = [self.folder]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:  # no permission, gone since, a name too long
                self.unreadable += folder != self.folder
                continue
            below = []
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        below.append(entry.path)
                    elif entry.name == RUN_FILE and entry.is_file():
                        yield Path(entry.path)
                except OSError:
                    self.unreadable += 1
            stack.extend(reversed(below))

    def unreadable_text(self) -> str:
        """``"3 sub-folders could not be read"`` (no permission), or ``""``."""
        return (
            f"{counted(self.unreadable, 'sub-folder')} could not be read" if self.unreadable else ""
        )


def _runs_below(folder: Path) -> str:
    """``": the folder holds 4 saved runs in its sub-folders (...): name one ..."`` for a
    folder whose sub-folders hold runs (a compare folder, its ``runs/``), with the
    sub-folders that could not be read, else ``""``."""
    if not folder.is_dir():
        return ""
    walk = RunFilesBelow(folder)
    try:
        runs = sorted(itertools.islice(walk, _RUNS_SHOWN + 1))
    except OSError:
        return ""
    if not runs:
        unread = walk.unreadable_text()
        return f" ({unread}: a run there would not be seen)" if unread else ""
    many = len(runs) > _RUNS_SHOWN
    n = f"over {_RUNS_SHOWN:,} saved runs" if many else counted(len(runs), "saved run")
    names = ", ".join(str(r.parent.relative_to(folder)) for r in runs[:3])
    unread = f"; {walk.unreadable_text()}" if walk.unreadable else ""
    return (f": the folder holds {n} in its sub-folders ({names}"
            f"{', ...' if len(runs) > 3 else ''}{unread}): name one of them, or give the "
            "folder to baygo analyze, which reads them all")  # fmt: skip


def read_run_file(path, *, budget=None) -> tuple[dict, dict]:
    """``(meta, arrays)`` of a run file written by :func:`write_run_file`, checked.

    Only the members a run file has are read, each after its header is checked
    against the memory budget (:func:`~baygo_graph.io.safenpz.read_npz`); then every
    array is checked against the metadata and the others
    (:func:`~baygo_graph.io.safenpz.validate_run_arrays`).

    Raises
    ------
    RunFormatError
        When the file is missing, not a saved run, inconsistent or corrupt.
    BudgetError
        When a member would need more memory than the budget.
    """
    path = Path(path)
    if path.is_dir():
        path = path / RUN_FILE
    if not path.is_file():  # missing, or a FIFO, device or socket: never read
        folder = path.parent if path.name == RUN_FILE else None
        outputs = (_runs_below(folder) or folder_outputs_text(folder)) if folder else ""
        raise RunFormatError(missing_message(path, "saved run", "saved runs") + outputs)
    try:
        arrays = read_npz(path, expected=RUN_MEMBERS, prefixes=RUN_PREFIXES, budget=budget)
    except RunFormatError as e:  # a GEXF, GraphML, JSON or .npy file: say so
        raise RunFormatError(not_a_run_message(path) or str(e)) from e
    if "meta" not in arrays:
        raise RunFormatError(f"{quoted_path(path, 120)} is not a baygo run (no 'meta' member)")
    try:
        meta = json.loads(str(arrays.pop("meta")))
    except (ValueError, RecursionError) as e:
        raise RunFormatError(f"{quoted_path(path, 120)} has unreadable metadata: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise RunFormatError(f"{quoted_path(path, 120)} is not a baygo run (no 'baygo-run' marker)")
    if meta.get("format_version") != FORMAT_VERSION:
        raise RunFormatError(
            f"{quoted_path(path, 120)} has run format version {meta.get('format_version')!r}, "
            f"this package reads version {FORMAT_VERSION}"
        )
    try:
        validate_run_arrays(meta, arrays)
    except RunFormatError as e:
        raise RunFormatError(f"{quoted_path(path, 120)} is a corrupt baygo run: {e}") from None
    return meta, arrays
