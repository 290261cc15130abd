"""Figures of the reproduction and of a single run (what ``baygo plot`` draws).

:func:`make_figures` draws the paper's figures from the comparison table and the
measures of the BayGo runs; :func:`save_figures` writes them (PNG and PDF, and
the README gallery); :func:`run_figures` and :func:`run_influence` serve one run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..analysis.tables import table_array
from .claims import MIN_WINDOWS
from .report import GALLERY

__all__ = [
    "ANIMATION_FRAMES",
    "animate_seed0",
    "make_figures",
    "run_figures",
    "run_influence",
    "save_figures",
    "union_and_influence",
]


def make_figures(df, measures, *, synthetic, steps, agents, long=None, run0=None):
    from .. import figures as F

    cap = F.frame_caption(df)
    cap0 = cap if run0 is None else F.run_caption(run0)
    made = {
        "mse_vs_cen_nocol": F.plot_vs_baselines(df),
        "mse_vs_complete": F.plot_vs_complete(df),
        "mse_vs_stars": F.plot_vs_stars(df),
        "mse_every_agent": F.plot_agents_mse(df, strategy="baygo"),
        "influence": F.plot_influence(df, references=measures.references),
        "listening_fraction": F.plot_listening_fraction(
            measures.fraction, chance=1.0 / (agents - 1), synthetic=synthetic, caption=cap
        ),
        "listen_matrix": F.plot_listen_matrix(
            measures.listen_counts, synthetic=synthetic, caption=cap
        ),
        "graph_union": F.draw_graph(
            measures.union,
            influence=measures.union_influence,
            synthetic=synthetic,
            caption=cap0,
            title=f"BayGo, seed 0: union of steps {measures.union_span[0]}.."
            f"{measures.union_span[1]}",
        ),
        "window_connectivity": F.plot_window_connectivity(
            measures.windows, synthetic=synthetic, caption=cap0
        ),
        "smallest_b": F.plot_smallest_b(
            measures.smallest_b,
            steps=steps,
            limit=steps // MIN_WINDOWS,
            synthetic=synthetic,
            caption=cap,
        ),
    }
    if long is not None:
        made["theorem"] = F.plot_theorem(
            long.runs[0].head(steps), title=f"The paper's bound, BayGo seed 0 (T = {steps})"
        )
        made["horizon"] = F.plot_horizon(long.horizon, synthetic=synthetic, caption=cap)
    return {name: ax.figure for name, ax in made.items()}


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
            atomic_figure(fig, path, within=out, dpi=130, bbox_inches=box)
            files[f"figure:{name}:{ext}"] = path
        if gallery is not None and name in GALLERY:
            path = gallery / f"{name}.png"
            atomic_figure(fig, path, within=gallery, dpi=80, bbox_inches=box)
            files[f"gallery:{name}"] = path
        plt.close(fig)


def _settled_box(fig, *, dpi):
    """Lay ``fig`` out once at ``dpi`` and fix that layout; its tight bounding box
    (inches, padded by ``savefig.pad_inches``): what ``bbox_inches="tight"`` computes."""
    import matplotlib as mpl

    old = fig.dpi
    fig.set_dpi(dpi)
    try:
        fig.draw_without_rendering()  # runs the layout engine
        fig.set_layout_engine("none")
        box = fig.get_tightbbox(fig._get_renderer())
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
    refs = (  # delta = 1: agents keep only their own posterior, no reference is defined
        analysis.reference_influence(m, informative=run.informative, delta=run.delta)
        if run.delta < 1
        else None
    )
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
        title=f"Influence (product of W over sliding windows of {window} steps)", caption=cap,
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
    for kind, path in zip(paths, save_animation(anim, list(paths.values())), strict=True):
        files[f"animation:{kind}"] = path
    plt.close(anim.figure)
