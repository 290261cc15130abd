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


def _chain_run():
    # a run of 12 steps over 4 agents, node labels 0..3
    return Run.from_choices([[1, 2, 3, 0]] * 12)


@pytest.mark.parametrize(
    ("option", "value", "error", "said"),
    [
        ("window", 3.0, TypeError, r"window must be an integer in \[1, 12\], got float 3.0"),
        ("window", "3", TypeError, "window must be an integer in .* got str '3'"),
        ("window", True, TypeError, "window must be an integer"),
        ("window", np.array([3]), TypeError, "got ndarray"),
        ("window", 13, ValueError, r"window must be an integer in \[1, 12\], got 13"),
        ("window", np.uint8(0), ValueError, "got 0"),
        ("stride", 1.5, TypeError, "stride must be an integer >= 1"),
        ("stride", np.True_, TypeError, "stride must be an integer"),
        ("focus", True, TypeError, "focus must be a node label, got a bool True"),
        ("focus", np.True_, TypeError, "focus must be a node label, got a bool"),
        ("focus", np.float16(1), ValueError, r"focus=np.float16\(1.0\) is not a node"),
        ("focus", 1.0, ValueError, "focus=1.0 is not a node"),
        ("focus", [1], ValueError, r"focus=\[1\] is not a node"),
    ],
)
def test_report_options_are_checked_by_name(option, value, error, said):
    # hostile21 Z3: numpy scalars, bools, floats and text went through unchecked (a JSON
    # failure, numpy's OverflowError, "'<=' not supported", focus=True following node 1)
    with pytest.raises(error, match=said):
        analysis_report(_chain_run(), **{option: value})


@pytest.mark.parametrize(
    ("option", "value", "kept"),
    [("window", np.int64(3), 3), ("window", np.uint8(3), 3), ("stride", np.int32(2), 2),
     ("focus", np.int64(1), 1), ("focus", "1", 1), ("focus", 1, 1)],
)  # fmt: skip
def test_numpy_integers_and_command_line_text_are_taken_as_the_plain_value(option, value, kept):
    import json

    r = analysis_report(_chain_run(), **{option: value})
    assert getattr(r, option) == kept and type(getattr(r, option)) is int
    doc = json.loads(json.dumps(r.as_dict()))  # JSON-able, the value itself
    assert (doc["influence"]["union"] if option == "stride" else doc)[option] == kept


@pytest.mark.parametrize("rule", [True, np.True_, np.False_, 1.5, -0.1, "abc", None, 1j])
def test_a_self_weight_that_is_no_number_in_0_1_is_refused(rule):
    from baygo_graph.series import check_self_weight

    with pytest.raises(ValueError, match="self_weight must be 'equal' or a number in"):
        check_self_weight(rule)
