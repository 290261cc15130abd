"""A missing argument or required option, in every command: one line saying what it
takes and where to read more (newcomer5-8: `baygo analyze` alone said only "Missing
argument 'RUN...'.")."""

from __future__ import annotations

import importlib

import click
import pytest

from baygo_graph.cli import _COMMANDS, main


def _required():
    for name, (module, attr) in sorted(_COMMANDS.items()):
        command = getattr(importlib.import_module(module), attr)
        for param in command.params:
            if param.required:
                yield name, command, param


CASES = [(name, param.name) for name, _, param in _required()]


def test_the_commands_with_required_inputs_are_all_here():
    assert set(CASES) >= {("analyze", "paths"), ("plot", "run_dir"), ("animate", "run_dir"),
                          ("view", "run_path"), ("view", "out"), ("sweep", "out"),
                          ("reproduce", "out")}  # fmt: skip


@pytest.mark.parametrize(("name", "missing"), CASES)
def test_a_missing_input_says_what_it_takes(tmp_path, capsys, name, missing):
    (tmp_path / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    command = {n: c for n, c, _ in _required()}[name]
    argv = [name]
    for param in command.params:  # every other required input given
        if not param.required or param.name == missing:
            continue
        if isinstance(param, click.Argument):
            argv.append(str(tmp_path / "c.csv"))
        else:
            argv += [param.opts[0], str(tmp_path / "new.html")]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("baygo: error: Missing "), err
    head, _, rest = err.removeprefix("baygo: error: ").partition("': ")
    assert rest.endswith(f" (see 'baygo {name} --help')\n"), err
    takes = rest.removesuffix(f" (see 'baygo {name} --help')\n")
    assert len(takes) > 10, err  # what it takes, in words
    if missing in ("paths", "run_path", "run_dir"):
        assert "a run (folder or .npz" in takes, err
    assert not (tmp_path / "new.html").exists()
