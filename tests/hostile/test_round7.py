"""Hostile rounds 5-7, reader side: leftovers (line numbers of text files, invalid
UTF-8, every missing column in one line, short refusal lines, endless iterators of
graphs) and the findings of round 7."""

from __future__ import annotations

import gzip
import re

import pytest

from baygo_graph.exceptions import BudgetError, RunFormatError
from baygo_graph.inputs import as_series

LONG = "x" * 200
#: The path every refusal below is measured with: 70 characters, a deep folder.
PATH_CHARS = 70

#: Reader refusals triggered cheaply: file name -> (content, options).
REFUSALS = {
    "unknown.bin": ("1 2 3\n", {}),
    "u16.csv": ("source,target,time\na,b,1\n".encode("utf-16"), {}),
    "nul.txt": (b"1\x002 3\n", {}),
    "out.bip": ("% bip unweighted\n1 2\n", {}),
    "five.txt": ("1 2 3 4 5\n", {}),
    "wide.txt": ("1 2 100\n2 3 1 200\n", {}),
    "inner.txt": ("1 2 100\n# " + LONG + "\n2 3 200\n", {}),
    "header.txt": ("FromNodeId ToNodeId\n1 2\n", {}),
    "columns.csv": (f"{LONG},b,c\n1,2,3\n", {}),
    "given.csv": ("a,b,c\n1,2,3\n", {"time": LONG}),
    "cell.csv": (f"source,target,time\na,b,{LONG}\n", {}),
    "weight.csv": (f"source,target,time,weight\na,b,1,{LONG}\n", {}),
    "under.csv": ("source,target,time,weight\na,b,1,1e-400\n", {}),
    "label.csv": ("source,target,time\na,,1\n", {}),
    "precision.csv": ("source,target,time\na,b,2024-05-01 08:00\nb,a,2025\n", {"bin": "1D"}),
    "format.csv": ("source,target,time\na,b,01/02/2024\n", {"bin": "1D", "time_format": LONG}),
    "bin.csv": ("source,target,time\na,b,2024-05-01\n", {"bin": LONG}),
    "latin1.csv": ("source,target,time\nJos\xe9,b,1\n".encode("latin-1"), {}),
    "span.csv": ("source,target,time\na,b,0\nb,a,1000000000000000\n", {}),
    "leap.csv": ("source,target,time\na,b,2016-12-31T23:59:60Z\n", {"bin": "1D"}),
    "more.csv": ("source,target,time\na,b,1,5\n", {}),
    "bomb.txt.gz": (gzip.compress(b"1 2 3\n" * 3_000_000), {}),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_every_reader_refusal_is_one_short_line(tmp_path, monkeypatch, name):
    """Leftover d: H8's refusal was ~330 characters; every refusal of a reader is one
    line of at most 300 characters with a 70-character path (long cells and option
    values shortened)."""
    content, options = REFUSALS[name]
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "40MB")
    with pytest.raises((RunFormatError, BudgetError, ValueError)) as e:
        as_series(path, **options)
    text = str(e.value)
    assert "\n" not in text
    assert str(path) in text or path.name in text, text
    shown = text.replace(str(path), "p" * PATH_CHARS)
    assert len(shown) <= 300, (len(shown), text)


def test_an_endless_iterator_of_empty_graphs_stops_early(monkeypatch):
    """Leftover e: `nx.DiGraph() for _ in itertools.count()` was stopped only after ~105 s
    (15.6 million empty steps at 64 B each under 1 GiB): each step now counts at least
    the graph object held (512 B), and the line promises no limit (it may never end)."""
    import itertools

    import networkx as nx

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "16MB")
    with pytest.raises(BudgetError) as e:
        as_series(nx.DiGraph() for _ in itertools.count())
    text = str(e.value)
    assert "networkx graphs: " in text and "steps so far (0 edge-steps" in text
    assert "at least 512 B a step" in text and "an iterator may never end" in text
    assert "to run it" not in text and len(text) <= 300
    steps = int(text.split("graphs: ")[1].split()[0])  # stopped at the budget, not later
    assert 16e6 / (512 + 64) - 2 <= steps <= 16e6 / (512 + 64) + 2  # the budget / step

    class Unread(list):  # a list whose graphs must not be read
        def __iter__(self):
            raise AssertionError("a graph was read before the length was checked")

    with pytest.raises(
        BudgetError,
        match=r"networkx graphs: 10000000 steps \(at least 512 B a step\) need about 5\.4 GiB",
    ):
        as_series(Unread([nx.DiGraph()] * 10**7))
    assert as_series([nx.DiGraph([(0, 1)])] * 5_000).n_steps == 5_000  # 4.9 MB: read


# -- leftovers a and b: the file's line (and column) in every text-file refusal -------


@pytest.mark.parametrize(("name", "content", "line", "column"), [
    ("x.csv", "source,target,time\na,b,1\n\nJos\xe9,b,2\n", 4, 4),
    ("x.txt", "# SNAP\n% more\n1 2 3\n2 caf\xe9 4\n", 4, 6),
    ("out.x", "% sym\n1 2 1 5\r\n2 3 1 \xff6\r\n", 3, 7),
    ("h.csv", "s\xf6urce,target,time\na,b,1\n", 1, 2),
])  # fmt: skip
def test_a_byte_that_is_not_utf8_is_named_by_its_line_and_column(tmp_path, name, content,
                                                                 line, column):  # fmt: skip
    """G1's Latin-1 part: "'utf-8' codec can't decode byte 0xe9 in position 22" named a
    byte offset of pandas' buffer; now the line and column, as an editor shows them."""
    path = tmp_path / name
    data = content.encode("latin-1")
    path.write_bytes(data)
    bad = next(b for b in data if b >= 0x80)
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    assert str(e.value) == (
        f"{str(path)!r} line {line}, column {column}: byte 0x{bad:02x} is not UTF-8: save the "
        "file as UTF-8, or read it with pandas.read_csv(..., encoding=...) and pass the DataFrame"
    )
    gz = tmp_path / (name + ".gz") if name != "out.x" else tmp_path / "out.x.gz"
    gz.write_bytes(gzip.compress(data))  # the decompressed file's line
    with pytest.raises(RunFormatError, match=f"line {line}, column {column}: byte"):
        as_series(gz)


#: A cell refused in three forms of one file: (name, content, options, line).
LINES = [
    ("csv with a header", "h.csv", "source,target,time\na,b,1\n\nb,,2\n", {}, 4),
    ("headerless SNAP with comments", "s.txt", "# SNAP\n# FromNodeId\tToNodeId\n1 2 100\n\n"
     "2 3 x\n", {}, 5),
    ("KONECT with % lines", "out.k", "% sym unweighted\n% 3 3 3\n1 2 1 100\n2 3 -1 200\n", {},
     4),
    ("quoted line break", "q.csv", 'source,target,time\na,"b\nc",1\nc,d,2.5\n', {}, 4),
    ("named positions", "t.dat", "# t i j\n100 a b\n101 b\n", {"columns": "time,source,target"},
     3),
    ("compressed", "c.txt.gz", "# c\n\n1 2 1e-400\n", {}, 3),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "options", "line"), [c[1:] for c in LINES],
                         ids=[c[0] for c in LINES])  # fmt: skip
def test_a_refused_cell_of_a_text_file_names_its_line(tmp_path, name, content, options, line):
    """Leftover b: "row 1" (the 0-based data row) for the file's line 4; one rule, the
    file's line as an editor counts it (header, comments and blank lines included)."""
    path = tmp_path / name
    path.write_bytes(gzip.compress(content.encode()) if name.endswith(".gz") else content.encode())
    with pytest.raises(ValueError) as e:
        as_series(path, **options)
    text = str(e.value)
    assert f" line {line}" in text and not re.search(r"\brows? \d", text), text
    assert text.startswith(repr(str(path)) + ": ")


def test_a_dataframe_keeps_its_row_positions():
    """A DataFrame has no lines: its refusals name the 0-based row, and carry it."""
    import pandas as pd

    from baygo_graph.exceptions import CellError

    frame = pd.DataFrame({"source": ["a", "b", "c"], "target": ["b", "c", ""], "time": [0, 1, 2]})
    with pytest.raises(CellError, match="column 'target' is empty in row 2") as e:
        as_series(frame.set_axis([10, 20, 30]))  # the position, not the index label
    assert e.value.row == 2


def test_every_missing_column_is_named_in_one_line(tmp_path):
    """Leftover c: 'no 'time' column', then after a fix 'no 'target' column'..."""
    path = tmp_path / "cols.csv"
    path.write_text("src,dst,when\n1,2,3\n")
    with pytest.raises(RunFormatError) as e:
        as_series(path, source="src")
    assert str(e.value) == (
        f"{str(path)!r}: no 'target' or 'time' column (the 3 columns are 'src', 'dst', 'when'): "
        "name them with target=..., time=... (CLI: --target, --time-column)"
    )


# -- hostile7 ------------------------------------------------------------------------


def test_complex_weights_are_refused_in_every_form():
    """K1: a complex weight column was cast to its real part (1+5j -> 1) with only
    numpy's ComplexWarning; a graph's np.complex128 weight the same; 10**400 gave a bare
    OverflowError."""
    import networkx as nx
    import numpy as np
    import pandas as pd

    base = {"source": ["a", "b", "c"], "target": ["c", "c", "a"], "time": [0, 0, 0]}
    frame = pd.DataFrame(base | {"weight": np.array([1 + 5j, 2, 1])})
    with pytest.raises(ValueError, match="'weight' holds complex numbers .* must be real"):
        as_series(frame)
    mixed = pd.DataFrame(base | {"weight": pd.Series([1, 1 + 5j, 2], dtype=object)})
    with pytest.raises(ValueError, match=r"row 1: \(1\+5j\) is not a number \(a complex"):
        as_series(mixed)
    plain = pd.DataFrame(base | {"weight": pd.Series([1, 2.5, 3], dtype=object)})
    assert as_series(plain, self_weight=0).weights(0).toarray()[2].tolist() == [
        1 / 3.5,
        2.5 / 3.5,
        0,
    ]
    for w, why in [(np.complex128(1 + 2j), "a complex128 is not a number"),
                   (10**400, "it is too large for a float")]:  # fmt: skip
        g = nx.DiGraph([("a", "b", {"weight": w}), ("c", "b", {"weight": 1})])
        with pytest.raises(ValueError, match=f"graph 0: edge 'a' -> 'b': weight .*: {why}"):
            as_series([g])


def test_a_numpy_true_marks_the_informative_agent_and_other_marks_are_refused():
    """K3: informative=np.True_ (a mask computed with numpy) was ignored: no informative
    agent, no word. A bool of either kind marks it; any other value is refused."""
    import networkx as nx
    import numpy as np

    g = nx.DiGraph([("a", "b")])
    marks = dict(zip(["a", "b"], np.array([True, False]), strict=True))
    nx.set_node_attributes(g, marks, "informative")
    assert as_series([g]).informative == 0 and as_series([g, g]).informative == 0
    for value in (1, "yes", "False", 1.0):
        h = nx.DiGraph([("a", "b")])
        h.nodes["b"]["informative"] = value
        with pytest.raises(ValueError, match=r"graph 0: node 'b': informative=.* is not a bool"):
            as_series([h])


def _int_label_series():
    import networkx as nx

    g0 = nx.DiGraph()
    g0.add_edge(10, 2, weight=1.0)
    g0.add_edge(2, 3, weight=2.5)
    g0.add_edge(3, 3, weight=1.0)
    g0.nodes[10]["informative"] = True
    g1 = nx.DiGraph()
    g1.add_edge(3, 10, weight=3.0)
    g1.add_node(2)
    return as_series([g0, g1, g0], self_weight=0.25)


@pytest.mark.parametrize(("suffix", "stride"), [(".json", 3), (".graphml", 7)])
def test_a_flipped_bit_of_a_json_or_graphml_series_is_never_read_as_another(tmp_path, suffix,
                                                                            stride):  # fmt: skip
    """K6: integer ids 2 -> 3 rewired edges, a weight's 11th decimal passed the row-sum
    tolerance, a flip in GraphML's attr.name="informative" dropped the informative agent:
    each read back as another series. The files now carry the series' SHA-256, as GEXF's
    do; every flip (here one byte in `stride`, and the three above) is refused or gives
    the same series."""
    from baygo_graph import write_series
    from baygo_graph.inputs import read_series

    series = _int_label_series()
    path = write_series(series, tmp_path / f"s{suffix}")
    blob = path.read_bytes()
    back = read_series(path)
    assert back.nodes == series.nodes and back.informative == series.informative == 2

    def same(other) -> bool:
        marks = (other.nodes, other.informative, other.n_steps)
        return marks == (series.nodes, series.informative, series.n_steps) and all(
            (other.weights(t) != series.weights(t)).nnz == 0 for t in range(3)
        )

    text = blob.decode()
    chosen = [text.index('"source": 2') + 10 if suffix == ".json" else text.index('source="2"') + 8,
              text.index("0.7142857142857143") + 13, text.index("informative")]  # fmt: skip
    flip = tmp_path / f"f{suffix}"
    for i in [*range(0, len(blob), stride), *chosen]:
        b = bytearray(blob)
        b[i] ^= 0x01
        flip.write_bytes(bytes(b))
        try:
            other = read_series(flip)
        except (RunFormatError, BudgetError, ValueError) as e:
            assert "\n" not in str(e) and len(str(e).replace(str(flip), "f")) <= 300
            continue
        assert same(other), (i, chr(blob[i]), blob[max(0, i - 20) : i + 10])


def test_a_header_of_many_unused_columns_is_bounded(tmp_path, monkeypatch):
    """K4: 500,000 unused columns (6.9 MB, 3 rows) took 2.1 GB and 229 s under a 300 MiB
    budget; 2 x 10^6 ran out of memory. The unused columns are dropped as rows are
    parsed, and the header is checked against the budget before it is split."""
    import tracemalloc

    def wide(n: int):
        path = tmp_path / f"wide{n}.csv"
        extra = ",".join(f"c{i}" for i in range(n))
        ones = ",".join("1" * n)
        path.write_text(
            f"source,target,time,{extra}\n" + "".join(f"a,b,{r},{ones}\n" for r in range(3))
        )
        return path

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MB")
    small = wide(50_000)
    tracemalloc.start()
    try:
        series = as_series(small)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert series.nodes == ("a", "b") and series.n_steps == 3
    assert peak < 40 * 2**20, peak  # ~360 B a column: unused columns are never a frame's
    small.write_text(small.read_text() + "a,b,3," + ",".join("1" * 50_001) + "\n")
    with pytest.raises(RunFormatError, match="line 5 holds 50004 values, more than the header"):
        as_series(small)  # dropped columns, but a wider row is still refused
    with pytest.raises(BudgetError) as e:
        as_series(wide(200_000))
    assert "reading the header of 'wide200000.csv' (200,003 columns) needs" in str(e.value)
    assert "save only the columns used" in str(e.value)


def test_a_parquet_label_of_many_megabytes_is_counted_before_decoding(tmp_path, monkeypatch):
    """K5: a 7 KB Parquet file of 2 rows whose label is 100 MiB of text (zstd) took
    1.0 GB under a 300 MiB budget; 400 MiB died in realloc. The text columns'
    uncompressed pages (the footer) count, and only the columns used are read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    big = "x" * (8 * 2**20)
    path = tmp_path / "long.parquet"
    table = pa.table({"source": [big, "b"], "target": ["b", big], "time": [0, 1],
                      "notes": ["n", "m"]})  # fmt: skip
    pq.write_table(table, path, compression="zstd")
    assert path.stat().st_size < 20_000
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MB")
    with pytest.raises(BudgetError) as e:
        as_series(path)
    text = str(e.value)
    assert "reading the 2 rows of " in text and "column 'source' holds 8.0 MiB of text" in text
    assert "or more to read it" in text and len(text.replace(str(path), "p")) <= 300
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1GB")
    assert as_series(path).nodes == ("b", big)


@pytest.mark.parametrize("label", [1.0, (0, 0), True, "np.float64", "np.bool_"])
def test_graph_labels_that_are_not_integers_or_text_are_refused_at_the_door(tmp_path, label):
    """K2: float, tuple, bool and numpy-float node labels passed the door; write_series
    then refused them, or wrote a GEXF its reader called damaged."""
    import networkx as nx
    import numpy as np

    from baygo_graph import write_series

    label = {"np.float64": np.float64(1.5), "np.bool_": np.bool_(True)}.get(label, label)
    g = nx.DiGraph([(label, "b"), ("b", label)])
    with pytest.raises(ValueError, match="node label .* is a .*: node labels are integers or text"):
        as_series([g])
    with pytest.raises(ValueError, match="node labels are integers or text"):
        write_series([g], tmp_path / "x.gexf")
    assert not (tmp_path / "x.gexf").exists()
    assert as_series([nx.DiGraph([(np.int64(1), np.str_("a"))])]).nodes == (1, "a")  # made plain


@pytest.mark.parametrize("store_schema", [True, False], ids=["categorical", "plain strings"])
def test_a_parquet_label_repeated_by_its_dictionary_is_counted_decoded(tmp_path, monkeypatch,
                                                                       store_schema):  # fmt: skip
    """K5's sibling: one 1 MiB label in a dictionary page, repeated by 3,000 rows, is a
    9 KB file that decodes to 3 GiB (2.3 GB peak under a 1 GiB budget, or a crash): each
    string column's decoded size is counted from its dictionary and indices first."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 2_000
    label = pa.array(["y" * 2**16])
    source = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), label)
    table = pa.table({"source": source, "target": [f"n{i % 10}" for i in range(rows)],
                      "time": np.arange(rows)})  # fmt: skip
    path = tmp_path / "dict.parquet"
    pq.write_table(table, path, compression="zstd", store_schema=store_schema)
    assert path.stat().st_size < 20_000
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MB")
    with pytest.raises(BudgetError, match=r"\(decoded; column 'source' holds 125\.0 MiB of text"):
        as_series(path)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "2GB")
    assert len(as_series(path).nodes) == 11


def _gexf(tmp_path, edges: str, graph: str = "") -> object:
    path = tmp_path / "t.gexf"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><gexf xmlns="http://gexf.net/1.3" version="1.3">'
        f'<graph mode="dynamic" defaultedgetype="directed" timeformat="integer" {graph}>'
        '<nodes><node id="a"/><node id="b"/><node id="c"/></nodes>'
        f"<edges>{edges}</edges></graph></gexf>"
    )
    return path


@pytest.mark.parametrize("timed", [
    '<edge id="1" source="b" target="c"><timestamps><timestamp value="5"/></timestamps></edge>',
    '<edge id="1" source="b" target="c" timestamp="5"/>',
    '<edge id="1" source="b" target="c"><spells><spell start="5" end="5"/></spells></edge>',
])  # fmt: skip
def test_gexf_13_timestamps_place_an_edge_at_its_steps(tmp_path, timed):
    """K11: a GEXF 1.3 timestamp (element or attribute) was ignored: the edge held at
    every step, exit 0."""
    edges = ('<edge id="0" source="a" target="b" start="0" end="0"/>' + timed
             + '<edge id="2" source="c" target="a" start="9" end="9"/>')  # fmt: skip
    s = as_series(_gexf(tmp_path, edges, 'timerepresentation="timestamp"'))
    indptr, src, dst = s.edges
    held = [(t, s.nodes[src[j]], s.nodes[dst[j]]) for t in range(s.n_steps)
            for j in range(indptr[t], indptr[t + 1]) if src[j] != dst[j]]  # fmt: skip
    assert s.n_steps == 10 and held == [(0, "a", "b"), (5, "b", "c"), (9, "c", "a")]


@pytest.mark.parametrize("inline", ['spells="&lt;[5,5]&gt;"', 'timestamps="&lt;[5]&gt;"'])
def test_gexf_13_inline_timing_is_refused_not_read_as_every_step(tmp_path, inline):
    """K11: the inline forms were ignored silently; they are refused in one line."""
    edges = ('<edge id="0" source="a" target="b" start="0" end="0"/>'
             f'<edge id="1" source="b" target="c" {inline}/>')  # fmt: skip
    with pytest.raises(RunFormatError, match=r"edge 1 \(b -> c\): the inline .* form is not read"):
        as_series(_gexf(tmp_path, edges))


def test_a_long_time_cell_keeps_its_quotes_and_the_cli_line_its_reason(tmp_path, capsys):
    """K13 (reader part): a 45-character time cell was quoted as "'ZZZ... (17 more
    characte" (no closing quote), and the CLI's own shortening then cut the reason out.
    A zone name in brackets (Java's ZonedDateTime text) is named as such."""
    from baygo_graph.cli import main

    path = tmp_path / "longcell.csv"
    path.write_text("source,target,time\nx,y," + "Z" * 45 + "\ny,x,1\n")
    with pytest.raises(ValueError) as e:
        as_series(path)
    assert "'ZZZZZZZZZZZZZZZZZZZZZZZZZ...' (20 more characters) is not ISO 8601" in str(e.value)
    java = tmp_path / "java.csv"
    java.write_text("source,target,time\nx,y,2024-05-01T08:00+02:00[Europe/Paris]\n")
    with pytest.raises(ValueError, match=r"line 2: .* a zone name in brackets .* keep the UTC"):
        as_series(java, bin="1D")
    try:
        code = main(["analyze", str(path)])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err.strip()
    assert code == 1 and "\n" not in err and "(20 more characters) is not ISO 8601" in err


@pytest.mark.parametrize(("name", "content", "where"), [
    ("lat.json", '{"format": "baygo-graph-series", "graphs": [{"nodes": [{"id": "Jos\xe9"}], '
     '"edges": []}]}', "line 1, column 67"),
    ("lat.gexf", '<?xml version="1.0" encoding="UTF-8"?>\n<gexf version="1.2"><graph '
     'defaultedgetype="directed"><nodes><node id="Jos\xe9"/></nodes></graph></gexf>',
     "line 2, column 75"),
])  # fmt: skip
def test_a_series_file_that_is_not_utf8_names_the_byte(tmp_path, name, content, where):
    """Leftover a, for series files: a JSON series echoed its bytes in a UnicodeDecodeError
    repr, a GEXF one said Expat's "not well-formed (invalid token)"."""
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    assert str(e.value) == f"{str(path)!r} {where}: byte 0xe9 is not UTF-8: save the file as UTF-8"
    declared = content.replace("UTF-8", "ISO-8859-1").encode("latin-1")
    if name.endswith(".gexf"):  # a file that says its encoding is read by it
        path.write_bytes(declared)
        assert as_series(path).nodes == ("Jos\xe9",)


@pytest.mark.parametrize("name", ["z.json", "z.gexf", "z.graphml", "z.npz", "rz", "fifo.json"])
def test_a_series_or_run_that_is_a_device_or_fifo_is_named_as_such(tmp_path, name):
    """K16: 'no graph series at z.json' / 'no saved run at rz/run.npz' for a link to
    /dev/zero or a FIFO (there is something there); G17's words for edge lists, for all."""
    import os

    from baygo_graph import Run

    path = tmp_path / name
    if name == "rz":
        path.mkdir()
        (path / "run.npz").symlink_to("/dev/zero")
    elif name.startswith("fifo"):
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    what = "saved runs" if name in ("z.npz", "rz") else "graph series"
    for read in (as_series, Run.load) if what == "saved runs" else (as_series,):
        with pytest.raises(RunFormatError, match=r"is not a regular file \(a FIFO, device or "
                           f"socket\\): baygo reads {what} from files"):  # fmt: skip
            read(path)


@pytest.mark.parametrize("rows", ['"a, b", c, 0\nc, "a, b", 1\n', '"a,b",c,0\nc,"a,b",1\n'])
def test_a_hashed_header_is_read_whatever_the_first_row_quotes(tmp_path, rows):
    """K18: a first data row starting with a quoted label made the '# source, target,
    time' header unrecognised: 'no 'source' ... column (the 3 columns are 'a, b', ...)'."""
    path = tmp_path / "edges.csv"
    path.write_text("# source, target, time\n" + rows)
    series = as_series(path)
    assert series.n_steps == 2 and set(series.nodes) == {"c", rows[1:5].replace('"', "")}


@pytest.mark.parametrize("kind", ["Directed", "DIRECTED", "dirdcted", ""])
def test_a_gexf_edge_type_of_no_known_value_is_refused_not_read_two_way(tmp_path, kind):
    """K21: any edge type but exactly 'directed' was read as two-way (a reverse edge
    gained per contact); defaultedgetype was already checked."""
    edges = f'<edge id="0" source="a" target="b" type="{kind}"/>'
    with pytest.raises(RunFormatError, match="edge 0 .*: type must be directed, undirected"):
        as_series(_gexf(tmp_path, edges))


def test_a_gexf_informative_value_that_is_no_boolean_is_refused(tmp_path):
    """K22: informative='yes' was dropped silently in GEXF (refused for graphs, GraphML)."""
    path = tmp_path / "i.gexf"
    for value, informative in (("yes", None), ("true", 0), ("1", 0), ("false", None)):
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?><gexf version="1.2"><graph '
            'defaultedgetype="directed"><attributes class="node"><attribute id="0" '
            'title="informative" type="boolean"/></attributes><nodes><node id="a"><attvalues>'
            f'<attvalue for="0" value="{value}"/></attvalues></node><node id="b"/></nodes>'
            '<edges><edge id="0" source="a" target="b"/></edges></graph></gexf>'
        )
        if informative is None and value == "yes":
            with pytest.raises(RunFormatError, match="node 'a': informative='yes' is not a"):
                as_series(path)
        else:
            assert as_series(path).informative == informative


def test_a_table_of_another_library_or_a_list_of_rows_says_what_to_give():
    """K20: a polars DataFrame was iterated as a sequence of graphs ('graphs[0] must be a
    networkx.DiGraph or Graph, got Series'); a list of row tuples the same."""
    import numpy as np
    import pyarrow as pa

    with pytest.raises(TypeError, match=r"got Table \(a pyarrow table: pass it as a pandas"):
        as_series(pa.table({"source": ["a"], "target": ["b"], "time": [0]}))
    rows = np.rec.fromrecords([("a", "b", 0)], names="source,target,time")
    for given in (rows, [("a", "b", 0), ("b", "a", 1)]):
        with pytest.raises(TypeError, match=r"graphs\[0\] .* \(a row: give an edge list as a"):
            as_series(given)
