"""Readers after hostile rounds 14-16: a headerless file's columns are named by position
in every message (newcomer7: `--bin 1day` on a SNAP file named a 'time' column the file
does not have)."""

from __future__ import annotations

import re
import warnings

import pytest

from baygo_graph import as_series
from baygo_graph.exceptions import BudgetError

_ROLE_NAME = re.compile(r"'(source|target|time|weight)'")


@pytest.mark.parametrize(
    ("name", "text", "options", "said"),
    [
        ("snap.txt", "1 2 1082040961\n2 1 1082155839\n", {"bin": "1day"},
         "for the integer time column 3, got '1day'"),
        ("bad.txt", "1 2 10x\n2 1 5\n", {}, "time column 3 line 1: '10x' is not ISO 8601"),
        ("first.txt", "10x 1 2\n5 2 1\n", {"columns": "time,source,target"},
         "time column 1 line 1: '10x'"),
        ("gap.tsv", "1\t2\t5\n2\t1\t\n", {"columns": "source,target,time"},
         "time column 3 line 2: the time is missing"),
        ("out.w", "% asym positive\n1 2 1 5\n2 1 x 6\n", {}, "weight column 3 line 3: 'x'"),
        ("h.txt", "1 2 100\n2\n", {}, "target column 2 is empty in line 2"),
        ("neg.txt", "1 2 -1\n2 1 5\n", {"bin": 0}, "time column 3"),
    ],
)  # fmt: skip
def test_a_headerless_file_names_its_columns_by_position(tmp_path, name, text, options, said):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as e:
        as_series(path, **options)
    assert said in str(e.value) and not _ROLE_NAME.search(str(e.value)), str(e.value)


def test_a_headerless_budget_refusal_and_note_name_the_position(tmp_path, monkeypatch):
    path = tmp_path / "span.txt"
    path.write_text("1 2 0\n2 1 100000000\n")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    with pytest.raises(BudgetError, match=r"\(time column 3, bin 1\)") as e:
        as_series(path)
    assert not _ROLE_NAME.search(str(e.value))
    path.write_text("1 2 1082040961\n2 1 1082155839\n")
    monkeypatch.delenv("BAYGO_MEMORY_LIMIT")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        as_series(path)
    notes = [str(w.message) for w in said]
    assert any(n.startswith("time column 3: 114879 steps") for n in notes), notes
    assert not any(_ROLE_NAME.search(n) for n in notes)


def test_a_file_with_a_header_keeps_its_column_names(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("source,target,when\n1,2,10x\n")
    with pytest.raises(ValueError, match="time column 'when' line 2"):
        as_series(path, time="when")
