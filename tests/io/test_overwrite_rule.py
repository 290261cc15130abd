"""One rule for every writer of a named file: an existing file is refused by default.

``to_html`` replaced a file by default while ``write_series`` and ``Run.save`` refused it
(and ``baygo view`` asked for ``--force``): every writer now takes ``overwrite=False``
by default, refuses before any work, and replaces only with ``overwrite=True``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pandas as pd
import pytest

import baygo_graph
from baygo_graph import Run, write_series
from baygo_graph.analysis import Comparison
from baygo_graph.experiments.sweep import write_table
from baygo_graph.figures import animate_run, save_animation, to_html
from baygo_graph.io import atomic, npz, series_files
from baygo_graph.io.comparison_csv import write_frames
from baygo_graph.io.gexf import write_gexf
from baygo_graph.io.results import write_results, write_results_parquet
from baygo_graph.io.runs import save_runs

MINE = b"a file of the user's own"


def _run():
    return Run.from_choices([[1, 0, 0], [2, 2, 1], [2, 2, 1]], informative=2)


def _comparison():
    return Comparison(("a",), np.ones((1, 1, 2, 2)), np.zeros((1, 1, 2, 2)),
                      np.zeros((1, 1), dtype=int))  # fmt: skip


def _figure():
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots()
    return fig


#: name -> (file name, call(path, **overwrite)): every writer of a named file.
WRITERS = {
    "to_html": ("v.html", lambda p, **k: to_html(_run(), p, window=1, **k)),
    "save_animation": ("a.gif", lambda p, **k: save_animation(animate_run(_run()), p, dpi=20, **k)),
    "write_series json": ("s.json", lambda p, **k: write_series(_run(), p, **k)),
    "write_series graphml": ("s.graphml", lambda p, **k: write_series(_run(), p, **k)),
    "write_series gexf": ("s.gexf", lambda p, **k: write_series(_run(), p, window=1, **k)),
    "write_json": ("s.json", lambda p, **k: series_files.write_json(_run().series, p, **k)),
    "write_graphml": ("s.graphml",
                      lambda p, **k: series_files.write_graphml(_run().series, p, **k)),
    "write_gexf": ("s.gexf", lambda p, **k: write_gexf(_run().series, p, **k)),
    "Run.save": ("run.npz", lambda p, **k: _run().save(p, **k)),
    "save_runs": ("baygo-seed0/run.npz",
                  lambda p, **k: save_runs({("baygo", 0): _run()}, p.parent.parent, **k)),
    "write_run_file": ("r.npz", lambda p, **k: npz.write_run_file(p, {}, {"x": np.zeros(1)}, **k)),
    "Comparison.write_csv": ("r.csv", lambda p, **k: _comparison().write_csv(p, **k)),
    "Comparison.write_parquet": ("r.parquet", lambda p, **k: _comparison().write_parquet(p, **k)),
    "write_results_parquet": ("r.parquet",
                              lambda p, **k: write_results_parquet(_comparison(), p, **k)),
    "write_results": ("results.parquet",
                      lambda p, **k: write_results(_comparison(), p.parent, **k)),
    "write_frames": ("t.csv", lambda p, **k: write_frames(p, [pd.DataFrame({"a": [1]})], **k)),
    "sweep write_table": ("results.parquet", lambda p, **k: write_table(
        pd.DataFrame({"strategy": ["baygo"], "seed": [0]}), p.parent, **k)),
    "atomic_text": ("a.md", lambda p, **k: atomic.atomic_text(p, "new", **k)),
    "atomic_write": ("a.bin",
                     lambda p, **k: atomic.atomic_write(p, lambda fh: fh.write(b"n"), **k)),
    "atomic_figure": ("f.png", lambda p, **k: atomic.atomic_figure(_figure(), p, dpi=20, **k)),
}  # fmt: skip


@pytest.mark.parametrize("name", WRITERS)
def test_every_writer_refuses_an_existing_file_unless_told(tmp_path, name):
    filename, write = WRITERS[name]
    path = tmp_path / "out" / filename
    path.parent.mkdir(parents=True)
    path.write_bytes(MINE)
    with pytest.raises(FileExistsError, match=r"pass overwrite=True to replace it") as e:
        write(path)
    assert e.value.filename == str(path)
    assert path.read_bytes() == MINE  # untouched
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # nothing left beside
    write(path, overwrite=True)
    assert path.read_bytes() != MINE


def _public_callables():
    """Every function and method of the package's modules (the CLI's helpers too)."""
    for info in pkgutil.walk_packages(baygo_graph.__path__, "baygo_graph."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__ == module.__name__:
                yield from (
                    (f"{module.__name__}.{obj.__name__}.{k}", v)
                    for k, v in vars(obj).items()
                    if inspect.isfunction(v)
                )
            elif inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield f"{module.__name__}.{obj.__name__}", obj


def test_every_overwrite_and_force_keyword_defaults_to_refusing():
    """The family, found rather than listed: a writer added later follows the rule too."""
    found, wrong = [], []
    for name, fn in _public_callables():
        for key in ("overwrite", "force"):
            param = inspect.signature(fn).parameters.get(key)
            if param is None or param.default is inspect.Parameter.empty:
                continue  # a helper's required keyword: its caller decides
            found.append(name)
            if param.default is not False:
                wrong.append(f"{name}({key}={param.default!r})")
    assert not wrong
    assert {n.rsplit(".", 1)[-1] for n in found} >= {
        "to_html", "save_animation", "write_series", "save", "save_runs", "write_json",
        "write_graphml", "write_gexf", "write_run_file", "write_csv", "write_parquet",
        "write_results_parquet", "write_results", "write_frames", "write_table",
        "atomic_text", "atomic_write", "atomic_figure", "atomic_path", "check_target",
    }  # fmt: skip


def test_write_results_keeps_an_earlier_table_of_the_other_format(tmp_path):
    """hostile round 15, T3: write_results(c, folder, results_format="csv") removed the
    results.parquet of an earlier experiment there, under the refusing default."""
    write_results(_comparison(), tmp_path)
    before = (tmp_path / "results.parquet").read_bytes()
    with pytest.raises(FileExistsError, match="other format .*overwrite=True") as e:
        write_results(_comparison(), tmp_path, results_format="csv")
    assert e.value.filename == str(tmp_path / "results.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"]
    assert (tmp_path / "results.parquet").read_bytes() == before
    write_results(_comparison(), tmp_path, results_format="csv", overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]
