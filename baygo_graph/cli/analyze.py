"""``baygo analyze``: connectivity and influence report for a saved run or a graph series."""

from __future__ import annotations

from pathlib import Path

import click

from .._format import format_number
from ..analysis import analysis_report
from ..analysis.report import DEFAULT_WINDOW
from ..exceptions import RunFormatError
from ._common import emit, synthetic_banner

__all__ = ["analyze"]

SERIES_SUFFIXES = (".json", ".graphml")


def _load(path: Path):
    """A Run (folder or .npz) or a list of digraphs (.json / .graphml)."""
    from ..run import Run, read_series

    if path.suffix in SERIES_SUFFIXES:
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


@click.command()
@click.argument("run_dir", metavar="RUN_DIR", type=click.Path(path_type=Path))
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    help="Window length for per-window connectivity and influence "
    f"(default min({DEFAULT_WINDOW}, T)).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def analyze(run_dir, window, as_json):
    """Connectivity and influence report for RUN_DIR.

    RUN_DIR is a run folder or .npz written by `baygo run --out`, or a graph
    series (.json node-link or .graphml) written by write_series or elsewhere.
    Reports the smallest B for aligned and sliding windows, a per-window
    summary, the informative agent's influence (window product and union) and
    the fraction of agents listening to it.
    """
    try:
        source = _load(run_dir)
        n_steps = len(source) if isinstance(source, list) else source.n_steps
        if window is not None and not 1 <= window <= n_steps:
            raise ValueError(
                f"--window must be in [1, {n_steps}] (the number of steps), got {window}"
            )
        summary = analysis_report(source, window=window)
    except (RunFormatError, ValueError, TypeError) as e:
        raise click.ClickException(str(e)) from e
    summary["source"] = str(run_dir)
    label = str(run_dir)
    if not isinstance(source, list):
        summary |= {"strategy": source.strategy, "data": source.data_source}
        label = f"{source.strategy} run {run_dir} (data {source.data_source})"
    emit(summary, as_json=as_json, text=_text(summary, label))
