"""The memory budget bounds the process's peak: every check counts what the process holds.

The arithmetic is tested with ``limits.process_memory`` set to known values (the
suite's conftest sets it to 0 for every other test); the real measurement only for
being a positive size here and 0 where psutil fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest

import baygo_graph as bg
from baygo_graph import limits
from baygo_graph.exceptions import BudgetError
from baygo_graph.limits import (
    ADVICE_MARGIN,
    check_analysis_budget,
    check_budget,
    memory_budget,
    parse_bytes,
)
from baygo_graph.models import LinearRegression

REAL_PROCESS_MEMORY = limits.process_memory  # before the conftest fixture replaces it
MiB = 2**20


@pytest.fixture
def holds(monkeypatch):
    """``holds(n)``: the process is taken to hold ``n`` bytes; the machine has 64 GiB."""
    monkeypatch.setattr(limits, "physical_memory", lambda: 64 * 2**30)

    def set_held(nbytes: int) -> None:
        monkeypatch.setattr(limits, "process_memory", lambda: nbytes)

    return set_held


def _advised(message: str) -> str:
    return re.search(r"BAYGO_MEMORY_LIMIT=(\S+) or more to (?:run|read) it$", message).group(1)


def test_the_check_counts_what_the_process_holds(holds, monkeypatch):
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "150MiB")
    holds(100 * MiB)
    assert check_budget(50 * MiB, what="x") == 50 * MiB  # 100 + 50 = the budget: passes
    with pytest.raises(BudgetError) as info:
        check_budget(50 * MiB + 1, what="an array of 3 x 4")
    message = str(info.value)
    assert message.startswith(
        "an array of 3 x 4 needs about 50.0 MiB on top of 100.0 MiB held, over the memory "
        "budget of 150.0 MiB (BAYGO_MEMORY_LIMIT=150MiB): set "
        "BAYGO_MEMORY_LIMIT="
    )
    assert "\n" not in message and len(message) <= 300
    # the advice counts what is held, with a margin: following it passes, and still does
    # when the process holds a few per cent more at the same point of the next run
    advised = parse_bytes(_advised(message))
    assert ADVICE_MARGIN * (150 * MiB) <= advised <= 1.11 * ADVICE_MARGIN * (150 * MiB)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", _advised(message))
    holds(104 * MiB)
    assert check_budget(50 * MiB + 1, what="x") == 50 * MiB + 1


def test_a_process_over_its_budget_already_refuses_any_allocation(holds):
    holds(300 * MiB)
    with pytest.raises(
        BudgetError,
        match=r"needs about 1 B on top of 300\.0 MiB held, .* of "
        r"200\.0 MiB \(the limit given\): pass a limit of 320MiB or more",
    ):
        check_budget(1, what="x", limit="200MiB")


def test_what_the_caller_holds_counts_only_where_the_process_says_less(holds):
    holds(0)  # not measured (psutil failed): the bytes read before count, as before
    budget = memory_budget("1GiB", used=300 * MiB)
    assert (budget.held, budget.room) == (300 * MiB, 724 * MiB)
    holds(500 * MiB)  # measured: the bytes read before are part of it, never added
    assert memory_budget("1GiB", used=300 * MiB).held == 500 * MiB
    with pytest.raises(BudgetError, match="on top of 500.0 MiB held"):
        check_budget(600 * MiB, what="x", limit="1GiB", used=300 * MiB)
    assert check_budget(500 * MiB, what="x", limit="1GiB", used=300 * MiB)


def test_no_word_of_holding_when_nothing_is_held(holds):
    holds(0)
    with pytest.raises(BudgetError) as info:
        check_budget(3 * 2**30, what="x", limit="1GiB")
    assert "x needs about 3.0 GiB, over the memory budget of 1.0 GiB (the limit given)" in (
        str(info.value)
    )


def test_beyond_the_machine_counts_what_is_held(holds, monkeypatch):
    holds(3 * 2**30)
    monkeypatch.setattr(limits, "physical_memory", lambda: 4 * 2**30)
    with pytest.raises(BudgetError) as info:
        check_budget(2 * 2**30, what="x", limit="4.5GiB")  # 2 GiB alone would fit the machine
    assert str(info.value) == (
        "x needs about 2.0 GiB on top of 3.0 GiB held, more than this machine's memory "
        "(4.0 GiB; the budget: 4.5 GiB): it cannot run here"
    )


def test_process_memory_is_measured_and_0_where_psutil_fails(monkeypatch):
    import psutil

    held = REAL_PROCESS_MEMORY()
    assert 2**20 < held < 2**40  # this Python process with numpy: tens of MB or more
    monkeypatch.setattr(limits, "_PROCESS", {})
    monkeypatch.setattr(psutil, "Process", lambda pid: (_ for _ in ()).throw(OSError("no")))
    assert REAL_PROCESS_MEMORY() == 0


def test_a_real_check_counts_this_process(monkeypatch):
    monkeypatch.setattr(limits, "process_memory", REAL_PROCESS_MEMORY)
    with pytest.raises(BudgetError, match=" held, over the memory budget of "):
        check_budget(1, what="one byte", limit="1MiB")  # a Python process holds more


# -- every check goes through limits.memory_budget ----------------------------------


def test_the_analysis_check_counts_what_is_held(holds, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100MiB")
    series = SimpleNamespace(n_steps=10**5, n_agents=2)  # ~12.2 MiB of analysis
    holds(80 * MiB)
    check_analysis_budget(series, what="the analysis")
    holds(90 * MiB)
    with pytest.raises(BudgetError, match="on top of 90.0 MiB held"):
        check_analysis_budget(series, what="the analysis")


def test_graphs_are_checked_against_the_room_left(holds, monkeypatch):
    graphs = [nx.DiGraph([(0, 1)]) for _ in range(100)]
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100MiB")
    holds(90 * MiB)
    assert bg.as_series(graphs).n_steps == 100
    holds(100 * MiB - 1000)  # 100 steps x 576 B do not fit in the 1,000 B left
    with pytest.raises(BudgetError) as info:
        bg.as_series(graphs)
    assert "on top of 100.0 MiB held, over the memory budget" in str(info.value)
    assert "\n" not in str(info.value)


def test_an_edge_list_is_checked_against_the_room_left(holds, monkeypatch, tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("source,target,time\na,b,0\nb,a,1000\n")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    holds(0)
    assert bg.as_series(path).n_steps == 1001
    holds(63 * MiB)  # its build's 2 MiB fixed no longer fits
    with pytest.raises(BudgetError, match=r" held, over the memory budget .*BAYGO_MEMORY_LIMIT="):
        bg.as_series(path)


# -- simulate and simulate_seeds ------------------------------------------------------

OPTS = {"agents": 4, "steps": 3, "model": LinearRegression(grid=21), "progress": False}


@pytest.fixture(scope="module")
def data():
    return bg.synthetic_bodyfat()


def test_seeds_made_together_and_every_result_are_one_check(holds, monkeypatch, data):
    """The loop of the seeds made together and the results of every seed are held at
    once: one check with what the process holds, whose advice lets the same call run."""
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100MiB")
    holds(99 * MiB)
    with pytest.raises(BudgetError) as info:
        bg.simulate_seeds("baygo", seeds=range(40), at_once=40, data=data, **OPTS)
    message = str(info.value)
    assert message.startswith("40 runs of 4 agents x 3 steps x 441 grid points (40 at once) ")
    assert "on top of 99.0 MiB held" in message
    assert "pass fewer seeds or a smaller at_once" in message
    assert len(message) <= 300
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", _advised(message))
    assert len(bg.simulate_seeds("baygo", seeds=range(40), at_once=40, data=data, **OPTS)) == 40


def test_the_estimate_of_seeds_together_grows_with_each_seed(holds, data):
    """Per seed: its three posterior buffers and prepared values, its metrics; once: the
    grid (the earlier estimate multiplied the grid by the seeds and left out the
    values prepared per seed)."""
    k = 441
    one = limits.estimate_run_bytes(4, 3, k, pairwise=True)
    ten = limits.estimate_run_bytes(4, 3, k, pairwise=True, seeds=10)
    per_seed = 3 * 4 * k * 8 + limits.RUN_BYTES_PER_SEED_POINT * k + 3 * 4 * 36 + 4 * 4 * 8
    assert ten - one == 9 * per_seed


def test_simulate_alone_says_a_run_and_its_advice_runs(holds, monkeypatch, data):
    holds(200 * MiB)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "200MiB")
    with pytest.raises(BudgetError) as info:
        bg.simulate("baygo", rng=0, data=data, **OPTS)
    message = str(info.value)
    assert message.startswith("a run of 4 agents x 3 steps x 441 grid points per agent needs")
    assert "fewer seeds" not in message
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", _advised(message))
    assert bg.simulate("baygo", rng=0, data=data, **OPTS).mse.shape == (3, 4)


def test_only_limits_compares_against_the_budget():
    """Every budget check of the package goes through limits.memory_budget: the limit
    alone is read elsewhere only to validate it or to size a chunk."""
    package = Path(bg.__file__).parent
    allowed = {
        ("io/archives.py", "cap = min(_HEAD_LIMIT, memory_limit() // CSV_BYTES_PER_FILE_BYTE)"),
        ("io/safenpz.py", "memory_limit(budget)  # a bad budget fails before the file is opened"),
    }
    found = set()
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel == "limits.py":
            continue
        for line in path.read_text().splitlines():
            if "memory_limit(" in line and not line.strip().startswith(("#", ":", "The ")):
                found.add((rel, line.strip()))
    assert found == allowed


def test_plot_counts_its_figures_per_step_on_top_of_the_analysis():
    """hostile11 P9: plot of a 2-row file spanning 250,000 steps passed the analysis
    check (~214 B a step) and peaked at 1.7x the budget (its figure ~1-2 kB a step)."""
    from types import SimpleNamespace

    from baygo_graph.exceptions import BudgetError
    from baygo_graph.limits import (
        ANALYSIS_BYTES_PER_STEP,
        FIGURE_BYTES_PER_STEP,
        check_analysis_budget,
    )

    s = SimpleNamespace(n_steps=100_000, n_agents=2)
    limit = (ANALYSIS_BYTES_PER_STEP + 16 * 2) * 100_000 + 2**20
    check_analysis_budget(s, what="the analysis", limit=limit)  # the analysis alone fits
    with pytest.raises(BudgetError, match="the figures' analysis of 100000 steps x 2 nodes"):
        check_analysis_budget(s, what="the figures' analysis", limit=limit,
                              per_step=FIGURE_BYTES_PER_STEP)  # fmt: skip
