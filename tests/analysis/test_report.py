"""analysis.report: the one-run report of `baygo analyze`."""

from __future__ import annotations

import numpy as np
import pytest

from baygo_graph import Run
from baygo_graph.analysis import (
    analysis_report,
    influence_series,
    reference_influence,
    smallest_b,
)


def test_report_numbers_come_from_the_analysis_functions():
    run = Run.from_choices([[1, 0, 0], [2, 0, 1], [1, 2, 0], [2, 0, 1]], delta=0.5)
    report = analysis_report(run, window=2)
    rep = report.as_dict()
    assert rep["smallest_b"]["sliding"] == smallest_b(run, windows="sliding").B
    assert report.smallest_b["aligned"] == smallest_b(run, windows="aligned")
    ref = reference_influence(3, informative=0, delta=0.5)
    assert rep["references"] == ref
    # the influence is the influence_series result, and the JSON carries no prose
    r = report.influence["product"]
    np.testing.assert_array_equal(
        r.values, influence_series(run, window=2, windows="sliding").values
    )
    assert "text" not in rep["smallest_b_coverage"]["aligned"] and rep["self_weight"] is None
    with pytest.warns(FutureWarning, match="as_dict"):
        assert report["steps"] == 4


def test_references_are_the_papers_fixed_baselines_whatever_delta():
    """The references are the equal-weight baselines' influence, which no delta changes:
    a delta = 1 run has them too (U4: they came and went with the door a run came in by)."""
    run = Run.from_choices(np.array([[1, 0, 0], [2, 0, 1]]), delta=1.0)
    rep = analysis_report(run, window=2).as_dict()
    assert rep["references"] == {"posm": 3 / 7, "negm": 2 / 7, "complete": 1 / 3}
    assert rep["listening_to_informative"]["mean"] == 0.0
    with pytest.raises(Exception, match="not unique"):
        reference_influence(3, informative=0, delta=1.0, weights="delta")


@pytest.mark.parametrize("weights", ["equal", "uniform", "delta", "edge"])
@pytest.mark.parametrize("m", [2, 3, 7, 30])
@pytest.mark.parametrize("delta", [0.0, 0.3, 0.9])
def test_reference_closed_forms_equal_the_solve_on_the_strategies_matrices(weights, m, delta):
    from baygo_graph.analysis import influence
    from baygo_graph.strategies import resolve_strategy

    got = reference_influence(m, informative=m - 1, delta=delta, weights=weights)
    for name in ("posm", "negm", "complete"):
        strat = resolve_strategy(name, agents=m, informative=m - 1, weights=weights)
        pi = influence(strat.matrix(m, delta=delta))
        assert got[name] == pytest.approx(float(pi[m - 1]), rel=1e-12, abs=0)


def test_reference_of_a_large_population_builds_no_graph():
    ref = reference_influence(10**7)  # an M x M graph would need ~10^14 edges
    assert ref == {"posm": 10**7 / (3 * 10**7 - 2), "negm": 2 / (3 * 10**7 - 2), "complete": 1e-7}


def test_a_long_span_is_refused_before_its_windows_are_answered(monkeypatch):
    """Two contacts 10^6 steps apart: the series is small, the analysis is not; refused
    at once, naming its size, before any window is answered (hostile7 K7)."""
    import pandas as pd

    import baygo_graph as bg
    from baygo_graph.exceptions import BudgetError

    df = pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"], "time": [0, 10**6 - 1]})
    s = bg.as_series(df)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "150MiB")
    with pytest.raises(BudgetError, match=r"the analysis of 1000000 steps x 2 nodes .*--bin"):
        analysis_report(s)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "4GiB")
    small = bg.as_series(df.assign(time=[0, 9]))
    assert analysis_report(small).steps == 10


@pytest.mark.parametrize("strategy", ["complete", "nocol", "posm", "negm", "baygo"])
def test_one_run_gives_one_report_through_every_door(strategy, tmp_path):
    """In memory, after Run.save/Run.load, and from its saved series: the same top order,
    top agent, references and numbers (U4: 1e-16 noise among exact ties named another
    top agent after a reload; delta and references changed with the door)."""
    import warnings

    from baygo_graph import as_series, simulate, write_series

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = simulate(strategy, agents=5, steps=6, rng=3, delta=1.0, progress=False)
    run.save(tmp_path / "run")
    write_series(run, tmp_path / "run.json")
    doors = {
        "memory": run,
        "Run.load": Run.load(tmp_path / "run"),
        "json": as_series(tmp_path / "run.json"),
    }
    reps = {k: analysis_report(v, window=2).as_dict() for k, v in doors.items()}
    first = reps["memory"]
    for door, rep in reps.items():
        for method in ("product", "union"):
            got, want = rep["influence"][method], first["influence"][method]
            assert [n for n, _ in got["top"]] == [n for n, _ in want["top"]], door
            assert (got["top_agent"], got["top_tied"]) == (want["top_agent"], want["top_tied"])
            np.testing.assert_allclose(
                [v for _, v in got["top"]], [v for _, v in want["top"]], rtol=1e-12
            )
        assert rep["references"] == first["references"], door
    assert reps["Run.load"]["delta"] == first["delta"]
