"""``baygo view``: write the interactive HTML viewer of a saved run."""

from __future__ import annotations

from pathlib import Path

import click

from ..exceptions import RunFormatError

__all__ = ["view"]


@click.command()
@click.argument("run_path", metavar="RUN", type=click.Path(path_type=Path))
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The .html file to write (one self-contained page, opens offline).",
)
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Window length for node sizes (influence) and the connectivity status "
    "(cut to the number of steps).",
)
@click.option(
    "--layout-seed", type=int, default=0, show_default=True, help="Seed of the spring layout."
)
def view(run_path, out, window, layout_seed):
    """Write an interactive viewer of RUN (a run folder or .npz from `baygo run --out`).

    The page has a time slider and a play button, node size by influence, edge
    width by weight, the informative agent as a vermillion star, the strong
    connectivity of the window ending at the selected step, and the MSE curve of
    the agent clicked. Open OUT in any browser.
    """
    from ..figures.html import to_html
    from ..run import Run

    try:
        run = Run.load(run_path)
        path = to_html(run, out, window=window, layout_seed=layout_seed)
    except (RunFormatError, ValueError, TypeError, OSError) as e:
        raise click.ClickException(str(e)) from e
    click.echo(f"viewer of {run.strategy} run {run_path} written to {path}")
