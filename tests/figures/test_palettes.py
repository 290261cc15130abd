"""Seaborn's look as fixed values (figures/_palettes.py) against seaborn itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

from baygo_graph.figures._palettes import SEABORN_LOOK, colorblind, crest

sns = pytest.importorskip("seaborn")


def test_the_rc_values_are_seaborns_whitegrid_notebook_look_but_its_colormap():
    context = sns.plotting_context("notebook", font_scale=0.9)
    seaborn = dict(sns.axes_style("whitegrid")) | dict(context)
    assert set(seaborn) - set(SEABORN_LOOK) == {"image.cmap"}
    assert set(SEABORN_LOOK) <= set(seaborn)
    for key, value in SEABORN_LOOK.items():
        assert value == seaborn[key], key
        assert type(value) is type(seaborn[key]), key


def test_the_rc_values_set_matplotlib_as_seaborn_does():
    import matplotlib as mpl

    with sns.axes_style("whitegrid"), sns.plotting_context("notebook", font_scale=0.9):
        theirs = {k: mpl.rcParams[k] for k in SEABORN_LOOK}
    with mpl.rc_context(SEABORN_LOOK):
        ours = {k: mpl.rcParams[k] for k in SEABORN_LOOK}
    assert ours == theirs


def test_the_palettes_are_seaborns():
    assert colorblind() == list(sns.color_palette("colorblind", n_colors=10))
    for n in [1, 2, 3, 11, 12, 40, 255, 300]:
        assert crest(n) == list(sns.color_palette("crest", n_colors=n)), n


def test_drawing_does_not_import_seaborn_nor_scipy_stats():
    """Seaborn's look without seaborn; seed bands' t quantiles without scipy.stats (each
    ~0.5-0.8 s of CPU to import in every process that draws)."""
    code = (
        "import sys, numpy as np\n"
        "from baygo_graph import figures as F, simulate, synthetic_bodyfat\n"
        "from baygo_graph.models import LinearRegression\n"
        "run = simulate('baygo', agents=3, steps=4, model=LinearRegression(grid=21), rng=0,"
        " data=synthetic_bodyfat())\n"
        "F.plot_agents_mse(run).figure.canvas.draw()\n"
        "F.plot_influence_series(np.full((4, 3), 1 / 3), informative=0).figure.canvas.draw()\n"
        "from baygo_graph.experiments import compare\n"
        "res = compare(['baygo', 'nocol'], seeds=3, steps=3, agents=3, n_jobs=1, tidy=False,"
        " progress=False, model=LinearRegression(grid=11), data=synthetic_bodyfat())\n"
        "F.plot_mse(res).figure.canvas.draw()\n"
        "assert 'seaborn' not in sys.modules, 'seaborn'\n"
        "assert 'scipy.stats' not in sys.modules, 'scipy.stats'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**__import__("os").environ, "MPLBACKEND": "Agg"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
