"""``baygo analyze`` on saved runs and graph series files (click's CliRunner)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from shared import run_main

from baygo_graph import Run, simulate, synthetic_bodyfat, write_series
from baygo_graph._format import synthetic_banner
from baygo_graph._render import b_text
from baygo_graph.analysis import influence_series, listener_fraction, smallest_b
from baygo_graph.cli import cli, main
from baygo_graph.cli.analyze import MANY_FILES
from baygo_graph.models import LinearRegression


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    run = simulate(
        "baygo",
        agents=5,
        steps=24,
        model=LinearRegression(grid=11),
        rng=2,
        data=synthetic_bodyfat(rng=0),
    )
    folder = tmp_path_factory.mktemp("run")
    run.save(folder)
    return folder, Run.load(folder)


def invoke(*args):
    result = CliRunner().invoke(cli, ["analyze", *map(str, args)])
    return result


def test_json_report_matches_api(saved_run):
    folder, run = saved_run
    result = invoke(folder, "--json", "--window", 6)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["smallest_b"] == {
        "aligned": smallest_b(run, windows="aligned").B,
        "sliding": smallest_b(run, windows="sliding").B,
    }
    assert report["steps"] == 24 and report["agents"] == 5 and report["window"] == 6
    assert report["synthetic"] is True and report["strategy"] == "baygo"
    inf = influence_series(run, window=6, method="union", windows="sliding").values[:, 0]
    assert report["influence"]["union"]["informative"]["mean"] == pytest.approx(np.nanmean(inf))
    assert report["listening_to_informative"]["mean"] == pytest.approx(
        listener_fraction(run).mean()
    )
    assert report["references"]["complete"] == pytest.approx(0.2)
    assert report["windows"]["aligned"]["n_windows"] == 4
    assert report["windows"]["sliding"]["n_windows"] == 19


def test_text_report_carries_synthetic_banner(saved_run):
    folder, run = saved_run
    result = invoke(folder / "run.npz")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("NOTE: SYNTHETIC DATA")
    b = smallest_b(run, windows="aligned")
    assert f"smallest B (B-strong connectivity): aligned: {b_text(b)};" in result.output
    assert "windows of 10" in result.output  # default window min(10, T)
    # the paper's equal-weight star on 5 agents: M / (3M - 2) = 5 / 13
    assert "reference influence of the informative agent: PosM 0.385" in result.output


@pytest.mark.parametrize("suffix", ["json", "graphml"])
def test_series_files(saved_run, tmp_path, suffix):
    folder, run = saved_run
    path = write_series(run, tmp_path / f"series.{suffix}")
    result = invoke(path, "--json", "--window", 4)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["smallest_b"]["sliding"] == smallest_b(run, windows="sliding").B
    assert report["informative"] == 0  # node attribute survives the file
    assert report["synthetic"] is run.synthetic  # every step graph carries the mark
    direct = json.loads(invoke(folder, "--json", "--window", 4).stdout)
    for method in ("product", "union"):
        assert report["influence"][method]["informative"]["mean"] == pytest.approx(
            direct["influence"][method]["informative"]["mean"]
        )


def test_fixed_run_report(tmp_path):
    run = simulate(
        "posm",
        agents=4,
        steps=8,
        model=LinearRegression(grid=9),
        rng=0,
        data=synthetic_bodyfat(rng=0),
    )
    run.save(tmp_path)
    report = json.loads(invoke(tmp_path, "--json").stdout)
    assert report["smallest_b"] == {"aligned": 1, "sliding": 1}
    # the paper's equal-weight star on 4 agents: the centre's influence M / (3M - 2)
    assert report["influence"]["product"]["informative"]["mean"] == pytest.approx(0.4)
    assert report["smallest_b_coverage"]["aligned"]["tail_length"] == 0
    assert report["influence"]["union"]["informative_rank"]["mean"] == 1.0
    assert report["listening_to_informative"]["mean"] == 1.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing", "missing: no such file or folder"),
        (lambda p: (p / "x.json").write_text("{}") and p / "x.json", "not a baygo graph series"),
        (
            lambda p: (p / "bad.npz").write_bytes(b"nope") and p / "bad.npz",
            "not a readable .npz",
        ),
    ],
)
def test_bad_input_one_line_error(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert run_main(["analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("baygo: error:") and message in err
    assert len(err.strip().splitlines()) == 1


def test_cen_run_has_no_graph(tmp_path, capsys, small_cen_run):
    small_cen_run.save(tmp_path)
    assert run_main(["analyze", str(tmp_path)]) == 1
    assert "no communication graph" in capsys.readouterr().err


def test_window_longer_than_the_run_is_cut_with_a_note(saved_run, capsys):
    folder, run = saved_run
    assert run_main(["analyze", str(folder), "--window", "99", "--json"]) == 0
    out, err = capsys.readouterr()
    note = "baygo: note: --window 99 is longer than the run (24 steps): using 24\n"
    banner = synthetic_banner(True, saved=True) + "\n"  # synthetic data: said on screen too
    assert err == note + banner
    assert json.loads(out)["window"] == 24
    assert run_main(["analyze", str(folder), "--window", "24", "--json"]) == 0
    same, err = capsys.readouterr()
    assert err == banner and json.loads(same) == json.loads(out)


@pytest.fixture(scope="module")
def twenty_runs(tmp_path_factory):
    """20 small saved runs: 16 BayGo seeds and 4 PosM ones, in one parent folder."""
    from baygo_graph.io.runs import save_runs

    data = synthetic_bodyfat(rng=0)
    runs = {
        (s, seed): simulate(
            s, agents=4, steps=16, model=LinearRegression(grid=11), rng=seed, data=data
        )
        for s, n in (("baygo", 16), ("posm", 4))
        for seed in range(n)
    }
    folder = tmp_path_factory.mktemp("many")
    save_runs(runs, folder)
    return folder, runs


def test_many_runs_table_and_figures(twenty_runs, tmp_path):
    folder, runs = twenty_runs
    out = tmp_path / "out"
    result = invoke(folder, "--window", 4, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)  # the JSON alone; 'wrote PATH' lines on stderr
    assert result.stderr.splitlines() == [f"wrote {out / name}" for name in MANY_FILES]
    rows = {r["run"]: r for r in record["runs"]}
    assert len(rows) == 20
    for (strategy, seed), run in runs.items():
        row = rows[f"{strategy}-seed{seed}"]
        for kind in ("aligned", "sliding"):
            assert row[f"b_{kind}"] == smallest_b(run, windows=kind).B
        assert row["listening_share"] == pytest.approx(listener_fraction(run).mean())
        inf = influence_series(run, window=4, windows="sliding").values[:, run.informative]
        assert row["influence"] == pytest.approx(np.nanmean(inf))
        assert row["seed"] == seed and row["strategy"] == strategy
    baygo_b = [smallest_b(r, windows="aligned").B for (s, _), r in runs.items() if s == "baygo"]
    finite = [b for b in baygo_b if b is not None]
    summary = {(r["strategy"], r["measure"]): r for r in record["summary"]}
    assert summary["baygo", "b_aligned"]["median"] == pytest.approx(np.median(finite))
    assert summary["baygo", "b_aligned"]["q75"] == pytest.approx(np.percentile(finite, 75))
    assert summary["baygo", "b_aligned"]["missing"] == baygo_b.count(None)
    for name in ("table.csv", "summary.csv", "analysis.png", "smallest_b.png"):
        assert (out / name).stat().st_size > 0, name
    from PIL import Image

    assert Image.open(out / "analysis.png").size[0] > 600


def test_many_runs_text_table(twenty_runs):
    folder, runs = twenty_runs
    run_dirs = sorted(folder.iterdir())[:3]
    result = invoke(*run_dirs)
    assert result.exit_code == 0, result.output
    assert "3 runs" in result.output and "SYNTHETIC" in result.output
    b = smallest_b(runs["baygo", 0], windows="sliding").B
    line = next(x for x in result.output.splitlines() if "baygo-seed0 " in x)
    assert f"| {b if b is not None else 'none'} " in line.replace(".0 ", " ")


def test_out_of_one_input_saves_its_report_and_says_so(saved_run, tmp_path, capsys):
    """One run or series with --out DIR: the report printed is saved as report.txt and
    report.json, each said once written (it was refused: '--out needs several runs')."""
    folder, _ = saved_run
    edges = tmp_path / "net.csv"
    edges.write_text("source,target,time\nann,bob,0\nbob,ann,1\nbob,cy,1\ncy,ann,2\n")

    def analyze(*args):
        return run_main(["analyze", *map(str, args)])

    for source in (folder, edges):
        out = tmp_path / f"rep-{source.name}"
        assert analyze(source, "--window", 2, "--out", out) == 0
        text = capsys.readouterr().out
        report, said = text.split("\nwrote ", 1)
        assert said.splitlines() == [str(out / "report.txt"), f"wrote {out / 'report.json'}"]
        assert (out / "report.txt").read_text() == report + "\n"
        assert analyze(source, "--window", 2, "--json") == 0
        printed = json.loads(capsys.readouterr().out)
        assert json.loads((out / "report.json").read_text()) == printed
        assert analyze(source, "--window", 2, "--out", out, "--json") == 0
        both = capsys.readouterr()  # replaced: baygo wrote them there; said on stderr
        assert json.loads(both.out) == printed
        mark = [synthetic_banner(True, saved=True)] if source == folder else []  # synthetic
        assert both.err.splitlines() == mark + [
            f"wrote {out / n}" for n in ("report.txt", "report.json")
        ]  # --json of synthetic data: the mark on screen too
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "report.txt").write_text("my notes")  # not baygo's: kept
    assert analyze(edges, "--out", tmp_path / "mine") == 1
    assert "exists and baygo did not write it here" in capsys.readouterr().err
    assert (tmp_path / "mine" / "report.txt").read_text() == "my notes"


def test_folder_without_runs(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    result = invoke(tmp_path / "a", tmp_path / "b")
    assert result.exit_code == 1 and "no saved run in" in result.output


def test_many_runs_window_longer_than_some_runs(saved_run, tmp_path, capsys):
    from baygo_graph.analysis import analysis_table

    folder, long = saved_run
    short = simulate(
        "baygo",
        agents=5,
        steps=6,
        model=LinearRegression(grid=11),
        rng=3,
        data=synthetic_bodyfat(rng=0),
    )
    short.save(tmp_path / "short")
    argv = ["analyze", str(folder), str(tmp_path / "short"), "--window", "10", "--json"]
    assert run_main(argv) == 1  # T = 24 and T = 6: refused, naming both setups
    err = capsys.readouterr().err
    assert "the runs differ in steps (1 run of T=24, M=5" in err and "T=6" in err
    assert "--group" in err
    assert run_main([*argv, "--group"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        "baygo: note: --window 10 is longer than 1 of the 2 runs (shortest 6 steps): "
        "their windows are cut to their length\n"
    )
    rows = json.loads(out)["runs"]
    expected = analysis_table({"a": long, "b": short}, window=10, mixed="group")  # b: window 6
    assert [r["influence"] for r in rows] == pytest.approx(expected["influence"].tolist())
    summary = json.loads(out)["summary"]
    assert {(r["strategy"], r["steps"]) for r in summary} == {("baygo", 24), ("baygo", 6)}


def test_many_runs_list_cen_as_skipped(tmp_path, capsys):
    from baygo_graph.io.runs import save_runs

    data = synthetic_bodyfat(rng=0)
    runs = {(s, k): simulate(s, agents=4, steps=8, model=LinearRegression(grid=21),
            rng=k, data=data)
            for s in ("baygo", "cen") for k in range(2)}  # fmt: skip
    save_runs(runs, tmp_path / "runs")
    assert run_main(["analyze", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "2 runs, data" in out and "2 skipped" in out
    assert "- 2 cen runs (cen-seed0, cen-seed1): centralised learner" in out
    assert run_main(["analyze", str(tmp_path / "runs"), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [s["run"] for s in record["skipped"]] == ["cen-seed0", "cen-seed1"]
    assert len(record["runs"]) == 2


def test_ties_are_marked(tmp_path, capsys):
    from baygo_graph.io.runs import save_runs

    data = synthetic_bodyfat(rng=0)
    runs = {("complete", k): simulate("complete", agents=4, steps=6, rng=k, data=data,
                                      model=LinearRegression(grid=11))
            for k in range(2)}  # fmt: skip
    save_runs(runs, tmp_path / "runs")
    assert run_main(["analyze", str(tmp_path / "runs"), "--window", "3"]) == 0
    out = capsys.readouterr().out
    assert "1 (tied in 100%)" in out  # everyone 1/M on the complete graph


def test_many_runs_out_under_a_file(twenty_runs, tmp_path, capsys):
    folder, _ = twenty_runs
    (tmp_path / "f").write_text("")
    assert run_main(["analyze", str(folder), "--out", str(tmp_path / "f" / "x")]) == 1
    err = capsys.readouterr().err
    assert (
        err == f"baygo: error: --out: {tmp_path}/f/x: parent {tmp_path}/f is a file, not a folder\n"
    )


def _hostile_run(folder, *, strategy, source, rng=0):
    """A saved run whose strategy name and data source hold newlines and tabs."""
    import dataclasses

    run = simulate(
        "baygo",
        agents=4,
        steps=6,
        model=LinearRegression(grid=11),
        rng=rng,
        data=synthetic_bodyfat(rng=0),
    )
    config = run.config | {"data": run.config["data"] | {"source": source}}
    dataclasses.replace(run, strategy=strategy, config=config).save(folder)
    return folder


def test_metadata_newlines_stay_on_their_line(tmp_path):
    """A newline in a run's strategy or data source, or in a node label, never splits a
    header line: one line per field, the text kept with spaces."""
    folder = _hostile_run(tmp_path / "r", strategy="baygo\nFAKE", source="a.csv\n\tFAKE: 1")
    loaded = Run.load(folder)
    assert loaded.strategy == "baygo\nFAKE" and "\n" in loaded.data_source
    result = invoke(folder)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("FAKE")]
    assert f"baygo FAKE run {folder} (data a.csv  FAKE: 1): 6 steps, 4 nodes" in lines[1]
    edges = tmp_path / "nl.csv"
    edges.write_text('source,target,time\n"a\nFAKE",b,0\nb,"a\nFAKE",1\nb,c,2\nc,b,3\n')
    result = invoke(edges, "--focus", "a\nFAKE")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not [line for line in lines if line.startswith("FAKE")]
    assert "following node a FAKE (--focus)" in lines[0]
    assert sum("node a FAKE" in line for line in lines) == 4  # header, 2 influences, audience


def test_many_runs_header_keeps_one_line(tmp_path):
    for k in range(2):
        _hostile_run(tmp_path / "runs" / f"r{k}", strategy="baygo", source="x.csv\nFAKE", rng=k)
    result = invoke(tmp_path / "runs" / "r0", tmp_path / "runs" / "r1")
    assert result.exit_code == 0, result.output
    assert "2 runs, data x.csv FAKE" in result.output
    assert not [line for line in result.output.splitlines() if line.startswith("FAKE")]


def test_a_huge_label_is_shortened_in_the_text_report(tmp_path):
    big = "L" * 50_000
    edges = tmp_path / "big.csv"
    edges.write_text(f"source,target,time\n{big},b,0\nb,{big},1\nb,c,2\nc,b,3\n")
    result = invoke(edges, "--focus", big)
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) < 2000
    assert "more characters)" in result.output


def test_influence_stride_computes_every_nth_window(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 240
    src = rng.integers(0, 8, n)
    frame = pd.DataFrame(
        {"source": src, "target": (src + rng.integers(1, 8, n)) % 8, "time": np.arange(n) // 6}
    )
    path = tmp_path / "contacts.csv"
    frame.to_csv(path, index=False)
    full = json.loads(invoke(path, "--window", "8", "--json").stdout)
    part = json.loads(invoke(path, "--window", "8", "--influence-stride", "5", "--json").stdout)
    windows = 40 - 8 + 1
    assert full["influence"]["union"]["windows"] == windows
    assert part["influence"]["union"]["windows"] == len(range(0, windows, 5)) == 7
    assert part["influence"]["union"]["stride"] == 5 and "stride" not in full["influence"]["union"]
    text = invoke(path, "--window", "8", "--influence-stride", "5").output
    assert "sliding windows, one in 5 up to the last; unique in" in text
    two = CliRunner().invoke(cli, ["analyze", str(path), str(path), "--influence-stride", "2"])
    assert two.exit_code != 0 and "--influence-stride" in two.output


def test_a_full_disk_at_the_record_names_it_and_puts_nothing_in_place(
    tmp_path, monkeypatch, capsys, small_run
):
    """A full disk between putting report.txt in place and updating the record blamed
    report.txt, left it there unrecorded, and refused the next run (hostile round 8, L5)."""
    import errno

    from baygo_graph.io import atomic

    small_run.save(tmp_path / "r")
    out = tmp_path / "a"

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(atomic, "_write_all", full)
        assert run_main(["analyze", str(tmp_path / "r"), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"--out: {out}/.baygo-files.json: no space left on device" in err
    assert not out.exists() or sorted(p.name for p in out.iterdir()) == []
    assert run_main(["analyze", str(tmp_path / "r"), "--out", str(out)]) == 0  # no refusal
    assert "wrote" in capsys.readouterr().out


def test_one_step_and_one_node_are_said_in_the_singular(tmp_path):
    """newcomer5: 'out.static: 1 steps, 3 nodes'; 'the union of all 1 steps'."""
    f = tmp_path / "one.txt"
    f.write_text("1 2 100\n")
    done = invoke(f)
    assert done.exit_code == 0, done.output
    assert "one.txt: 1 step, 2 nodes" in done.output
    assert "the one step is not strongly connected" in done.output
    assert "1 steps" not in done.output


@pytest.mark.parametrize(
    ("command", "option", "value", "words"),
    [
        ("analyze", "--self-weight", "2", "must be 'equal' or a number in [0, 1], got '2'"),
        ("analyze", "--self-weight", "nan", "got 'nan'"),
        ("analyze", "--bin", "0", "must be a positive integer, a duration ("),
        ("analyze", "--bin", "-1", "got '-1'"),
        ("analyze", "--time-format", "", "got ''"),
        ("analyze", "--time-format", "unix-zz", "or a strftime format"),
        ("view", "--layout-seed", "-1", "is not in the range 0<=x<=4294967295"),
        ("run", "--delta", "nan", "'nan' is not a number"),
    ],
)
def test_a_value_no_input_makes_valid_is_a_usage_error(tmp_path, capsys, command, option,
                                                       value, words):  # fmt: skip
    # hostile15 T5: these exited 1 with the Python keyword's name ("self_weight must be")
    # after reading the file; now exit 2 before any work, naming the option typed
    edges = tmp_path / "e.csv"
    edges.write_text("source,target,time\na,b,0\nb,a,1\n")
    args = {
        "analyze": [command, str(edges)],
        "view": [command, str(edges), "--out", str(tmp_path / "v.html")],
        "run": [command, "--agents", "3", "--steps", "2", "--out", str(tmp_path / "r")],
    }
    code = main([*args[command], f"{option}={value}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"Invalid value for '{option}'" in err and words in err, err
    assert not (tmp_path / "v.html").exists() and not (tmp_path / "r").exists()


def test_a_shared_top_is_said_and_listed_in_node_order(tmp_path):
    """Five nodes pooled equally (every influence 1/5 up to rounding): the text says the top
    is shared and lists the nodes in node order, the JSON's top_agent is the first (U4)."""
    path = tmp_path / "ring.csv"
    rows = "".join(f"{a},{b},{t}\n" for t in range(4) for a in "vwxyz" for b in "vwxyz" if a != b)
    path.write_text("source,target,time\n" + rows)
    text = CliRunner().invoke(cli, ["analyze", str(path), "--window", "1"]).output
    line = next(x for x in text.splitlines() if x.startswith("influence (union"))
    assert "v 0.200, w 0.200, x 0.200, y 0.200, z 0.200 (5 nodes tied at the top" in line, line
    out = CliRunner().invoke(cli, ["analyze", str(path), "--window", "1", "--json"]).output
    union = json.loads(out)["influence"]["union"]
    assert (union["top_agent"], union["top_tied"]) == ("v", 5)
