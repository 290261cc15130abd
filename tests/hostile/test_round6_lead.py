"""Hostile round 6 (reader side, the lead's share): each case was mishandled before."""

from __future__ import annotations

import pandas as pd
import pytest

from baygo_graph import as_series
from baygo_graph.io.times import time_steps


@pytest.mark.parametrize("fmt", ["%d/%d/%Y", "%Y/%Y/%Y"])
def test_a_format_naming_a_directive_twice_is_one_line(fmt):
    """G12: an 81-line re.error traceback."""
    with pytest.raises(ValueError, match=r"is not a format pandas reads: it names a directive"):
        time_steps(pd.Series(["01/02/2024", "03/02/2024"]), bin="1D", time_format=fmt)


def test_digits_below_a_nanosecond_are_refused_not_cut():
    """G16: 0.1 ns and 0.9 ns were cut to the same time; zeros past the 9th digit are
    no change and read."""
    ok = ["2024-01-01T08:00:00.000000001", "2024-01-01T08:00:00.0000000010"]
    assert time_steps(pd.Series(ok), bin="1ns").tolist() == [0, 0]
    finer = ["2024-01-01T08:00:00.0000000001", "2024-01-01T08:00:00.0000000009"]
    with pytest.raises(ValueError, match=r"row 0: .* has digits below a nanosecond"):
        time_steps(pd.Series(finer), bin="1ns")


def test_a_header_written_with_comma_space_reads_its_cells_the_same_way(tmp_path):
    """G15: 'source, target, time' matched its names without the spaces but kept them in
    the cells: node a became 'a' and ' a'. A header without spaces keeps cells as written."""
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("source, target, time\na, b, 0\nb, a, 1\n")
    assert as_series(spaced).nodes == ("a", "b")
    plain = tmp_path / "plain.csv"
    plain.write_text("source,target,time\n a, b,0\n")
    assert as_series(plain).nodes == (" a", " b")


@pytest.mark.parametrize(
    ("weight", "says"),
    [
        ("2", "weight '2': a str is not a number"),
        (True, "weight True: a bool is not a number"),
        (None, "weight None: None is not a number"),
    ],
)
def test_graph_weights_must_be_numbers(weight, says):
    """G14: a text weight '2' was read as 2 and True as 1 from a list of networkx graphs
    (an edge list refuses both); None was reported as 'nan'."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_edge("a", "b", weight=weight)
    with pytest.raises(ValueError, match=rf"graph 0: edge 'a' -> 'b': {says}"):
        as_series([g])
    g["a"]["b"]["weight"] = 2
    assert as_series([g]).n_steps == 1


def test_every_flipped_bit_of_a_written_gexf_is_refused_or_reads_back_the_same(tmp_path):
    """G9: one flipped bit (XOR 0x01) of a GEXF written by write_series read back as
    another series in 212 of 2,336 positions (`defaultedgetype` misspelled made every
    edge two-way); the file carries a digest of its series now."""
    from baygo_graph import read_series, write_series
    from baygo_graph.exceptions import RunFormatError

    edges = tmp_path / "e.csv"
    edges.write_text("source,target,time,weight\nann,bob,0,1\nbob,cy,0,2\ncy,ann,1,3\nann,cy,2,1\n")
    path = tmp_path / "s.gexf"
    write_series(as_series(edges), path)
    ref, blob = read_series(path), path.read_bytes()
    flipped = tmp_path / "f.gexf"
    changed = []
    for i in range(0, len(blob), 3):  # every third byte: ~800 files, a few seconds
        b = bytearray(blob)
        b[i] ^= 1
        flipped.write_bytes(bytes(b))
        try:
            got = read_series(flipped)
        except (ValueError, RunFormatError) as e:
            assert "\n" not in str(e)
            continue
        same = (got.nodes, got.n_steps, got.synthetic) == (ref.nodes, ref.n_steps, ref.synthetic)
        if not same or any((got.weights(t) != ref.weights(t)).nnz for t in range(ref.n_steps)):
            changed.append(i)
    assert changed == []


def test_a_fifo_given_as_an_edge_list_is_named_as_such(tmp_path):
    """G17: a FIFO was answered 'no edge list at ...' though there is one there."""
    import os

    from baygo_graph.exceptions import RunFormatError
    from baygo_graph.io.edgelist import read_edge_list

    fifo = tmp_path / "ff.csv"
    os.mkfifo(fifo)
    with pytest.raises(RunFormatError, match=r"is not a regular file \(a FIFO"):
        read_edge_list(fifo)
    with pytest.raises(RunFormatError, match=r"no edge list at"):
        read_edge_list(tmp_path / "missing.csv")
