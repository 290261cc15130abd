"""Shared fixtures: a seeded rng, the real data file, Agg backend, closed figures.

Shared helpers (brute-force references, small builders) are in ``tests/shared.py``,
put on the path here: ``from shared import eig_reference``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).parent))  # tests/shared.py

from baygo_graph.data import BODYFAT_ENV  # noqa: E402

#: Where the project's shared data folder puts the real file, beside the checkout.
SHARED_BODYFAT = Path(__file__).resolve().parents[2] / "shared" / "data" / "bodyfat.csv"
if not os.environ.get(BODYFAT_ENV) and SHARED_BODYFAT.is_file():
    # tests and CI use the shared copy when it is there (never copied into the repo)
    os.environ[BODYFAT_ENV] = str(SHARED_BODYFAT)


@pytest.fixture
def rng(request):
    """A Generator seeded per test; the seed is printed so a failure can be replayed."""
    seed = int(os.environ.get("BAYGO_TEST_SEED", "12345"))
    print(f"rng seed: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def bodyfat_path() -> Path:
    """The real bodyfat CSV: $BAYGO_BODYFAT, else the shared folder's copy beside the checkout.

    Skipped, with the reason, only when neither is there outside CI; under
    ``CI=true`` a missing file fails. $BAYGO_BODYFAT set to a missing file (a typo)
    fails, naming the path, instead of silently skipping.
    """
    path = os.environ.get(BODYFAT_ENV)
    if path and Path(path).is_file():
        return Path(path)
    if path:
        pytest.fail(f"{BODYFAT_ENV}={path!r} does not name an existing file")
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs the bodyfat file: set {BODYFAT_ENV}")
    pytest.skip(
        f"needs the real bodyfat CSV: set {BODYFAT_ENV}, or put the shared folder beside the "
        "checkout (../shared/data/bodyfat.csv)"
    )


@pytest.fixture(autouse=True)
def _held_memory_not_measured(monkeypatch):
    """In-process budget checks count the estimates alone: the test process's resident
    memory (hundreds of MB, growing over a session) would make every small-budget test
    depend on the tests run before it. Tests of what the process holds set
    ``limits.process_memory`` themselves (tests/test_limits.py); child processes measure."""
    monkeypatch.setattr("baygo_graph.limits.process_memory", lambda: 0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="session")
def small_run():
    """The small BayGo run many tests save or export: 4 agents, 3 steps, grid 9, seed 0,
    synthetic data. Made once per session; a :class:`~baygo_graph.Run` is frozen (never
    change its arrays in place)."""
    from baygo_graph import simulate, synthetic_bodyfat
    from baygo_graph.models import LinearRegression

    return simulate("baygo", agents=4, steps=3, model=LinearRegression(grid=9), rng=0,
                    data=synthetic_bodyfat())  # fmt: skip


@pytest.fixture(scope="session")
def small_cen_run():
    """The small centralised run (no graph) the refusal tests use: 3 agents, 3 steps,
    grid 9, seed 0, synthetic data; made once per session."""
    from baygo_graph import simulate, synthetic_bodyfat
    from baygo_graph.models import LinearRegression

    return simulate("cen", agents=3, steps=3, model=LinearRegression(grid=9), rng=0,
                    data=synthetic_bodyfat())  # fmt: skip


@pytest.fixture
def dask_cluster():
    """A local Dask cluster of 2 worker processes (one thread each) for one test;
    skipped without the dask extra."""
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=40,
    ) as cluster:
        yield cluster
