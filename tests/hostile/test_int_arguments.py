"""Round 16, U3: integer arguments of public functions taken as Python ints, checked:
numpy fixed-width integers give the int's answer (never an overflow in their own width),
fractions, bools and texts are refused naming the argument."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.analysis.windows import window_bounds, window_components
from baygo_graph.models import LinearRegression


@pytest.mark.parametrize("kind", [np.uint8, np.int8, np.int16, np.uint16, np.int64])
def test_numpy_integers_run_as_the_int(kind):
    kw = {"model": LinearRegression(grid=5), "rng": 0, "progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow in the budget's sums
        warnings.filterwarnings("ignore", category=UserWarning)
        got = bg.simulate("baygo", agents=kind(3), steps=kind(4), batch=kind(2), **kw)
        want = bg.simulate("baygo", agents=3, steps=4, batch=2, **kw)
    np.testing.assert_array_equal(got.mse, want.mse)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((24, 3.5), TypeError, "length must be an integer >= 1, got float 3.5"),
        ((24, 0), ValueError, "length must be an integer >= 1, got 0"),
        ((24, True), TypeError, "length must be an integer >= 1, got bool"),
        ((-1, 2), ValueError, "n_steps must be an integer >= 0, got -1"),
    ],
)
def test_window_bounds_refuses_what_is_no_window_length(args, error, match):
    with pytest.raises(error, match=match):
        window_bounds(*args)
    start, stop = window_bounds(np.int16(6), np.uint8(4), windows="sliding")
    assert (start.tolist(), stop.tolist()) == ([0, 1, 2], [4, 5, 6])


@pytest.mark.parametrize(
    ("start", "stop", "error", "match"),
    [
        (0, -1, ValueError, r"stop must be an integer in \[1, 3\], got -1"),
        (0, 3.0, TypeError, r"stop must be an integer in \[1, 3\], got float"),
        (3, 3, ValueError, r"start must be an integer in \[0, 2\], got 3"),
        (1, 1, ValueError, r"stop must be an integer in \[2, 3\], got 1"),
    ],
)
def test_window_components_refuses_what_window_matrix_refuses(start, stop, error, match):
    import networkx as nx

    s = bg.as_series([nx.DiGraph([(0, 1)]), nx.DiGraph([(1, 0)]), nx.DiGraph([(0, 1)])])
    with pytest.raises(error, match=match):
        window_components(s, start, stop)
    assert window_components(s, np.int8(0), np.uint8(2)) == 1
