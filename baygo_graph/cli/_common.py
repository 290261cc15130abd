"""Options and output helpers shared by the sub-commands."""

from __future__ import annotations

import json
import sys

import click

from .._format import synthetic_banner
from ..data import BODYFAT_ENV

__all__ = ["data_option", "emit", "seed_option", "synthetic_banner"]

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
