"""Hostile rounds 13-14, reader side: what a compressed file holds once decompressed,
long spans, integer labels, ties."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import as_series
from baygo_graph.exceptions import RunFormatError

_CODECS = {".gz": (gzip.compress, "gzip -d"), ".bz2": (bz2.compress, "bzip2 -d"),
           ".xz": (lzma.compress, "xz -d")}  # fmt: skip
_TEXT = b"1 2 100\n2 3 160\n"


def _parquet() -> bytes:
    out = io.BytesIO()
    pd.DataFrame({"source": [1, 2], "target": [2, 3], "time": [0, 1]}).to_parquet(out)
    return out.getvalue()


@pytest.mark.parametrize("outer", list(_CODECS))
@pytest.mark.parametrize("inner", [*_CODECS, ".parquet", ".zip"])
@pytest.mark.parametrize("name", ["e.txt", "e.csv"])
def test_what_a_compressed_file_holds_is_named(tmp_path, outer, inner, name):
    """gzip inside .bz2, a file compressed twice, a gzipped Parquet file were told "holds NUL
    bytes ... UTF-16 or UTF-32 text: save it as UTF-8" (hostile round 13, Q13 one level
    down): the line names both layers and how to undo them."""
    if inner in _CODECS:
        content = _CODECS[inner][0](_TEXT)
    elif inner == ".parquet":
        content = _parquet()
    else:
        import zipfile

        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("e.txt", _TEXT)
        content = out.getvalue()
    path = tmp_path / (name + outer)
    path.write_bytes(_CODECS[outer][0](content))
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    text = str(e.value)
    assert "UTF" not in text and len(text) <= 300, text
    assert f"decompress it ({_CODECS[outer][1]} FILE" in text or (
        f"decompress both layers ({_CODECS[outer][1]} FILE, then {_CODECS[inner][1]}" in text
    ), text
    words = {".parquet": "holding a Parquet file", ".zip": "holding a zip archive"}
    if inner in words:
        assert words[inner] in text, text
    else:
        assert ("again (compressed twice)" in text) == (inner == outer), text


def test_text_starting_par1_is_still_read(tmp_path):
    """A label PAR1 at the top of a compressed text file is text, not a Parquet file."""
    path = tmp_path / "e.txt.gz"
    path.write_bytes(gzip.compress(b"PAR1 2 100\n2 3 160\n"))
    assert as_series(path).nodes == ("2", "3", "PAR1")


def test_legacy_lzma_named_xz_is_named(tmp_path):
    path = tmp_path / "e.txt.xz"
    path.write_bytes(lzma.compress(_TEXT, format=lzma.FORMAT_ALONE))
    with pytest.raises(RunFormatError, match=r"is legacy lzma data \(\.lzma\), not xz: "):
        as_series(path)


_GRAPHML = (
    '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    '<key id="s" for="edge" attr.name="step" attr.type="{kind}"/>'
    '<key id="w" for="edge" attr.name="weight" attr.type="double"/>'
    '<graph edgedefault="directed"><node id="0"/><node id="1"/>'
    '<edge source="0" target="1"><data key="s">{step}</data><data key="w">1.0</data></edge>'
    '<edge source="1" target="0"><data key="s">0</data><data key="w">1.0</data></edge>'
    "</graph></graphml>"
)


@pytest.mark.parametrize(
    ("kind", "step", "shown"),
    [("long", "1" + "0" * 400, "1.000...e+400 (a 401-digit integer)"),
     ("double", "1E300", "1.000...e+300 (a 301-digit integer)"),
     ("long", "123456789012345678901", "1.234...e+20 (a 21-digit integer)")],
)  # fmt: skip
def test_a_huge_step_keeps_the_limit_on_the_line(tmp_path, kind, step, shown):
    """A 400-digit step filled the line, and the CLI's 300 characters cut off the limit it
    states (hostile round 12, Q7 nit): the number is shown by its size, the limit whole."""
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    path = tmp_path / "big.graphml"
    path.write_text(_GRAPHML.format(kind=kind, step=step))
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    text = str(e.value)
    assert f"declares {shown} steps for 2 edges: at most 4096 + (number of edges) steps " \
           "are accepted" in text and len(text) <= 300, text  # fmt: skip
    result = CliRunner().invoke(cli, ["analyze", str(path)])
    line = (str(result.exception) + result.output).strip().splitlines()[-1]
    assert line.endswith("steps are accepted") and len(line) <= 300, line


_TOP, _LOW = 2**63 - 1, -(2**63)


@pytest.mark.parametrize(
    "labels",
    [(1, 10**18, 3), (1, 4_611_686_018_427_387_904, 3), (_TOP, _LOW, 5), (-(10**18), 0, 7)],
)
@pytest.mark.parametrize("door", ["frame", ".csv", ".tsv", ".txt", ".txt.gz", ".parquet",
                                  "out.k", ".json", ".graphml", ".gexf"])  # fmt: skip
def test_int64_labels_read_the_same_through_every_door(tmp_path, labels, door):
    """19-digit labels (64-bit hashed ids, snowflake ids) read from CSV, TSV or SNAP text
    made every label of the file text where a DataFrame, Parquet, JSON, GraphML and GEXF
    gave ints: two rules of "a canonical integer" (hostile round 14, S1). One rule now:
    canonical digits within the signed 64-bit range."""
    from baygo_graph import write_series

    a, b, c = labels
    frame = pd.DataFrame({"source": [a, b, c], "target": [b, c, a], "time": [0, 1, 2]})
    expected = tuple(sorted(labels))
    path = tmp_path / ("e" + door if door.startswith(".") else door)
    if door in (".csv", ".tsv"):
        frame.to_csv(path, sep="," if door == ".csv" else "\t", index=False)
    elif door in (".txt", ".txt.gz", "out.k"):
        text = "".join(f"{u} {v} {t}\n" for u, v, t in frame.itertuples(index=False))
        data = ("% asym unweighted\n" if door == "out.k" else "") + text
        path.write_bytes(gzip.compress(data.encode()) if door.endswith(".gz") else data.encode())
    elif door == ".parquet":
        frame.to_parquet(path)
    elif door != "frame":
        write_series(frame, path)
    series = as_series(frame if door == "frame" else path)
    assert series.nodes == expected and all(type(v) is int for v in series.nodes)


@pytest.mark.parametrize("door", [".csv", ".txt", ".gexf", ".graphml"])
def test_a_label_past_int64_makes_the_file_text(tmp_path, door):
    """A 20-digit id (and 2^63) is text in every door that reads text: the file's labels
    stay text (never an integer past the 64-bit range one door would refuse)."""
    big = "9223372036854775808"
    path = tmp_path / ("e" + door)
    if door in (".csv", ".txt"):
        sep = "," if door == ".csv" else " "
        head = "source,target,time\n" if door == ".csv" else ""
        path.write_text(head + f"{big}{sep}1{sep}0\n1{sep}2{sep}1\n")
    elif door == ".gexf":
        path.write_text(
            '<?xml version="1.0"?><gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">'
            f'<graph defaultedgetype="directed"><nodes><node id="{big}"/><node id="1"/><node '
            f'id="2"/></nodes><edges><edge source="{big}" target="1"/><edge source="1" '
            'target="2"/></edges></graph></gexf>'
        )
    else:
        path.write_text(
            '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
            '<key id="s" for="edge" attr.name="step" attr.type="int"/><graph '
            f'edgedefault="directed"><node id="{big}"/><node id="1"/><node id="2"/><edge '
            f'source="{big}" target="1"><data key="s">0</data></edge><edge source="1" '
            'target="2"><data key="s">1</data></edge></graph></graphml>'
        )
    assert set(as_series(path).nodes) == {"1", "2", big}


def test_a_python_integer_label_past_int64_is_refused():
    import networkx as nx

    with pytest.raises(ValueError, match=r"node label 100000000000000000000 is an integer "
                                         r"beyond the signed 64-bit range"):  # fmt: skip
        as_series([nx.DiGraph([(10**20, 1)])])


_CHILD = """
import json, resource, sys
import pandas, pyarrow.parquet, baygo_graph as bg
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
s = bg.as_series(sys.argv[1])
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base
print(json.dumps({"grown_mib": grown, "steps": s.n_steps, "nodes": list(s.nodes)}))
"""


def test_parquet_row_groups_are_read_as_one_chunk(tmp_path):
    """10,000 one-row row groups (an appending writer's file): pandas.read_parquet kept one
    Arrow chunk per group, ~15 kB each (30,000 rows: 450 MB, 2.3x the budget; hostile
    round 14, S5). Read as one chunk per column, the same frame, a few MiB."""
    import json
    import subprocess
    import sys

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 10_000
    table = pa.table({"source": np.arange(n) % 7, "target": (np.arange(n) + 1) % 7,
                      "time": np.arange(n) % 50})  # fmt: skip
    path = tmp_path / "rg.parquet"
    pq.write_table(table, path, row_group_size=1, compression="none", write_statistics=False)
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                          text=True, timeout=300, check=True)  # fmt: skip
    out = json.loads(done.stdout)
    assert (out["steps"], out["nodes"]) == (50, list(range(7)))
    assert out["grown_mib"] < 90, out  # read_parquet: ~150 MiB for these 10,000 groups
    frame = table.to_pandas()
    assert as_series(path).weights(3).toarray().tolist() == as_series(frame).weights(
        3).toarray().tolist()  # fmt: skip


def test_a_parquet_footer_is_budgeted_before_it_is_parsed(tmp_path, monkeypatch):
    """100,000 unused columns: a 15 MiB footer parsed into ~250 MiB before any check
    (S5): its length (the 4 bytes before the closing PAR1) is checked first."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from baygo_graph.exceptions import BudgetError

    cols = {"source": pa.array([1, 2]), "target": pa.array([2, 1]), "time": pa.array([0, 1])}
    cols |= {f"c{i}": pa.array(np.zeros(2, np.int8)) for i in range(5_000)}
    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table(cols), path, compression="none", write_statistics=False)
    assert as_series(path).nodes == (1, 2)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1MiB")
    with pytest.raises(BudgetError, match=r"^parsing the [0-9.]+ [KM]iB footer of '.*wide"
                                          r"\.parquet' needs about .* rewrite it with fewer "
                                          r"row groups or columns"):  # fmt: skip
        as_series(path)


def _star_csv(tmp_path):
    rows = ["source,target,time"] + [f"hub,leaf{i},{t}" for t in range(6) for i in range(8)]
    path = tmp_path / "star.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_node_nobody_hears_is_not_ranked_second(tmp_path):
    """A leaf with influence 0 in every window was "mean rank 2.0 of 9 (1 = most)": tied
    zeros share the better rank and the line did not say so (hostile round 14, S2)."""
    import json

    from click.testing import CliRunner

    from baygo_graph.analysis import analysis_report
    from baygo_graph.cli import cli

    path = _star_csv(tmp_path)
    out = CliRunner().invoke(cli, ["analyze", str(path), "--window", "3", "--focus", "leaf7"])
    lines = [x for x in out.output.splitlines() if x.startswith("influence (")]
    assert len(lines) == 2 and all(
        x.endswith("influence 0 in every window: no rank (tied at 0 with 7.0 others on "
                   "average)") for x in lines), lines  # fmt: skip
    rank = analysis_report(as_series(path), window=3, focus="leaf7").as_dict()
    rank = rank["influence"]["union"]["focus_rank"]
    # the JSON reads as the text does: no rank in a window without influence (it was
    # "mean": 2.0 beside the text's "no rank": hostile round 15, T1)
    assert (rank["mean"], rank["n"], rank["tied"], rank["tied_with"], rank["zero_windows"]) == (
        None, 0, 1.0, 7.0, 4)  # fmt: skip
    out = CliRunner().invoke(cli, ["analyze", str(path), "--window", "3", "--focus", "hub",
                                   "--json"])  # fmt: skip
    hub = json.loads(out.output)["influence"]["union"]["focus_rank"]
    assert (hub["mean"], hub["tied"], hub["zero_windows"]) == (1.0, 0.0, 0)


def test_a_shared_rank_says_it_is_shared(tmp_path):
    """Two nodes that hear each other and nobody else: each ranks 1 of 4, tied with the
    other in every window, and the line says so."""
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    path = tmp_path / "pair.csv"
    path.write_text("source,target,time\n" + "".join(
        f"a,b,{t}\nb,a,{t}\na,c,{t}\nb,d,{t}\n" for t in range(4)))  # fmt: skip
    out = CliRunner().invoke(cli, ["analyze", str(path), "--window", "2", "--focus", "a"])
    line = next(x for x in out.output.splitlines() if x.startswith("influence (union"))
    assert line.endswith(
        "mean rank 1.0 of 4 (1 = most; tied in 100% of the windows, with "
        "1.0 others on average: ties share the better rank)"
    ), line


@pytest.mark.parametrize(
    ("option", "words"),
    [(["--bin", "1D" + "x" * 300], "'--bin': must be a positive integer, a duration"),
     (["--columns", "source,target,time," + "x" * 300], "each position is one of source, "
                                                         "target, time, weight or - (skip)"),
     (["--self-weight", "x" * 5000], "'--self-weight': must be 'equal' or a number in [0, 1]"),
     (["--time-format", "x" * 5000], "'--time-format': must be 'unix', 'unix-ms'")],
)  # fmt: skip
@pytest.mark.parametrize("depth", [3, 15])
def test_a_long_path_and_value_leave_the_words_whole(tmp_path, capsys, option, words, depth):
    """A 146-character path and a 300-character option value: the line was cut through its
    words ("'project_.../p... (111 more characters) ...sitive int for ..."; hostile round
    14, S4): paths and values are quoted with both quotes kept and shortened, the words
    and the file name stay."""
    from baygo_graph.cli import ERROR_CHARS, main

    folder = tmp_path.joinpath(*[("project_" + "d" * 40) if depth == 3 else "d" * 200] * depth)
    folder.mkdir(parents=True)
    (folder / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    try:
        code = main(["analyze", str(folder / "c.csv"), *option])
    except SystemExit as e:
        code = e.code
    line = capsys.readouterr().err.strip()
    assert code in (1, 2), code
    assert line.startswith("baygo: error: ") and "\n" not in line, line
    named = "/c.csv'" in line or line.startswith("baygo: error: Invalid value for")
    assert len(line) <= ERROR_CHARS + 20 and words in line and named, line  # --columns:
    # a usage error, checked before the file is read (exit code 2): the option named


@pytest.mark.parametrize("name", ["mid.txt", "mid.txt.gz", "mid.csv.gz", "out.mid"])
def test_comments_inside_the_data_are_refused_before_they_count_as_rows(tmp_path, monkeypatch,
                                                                        name):  # fmt: skip
    """300,000 `#a` lines after the first row were counted as rows by the budget check
    before the comment check ran on the whole frame: "... rows so far ... need about ...
    MiB" for a file of 2 rows (hostile round 14, S6). Each chunk is checked first."""
    from baygo_graph.limits import process_memory

    head = "source,target,time\n" if ".csv" in name else ""
    text = (head + "1,2,3\n" + "#a\n" * 300_000 + "2,1,4\n").encode()
    if ".csv" not in name:
        text = text.replace(b",", b" ")
    path = tmp_path / name
    path.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", str(process_memory() + (32 << 20)))
    line = 3 if ".csv" in name else 2
    with pytest.raises(RunFormatError, match=rf"line {line} starts with '#a': comment lines "
                                             "are read only before the data"):  # fmt: skip
        as_series(path)


def test_a_label_starting_with_a_hash_is_read_in_a_file_with_a_header(tmp_path):
    path = tmp_path / "tags.csv"
    path.write_text("source,target,time\n#ai,#ml,0\n#ml,#ai,1\n")
    assert as_series(path).nodes == ("#ai", "#ml")


@pytest.mark.parametrize(("values", "labels"), [(["a", "b", "c"], ("a", "b", "c")),
                                                ([1, 2, 3], (1, 2, 3))])  # fmt: skip
@pytest.mark.parametrize("backend", ["numpy_nullable", "pyarrow", None])
def test_arrow_dictionary_labels_are_read_as_their_values(tmp_path, values, labels, backend):
    """pd.read_parquet(path, dtype_backend="pyarrow") of dictionary-encoded columns (how
    pyarrow, Spark and polars write categoricals) was refused as "unknown-array (object)
    labels" (hostile round 14, S8): read as its values, as the path door reads the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rolled = values[1:] + values[:1]
    table = pa.table({"source": pa.array(values).dictionary_encode(),
                      "target": pa.array(rolled).dictionary_encode(),
                      "time": [0, 1, 2]})  # fmt: skip
    path = tmp_path / "dict.parquet"
    pq.write_table(table, path)
    frame = pd.read_parquet(path, **({} if backend is None else {"dtype_backend": backend}))
    assert as_series(frame).nodes == as_series(path).nodes == labels


def test_a_refused_arrow_label_dtype_is_named_as_pandas_names_it():
    frame = pd.DataFrame({"source": pd.array([1.5, 2.5], dtype="double[pyarrow]"),
                          "target": pd.array([2.5, 1.5], dtype="double[pyarrow]"),
                          "time": [0, 1]})  # fmt: skip
    with pytest.raises(ValueError, match=r"column 'source' holds double\[pyarrow\] labels"):
        as_series(frame)


def _gexf(times: str, node_extra: str = "", *, attribute: tuple = ()) -> str:
    """A 3-node GEXF: edge a -> b at ``times``, c -> b over [0, 9]; ``attribute``, a
    ``(class, id, title)`` dynamic double attribute declared before the nodes."""
    declared = ""
    if attribute:
        cls, key, title = attribute
        declared = (f'<attributes class="{cls}" mode="dynamic"><attribute id="{key}" '
                    f'title="{title}" type="double"/></attributes>')  # fmt: skip
    return (
        '<?xml version="1.0" encoding="UTF-8"?><gexf xmlns="http://gexf.net/1.3" '
        'version="1.3"><graph mode="dynamic" defaultedgetype="directed" '
        f'timeformat="integer">{declared}<nodes><node id="a"/><node id="b">{node_extra}</node>'
        '<node id="c"/></nodes><edges><edge id="0" source="a" target="b">'
        f'{times}</edge><edge id="1" source="c" target="b" start="0" end="9"/></edges>'
        "</graph></gexf>"
    )


@settings(max_examples=25, deadline=None)
@given(spells=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1,
                       max_size=4),
       stamps=st.lists(st.integers(0, 9), max_size=3))  # fmt: skip
def test_gexf_spells_hold_at_the_union_of_their_steps(spells, stamps):
    """An edge with overlapping or repeated spells or timestamps was read as two contacts
    where they overlap: its weight doubled there (hostile round 14, S9). It holds at the
    union of their steps, once, whatever the repeats."""
    import tempfile
    from pathlib import Path

    spells = [(a, b) for a, b in spells if a <= b] or [(0, 0)]
    body = "<spells>" + "".join(f'<spell start="{a}" end="{b}"/>' for a, b in spells)
    body += "</spells>"
    if stamps:
        body += "<timestamps>" + "".join(f'<timestamp value="{t}"/>' for t in stamps)
        body += "</timestamps>"
    held = {t for a, b in spells for t in range(a, b + 1)} | set(stamps)
    path = Path(tempfile.mkdtemp()) / "o.gexf"
    path.write_text(_gexf(body))
    s = as_series(path)
    a, b = s.nodes.index("a"), s.nodes.index("b")
    w = [s.weights(t).toarray()[b, a] for t in range(s.n_steps)]
    assert w == pytest.approx([1 / 3 if t in held else 0.0 for t in range(10)], abs=1e-15)


def test_two_self_weights_for_one_step_are_refused(tmp_path):
    """The self-weight's sibling: two attvalues of one node's self_weight at one step were
    added (1.0 + 0.5): refused as two weights of one edge are."""
    node = ('<attvalues><attvalue for="sw" value="0.5" start="0" end="4"/><attvalue for="sw" '
            'value="0.25" start="3" end="9"/></attvalues>')  # fmt: skip
    text = _gexf('<spells><spell start="0" end="9"/></spells>', node,
                 attribute=("node", "sw", "self_weight"))  # fmt: skip
    path = tmp_path / "sw.gexf"
    path.write_text(text)
    with pytest.raises(RunFormatError, match=r"node 'b' self_weight: two weights are given "
                                             r"for step 3"):  # fmt: skip
        as_series(path)


_GRAPHML_DUP = (
    '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    '<key id="s" for="edge" attr.name="step" attr.type="int"/>'
    '<key id="w" for="edge" attr.name="weight" attr.type="double"/>'
    '<key id="i" for="node" attr.name="informative" attr.type="boolean"/>'
    '<graph edgedefault="directed"><node id="a">{node}</node><node id="b"/>'
    '<edge source="a" target="b">{edge}</edge></graph></graphml>'
)


@pytest.mark.parametrize(
    ("node", "edge", "words"),
    [("", '<data key="s">0</data><data key="s">2</data>', "edge 0: 'step' is given twice "
                                                          "('0' and '2')"),
     ("", '<data key="s">0</data><data key="w">1</data><data key="w">5</data>',
      "edge 0: 'weight' is given twice ('1' and '5')"),
     ('<data key="i">true</data><data key="i">false</data>', '<data key="s">0</data>',
      "'informative' is given twice ('true' and 'false')")],
)  # fmt: skip
def test_graphml_data_given_twice_is_refused(tmp_path, node, edge, words):
    """Two <data> of one key on one element were read as the last, silently: a contact at
    step 0 dropped, weight 1 read as 5 (hostile round 14, S12)."""
    path = tmp_path / "dup.graphml"
    path.write_text(_GRAPHML_DUP.format(node=node, edge=edge))
    with pytest.raises(RunFormatError) as e:
        as_series(path)
    assert words in str(e.value) and "keep one" in str(e.value), str(e.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [('{"format": "baygo-graph-series", "graphs": [{"directed": true, "multigraph": false, '
      '"graph": {}, "nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"source": "a", '
      '"target": "b", "weight": 1, "weight": 5}]}]}', "the key 'weight' twice (1 and 5)"),
     ('{"format": "baygo-graph-series", "graphs": [], "graphs": [{"directed": true, '
      '"multigraph": false, "graph": {}, "nodes": [{"id": "x"}], "edges": []}]}',
      "the key 'graphs' twice (a list of 0 and a list of 1)"),
     ('{"format": "baygo-graph-series", "graphs": [{"directed": true, "multigraph": false, '
      '"graph": {}, "graph": {"a": 1}, "nodes": [], "edges": []}]}',
      "the key 'graph' twice (an object of 0 and an object of 1)")],  # hostile20: "a object"
)  # fmt: skip
def test_a_json_key_given_twice_is_refused(tmp_path, text, words):
    """json keeps a repeated key's last value: an edge's weight 1 read as 5, a second
    "graphs" replacing the first (S12's JSON sibling)."""
    path = tmp_path / "dup.json"
    path.write_text(text)
    with pytest.raises(RunFormatError, match=re.escape(words)):
        as_series(path)


def test_two_untimed_gexf_weights_of_one_edge_are_refused(tmp_path):
    """Two untimed weight attvalues of one edge hold at every step: the first was taken
    (S12's GEXF sibling), as two timed ones at one step are refused."""
    text = _gexf('<attvalues><attvalue for="w" value="1"/><attvalue for="w" value="5"/>'
                 "</attvalues>", attribute=("edge", "w", "weight"))  # fmt: skip
    path = tmp_path / "w.gexf"
    path.write_text(text)
    with pytest.raises(RunFormatError, match=r"two weights are given for every step \(1\.0 "
                                             r"and 5\.0\): keep one"):  # fmt: skip
        as_series(path)


def test_the_text_bytes_budget_line_keeps_the_budget_whole(tmp_path, monkeypatch, capsys):
    """Long labels in a small .gz: the line of the bytes read so far was over 300
    characters by itself and lost the budget from its middle (S4's variant)."""
    from baygo_graph.cli import ERROR_CHARS, main

    rows = "".join(f"{'a' * 1000}{k},{'b' * 1000}{k},{k % 7}\n" for k in range(20_000))
    path = tmp_path / "long2.csv.gz"
    path.write_bytes(gzip.compress(("source,target,time\n" + rows).encode()))
    from baygo_graph.limits import process_memory

    limit = process_memory() + (24 << 20)  # room for the header, not the text
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", str(limit))
    try:
        main(["analyze", str(path)])
    except SystemExit:
        pass
    line = capsys.readouterr().err.strip()
    assert "bytes so far (16 B each) need about" in line, line
    assert len(line) <= ERROR_CHARS + 20 and "... (" not in line, line
    assert "over the memory budget of" in line and f"(BAYGO_MEMORY_LIMIT={limit})" in line


def test_a_rank_over_the_windows_with_influence_says_how_many_had_none(tmp_path):
    # leaf7 is heard by no one for 6 steps, then is the hub for 6: its rank is read
    # over the windows where it has influence, in the JSON and the text alike
    from click.testing import CliRunner

    from baygo_graph.analysis import analysis_report
    from baygo_graph.cli import cli

    rows = ["source,target,time"] + [f"hub,leaf{i},{t}" for t in range(6) for i in range(8)]
    rows += [f"leaf7,{n},{t}" for t in range(6, 12) for n in ["hub"] + [f"leaf{i}" for i in
                                                                      range(7)]]  # fmt: skip
    path = tmp_path / "flip.csv"
    path.write_text("\n".join(rows) + "\n")
    report = analysis_report(as_series(path), window=3, focus="leaf7").as_dict()
    rank = report["influence"]["union"]["focus_rank"]
    assert rank["min"] == 1.0 and rank["zero_windows"] > 0 and rank["n"] > 0
    assert rank["n"] + rank["zero_windows"] == report["influence"]["union"]["focus"]["n"]
    out = CliRunner().invoke(cli, ["analyze", str(path), "--window", "3", "--focus", "leaf7"])
    line = next(x for x in out.output.splitlines() if x.startswith("influence (union"))
    assert (f"mean rank {rank['mean']:.1f} of 9 (1 = most; over the {rank['n']} windows "
            f"where it has influence, 0 in {rank['zero_windows']}") in line, line  # fmt: skip
