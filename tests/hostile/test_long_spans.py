"""A small file spanning many steps: every command that answers windows checks the
per-step work against the budget before it starts (hostile round 7, K7)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from baygo_graph.cli import cli
from baygo_graph.exceptions import BudgetError


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["analyze"], "the analysis of 1000001 steps x 2 nodes needs about"),
        (["plot", "--out", "{out}"], "the figures' analysis of 1000001 steps x 2 nodes"),
        (["view", "--out", "{out}.html"], "the viewer of 2 nodes x 1,000,001 steps"),
    ],
)
def test_two_contacts_far_apart_are_refused_before_their_windows(tmp_path, monkeypatch,
                                                                 command, words):  # fmt: skip
    path = tmp_path / "span.csv"
    path.write_text("source,target,time\na,b,0\nb,a,1000000\n")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "150MiB")
    args = [command[0], str(path), *(a.format(out=tmp_path / "o") for a in command[1:])]
    result = CliRunner().invoke(cli, args)  # main() prints it as one `baygo: error:` line
    assert isinstance(result.exception, BudgetError)
    line = str(result.exception)
    assert words in line and "BAYGO_MEMORY_LIMIT=" in line and "\n" not in line
    assert len(line) <= 300
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").glob("*.png"))
