"""figures.plot_theorem: the errors are drawn visibly, on top of the bounds."""

from __future__ import annotations

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.figures import plot_theorem
from baygo_graph.models import LinearRegression
from baygo_graph.monitors import TheoremMonitor

pytestmark = pytest.mark.filterwarnings("ignore::baygo_graph.exceptions.GridResolutionWarning")


def test_errors_are_on_top_and_inside_the_view():
    run = bg.simulate("baygo", agents=4, steps=12, model=LinearRegression(grid=21), rng=0,
                      data=bg.synthetic_bodyfat(), monitors=[TheoremMonitor()])  # fmt: skip
    ax = plot_theorem(run)
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    errors = [ln for label, ln in lines.items() if label.startswith("error")]
    bounds = [ln for label, ln in lines.items() if label.startswith("bound")]
    assert len(errors) == 2 and len(bounds) == 3
    # drawn above every bound line and the line at 1, thick enough to see
    assert min(e.get_zorder() for e in errors) > max(b.get_zorder() for b in bounds)
    assert all(e.get_linewidth() >= 2 for e in errors)
    lo, hi = ax.get_ylim()
    lhs = run.records["theorem_lhs"]
    assert lo <= lhs[lhs > 0].min() and lhs.max() <= hi
    # a bound off the top of the view says so in its label
    for b in bounds:
        y = b.get_ydata()
        if np.all(y > hi):
            assert "vacuous" in b.get_label()
    # the linear inset shows the error alone
    (inset,) = list(ax.child_axes)
    assert inset.get_yscale() == "linear" and len(inset.get_lines()) == 2
