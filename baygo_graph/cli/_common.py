"""Options and output helpers shared by the sub-commands."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

import click

from .._format import synthetic_banner
from ..data import BODYFAT_ENV

__all__ = [
    "data_option",
    "emit",
    "ensure_writable",
    "output_folder",
    "seed_option",
    "synthetic_banner",
]

data_option = click.option(
    "--data",
    "data",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"bodyfat CSV (default: ${BODYFAT_ENV}, else synthetic data, labelled so).",
)
seed_option = click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)


def emit(summary: dict, *, as_json: bool, text: str) -> None:
    """Print ``summary`` as JSON, or ``text`` for people."""
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(text)
    sys.stdout.flush()


def _remove_created(created: list[Path]) -> None:
    for folder in reversed(created):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            return


def _make_folder(folder: Path) -> list[Path]:
    missing = [p for p in [folder, *folder.parents] if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing[::-1]


def ensure_writable(folder) -> tuple[Path, list[Path]]:
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
        ``--out`` exists and is not a folder, or cannot be created or written;
        folders this call created are removed again.

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
        raise click.ClickException(f"--out {str(folder)!r} exists and is not a folder")
    created: list[Path] = []
    try:
        created = _make_folder(folder)
        with tempfile.TemporaryFile(dir=folder):
            pass
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(f"no write permission on {str(folder)!r}")
    except OSError as e:
        _remove_created(created)
        raise click.ClickException(f"cannot write to --out {str(folder)!r}: {e}") from None
    return folder, created


@contextlib.contextmanager
def output_folder(folder):
    """:func:`ensure_writable`, then remove the folders it created if the block fails
    and left them empty.

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
    folder, created = ensure_writable(folder)
    try:
        yield folder
    except BaseException:
        _remove_created(created)
        raise
