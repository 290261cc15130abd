"""`--json` of synthetic data said nothing on screen (`compare --json`: newcomer6): the
JSON carries the mark, and stderr says it in one line, as every other output."""

from __future__ import annotations

import json

import pytest

from baygo_graph.cli import main


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--seeds", "2", "--strategies", "baygo,nocol"],
        ["run"],
    ],
)
def test_json_of_synthetic_data_says_so_on_screen(monkeypatch, capsys, args):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    code = main([*args, "--steps", "2", "--agents", "3", "--grid", "5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["synthetic"] is True
    assert [line for line in err.splitlines() if "SYNTHETIC DATA" in line] != []
