"""Many saved runs: one folder per run under a parent folder, and loading them back.

``save_runs(runs, folder)`` writes ``folder/<strategy>-seed<N>/run.npz``
(:meth:`baygo_graph.Run.save`; one naming scheme: the seed as a plain integer,
``baygo-seed7``, never zero-padded; each name made one path component inside
``folder``: a strategy called ``../../X`` gives ``X-seed0-<hash>``, see
:func:`baygo_graph._text.path_component`); ``find_runs(paths)`` finds run folders,
``.npz`` files, or folders holding run folders at any depth, in natural order
(``baygo-seed2`` before ``baygo-seed10``; zero-padded names from older versions
sort the same way); :func:`baygo_graph.run.load_runs` reads them (it lives with the
record it makes: this layer never imports :mod:`baygo_graph.run`) and refuses runs
of different steps, agents or data unless told to keep them (``mixed="group"``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .._text import path_component, quoted_path, short_repr
from ..exceptions import RunFormatError
from .atomic import check_target, make_folders
from .filekind import folder_outputs_text, missing_message
from .npz import RUN_FILE, RunFilesBelow

__all__ = ["find_runs", "save_runs"]


def _name(key, run) -> str:
    """The run's folder name: one path component, whatever the strategy name or key."""
    if isinstance(key, tuple) and len(key) == 2:
        strategy, seed = key
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise TypeError(
                f"runs: the seed of key {short_repr(key)} must be an integer (it names the "
                f"folder <strategy>-seed<N>), got {type(seed).__name__}"
            )
        name = f"{strategy}-seed{int(seed)}"
    else:
        name = f"{run.strategy}-run{int(key)}" if isinstance(key, int) else str(key)
    return path_component(name)


def _natural(path: Path) -> list:
    """Sort key: digit runs compared as numbers (``seed2`` < ``seed10``; ``seed07`` = 7)."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(path))]


def save_runs(runs, folder, *, overwrite: bool = False) -> list[Path]:
    """Save every run in its own folder under ``folder``.

    Parameters
    ----------
    runs : mapping or sequence of Run
        ``{(strategy, seed): Run}`` as ``experiments.compare(...,
        return_runs=True)`` returns (folders ``<strategy>-seed<N>``), any other
        mapping (folders named by the keys) or a sequence (``<strategy>-run<N>``).
    folder : str or os.PathLike
        Parent folder, created if missing.
    overwrite : bool, default False
        Replace runs already saved there (else FileExistsError).

    Returns
    -------
    list of pathlib.Path
        The run files written, in input order.

    Examples
    --------
    >>> import tempfile
    >>> from baygo_graph import Run
    >>> runs = {("baygo", 0): Run.from_choices([[1, 0]]), ("baygo", 1): Run.from_choices([[1, 0]])}
    >>> folder = tempfile.mkdtemp()
    >>> [p.parent.name for p in save_runs(runs, folder)]
    ['baygo-seed0', 'baygo-seed1']
    >>> len(find_runs([folder]))
    2
    """
    items = list(runs.items()) if isinstance(runs, Mapping) else list(enumerate(runs))
    folder = Path(folder)
    names, owner = [], {}
    for key, run in items:  # every folder named before any is written
        name = _name(key, run)
        first = owner.setdefault(name.casefold(), key)  # one folder on any file system
        if first is not key:
            raise ValueError(
                f"runs: keys {short_repr(first)} and {short_repr(key)} both name the folder "
                f"{short_repr(name)}: give each run a key of its own (nothing was written)"
            )
        names.append(name)
    for name in names:  # an existing run (unless overwrite), a link: before any write
        check_target(folder / name / RUN_FILE, overwrite=overwrite)
    make_folders(folder)
    return [r.save(folder / n, overwrite=overwrite) for (_, r), n in zip(items, names, strict=True)]


def find_runs(paths) -> list[Path]:
    """The run files under ``paths``: ``.npz`` files, run folders, or folders holding
    run folders at any depth (e.g. a ``baygo reproduce`` output with its ``runs/``).

    Raises
    ------
    RunFormatError
        When a path holds no run.
    """
    found = []
    for path in map(Path, [paths] if isinstance(paths, str | Path) else paths):
        if path.suffix == ".npz" and path.is_file():
            found.append(path)
        elif (path / RUN_FILE).is_file():
            found.append(path / RUN_FILE)
        elif path.is_dir():
            walk = RunFilesBelow(path)
            inner = sorted(walk, key=_natural) + sorted(
                (p for p in path.glob("*.npz") if p.name != RUN_FILE and p.is_file()),
                key=_natural,
            )
            unread = walk.unreadable_text()
            if not inner:
                raise RunFormatError(
                    f"no saved run in {quoted_path(path, 120)} or its sub-folders"
                    f"{f' ({unread})' if unread else ''}{folder_outputs_text(path)}"
                )
            if unread:  # runs there would be left out of the analysis: said
                warnings.warn(
                    f"{unread} below {quoted_path(path, 120)}: the runs read are those of "
                    "the others",
                    UserWarning,
                    stacklevel=2,
                )
            found += inner
        else:
            raise RunFormatError(missing_message(path, "saved run", "saved runs"))
    return found
