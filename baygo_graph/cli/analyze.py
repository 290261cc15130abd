"""``baygo analyze``: connectivity and influence report for a saved run or a graph series."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from .._format import format_number
from ..analysis import ANALYSIS_MEASURES, analysis_report
from ..analysis.report import DEFAULT_WINDOW
from ..exceptions import RunFormatError
from ._common import emit, fit_window, note, out_error, output_folder, synthetic_banner

__all__ = ["analyze"]

SERIES_SUFFIXES = (".json", ".graphml")


def _load(path: Path):
    """A Run (folder or .npz) or a list of digraphs (.json / .graphml)."""
    from ..run import Run, read_series

    if path.suffix.lower() in SERIES_SUFFIXES:
        return read_series(path)
    return Run.load(path)


def _fmt(x, spec=".3f"):
    return format_number(None if x is None else float(x), spec)


def _text(summary: dict, label: str) -> str:
    s = summary
    b = s["smallest_b"]
    lines = [banner for banner in [synthetic_banner(s["synthetic"])] if banner]
    inf_agent = s["informative"]
    lines.append(
        f"{label}: {s['steps']} steps, {s['agents']} agents, informative agent: "
        f"{'not marked' if inf_agent is None else s['nodes'][inf_agent]}"
    )
    lines.append(
        "smallest B (B-strong connectivity): aligned "
        f"{b['aligned'] if b['aligned'] is not None else 'none'}, sliding "
        f"{b['sliding'] if b['sliding'] is not None else 'none'}"
        + ("  (no window length up to T works)" if b["sliding"] is None else "")
    )
    ttc = s["time_to_connectivity"]
    lines.append(
        f"single steps strongly connected: {s['step_strongly_connected_fraction']:.0%}; "
        f"time to strong connectivity from a start step: median {_fmt(ttc['median'], '.0f')}, "
        f"max {_fmt(ttc['max'], '.0f')} steps ({ttc['reached_fraction']:.0%} of starts reach it)"
    )
    w = s["window"]
    for kind, r in s["windows"].items():
        fail = (
            "none"
            if r["first_failure"] is None
            else f"window {r['first_failure']} (steps {r['first_failure_steps'][0]}"
            f"..{r['first_failure_steps'][1]})"
        )
        lines.append(
            f"{kind} windows of {w}: {r['strongly_connected']}/{r['n_windows']} strongly "
            f"connected, first failure {fail}, components median "
            f"{_fmt(r['components']['median'], '.0f')} max {_fmt(r['components']['max'], '.0f')}"
        )
    for method, r in s["influence"].items():
        head = (
            f"influence ({method} of {w}-step sliding windows; unique in "
            f"{r['defined_windows']}/{r['windows']})"
        )
        if "informative" in r:
            i, k = r["informative"], r["informative_rank"]
            lines.append(
                f"{head}: informative agent mean {_fmt(i['mean'])} "
                f"[{_fmt(i['min'])}, {_fmt(i['max'])}], last {_fmt(i['last'])}, "
                f"mean rank {_fmt(k['mean'], '.1f')} of {s['agents']}"
            )
        else:
            lines.append(f"{head}: most influential on average: agent {r['top_agent']}")
    if "listening_to_informative" in s:
        f = s["listening_to_informative"]
        lines.append(
            f"fraction of the other agents listening to the informative agent: mean "
            f"{f['mean']:.2f} (first step {f['first']:.2f}, last {f['last']:.2f}, "
            f"max {f['max']:.2f}); share of all choices {f['chosen_share']:.2f}"
        )
    if "references" in s:
        r = s["references"]
        lines.append(
            "reference influence of the informative agent: PosM "
            f"{r['posm']:.3f}, NegM {r['negm']:.3f}, complete {r['complete']:.3f}"
        )
    return "\n".join(lines)


def _is_single(paths: tuple[Path, ...]) -> bool:
    """One run file, one run folder or one series file (the single-run report)."""
    from ..io.npz import RUN_FILE

    if len(paths) != 1:
        return False
    p = paths[0]
    known = p.suffix.lower() in (*SERIES_SUFFIXES, ".npz")
    return known or (p / RUN_FILE).is_file() or not p.is_dir()


def _single(run_dir: Path, window, as_json) -> None:
    try:
        source = _load(run_dir)
        n_steps = len(source) if isinstance(source, list) else source.n_steps
        window = fit_window(window, n_steps, default=DEFAULT_WINDOW)
        summary = analysis_report(source, window=window)
    except (RunFormatError, ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    summary["source"] = str(run_dir)
    label = str(run_dir)
    if not isinstance(source, list):
        summary |= {"strategy": source.strategy, "data": source.data_source}
        label = f"{source.strategy} run {run_dir} (data {source.data_source})"
    emit(summary, as_json=as_json, text=_text(summary, label))


def _many_text(table, summary) -> str:
    from .._format import markdown_table

    cols = ["run", "strategy", "seed", *ANALYSIS_MEASURES]
    per_run = table[cols].copy()
    per_run[list(ANALYSIS_MEASURES)] = per_run[list(ANALYSIS_MEASURES)].map(
        lambda x: format_number(float(x), ".3g", missing="none")
    )
    summ = summary.copy()
    for c in ("median", "q25", "q75"):
        summ[c] = summ[c].map(lambda x: format_number(float(x), ".3g", missing="-"))
    synthetic = bool(table["synthetic"].all()) if len(table) else False
    lines = [b for b in [synthetic_banner(synthetic)] if b]
    lines += [
        f"{len(table)} runs, data {', '.join(sorted(set(table['data'])))}",
        markdown_table(per_run, index=False, pad=True),
        "Median and interquartile range per strategy (none: no B works in that run):",
        markdown_table(summ, index=False, pad=True),
    ]
    return "\n\n".join(lines)


def _many(paths, *, window: int | None, as_json: bool, out) -> None:
    from ..analysis import analysis_table, summarize_analysis
    from ..run import load_runs

    with output_folder(out) if out is not None else contextlib.nullcontext():
        try:
            runs = load_runs(paths)
            lengths = [r.n_steps for r in runs.values() if r.series is not None]
            short = [t for t in lengths if window is not None and t < window]
            if short:  # analysis_table cuts each run's window to the run's length
                note(
                    f"--window {window} is longer than {len(short)} of the {len(lengths)} runs "
                    f"(shortest {min(short)} steps): their windows are cut to their length"
                )
            window = DEFAULT_WINDOW if window is None else window
            table = analysis_table(runs, window=window)
        except (RunFormatError, ValueError, TypeError) as e:
            raise click.ClickException(str(e)) from e
        if table.empty:
            raise click.ClickException("no run with a graph among the runs given")
        summary = summarize_analysis(table)
        text = _many_text(table, summary)
        if out is not None:
            written = _write_many(out, table, summary)
            text += "\n\nwritten: " + ", ".join(map(str, written))
    record = {
        "window": window,
        "runs": json.loads(table.to_json(orient="records")),
        "summary": json.loads(summary.to_json(orient="records")),
    }
    emit(record, as_json=as_json, text=text)


def _write_many(out: Path, table, summary) -> list[Path]:
    import matplotlib.pyplot as plt

    from .. import figures as F

    try:
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "table.csv", out / "summary.csv"]
        table.to_csv(paths[0], index=False)
        summary.to_csv(paths[1], index=False)
        figs = {"analysis": F.plot_analysis_table(table)}
        strategy = table["strategy"].iloc[0]  # the first strategy of the table
        figs["smallest_b"] = F.plot_table_smallest_b(table, strategy=strategy).figure
        for name, fig in figs.items():
            paths.append(out / f"{name}.png")
            fig.savefig(paths[-1], dpi=110, bbox_inches="tight")
            plt.close(fig)
    except OSError as e:
        raise out_error("--out", out, e) from None
    return paths


@click.command()
@click.argument("paths", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window length for per-window connectivity and influence "
    f"(default min({DEFAULT_WINDOW}, T); a longer one is cut to T, with a note).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Several runs: folder for table.csv, summary.csv and the figures.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def analyze(paths, window, as_json, out):
    """Connectivity and influence report for one run, or a table over many runs.

    One RUN (a run folder or .npz written by `baygo run --out`, or a graph
    series .json / .graphml): the smallest B for aligned and sliding windows, a
    per-window summary, the informative agent's influence (window product and
    union) and the fraction of agents listening to it.

    Several RUNs, or a folder of run folders (`baygo compare --save-runs`): one
    row per run (smallest B aligned/sliding, listening share, influence and its
    rank) and the median/IQR per strategy; --out DIR writes table.csv,
    summary.csv and the figures analysis.png and smallest_b.png.
    """
    if _is_single(paths):
        if out is not None:
            raise click.UsageError("--out needs several runs (or a folder of run folders)")
        _single(paths[0], window, as_json)
        return
    _many(paths, window=window, as_json=as_json, out=out)
