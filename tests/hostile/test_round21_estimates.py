"""Memory checks against the stages they count (hostile19 X3, hostile17 V3 residue).

Each estimate must stay at or above its stage's tracemalloc peak (an under-count lets
a run pass and then exceed the budget) and within 2x of it (an over-count refuses runs
that fit): the analysis' first check, the influence's, and the viewer's, over a few
shapes (a many-leaf star, rings, random contacts, a 2-node span). Not timed; the peaks
at scale are in ``benchmarks/bench_estimates.py``.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph import limits
from baygo_graph.analysis import analysis_report, influence_series
from baygo_graph.analysis.centrality import influence_bytes
from baygo_graph.analysis.report import analysis_stage_bytes
from baygo_graph.figures import html


def _series(kind: str, n: int, t: int):
    rng = np.random.default_rng(0)
    if kind == "star":  # hub 0 to n leaves, leaf k at step k % t
        k = np.arange(1, n + 1)
        df = pd.DataFrame({"source": 0, "target": k, "time": k % t})
    elif kind == "ring":
        k = np.arange(n)
        df = pd.DataFrame({"source": np.tile(k, t), "target": np.tile((k + 1) % n, t),
                           "time": np.repeat(np.arange(t), n)})  # fmt: skip
    elif kind == "random":  # n contacts among 2,000 text labels (a coarse layout)
        df = pd.DataFrame({"source": [f"n{v}" for v in rng.integers(0, 2000, n)],
                           "target": [f"n{v}" for v in rng.integers(0, 2000, n)],
                           "time": rng.integers(0, t, n)})  # fmt: skip
    else:  # n contacts between 2 nodes over t steps
        df = pd.DataFrame({"source": "a", "target": "b",
                           "time": np.linspace(0, t - 1, n).astype(int)})  # fmt: skip
    return bg.as_series(df)


def _peak(call) -> int:
    call()  # first-use imports are no part of the stage
    tracemalloc.start()
    try:
        at = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1] - at
    finally:
        tracemalloc.stop()


SHAPES = [("star", 30_000, 3), ("ring", 20_000, 2), ("ring", 3_000, 10),
          ("random", 10_000, 50), ("span", 2, 20_000), ("span", 3_000, 3_000)]  # fmt: skip


@pytest.fixture(scope="module", params=SHAPES, ids=lambda p: f"{p[0]}-{p[1]}x{p[2]}")
def shaped(request):
    return _series(*request.param)


def _within(need: int, peak: int, what: str, fixed: int = 0) -> None:
    """``peak <= need <= 2 peak`` beside the estimate's fixed part (what a command's first
    call adds: the modules' first use, not in the warm peak measured here)."""
    assert peak <= need <= 2 * peak + fixed, f"{what}: estimate {need:,} B, peak {peak:,} B"


def test_the_analysis_check_counts_the_report(shaped):
    s = shaped
    t, m, w = s.n_steps, s.n_agents, min(10, s.n_steps)
    need = limits.ANALYSIS_BYTES_PER_STEP * t + 16 * t * m + analysis_stage_bytes(s, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _within(need, _peak(lambda: analysis_report(s, window=w)), "analysis", 1 << 20)


@pytest.mark.parametrize("method", ["product", "union"])
def test_the_influence_check_counts_the_influence(shaped, method):
    s = shaped
    w = min(10, s.n_steps)
    peak = _peak(lambda: influence_series(s, window=w, method=method, windows="sliding"))
    need = influence_bytes(s, w)
    assert need >= peak, f"{method}: estimate {need:,} B, peak {peak:,} B"
    if method == "union":  # the larger of the two: the one counted
        assert need <= 2 * peak, f"estimate {need:,} B, peak {peak:,} B"


def test_the_viewer_check_counts_the_page(shaped, tmp_path):
    s = shaped
    w = min(10, s.n_steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peak = _peak(lambda: html.to_html(s, tmp_path / "v.html", window=w, overwrite=True))
    need = html._viewer_bytes(s, window=w, layout="auto")
    _within(need, peak, "viewer", html._VIEWER_BYTES_FIXED)
