"""Class 5 (and 4, 1 for series): GraphML through defusedxml, with range checks."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.io.safexml import MAX_EMPTY_STEPS, read_graphml_series

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

LAUGHS = (
    '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
)
EXTERNAL = '<!DOCTYPE x [<!ENTITY ext SYSTEM "file:///etc/passwd">]>'


def _write(tmp_path, text, name="s.graphml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_matches_networkx_on_a_written_series(saved_runs, tmp_path):
    run = saved_runs["dynamic"][0]
    path = bg.write_series(run, tmp_path / "s.graphml")
    ours = read_graphml_series(path)
    multi = nx.read_graphml(path, node_type=int, force_multigraph=True)
    assert len(ours) == run.n_steps == multi.graph["steps"]
    for t, g in enumerate(ours):
        ref = {(u, v): d["weight"] for u, v, d in multi.edges(data=True) if d["step"] == t}
        assert {(u, v): d["weight"] for u, v, d in g.edges(data=True)} == ref
        assert dict(g.nodes(data=True)) == dict(multi.nodes(data=True))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ({"steps": 1_000_000, "edges": [(0, 1, 0, 1.0)]}, "declares 1000000 steps for 1 edge"),
        ({"steps": 3, "edges": [(0, 1, -1, 1.0)]}, r"step -1, outside \[0, 3\)"),
        ({"steps": 2, "edges": [(0, 1, 2, 1.0)]}, r"step 2, outside \[0, 2\)"),
        ({"steps": -1}, "steps must be an integer >= 0"),
        ({"edges": [(0, 1, 0, "nan")]}, "weight must be finite"),
        ({"edges": [(0, 1, 0, "-1")]}, "weight must be finite and >= 0"),
        ({"edges": [(0, 7, 0, 1.0)]}, "undeclared node"),
        ({"nodes": (0, 0)}, "declared twice"),
        ({"edges": [(0, 1, "x", 1.0)]}, "edge 0, .step.: .x. is not a valid long"),
        ({"extra": LAUGHS}, "DTDForbidden|not readable GraphML"),
        ({"extra": EXTERNAL}, "DTDForbidden|not readable GraphML"),
    ],
)
def test_hostile_graphml(tmp_path, kit, text, match):
    path = _write(tmp_path, kit.graphml(**text))
    with pytest.raises(bg.RunFormatError, match=match):
        bg.read_series(path)


def test_string_ids_only_where_asked(tmp_path, kit):
    """read_series keeps string labels (issue 12); the int reader refuses them."""
    path = _write(tmp_path, kit.graphml(nodes=("a", "b"), edges=[("b", "a", 1, 0.5)]))
    with pytest.raises(bg.RunFormatError, match="node id 'a' is not an integer"):
        read_graphml_series(path)
    series = bg.read_series(path, self_weight=0)
    assert series.nodes == ("a", "b")  # text ids kept as text
    assert [w.toarray().tolist() for w in map(series.weights, range(2))] == [
        [[1.0, 0.0], [0.0, 1.0]],
        [[0.0, 1.0], [0.0, 1.0]],  # step 1: a hears b only (its one in-edge), b itself
    ]


def test_steps_rule_and_budget(tmp_path, kit):
    ok = _write(tmp_path, kit.graphml(steps=MAX_EMPTY_STEPS + 1, edges=[(0, 1, 0, 1.0)]))
    assert bg.read_series(ok).n_steps == MAX_EMPTY_STEPS + 1
    with pytest.raises(bg.exceptions.BudgetError, match="step graphs"):
        read_graphml_series(ok, budget="1MiB")
    with pytest.raises(bg.exceptions.BudgetError, match="parsing s.graphml"):
        read_graphml_series(ok, budget=100)


def test_not_graphml_and_deep_json(tmp_path):
    with pytest.raises(bg.RunFormatError, match="not GraphML"):
        bg.read_series(_write(tmp_path, "<html><body/></html>"))
    with pytest.raises(bg.RunFormatError, match="not readable GraphML"):
        bg.read_series(_write(tmp_path, "<graphml><graph>"))
    deep = '{"format": "baygo-graph-series", "graphs": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(bg.RunFormatError, match="RecursionError"):
        bg.read_series(_write(tmp_path, deep, "s.json"))
    with pytest.raises(bg.RunFormatError, match="not a readable graph series"):
        bg.read_series(
            _write(tmp_path, '{"format": "baygo-graph-series", "graphs": [1]}', "s.json")
        )


SUFFIX = st.sampled_from([".graphml", ".json"])


@SETTINGS
@given(suffix=SUFFIX, cut=st.floats(0, 1, exclude_max=True))
def test_truncated_series(series_files, tmp_path, kit, suffix, cut):
    blob = series_files[suffix].rstrip()  # cutting only trailing blanks leaves a valid file
    path = tmp_path / f"t{suffix}"
    path.write_bytes(blob[: int(cut * len(blob))])
    with pytest.raises(kit.DOCUMENTED):
        bg.read_series(path)


@SETTINGS
@given(suffix=SUFFIX, edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True),
                                               st.sampled_from(list(b'-<>"&9x. '))),
                                     min_size=1, max_size=6))  # fmt: skip
def test_byte_edits_of_series(series_files, tmp_path, kit, suffix, edits):
    data = bytearray(series_files[suffix])
    for where, byte in edits:
        data[int(where * len(data))] = byte
    path = tmp_path / f"e{suffix}"
    path.write_bytes(bytes(data))
    try:
        series = bg.read_series(path)
    except kit.DOCUMENTED:
        return
    assert all(isinstance(g, nx.DiGraph) for g in series.graphs())


def test_direction_attributes(tmp_path, kit):
    """edgedefault/directed: GraphML's values only; the step rule counts edge elements."""
    text = kit.graphml(steps=MAX_EMPTY_STEPS + 1, edges=[(0, 1, 0, 0.5)])
    undirected = text.replace('edgedefault="directed"', 'edgedefault="undirected"')
    series = bg.read_series(_write(tmp_path, undirected), self_weight=0)
    assert series.weights(0).toarray().tolist()[:2] == [[0.0, 1.0], [1.0, 0.0]]
    longer = undirected.replace(f">{MAX_EMPTY_STEPS + 1}<", f">{MAX_EMPTY_STEPS + 2}<")
    with pytest.raises(bg.RunFormatError, match=f"{MAX_EMPTY_STEPS + 2} steps for 1 edge"):
        bg.read_series(_write(tmp_path, longer))
    for old, new, match in (
        ('edgedefault="directed"', 'edgedefault="&#10;"', r"edgedefault must be .* got '\\n'"),
        ("<edge ", '<edge directed="yes" ', "edge 0: directed must be 'true' or 'false'"),
    ):
        with pytest.raises(bg.RunFormatError, match=match):
            bg.read_series(_write(tmp_path, text.replace(old, new)))


_BIG = "x" * 10**6


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("id.graphml", None),  # an edge to an undeclared megabyte id
        ("step.graphml", None),  # a megabyte step value
        ("end.gexf", '<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2"><graph><nodes>'
                     f'<node id="0"/></nodes><edges><edge id="0" source="0" target="{_BIG}"/>'
                     "</edges></graph></gexf>"),
    ],
)  # fmt: skip
def test_messages_quoting_a_hostile_file_are_bounded(tmp_path, kit, name, text):
    """A megabyte id or value is quoted cut, with how many characters more."""
    if name == "id.graphml":
        text = kit.graphml(edges=[(0, _BIG, 0, 1.0)])
    elif name == "step.graphml":
        text = kit.graphml(edges=[(0, 1, _BIG, 1.0)])
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(bg.RunFormatError) as info:
        bg.read_series(path)
    message = str(info.value)
    assert len(message) < 400 and "more characters)" in message, message[:400]
