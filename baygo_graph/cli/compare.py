"""``baygo compare``: several strategies over many seeds, a tidy table and its summary.

Files written to ``--out DIR``:

* ``results.parquet`` - the tidy frame of :func:`baygo_graph.experiments.compare`
  (one row per strategy, seed, step, agent) with the ``data`` source and the
  ``synthetic`` flag on every row (and in the file's metadata), as ``baygo
  reproduce`` writes it: :func:`baygo_graph.io.results.load_results`,
  ``pandas.read_parquet``, polars or DuckDB read it; exact float64, about 5
  bytes per row;
* ``results.csv`` instead, with ``--csv``: the same columns, 6 significant
  digits; when the data are synthetic its first line is the ``# NOTE:
  SYNTHETIC DATA ...`` banner (``Comparison.read_csv(path)`` and
  ``load_results(path)`` skip it; with pandas, ``pandas.read_csv(path,
  comment="#")``);
* ``summary.md`` - the summary table and the paired differences against the first
  strategy listed (BayGo by default);
* ``summary.json`` - the same numbers (NaN written as ``null``) and the settings.

``--save-runs DIR`` keeps every run (:func:`baygo_graph.io.runs.save_runs`: one
folder ``<strategy>-seed<N>`` each), for ``baygo analyze DIR``.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import click
import pandas as pd

from .._format import (
    JSON_CONVENTIONS,
    format_number,
    json_clean,
    json_number,
    markdown_table,
    step_text,
)
from .._text import console, counted, short_list
from ..defaults import PAPER
from ..models import DEFAULT_MODEL, MODEL_NAMES
from ..strategies import PAPER_STRATEGIES
from ._common import (
    NamedPath,
    Real,
    build_model,
    data_option,
    default_data,
    emit,
    fit_window,
    force_option,
    loss_label,
    model_name,
    out_error,
    output_folder,
    samples_option,
    seed_option,
    strategy_list,
    synthetic_banner,
)

__all__ = ["compare"]

_FILES = {"results": "results.parquet", "markdown": "summary.md", "json": "summary.json"}
_RESULTS = {"parquet": "results.parquet", "csv": "results.csv"}


def _check_jobs(ctx, param, value):
    if value == 0:
        raise click.BadParameter("must be a non-zero integer (1: serial; -1: all cores)")
    return value


def _number(x, key=""):
    """JSON-safe number, as every JSON output writes it (:data:`JSON_CONVENTIONS`): NaN
    null, an infinity (a step never reached) "inf"; counts stay ints."""
    if key in ("seeds", "n"):
        return json_number(x, integer=True)
    return json_clean(float(x)) if x is not None else None


def _numbers(frame) -> dict:
    """``{row label: {column: JSON-safe number}}``."""
    return {str(name): {k: _number(v, k) for k, v in row.items()} for name, row in frame.iterrows()}


def _fmt(x, spec=".4f") -> str:
    return format_number(float(x) if x is not None else None, spec)  # n/a: undefined


def _ci(row, name) -> str:
    return f"{_fmt(row[name])} [{_fmt(row[f'{name}_lo'])}, {_fmt(row[f'{name}_hi'])}]"


def _table(header: list[str], rows: list[list[str]]) -> str:
    return markdown_table(pd.DataFrame(rows, columns=header), index=False, pad=True)


def _summary_table(summary, level: float, loss: str = "MSE") -> str:
    pct = f"{level:.0%}"
    header = [
        "strategy",
        f"final {loss} informative [{pct} CI]",
        f"final {loss} others [{pct} CI]",
        "steps to Cen",
        "consensus step",
        "consensus reached",
        "influence informative",
    ]
    rows = [
        [
            str(name),
            _ci(row, "final_mse_informative"),
            _ci(row, "final_mse_others"),
            step_text(row["steps_to_cen"]),
            step_text(row["consensus_step"]),
            _fmt(row["consensus_reached"], ".2f"),
            _fmt(row["influence_informative"], ".3f"),
        ]
        for name, row in summary.iterrows()
    ]
    return _table(header, rows)


def _paired_table(paired: dict, level: float) -> str:
    header = ["contrast", "metric", f"mean difference [{level:.0%} CI]", "p", "wins"]
    rows = [
        [
            contrast,
            metric,
            f"{_fmt(r['mean'])} [{_fmt(r['lo'])}, {_fmt(r['hi'])}]",
            _fmt(r["p_value"], ".2g"),
            _fmt(r["wins"], ".2f"),
        ]
        for contrast, frame in paired.items()
        for metric, r in frame.iterrows()
    ]
    return _table(header, rows)


def _write(out, res, record, blocks, *, banner, notes, results_format) -> dict:
    """results.parquet (or results.csv, banner as a comment line), summary.md and
    summary.json in ``out``."""
    from ..io.atomic import atomic_text
    from ..io.results import RESULTS_FILES, write_results

    folder = Path(out)
    try:
        paths = {k: folder / name for k, name in _FILES.items()}
        paths["results"] = folder / RESULTS_FILES[results_format]
        write_results(res, folder, results_format=results_format, overwrite=True)
        md = ["# Strategy comparison", *([f"**{banner}**"] if banner else []), *blocks]
        md = [b for b in md if b != banner] + [notes]
        atomic_text(paths["markdown"], "\n\n".join(md) + "\n", within=folder, overwrite=True)
        record["files"] = {k: str(p) for k, p in paths.items()}
        atomic_text(
            paths["json"], json.dumps(record, indent=2) + "\n", within=folder, overwrite=True
        )
    except OSError as e:
        raise out_error("--out", out, e) from None
    return paths


def _model_text(attrs) -> str:
    """The model and its grid as run, for the head line: ``linear (grid 21 x 21)``."""
    grid = attrs.get("model_options", {}).get("grid")
    return str(attrs.get("model")) + (f" (grid {' x '.join(map(str, grid))})" if grid else "")


def _record(attrs, banner, settings, summary, paired) -> dict:
    """summary.json: the table's settings, the options, the summary and contrasts."""
    keys = ("synthetic", "data_source", "strategies", "seeds", "steps", "agents", "entropy")
    record = {k: attrs[k] for k in keys} | {"banner": banner or None} | settings
    if isinstance(record["entropy"], str) and record["entropy"].isdigit():
        record["entropy"] = int(record["entropy"])  # a number in JSON (an exact integer)
    said = attrs.get("model_options", {})
    record["conventions"] = JSON_CONVENTIONS
    record |= {"model": attrs.get("model"), "loss": attrs.get("loss"),
               "grid": said.get("grid"), "model_options": said}  # fmt: skip
    return record | {
        "summary": _numbers(summary),
        "paired": {contrast: _numbers(frame) for contrast, frame in paired.items()},
    }


def _save_runs(runs, folder) -> str:
    from ..io.runs import save_runs

    try:
        save_runs(runs, folder, overwrite=True)
    except OSError as e:
        raise out_error("--save-runs", folder, e) from None
    return str(folder)


@click.command()
@click.option("--seeds", type=click.IntRange(min=1), default=PAPER.seeds, show_default=True)
@click.option("--steps", type=click.IntRange(min=1), default=PAPER.steps, show_default=True)
@click.option(
    "--strategies",
    callback=strategy_list,
    default=",".join(PAPER_STRATEGIES),
    show_default=True,
    help="Comma-separated registered strategy names (plug-ins: baygo --plugin FILE.py); "
    "paired differences are taken against the first.",
)
@click.option("--agents", type=click.IntRange(min=2), default=PAPER.agents, show_default=True)
@data_option
@samples_option
@seed_option
@click.option(
    "--jobs",
    type=int,
    default=None,
    callback=_check_jobs,
    help="Worker processes (default: all cores; 1: serial).",
)
@click.option("--delta", type=Real(0, 1), default=PAPER.delta, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=PAPER.batch, show_default=True)
@click.option(
    "--model",
    callback=model_name,
    default=DEFAULT_MODEL,
    show_default=True,
    help=f"What the agents learn: a registered model ({', '.join(MODEL_NAMES)}, or a plug-in).",
)
@click.option(
    "--grid",
    type=click.IntRange(min=2),
    default=None,
    help=f"Grid points per axis of a grid model [default: the model's own; linear {PAPER.grid}].",
)
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window (steps) of the influence column [default: min(10, --steps); a longer "
    "one is cut to --steps, with a note].",
)
@click.option(
    "--tolerance",
    type=Real(min=0),
    default=0.05,
    show_default=True,
    help="Relative tolerance of 'steps to Cen'.",
)
@click.option(
    "--consensus-tol",
    type=Real(min=0),
    default=0.01,
    show_default=True,
    help="Max - min of the agents' MSE that counts as consensus.",
)
@click.option(
    "--out",
    type=NamedPath(file_okay=False),
    default=None,
    help="Folder for results.parquet (results.csv with --csv), summary.md, summary.json.",
)
@click.option(
    "--csv",
    "as_csv",
    is_flag=True,
    help="Write the per-step results as results.csv (6 significant digits, 10-20x larger) "
    "instead of results.parquet.",
)
@click.option(
    "--save-runs",
    "save_runs_dir",
    type=NamedPath(file_okay=False),
    default=None,
    help="Folder for every run (one folder <strategy>-seed<NN> each; read by baygo analyze).",
)
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
def compare(
    seeds,
    steps,
    strategies,
    agents,
    data,
    samples,
    seed,
    jobs,
    delta,
    batch,
    model,
    grid,
    window,
    tolerance,
    consensus_tol,
    out,
    as_csv,
    save_runs_dir,
    force,
    as_json,
    progress,
):
    """Run strategies over many seeds (paired) and print the summary table."""
    if model in ("linear", "exact"):  # the models of the bodyfat data, as run and sweep
        data = default_data(data, agents=agents, samples=samples)
    elif samples is not None:
        raise click.UsageError(f"--samples sizes the bodyfat data; --model {model} has data "
                               "of its own")  # fmt: skip
    model = build_model(model, grid=grid)  # checked before any work; holds the grid
    level, window = 0.95, fit_window(window, steps, what="the runs")
    options = {"seed": seed, "delta": delta, "batch": batch, "model": model,
               "influence_window": window, "tolerance": tolerance,
               "consensus_tol": consensus_tol, "level": level}  # fmt: skip
    from ..io.atomic import folder_content

    held = [] if save_runs_dir is None else folder_content(save_runs_dir)
    if held:  # never mix old and new runs (a stale lock or a .gitkeep is no run: hostile16 U6)
        raise click.ClickException(
            f"--save-runs {console(save_runs_dir)!r} holds {short_list(held, 3, quote=True)}: "
            "an analysis of it would mix earlier runs with these; choose an empty or new folder"
        )
    from ..limits import check_results_budget

    check_results_budget(  # what the command holds at its end, before its first run
        len(strategies), seeds, steps, agents, kind="command", advice="pass fewer --seeds or "
        "--steps",
    )  # fmt: skip
    results = _RESULTS["csv" if as_csv else "parquet"]
    # checked before the work (a file baygo did not write there needs --force), removed if
    # the work fails
    with _folders(out, save_runs_dir, force=force, names=[results, *list(_FILES.values())[1:]]):
        start = time.perf_counter()
        res, df, runs, summary, paired = _compute(
            strategies, seeds=seeds, steps=steps, agents=agents, data=data, jobs=jobs,
            progress=progress, keep_runs=save_runs_dir is not None, **options,
        )  # fmt: skip
        settings = options | {"wall_time_s": round(time.perf_counter() - start, 3)}
        banner = synthetic_banner(df.attrs["synthetic"])
        head = (
            f"compare: {', '.join(strategies)}; {counted(seeds, 'seed')} x "
            f"{counted(steps, 'step')}, {agents} "
            f"agents, seed {seed}, model {_model_text(df.attrs)}, data "
            f"{console(df.attrs['data_source'])} "
            f"({settings['wall_time_s']:.1f} s)"
        )
        loss = loss_label(df.attrs.get("loss", "mse"))
        blocks = [b for b in (banner, head, _summary_table(summary, level, loss)) if b]
        if paired:
            blocks.append(
                f"Paired differences over seeds (negative: {strategies[0]} lower):\n"
                + _paired_table(paired, level)
            )
        record = _record(df.attrs, banner, settings, summary, paired)
        if not as_json:  # the tables, then 'wrote PATH' as each file is finished
            emit({}, as_json=False, text="\n\n".join(blocks))
        if runs is not None:
            record["runs"] = _save_runs(runs, save_runs_dir)
            blocks.append(f"runs saved: {len(runs)} folders in {save_runs_dir}")
            if not as_json:
                emit({}, as_json=False, text=[blocks[-1]])
        if out is not None:
            notes = _notes(tolerance, consensus_tol, window, loss)
            _write(
                out,
                res,
                record,
                blocks,
                banner=banner,
                notes=notes,
                results_format="csv" if as_csv else "parquet",
            )
    if as_json:
        emit(record, as_json=True, text="")


@contextlib.contextmanager
def _folders(out, save_runs_dir, *, force: bool, names):
    """``--out`` and ``--save-runs`` made and checked now; removed if left empty by a failure."""
    with contextlib.ExitStack() as stack:
        if out is not None:
            stack.enter_context(output_folder(out, force=force, names=names, table="results"))
        if save_runs_dir is not None:
            stack.enter_context(output_folder(save_runs_dir, option="--save-runs", force=force))
        yield


def _compute(strategies, *, seeds, steps, agents, data, jobs, progress, keep_runs, **options):
    """The runs' arrays (a Comparison) and tidy frame, the runs (``keep_runs``), the
    summary and the paired contrasts."""
    from ..analysis import paired_difference, summarize
    from ..experiments import compare as run_compare

    level = options["level"]
    try:
        model = options["model"]
        result = run_compare(
            strategies, seeds=seeds, steps=steps, rng=options["seed"], n_jobs=jobs,
            progress=progress, influence_window=options["influence_window"], agents=agents,
            data=data, delta=options["delta"], batch=options["batch"], model=model,
            return_runs=keep_runs, tidy=False,
        )  # fmt: skip
        res, runs = result if keep_runs else (result, None)
        df = res.to_frame()  # the tidy frame compare() returns by default: same numbers
        summary = summarize(
            df, tolerance=options["tolerance"], consensus_tol=options["consensus_tol"],
            level=level,
        )  # fmt: skip
        ref = strategies[0]  # the reference: the first strategy listed
        paired = {
            f"{ref} - {other}": paired_difference(df, ref, other, level=level)
            for other in strategies[1:]
        }
    except (ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    return res, df, runs, summary, paired


def _notes(tolerance, consensus_tol, window, loss: str = "MSE") -> str:
    """How summary.md's columns are computed (``loss``: the runs' loss, in words; the
    metric names final_mse_* hold it)."""
    held = "" if loss == "MSE" else f" (the columns named final_mse_* hold the {loss})"
    return (
        f"Final {loss}: mean over seeds at the last step, t-interval of the mean{held}. "
        f"Steps to Cen: first step from which the agent- and seed-averaged {loss} stays "
        f"<= (1 + {tolerance:g}) x Cen's. Consensus step: median over seeds of the first "
        f"step from which max - min of the agents' {loss} stays <= {consensus_tol:g}. "
        f"Influence: mean share of the informative agent in the left Perron vector of "
        f"the product of {window} consecutive weight matrices."
    )
