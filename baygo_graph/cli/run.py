"""``baygo run``: one strategy, one seed, written to a folder."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
import numpy as np

from .._text import counted, shorten
from ..defaults import PAPER
from ..io.npz import run_path
from ..learning import simulate
from ..models import DEFAULT_MODEL, MODEL_NAMES
from ..strategies import DEFAULT_STRATEGY, PHYSICAL_PRESETS, STRATEGY_NAMES, resolve_strategy
from ._common import (
    NamedPath,
    Real,
    build_model,
    data_option,
    default_data,
    emit,
    loss_label,
    model_name,
    model_pairs,
    out_error,
    output_file,
    output_folder,
    samples_option,
    seed_option,
    strategy_name,
    synthetic_banner,
)

__all__ = ["run"]


@click.command()
@click.option(
    "--strategy",
    callback=strategy_name,
    default=DEFAULT_STRATEGY,
    show_default=True,
    help=f"A registered strategy ({', '.join(STRATEGY_NAMES)}, or one a --plugin registers).",
)
@click.option("--agents", type=click.IntRange(min=2), default=PAPER.agents, show_default=True)
@click.option("--steps", type=click.IntRange(min=1), default=PAPER.steps, show_default=True)
@seed_option
@data_option
@samples_option
@click.option("--delta", type=Real(0, 1), default=PAPER.delta, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=PAPER.batch, show_default=True)
@click.option(
    "--grid",
    type=click.IntRange(min=2),
    default=None,
    help=f"Grid points per axis of a grid model [default: the model's own; linear {PAPER.grid}].",
)
@click.option(
    "--physical",
    default="complete",
    show_default=True,
    help="The physical graph of a strategy that takes one (BayGo): complete, regular-D, "
    f"geometric[-D] (drawn from --seed), or one that changes every step: "
    f"{', '.join(PHYSICAL_PRESETS)}.",
)
@click.option(
    "--model",
    callback=model_name,
    default=DEFAULT_MODEL,
    show_default=True,
    help=f"What the agents learn: a registered model ({', '.join(MODEL_NAMES)}, or one a "
    "--plugin registers); --grid sets its grid.",
)
@click.option(
    "--model-option",
    "model_options",
    multiple=True,
    metavar="KEY=VALUE",
    callback=model_pairs,
    help="An option of the model (repeatable), VALUE read as JSON when it parses, nan "
    "and inf as numbers, a bare list lo,hi as [lo,hi]: --model-option bounds=[-3,3] "
    "(or bounds=-3,3); checked before the run.",
)
@click.option(
    "--out",
    type=NamedPath(),
    default=None,
    help="Where to save the run: a folder (it gets run.npz) or a file ending in .npz.",
)
@click.option("--force", is_flag=True, help="Replace a run already saved at --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
def run(out, force, as_json, samples, **options):
    """Run one strategy and print a summary (final loss, who was listened to)."""
    if options["model"] in ("linear", "exact"):  # the models of the bodyfat data
        options["data"] = default_data(options["data"], agents=options["agents"], samples=samples)
    elif samples is not None:
        raise click.UsageError(f"--samples sizes the bodyfat data; --model {options['model']} "
                               "has data of its own")  # fmt: skip
    _check_physical(options["physical"], options["agents"])
    options["model"] = build_model(
        options["model"], grid=options.pop("grid"), pairs=options.pop("model_options")
    )
    with _output(out, force=force):
        result = _simulate(**options)
        summary = result.summary()
        if not as_json:  # the summary, then 'wrote PATH' once the run file is finished
            _print(result, summary, strategy=options["strategy"], seed=options["seed"],
                   as_json=False)  # fmt: skip
        if out is not None:
            summary["file"] = str(_save(result, out, force=force))
    if as_json:
        _print(result, summary, strategy=options["strategy"], seed=options["seed"],
               as_json=True)  # fmt: skip


def _check_physical(physical: str, agents: int) -> None:
    """A --physical the strategy cannot take is a usage error (exit code 2), before any work."""
    from ..strategies.physical import check_physical
    from ..strategies.timevarying import PHYSICAL_PRESETS

    if physical.split("-")[0] in {p.split("-")[0] for p in PHYSICAL_PRESETS}:
        return  # a graph that changes every step: checked by its own parser
    try:
        check_physical(physical, agents)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--physical'") from None


def _saved_at(out) -> Path:
    """The run file ``--out`` names: ``OUT`` itself when it ends in ``.npz``, else
    ``OUT/run.npz``."""
    return run_path(out)


def _exists_error(path) -> click.ClickException:
    return click.ClickException(
        f"--out: {shorten(str(path), 120)}: a run is already saved there (pass --force to "
        "replace it)"
    )


def _output(out, *, force: bool):
    """The checks and the lock of ``--out`` before the work: a folder (run.npz inside) or
    a ``.npz`` file; an existing run file needs ``--force``."""
    if out is None:
        return contextlib.nullcontext()
    target = _saved_at(out)
    if target.is_file() and not force:
        raise _exists_error(target)
    if Path(out).suffix == ".npz":  # a named file, as `baygo view --out page.html`
        return output_file(target, overwrite=force)
    return output_folder(out, force=force, names=(target.name,))  # checked before the work


def _save(result, out, *, force: bool) -> Path:
    try:
        return result.save(Path(out), overwrite=force)
    except FileExistsError as e:  # appeared while the run was computed
        raise _exists_error(_saved_at(out)) from e
    except OSError as e:
        raise out_error("--out", out, e) from None


def _simulate(*, strategy, agents, steps, seed, data, delta, batch, physical, model, progress):
    try:
        strat = resolve_strategy(
            strategy,
            agents=agents,
            physical=None if physical == "complete" else physical,
        )
        result = simulate(
            strat,
            agents=agents,
            steps=steps,
            rng=seed,
            data=data,
            model=model,
            delta=delta,
            batch=batch,
            progress=progress,
        )
    except (ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    return result


def _print(result, summary, *, strategy, seed, as_json) -> None:
    agents, steps = result.n_agents, result.n_steps
    loss = loss_label(result.loss_name)
    lines = [banner for banner in [synthetic_banner(result.synthetic)] if banner] + [
        f"{strategy}: {counted(agents, 'agent')}, {counted(steps, 'step')}, seed {seed}, data "
        f"{result.data_source}",
        f"final {loss} informative agent {result.informative}: "
        f"{summary['final_mse_informative']:.4f}",
        f"final {loss} non-informative agents (mean): {summary['final_mse_others_mean']:.4f}",
    ]
    if "chosen_counts" in summary:
        lines.append(listened_line(summary["chosen_counts"]))
    emit(summary, as_json=as_json, text=lines)  # one screen line per field


#: Agents listed by name in the "listened to" line; the rest are counted.
TOP_LISTENED = 10


def listened_line(chosen_counts, *, top: int = TOP_LISTENED) -> str:
    """Who was listened to: every agent's share of all choices, or, beyond ``top``
    agents, the ``top`` most chosen and a count of the rest with their total share.

    Examples
    --------
    >>> listened_line([2, 1, 1])
    'listened to (share of all choices): 0:0.50, 1:0.25, 2:0.25'
    >>> listened_line([5, 0, 3, 2], top=2)
    'listened to (share of all choices; top 2 of 4 agents): 0:0.50, 2:0.30; 2 others: 0.20'
    """
    counts = np.asarray(chosen_counts, dtype=float)
    share = counts / max(counts.sum(), 1)
    if len(share) <= top:
        return "listened to (share of all choices): " + ", ".join(
            f"{i}:{s:.2f}" for i, s in enumerate(share)
        )
    order = np.argsort(-share, kind="stable")
    rest = share[order[top:]]
    return (
        f"listened to (share of all choices; top {top} of {counted(len(share), 'agent')}): "
        + ", ".join(f"{i}:{share[i]:.2f}" for i in order[:top].tolist())
        + f"; {len(rest)} others: {rest.sum():.2f}"
    )
