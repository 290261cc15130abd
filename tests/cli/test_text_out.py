"""Text a command writes from a user's labels and file names: a lone surrogate (a JSON
label '\\ud800', kept by write_series; a file name of undecodable bytes) is shown
escaped, ``\\ud800``, on the console, in report.txt and in the viewer page, never a
codec error (hostile round 7, K9)."""

from __future__ import annotations

import json
import re

import networkx as nx

import baygo_graph as bg
from baygo_graph.cli import main

LONE = "\ud800"


def page_data(path) -> dict:
    text = path.read_text(encoding="utf-8")  # valid UTF-8
    m = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def test_a_lone_surrogate_label_is_shown_escaped_everywhere(tmp_path, capsys):
    series = bg.as_series([nx.DiGraph([(LONE, "b"), ("b", LONE)]), nx.DiGraph([("b", LONE)])])
    path = tmp_path / "sur.json"
    bg.write_series(series, path)
    assert bg.read_series(path).nodes == series.nodes  # kept exactly, as documented
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\\ud800" in out and LONE not in out
    assert main(["analyze", str(path), "--out", str(tmp_path / "rep")]) == 0
    capsys.readouterr()
    assert "\\ud800" in (tmp_path / "rep" / "report.txt").read_text(encoding="utf-8")
    report = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert LONE in json.dumps(report, ensure_ascii=False)  # JSON keeps it (an escape)
    page = tmp_path / "v.html"
    assert main(["view", str(path), "--out", str(page)]) == 0
    assert capsys.readouterr().out.endswith(f"wrote {page}\n")
    assert LONE in page_data(page)["nodes"]  # the page's JSON gives the label back


def test_a_file_name_of_undecodable_bytes_is_shown_escaped(tmp_path, capsys):
    name = tmp_path / "net\udcff.csv"  # the byte 0xff in a file name, as Python holds it
    name.write_text("source,target,time\na,b,0\nb,a,1\n")
    assert main(["analyze", str(name)]) == 0
    assert "net\\udcff.csv" in capsys.readouterr().out
    page = tmp_path / "v.html"
    assert main(["view", str(name), "--out", str(page)]) == 0
    assert page_data(page)["nodes"] == ["a", "b"]


def test_node_labels_are_drawn_as_written(tmp_path, capsys):
    """A label '$\\foo$' crashed `baygo plot` (parsed as mathtext: 'Unknown symbol'), '$x$'
    was drawn as an italic x, '\\ud800' ended in a FreeType TypeError: each is drawn as
    written (the surrogate as its escape)."""
    from baygo_graph.figures import draw_graph

    labels = ["$\\foo$", "$x$", LONE]
    g = nx.DiGraph([(labels[0], labels[1]), (labels[1], labels[2]), (labels[2], labels[0])])
    ax = draw_graph(g)
    ax.figure.canvas.draw()  # rendered: no mathtext parse, no FreeType error
    assert sorted(t.get_text() for t in ax.texts) == sorted(["\\$\\foo\\$", "\\$x\\$", "\\ud800"])
    path = tmp_path / "odd.json"
    bg.write_series(bg.as_series([g, g]), path)
    assert main(["plot", str(path), "--out", str(tmp_path / "figs")]) == 0
    assert len(list((tmp_path / "figs").glob("*.png"))) == 3


def test_an_error_line_under_the_limit_is_printed_whole():
    """hostile7 K13: a reader's line of 229 characters quoting a cut cell ('ZZZ... (17 more
    characters), its closing quote gone) lost its reason to the printer's second cut,
    which took that quote and the next (time_format=') as one long quoted value."""
    from baygo_graph.cli import ERROR_CHARS, _bounded

    line = ("'longcell.csv': time column 'time' line 2: '" + "Z" * 60 + "... (17 more "
            "characters) is not ISO 8601 (2024-05-01 08:00), and no other form is guessed "
            "(12/01: Dec. or Jan.?): give time_format='%d/%m/%Y' (CLI --time-format)")  # fmt: skip
    assert len(line) <= ERROR_CHARS and _bounded(line) == line
    long = "bin must be an int, got '" + "x" * 5000 + "'; see --help"  # still cut
    assert len(_bounded(long)) < ERROR_CHARS and _bounded(long).endswith("'; see --help")


def test_a_long_plugin_path_keeps_the_reason(tmp_path, capsys):
    """hostile7 K13 (plug-in part): a 5,000-character --plugin path was shown twice (as
    given and absolute) and the reason was cut out of the line."""
    from baygo_graph.cli import ERROR_CHARS

    assert main(["--plugin", "Q" * 5000 + ".py", "analyze", str(tmp_path)]) == 1
    line = capsys.readouterr().err.strip()
    assert line.startswith("baygo: error: plug-in Q") and line.endswith("file name too long")
    assert len(line) <= ERROR_CHARS + 40


def test_a_mistyped_command_gets_the_closest_one(capsys):
    """newcomer5: 'baygo analyse' (the docs' British spelling) said only 'No such
    command'; a long name is shortened in the line."""
    assert main(["analyse", "x"]) == 2
    assert capsys.readouterr().err.strip() == (
        "baygo: error: No such command 'analyse'. Did you mean 'analyze'?"
    )
    assert main(["Z" * 5000]) == 2
    line = capsys.readouterr().err.strip()
    assert line.endswith("See baygo --help.") and len(line) < 200


def test_a_closed_standard_output_or_error_is_no_traceback(tmp_path):
    """hostile11 P7: 'baygo ... >&-' (fd 1 closed at start: Python's sys.stdout is None)
    ended in an AttributeError traceback and wrote no file."""
    import subprocess
    import sys

    (tmp_path / "in.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    run = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    for closed, args in ((1, ["analyze", "in.csv", "--out", "rep"]), (2, ["analyze", "no.csv"])):
        done = subprocess.run(
            [sys.executable, "-c", run, *args], cwd=tmp_path, capture_output=True, text=True,
            pass_fds=(), preexec_fn=lambda fd=closed: __import__("os").close(fd),
        )  # fmt: skip
        assert "Traceback" not in done.stderr + done.stdout
        assert done.returncode == (0 if closed == 1 else 1)
    assert (tmp_path / "rep" / "report.txt").is_file()
