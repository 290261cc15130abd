"""``baygo sweep``: a grid of parameters x strategies x seeds, resumable, local or Dask."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .._text import counted, shorten
from ..models import DEFAULT_MODEL, MODEL_NAMES
from ..strategies import DEFAULT_STRATEGY, STRATEGY_NAMES
from ._common import (
    NamedPath,
    build_model,
    data_option,
    default_data,
    emit,
    force_option,
    loss_label,
    model_name,
    os_error_text,
    out_error,
    output_folder,
    reach_scheduler,
    scheduler_option,
    strategy_list,
    synthetic_banner,
)

__all__ = ["sweep"]


def _parse_params(values, *, model) -> dict:
    """``--param`` values as a grid, every value checked before any work (a usage error
    naming ``NAME=VALUES`` as typed): its kind and range, each physical graph for each
    number of agents, and each ``grid`` for ``model``."""
    from ..experiments import PARAMETERS

    grid, typed = {}, {}
    for item in values:
        name, sep, rest = item.partition("=")
        name = name.strip()
        if not sep or not rest.strip():
            raise click.BadParameter(
                f"{item!r}: expected NAME=V1,V2,... (e.g. delta=0.3,0.5)", param_hint="'--param'"
            )
        if name not in PARAMETERS:
            raise click.BadParameter(
                f"unknown parameter {name!r}: choose from {', '.join(sorted(PARAMETERS))}",
                param_hint="'--param'",
            )
        values = [v.strip() for v in rest.split(",") if v.strip()]
        if PARAMETERS[name][0] is float:  # the one rule for numbers typed: 1e-400 is not 0
            from .._validate import real_text

            try:
                values = [real_text(name, v) if _is_number(v) else v for v in values]
            except ValueError as e:
                raise click.BadParameter(str(e), param_hint="'--param'") from None
        grid.setdefault(name, []).extend(values)
        typed.setdefault(name, []).append(shorten(item.strip(), 60))
    from ..experiments.sweep import _check_grid

    checked = {}
    for name, values in grid.items():  # a value of the wrong kind or range: a usage error
        if name == "physical":
            continue
        try:
            checked |= _check_grid({name: values}, label=str)
        except ValueError as e:
            raise click.BadParameter(
                f"{'; '.join(typed[name])}: {e}", param_hint="'--param'"
            ) from None
    for points in checked.get("grid", []):  # the model has a grid, of these points
        build_model(model, grid=points, grid_hint="'--param'")
    try:
        if "physical" in grid:  # each name for each number of agents, no graph drawn
            from ..strategies.physical import check_physical

            for agents in checked.get("agents", [PARAMETERS["agents"][1]]):
                for name in grid["physical"]:
                    check_physical(name, int(agents))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--param'") from None
    return grid


def _inside(path, folder) -> bool:
    """Whether ``path`` is ``folder`` or in it (as spelt: both as the command made them)."""
    path, folder = Path(path), Path(folder)
    return path == folder or folder in path.parents


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False  # the library names what is not a number
    return True


@click.command()
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=V1,V2",
    help="Values of a parameter (repeatable): delta, agents, batch, grid, steps, physical "
    "(complete, regular-D, geometric).",
)
@click.option(
    "--strategies",
    callback=strategy_list,
    default=DEFAULT_STRATEGY,
    show_default=True,
    help=f"Comma-separated registered strategy names ({', '.join(STRATEGY_NAMES)}, or "
    "plug-ins: baygo --plugin FILE.py); physical=... applies to those that take a "
    "physical graph.",
)
@click.option(
    "--model",
    callback=model_name,
    default=DEFAULT_MODEL,
    show_default=True,
    help=f"What the agents learn: a registered model ({', '.join(MODEL_NAMES)}, or a plug-in).",
)
@click.option("--seeds", type=click.IntRange(min=1), default=5, show_default=True)
@click.option(
    "--seed",
    "root",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="Root seed (seeds are its SeedSequence children).",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=None,
    help="Steps per run when not given by --param steps=... [default: 60]",
)
@data_option
@click.option(
    "--samples",
    type=click.IntRange(min=10),
    default=None,
    help="Size of the synthetic data used without --data / $BAYGO_BODYFAT [default: 252; "
    "about 10 per agent for --param agents=... over 25].",
)
@click.option(
    "--out",
    type=NamedPath(file_okay=False),
    required=True,
    help="Folder for per-task results and results.parquet (resumes if present).",
)
@click.option(
    "--csv",
    "as_csv",
    is_flag=True,
    help="Write the table as results.csv instead of results.parquet.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes [default: all cores].",
)
@scheduler_option(
    "Dask scheduler address, tcp://HOST:PORT (needs the 'dask' extra); default: local cores."
)
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
def sweep(
    params,
    strategies,
    model,
    seeds,
    root,
    steps,
    data,
    samples,
    out,
    as_csv,
    jobs,
    scheduler,
    force,
    as_json,
    progress,
):
    """Run every combination of parameters x strategies x seeds; write a tidy table.

    Example: baygo sweep --param delta=0.3,0.5,0.7 --param agents=12,24
    --strategies baygo,complete --seeds 5 --out sweep1
    """
    from ..experiments import PARAMETERS
    from ..experiments import sweep as run_sweep

    grid = _parse_params(params, model=model)
    names = strategies
    reach_scheduler(scheduler)  # before the folder is made
    if samples is not None:  # the synthetic stand-in's size, as run and compare take it
        if model not in ("linear", "exact"):
            raise click.UsageError(f"--samples sizes the bodyfat data; --model {model} has data "
                                   "of its own")  # fmt: skip
        data = default_data(data, agents=0, samples=samples)
    # made for the sweep (removed again if a failure leaves it empty); locked only for the
    # table write: concurrent sweeps share a folder on purpose, each task claimed by one,
    # the table of them all (docs/formats.md)
    results_name = "results.csv" if as_csv else "results.parquet"
    with output_folder(out, lock=False, force=force, names=[results_name], table="sweep"):
        try:
            from ..models import resolve_model

            data = resolve_model(model).resolve_data(data)  # read once, said before the work
            noted = not as_json and bool(getattr(data, "synthetic", False))
            if noted:  # the note first, as every command says it (not after the table)
                emit({}, as_json=False, text=[synthetic_banner(True)])
            table = run_sweep(
                grid,
                strategies=names,
                seeds=seeds,
                out=out,
                steps=steps,
                data=data,
                model=model,
                n_jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                rng=root,
                results_format="csv" if as_csv else "parquet",
            )
        except (ValueError, TypeError, ImportError) as e:
            raise click.ClickException(str(e)) from e
        except OSError as e:  # a file of the sweep's folder, or the cluster's connection
            if e.filename is not None and _inside(e.filename, out):
                raise out_error("--out", out, e) from e  # "--out: OUT/...: why"
            raise click.ClickException(os_error_text(e) if e.filename else str(e)) from e
    varied = [p for p in PARAMETERS if p in grid]
    by = ["strategy", *varied]
    groups = (
        table.groupby(by, dropna=False, sort=True)[
            ["final_mse_informative", "final_mse_others_mean", "seconds"]
        ]
        .mean()
        .reset_index()
    )
    synthetic = bool(table["synthetic"].any())
    summary = {
        "out": str(out),
        "table": f"{out}/results.{'csv' if as_csv else 'parquet'}",
        "tasks": len(table),
        "synthetic": synthetic,
        "data": str(table["data"].iloc[0]),
        "mean_over_seeds": json.loads(groups.to_json(orient="records")),
    }
    lines = [b for b in [synthetic_banner(synthetic)] if b and not noted]
    n, data_text = len(table), summary["data"]
    lines.append(f"{counted(n, 'run')} ({counted(seeds, 'seed')}), data {data_text}")
    loss = loss_label(str(table["loss"].iloc[0]))
    lines.append(f"mean final {loss} over seeds:")
    lines += groups.to_string(index=False, float_format=lambda v: f"{v:.4f}").splitlines()
    emit(summary, as_json=as_json, text=lines)  # one screen line per field
