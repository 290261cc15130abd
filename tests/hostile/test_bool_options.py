"""Round 16, U8: a flag given as text ("no", "False", "0") is truthy; every bool option of
the public API is True or False (None where documented), else a TypeError naming it, and
nothing is written."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.experiments import compare
from baygo_graph.figures import to_html
from baygo_graph.io.results import write_results
from baygo_graph.series import series_from_graphs

NOT_BOOLS = ["no", "False", "0", 0, 1, 1.5, b"", [True]]


@pytest.fixture(scope="module")
def run():
    return bg.simulate("baygo", agents=3, steps=3, rng=0, progress=False)


def _writers(run, tmp_path):
    """Each public writer of a named file, as ``(path, call(overwrite))``."""
    res = compare(["nocol"], seeds=1, steps=2, agents=3, progress=False, n_jobs=1, tidy=False)
    return {
        "write_series": (tmp_path / "s.json", lambda p, o: bg.write_series(run, p, overwrite=o)),
        "to_html": (tmp_path / "v.html", lambda p, o: to_html(run, p, overwrite=o)),
        "Run.save": (tmp_path / "r", lambda p, o: run.save(p, overwrite=o)),
        "write_results": (tmp_path / "res", lambda p, o: write_results(res, p, overwrite=o)),
        "write_csv": (tmp_path / "c.csv", lambda p, o: res.write_csv(p, overwrite=o)),
    }


@pytest.mark.parametrize("bad", NOT_BOOLS, ids=repr)
def test_a_writer_refuses_a_text_overwrite_and_keeps_the_file(run, tmp_path, bad):
    for name, (path, write) in _writers(run, tmp_path).items():
        write(path, False)  # the user's earlier file
        before = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.rglob("*"))
        with pytest.raises(TypeError, match="overwrite must be True or False, got"):
            write(path, bad)
        after = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.rglob("*"))
        assert after == before, name


def test_numpy_bools_are_bools(run, tmp_path):
    bg.write_series(run, tmp_path / "s.json", overwrite=np.False_)
    assert bg.write_series(run, tmp_path / "s.json", overwrite=np.True_).is_file()


@pytest.mark.parametrize("bad", ["false", "no", 0, 2.0], ids=repr)
def test_directed_given_as_text_is_refused_not_read_as_true(bad):
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "time": [0, 1]})
    with pytest.raises(TypeError, match="directed must be True, False or None, got"):
        bg.as_series(frame, directed=bad)
    # the two readings differ, so a truthy text would have changed the weights
    one, two = bg.as_series(frame, directed=True), bg.as_series(frame, directed=False)
    assert (one.weights(0) != two.weights(0)).nnz


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda v: bg.simulate("nocol", agents=2, steps=1, progress=v), "progress"),
        (lambda v: compare(["nocol"], seeds=1, steps=1, agents=2, tidy=v), "tidy"),
        (lambda v: compare(["nocol"], seeds=1, steps=1, agents=2, return_runs=v), "return_runs"),
        (lambda v: series_from_graphs([nx.DiGraph([(0, 1)])], stochastic=v), "stochastic"),
    ],
)
def test_other_flags_refuse_text(call, name):
    with pytest.raises(TypeError, match=f"{name} must be True"):
        call("no")
