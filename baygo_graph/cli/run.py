"""``baygo run``: one strategy, one seed, written to a folder."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from ..learning import simulate
from ..strategies import STRATEGY_NAMES, physical_graph
from ._common import data_option, emit, seed_option, synthetic_banner

__all__ = ["run"]


@click.command()
@click.option("--strategy", type=click.Choice(STRATEGY_NAMES), default="baygo", show_default=True)
@click.option("--agents", type=click.IntRange(min=2), default=12, show_default=True)
@click.option("--steps", type=click.IntRange(min=1), default=60, show_default=True)
@seed_option
@data_option
@click.option("--delta", type=click.FloatRange(0, 1), default=0.5, show_default=True)
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--grid", type=click.IntRange(min=2), default=61, show_default=True)
@click.option(
    "--physical",
    default="complete",
    show_default=True,
    help="BayGo's physical graph: complete, regular-D or geometric[-D] (drawn from --seed).",
)
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Folder for run.npz.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
def run(strategy, agents, steps, seed, data, delta, batch, grid, physical, out, as_json, progress):
    """Run one strategy and print a summary (final MSE, who was listened to)."""
    try:
        graph = physical_graph(physical, agents, seed=seed)
        if graph is not None and strategy != "baygo":
            raise ValueError(f"--physical applies to --strategy baygo only, got {strategy!r}")
        result = simulate(
            strategy,
            agents=agents,
            steps=steps,
            rng=seed,
            data=data,
            delta=delta,
            batch=batch,
            grid=grid,
            physical=graph,
            progress=progress,
        )
    except (ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    summary = result.summary()
    if out is not None:
        summary["file"] = str(result.save(Path(out)))
    lines = [banner for banner in [synthetic_banner(result.synthetic)] if banner] + [
        f"{strategy}: {agents} agents, {steps} steps, seed {seed}, data {result.data_source}",
        f"final MSE informative agent {result.informative}: {summary['final_mse_informative']:.4f}",
        f"final MSE non-informative agents (mean): {summary['final_mse_others_mean']:.4f}",
    ]
    if "chosen_counts" in summary:
        counts = np.asarray(summary["chosen_counts"])
        share = counts / max(counts.sum(), 1)
        lines.append(
            "listened to (share of all choices): "
            + ", ".join(f"{i}:{s:.2f}" for i, s in enumerate(share))
        )
    if out is not None:
        lines.append(f"run written to {summary['file']}")
    emit(summary, as_json=as_json, text="\n".join(lines))
