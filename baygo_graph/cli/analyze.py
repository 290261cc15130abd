"""``baygo analyze``: connectivity and influence report for a saved run or a graph series."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from .._format import format_number
from .._render import b_text, held_by_text, self_weight_text, undefined_text
from .._text import console, counted, csv_frame, short_list, shorten
from ..analysis import ANALYSIS_MEASURES, analysis_report
from ..analysis.report import DEFAULT_WINDOW
from ..exceptions import RunFormatError
from ..io.edgelist import EDGE_LIST_SUFFIXES
from ..io.series_files import SERIES_SUFFIXES
from ._common import (
    INPUT_TAKES,
    InputPath,
    NamedPath,
    emit,
    fit_window,
    force_option,
    load_input,
    note,
    out_error,
    output_folder,
    saved_banner,
    series_options,
    synthetic_banner,
)

__all__ = ["analyze"]

#: Files read as one series (not as a run): saved series and edge lists.
INPUT_SUFFIXES = (*SERIES_SUFFIXES, *EDGE_LIST_SUFFIXES)


def _fmt(x, spec=".3f"):
    """A number as printed; a share too small for ``spec`` (an influence of 1/3000) keeps
    three significant digits rather than reading 0.000.

    Examples
    --------
    >>> _fmt(0.6667), _fmt(1 / 3000), _fmt(0.0), _fmt(None)
    ('0.667', '3.33e-04', '0.000', 'n/a')
    """
    if x is not None and spec == ".3f" and 0 < abs(float(x)) < 5e-4:
        spec = ".2e"
    return format_number(None if x is None else float(x), spec)


def _name(node) -> str:
    """A node label as printed: at most 60 characters (the JSON output keeps it whole)."""
    return shorten(str(node), 60)


def _top_text(top: list, spec=".3f") -> str:
    return ", ".join(f"{_name(node)} {_fmt(v, spec)}" for node, v in top)


def _undefined_text(u: dict, gaps, followed: str | None) -> str:
    alt = u["alternative"]
    extra = f"; {followed} {_fmt(alt[followed_key])}" if (followed_key := _key(alt)) else ""
    return (
        f"  undefined in {counted(u['windows'], 'window')}: {undefined_text(gaps.n_classes)}. "
        "Alternative "
        f"({alt['name']}, damping {alt['damping']}, mean over {alt['windows']} of these "
        f"windows): top {_top_text(alt['top'])}{extra}"
    )


def _tied_top(r: dict) -> str:
    """Say when the top value is shared: the first node listed is then first by order."""
    n = r.get("top_tied", 0)
    if n < 2:
        return ""
    return f" ({counted(n, 'node')} tied at the top within 1e-12, listed in node order)"


def _held_by(r: dict, agents: int) -> str:
    """Why the ranking lists fewer nodes than there are (the rest have no influence)."""
    text = held_by_text(r["positive_nodes"], agents)
    return f" ({text})" if text else ""


def _rank_text(k: dict, agents: int, n: int) -> str:
    """The followed node's rank with its ties (competition ranking: tied nodes share the
    better rank, so a node nobody hears is not "second" beside others nobody hears)."""
    if k.get("zero_windows") == n:
        return (f", influence 0 in every window: no rank (tied at 0 with "
                f"{_fmt(k['tied_with'], '.1f')} others on average)")  # fmt: skip
    text = f", mean rank {_fmt(k['mean'], '.1f')} of {agents} (1 = most"
    if k.get("zero_windows"):
        text += (f"; over the {counted(k['n'], 'window')} where it has influence, 0 in "
                 f"{k['zero_windows']}")  # fmt: skip
    if k.get("tied"):
        text += (f"; tied in {k['tied']:.0%} of the windows, with "
                 f"{_fmt(k['tied_with'], '.1f')} others on average: ties share the better "
                 "rank")  # fmt: skip
    return text + ")"


def _key(d: dict) -> str | None:
    return next((k for k in ("focus", "informative") if k in d), None)


def _text(report, label: str, banner: str | None = None) -> list[str]:
    """The report's lines (one per field: :func:`emit` keeps each on one line), rendered
    from the :class:`~baygo_graph.analysis.AnalysisReport` (its ``as_dict()`` is the JSON);
    ``banner``: the source's synthetic-data line (:func:`saved_banner`), when known."""
    s = report.as_dict()
    if banner is None:
        banner = synthetic_banner(s["synthetic"], saved=True)
    lines = [banner] if banner else []
    inf_agent = s["informative"]
    if "focus" in s:
        focus = _name(s["focus"])
        who, followed = f"following node {focus} (--focus)", f"node {focus}"
    elif inf_agent is not None:
        who = f"informative agent: {_name(s['nodes'][inf_agent])}"
        followed = "the informative agent"
    else:
        who, followed = "no informative agent marked (--focus NODE follows one)", None
    lines.append(
        f"{label}: {counted(s['steps'], 'step')}, {counted(s['agents'], 'node')}, {who}; "
        f"{self_weight_text(report.self_weight, report.delta)}"
    )
    if s["time_axis"] is not None:  # when each step starts, on the times' own clock
        lines.append(f"time axis: {s['time_axis']['text']}")
    # B with what it covers, never a plain B for steps it did not check
    lines.append(
        "smallest B (B-strong connectivity): aligned: "
        f"{b_text(report.smallest_b['aligned'], report.time_axis)}; "
        f"sliding: {b_text(report.smallest_b['sliding'], report.time_axis)}"
    )
    ttc = s["time_to_connectivity"]
    reach = (
        f"median {_fmt(ttc['median'], '.0f')}, max {_fmt(ttc['max'], '.0f')} "
        f"{'step' if ttc['max'] == 1 else 'steps'} "
        f"({ttc['reached_fraction']:.0%} of starts reach it)"
        if ttc["median"] is not None
        else "never reached from any start step"
    )
    lines.append(
        f"single steps strongly connected: {s['step_strongly_connected_fraction']:.0%}; "
        f"time to strong connectivity from a start step: {reach}"
    )
    w = s["window"]
    for kind, r in s["windows"].items():
        fail = (
            "none"
            if r["first_failure"] is None
            else f"window {r['first_failure']} (steps {r['first_failure_steps'][0]}"
            f"..{r['first_failure_steps'][1]}"
            + (f", {r['first_failure_times']}" if r["first_failure_times"] else "")
            + ")"
        )
        lines.append(
            f"{kind} windows of {w}: {r['strongly_connected']}/{r['n_windows']} strongly "
            f"connected, first failure {fail}, components median "
            f"{_fmt(r['components']['median'], '.0f')} max {_fmt(r['components']['max'], '.0f')}"
        )
    for method, r in s["influence"].items():
        every = f", one in {r['stride']} up to the last" if r.get("stride", 1) > 1 else ""
        head = (
            f"influence ({method} of {w}-step sliding windows{every}; unique in "
            f"{r['defined_windows']}/{r['windows']})"
        )
        key = _key(r)
        if r["defined_windows"] == 0:
            lines.append(f"{head}: no window has a unique influence")
        elif key is not None and r[key]["n"]:
            i, k = r[key], r[f"{key}_rank"]
            last = "undefined" if i["last"] is None else _fmt(i["last"])
            lines.append(
                f"{head}: {followed} mean {_fmt(i['mean'])} "
                f"[{_fmt(i['min'])}, {_fmt(i['max'])}] over those windows, last window {last}"
                + _rank_text(k, s["agents"], i["n"])
            )
        else:
            lines.append(
                f"{head}: most influential on average over those windows: {_top_text(r['top'])}"
                + _tied_top(r)
                + _held_by(r, s["agents"])
            )
        if "undefined" in r:
            lines.append(_undefined_text(r["undefined"], report.undefined[method], followed))
    listen = next((k for k in ("listening_to_focus", "listening_to_informative") if k in s), None)
    if listen is not None:
        f = s[listen]
        lines.append(
            f"fraction of the other nodes listening to {followed}: mean "
            f"{f['mean']:.2f} (first step {f['first']:.2f}, last {f['last']:.2f}, "
            f"max {f['max']:.2f}); share of all choices {f['chosen_share']:.2f}"
        )
    if "references" in s:
        r = s["references"]
        lines.append(
            "reference influence of the informative agent: PosM "
            f"{r['posm']:.3f}, NegM {r['negm']:.3f}, complete {r['complete']:.3f}"
        )
    return lines


def _is_single(paths: tuple[Path, ...]) -> bool:
    """One run file, one run folder or one series file (the single-run report)."""
    from ..io.npz import RUN_FILE

    if len(paths) != 1:
        return False
    p = paths[0]
    known = p.suffix.lower() in (*INPUT_SUFFIXES, ".npz")
    return known or (p / RUN_FILE).is_file() or not p.is_dir()


#: The files ``baygo analyze RUN --out DIR`` writes for one run or series: its report.
SINGLE_FILES = ("report.txt", "report.json")


def _single(run_dir: Path, window, as_json, *, focus=None, options=None, stride=1, out=None,
            force=False) -> None:  # fmt: skip
    folder = output_folder(out, force=force, names=SINGLE_FILES) if out is not None else None
    with folder or contextlib.nullcontext():  # --out checked before the work
        source = load_input(run_dir, **(options or {}))
        try:
            window = fit_window(window, source.n_steps, default=DEFAULT_WINDOW)
            report = analysis_report(source, window=window, focus=focus, stride=stride)
        except (RunFormatError, ValueError, TypeError) as e:
            raise click.ClickException(str(e)) from e
        summary = report.as_dict() | {"source": str(run_dir)}
        # the note the text's first line says, in the JSON too (as summary.json's "note")
        banner = saved_banner(source) if summary["synthetic"] else ""
        summary["note"] = banner or None
        label = str(run_dir)
        if hasattr(source, "strategy"):
            summary |= {"strategy": source.strategy, "data": source.data_source}
            label = (f"{_name(source.strategy)} run {shorten(str(run_dir), 120)} "
                     f"(data {shorten(str(source.data_source), 100)})")  # fmt: skip
        lines = _text(report, label, banner)
        emit(summary, as_json=as_json, text=lines)  # then 'wrote PATH' for each file
        if out is not None:
            _write_single(out, summary, lines)


def _write_single(out: Path, summary: dict, lines) -> None:
    """The report printed, as text (report.txt) and as JSON (report.json), in ``out``."""
    from ..io.atomic import atomic_text

    try:
        text = "\n".join(console(line) for line in lines) + "\n"  # as printed
        atomic_text(out / SINGLE_FILES[0], text, within=out, overwrite=True)
        atomic_text(
            out / SINGLE_FILES[1], json.dumps(summary, indent=2) + "\n", within=out, overwrite=True
        )
    except OSError as e:
        raise out_error("--out", out, e) from None


def _many_text(table, summary) -> str:
    from .._format import markdown_table

    keys = [c for c in summary.columns if c not in ("measure", "median", "q25", "q75", "n",
                                                     "missing", "tail_not_connected")]  # fmt: skip
    cols = ["run", "strategy", "seed", *(k for k in keys if k != "strategy"), *ANALYSIS_MEASURES]
    per_run = table[cols].copy()
    per_run[list(ANALYSIS_MEASURES)] = per_run[list(ANALYSIS_MEASURES)].map(
        lambda x: format_number(float(x), ".3g", missing="none")
    )
    tail = table["b_aligned_tail"].to_numpy(dtype=float)  # what the aligned B leaves
    connected = table["b_aligned_tail_connected"].to_numpy(dtype=float)
    per_run["b_aligned"] = [
        b if not n > 0 else f"{b}, tail {n:.0f} {'conn.' if c == 1 else 'not conn.'}"
        for b, n, c in zip(per_run["b_aligned"], tail, connected, strict=True)
    ]
    tied = table["influence_tied"].to_numpy(dtype=float)
    per_run["influence_rank"] = [
        r if not t > 0 else f"{r} (tied in {t:.0%})"
        for r, t in zip(per_run["influence_rank"], tied, strict=True)
    ]
    summ = summary.copy()
    for c in ("median", "q25", "q75"):
        summ[c] = summ[c].map(lambda x: format_number(float(x), ".3g"))  # n/a: undefined
    synthetic = bool(table["synthetic"].all()) if len(table) else False
    lines = [b for b in [synthetic_banner(synthetic, saved=True)] if b]
    skipped = table.attrs.get("skipped", [])
    data = short_list(sorted(set(map(str, table["data"]))), 3, limit=100)
    head = f"{counted(len(table), 'run')}, data {data}"
    if skipped:
        head += f"; {len(skipped)} skipped (listed below)"
    lines += [
        console(head),  # data sources are run metadata: one line (emit keeps block breaks)
        markdown_table(per_run, index=False, pad=True),
        "'B, tail n not conn.': the aligned B covers only [0, k B); the last n steps (T mod "
        "B, in no checked window) are not strongly connected, so the run is not "
        "B-connected to its end ('conn.': they are). "
        "none: b_aligned/b_sliding: no window length up to T works; influence and its rank: "
        "no window has a unique influence (several closed classes in every window). "
        "Rank 1 = most influential; '(tied in x%)': in x% of the windows another agent has "
        "the same influence, and the shared rank is counted as the better one.",
        "Median and interquartile range per strategy"
        + (
            f" and setup ({', '.join(k for k in keys if k != 'strategy')})" if len(keys) > 1 else ""
        )  # fmt: skip
        + " (n/a: no run with a value; tail_not_connected: runs whose aligned B leaves a tail "
        "not strongly connected):",
        markdown_table(summ, index=False, pad=True),
    ]
    if skipped:
        by_reason: dict = {}
        for s in skipped:
            by_reason.setdefault((s["strategy"], s["reason"]), []).append(s["run"])
        lines.append(
            "skipped:\n"
            + "\n".join(
                console(f"- {counted(len(v), strategy + ' run')} ({short_list(v, 3)}): {reason}")
                for (strategy, reason), v in by_reason.items()
            )
        )
    return "\n\n".join(lines)


#: The files ``baygo analyze RUN... --out DIR`` writes.
MANY_FILES = ("table.csv", "summary.csv", "analysis.png", "smallest_b.png")


def _many(paths, *, window: int | None, as_json: bool, out, group: bool = False,
          force: bool = False) -> None:  # fmt: skip
    from ..analysis import analysis_table, summarize_analysis
    from ..run import load_runs

    mixed = "group" if group else "refuse"
    folder = output_folder(out, force=force, names=MANY_FILES) if out is not None else None
    with folder or contextlib.nullcontext():
        try:
            runs = load_runs(paths, mixed=mixed)
            lengths = [r.n_steps for r in runs.values() if r.series is not None]
            short = [t for t in lengths if window is not None and t < window]
            if short:  # analysis_table cuts each run's window to the run's length
                note(
                    f"--window {window} is longer than {len(short)} of the "
                    f"{counted(len(lengths), 'run')} "
                    f"(shortest {counted(min(short), 'step')}): their windows are cut to their "
                    "length"
                )
            window = DEFAULT_WINDOW if window is None else window
            table = analysis_table(runs, window=window, mixed=mixed)
        except (RunFormatError, ValueError, TypeError) as e:
            text = str(e).replace("mixed='group'; CLI --group", "--group")
            raise click.ClickException(text) from e
        if table.empty:
            why = "; ".join(sorted({s["reason"] for s in table.attrs.get("skipped", [])}))
            raise click.ClickException(
                f"no run with a graph among the {counted(len(runs), 'run')} "
                "given" + (f" ({why})" if why
                                                                           else "")
            )  # fmt: skip
        summary = summarize_analysis(table)
        synthetic = bool(table["synthetic"].all()) if len(table) else False
        record = {
            "note": synthetic_banner(synthetic, saved=True) or None,
            "window": window,
            "runs": json.loads(table.to_json(orient="records")),
            "skipped": table.attrs.get("skipped", []),
            "summary": json.loads(summary.to_json(orient="records")),
        }
        if not as_json:  # the report, then 'wrote PATH' as each file is finished
            emit(record, as_json=False, text=_many_text(table, summary))
        if out is not None:
            _write_many(out, table, summary)
    if as_json:
        emit(record, as_json=True, text="")


def _write_many(out: Path, table, summary) -> list[Path]:
    import matplotlib.pyplot as plt

    from .. import figures as F
    from ..io.atomic import atomic_figure, atomic_text

    try:
        paths = [out / MANY_FILES[0], out / MANY_FILES[1]]
        atomic_text(paths[0], csv_frame(table).to_csv(index=False), within=out, overwrite=True)
        atomic_text(paths[1], csv_frame(summary).to_csv(index=False), within=out, overwrite=True)
        figs = {"analysis": F.plot_analysis_table(table)}
        strategy = table["strategy"].iloc[0]  # the first strategy of the table
        figs["smallest_b"] = F.plot_table_smallest_b(table, strategy=strategy).figure
        for name, fig in figs.items():
            paths.append(out / f"{name}.png")
            atomic_figure(fig, paths[-1], within=out, overwrite=True, dpi=110, bbox_inches="tight")
            plt.close(fig)
    except OSError as e:
        raise out_error("--out", out, e) from None
    return paths


@click.command()
@click.argument("paths", metavar="RUN...", nargs=-1, required=True,
                type=InputPath(path_type=Path, takes=f"one or more of: {INPUT_TAKES}"))  # fmt: skip
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window length for per-window connectivity and influence "
    f"(default min({DEFAULT_WINDOW}, T); a longer one is cut to T, with a note).",
)
@click.option(
    "--out",
    type=NamedPath(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the files: one run or series: its report as report.txt and "
    "report.json; several runs: table.csv, summary.csv and the figures.",
)
@click.option(
    "--focus",
    default=None,
    metavar="NODE",
    help="One series: follow this node (its influence, rank and audience) "
    "[default: the informative agent when one is marked].",
)
@click.option(
    "--influence-stride",
    "stride",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="One series: influence of every Nth sliding window only (long series).",
)
@series_options
@click.option(
    "--group",
    is_flag=True,
    help="Several runs of different steps, agents or data: summarise each setup apart "
    "(default: refuse them, naming the setups).",
)
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def analyze(paths, window, as_json, out, focus, group, stride, force, **options):
    """Connectivity and influence report for one run, or a table over many runs.

    One RUN (a run folder or .npz written by `baygo run --out`, a saved graph
    series .json / .graphml / .gexf, or an edge list .csv / .tsv / .parquet
    with columns source,target,time[,weight]): the smallest B for aligned and
    sliding windows, a per-window summary, influence (window product and union;
    where a window has no unique influence, the reason and a damped
    PageRank-style alternative), and, for the informative agent or the --focus
    node, its influence, rank and the fraction of nodes listening to it. Nodes
    are named by their labels.

    Several RUNs, or a folder of run folders (`baygo compare --save-runs`): one
    row per run (smallest B aligned/sliding, listening share, influence and its
    rank, ties marked) and the median/IQR per strategy; centralised (cen) runs
    are listed as skipped, with the reason; runs of different steps, agents or
    data are refused unless --group; --out DIR writes table.csv, summary.csv and
    the figures analysis.png and smallest_b.png (for one RUN: the report printed,
    as report.txt and report.json).
    """
    if _is_single(paths):
        _single(paths[0], window, as_json, focus=focus, options=options, stride=stride,
                out=out, force=force)  # fmt: skip
        return
    if focus is not None or stride != 1 or any(v not in (None, False) for v in options.values()):
        raise click.UsageError(
            "--focus, --influence-stride and the edge-list options need a single series"
        )
    _check_many(paths)
    _many(paths, window=window, as_json=as_json, out=out, group=group, force=force)


def _check_many(paths) -> None:
    """Several inputs make a table over saved runs: say which input is not one, and what
    it is, rather than "no saved run at" a file that is an edge list."""
    from .. import inputs

    for path in paths:  # each exists (InputPath)
        if path.is_dir() or path.suffix.lower() == ".npz":
            continue
        try:
            name = inputs.kind_of(path).name
            kind = f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
        except (ValueError, TypeError, OSError):
            kind = "not a saved run"
        raise click.UsageError(
            f"{len(paths)} inputs given: several inputs make a table over saved runs (run "
            f"folders or .npz files), but {shorten(str(path), 120)} is {kind}; analyze one "
            "series at a time"
        )
