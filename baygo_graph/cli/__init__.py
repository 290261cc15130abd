"""The ``baygo`` command: parses, calls the API, writes files; nothing more.

Each sub-command lives in its own module and is imported only when used, so
``baygo --help`` stays fast.
"""

from __future__ import annotations

import importlib

import click

__all__ = ["cli", "main"]

_COMMANDS = {
    "run": ("baygo_graph.cli.run", "run"),
    "analyze": ("baygo_graph.cli.analyze", "analyze"),
    "compare": ("baygo_graph.cli.compare", "compare"),
    "plot": ("baygo_graph.cli.figures", "plot"),
    "animate": ("baygo_graph.cli.figures", "animate"),
    "reproduce": ("baygo_graph.cli.figures", "reproduce"),
    "sweep": ("baygo_graph.cli.sweep", "sweep"),
    "view": ("baygo_graph.cli.view", "view"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name]
        return getattr(importlib.import_module(module), attr)


@click.group(name="baygo", cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="baygo-graph")
def cli():
    """BayGo: joint Bayesian learning and communication-graph optimisation.

    Data: --data PATH, else the file named by $BAYGO_BODYFAT, else a synthetic
    stand-in that every output labels as synthetic.
    """


def main(argv=None) -> int:
    """Entry point of the ``baygo`` script; returns the exit code.

    Errors become one line on stderr, ``baygo: error: ...``.
    """
    try:
        code = cli.main(args=argv, prog_name="baygo", standalone_mode=False)
    except click.ClickException as e:
        click.echo(f"baygo: error: {e.format_message()}", err=True)
        code = e.exit_code
    except click.exceptions.Abort:
        click.echo("baygo: aborted", err=True)
        code = 1
    return code if isinstance(code, int) else 0
