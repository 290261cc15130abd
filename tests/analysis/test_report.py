"""analysis.report: the one-run report of `baygo analyze`."""

from __future__ import annotations

import numpy as np
import pytest

from baygo_graph import Run
from baygo_graph.analysis import analysis_report, reference_influence, smallest_b


def test_report_numbers_come_from_the_analysis_functions():
    run = Run.from_choices([[1, 0, 0], [2, 0, 1], [1, 2, 0], [2, 0, 1]], delta=0.5)
    rep = analysis_report(run, window=2)
    assert rep["smallest_b"]["sliding"] == smallest_b(run, windows="sliding")
    ref = reference_influence(3, informative=0, delta=0.5)
    assert rep["references"] == ref


def test_delta_one_has_no_reference_and_no_error():
    run = Run.from_choices(np.array([[1, 0, 0], [2, 0, 1]]), delta=1.0)
    rep = analysis_report(run, window=2)
    assert "references" not in rep and rep["listening_to_informative"]["mean"] == 0.0
    with pytest.raises(Exception, match="not unique"):
        reference_influence(3, informative=0, delta=1.0, weights="delta")
