"""Every figure the toolkit draws: no text over another text, none off the canvas.

Bounding boxes of the visible text artists (titles, labels, tick labels, legend
entries, captions, annotations) come from the Agg renderer after a draw; the
"SYNTHETIC DATA" watermark is meant to lie over the plot and is left out.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import baygo_graph as bg  # noqa: E402
from baygo_graph.figures import SYNTHETIC_GID  # noqa: E402
from baygo_graph.reproduce import DEFAULT_REGIME, FIGURES, reproduce  # noqa: E402
from baygo_graph.reproduce import pipeline as pipeline_module  # noqa: E402
from baygo_graph.reproduce.drawing import make_figures, run_figures  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::baygo_graph.exceptions.GridResolutionWarning"),
    pytest.mark.filterwarnings("ignore:More than 20 figures:RuntimeWarning"),  # kept to check
]

#: Pixels two boxes may share (antialiasing, rounding of the renderer's extents).
SLACK = 1.0


def text_boxes(fig):
    """(artist, display bbox) of every visible, non-empty text of ``fig`` but the watermark."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    out, undrawn = [], _undrawn_tick_labels(fig)
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or t.get_gid() == SYNTHETIC_GID:
            continue
        if id(t) in undrawn:
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        out.append((t, t.get_window_extent(renderer)))
    return out


def _undrawn_tick_labels(fig) -> set:
    """ids of the tick labels matplotlib keeps but does not draw (ticks off the view)."""
    out = set()
    axes = list(fig.axes)
    axes += [child for ax in fig.axes for child in ax.child_axes]  # insets
    for ax in axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            tol = 1e-9 * max(1.0, abs(hi - lo))
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - tol <= tick.get_loc() <= hi + tol:
                    out |= {id(tick.label1), id(tick.label2)}
    return out


def _tick_of_same_axis(a, b) -> bool:
    """Both are rotated tick labels of one axis (their axis-aligned boxes overlap by
    construction when rotated; their spacing is the locator's)."""
    rotated = (a.get_rotation() % 90) != 0 and (b.get_rotation() % 90) != 0
    return rotated and a.axes is b.axes and a.axes is not None and a.get_gid() is None


def layout_problems(fig) -> list:
    """Texts that overlap another or leave the canvas, as readable strings."""
    boxes = text_boxes(fig)
    canvas = fig.bbox
    problems = []
    for t, box in boxes:
        if (box.x0 < canvas.x0 - SLACK or box.y0 < canvas.y0 - SLACK
                or box.x1 > canvas.x1 + SLACK or box.y1 > canvas.y1 + SLACK):  # fmt: skip
            problems.append(f"off the canvas: {t.get_text()!r}")
    for (a, ba), (b, bb) in itertools.combinations(boxes, 2):
        w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
        h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
        if w > SLACK and h > SLACK and not _tick_of_same_axis(a, b):
            problems.append(f"overlap: {a.get_text()!r} and {b.get_text()!r}")
    return problems


@pytest.fixture(scope="module")
def every_figure(tmp_path_factory):
    """The reproduction's figures (tiny synthetic run) and the figures of single runs."""
    figs = {}

    def keep(made, out, *, gallery, files):
        figs.update(made)

    def drawn(df, measures, *, synthetic, steps, agents, long, run0, **_):
        figs.update(make_figures(df, measures, synthetic=synthetic, steps=steps, agents=agents,
                                 long=long, run0=run0))  # fmt: skip
        return 0.0

    mp = pytest.MonkeyPatch()
    mp.setattr(pipeline_module, "save_figures", keep)  # the regime map's
    mp.setattr(pipeline_module, "draw", drawn)  # the others: drawn here, not written
    try:
        reproduce(tmp_path_factory.mktemp("layout"), seeds=3, steps=12, grid=11, n_jobs=1,
                  data=bg.synthetic_bodyfat(), video=False, horizons=(12, 16),
                  regimes=[DEFAULT_REGIME | {"grid": 11}, DEFAULT_REGIME | {"grid": 11,
                                                                             "delta": 0.3}],
                  regime_seeds=2, regime_max_seeds=2)  # fmt: skip
    finally:
        mp.undo()
    for strategy in ("baygo", "complete", "cen"):
        run = bg.simulate(strategy, agents=6, steps=12, rng=0, data=bg.synthetic_bodyfat(),
                          model=bg.models.LinearRegression(grid=11))  # fmt: skip
        figs |= {f"run:{strategy}:{k}": v for k, v in run_figures(run).items()}
    yield figs
    for fig in figs.values():
        plt.close(fig)


def test_every_reproduction_figure_is_checked(every_figure):
    assert set(FIGURES) <= set(every_figure)


def test_no_text_overlaps_another_or_leaves_the_canvas(every_figure):
    problems = {name: layout_problems(fig) for name, fig in every_figure.items()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_the_check_finds_an_overlap_and_a_text_off_the_canvas():
    fig, ax = plt.subplots()
    ax.set_title("a title")
    ax.text(0.5, 1.02, "over the title", transform=ax.transAxes, ha="center")
    fig.text(1.05, 0.5, "off the canvas")
    found = layout_problems(fig)
    assert any(p.startswith("overlap") and "over the title" in p for p in found)
    assert any(p.startswith("off the canvas") for p in found)
    plt.close(fig)


def test_bands_of_bounded_quantities_stay_in_range(every_figure):
    # the listening share and the influence are shares: their bands stay in [0, 1]
    for name in ("listening_fraction", "influence"):
        ax = every_figure[name].axes[0]
        for coll in ax.collections:
            if (coll.get_gid() or "").startswith("band"):
                ys = np.concatenate([p.vertices[:, 1] for p in coll.get_paths()])
                assert ys.min() >= -1e-12 and ys.max() <= 1 + 1e-12, name
    # MSE bands are positive
    ax = every_figure["mse_vs_complete"].axes[0]
    for coll in ax.collections:
        if (coll.get_gid() or "").startswith("band:"):
            ys = np.concatenate([p.vertices[:, 1] for p in coll.get_paths()])
            assert ys.min() > 0
