"""``baygo plot``, ``baygo animate`` and ``baygo reproduce``: pictures and the paper run."""

from __future__ import annotations

import contextlib
import shlex
from pathlib import Path

import click

from .._text import counted, shorten
from ._common import (
    INPUT_TAKES,
    InputPath,
    NamedPath,
    check_out_file,
    data_option,
    emit,
    fit_window,
    force_option,
    load_input,
    out_error,
    output_folder,
    reach_scheduler,
    saved_banner,
    scheduler_option,
    seed_option,
    series_options,
    synthetic_banner,
)

__all__ = ["animate", "parse_steps", "plot", "reproduce"]

#: Files of ``baygo reproduce --out`` besides the results table, checked before the work:
#: the top level's, and one of each sub-folder (a sub-folder linked elsewhere is refused
#: then, not after the work).
REPRODUCE_FILES = ("report.md", "summary.md", "summary.json", "smallest_b.csv", "horizon.csv",
                   "theorem.csv", "figures/theorem.png", "animation/baygo_seed0.gif",
                   "animation/baygo_seed0.mp4")  # fmt: skip


def _union_graph(series, start: int, stop: int):
    """The mean W of steps ``[start, stop)`` as a labelled digraph (edge j -> i: w_ij)."""
    import networkx as nx
    import scipy.sparse as sp

    from ..analysis import window_matrix

    w = sp.coo_array(window_matrix(series, start, stop, method="union"))
    nodes = series.nodes
    g = nx.DiGraph(synthetic=series.synthetic)
    g.add_nodes_from(nodes)
    if series.informative is not None:
        g.nodes[nodes[series.informative]]["informative"] = True
    g.add_weighted_edges_from(
        (nodes[c], nodes[r], x) for c, r, x in zip(w.col.tolist(), w.row.tolist(),
                                                   w.data.tolist(), strict=True)
    )  # fmt: skip
    return g


def _figures_need(window: int):
    """``need(steps, nodes, rows)`` of :func:`~baygo_graph.limits.following`: what
    :func:`_check_drawing_budget` counts for a series of that shape, its drawn edges at
    most 4 a contact (hostile12 Q8: the read's refusal advises for the figures too)."""
    from ..defaults import DEFAULT_WINDOW
    from ..limits import (
        ANALYSIS_BYTES_PER_STEP,
        FIGURE_BYTES_PER_STEP,
        FIGURE_BYTES_PER_WINDOW,
        estimate_drawing_bytes,
    )

    def need(steps, nodes, rows):
        w = max(1, min(DEFAULT_WINDOW if window is None else int(window), steps))
        bars = -(-FIGURE_BYTES_PER_WINDOW // w)
        per_step = ANALYSIS_BYTES_PER_STEP + FIGURE_BYTES_PER_STEP + bars
        return (
            estimate_drawing_bytes(nodes, 4 * rows + 2 * nodes)
            + per_step * steps
            + 16 * (steps * nodes)
        )

    return need


def _check_drawing_budget(run, window: int) -> None:
    """What ``baygo plot`` holds once the input is read, checked against the budget in
    one sum before anything is computed or drawn, so that one refusal advises a limit
    that lets the whole command run: the graph figures' memory (two networkx graphs and
    their drawing: a 300,000-node ring took 922 MB under a 300M budget) and, for a
    series that is not a run, its analysis and the per-step figure
    (:func:`~baygo_graph.limits.check_analysis_budget`'s bound and the window bars)."""
    from ..limits import (
        ANALYSIS_BYTES_PER_STEP,
        FIGURE_BYTES_PER_STEP,
        FIGURE_BYTES_PER_WINDOW,
        check_budget,
        estimate_drawing_bytes,
        series_nbytes,
    )

    series = run.series if hasattr(run, "strategy") else run
    if series is None:  # a run without a graph (Cen, NoCol): no graph figure
        return
    t = series.n_steps
    lo = max(0, t - window)
    nodes = series.n_agents if hasattr(series, "n_agents") else len(series.nodes)
    edges = len(series.step_edges(lo, t)[1]) + len(series.step_edges(t - 1, t)[1]) + 2 * nodes
    need, what = (
        estimate_drawing_bytes(nodes, edges),
        f"drawing the graphs of {counted(nodes, 'node')}",
    )
    if not hasattr(run, "strategy"):  # _series_figures: the analysis and its figure too
        bars = -(-FIGURE_BYTES_PER_WINDOW // window)  # a bar per aligned window
        need += (ANALYSIS_BYTES_PER_STEP + FIGURE_BYTES_PER_STEP + bars) * t + 16 * t * nodes
        what = f"the figures of {counted(t, 'step')} x {counted(nodes, 'node')}"
    check_budget(
        need,
        what=f"{what} ({counted(edges, 'edge')} drawn)",
        used=series_nbytes(series),
        advice="bin the times coarser (--bin) or take a shorter span",
    )


def _series_figures(series, *, window=10) -> dict:
    """``baygo plot`` of a series that is not a run: graph figures only, labels kept."""
    import numpy as np

    from .. import analysis
    from .. import figures as F
    from .._render import self_weight_text, steps_text

    t, syn = series.n_steps, series.synthetic
    window = max(1, min(window, t))  # its memory: checked with the drawing's (plot)
    infl = analysis.influence_series(series, window=window, windows="sliding").values
    last = None if np.isnan(infl[t - 1]).any() else infl[t - 1]
    rule = self_weight_text(getattr(series, "self_weight", None), series.delta)
    figs = {
        "graph_last_step": F.draw_graph(
            series.graph(t - 1),
            influence=last,
            synthetic=syn,
            title=f"{steps_text(t - 1, t - 1, series.time_axis)} ({rule})",
        ).figure  # fmt: skip
    }
    start = max(0, t - window)
    union = _union_graph(series, start, t)
    pi = analysis.influence(union, on_nonunique="nan")
    figs["graph_union"] = F.draw_graph(
        union, influence=None if np.isnan(pi).any() else pi, synthetic=syn,
        title=f"union of {steps_text(start, t - 1, series.time_axis)} ({rule})"
        + (" (influence undefined: several closed classes)" if np.isnan(pi).any() else ""),
    ).figure  # fmt: skip
    figs["window_connectivity"] = F.plot_window_connectivity(
        analysis.b_connectivity(series, window, windows="aligned"), synthetic=syn
    ).figure
    return figs


def _same_folder(a, b) -> bool:
    """Whether the folders ``a`` and ``b`` are one, however spelled (links followed,
    either still to be made)."""
    return Path(a).resolve() == Path(b).resolve()


def parse_steps(text: str | None, n_steps: int) -> range:
    """``"a:b"`` (Python slice, either end optional) or ``"a"`` -> the steps.

    Examples
    --------
    >>> parse_steps("2:5", 10), parse_steps(":3", 10), parse_steps("-2:", 10)
    (range(2, 5), range(0, 3), range(8, 10))
    """
    if text is None:
        return range(n_steps)
    try:
        if ":" in text:
            a, b = text.split(":", 1)
            lo = int(a) if a.strip() else None
            hi = int(b) if b.strip() else None
            sel = range(n_steps)[slice(lo, hi)]
        else:
            k = int(text)
            if not -n_steps <= k < n_steps:
                raise IndexError
            sel = range(k % n_steps, k % n_steps + 1)
    except (ValueError, IndexError):
        raise click.BadParameter(
            f"expected a:b (or a single step) within a run of {counted(n_steps, 'step')}, got "
            f"{text!r}",
            param_hint="--steps",
        ) from None
    if len(sel) == 0:
        raise click.BadParameter(f"{text!r} selects no step of a run of {counted(n_steps, 'step')}",
                                 param_hint="--steps")  # fmt: skip
    return sel


@click.command()
@click.argument("run_dir", type=InputPath(takes=INPUT_TAKES))
@click.option("--out", type=NamedPath(file_okay=False), default=None,
              help="Folder for the figures (default: RUN_DIR/figures).")  # fmt: skip
@click.option("--format", "formats", type=click.Choice(["png", "pdf", "svg"]), multiple=True,
              default=("png",), show_default=True, help="Repeat for several formats.")  # fmt: skip
@click.option("--window", type=click.IntRange(min=1), default=None,
              help="Steps per window (influence, union graph) [default: min(10, T)].")  # fmt: skip
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the files written as JSON.")
@series_options
def plot(run_dir, out, formats, window, force, as_json, **options):
    """Draw the figures of one saved run (RUN_DIR holds run.npz), or of a series
    (.json / .graphml / .gexf, or an edge list .csv / .parquet): its last step, the
    union of the last window, the per-window connectivity (node labels kept)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io.atomic import atomic_figure, check_replace
    from ..reproduce import run_figures

    formats = tuple(dict.fromkeys(formats))  # each format once, in the order given
    from ..limits import following

    with following(_figures_need(window), goal="to draw the figures too"):
        run = load_input(run_dir, **options)
    # a series that is not a run has graph figures only (no MSE)
    figures_of = run_figures if hasattr(run, "strategy") else _series_figures
    folder = Path(out) if out is not None else Path(run_dir if Path(run_dir).is_dir() else
                                                    Path(run_dir).parent) / "figures"  # fmt: skip
    written = []
    window = fit_window(window, run.n_steps)
    _check_drawing_budget(run, window)
    banner = saved_banner(run)
    with output_folder(folder, force=force) as folder:
        try:
            figs = figures_of(run, window=window)
        except (ValueError, TypeError) as e:
            raise click.ClickException(str(e)) from e
        for path in (folder / f"{name}.{ext}" for name in figs for ext in formats):
            try:  # every figure checked before the first is written
                check_replace(path)
            except OSError as e:
                plt.close("all")
                raise out_error("--out", path, e) from None
        if banner and not as_json:  # then 'wrote PATH' as each figure is finished
            emit({}, as_json=False, text=[banner])
        for name, fig in figs.items():
            for ext in formats:
                path = folder / f"{name}.{ext}"
                try:
                    atomic_figure(
                        fig, path, within=folder, overwrite=True, dpi=130, bbox_inches="tight"
                    )
                except OSError as e:
                    raise out_error("--out", path, e) from None
                written.append(str(path))
            plt.close(fig)
    if as_json:
        emit({"synthetic": run.synthetic, "files": written}, as_json=True, text=[banner])


@click.command()
@click.argument("run_dir", type=InputPath(takes="a run (folder or .npz from baygo run --out)"))
@click.option("--steps", "steps_text", default=None, metavar="A:B",
              help="Steps to show, a Python slice (default: all).")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["gif", "mp4"]), default="gif",
              show_default=True)  # fmt: skip
@click.option("--out", type=NamedPath(dir_okay=False), default=None,
              help="Output file (default: RUN_DIR/animation.<format>).")  # fmt: skip
@click.option("--fps", type=click.IntRange(1, 60), default=4, show_default=True)
@click.option("--dpi", type=click.IntRange(20, 600), default=90, show_default=True)
@click.option("--panel", type=click.Choice(["mse", "influence"]), default="mse",
              show_default=True, help="What the panel beside the graph shows.")  # fmt: skip
@click.option("--window", type=click.IntRange(min=1), default=None,
              help="Influence window sizing the nodes [default: min(10, T)].")  # fmt: skip
@click.option("--force", is_flag=True, help="Replace an existing output file.")
def animate(run_dir, steps_text, fmt, out, fps, dpi, panel, window, force):
    """Animate the communication graph of one saved run (GIF, or MP4 with ffmpeg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..figures import animate_run, video
    from ..reproduce import run_influence

    run = load_input(run_dir)
    if not hasattr(run, "strategy"):
        raise click.ClickException(
            f"{run_dir} is a graph series, not a run: animate draws a run's graph beside "
            "its MSE or influence panel; for a series use `baygo view` or `baygo plot`"
        )
    if run.series is None:
        raise click.ClickException("the centralised learner (cen) has no graph to animate")
    steps = parse_steps(steps_text, run.n_steps)
    if fmt == "mp4" and video.ffmpeg_path() is None:
        raise click.ClickException(video.VIDEO_HINT)
    base = Path(run_dir) if Path(run_dir).is_dir() else Path(run_dir).parent
    path = Path(out) if out is not None else base / f"animation.{fmt}"
    if path.suffix.lower() != f".{fmt}":
        raise click.BadParameter(f"--out must end in .{fmt} for --format {fmt}",
                                 param_hint="--out")  # fmt: skip
    check_out_file(path, overwrite=force)
    window = fit_window(window, run.n_steps)
    anim = animate_run(run, steps=steps, panel=panel, influence=run_influence(run, window=window))
    banner = saved_banner(run)
    # then 'wrote PATH' once the file is finished
    frames = f"animating {len(steps)} frames (steps {steps[0]}..{steps[-1]})"
    emit({}, as_json=False, text=[*([banner] if banner else []), frames])
    try:
        video.save_animation(anim, path, fps=fps, dpi=dpi, overwrite=force)
    except RuntimeError as e:
        raise click.ClickException(str(e)) from e
    except OSError as e:
        raise out_error("--out", path, e) from None
    finally:
        plt.close(anim.figure)


def _horizons(ctx, param, value):
    """``--horizons``: run lengths, integers >= 2, comma-separated (a usage error
    otherwise); None: the default rule (:func:`~baygo_graph.reproduce.horizon.default_horizons`)."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    try:  # ASCII digits only (int() alone takes '٣', an Arabic-Indic three)
        horizons = [int(p) for p in parts] if all(p.isascii() for p in parts) else []
    except ValueError:
        horizons = []
    if not horizons or min(horizons) < 2:
        raise click.BadParameter(
            f"expected run lengths of 2 steps or more, comma-separated (e.g. 30,60,120,300), "
            f"got {shorten(repr(value), 60)}"
        )
    return tuple(sorted(set(horizons)))


@click.command()
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Seeds of the comparison (the paper's claims are tested over them).",
)
@click.option("--steps", type=click.IntRange(min=2), default=60, show_default=True,
              help="Steps of the comparison's runs (the paper: 60); a claim about a span "
              "longer than the run is not evaluated, and says so.")  # fmt: skip
@click.option("--horizons", callback=_horizons, default=None, metavar="T1,T2,...",
              help="Run lengths of the horizon study (BayGo runs as long as the longest) "
              "[default: T/2, T, 2T, 5T for --steps T; the paper: 30,60,120,300].")  # fmt: skip
@data_option
@click.option("--jobs", "n_jobs", type=int, default=None,
              help="Worker processes (default: all cores; 1: serial).")  # fmt: skip
@click.option("--out", type=NamedPath(file_okay=False), required=True, help="Output folder.")
@seed_option
@click.option("--agents", type=click.IntRange(min=3), default=12, show_default=True)
@click.option("--grid", type=click.IntRange(min=5), default=61, show_default=True,
              help="Grid points per axis (small values for quick checks only).")  # fmt: skip
@click.option(
    "--gallery",
    type=NamedPath(file_okay=False),
    default=None,
    help="Also write small PNGs for the README gallery here (e.g. docs/gallery).",
)
@click.option("--video/--no-video", default=True, show_default=True,
              help="Also write an MP4 when an ffmpeg writer is available.")  # fmt: skip
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
@click.option("--regimes", "regimes", is_flag=True,
              help="Also re-test the claims over the regime map (batch, delta, grid, noise): "
              "regimes.csv and figures/regimes.png. Opt-in: minutes.")  # fmt: skip
@click.option("--design", type=click.Choice(["ofat", "factorial"]), default="ofat",
              show_default=True,
              help="Regime map: one factor at a time around the default (8 regimes) or the "
              "full factorial (54).")  # fmt: skip
@click.option("--regime-seeds", type=click.IntRange(min=2), default=10, show_default=True,
              help="Paired seeds of a regime's first look; doubled where a claim is still "
              "undecided, up to 8x (the default runs 10 to 80 seeds a regime).")  # fmt: skip
@scheduler_option("Dask scheduler address (tcp://HOST:PORT) for the regime map's runs.")
@click.option("--save-runs", is_flag=True,
              help="Also keep every run in OUT/runs/ (then: baygo analyze OUT).")  # fmt: skip
@click.option("--csv", "as_csv", is_flag=True,
              help="Write the per-step results as results.csv (6 significant digits, "
              "10-20x larger) instead of results.parquet.")  # fmt: skip
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print claims and files as JSON.")
def reproduce(seeds, steps, horizons, data, n_jobs, out, seed, agents, grid, gallery, video,
              progress, regimes, design, regime_seeds, scheduler, save_runs, as_csv, force,
              as_json):  # fmt: skip
    """Run the paper experiment: all strategies over many seeds -> figures, report.

    Writes OUT/report.md (figures, numbers and which of the paper's claims hold),
    results.parquet (per-step results; results.csv with --csv), summary.md/.json,
    figures/ (PNG and PDF) and animation/.
    """
    import matplotlib

    matplotlib.use("Agg")

    from ..data import resolve_data
    from ..reproduce import reproduce as run_reproduction

    if scheduler is not None:  # before any work (hostile8 L7); the address: as it is read
        if not regimes:
            raise click.ClickException(
                "--scheduler: only the regime map (--regimes) runs on a Dask cluster; "
                "for local workers use --jobs"
            )
        reach_scheduler(scheduler)  # a typo in the port: now, not after the figures
    figures_folder = Path(out) / "figures"
    if gallery is not None and _same_folder(gallery, figures_folder):  # hostile7 K12
        raise click.ClickException(
            f"--gallery: {gallery}: is the folder of the report's figures ({figures_folder}), "
            "whose names the gallery's PNGs share: choose another folder"
        )
    try:
        dataset = resolve_data(data)
    except (ValueError, TypeError, OSError) as e:
        raise click.ClickException(str(e)) from e
    banner = synthetic_banner(dataset.synthetic)
    say = (lambda msg: click.echo(msg, err=True)) if as_json else click.echo
    parts = ["baygo", "reproduce", "--seeds", seeds, "--steps", steps, "--seed", seed,
             "--agents", agents, "--grid", grid, "--out", out]  # fmt: skip
    if horizons is not None:
        parts += ["--horizons", ",".join(map(str, horizons))]
    if data is not None:
        parts += ["--data", data]
    if n_jobs is not None:
        parts += ["--jobs", n_jobs]
    if gallery is not None:
        parts += ["--gallery", gallery]
    if regimes:
        parts += ["--regimes", "--design", design, "--regime-seeds", regime_seeds]
    if as_csv:
        parts += ["--csv"]
    command = " ".join(shlex.quote(str(p)) for p in parts)
    # held for this process: a second reproduce into OUT is refused in one line; the files
    # of its top level checked now (a file baygo did not write there needs --force)
    results_name = "results.csv" if as_csv else "results.parquet"
    with (
        output_folder(out, force=force, names=(results_name, *REPRODUCE_FILES), table="results"),
        output_folder(gallery, option="--gallery", force=force)
        if gallery is not None
        else contextlib.nullcontext(),
    ):
        if banner:  # with the work it qualifies: a refused folder is one line, as elsewhere
            say(banner)
        try:
            result = run_reproduction(
                out,
                seeds=seeds,
                steps=steps,
                horizons=horizons,
                data=dataset,
                n_jobs=n_jobs,
                rng=seed,
                agents=agents,
                grid=grid,
                gallery=gallery,
                regimes=design if regimes else None,
                regime_seeds=regime_seeds,
                scheduler=scheduler,
                video=video,
                save_runs=save_runs,
                results_format="csv" if as_csv else "parquet",
                progress=progress,
                log=say,
                command=command,
            )
        except (ValueError, TypeError) as e:
            raise click.ClickException(str(e)) from e
    width = max(len(c.key) for c in result.claims)
    # the synthetic note was said once, before the work; the data line flags it again
    lines = [
        f"data: {dataset.source}"
        + (" (SYNTHETIC: see the note above, and in every file)" if dataset.synthetic else ""),
        "claims of the paper (tests in report.md):",
    ]
    untested = {c.key: c.values["not_tested"] for c in result.claims if "not_tested" in c.values}
    lines += [
        f"  {c.key:<{width}}  {c.verdict}"
        + (f": {untested[c.key].removeprefix('not tested: ')}" if c.key in untested else "")
        for c in result.claims
    ]
    lines += [f"  ({n})" for n in result.notes]
    lines += [
        f"report: {result.files['report']}",
        f"wall time: {result.timings['total']:.1f} s",
    ]
    summary = {
        "synthetic": result.synthetic,
        "data": dataset.source,
        "note": banner or None,
        "claims": {c.key: c.verdict for c in result.claims},
        "not_tested": untested,  # why a claim is not evaluated: the run lacks its span
        "files": {k: str(v) for k, v in result.files.items()},
        "timings_s": result.timings,
    }
    emit(summary, as_json=as_json, text=lines)  # one screen line per field
