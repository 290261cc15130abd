"""``baygo view``: write the interactive HTML viewer of a saved run."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from .._text import console, shorten
from ._common import (
    INPUT_TAKES,
    InputPath,
    NamedPath,
    check_out_file,
    emit,
    fit_window,
    load_input,
    note,
    out_error,
    output_file,
    saved_banner,
    series_options,
)

__all__ = ["view"]

LAYOUTS = ("auto", "spring", "coarse", "none")  # figures._graph.LAYOUTS (not imported: fast --help)


@click.command()
@click.argument("run_path", metavar="RUN", type=InputPath(path_type=Path, takes=INPUT_TAKES))
@click.option(
    "--out",
    required=True,
    type=NamedPath(dir_okay=False),  # str: a trailing "/" (a folder) stays visible
    help="The .html file to write (one self-contained page, opens offline).",
)
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window length for node sizes (influence) and the connectivity status "
    "[default: min(10, T); a longer one is cut to T, with a note].",
)
@click.option(
    "--layout",
    type=click.Choice(LAYOUTS),
    default="auto",
    show_default=True,
    help="Node positions: spring (NetworkX; at most 5,000 nodes), coarse (spring layout of "
    "the 400 best-linked nodes, the others beside their neighbours: linear in nodes and "
    "edges), none (a spiral in label order); auto: spring up to 1,000 nodes, coarse up to "
    "200,000, none above, with a note.",
)
@click.option("--layout-seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Seed of the layout.")  # fmt: skip
@click.option("--force", is_flag=True, help="Replace an existing OUT file.")
@series_options
def view(run_path, out, window, layout, layout_seed, force, **options):
    """Write an interactive viewer of RUN (a run folder or .npz from `baygo run --out`,
    a saved series .json / .graphml / .gexf, or an edge list .csv / .parquet).

    The page has a time slider and a play button, zoom (wheel) and pan (drag),
    a search box for node labels, a switch between single steps and the
    aligned window unions `baygo analyze` reports (windows that are not
    strongly connected in red), node size by influence, edge width by weight,
    the informative agent as a vermillion star and the MSE curve of the agent
    clicked. Open OUT in any browser (docs/viewer.md). Missing folders of OUT are
    created (removed again if the page cannot be written); an existing OUT is replaced
    only with --force, and never when it is RUN itself or a symbolic link.
    """
    from ..figures.html import to_html, viewer_need
    from ..limits import following

    out = check_out_file(out, overwrite=force)
    if out.suffix.lower() not in (".html", ".htm"):
        raise click.BadParameter(
            f"{console(shorten(str(out), 120))}: the page is HTML: give a name ending in .html",
            param_hint="--out",
        )  # a mistyped results.csv is never replaced by a web page, even with --force
    with following(viewer_need(window, layout), goal="to write the page too"):
        run = load_input(run_path, **options)  # a Run, or a GraphSeries for other inputs
    window = fit_window(window, run.n_steps)
    banner = saved_banner(run)
    if banner:  # then 'wrote PATH' once the page is finished, and nothing before it
        emit({}, as_json=False, text=[banner])
    # missing parents of --out are made, as every --out folder is, and removed again
    # if the page cannot be written
    with output_file(out, overwrite=force) as out:
        try:
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always", UserWarning)
                to_html(
                    run, out, window=window, layout=layout, layout_seed=layout_seed,
                    overwrite=force,
                )  # fmt: skip
        except (ValueError, TypeError) as e:
            raise click.ClickException(str(e)) from e
        except OSError as e:
            raise out_error("--out", out, e) from None
    for w in said:
        note(str(w.message))
