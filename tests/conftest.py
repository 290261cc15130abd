"""Shared fixtures: a seeded rng, the real data file, Agg backend, closed figures."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from baygo_graph.data import BODYFAT_ENV  # noqa: E402


@pytest.fixture
def rng(request):
    """A Generator seeded per test; the seed is printed so a failure can be replayed."""
    seed = int(os.environ.get("BAYGO_TEST_SEED", "12345"))
    print(f"rng seed: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def bodyfat_path() -> Path:
    """The real bodyfat CSV named by $BAYGO_BODYFAT.

    Skipped only when the variable is unset outside CI; set to a missing file (a
    typo) it fails, naming the path, instead of silently skipping.
    """
    path = os.environ.get(BODYFAT_ENV)
    if path and Path(path).is_file():
        return Path(path)
    if path:
        pytest.fail(f"{BODYFAT_ENV}={path!r} does not name an existing file")
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs the bodyfat file: set {BODYFAT_ENV}")
    pytest.skip(f"set {BODYFAT_ENV} to the bodyfat CSV to run this test")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
