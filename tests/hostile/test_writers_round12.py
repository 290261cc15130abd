"""Output side, hostile rounds 11-12 and the open items after them: every series writer
budgeted before it builds its document (P6), the folder record's read budget (L3), a
compare that would replace a sweep's table, and the newcomer's nits."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from baygo_graph import write_series
from baygo_graph.exceptions import BudgetError
from baygo_graph.series import series_from_edges


def _busy_series(nodes: int, steps: int, seed: int = 0):
    """Each node hears 1 or 2 random others at every step: its edges, its self-weight
    and its influence change at every step (the most records a GEXF file can hold)."""
    rng = np.random.default_rng(seed)
    per = rng.integers(1, 3, (steps, nodes))
    step = np.repeat(np.arange(steps), per.sum(axis=1))
    dst = np.concatenate([np.repeat(np.arange(nodes), row) for row in per])
    src = (dst + rng.integers(1, nodes, len(dst))) % nodes  # never itself
    return series_from_edges(step, src, dst, np.ones(len(dst)), n_steps=steps,
                             nodes=tuple(range(nodes)), self_weight="equal")  # fmt: skip


# -- P6: every format write_series writes is budgeted before its document is built ---
@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
def test_every_series_format_is_budgeted_before_it_is_built(tmp_path, monkeypatch, suffix):
    """60 nodes x 200 steps, all changing: 3-7 x 10^4 records (edges, spells,
    self-weights, influence values), 30-80 MB built in memory whatever the format (GEXF
    had no check: a 10.7 MB edge list peaked at 3.0x the budget). Refused in one line
    naming the file, nothing written; the advised limit lets the same write run."""
    s = _busy_series(60, 200)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "20MB")
    path = tmp_path / f"big{suffix}"
    with pytest.raises(BudgetError) as e:
        write_series(s, path, window=2)
    text = str(e.value)
    assert text.startswith(f"writing 'big{suffix}' as ") and "200 steps x 60 nodes" in text
    assert "\n" not in text and len(text) <= 320 and not path.exists()
    assert "series.head(n)" in text  # advice that works: fewer steps
    assert write_series(s.head(3), tmp_path / f"small{suffix}").exists()
    advised = re.search(r"BAYGO_MEMORY_LIMIT=(\S+) or more", text).group(1)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", advised)
    assert write_series(s, path, window=2).exists()


def test_the_gexf_estimate_bounds_what_the_writer_allocates(tmp_path):
    """The estimate (records from arrays, before the document) is above the writer's
    measured peak, and its record count is the document's (runs of 6-digit influence
    values may merge: never more)."""
    import networkx as nx

    from baygo_graph.analysis import influence_series
    from baygo_graph.io import gexf

    s = _busy_series(40, 120, seed=1)
    infl = influence_series(s, window=3, windows="sliding").values
    edge_runs, self_runs = gexf._step_weight_runs(s), gexf._self_weight_runs(s)
    records = gexf._record_bound(s, infl, edge_runs, self_runs)
    need = gexf.GEXF_BYTES_PER_NODE * s.n_agents + gexf.GEXF_BYTES_PER_RECORD * records
    tracemalloc.start()
    try:
        path = gexf.write_gexf(s, tmp_path / "s.gexf", influence=infl)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < need
    g = nx.read_gexf(path)
    written = sum(len(d["spells"]) + len(d.get("step_weight", [])) + 1
                  for *_, d in g.edges(data=True))  # fmt: skip
    written += sum(len(d.get("self_weight", [])) + len(d.get("influence", []))
                   for _, d in g.nodes(data=True))  # fmt: skip
    assert written <= records and records <= 1.05 * written


# -- Q5: the Python writers never write over the file they read ------------------------
EDGES = "source,target,time\nann,bob,0\nbob,cy,0\ncy,ann,1\n"


@pytest.fixture
def inputs(tmp_path):
    """A CSV edge list and the JSON series written from it (both read by the writers)."""
    csv = tmp_path / "contacts.csv"
    csv.write_text(EDGES)
    saved = write_series(csv, tmp_path / "s.json")
    return {"csv": csv, "json": saved, "json_bytes": saved.read_bytes()}


def _spellings(tmp_path, path):
    """The same file by other names: itself, through '.', a hard link, a symbolic link."""
    hard = path.with_name("hard" + path.suffix)
    soft = path.with_name("soft" + path.suffix)
    hard.hardlink_to(path)
    soft.symlink_to(path.name)
    return [path, tmp_path / "." / path.name, hard, soft]


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf", ".html"])
def test_python_writers_never_replace_their_source(tmp_path, inputs, suffix):
    """to_html(src, src) replaced the user's edge list with the page; write_series(s.json,
    s.json, overwrite=True) rewrote its own input. Every writer refuses its source by any
    name (and a link), before any work, whatever ``overwrite`` says."""
    from baygo_graph.figures import to_html

    src = inputs["json"] if suffix == ".json" else tmp_path / f"in{suffix}"
    if suffix != ".json":  # a file of the output's suffix that is read as the source
        src.write_bytes(inputs["json_bytes"])
        src = src.rename(src.with_suffix(suffix))
    before = src.read_bytes()
    for target in _spellings(tmp_path, src):
        refusal = r"is a symbolic link" if target.is_symlink() else r"is the input .* of this call"
        with pytest.raises(OSError, match=refusal):
            if suffix == ".html":
                to_html(src, target)
            else:
                write_series(src, target, overwrite=True)
    assert src.read_bytes() == before


def test_to_html_writes_html_names_only(inputs):
    from baygo_graph.figures import to_html

    csv = inputs["csv"]
    with pytest.raises(ValueError, match=r"path must end in \.html"):
        to_html(csv, csv)
    assert csv.read_text() == EDGES
    assert to_html(csv, csv.with_name("page.HTML")).read_text().startswith("<!DOCTYPE html>")


# -- Q4: a GEXF file gives its labels back as written, or is refused before writing ----
@pytest.mark.parametrize(
    "labels", [(1, "zz"), ("zz", 1), ("1", "2"), ("007", "zz"), (1, 2), ("-0", "5"), ("a", "b"),
               (2**70, "x"), ("10", "-3")],
)  # fmt: skip
@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf"])
def test_every_format_gives_labels_back_or_refuses_them(tmp_path, labels, suffix):
    """A GEXF file of int and text labels (or of text that all reads as integers) came
    back as other labels and was refused by its own reader as "changed or damaged";
    now refused in one line before writing, naming the labels and .json/.graphml."""
    import networkx as nx

    from baygo_graph import read_series
    from baygo_graph.inputs import as_series

    a, b = labels
    graphs = [nx.DiGraph([(a, b)]), nx.DiGraph([(b, a)])]
    if any(isinstance(v, int) and not -(2**63) <= v < 2**63 for v in labels):
        # integer labels are 64-bit in every door: refused at the door, in one line
        with pytest.raises(ValueError, match=r"node label 1180591620717411303424 is an integer "
                           r"beyond the signed 64-bit range") as e:  # fmt: skip
            as_series(graphs)
        assert len(str(e.value)) <= 300 and "\n" not in str(e.value)
        return
    s = as_series(graphs)
    path = tmp_path / f"s{suffix}"
    ints = [isinstance(v, int) for v in labels]
    canonical = all(re.fullmatch(r"0|-?[1-9][0-9]*", str(v)) for v in labels)
    lost = suffix == ".gexf" and (any(ints) != all(ints) or (not any(ints) and canonical))
    if not lost:
        back = read_series(write_series(s, path, window=1))
        assert back.nodes == s.nodes and [type(v) for v in back.nodes] == list(map(type, s.nodes))
        return
    with pytest.raises(ValueError, match=r"GEXF ids .*; write \.json or \.graphml") as e:
        write_series(s, path, window=1)
    assert len(str(e.value)) <= 300 and "\n" not in str(e.value) and not path.exists()


# -- L3: the folder record's parse is budgeted before it is parsed --------------------
def _record_shapes(size: int) -> dict:
    import json

    n = size // 110
    deep = "[" * 400 + "]" * 400
    return {
        "ours": json.dumps(
            {"files": {f"runs/b-seed{i}/run.npz": "a" * 64 for i in range(n)}}, indent=1
        ),  # fmt: skip
        "short keys": json.dumps({"files": {f"{i:x}": "" for i in range(size // 12)}}),
        "empty objects": "[" + ",".join(["{}"] * (size // 3)) + "]",
        "empty lists": "[" + ",".join(["[]"] * (size // 3)) + "]",
        "deep branches": "[" + ",".join([deep] * (size // 801)) + "]",
        "astral keys": json.dumps(
            {"files": {f"\U0001f600{i}": "" for i in range(size // 16)}}, ensure_ascii=False
        ),  # fmt: skip
        "floats": '{"files":[' + ",".join(["1.5"] * (size // 4)) + "]}",
    }


@pytest.mark.parametrize("shape", list(_record_shapes(100)))
def test_the_folder_record_parse_is_within_its_estimate(tmp_path, shape):
    """A 32 MiB record was parsed with no budget check: baygo's own takes 3.4 B a byte,
    a crafted one up to 25 (about 800 MB). The estimate (per byte, per JSON value)
    bounds the parse of every shape."""
    from baygo_graph.io import atomic

    record = tmp_path / atomic.RECORD_NAME
    record.write_text(_record_shapes(1 << 20)[shape], encoding="utf-8")
    values = 1 + sum(record.read_bytes().count(c) for c in (b",", b":", b"[", b"{"))
    need = atomic.RECORD_BYTES_PER_BYTE * record.stat().st_size
    need += atomic.RECORD_BYTES_PER_VALUE * values
    tracemalloc.start()
    try:
        atomic._read_record(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < need


def test_a_record_over_the_budget_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """The refusal names the record and comes when the folder is opened, not after the
    work at the first file written; a small record is read as before."""
    from baygo_graph.cli import main
    from baygo_graph.io import atomic

    csv = tmp_path / "c.csv"
    csv.write_text(EDGES)
    out = tmp_path / "rep"
    out.mkdir()
    (out / atomic.RECORD_NAME).write_text("[" + ",".join(["{}"] * 2_000_000) + "]")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "200MB")
    assert main(["analyze", str(csv), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("baygo: error: reading the folder record ") and "(5.7 MiB)" in err
    assert "\n" not in err and len(err) <= 300 and "write to another folder" in err
    assert sorted(p.name for p in out.iterdir()) == [atomic.RECORD_NAME]
    (out / atomic.RECORD_NAME).write_text('{"files": {}}')
    assert main(["analyze", str(csv), "--out", str(out)]) == 0


# -- compare / reproduce never replace a sweep's table (a sweep's folder is its own) --
SMALL = ["--seeds", "2", "--steps", "3", "--grid", "5"]


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    from baygo_graph.cli import main

    out = tmp_path_factory.mktemp("sw") / "sweep"
    assert main(["sweep", "--param", "grid=5", "--seeds", "2", "--steps", "3", "--jobs", "1",
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    return out


@pytest.mark.parametrize("extra", [[], ["--csv"]])
def test_compare_into_a_sweep_folder_is_refused_unless_forced(tmp_path, sweep_folder, capsys,
                                                              extra):  # fmt: skip
    """compare --out SWEEP replaced the sweep's results.parquet (--csv: removed it),
    after which the sweep refused its own folder; now one line before any work, and
    --force replaces it as asked."""
    import shutil

    from baygo_graph.cli import main

    out = tmp_path / "sweep"
    shutil.copytree(sweep_folder, out)
    table = (out / "results.parquet").read_bytes()
    argv = ["compare", "--strategies", "baygo", *SMALL, "--out", str(out), *extra]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"baygo: error: --out: {out}/results.parquet: is a sweep's table: the folder "
                   "belongs to a sweep (its rows are kept in tasks/); use another --out (--force "
                   "replaces the table)")  # fmt: skip
    assert (out / "results.parquet").read_bytes() == table
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in sweep_folder.iterdir())
    assert main([*argv, "--force"]) == 0


def test_reproduce_and_the_python_writer_refuse_a_sweeps_table(tmp_path, sweep_folder,
                                                                 monkeypatch, capsys):  # fmt: skip
    """The same rule for every writer of a results table: reproduce (before its work)
    and write_results from Python."""
    import shutil

    from baygo_graph.analysis import Comparison
    from baygo_graph.cli import main
    from baygo_graph.io.results import write_results

    out = tmp_path / "sweep"
    shutil.copytree(sweep_folder, out)
    ran = []
    monkeypatch.setattr("baygo_graph.reproduce.reproduce", lambda *a, **k: ran.append(1))
    assert main(["reproduce", *SMALL, "--jobs", "1", "--out", str(out)]) == 1
    assert "is a sweep's table: the folder belongs to a sweep" in capsys.readouterr().err
    assert not ran
    c = Comparison(("a",), np.ones((1, 1, 2, 2)), np.zeros((1, 1, 2, 2)),
                   np.zeros((1, 1), dtype=int))  # fmt: skip
    for fmt in ("parquet", "csv"):
        with pytest.raises(FileExistsError, match="is a sweep's table"):
            write_results(c, out, results_format=fmt)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in sweep_folder.iterdir())


# -- newcomer nits: the SYNTHETIC mark as text in figure files and the viewer's title ---
@pytest.mark.parametrize("fmt", ["pdf", "png", "svg"])
@pytest.mark.parametrize("synthetic", [True, False])
def test_figure_files_carry_the_synthetic_mark_as_text(tmp_path, fmt, synthetic):
    """The mark was only drawn (glyphs in a compressed stream): `strings x.pdf | grep -c
    SYNTHETIC` gave 0. Both ways a figure file is written (atomic_figure, reproduce's
    bytes) carry it as text, and only when the figure is marked."""
    import matplotlib.pyplot as plt

    from baygo_graph.figures._style import mark_synthetic
    from baygo_graph.io.atomic import atomic_figure
    from baygo_graph.reproduce.drawing import _figure_bytes

    fig, ax = plt.subplots()
    ax.plot([0, 1])
    mark_synthetic(ax, synthetic)
    written = atomic_figure(fig, tmp_path / f"f.{fmt}", dpi=20).read_bytes()
    made = _figure_bytes(fig, fmt, dpi=20, box=None)
    plt.close(fig)
    for data in (written, made):
        assert (b"SYNTHETIC DATA" in data) is synthetic


@pytest.mark.parametrize("synthetic", [True, False])
def test_the_viewer_page_title_says_synthetic(tmp_path, small_run, synthetic):
    from baygo_graph import Run
    from baygo_graph.figures import to_html

    run = small_run if synthetic else Run.from_choices([[1, 0], [1, 0]])
    text = to_html(run, tmp_path / "v.html", window=2).read_text()
    title = re.search(r"<title>(.*?)</title>", text).group(1)
    assert title.startswith("SYNTHETIC DATA - ") is synthetic
    assert "SYNTHETIC" not in re.search(r'<h1 id="title">(.*?)</h1>', text).group(1)


def test_sweep_says_synthetic_first(tmp_path, capsys, monkeypatch):
    """The note came after the sweep's `wrote` line; now first, as every command's."""
    from baygo_graph.cli import main

    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    argv = ["sweep", "--param", "grid=5", "--seeds", "1", "--steps", "2", "--jobs", "1",
            "--no-progress", "--out"]  # fmt: skip
    assert main([*argv, str(tmp_path / "a")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("NOTE: SYNTHETIC DATA") and lines[1].startswith("wrote ")
    assert lines[2].startswith("1 run (1 seed), data synthetic")
    assert sum("SYNTHETIC" in line for line in lines) == 1


# -- Q9/Q10: every figure function checks its own memory before it draws ---------------
@pytest.mark.parametrize(
    ("figure", "make", "words"),
    [
        ("plot_influence_series", lambda: np.zeros((100_000, 2)),
         "100000 steps x 2 agents' lines"),
        ("plot_listen_matrix", lambda: np.zeros((300, 300), dtype=np.int8), "a 300 x 300 matrix"),
        ("plot_window_connectivity", lambda: {"starts": np.arange(600), "stops":
         np.arange(600) + 1, "n_components": np.ones(600), "strongly_connected":
         np.ones(600, bool), "B": 1}, "600 window bars"),
    ],
)  # fmt: skip
def test_figure_functions_are_budgeted_before_they_draw(monkeypatch, figure, make, words):
    """plot_influence_series of a 1.3 x 10^6-step span peaked at 1.34x the budget its
    influence passed; plot_listen_matrix of 10,000 agents asked numpy for 763 MiB more
    at 5.9x; window bars take ~12 kB each. Each is refused in one line before drawing."""
    import matplotlib.pyplot as plt

    from baygo_graph import figures as F

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "20MB")
    data = make()
    if isinstance(data, dict):
        from types import SimpleNamespace

        data = SimpleNamespace(**data)
    before = plt.get_fignums()
    with pytest.raises(BudgetError, match=rf"^the figure of {words} needs about .* or more"):
        getattr(F, figure)(data)
    assert plt.get_fignums() == before  # nothing drawn
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "8GiB")
    assert getattr(F, figure)(data) is not None  # within the budget: drawn as before


def test_plot_counts_its_window_bars_for_the_window_given(tmp_path, monkeypatch, capsys):
    """`baygo plot --window 1` draws a bar a step (~12 kB each): 20,000 steps passed a
    check of 2.3 kB a step; the check now counts the bars of the window given."""
    from baygo_graph.cli import main

    span = tmp_path / "span.csv"
    span.write_text("source,target,time\na,b,0\nb,a,20000\n")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "200MB")
    assert main(["plot", str(span), "--window", "1", "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("baygo: error: the figures of 20001 steps x 2 nodes (")
    assert not (tmp_path / "p").exists()


# -- Q8 (command side): one refusal after the read, whose advice lets plot run ---------
def test_plot_checks_what_follows_the_read_once(tmp_path, monkeypatch):
    """plot checked its drawing, then its analysis, each advising a limit for its own
    stage: following the first was refused by the second. One check now sums both, and
    its advice lets the whole command run."""
    import pandas as pd

    from baygo_graph import as_series
    from baygo_graph.cli.figures import _check_drawing_budget

    n = 20_000
    i = np.arange(n)
    series = as_series(pd.DataFrame({"source": i, "target": (i + 1) % n, "time": i % 3000}))
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "60MB")
    with pytest.raises(BudgetError) as e:
        _check_drawing_budget(series, 1)
    text = str(e.value)
    assert text.startswith("the figures of 3000 steps x 20000 nodes (")
    advised = re.search(r"BAYGO_MEMORY_LIMIT=(\S+) or more to run it$", text).group(1)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", advised)
    _check_drawing_budget(series, 1)  # the drawing and the analysis both fit


def test_a_refusal_keeps_its_budget_and_advice_whole(monkeypatch):
    """A long quoted name made the line longer than the command line's 300 characters,
    and its middle (the budget) was cut; the name is cut now, the rest kept."""
    from baygo_graph.limits import check_budget

    name = "'" + "n" * 400 + ".csv'"
    with pytest.raises(BudgetError) as e:
        check_budget(10**9, what=f"reading {name}: 3 steps", limit="1MB", advice="bin it")
    text = str(e.value)
    assert len(text) <= 300 and text.startswith("reading 'nnn") and "...nnn" in text
    assert "over the memory budget of 976.6 KiB (the limit given): bin it, or pass a " in text


# -- Q12: no file named in an output folder is written through a linked sub-folder -----
def test_reproduce_refuses_a_linked_animation_folder_before_the_work(tmp_path, monkeypatch,
                                                                     capsys):  # fmt: skip
    """OUT/animation -> ../mine: reproduce replaced mine/baygo_seed0.gif (the user's)
    after the work, and said two temporary files; refused before any work now."""
    from baygo_graph.cli import main

    mine, out = tmp_path / "mine", tmp_path / "OUT"
    mine.mkdir()
    out.mkdir()
    (mine / "baygo_seed0.gif").write_text("my own gif")
    (out / "animation").symlink_to("../mine")
    ran = []
    monkeypatch.setattr("baygo_graph.reproduce.reproduce", lambda *a, **k: ran.append(1))
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", *SMALL, "--jobs", "1", "--out", "OUT"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (
        "baygo: error: --out: OUT/animation/baygo_seed0.gif: is outside the output "
        f"folder OUT (a link in its path leads to {mine}); baygo never writes outside it"
    )
    assert not ran and (mine / "baygo_seed0.gif").read_text() == "my own gif"


@pytest.mark.parametrize("writer", ["text", "figure", "run", "runs"])
def test_no_writer_follows_a_linked_sub_folder_of_an_output_folder(tmp_path, writer):
    """Every file named in a command's output folder stays in it, whichever writer names
    it and whatever `within` it passes: a sub-folder linked elsewhere is refused."""
    import matplotlib.pyplot as plt

    from baygo_graph import Run
    from baygo_graph.io.atomic import atomic_figure, atomic_text, output_record
    from baygo_graph.io.runs import save_runs

    mine, out = tmp_path / "mine", tmp_path / "OUT"
    mine.mkdir()
    out.mkdir()
    (out / "sub").symlink_to("../mine")
    run = Run.from_choices([[1, 0]])
    with output_record(out), pytest.raises(OSError, match="is outside the output folder"):
        if writer == "text":
            atomic_text(out / "sub" / "a.md", "x")
        elif writer == "figure":
            fig = plt.figure()
            atomic_figure(fig, out / "sub" / "f.png")
        elif writer == "run":
            run.save(out / "sub" / "run.npz")
        else:
            save_runs([run], out / "sub")
    assert list(mine.iterdir()) == []


def test_files_written_unannounced_are_not_said(tmp_path):
    from baygo_graph.io.atomic import announce_written, atomic_text, unannounced

    told = []
    with announce_written(lambda p, what, note: told.append(p.name)):
        with unannounced():
            atomic_text(tmp_path / "tmp.gif", "x")
        atomic_text(tmp_path / "a.gif", "x")
    assert told == ["a.gif"]


# -- Q14: a comparison's results are budgeted before its first run ----------------------
def test_compare_checks_its_whole_results_table_before_the_first_run(monkeypatch, capsys):
    """compare kept every run's per-step results with no check: it ran a minute, then
    refused one run at 1.08x the budget with advice refused again a minute later. The
    table is checked before the first run now, in the command and in Python, and the
    limit advised lets the whole command pass its check."""
    import importlib

    from baygo_graph.cli import main
    from baygo_graph.experiments import compare
    from baygo_graph.limits import check_results_budget

    ran = []
    module = importlib.import_module("baygo_graph.experiments.compare")
    monkeypatch.setattr(module, "run_tasks", lambda *a, **k: ran.append(1))
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "300M")
    argv = ["compare", "--strategies", "baygo,nocol", "--seeds", "100", "--steps", "2000",
            "--agents", "60", "--grid", "9", "--jobs", "1", "--no-progress"]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("baygo: error: keeping the results of 2 strategies x 100 seeds x 2000 "
                          "steps x 60 agents needs about ")  # fmt: skip
    assert "pass fewer --seeds or --steps" in err and len(err) <= 314
    with pytest.raises(BudgetError, match="keeping the results of 2 strategies"):
        compare(["baygo", "nocol"], seeds=100, steps=2000, agents=60, n_jobs=1, progress=False)
    assert not ran
    advised = re.search(r"BAYGO_MEMORY_LIMIT=(\S+) or more", err).group(1)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", advised)
    check_results_budget(2, 100, 2000, 60, kind="command", advice="")


# -- Q17/Q18: a sweep's task files stay in its folder and are taken only as written ------
SWEEP = ["sweep", "--param", "grid=5", "--seeds", "1", "--steps", "2", "--jobs", "1",
         "--no-progress", "--out"]  # fmt: skip


def test_a_sweep_never_writes_its_tasks_through_a_link(tmp_path, capsys, monkeypatch):
    """OUT/tasks -> ../mine: the task files went there, replacing a file of the user's."""
    from baygo_graph.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "W").mkdir()
    (tmp_path / "W" / "tasks").symlink_to("../mine")
    assert main([*SWEEP, "W"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "baygo: error: --out: W/tasks/task.json: is outside the output folder W (a "
        f"link in its path leads to {tmp_path / 'mine'}); baygo never writes outside it"
    )
    assert list((tmp_path / "mine").iterdir()) == []


@pytest.mark.parametrize("change", ["digit", "digest", "no digest"])
def test_a_changed_task_file_is_said_and_never_taken(tmp_path, capsys, change):
    """One digit of a task's result changed (valid JSON still) was taken into the rebuilt
    table and the summary: each task file carries its row's SHA-256, checked on resume."""
    import json

    import pandas as pd

    from baygo_graph.cli import main

    out = tmp_path / "W"
    assert main([*SWEEP, str(out)]) == 0
    first = pd.read_parquet(out / "results.parquet")["final_mse_informative"].iloc[0]
    (task,) = (out / "tasks").glob("*.json")
    row = json.loads(task.read_text())
    if change == "digit":
        row["final_mse_informative"] += 0.3
    elif change == "digest":
        row["row_sha256"] = "0" * 64
    else:
        del row["row_sha256"]
    task.write_text(json.dumps(row))
    capsys.readouterr()
    assert main([*SWEEP, str(out)]) == 0
    err = capsys.readouterr().err
    said = f"tasks/{task.name} does not match the digest written with it"
    assert err.count(said) == 1
    again = pd.read_parquet(out / "results.parquet")["final_mse_informative"].iloc[0]
    assert again == first and "row_sha256" not in pd.read_parquet(out / "results.parquet")
