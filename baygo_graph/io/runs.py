"""Many saved runs: one folder per run under a parent folder, and loading them back.

``save_runs(runs, folder)`` writes ``folder/<strategy>-seed<NN>/run.npz``
(:meth:`baygo_graph.Run.save`); ``find_runs(paths)`` finds run folders, ``.npz``
files, or folders holding run folders at any depth, in sorted order;
:func:`baygo_graph.run.load_runs` reads them (it lives with the record it makes:
this layer never imports :mod:`baygo_graph.run`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..exceptions import RunFormatError
from .npz import RUN_FILE

__all__ = ["find_runs", "save_runs"]


def _name(key, run, width: int) -> str:
    if isinstance(key, tuple) and len(key) == 2:
        strategy, seed = key
        return f"{strategy}-seed{int(seed):0{width}d}"
    return f"{run.strategy}-run{int(key):0{width}d}" if isinstance(key, int) else str(key)


def save_runs(runs, folder, *, overwrite: bool = False) -> list[Path]:
    """Save every run in its own folder under ``folder``.

    Parameters
    ----------
    runs : mapping or sequence of Run
        ``{(strategy, seed): Run}`` as ``experiments.compare(...,
        return_runs=True)`` returns (folders ``<strategy>-seed<NN>``), any other
        mapping (folders named by the keys) or a sequence (``<strategy>-run<NN>``).
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
    seeds = [k[1] for k, _ in items if isinstance(k, tuple) and len(k) == 2] + [
        k for k, _ in items if isinstance(k, int)
    ]
    width = len(str(max(seeds, default=0)))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return [r.save(folder / _name(k, r, width), overwrite=overwrite) for k, r in items]


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
            inner = sorted(path.rglob(RUN_FILE)) + sorted(
                p for p in path.glob("*.npz") if p.name != RUN_FILE
            )
            if not inner:
                raise RunFormatError(f"no saved run in {str(path)!r} or its sub-folders")
            found += inner
        else:
            raise RunFormatError(f"no saved run at {str(path)!r}")
    return found


def __getattr__(name: str):
    # load_runs moved up to baygo_graph.run (this layer never imports run); the old
    # path stays for user code, with a warning.
    if name == "load_runs":
        import importlib
        import warnings

        warnings.warn(
            "baygo_graph.io.runs.load_runs moved: use baygo_graph.load_runs "
            "(baygo_graph.run.load_runs)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module("baygo_graph.run").load_runs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
