"""The paper reproduction: every strategy over many seeds -> figures, tables, report.

:func:`reproduce` runs :func:`baygo_graph.experiments.compare` for all six
strategies (on the experiment runner), measures the emergent BayGo graphs with
the analysis layer, draws every figure of :mod:`baygo_graph.figures`, and
writes a folder::

    OUT/
      report.md            figures and numbers together, the claims table
      results.parquet      tidy table: strategy, seed, step, agent, informative, mse, influence,
                           data, synthetic (one row group per run, written run by run: bounded
                           memory; about 5 bytes per row); results.csv instead with
                           results_format="csv" (``--csv``)
      summary.md/.json     one row per strategy (final MSE with 95% intervals, ...),
                           the claims, smallest B per seed, timings
      smallest_b.csv       smallest B per seed and window kind
      horizon.csv          smallest B and hub measures per seed and horizon T
      theorem.csv          the bound's check per BayGo seed (three readings)
      regimes.csv          with regimes=...: claim x regime, verdict and numbers
      figures/*.png, *.pdf the figures
      animation/baygo_seed0.gif (and .mp4 when an ffmpeg writer is available)

:func:`reproduce` is a short sequence of steps: run the long BayGo runs
(:mod:`.horizon`) and then the other strategies (the comparison's BayGo runs are the
long runs' first ``steps`` steps), measure (summary, BayGo graphs, claims), draw
(:mod:`.drawing`, the animation) and write (tables, summary.md/.json, report.md from
:mod:`.report`).
"""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._format import JSON_CONVENTIONS, json_clean, json_default, synthetic_banner
from .._text import counted, csv_frame
from .._validate import check_bool
from ..data import resolve_data
from ..io.atomic import atomic_text, folder_content
from ..io.results import check_results_format, write_results
from ..io.runs import save_runs as write_runs
from ..models import LinearRegression
from .claims import STRATEGIES, coverage_rows, evaluate_claims
from .drawing import draw, figure_names, save_figures, start_animation, union_and_influence
from .horizon import default_horizons
from .report import SHORT, claims_table, render_report, run_config, summary_markdown

__all__ = ["Measures", "Reproduction", "reproduce"]


@dataclass(frozen=True)
class Reproduction:
    """What :func:`reproduce` did.

    Attributes
    ----------
    out : pathlib.Path
        The output folder.
    files : dict of str to pathlib.Path
        Every file written, by role (``"report"``, ``"results"``, ``"figure:<name>:png"``...).
    claims : list of Claim
    summary : pandas.DataFrame
        :func:`baygo_graph.analysis.summarize` of the comparison.
    synthetic : bool
        True when the data were synthetic.
    timings : dict of str to float
        Wall time (s) of each stage and ``"total"``.
    notes : list of str
        Messages for the user (e.g. why no MP4 was written).
    """

    out: Path
    files: dict
    claims: list
    summary: pd.DataFrame = field(repr=False)
    synthetic: bool
    timings: dict
    notes: list = field(default_factory=list)


@dataclass(frozen=True)
class Measures:
    """What the analysis layer says about the BayGo runs (inputs of the figures)."""

    smallest_b: pd.DataFrame
    windows: object  # b_connectivity result of the showcase seed
    listen_counts: np.ndarray  # (M, M) summed over seeds
    fraction: np.ndarray  # (N, T)
    references: object
    union: object  # weight matrix of the showcase union window
    union_influence: np.ndarray | None
    union_span: tuple


def _measure_baygo(runs, seeds, *, window, ttc=None):
    """Connectivity, topology and influence of every BayGo run, via the analysis layer
    (``ttc``: each run's time to connectivity, when known)."""
    from .. import analysis

    rows = []
    for r in range(seeds):
        mine = None if ttc is None else ttc[r]
        rows += [{"seed": r} | row for row in coverage_rows(runs[("baygo", r)], ttc=mine)]
    table = pd.DataFrame(rows)
    show = runs[("baygo", 0)]
    t = show.n_steps
    windows = analysis.b_connectivity(show, max(1, min(window, t)), windows="aligned")
    counts = sum(
        np.asarray(analysis.listen_counts(runs[("baygo", r)]), dtype=float) for r in range(seeds)
    )
    fraction = np.stack(
        [np.asarray(analysis.listener_fraction(runs[("baygo", r)]), float) for r in range(seeds)]
    )
    references = analysis.reference_influence(show.n_agents, informative=show.informative)
    start = max(0, t - window)
    union, union_influence = union_and_influence(show, start, t)
    return Measures(table, windows, counts, fraction, references, union, union_influence,
                     (start, t - 1))  # fmt: skip


@contextmanager
def _timed(timings: dict, stage: str):
    """Record the wall time of a stage in ``timings[stage]``."""
    t0 = time.perf_counter()
    yield
    timings[stage] = time.perf_counter() - t0


def _run(study: dict, *, keep_all: bool, made: dict):
    """Every strategy over the seeds: the per-run arrays (a Comparison) and the runs;
    the strategies in ``made`` (label -> runs) are measured, not run again.

    Only the BayGo runs come back unless ``keep_all`` (``save_runs``): the
    others' measures are in the Comparison already.
    """
    from ..experiments import compare

    keep = True if keep_all else ("baygo",)
    return compare(STRATEGIES, **study, return_runs=keep, tidy=False, made=made)


def _simulate(study: dict, *, horizons, save_runs, out, files, notes, timings, log):
    """The long BayGo runs (theorem monitor, horizons), then the other strategies: the
    comparison's BayGo runs are the long runs' first ``steps`` steps (same seeds, same
    draws), not run twice."""
    from .horizon import long_runs

    seeds, steps = study["seeds"], study["steps"]
    log(
        f"BayGo with the theorem monitor, {counted(seeds, 'seed')} x "
        f"{counted(max([*horizons, steps]), 'step')} (the horizon study's T: "
        f"{', '.join(str(h) for h in sorted(set(horizons)))}) ..."
    )
    with _timed(timings, "long_runs"):
        kwargs = {k: v for k, v in study.items() if k != "influence_window"}
        long = long_runs(horizons=horizons, window=study["influence_window"],
                         synthetic=bool(study["data"].synthetic), **kwargs)  # fmt: skip
    others = len([s for s in STRATEGIES if s != "baygo"])
    log(
        f"running {counted(others, 'other strategy', 'other strategies')} x "
        f"{counted(seeds, 'seed')}, {counted(steps, 'step')} ..."
    )
    with _timed(timings, "compare"):
        res, runs = _run(study, keep_all=save_runs, made={"baygo": long.heads(steps)})
    if save_runs:
        files["runs"] = out / "runs"
        write_runs(runs, files["runs"], overwrite=True)
    with _timed(timings, "exact_nocol"):
        truncation = _grid_truncation(study, res)
    if truncation:
        notes.append(truncation)
    return res, runs, long


def _grid_truncation(study, res) -> str:
    """NoCol on the grid against the exact Gaussian model (no grid) on the same seeds.

    Agents with few samples keep wide posteriors that the grid's bounds cut off; the
    sentence says by how much that moves NoCol's final MSE (empty: NoCol not run or
    a model without an exact twin).
    """
    from ..analysis.stats import final_mse
    from ..experiments import compare

    if "nocol" not in STRATEGIES:
        return ""
    kwargs = {k: study[k] for k in ("seeds", "steps", "rng", "n_jobs", "data", "agents")}
    exact = compare(["nocol"], progress=False, model="exact", **kwargs)
    grid = final_mse(res).xs("nocol", level="strategy")["others"].mean()
    free = final_mse(exact).xs("nocol", level="strategy")["others"].mean()
    if abs(grid - free) <= 1e-3 * abs(free):
        return (
            f"Grid truncation: none noticeable; NoCol's final MSE of the non-informative "
            f"agents is {grid:.3f} on the grid and {free:.3f} with the exact Gaussian model "
            f"(no grid, same seeds)."
        )
    return (
        f"Grid truncation: NoCol's final MSE of the non-informative agents is "
        f"{grid:.3f} on the grid and {free:.3f} with the exact Gaussian model (no grid, "
        f"same seeds): their few samples leave wide posteriors whose mass beyond the "
        f"grid's bounds [-2, 2]^2 is cut off, so the grid's number is "
        f"{'lower' if grid < free else 'higher'} by {abs(grid - free):.3f}."
    )


def _measure_runs(res, runs, *, seeds, window, ttc=None):
    """What needs the comparison alone: the summary table, the measures of the BayGo
    graphs and the spread of the BayGo beliefs."""
    from .consensus import belief_spread

    summary = res.summarize()
    measures = _measure_baygo(runs, seeds, window=window, ttc=ttc)
    beliefs = np.stack([belief_spread(runs[("baygo", r)].mean) for r in range(seeds)])
    return summary, measures, beliefs


def _measure(res, runs, *, seeds, window, checks, ttc=None):
    """The summary table, the measures of the BayGo graphs and the claims (``ttc``: the
    BayGo runs' time to connectivity, from the long runs)."""
    summary, measures, beliefs = _measure_runs(res, runs, seeds=seeds, window=window,
                                               ttc=ttc)  # fmt: skip
    claims = evaluate_claims(res, smallest_b=measures.smallest_b, theorem=checks,
                             beliefs=beliefs)  # fmt: skip
    return summary, measures, claims


def _regime_stage(regimes, *, out, gallery, files, data, **kwargs):
    """The regime map: run it, write regimes.csv and its heat map."""
    from .regimes import plot_regimes
    from .regimes import regimes as run_regimes

    design, cells = (regimes, None) if isinstance(regimes, str) else ("cells", regimes)
    regime_map = run_regimes(design=design, cells=cells, data=data, **kwargs)
    files["regimes"] = out / "regimes.csv"
    atomic_text(
        files["regimes"],
        csv_frame(regime_map.table).to_csv(index=False, float_format="%.6g"),
        overwrite=True,
    )
    fig = plot_regimes(regime_map, synthetic=bool(data.synthetic)).figure
    save_figures({"regimes": fig}, out, gallery=gallery, files=files)
    return regime_map


def _write_tables(res, smallest_b, long, out: Path, files: dict, *, results_format) -> None:
    """The results table, then the CSV tables, each with the data source and a synthetic
    flag on every row."""
    source = str(res.attrs.get("data_source", "unknown"))
    synthetic = bool(res.attrs.get("synthetic", False))
    files["results"] = write_results(res, out, results_format=results_format, overwrite=True)
    for name, frame in (
        ("smallest_b", smallest_b),
        ("horizon", long.horizon),
        ("theorem", long.theorem),
    ):
        files[name] = out / f"{name}.csv"
        labelled = frame.assign(data=source, synthetic=synthetic)
        atomic_text(
            files[name],
            csv_frame(labelled).to_csv(index=False, float_format="%.6g"),
            overwrite=True,
        )


def _write_reports(out: Path, *, config, summary, claims, measures, long, regime_map, timings,
                   files, notes):  # fmt: skip
    """summary.md, summary.json and report.md."""
    synthetic = config["synthetic"]
    files["summary_md"] = atomic_text(
        out / "summary.md",
        (f"**{synthetic_banner(True)}**\n\n" if synthetic else "")
        + summary_markdown(summary)
        + "\n\n"
        + claims_table(claims)
        + "\n",
        overwrite=True,
    )
    payload = {
        # what the numbers were made from, said first, as every other output says it
        "data": config["data"],
        "synthetic": synthetic,
        "note": synthetic_banner(True) if synthetic else None,
        "conventions": f"{JSON_CONVENTIONS}. Intervals: paired differences Student-t; "
        "MSE summaries log-scale t (never below 0); shares percentile bootstrap over seeds.",
        "config": config,
        "summary": summary.reset_index().to_dict(orient="records"),
        "claims": [
            asdict(c) | {"verdict": c.verdict, "tests": SHORT.get(c.key, c.claim)} for c in claims
        ],  # fmt: skip
        "contradicted": [
            c.key for c in claims if c.holds is False and c.key != "baygo_vs_cen_stratified"
        ],  # fmt: skip
        "smallest_b": measures.smallest_b.to_dict(orient="records"),
        "horizon": long.horizon.to_dict(orient="records"),
        "theorem": long.theorem.to_dict(orient="records"),
        "timings_s": timings,
    }
    files["summary_json"] = out / "summary.json"
    atomic_text(
        files["summary_json"],
        json.dumps(json_clean(payload), indent=2, default=json_default),
        overwrite=True,
    )
    files["report"] = out / "report.md"
    report = render_report(
        claims=claims,
        summary=summary,
        smallest_b=measures.smallest_b,
        long=long,
        regime_map=regime_map,
        config=config,
        synthetic=synthetic,
        data_source=config["data"],
        timings=timings,
        files=files,
        notes=notes,
        out=out,
    )
    atomic_text(files["report"], report, overwrite=True)


def reproduce(
    out,
    *,
    seeds: int = 20,
    steps: int = 60,
    data=None,
    n_jobs: int | None = None,
    rng: int = 0,
    agents: int = 12,
    grid: int = 61,
    influence_window: int = 10,
    horizons=None,
    regimes=None,
    regime_seeds: int = 10,
    regime_max_seeds: int | None = None,
    scheduler=None,
    gallery=None,
    video: bool = True,
    save_runs: bool = False,
    results_format: str = "parquet",
    progress: bool | None = None,
    log=None,
    command: str = "reproduce(...)",
) -> Reproduction:
    """Run the paper experiment and write figures, tables and a report into ``out``.

    Parameters
    ----------
    out : str or os.PathLike
        Output folder (created; files in it are overwritten).
    seeds : int, default 20
        Replicates per strategy.
    steps : int, default 60
        Steps T per run.
    data : str, os.PathLike, DataFrame, Dataset or None
        The bodyfat data; None: ``$BAYGO_BODYFAT``, else synthetic (labelled).
    n_jobs : int, optional
        Worker processes of :func:`~baygo_graph.experiments.compare` (None: all cores).
    rng : int, default 0
        Root seed of the replicates.
    agents : int, default 12
    grid : int, default 61
        Grid points per axis (small values only for quick checks).
    influence_window : int, default 10
        Window of the influence series (and of the drawn union graph).
    horizons : sequence of int, optional
        Run lengths of the horizon study: one BayGo run per seed of
        ``max(horizons, steps)`` steps (with the theorem monitor; its first
        ``steps`` steps are the claims' BayGo run), measured at each length.
        Default :func:`~baygo_graph.reproduce.horizon.default_horizons`: T/2, T, 2T
        and 5T for ``steps`` = T (the paper's 30, 60, 120, 300 at T = 60).
    regimes : {"ofat", "factorial"} or list of dict, optional
        Also re-test the claims over the regime map of
        :func:`~baygo_graph.reproduce.regimes.regimes` (a design, or the regimes
        themselves as its ``cells``; opt-in: minutes): writes
        regimes.csv, figures/regimes.png and a report section.
    regime_seeds : int, default 10
        Paired seeds per regime at the first look.
    regime_max_seeds : int, optional
        Seeds are doubled where a verdict is undecided, up to this cap (default
        ``8 * regime_seeds``)
        (Bonferroni over the looks; see :mod:`baygo_graph.reproduce.regimes`).
    scheduler : str or distributed.Client, optional
        Dask scheduler for the regime map's runs (forwarded to compare).
    gallery : str or os.PathLike, optional
        Also write small PNGs of :data:`GALLERY` there (the README's gallery).
    video : bool, default True
        Also write an MP4 of the animation when an ffmpeg writer is available.
    save_runs : bool, default False
        Also keep every run of the comparison in ``out/runs/<strategy>-seed<NN>/``
        (``baygo analyze out`` then reads them).
    results_format : {"parquet", "csv"}, default "parquet"
        The per-step results table: ``results.parquet`` (about 5 bytes per row, exact
        float64; read it with :func:`baygo_graph.io.results.load_results`, pandas,
        polars or DuckDB) or ``results.csv`` (6 significant digits, 35-80 bytes per
        row). Either one, not both: the other format's file in ``out`` is removed.
    progress : bool, optional
        Progress bar of the runs (default: when stderr is a terminal).
    log : callable, optional
        Called with one line of text per stage (the CLI passes ``click.echo``).
    command : str
        The command line recorded in the report.

    Returns
    -------
    Reproduction
    """
    progress = check_bool("progress", progress, none=True)
    save_runs = check_bool("save_runs", save_runs)
    video = check_bool("video", video)
    check_results_format(results_format)
    log = log or (lambda msg: None)
    t_start = time.perf_counter()
    out = Path(out)
    if folder_content(out / "runs"):  # a stale lock or a .gitkeep is no run (hostile16 U6)
        # re-run policy (docs/formats.md): never leave old runs beside a new report, where
        # `baygo analyze OUT` would read them as this reproduction's
        raise FileExistsError(
            f"{out / 'runs'} holds runs of an earlier reproduction: choose another --out, "
            "or move that folder away first"
        )
    from .._validate import check_int
    from ..limits import check_results_budget

    seeds, steps = check_int("seeds", seeds, minimum=1), check_int("steps", steps, minimum=2)
    horizons = default_horizons(steps) if horizons is None else horizons
    advice = "pass fewer --seeds or --steps"  # short: the budget's numbers stay whole
    # before any seed is drawn: the comparison's table, then the long BayGo runs
    check_results_budget(len(STRATEGIES), seeds, steps, agents, kind="arrays", advice=advice)
    check_results_budget(1, seeds, max([*horizons, steps]), agents, kind="arrays",
                         advice=advice)  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    gallery = None if gallery is None else Path(gallery)
    timings, files, notes = {}, {}, []
    influence_window = min(int(influence_window), int(steps))

    dataset = resolve_data(data)
    study = {"seeds": seeds, "steps": steps, "rng": rng, "n_jobs": n_jobs, "progress": progress,
             "influence_window": influence_window, "data": dataset, "agents": agents,
             "model": LinearRegression(grid=grid)}  # fmt: skip
    res, runs, long = _simulate(
        study, horizons=horizons, save_runs=save_runs, out=out, files=files, notes=notes,
        timings=timings, log=log,
    )  # fmt: skip
    synthetic = bool(res.attrs.get("synthetic", False))
    # the animation needs the runs only: a worker draws it while this process measures
    animation = start_animation(res, runs[("baygo", 0)], synthetic=synthetic, steps=steps,
                                agents=agents, video=video, n_jobs=n_jobs,
                                figures=len(figure_names(long=True)))  # fmt: skip
    try:
        log("measuring the emergent graphs ...")
        with _timed(timings, "analysis"):
            summary, measures, claims = _measure(res, runs, seeds=seeds,
                                                 window=influence_window,
                                                 checks=long.checks,
                                                 ttc=long.head_ttc(steps))  # fmt: skip
    except BaseException:
        animation.cancel()
        raise
    log("drawing the figures ...")
    with _timed(timings, "figures"):
        seconds = draw(
            res, measures, synthetic=synthetic, steps=steps, agents=agents, long=long,
            run0=runs[("baygo", 0)], out=out, gallery=gallery, video=video, files=files,
            notes=notes, n_jobs=n_jobs, progress=progress, animation=animation,
        )  # fmt: skip
    timings["animation"] = seconds
    regime_map = None
    if regimes is not None:
        log(
            f"regime map ({regimes}), {regime_seeds} (up to "
            f"{regime_max_seeds or 8 * regime_seeds}) seeds per "
            "regime ..."
        )
        with _timed(timings, "regimes"):
            regime_map = _regime_stage(
                regimes, seeds=regime_seeds, max_seeds=regime_max_seeds, steps=steps, rng=rng,
                data=dataset, agents=agents,
                n_jobs=n_jobs, scheduler=scheduler, progress=progress, log=log, out=out,
                gallery=gallery, files=files,
            )  # fmt: skip
    with _timed(timings, "write"):
        _write_tables(res, measures.smallest_b, long, out, files, results_format=results_format)
    timings["total"] = time.perf_counter() - t_start

    config = run_config(
        seeds=seeds, steps=steps, agents=agents, grid=grid, rng=rng, n_jobs=n_jobs,
        influence_window=influence_window, horizons=horizons, regimes=regimes,
        regime_seeds=regime_seeds, regime_max_seeds=regime_max_seeds, synthetic=synthetic,
        data_source=str(res.attrs.get("data_source", "unknown")), command=command,
    )  # fmt: skip
    _write_reports(out, config=config, summary=summary, claims=claims, measures=measures,
                   long=long, regime_map=regime_map, timings=timings, files=files,
                   notes=notes)  # fmt: skip
    return Reproduction(out=out, files=files, claims=claims, summary=summary,
                        synthetic=synthetic, timings=timings, notes=notes)  # fmt: skip
