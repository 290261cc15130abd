"""Hostile round 13, reader side: comment lines at the top of an edge list."""

from __future__ import annotations

import gzip

import pytest

from baygo_graph import as_series
from baygo_graph.exceptions import RunFormatError
from baygo_graph.io.archives import _head_lines


def test_comment_lines_at_the_top_are_counted_not_kept(tmp_path):
    """7,000,000 `#a` lines from a 20 KB .gz were kept as Python strings (60 B each):
    1.9x the budget before a refusal that gave the wrong reason (hostile round 13, R5)."""
    path = tmp_path / "c.txt.gz"
    path.write_bytes(gzip.compress(b"% sym unweighted\n" + b"#a\n" * 50_000 + b"1 2 3\n2 1 4\n"))
    head = _head_lines(path, "gzip")
    assert (head.top, head.skip, head.first, head.ended) == ("% sym unweighted", 50_001,
                                                             "1 2 3", False)  # fmt: skip
    s = as_series(path)
    assert (s.n_steps, s.nodes) == (2, (1, 2))


def test_comment_lines_past_the_read_cap_are_named_as_such(tmp_path, monkeypatch):
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "16MiB")  # the top's cap: 1 MiB of text
    path = tmp_path / "c.txt"
    path.write_bytes(b"#a\n" * 400_000 + b"1 2 3\n")
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    text = str(e.value)
    assert "has more than 1MiB of comment and blank lines at its top" in text, text
    assert "before any data line" in text and len(text) <= 300


def test_a_header_refusal_keeps_the_file_name_and_the_column_count(tmp_path, monkeypatch):
    """The header's budget refusal cut its own middle: "reading the header of
    'one...004 columns, ~512 B each)", the two things to act on lost (hostile round 13,
    R8)."""
    from baygo_graph.exceptions import BudgetError

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    path = tmp_path / "onecsvh.csv"
    path.write_text("source,target,time," + "x," * 400_000 + "\n1,2,3\n")
    with pytest.raises(BudgetError) as e:
        as_series(path)
    text = str(e.value)
    assert text.startswith("reading the header of 'onecsvh.csv' (400,004 columns) needs"), text
    assert text.endswith("or more to read it") and len(text) <= 300
