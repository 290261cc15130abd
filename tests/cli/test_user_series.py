"""A user's own temporal network through analyze, view and GEXF export (issue 20).

Two inputs: an edge list with string labels (CSV) and a list of undirected
``nx.Graph`` snapshots. The smallest B is checked against a brute-force NetworkX
reference (union graphs of every window, ``nx.is_strongly_connected``) and the
labels must appear in every output.
"""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from baygo_graph.analysis import analysis_report
from baygo_graph.cli import cli
from baygo_graph.export import write_series

NAMES = ["ana", "ben", "chloé", "dev", "eli", "fox", "gus"]


def brute_smallest_b(graphs: list[nx.DiGraph], windows: str):
    """Smallest B whose complete windows all have a strongly connected union."""
    t = len(graphs)
    nodes = set().union(*(g.nodes for g in graphs))
    for b in range(1, t + 1):
        starts = range(0, t - b + 1) if windows == "sliding" else range(0, t - b + 1, b)
        ok = True
        for s in starts:
            u = nx.DiGraph()
            u.add_nodes_from(nodes)
            u.add_edges_from(
                (x, y) for g in graphs[s : s + b] for x, y, w in g.edges(data="weight",
                                                                        default=1.0)
                if x != y and w > 0
            )  # fmt: skip
            if not nx.is_strongly_connected(u):
                ok = False
                break
        if ok:
            return b
    return None


def edge_rows(seed: int, steps: int = 24):
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(steps):
        for _ in range(rng.integers(1, 4)):
            a, b = rng.choice(len(NAMES), 2, replace=False)
            rows.append((NAMES[a], NAMES[b], 100 + t))
    return rows


def graphs_of_rows(rows):
    t0 = min(t for *_, t in rows)
    graphs = [nx.DiGraph() for _ in range(max(t for *_, t in rows) - t0 + 1)]
    for g in graphs:
        g.add_nodes_from({v for s, d, _ in rows for v in (s, d)})
    for s, d, t in rows:
        graphs[t - t0].add_edge(s, d)
    return graphs


def undirected_snapshots(seed: int, steps: int = 20):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        g = nx.Graph()
        g.add_nodes_from(NAMES[:5])
        for _ in range(2):
            a, b = rng.choice(5, 2, replace=False)
            g.add_edge(NAMES[a], NAMES[b], weight=float(rng.integers(1, 4)))
        out.append(g)
    return out


def run_cli(args):
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_edge_list_csv_through_analyze(tmp_path, seed):
    rows = edge_rows(seed)
    path = tmp_path / "contacts.csv"
    pd.DataFrame(rows, columns=["source", "target", "time"]).to_csv(path, index=False)
    report = json.loads(run_cli(["analyze", str(path), "--window", "4", "--json"]))
    graphs = graphs_of_rows(rows)
    assert report["smallest_b"] == {
        "aligned": brute_smallest_b(graphs, "aligned"),
        "sliding": brute_smallest_b(graphs, "sliding"),
    }
    assert report["nodes"] == sorted({v for s, d, _ in rows for v in (s, d)})
    assert report["informative"] is None and "listening_to_informative" not in report
    text = run_cli(["analyze", str(path), "--window", "4"])
    assert "no informative agent marked" in text and "informative agent mean" not in text
    top = (
        report["influence"]["union"]["top"]
        or report["influence"]["union"]["undefined"]["alternative"]["top"]
    )
    assert top[0][0] in NAMES and top[0][0] in text
    assert "nan" not in text.lower().replace("nans", "")


def test_undirected_snapshots_through_analyze_and_json(tmp_path):
    snaps = undirected_snapshots(3)
    directed = [g.to_directed() for g in snaps]
    report = analysis_report(snaps, window=3).as_dict()
    assert report["smallest_b"] == {
        "aligned": brute_smallest_b(directed, "aligned"),
        "sliding": brute_smallest_b(directed, "sliding"),
    }
    assert report["nodes"] == sorted(NAMES[:5])
    path = write_series(snaps, tmp_path / "snaps.json")
    cli_report = json.loads(run_cli(["analyze", str(path), "--window", "3", "--json"]))
    assert cli_report["smallest_b"] == report["smallest_b"]
    assert cli_report["nodes"] == report["nodes"]


def test_focus_follows_a_named_node(tmp_path):
    rows = edge_rows(5)
    path = tmp_path / "contacts.csv"
    pd.DataFrame(rows, columns=["source", "target", "time"]).to_csv(path, index=False)
    report = json.loads(run_cli(["analyze", str(path), "--focus", "ben", "--json"]))
    assert report["focus"] == "ben" and "listening_to_focus" in report
    assert "focus_rank" in report["influence"]["product"]
    text = run_cli(["analyze", str(path), "--focus", "ben"])
    assert "following node ben" in text and "listening to node ben" in text
    result = CliRunner().invoke(cli, ["analyze", str(path), "--focus", "zed"])
    assert result.exit_code != 0 and "focus='zed' is not a node" in result.output


def test_renamed_columns_and_timestamps_on_the_cli(tmp_path):
    path = tmp_path / "calls.csv"
    pd.DataFrame(
        {
            "caller": ["ana", "ben", "ana", "ben"],
            "callee": ["ben", "ana", "ben", "ana"],
            "at": ["2024-05-01 08:00", "2024-05-01 20:00", "2024-05-02 09:00", "2024-05-03 10:00"],
        }
    ).to_csv(path, index=False)
    base = ["analyze", str(path), "--source", "caller", "--target", "callee"]
    result = CliRunner().invoke(cli, [*base, "--time-column", "at"])
    assert result.exit_code != 0 and "--bin" in result.output
    report = json.loads(run_cli([*base, "--time-column", "at", "--bin", "1D", "--json"]))
    assert report["steps"] == 3 and report["nodes"] == ["ana", "ben"]
    assert report["smallest_b"] == {"aligned": 2, "sliding": 2}  # day 2 or 3 alone: one way
    (tmp_path / "x.npz").write_bytes(b"a run file")  # named a run, holds none: said so
    result = CliRunner().invoke(cli, ["analyze", str(tmp_path / "x.npz"), "--bin", "1D"])
    assert result.exit_code != 0 and "is not a readable .npz (zip) file" in result.output


@pytest.mark.parametrize("kind", ["edges", "undirected"])
def test_gexf_export_keeps_labels(tmp_path, kind):
    if kind == "edges":
        rows = edge_rows(7)
        source = pd.DataFrame(rows, columns=["source", "target", "time"])
        graphs = graphs_of_rows(rows)
    else:
        source = undirected_snapshots(8)
        graphs = [g.to_directed() for g in source]
    g = nx.read_gexf(write_series(source, tmp_path / "s.gexf", window=3))
    assert sorted(g.nodes) == sorted(graphs[0].nodes)
    assert all(d["label"] == n for n, d in g.nodes(data=True))
    for t, ref in enumerate(graphs):
        live = {(u, v) for u, v, d in g.edges(data=True) if any(a <= t <= b for a, b in
                                                                d["spells"])}  # fmt: skip
        assert live == {(u, v) for u, v in ref.edges if u != v}, t
    assert "informative" not in next(iter(g.nodes.values()))
    back = write_series(source, tmp_path / "s.graphml")
    assert sorted(nx.read_graphml(back).nodes) == sorted(graphs[0].nodes)


@pytest.mark.parametrize("suffix", [".gexf", ".json", ".graphml"])
def test_a_written_series_file_gives_the_same_analysis(tmp_path, suffix):
    """Each file write_series makes is read back by analyze as the same series: the
    same nodes, B and influence as the edge list it came from (the door reads all)."""
    rows = [(f" {a}" if k % 3 == 0 else a, b, t) for k, (a, b, t) in enumerate(edge_rows(3))]
    path = tmp_path / "contacts.csv"
    pd.DataFrame(rows, columns=["source", "target", "time"]).to_csv(path, index=False)
    saved = write_series(path, tmp_path / f"s{suffix}", window=3)
    args = ["--window", "4", "--json"]
    direct = json.loads(run_cli(["analyze", str(path), *args]))
    back = json.loads(run_cli(["analyze", str(saved), *args]))
    assert back["nodes"] == direct["nodes"]
    assert any(n.startswith(" ") and n[1:] in direct["nodes"] for n in direct["nodes"])
    assert back["smallest_b"] == direct["smallest_b"]
    assert back["influence"] == direct["influence"]
    refused = CliRunner().invoke(cli, ["analyze", str(saved), "--bin", "2"])
    assert refused.exit_code == 2
    assert f"--bin: options of edge lists, but {saved} is a" in refused.output


@pytest.mark.parametrize("kind", ["edges", "undirected"])
def test_view_of_a_user_series(tmp_path, kind):
    if kind == "edges":
        path = tmp_path / "contacts.csv"
        pd.DataFrame(edge_rows(9), columns=["source", "target", "time"]).to_csv(path, index=False)
    else:
        path = write_series(undirected_snapshots(9), tmp_path / "snaps.json")
    out = tmp_path / "view.html"
    result = CliRunner().invoke(cli, ["view", str(path), "--out", str(out)])
    if "must be a baygo_graph.Run" in result.output:
        pytest.skip("figures.html.to_html takes only runs until the viewer branch (i20v) lands")
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "chloé" in html or "ana" in html


def test_plot_of_an_edge_list_draws_labels(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    path = tmp_path / "contacts.csv"
    pd.DataFrame(edge_rows(4), columns=["source", "target", "time"]).to_csv(path, index=False)
    out = run_cli(["plot", str(path), "--out", str(tmp_path / "figs"), "--format", "svg"])
    names = sorted(p.name for p in (tmp_path / "figs").iterdir() if p.name != ".baygo-files.json")
    assert names == ["graph_last_step.svg", "graph_union.svg", "window_connectivity.svg"]
    assert "wrote" in out
    svg = (tmp_path / "figs" / "graph_union.svg").read_text()
    assert all(n in svg for n in ("ana", "ben")) and "informative agent" not in svg
    assert "<!-- node -->" in svg  # the legend of a user's series names nodes, not agents
    result = CliRunner().invoke(cli, ["animate", str(path)])
    assert result.exit_code != 0 and "is a graph series, not a run" in result.output


def dense_union_influence(rows, rule, window):
    """Dense numpy reference: W_t of an unweighted edge list under a self-weight rule
    (repeated contacts add weight), the union (mean) matrix of every sliding window,
    its left Perron vector where eigenvalue 1 is simple (one closed class)."""
    nodes = sorted({v for s, d, _ in rows for v in (s, d)})
    ix = {v: k for k, v in enumerate(nodes)}
    t0 = min(t for *_, t in rows)
    steps, m = max(t for *_, t in rows) - t0 + 1, len(nodes)
    w = np.zeros((steps, m, m))
    for s, d, t in rows:
        w[t - t0, ix[d], ix[s]] += 1.0
    for t in range(steps):
        for i in range(m):
            d = np.count_nonzero(w[t, i])
            if d == 0:
                w[t, i, i] = 1.0
                continue
            share = 1.0 / (d + 1) if rule == "equal" else float(rule)
            w[t, i] *= (1.0 - share) / w[t, i].sum()
            w[t, i, i] = share
    means, defined = np.zeros(m), 0
    for end in range(window - 1, steps):
        u = w[end - window + 1 : end + 1].mean(axis=0)
        vals, vecs = np.linalg.eig(u.T)
        ones = np.flatnonzero(np.abs(vals - 1.0) < 1e-9)
        if len(ones) == 1:
            pi = np.real(vecs[:, ones[0]])
            means += pi / pi.sum()
            defined += 1
    return means / max(defined, 1), defined


def test_analyze_names_the_self_weight_rule_and_the_option_changes_influence(tmp_path):
    rows = edge_rows(4)
    path = tmp_path / "contacts.csv"
    pd.DataFrame(rows, columns=["source", "target", "time"]).to_csv(path, index=False)
    got = {}
    for rule, args in (
        ("equal", []),
        (0.5, ["--self-weight", "0.5"]),
        (0.0, ["--self-weight", "0"]),
    ):
        report = json.loads(run_cli(["analyze", str(path), "--window", "4", "--json", *args]))
        assert report["self_weight"] == rule
        text = run_cli(["analyze", str(path), "--window", "4", *args])
        assert f"self-weight: {rule if rule == 'equal' else format(rule, 'g')} (" in text
        union = report["influence"]["union"]
        want, defined = dense_union_influence(rows, rule, 4)
        assert union["defined_windows"] == defined > 0
        np.testing.assert_allclose(union["mean"], want, atol=1e-8)
        got[rule] = np.array(union["mean"])
    # the rule changes the influence (the paper's equal rule against 1/2 and none)
    assert np.abs(got["equal"] - got[0.5]).max() > 1e-3
    assert np.abs(got["equal"] - got[0.0]).max() > 1e-3
    bad = CliRunner().invoke(cli, ["analyze", str(path), "--self-weight", "2"])
    assert bad.exit_code == 2  # a usage error, the option named
    assert "'--self-weight': must be 'equal' or a number in [0, 1]" in bad.output


def test_a_ranking_lists_only_nodes_with_influence_and_says_why(tmp_path):
    # victor speaks to everyone and hears no one: his closed class takes all the influence
    names = ["aaron", "alice", "bea", "victor"]
    rows = [("victor", x, t) for t in range(6) for x in names[:3]]
    rows += [("aaron", "alice", t) for t in range(6)]
    path = tmp_path / "broadcast.csv"
    pd.DataFrame(rows, columns=["source", "target", "time"]).to_csv(path, index=False)
    report = json.loads(run_cli(["analyze", str(path), "--window", "3", "--json"]))
    for method in ("product", "union"):
        r = report["influence"][method]
        assert r["top"] == [["victor", 1.0]] and r["positive_nodes"] == 1
    text = run_cli(["analyze", str(path), "--window", "3"])
    assert "victor 1.000 (1 node holds all the influence" in text
    assert "aaron 0.000" not in text and "alice 0.000" not in text


def test_plot_checks_the_drawing_against_the_budget(monkeypatch):
    """A 4.6 MB ring of 300,000 nodes took 922 MB in `baygo plot` under a 300M budget
    (hostile round 6, G11): the graph figures are estimated before any is drawn."""
    from baygo_graph import as_series
    from baygo_graph.cli.figures import _check_drawing_budget
    from baygo_graph.exceptions import BudgetError

    n = 40_000
    i = np.arange(n)
    frame = pd.DataFrame({"source": i, "target": (i + 1) % n, "time": i % 2})
    series = as_series(frame)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100M")
    said = r"the figures of 2 steps x 40000 nodes \(140000 edges drawn\)"
    with pytest.raises(BudgetError, match=said):
        _check_drawing_budget(series, 2)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "150M")
    _check_drawing_budget(series, 2)  # 120 MiB: drawn
