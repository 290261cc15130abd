"""GraphML and node-link JSON series: round trips for int and string labels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baygo_graph import Run, as_series, read_series, simulate, synthetic_bodyfat
from baygo_graph.exceptions import RunFormatError
from baygo_graph.export import write_series as write_export
from baygo_graph.io import series_files
from baygo_graph.io.filekind import describe_file, not_a_run_message
from baygo_graph.models import LinearRegression
from baygo_graph.series import GraphSeries


def write_series(graphs, path, **options):
    return write_export(graphs, path, **options)


def read_graphs(path):
    """The step graphs as the file holds them (JSON, GraphML), the series' step graphs
    (W, self-loops included) for GEXF."""
    path = Path(path)
    if path.suffix == ".json":
        return series_files._read(path, lambda p: series_files._read_json(p)[0])
    if path.suffix == ".graphml":
        return series_files._read(path, lambda p: series_files._read_graphml(p)[0])
    try:  # a file made elsewhere: its edges' weights alone (no self-weight added)
        return list(read_series(path, self_weight=0).graphs())
    except ValueError as e:  # a file of write_series keeps its W and refuses the option
        if "which it keeps" not in str(e):
            raise
        return list(read_series(path).graphs())


def snapshot(source):
    """Everything a series carries, exactly: typed labels, steps, informative agent,
    every step's weights (``source``: a series, or graphs turned into one)."""
    s = source if isinstance(source, GraphSeries) else as_series(list(source))
    w = [s.weights(t) for t in range(s.n_steps)]
    weights = [(x.indptr.tolist(), x.indices.tolist(), x.data.tolist()) for x in w]
    return [(type(n), n) for n in s.nodes], s.n_steps, s.informative, weights


def random_series(rng, labels, steps):
    out = []
    for t in range(steps):
        g = nx.DiGraph(step=t, strategy="baygo", synthetic=bool(t % 2))
        g.add_nodes_from(labels, informative=False)
        g.nodes[labels[0]]["informative"] = True
        for i in rng.choice(len(labels), size=len(labels)):
            j = rng.integers(len(labels))
            g.add_edge(labels[i], labels[j], weight=float(rng.random()))
        out.append(g)
    return out


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
@pytest.mark.parametrize("kind", ["int", "str", "mixed-width str"])
def test_round_trip_labels_and_graph_attributes(tmp_path, suffix, kind):
    labels = {
        "int": [3, 10, 0, 7],
        "str": ["alice", "bob", "carol", "dave"],
        "mixed-width str": ["1", "02", "x y", "ä"],
    }[kind]
    graphs = random_series(np.random.default_rng(len(kind)), labels, 5)
    back = read_series(write_series(graphs, tmp_path / f"s{suffix}"))
    assert snapshot(back) == snapshot(graphs)
    assert sorted(map(type, back.nodes), key=str) == sorted(map(type, labels), key=str)


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
def test_run_series_round_trip(tmp_path, suffix):
    run = simulate(
        "baygo", agents=5, steps=6, model=LinearRegression(grid=11), rng=3, data=synthetic_bodyfat()
    )
    path = write_series(run, tmp_path / f"r{suffix}")
    assert snapshot(read_series(path)) == snapshot(run.series)
    assert read_graphs(path)[4].graph == {"step": 4, "strategy": "baygo", "synthetic": True}


NASTY = ["", " ", "1", "-3", "01", "a\x00b", "\x00", "\x1f", "\ud800", "\ufffe", "a\rb", "\t\n"]
LABEL = st.one_of(
    st.integers(-(2**63), 2**63 - 1),  # integer labels are 64-bit signed (docs/formats.md)
    st.integers(-3, 12),
    st.text(alphabet="0123456789-", max_size=3),  # ints' texts: collisions
    st.text(max_size=6),
    st.sampled_from(NASTY),
)
LABELS = st.lists(LABEL, min_size=1, max_size=6, unique_by=lambda x: (type(x), x))


def graphml_refuses(labels) -> object | None:
    """The label write_series must refuse for GraphML (reference: the XML 1.0 Char
    production written out by code point), else None."""

    def xml_ok(c):
        o = ord(c)
        return o in (9, 10, 13) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o > 0xFFFF

    texts = {}
    for n in labels:
        if not all(xml_ok(c) for c in str(n)):
            return n
        if str(n) in texts:
            return n
        texts[str(n)] = n
    return None


@settings(max_examples=60, deadline=None)
@given(labels=LABELS, steps=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_label_round_trip_property(tmp_path_factory, labels, steps, seed):
    """JSON keeps every int and str label; GraphML keeps them or refuses before writing."""
    graphs = random_series(np.random.default_rng(seed), labels, steps)
    folder = tmp_path_factory.mktemp("h")
    back = read_series(write_series(graphs, folder / "s.json"))
    assert snapshot(back) == snapshot(graphs)
    assert {(type(n), n) for n in back.nodes} == {(type(n), n) for n in labels}
    bad = graphml_refuses(labels)
    path = folder / "s.graphml"
    if bad is None:
        back = read_series(write_series(graphs, path))
        assert snapshot(back) == snapshot(graphs)
    else:
        with pytest.raises(ValueError) as info:  # the first refused in the series' order
            write_series(graphs, path)
        assert any(repr(n) in str(info.value) for n in labels if graphml_refuses([n]) or
                   sum(str(m) == str(n) for m in labels) > 1)  # fmt: skip
        assert sorted(p.name for p in folder.iterdir()) == ["s.json"]


@pytest.mark.parametrize(
    ("nodes", "match"),
    [
        ([1, "1"], "node labels 1 and '1' are both written as GraphML node id '1'"),
        (["a\x00b"], r"node label 'a\\x00b' holds '\\x00', which GraphML \(XML 1.0\)"),
        (["ok", "\ufffe"], r"node label '\\ufffe' holds"),
    ],
)
def test_refused_graphml_writes_leave_no_file(tmp_path, nodes, match):
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    new = tmp_path / "new" / "s.graphml"
    with pytest.raises(ValueError, match=match):
        write_series([nx.DiGraph([(0, 1)]), g], new)
    assert not new.parent.exists()  # refused before anything, even the folder
    old = write_series([nx.DiGraph([(0, 1)])], tmp_path / "old.graphml")
    before = old.read_bytes()
    with pytest.raises(ValueError, match=match):
        write_series([g], old, overwrite=True)
    assert old.read_bytes() == before and sorted(tmp_path.iterdir()) == [tmp_path / "old.graphml"]
    assert snapshot(read_series(write_series([g], tmp_path / "s.json"))) == snapshot([g])


def test_foreign_graphml_labels(tmp_path):
    """A GraphML file from elsewhere: int labels if all parse, else strings."""
    for labels, expected in (([1, 2], [1, 2]), (["a", "2"], ["a", "2"])):
        g = nx.MultiDiGraph()
        g.add_edge(*labels, step=0, weight=0.5)
        path = tmp_path / "f.graphml"
        nx.write_graphml(g, path)
        (back,) = read_graphs(path)
        assert list(back.edges(data="weight")) == [(*expected, 0.5)]


def test_graphml_refuses_other_labels(tmp_path):
    g = nx.DiGraph([((0, 1), (1, 0))])
    with pytest.raises(ValueError, match=r"node label \(0, 1\) is a tuple: node labels are"):
        write_series([g], tmp_path / "t.graphml")  # refused at the door (hostile7 K2)
    assert not (tmp_path / "t.graphml").exists()


def test_bad_step_graphs(tmp_path):
    g = nx.MultiDiGraph(steps=2, step_graphs="[{}]")
    g.add_edge(0, 1, step=0, weight=1.0)
    path = tmp_path / "b.graphml"
    nx.write_graphml(g, path)
    with pytest.raises(RunFormatError, match="step_graphs lists 1 step, steps is 2"):
        read_graphs(path)


def test_from_choices_labels(tmp_path):
    run = Run.from_choices([[1, 0, 0]])
    (g,) = read_graphs(write_series(run, tmp_path / "c.graphml"))
    assert sorted(g.nodes) == [0, 1, 2] and g.graph["step"] == 0


def two_way_reference(path, steps: int) -> list[dict]:
    """Step t's {(u, v): weight} per NetworkX's own reader: an undirected edge both ways."""
    multi = nx.read_graphml(path, node_type=int, force_multigraph=True)
    out = [{} for _ in range(steps)]
    for u, v, d in multi.edges(data=True):
        out[d["step"]][u, v] = d["weight"]
        if not multi.is_directed():
            out[d["step"]][v, u] = d["weight"]
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 6), steps=st.integers(1, 4))
def test_undirected_graphml_reads_both_ways(tmp_path_factory, seed, n, steps):
    rng = np.random.default_rng(seed)
    g = nx.MultiGraph(steps=steps)  # written with edgedefault="undirected"
    g.add_nodes_from(range(n))
    triples = rng.integers(0, [n, n, steps], size=(2 * n, 3))
    triples[:, :2].sort(axis=1)  # one edge per pair and step: no parallel edges
    for u, v, t in sorted(set(map(tuple, triples.tolist()))):
        g.add_edge(u, v, step=t, weight=float(rng.random()))
    path = tmp_path_factory.mktemp("u") / "u.graphml"
    nx.write_graphml(g, path)
    assert 'edgedefault="undirected"' in path.read_text()
    back = read_graphs(path)
    assert [{(u, v): w for u, v, w in h.edges(data="weight")} for h in back] == (
        two_way_reference(path, steps)
    )
    assert all(type(h) is nx.DiGraph for h in back)


def graphml_text(default, edges) -> str:
    """A GraphML series: ``edges`` are (source, target, step, directed attribute or None)."""
    body = "".join(
        f'<edge source="{u}" target="{v}"{"" if d is None else f" directed={d!r}"}>'
        f'<data key="s">{t}</data></edge>'
        for u, v, t, d in edges
    )
    head = "" if default is None else f' edgedefault="{default}"'
    return (
        '<graphml><key id="s" for="edge" attr.name="step" attr.type="int"/>'
        f'<graph{head}><node id="0"/><node id="1"/><node id="2"/>{body}</graph></graphml>'
    )


@pytest.mark.parametrize(
    ("default", "edges", "expected"),
    [
        (None, [(0, 1, 0, None)], [{(0, 1)}]),  # no edgedefault: directed
        ("directed", [(0, 1, 0, "false"), (1, 2, 0, None)], [{(0, 1), (1, 0), (1, 2)}]),
        ("undirected", [(0, 1, 0, "true"), (1, 2, 1, None)], [{(0, 1)}, {(1, 2), (2, 1)}]),
        ("undirected", [(2, 2, 0, None), (0, 1, 0, "0")], [{(2, 2), (0, 1), (1, 0)}]),
    ],
)
def test_graphml_edge_direction(tmp_path, default, edges, expected):
    path = tmp_path / "d.graphml"
    path.write_text(graphml_text(default, edges))
    back = read_graphs(path)
    assert [set(h.edges) for h in back] == expected
    assert all(w == 1.0 for h in back for *_, w in h.edges(data="weight"))


@pytest.mark.parametrize(
    ("default", "directed", "match"),
    [
        ("mixed", None, "<graph> edgedefault must be 'directed' or 'undirected', got 'mixed'"),
        ("directed", "maybe", "edge 0: directed must be 'true' or 'false', got 'maybe'"),
    ],
)
def test_graphml_bad_direction_names_file_and_attribute(tmp_path, default, directed, match):
    path = tmp_path / "b.graphml"
    path.write_text(graphml_text(default, [(0, 1, 0, directed)]))
    with pytest.raises(RunFormatError, match=f"^'{re.escape(str(path))}': {match}$"):
        read_graphs(path)


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
def test_undirected_input_round_trips_as_two_way_digraph(tmp_path, suffix):
    g = nx.Graph(step=0)
    g.add_edge("a", "b", weight=0.25)
    g.add_edge("b", "b", weight=0.5)
    g.add_node("c")
    back = read_series(write_series([g], tmp_path / f"u{suffix}"))
    assert snapshot(back) == snapshot([g.to_directed()])


def json_series(tmp_path, *docs) -> object:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "baygo-graph-series", "graphs": list(docs)}))
    return path


def test_json_undirected_and_multigraph_documents(tmp_path):
    nodes = [{"id": 0}, {"id": "0", "x": 1}]
    undirected = {"directed": False, "nodes": nodes, "edges": [{"source": 0, "target": "0"}]}
    multi = {
        "multigraph": True,
        "nodes": nodes,
        "edges": [{"source": 0, "target": "0", "key": k, "weight": k} for k in (1, 0)],
    }
    a, b = read_graphs(json_series(tmp_path, undirected, multi))
    assert sorted(a.edges, key=repr) == [("0", 0), (0, "0")] and a.nodes["0"] == {"x": 1}
    assert type(b) is nx.DiGraph and list(b.edges(data=True)) == [(0, "0", {"weight": 1})]  # 1 + 0


@settings(max_examples=30, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 9))))
def test_json_undirected_matches_networkx(tmp_path_factory, edges):
    """Reference: networkx's undirected multigraph of the document, to_directed(), its
    parallel edges added (every edge is one contact, as edge-list rows are)."""
    doc = {
        "directed": False,
        "multigraph": False,
        "nodes": [{"id": i} for i in range(4)],
        "edges": [{"source": u, "target": v, "weight": w} for u, v, w in edges],
    }
    multi = nx.node_link_graph(json.loads(json.dumps(doc | {"multigraph": True})), edges="edges")
    ref = nx.DiGraph()
    ref.add_nodes_from(multi)
    for u, v, w in multi.to_directed().edges(data="weight"):
        ref.add_edge(u, v, weight=w + (ref[u][v]["weight"] if ref.has_edge(u, v) else 0))
    (back,) = read_graphs(json_series(tmp_path_factory.mktemp("j"), doc))
    assert snapshot([back]) == snapshot([ref])


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ({"nodes": [{"id": 0}, {"id": 0}], "edges": []}, "graph 0: a node id is declared twice"),
        ({"nodes": [{"id": [1]}], "edges": []}, r"graph 0: node id \[1\] is not an int or"),
        ({"nodes": [{"id": True}], "edges": []}, "node id True is not an int or a string"),
        ({"nodes": [{"id": 0}], "edges": [{"source": 0, "target": 1}]}, "undeclared node"),
        (
            {"nodes": [{"id": 0}], "edges": [{"source": 0, "target": 0, "weight": -1}]},
            r"edge \(0, 0\) has a weight -1: it is negative",
        ),  # fmt: skip
        (
            {"nodes": [{"id": 0}], "edges": [{"source": 0, "target": 0, "weight": "1"}]},
            r"edge \(0, 0\) has a weight '1': a str is not a number",
        ),  # fmt: skip
        (
            {"nodes": [{"id": 0}], "edges": [{"source": 0, "target": 0, "weight": 1e999}]},
            r"edge \(0, 0\) has a weight inf: it is not finite",
        ),  # fmt: skip
        ({"nodes": [], "edges": [], "directed": "no"}, "graph 0: 'directed' must be a bool"),
        ({"nodes": {}, "edges": []}, "graph 0: 'nodes' must be a list"),
        ({"nodes": [], "edges": [], "graph": []}, "graph 0: 'graph' must be a dict"),
        ({"nodes": [{"id": 0}], "edges": [{"source": 0}]}, "graph 0: edge 0 has no 'target'"),
        ({"nodes": [{"id": 0}, {"name": 1}], "edges": []}, "graph 0: node 1 has no 'id'"),
        ({"nodes": [{"id": None}], "edges": []}, "node id None is not .* JSON null names no"),
        (
            {"nodes": [{"id": 0}], "edges": [{"source": None, "target": 0}]},
            "graph 0: edge source None is not an int or a string \\(a JSON null names no node",
        ),  # fmt: skip
        (
            {"nodes": [{"id": 0}], "edges": [{"source": 0, "target": [0]}]},
            r"graph 0: edge target \[0\] is not an int or a string$",
        ),  # fmt: skip
        (
            {"nodes": [{"id": 0}], "edges": [{"source": 0, "target": "x" * 10**5}]},
            r"edge 0 joins the undeclared node 'x{59}\.\.\. \(99942 more characters\)$",
        ),  # fmt: skip
        ({"nodes": [{"id": 0}]}, "needs one list of edges, 'edges' or 'links' .*got neither"),
        ({"nodes": [], "edges": [], "links": []}, "'edges' or 'links' .*got both"),
        ({"edges": []}, "graph 0: no 'nodes' list"),
    ],
)
def test_json_reader_checks(tmp_path, doc, match):
    with pytest.raises(RunFormatError, match=match):
        read_graphs(json_series(tmp_path, doc))


def test_json_reader_matches_node_link_graph(tmp_path):
    """The bulk reader gives what networkx.node_link_graph gives, on a written run."""
    run = simulate(
        "baygo", agents=6, steps=5, model=LinearRegression(grid=9), rng=1, data=synthetic_bodyfat()
    )
    path = write_series(run, tmp_path / "r.json")
    ref = [nx.node_link_graph(d, edges="edges") for d in json.loads(path.read_text())["graphs"]]
    assert snapshot(read_graphs(path)) == snapshot(ref)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("x.gexf", "a GEXF file"),
        ("x.graphml", "a GraphML file"),
        ("x.json", "a JSON graph series"),
        ("run.npz", "a .npy file"),  # an array saved under the run file's name
        ("empty.npz", "an empty file"),
        ("list.json", "a JSON file"),
    ],
)
def test_other_files_given_as_a_run_say_what_they_are(tmp_path, name, kind):
    run = Run.from_choices([[1, 0, 0], [2, 2, 1]])
    path = tmp_path / name
    if name.startswith("x."):
        write_export(run, path)
    else:
        path.write_bytes({"run.npz": b"\x93NUMPY\x01\x00", "empty.npz": b""}.get(name, b" [1]"))
    assert describe_file(path).startswith(kind)
    with pytest.raises(RunFormatError) as info:
        Run.load(path)
    assert str(info.value) == (
        f"{str(path)!r} is {describe_file(path)}, not a readable .npz run file: runs are read "
        "from run folders and .npz run files (Run.load), graph series from .json, .graphml or "
        ".gexf files and edge lists (read_series); baygo analyze reads all of these"
    )


def test_unknown_files_keep_the_npz_message(tmp_path):
    for data in (b"nope", b"PK\x03\x04 broken zip"):
        path = tmp_path / "bad.npz"
        path.write_bytes(data)
        assert describe_file(path) is None and not_a_run_message(path) is None
        with pytest.raises(RunFormatError, match=r"is not a readable \.npz \(zip\) file"):
            Run.load(path)


def test_read_series_reads_runs_and_names_what_a_wrong_file_is(tmp_path):
    run = Run.from_choices([[1, 0]])
    assert snapshot(read_series(run.save(tmp_path / "r.npz"))) == snapshot(run.series)
    gexf = tmp_path / "x.json"
    gexf.write_text('<?xml version="1.0"?><gexf version="1.2"></gexf>')
    with pytest.raises(RunFormatError, match="not a readable graph series"):
        read_graphs(gexf)


def test_gexf_export_reads_back_step_by_step(tmp_path):
    run = simulate(
        "baygo", agents=4, steps=6, model=LinearRegression(grid=9), rng=1, data=synthetic_bodyfat()
    )
    back = read_series(write_export(run, tmp_path / "r.gexf", window=2))
    assert snapshot(back) == snapshot(run.series)  # every step's W, exactly
    assert back.informative == run.informative


def test_gexf_with_a_dtd_is_refused(tmp_path):
    p = tmp_path / "evil.gexf"
    p.write_text(
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>'
        '<gexf version="1.2"><graph><nodes/><edges/></graph></gexf>'
    )
    with pytest.raises(RunFormatError, match="not a readable graph series"):
        read_graphs(p)


def test_undirected_static_gexf_is_one_two_way_step(tmp_path):
    g = nx.Graph([("a", "b")])
    nx.write_gexf(g, tmp_path / "u.gexf")
    (h,) = read_graphs(tmp_path / "u.gexf")
    assert sorted(h.edges) == [("a", "b"), ("b", "a")]


@pytest.mark.parametrize("suffix", [".GRAPHML", ".Json"])
def test_suffixes_are_read_in_any_case(tmp_path, suffix):
    from baygo_graph.export import write_series

    run = simulate(
        "baygo", agents=3, steps=4, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    graphs = read_graphs(write_series(run, tmp_path / f"s{suffix}"))
    assert [sorted(g.edges) for g in graphs] == [sorted(g.edges) for g in run.graphs()]


@pytest.mark.parametrize("suffix", [".json", ".graphml"])
def test_numpy_integer_labels_are_written_as_ints(tmp_path, suffix):
    from baygo_graph.export import write_series

    g = nx.DiGraph()
    g.add_weighted_edges_from([(np.int64(1), np.int64(0), 0.5), (np.int64(0), np.int64(0), 0.5)])
    g.add_edge(np.int64(1), np.int64(1), weight=1.0)
    (back,) = read_graphs(write_series([g], tmp_path / f"s{suffix}"))
    assert sorted(back.nodes) == [0, 1] and all(type(n) is int for n in back.nodes)
    assert back[1][0]["weight"] == 0.5


@pytest.mark.parametrize("directed", [True, False])
def test_json_links_as_networkx_writes_them(tmp_path, directed):
    """NetworkX's own node-link data with edges under "links" (its key before 3.6) reads
    as the same series as with "edges", and as networkx.node_link_graph reads it."""
    rng = np.random.default_rng(3)
    graphs = random_series(rng, ["a", 2, "c", 4], 3)
    graphs = graphs if directed else [g.to_undirected() for g in graphs]
    docs = {key: [nx.node_link_data(g, edges=key) for g in graphs] for key in ("edges", "links")}
    assert all("links" in d and "edges" not in d for d in docs["links"])
    read = {}
    for key, steps in docs.items():
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps({"format": "baygo-graph-series", "graphs": steps}))
        read[key] = read_graphs(path)
    assert snapshot(read["links"]) == snapshot(read["edges"])
    ref = [nx.node_link_graph(d, edges="links").to_directed() for d in docs["links"]]
    assert snapshot(read["links"]) == snapshot(ref)


_GEXF = """<?xml version="1.0" encoding="UTF-8"?>
<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2">
  <graph mode="static" defaultedgetype="directed">
    <nodes><node id="0" label="a"/>{node}</nodes>
    <edges><edge id="0" source="0" target="1"/>{edge}</edges>
  </graph>
</gexf>"""


@pytest.mark.parametrize(
    ("node", "edge", "match"),
    [
        ('<node id="1"/>', '<edge id="1" source="1" target="7"/>',
         r"edge 1 \(target '7'\) joins a node not declared in <nodes>: GEXF requires"),
        ("", "", r"edge 0 \(target '1'\) joins a node not declared"),
        ('<node id="1"/>', '<edge id="1" target="0"/>', r"edge 1 \(<edge> element\) has no source"),
        ('<node label="b"/>', "", r"node 1 \(<node> element\) has no id"),
        ('<node id="1"/><node id="0"/>', "", r"node 2 repeats the id '0': two nodes cannot"),
    ],
)  # fmt: skip
def test_gexf_edges_must_join_declared_nodes(tmp_path, node, edge, match):
    """NetworkX's GEXF reader adds an undeclared node silently; GEXF requires declared
    ones, so the file is refused, named."""
    path = tmp_path / "g.gexf"
    path.write_text(_GEXF.format(node=node, edge=edge))
    with pytest.raises(RunFormatError, match=match) as info:
        read_graphs(path)
    assert str(info.value).startswith(f"{str(path)!r} is not a readable graph series: ")
    path.write_text(_GEXF.format(node='<node id="1"/>', edge=""))
    assert [sorted(g.edges) for g in read_graphs(path)] == [[(0, 0), (0, 1)]]  # W: 0 alone


def test_a_gexf_spell_that_ends_before_it_starts_is_refused(tmp_path):
    path = tmp_path / "d.gexf"
    path.write_text(_GEXF.replace('mode="static"', 'mode="dynamic" timeformat="integer"').format(
        node='<node id="1"/>', edge='<edge id="1" source="1" target="0" start="5" end="2"/>'
    ))  # fmt: skip
    with pytest.raises(RunFormatError, match=r"starts at step 5 after it ends \(2\)"):
        read_graphs(path)


def test_an_existing_file_is_replaced_only_when_asked(tmp_path):
    notes = tmp_path / "thesis_notes.json"
    notes.write_text("my notes")
    with pytest.raises(FileExistsError, match="pass overwrite=True to replace it") as e:
        write_series([nx.DiGraph([(0, 1)])], notes)
    assert e.value.filename == str(notes) and notes.read_text() == "my notes"
    write_series([nx.DiGraph([(0, 1)])], notes, overwrite=True)
    assert read_series(notes).n_steps == 1
    (tmp_path / "link.json").symlink_to(notes)
    with pytest.raises(OSError, match="symbolic link|already there"):
        write_series([nx.DiGraph([(0, 1)])], tmp_path / "link.json", overwrite=True)


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        ((0, 5000), "graph 1 says step 5000"),  # a gap would collapse
        ((1, 0), "graph 0 says step 1"),  # reversed
        ((0, 0), "graph 1 says step 0"),  # repeated
        ((0, -7), "graph 1 says step -7"),
        ((0, 1.0), "graph 1 says step 1.0"),
        ((0, True), "graph 1 says step True"),
        ((0, "1"), "graph 1 says step '1'"),
    ],
)
def test_a_json_step_graph_that_says_another_step_is_refused(tmp_path, steps, said):
    # hostile22 Q14: the graphs' own "step" was ignored: steps 0 and 5000 read as 2 steps,
    # 1 then 0 read reversed, 0 and 0 or -7 as distinct valid steps, without a word
    doc = {"format": "baygo-graph-series", "graphs": [
        {"graph": {"step": k}, "nodes": [{"id": "a"}, {"id": "b"}],
         "edges": [{"source": "a", "target": "b"}]} for k in steps]}  # fmt: skip
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RunFormatError, match=re.escape(said) + ": the graphs of a JSON series"):
        read_series(path)
    doc["graphs"][0]["graph"]["step"], doc["graphs"][1]["graph"]["step"] = 0, 1
    path.write_text(json.dumps(doc))
    assert read_series(path).n_steps == 2  # steps as written by write_series: read
    del doc["graphs"][1]["graph"]["step"]  # no step said: its position
    path.write_text(json.dumps(doc))
    assert read_series(path).n_steps == 2
