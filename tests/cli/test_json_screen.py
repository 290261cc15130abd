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


def test_analyze_json_carries_the_note_its_text_starts_with(tmp_path, capsys, monkeypatch):
    """report.json / --json had the synthetic flag but not the NOTE line the text and
    compare's summary.json carry (newcomer9 14a): one note in every teller."""
    import json

    from baygo_graph.cli import main

    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)  # synthetic: the note is due
    run = tmp_path / "r"
    assert main(["run", "--steps", "3", "--agents", "3", "--grid", "9", "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(run), "--out", str(tmp_path / "A")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("NOTE: SYNTHETIC DATA")
    assert json.loads((tmp_path / "A" / "report.json").read_text())["note"] == first
    assert main(["analyze", str(run), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["note"] == first
