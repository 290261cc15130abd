"""Figures of the reproduction and of a single run (what ``baygo plot`` draws).

:func:`make_figures` draws the paper's figures from the comparison table and the
measures of the BayGo runs; :func:`save_figures` writes them (PNG and PDF, and
the README gallery); :func:`run_figures` and :func:`run_influence` serve one run.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._text import counted
from ..analysis.tables import table_array
from .claims import MIN_WINDOWS
from .report import GALLERY

__all__ = [
    "ANIMATION_FRAMES",
    "animate_seed0",
    "draw",
    "figure_names",
    "make_figures",
    "run_figures",
    "run_influence",
    "save_figures",
    "start_animation",
    "union_and_influence",
]


def figure_names(*, long: bool) -> list[str]:
    """The reproduction's figures, in the order they are written (``theorem`` and
    ``horizon`` need the long BayGo runs).

    Examples
    --------
    >>> figure_names(long=False)[:2], figure_names(long=True)[-2:]
    (['mse_vs_cen_nocol', 'mse_vs_complete'], ['theorem', 'horizon'])
    """
    return [*_FIGURES, *(("theorem", "horizon") if long else ())]


_FIGURES = ("mse_vs_cen_nocol", "mse_vs_complete", "mse_vs_stars", "mse_every_agent",
            "influence", "listening_fraction", "listen_matrix", "graph_union",
            "window_connectivity", "smallest_b")  # fmt: skip
# every figure of figure_names, costliest first (CPU time to draw and write, real data)
_COSTLIEST = ("mse_vs_stars", "mse_vs_cen_nocol", "theorem", "mse_vs_complete",
              "listening_fraction", "influence", "listen_matrix", "horizon", "mse_every_agent",
              "smallest_b", "window_connectivity", "graph_union")  # fmt: skip
# figures whose drawing imports scipy.stats (their paired t-tests; ~0.5 s of CPU to
# import): put last, the costliest at the end, where this process (which has it from the
# claims) takes its tasks first, so a worker need not import it
_STATS = ("mse_vs_stars", "mse_vs_cen_nocol", "mse_vs_complete")


@dataclass(frozen=True)
class _Inputs:
    """What the figures are drawn from (sent once to each worker that draws)."""

    df: object
    measures: object
    synthetic: bool
    steps: int
    agents: int
    run0: object = None
    theorem_run: object = None  # the first long BayGo run's first `steps` steps
    horizon: object = None  # the long runs' horizon table


def _inputs(df, measures, *, synthetic, steps, agents, long=None, run0=None) -> _Inputs:
    return _Inputs(df, measures, bool(synthetic), int(steps), int(agents), run0,
                   None if long is None else long.runs[0].head(steps),
                   None if long is None else long.horizon)  # fmt: skip


def _figure(name: str, inp: _Inputs):
    """Draw one figure of :func:`figure_names`; its Figure."""
    from .. import figures as F

    df, measures, synthetic, steps = inp.df, inp.measures, inp.synthetic, inp.steps
    cap = F.frame_caption(df)
    cap0 = cap if inp.run0 is None else F.run_caption(inp.run0)
    if name == "mse_vs_cen_nocol":
        ax = F.plot_vs_baselines(df)
    elif name == "mse_vs_complete":
        ax = F.plot_vs_complete(df)
    elif name == "mse_vs_stars":
        ax = F.plot_vs_stars(df)
    elif name == "mse_every_agent":
        ax = F.plot_agents_mse(df, strategy="baygo")
    elif name == "influence":
        ax = F.plot_influence(df, references=measures.references)
    elif name == "listening_fraction":
        ax = F.plot_listening_fraction(measures.fraction, chance=1.0 / (inp.agents - 1),
                                       synthetic=synthetic, caption=cap)  # fmt: skip
    elif name == "listen_matrix":
        ax = F.plot_listen_matrix(measures.listen_counts, synthetic=synthetic, caption=cap)
    elif name == "graph_union":
        ax = F.draw_graph(
            measures.union, influence=measures.union_influence, synthetic=synthetic,
            caption=cap0, title=f"BayGo, seed 0: union of steps {measures.union_span[0]}.."
            f"{measures.union_span[1]}",
        )  # fmt: skip
    elif name == "window_connectivity":
        ax = F.plot_window_connectivity(measures.windows, synthetic=synthetic, caption=cap0)
    elif name == "smallest_b":
        ax = F.plot_smallest_b(measures.smallest_b, steps=steps, limit=steps // MIN_WINDOWS,
                               synthetic=synthetic, caption=cap)  # fmt: skip
    elif name == "theorem":
        ax = F.plot_theorem(inp.theorem_run,
                            title=f"The paper's bound, BayGo seed 0 (T = {steps})")  # fmt: skip
    elif name == "horizon":
        ax = F.plot_horizon(inp.horizon, synthetic=synthetic, caption=cap)
    else:
        raise ValueError(f"name must be one of {figure_names(long=True)}, got {name!r}")
    return ax.figure


def make_figures(df, measures, *, synthetic, steps, agents, long=None, run0=None) -> dict:
    """The reproduction's figures (:func:`figure_names`): name -> Figure."""
    inp = _inputs(df, measures, synthetic=synthetic, steps=steps, agents=agents, long=long,
                  run0=run0)  # fmt: skip
    return {name: _figure(name, inp) for name in figure_names(long=long is not None)}


def draw(
    df,
    measures,
    *,
    synthetic,
    steps,
    agents,
    long,
    run0,
    out: Path,
    gallery,
    video: bool,
    files: dict,
    notes: list,
    n_jobs=None,
    progress=None,
    animation=None,
) -> float:
    """Draw and write every figure (PNG, PDF, gallery PNG) and the animation of BayGo
    seed 0, spread over the workers (:func:`~baygo_graph.experiments.runner.run_tasks`).

    ``animation``: the animation's task when it was started ahead
    (:func:`start_animation`, e.g. while this process measured the runs); None: it is
    started here, on a worker, beside the figures.

    Each worker draws a figure and renders its files to bytes (:func:`save_figures`'s
    layout, the same bytes), or renders the animation to a temporary folder; this
    process writes every file into ``out`` (atomically, with the folder's record): a
    figure's as soon as it is drawn, the animation's last; ``files`` lists them in the
    order of :func:`figure_names`, then the animation. Returns the animation's own
    time (s, in its worker).
    """
    from ..experiments.runner import reemit_warnings, run_tasks
    from ..io.atomic import atomic_write

    inp = _inputs(df, measures, synthetic=synthetic, steps=steps, agents=agents, long=long,
                  run0=run0)  # fmt: skip
    names = figure_names(long=long is not None)
    wanted = () if gallery is None else tuple(GALLERY)
    if animation is None:
        animation = start_animation(df, run0, synthetic=synthetic, steps=steps, agents=agents,
                                    video=video, n_jobs=n_jobs, figures=len(names))  # fmt: skip
    # the costliest first (the workers then end together), then the ones that need
    # scipy.stats, the costliest last (this process takes tasks from the back); written
    # in the order of names
    by_cost = sorted(names, key=_COSTLIEST.index)
    tasks = [*(n for n in by_cost if n not in _STATS),
             *[n for n in by_cost if n in _STATS][::-1]]  # fmt: skip

    def put(path, data, within):
        atomic_write(path, lambda fh: fh.write(data), within=within, overwrite=True)
        return path

    written: dict = {}

    def write(name, made):
        """A figure's files, written here as soon as its worker has drawn it."""
        for ext in ("png", "pdf"):
            path = put(out / "figures" / f"{name}.{ext}", made.pop(ext), out)
            written[f"figure:{name}:{ext}"] = path
        if "gallery" in made:
            written[f"gallery:{name}"] = put(gallery / f"{name}.png", made.pop("gallery"),
                                             gallery)  # fmt: skip

    caught: list = []
    try:
        run_tasks(_draw_task, tasks, shared=(inp, wanted, bool(video)), n_jobs=n_jobs,
                  progress=progress, desc="figures", first_here=False, on_result=write,
                  notes=caught)  # fmt: skip
        (anim, seconds, anim_notes), anim_caught = animation.result()
    except BaseException:
        animation.cancel()
        raise
    # attributed to the caller of draw, once per category over the figures and animation
    reemit_warnings(caught + anim_caught, len(tasks) + 1)
    for name in names:  # recorded in the order of names
        for role in (f"figure:{name}:png", f"figure:{name}:pdf", f"gallery:{name}"):
            if role in written:
                files[role] = written[role]
    notes.extend(anim_notes)
    for kind, data in anim.items():
        files[f"animation:{kind}"] = put(out / "animation" / f"baygo_seed0.{kind}", data, out)
    return seconds


def start_animation(df, run0, *, synthetic, steps, agents, video, n_jobs, figures):
    """Start the animation of BayGo seed 0 (:func:`animate_seed0`) on a worker now (run
    here, when its result is asked, with one process): a
    :class:`~baygo_graph.experiments.runner.Ahead` for :func:`draw`. It needs the runs
    only, not their measures, so it can run while this process measures them.
    ``figures``: how many figures :func:`draw` spreads beside it (the same workers)."""
    from ..experiments.runner import Ahead

    inp = _inputs(df, None, synthetic=synthetic, steps=steps, agents=agents, run0=run0)
    return Ahead(_draw_task, "animation", shared=(inp, (), bool(video)), n_jobs=n_jobs,
                 n_tasks=figures)  # fmt: skip


def _draw_task(task, shared):
    """One task of :func:`draw`: a figure's files as bytes, or the animation's."""
    import matplotlib.pyplot as plt

    inp, gallery, video = shared
    if task == "animation":
        t0 = time.perf_counter()
        notes: list = []
        from ..io.atomic import temporary_folder, unannounced

        # removed at the end, and by loky's tracker if a stop kills this worker first
        with temporary_folder("baygo-animation-") as tmp, unannounced():
            made: dict = {}  # temporary files, said once put at their names
            animate_seed0(inp.df, inp.run0, tmp, video=video, files=made, notes=notes)
            data = {key.split(":")[1]: path.read_bytes() for key, path in made.items()}
        return data, time.perf_counter() - t0, notes
    fig = _figure(task, inp)
    try:
        box = _settled_box(fig, dpi=130)
        out = {ext: _figure_bytes(fig, ext, dpi=130, box=box) for ext in ("png", "pdf")}
        if task in gallery:
            out["gallery"] = _figure_bytes(fig, "png", dpi=80, box=box)
    finally:
        plt.close(fig)
    return out


#: zlib level of the reproduction's PNG files: 1 (Pillow's default is 6) encodes the
#: 12 figures in 0.30 s of CPU instead of 0.47 s, the files 7% larger (1.38 vs 1.29 MB),
#: the same pixels.
PNG_COMPRESS_LEVEL = 1


def _figure_bytes(fig, fmt: str, *, dpi, box) -> bytes:
    """``fig.savefig`` in ``fmt`` cut to ``box``: the bytes :func:`save_figures` writes."""
    from ..figures._style import figure_metadata

    buf = io.BytesIO()
    meta = figure_metadata(fig, fmt) or None  # the SYNTHETIC mark as text too
    fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches=box, metadata=meta, **_encoding(fmt))
    return buf.getvalue()


def _encoding(fmt: str) -> dict:
    """``savefig`` keywords of the encoder for ``fmt`` (the PNG's zlib level)."""
    return {"pil_kwargs": {"compress_level": PNG_COMPRESS_LEVEL}} if fmt == "png" else {}


def save_figures(figs, out: Path, *, gallery: Path | None, files: dict) -> None:
    """Write each figure as PNG and PDF (and the gallery's PNG), laid out once.

    Each figure's layout (constrained layout) and its tight bounding box are computed
    once, at the PNG's resolution, and every file is cut to that box: ``savefig``
    with ``bbox_inches="tight"`` would lay out and measure the figure again for each
    file (two of the three draws a file took).
    """
    import matplotlib.pyplot as plt

    from ..io.atomic import atomic_figure

    fig_dir = out / "figures"
    for name, fig in figs.items():
        box = _settled_box(fig, dpi=130)
        for ext in ("png", "pdf"):
            path = fig_dir / f"{name}.{ext}"
            atomic_figure(fig, path, within=out, overwrite=True, dpi=130, bbox_inches=box,
                          **_encoding(ext))  # fmt: skip
            files[f"figure:{name}:{ext}"] = path
        if gallery is not None and name in GALLERY:
            path = gallery / f"{name}.png"
            atomic_figure(fig, path, within=gallery, overwrite=True, dpi=80, bbox_inches=box,
                          **_encoding("png"))  # fmt: skip
            files[f"gallery:{name}"] = path
        plt.close(fig)


def _settled_box(fig, *, dpi):
    """Lay ``fig`` out once at ``dpi`` and fix that layout; its tight bounding box
    (inches, padded by ``savefig.pad_inches``): what ``bbox_inches="tight"`` computes.

    The layout engine runs alone, not inside a draw of the whole figure (the box and
    the files are the same; the draw took a third of the time). The engine is then
    removed, not left as a placeholder: with any engine set, ``savefig`` draws the
    whole figure once more before it prints it (about 15% of a figure's CPU time; the
    PNG files are the same, a PDF's coordinates may move in their last digit, 1e-10
    point)."""
    import matplotlib as mpl

    old = fig.dpi
    fig.set_dpi(dpi)
    try:
        renderer = fig._get_renderer()
        engine = fig.get_layout_engine()
        if engine is not None and fig.axes:  # as Figure.draw runs it
            engine.execute(fig)
        with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)  # None, not "none": no layout and no draw in savefig
        box = fig.get_tightbbox(renderer)
    finally:
        fig.set_dpi(old)
    pad = mpl.rcParams["savefig.pad_inches"]
    return box.padded(pad, pad)


def union_and_influence(run, start, stop):
    """Mean W of steps ``start .. stop-1`` (the union graph's weights) and its
    influence vector (None where it is not unique)."""
    from ..analysis import influence, window_matrix

    union = window_matrix(run, start, stop, method="union")
    pi = np.asarray(influence(union, on_nonunique="nan"), dtype=float)
    return union, (None if np.isnan(pi).any() else pi)


def run_influence(run, *, window=10):
    """Per-step influence of one run as in :func:`~baygo_graph.experiments.compare`.

    The left Perron vector of the product of the weight matrices over the
    sliding window of ``window`` steps (at most T) ending at each step (NaN
    where not unique); None for the centralised learner.
    """
    if run.series is None:  # a centralised learner
        return None
    from ..analysis import influence_series

    window = min(int(window), run.n_steps)
    return influence_series(run, window=window, method="product", windows="sliding").values


def run_figures(run, *, window=10) -> dict:
    """The figures of one run (``baygo plot``): name -> matplotlib Figure.

    Every agent's MSE; for runs with a graph also the last step's graph, the
    union of the last ``window`` steps, the influence series with the
    reference levels, the per-window connectivity; for BayGo runs also who
    listens to whom and the informative agent's audience.
    """
    from .. import analysis
    from .. import figures as F

    syn, cap = run.synthetic, F.run_caption(run)
    figs = {"mse_every_agent": F.plot_agents_mse(run).figure}
    if run.series is None:  # a centralised learner: no graph
        return figs
    t, m = run.n_steps, run.n_agents
    infl = run_influence(run, window=window)
    # the paper's fixed references (equal weights): defined whatever delta
    refs = analysis.reference_influence(m, informative=run.informative)
    figs["graph_last_step"] = F.draw_graph(
        run.graph(t - 1), influence=infl[t - 1], synthetic=syn, title=f"step {t - 1}", caption=cap
    ).figure
    start = max(0, t - window)
    union, u_infl = union_and_influence(run, start, t)
    figs["graph_union"] = F.draw_graph(
        union, influence=u_infl, informative=run.informative, synthetic=syn,
        title=f"union of steps {start}..{t - 1}", caption=cap,
    ).figure  # fmt: skip
    figs["influence"] = F.plot_influence_series(
        infl, informative=run.informative, references=refs, synthetic=syn,
        title="Influence (product of W over sliding windows of "
              f"{counted(window, 'step')})", caption=cap,
    ).figure  # fmt: skip
    windows = analysis.b_connectivity(run, max(1, min(window, t)), windows="aligned")
    figs["window_connectivity"] = F.plot_window_connectivity(
        windows, synthetic=syn, caption=cap
    ).figure
    if run.choices is not None:  # whom each agent chose: BayGo-like runs
        figs["listen_matrix"] = F.plot_listen_matrix(
            analysis.listen_counts(run), informative=run.informative, synthetic=syn, caption=cap
        ).figure
        figs["listening_fraction"] = F.plot_listening_fraction(
            analysis.listener_fraction(run), chance=1.0 / (m - 1), synthetic=syn, caption=cap
        ).figure
    return figs


#: Most frames of the reproduction's animation (a longer run shows evenly spaced steps).
ANIMATION_FRAMES = 240


def animate_seed0(df, show, anim_dir: Path, *, video: bool, files: dict, notes: list) -> None:
    """The animation of BayGo seed 0: a GIF, and an MP4 when an ffmpeg writer exists."""
    import matplotlib.pyplot as plt

    from ..figures import animate_run, ffmpeg_path, save_animation

    infl = table_array(df, "baygo", value="influence")[0]
    frames = None
    if show.n_steps > ANIMATION_FRAMES:  # a long run: evenly spaced steps, first and last kept
        frames = np.unique(np.linspace(0, show.n_steps - 1, ANIMATION_FRAMES).round().astype(int))
        notes.append(f"the animation shows {len(frames)} evenly spaced steps of {show.n_steps}")
    anim = animate_run(show, influence=infl, steps=frames)
    paths = {"gif": anim_dir / "baygo_seed0.gif"}
    if video:
        if ffmpeg_path() is None:
            from ..figures.video import VIDEO_HINT

            notes.append(f"no MP4 written: {VIDEO_HINT}")
        else:
            paths["mp4"] = anim_dir / "baygo_seed0.mp4"
    # every frame rendered once, written to both files
    for kind, path in zip(
        paths, save_animation(anim, list(paths.values()), overwrite=True), strict=True
    ):
        files[f"animation:{kind}"] = path
    plt.close(anim.figure)
