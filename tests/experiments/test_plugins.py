"""Plug-in files are known in every worker (loky and Dask); a broken one is one error
naming the file; a strategy's or model's definition follows its text or its version."""

from __future__ import annotations

import sys
import textwrap

import pandas as pd
import pytest
from shared import plugin_sandbox

from baygo_graph import synthetic_bodyfat
from baygo_graph.exceptions import PluginError
from baygo_graph.experiments import compare, definition, load_plugin, loaded_plugins, sweep
from baygo_graph.experiments.plugins import import_plugins
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import strategy_factory

DATA = synthetic_bodyfat(rng=2)
SMALL = {"agents": 4, "model": LinearRegression(grid=11), "data": DATA, "progress": False}

#: A plug-in strategy: an agent listens to the neighbour it chose at step 0, forever.
STUBBORN = textwrap.dedent(
    '''
    import baygo_graph as bg
    from baygo_graph.strategies import ChoiceStrategy


    class Stubborn(ChoiceStrategy):
        """BayGo's first choice, kept."""

        name = "stubborn"

        def choose(self, t, *, model, state, listen, rng, choices):
            if t:
                return choices[t - 1]
            return model.most_divergent(state, listen=listen, rng=rng)


    bg.strategies.register("stubborn", Stubborn)
    '''
)


@pytest.fixture
def sandbox():
    with plugin_sandbox():
        yield


@pytest.fixture
def stubborn(tmp_path, sandbox):
    path = tmp_path / "stubborn_plugin.py"
    path.write_text(STUBBORN)
    load_plugin(str(path))
    return path


def test_a_plugin_file_is_known_in_every_local_worker(stubborn):
    assert [p.path for p in loaded_plugins()] == [str(stubborn.resolve())]
    assert strategy_factory("stubborn").__module__.startswith("baygo_plugin_")
    serial = compare(["stubborn", "nocol"], seeds=3, steps=4, n_jobs=1, **SMALL)
    parallel = compare(["stubborn", "nocol"], seeds=3, steps=4, n_jobs=2, **SMALL)
    pd.testing.assert_frame_equal(serial, parallel)
    stub = serial[serial["strategy"] == "stubborn"]
    assert stub["mse"].notna().all() and len(stub) == 3 * 4 * 4


def test_a_plugin_file_is_known_on_a_dask_cluster(stubborn, tmp_path, dask_cluster):
    grid, kw = {"agents": [4], "grid": [9]}, {"strategies": ["stubborn"], "seeds": 2, "steps": 3}
    local = sweep(grid, out=tmp_path / "a", n_jobs=1, data=DATA, progress=False, **kw)
    dask = sweep(
        grid, out=tmp_path / "b", scheduler=dask_cluster.scheduler_address, data=DATA,
        progress=False, **kw,
    )  # fmt: skip
    cols = ["id", "final_mse_informative", "final_mse_others_mean"]
    pd.testing.assert_frame_equal(local[cols], dask[cols])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = (\n", "does not compile: '(' was never closed (line 1)"),
        ("import math\nraise RuntimeError('no network')\n", "RuntimeError: no network (line 2)"),
        ("def f():\n    return 1 / 0\n\nf()\n", "ZeroDivisionError: division by zero (line 2)"),
    ],
)
def test_a_broken_plugin_is_one_error_naming_the_file(tmp_path, sandbox, text, message):
    path = tmp_path / "broken.py"
    path.write_text(text)
    before = set(sys.modules)
    with pytest.raises(PluginError) as info:
        load_plugin(str(path))
    assert str(info.value).startswith(f"plug-in {path.resolve()} ")
    assert message in str(info.value) and "\n" not in str(info.value)
    assert set(sys.modules) == before and loaded_plugins() == ()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("missing_plugin.py", "plug-in missing_plugin.py: no such file"),
        ("no_such_module_here", "No module named 'no_such_module_here'"),
    ],
)
def test_a_missing_plugin_is_one_error(spec, message, sandbox):
    with pytest.raises(PluginError, match=message):
        load_plugin(spec)


def test_a_worker_refuses_a_plugin_edited_since_it_imported_it(stubborn, tmp_path):
    (plugin,) = loaded_plugins()
    edited = type(plugin)(plugin.module, plugin.path, plugin.source + "\n", "0" * 16)
    with pytest.raises(PluginError, match="changed since this worker imported it"):
        import_plugins([edited])
    import_plugins([plugin])  # the same text: nothing to do


def test_definition_follows_the_text_and_a_declared_version(tmp_path, sandbox):
    first = tmp_path / "a" / "p.py"
    second = tmp_path / "b" / "p.py"
    for path, text in ((first, STUBBORN), (second, STUBBORN.replace("if t:", "if t > 0:"))):
        path.parent.mkdir()
        path.write_text(text.replace('"stubborn"', f'"stubborn-{path.parent.name}"'))
        load_plugin(str(path))
    a, b = strategy_factory("stubborn-a"), strategy_factory("stubborn-b")
    assert definition(a) != definition(b)  # another text
    assert definition(a) == definition(a())  # a class and its objects
    assert definition(compare) == definition(strategy_factory("baygo"))  # the package's
    versioned = type("Mine", (a,), {"version": "2", "__module__": a.__module__})
    assert definition(versioned) == "version 2"
