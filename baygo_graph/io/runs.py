"""Many saved runs: one folder per run under a parent folder, and loading them back.

``save_runs(runs, folder)`` writes ``folder/<strategy>-seed<NN>/run.npz``
(:meth:`baygo_graph.Run.save`), each name made one path component inside
``folder`` (a strategy called ``../../X`` gives ``X-seed0-<hash>``);
``load_runs(paths)`` reads run folders, ``.npz`` files, or folders holding run
folders at any depth, in sorted order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .._text import path_component
from ..exceptions import RunFormatError
from .npz import RUN_FILE

__all__ = ["find_runs", "load_runs", "save_runs"]


def _name(key, run, width: int) -> str:
    """The run's folder name: one path component, whatever the strategy name or key
    (``../../X`` included; :func:`baygo_graph._text.path_component`)."""
    if isinstance(key, tuple) and len(key) == 2:
        strategy, seed = key
        name = f"{strategy}-seed{int(seed):0{width}d}"
    else:
        name = f"{run.strategy}-run{int(key):0{width}d}" if isinstance(key, int) else str(key)
    return path_component(name)


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
    >>> len(load_runs([folder]))
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


def load_runs(paths) -> dict:
    """Load the runs under ``paths`` (see :func:`find_runs`).

    Returns
    -------
    dict
        ``{label: Run}``, label = the run's folder name (or ``.npz`` file stem),
        in the order found; a folder name that repeats gets its parent prefixed.
    """
    from ..run import Run

    out = {}
    for f in find_runs(paths):
        label = f.parent.name if f.name == RUN_FILE else f.stem
        if label in out:
            label = str(f.parent if f.name == RUN_FILE else f.with_suffix(""))
        out[label] = Run.load(f)
    return out
