"""Hostile round 9, reader side: the findings of /round 9 (M1, ...) with their payloads."""

from __future__ import annotations

import pytest

from baygo_graph.inputs import as_series


# -- M1: a double quote in a headerless file is a character, never CSV quoting --------
@pytest.mark.parametrize(
    ("name", "content", "options", "nodes", "steps"),
    [
        ("CollegeMsgQ.txt", '1 "x 100\n2 3 101\n4 y" 102\n5 6 103\n', {},
         ['"x', "1", "2", "3", "4", "5", "6", 'y"'], 4),
        ("out.qspan", '% asym unweighted\n"1 2\n3 4\n5" 6\n7 8\n', {},
         ['"1', "2", "3", "4", '5"', "6", "7", "8"], 1),
        ("tij_q.dat", '20\t"a\tb\tX\tY\n40\tc"\td\tY\tZ\n60\te\tf\tZ\tZ\n',
         {"columns": "time,source,target"}, ['"a', "b", 'c"', "d", "e", "f"], 41),
        ("q.txt", '"" 2 10\n3 4 11\n', {}, ['""', "2", "3", "4"], 2),
        ("comma.txt", '"a,b",1\nc,d,2\n', {}, None, None),  # 3 fields: refused below
    ],
)  # fmt: skip
def test_quotes_in_headerless_files_are_characters(tmp_path, name, content, options, nodes,
                                                   steps):  # fmt: skip
    path = tmp_path / name
    path.write_text(content)
    if nodes is None:  # the first line's fields are counted as the rows are read
        s = as_series(path, **options)
        assert set(s.nodes) == {'"a', 'b"', "c", "d"} and s.n_steps == 2
        return
    s = as_series(path, **options)
    assert sorted(s.nodes) == sorted(nodes)
    assert s.n_steps == steps
    assert s.n_agents == len(nodes)  # every line one row: no label spans lines
