"""Round three: one regression test per case of the hostile pass (issue 21).

The bombs are in ``test_gate.py``, the temporary files and claims in
``test_housekeeping.py``; the rest is here, by class.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import matplotlib
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph import _text
from baygo_graph._format import markdown_table
from baygo_graph.exceptions import BudgetError, NonFiniteError, RunFormatError
from baygo_graph.io.runs import save_runs
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import FixedGraph

matplotlib.use("Agg")
KW = {"agents": 4, "steps": 3, "model": LinearRegression(grid=9), "rng": 0}


@pytest.fixture(scope="module")
def data():
    return bg.synthetic_bodyfat()


def _cli(*argv, env=None):
    """``baygo argv`` in a child: (exit code, stdout, stderr)."""
    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    import os

    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, argv)],
        capture_output=True,
        text=True,
        env=os.environ | (env or {}),
        timeout=300,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _one_line_error(code, err):
    assert code == 1, err
    assert "Traceback" not in err and err.startswith("baygo: error: ")
    assert err.count("\n") == 1


# -- memory budget: the split's padded arrays ---------------------------------------


def test_split_arrays_count_against_the_budget(tmp_path, monkeypatch):
    """Many rows x many agents: the (agents x largest share) arrays are refused first."""
    rng = np.random.default_rng(0)
    n = 20_000
    frame = pd.DataFrame({"Abdomen": rng.uniform(70, 120, n), "BodyFat": rng.uniform(5, 40, n)})
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "64MiB")
    data = bg.load_bodyfat(path)
    with pytest.raises(BudgetError, match=r"data split \(padded arrays of 2000 agents x \d+"):
        bg.simulate("nocol", agents=2000, steps=1, model=LinearRegression(grid=5), rng=0, data=data)
    # the command's process holds ~150 MiB: its run fits 256 MiB, the split's ~350 MiB not
    code, _, err = _cli("run", "--strategy", "nocol", "--agents", 2000, "--steps", 1, "--grid",
                        5, "--data", path, env={"BAYGO_MEMORY_LIMIT": "256MiB"})  # fmt: skip
    _one_line_error(code, err)
    assert "padded arrays" in err
    # the same data with few agents fits, and the run's check counts its split too
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1GiB")
    assert (
        bg.simulate(
            "nocol", agents=3, steps=1, model=LinearRegression(grid=5), rng=0, data=data
        ).n_agents
        == 3
    )


# -- path escape and re-runs --------------------------------------------------------


def test_strategy_names_stay_inside_the_folder(tmp_path, data):
    run = bg.simulate("cen", data=data, **KW)
    out = tmp_path / "a" / "b"
    paths = save_runs({("../../X", 0): run, ("/etc/x", 1): run, ("..", 2): run}, out)
    assert all(p.resolve().parent.parent == out.resolve() for p in paths)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]
    assert len({p.parent.name for p in paths}) == 3
    assert _text.path_component("a/b") != _text.path_component("a_b")


def test_reproduce_refuses_a_folder_with_earlier_runs(tmp_path):
    from baygo_graph.reproduce import reproduce

    (tmp_path / "runs" / "baygo-seed0").mkdir(parents=True)
    (tmp_path / "runs" / "baygo-seed0" / "run.npz").write_bytes(b"earlier")
    with pytest.raises(FileExistsError, match="earlier reproduction"):
        reproduce(out=tmp_path, seeds=2, steps=3, save_runs=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]  # nothing written
    code, _, err = _cli("reproduce", "--out", tmp_path, "--seeds", 2, "--steps", 3, "--save-runs")
    _one_line_error(code, err)


# -- text stays text ----------------------------------------------------------------


def test_dollar_names_do_not_crash_figures(tmp_path, data):
    """Every figure of a run whose strategy and data file are named ``$\\foo$``."""
    from baygo_graph.reproduce import run_figures

    named = bg.simulate(FixedGraph(bg.strategies.complete(4).graph, name=r"$\foo$"), data=data,
                        **KW)  # fmt: skip
    odd_data = bg.synthetic_bodyfat()
    object.__setattr__(odd_data, "synthetic", False)
    object.__setattr__(odd_data, "source", r"/tmp/$\bar$.csv")
    odd = bg.simulate("baygo", data=odd_data, **KW)
    for run, shown in ((named, r"\$\foo\$"), (odd, r"\$\bar\$.csv")):
        texts = []
        for fig in run_figures(run, window=3).values():
            fig.savefig(tmp_path / "x.png")  # draws every text: no mathtext error
            texts += [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
            matplotlib.pyplot.close(fig)
        assert any(shown in t for t in texts), texts


def test_markdown_tables_keep_their_shape():
    frame = pd.DataFrame({"file": ["a|b.npz", "c\nd.npz", "e\r\nf"], "x": [1.0, 2.0, 3.0]},
                         index=pd.Index(["r|1", "r\n2", "r3"], name="run|id"))  # fmt: skip
    lines = markdown_table(frame).splitlines()
    assert len(lines) == 5
    assert all(line.count("|") - line.count("\\|") == 4 for line in lines)


def test_console_output_has_no_escape_sequences(tmp_path, data):
    run = bg.simulate(FixedGraph(bg.strategies.complete(4).graph, name="\x1b[2J\x1b]0;pwn\x07"),
                      data=data, **KW)  # fmt: skip
    path = run.save(tmp_path / "r")
    code, out, err = _cli("analyze", path.parent)
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert _text.console("a\x1b[31mb\u202ec") == "a[31mbc"


def test_csv_cells_cannot_be_formulas(tmp_path):
    shape = (2, 1, 2, 3)
    res = bg.analysis.Comparison(
        strategies=("=HYPERLINK(1)", "nocol"),
        mse=np.ones(shape),
        influence=np.full(shape, 1 / 3),
        informative=np.zeros((2, 1), dtype=int),
    )
    path = res.write_csv(tmp_path / "t.csv", data="@data.csv")
    cells = [c for line in path.read_text().splitlines() for c in line.split(",")]
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]
    assert "'=HYPERLINK(1)" in cells and "'@data.csv" in cells
    back = bg.analysis.Comparison.read_csv(path)
    assert back.strategies == ("=HYPERLINK(1)", "nocol") or list(back.strategies) == [
        "=HYPERLINK(1)",
        "nocol",
    ]
    assert back.attrs["data_source"] == "@data.csv"
    frame = _text.csv_frame(pd.DataFrame({"+x": ["-1", "ok"], "n": [-1, 2]}))
    assert frame.to_csv(index=False) == "'+x,n\n'-1,-1\nok,2\n"


def test_gexf_with_control_characters_is_well_formed(tmp_path):
    data = bg.synthetic_bodyfat()
    object.__setattr__(data, "source", "bad\x00\x01\x1b.csv")
    run = bg.simulate("complete", data=data, **KW)
    from baygo_graph.io.gexf import write_gexf

    path = write_gexf(run.series, tmp_path / "g.gexf", run=run)
    ET.parse(path)  # parses: no character XML cannot hold


# -- numbers at the door ------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "match"),
    [
        ({"sigma": 1e-300}, r"sigma must be in \[1e-150, 1e\+150\]"),
        ({"sigma": 1e300}, r"sigma must be in \[1e-150, 1e\+150\]"),
        (
            {"prior_var": 1e-320},
            r"prior_var must be a number in \[1e-150, 1e\+150\] or 2 such numbers",
        ),
        (
            {"prior_var": (1.0, 1e300)},
            r"prior_var must be a number in \[1e-150, 1e\+150\] or 2 such numbers",
        ),
    ],
)
def test_scales_out_of_range_are_refused(option, match, data):
    with pytest.raises(ValueError, match=match):
        model = LinearRegression(grid=9, **option)
        bg.simulate("baygo", data=data, **(KW | {"model": model}))


def test_cli_scales_are_one_line_errors(tmp_path):
    for value in ("1e-300", "1e300"):
        code, _, err = _cli("run", "--agents", 4, "--steps", 2, "--grid", 9, "--model-option",
                            f"sigma={value}", "--out", tmp_path / value)  # fmt: skip
        assert code == 2 and err.count("\n") == 1, err  # a usage error, before the run
        assert err.startswith("baygo: error: Invalid value for '--model-option': sigma=")
        assert "sigma must be" in err


def test_complex_weights_are_refused():
    w = np.full((3, 3), 1 / 3) + 0j
    with pytest.raises(TypeError, match="weights must be real numbers, got complex128"):
        bg.analysis.influence(w)


def test_a_run_going_non_finite_stops_naming_step_and_agent(monkeypatch, data):
    from baygo_graph.models import linear

    real = linear.LinearRegression.measure

    def poisoned(self, state, t, agents):
        m = real(self, state, t, agents)
        if t == 1:
            m.entropy[2] = np.nan
        return m

    monkeypatch.setattr(linear.LinearRegression, "measure", poisoned)
    with pytest.raises(NonFiniteError, match="non-finite at step 1, agent 2 \\(entropy = nan\\)"):
        bg.simulate("baygo", data=data, **KW)


def test_plot_accepts_a_delta_one_run(tmp_path, data):
    path = bg.simulate("baygo", data=data, delta=1.0, **KW).save(tmp_path / "r")
    code, out, err = _cli("plot", path.parent, "--out", tmp_path / "figs")
    assert code == 0, err
    assert (tmp_path / "figs" / "influence.png").exists()


# -- malformed structure ------------------------------------------------------------


def _with_meta(kit, blob, change) -> bytes:
    items = kit.members(blob)
    meta = json.loads(str(np.load(io.BytesIO(items["meta.npy"]))))
    change(meta)
    items["meta.npy"] = kit.npy(np.array(json.dumps(meta)))
    return kit.make_zip(items)


@pytest.mark.parametrize("value", ["bodyfat.csv", ["x"], 3, None])
def test_config_data_must_be_a_mapping(saved_runs, kit, tmp_path, value):
    _, blob = saved_runs["fixed"]
    p = tmp_path / "run.npz"
    p.write_bytes(_with_meta(kit, blob, lambda m: m["config"].__setitem__("data", value)))
    with pytest.raises(RunFormatError, match=r"config\['data'\] must be a JSON object"):
        bg.Run.load(p)
    code, _, err = _cli("analyze", p)
    _one_line_error(code, err)


def test_sweep_task_files_are_checked_before_they_are_trusted(tmp_path, data):
    from baygo_graph.experiments import sweep

    kw = {"strategies": ["nocol"], "seeds": 1, "steps": 2, "data": data, "n_jobs": 1,
          "progress": False}  # fmt: skip
    grid = {"agents": [4], "grid": [9]}
    first = sweep(grid, out=tmp_path, **kw)
    tid = first["id"][0]
    task = tmp_path / "tasks" / f"{tid}.json"
    row = json.loads(task.read_text())
    for hostile in (
        json.dumps(row | {"final_mse_others_mean": "0.0001"}),  # a string final_mse
        json.dumps(row | {"extra": [[1]]}),  # not flat
        "[" * 200_000 + "]" * 200_000,  # nested past the recursion limit
        json.dumps(row | {"pad": "x" * 70_000}),  # larger than any row of ours
    ):
        task.write_text(hostile)
        again = sweep(grid, out=tmp_path, **kw)  # redone, not trusted, no RecursionError
        assert isinstance(again["final_mse_others_mean"][0], float)
        assert again["final_mse_others_mean"][0] == first["final_mse_others_mean"][0]


# -- the second hostile pass of this round ------------------------------------------


def test_a_weight_matrix_is_a_type_error_naming_weights():
    import networkx as nx

    with pytest.raises(TypeError, match="weights must be a rule name"):
        FixedGraph(nx.complete_graph(3), weights=np.ones((3, 3)))


@pytest.mark.parametrize("bin_", ["99999999999999999999D", "10000000000000000000"])
def test_an_overflowing_bin_is_one_line(tmp_path, bin_):
    p = tmp_path / "t.csv"
    times = ["2024-01-01", "2024-01-02"] if bin_.endswith("D") else ["0", "5"]
    p.write_text(f"source,target,time\na,b,{times[0]}\nb,a,{times[1]}\n")
    code, out, err = _cli("analyze", str(p), f"--bin={bin_}", "--json")
    if bin_.endswith("D"):  # beyond pandas' durations: no file takes it, a usage error
        assert code == 2 and "Traceback" not in err
        assert err.startswith("baygo: error: Invalid value for '--bin': ")
    else:  # integer steps are exact over the whole 64-bit range: one step
        assert code == 0, err
        assert json.loads(out)["steps"] == 1


def test_compare_refuses_a_save_runs_folder_that_is_not_empty(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "posm-seed0").mkdir()
    code, _, err = _cli("compare", "--agents", "4", "--steps", "3", "--seeds", "1", "--jobs", "1",
                "--strategies", "baygo,nocol", "--save-runs", str(runs))  # fmt: skip
    assert code == 1 and "holds 'posm-seed0': an analysis of it would mix" in err
    assert [p.name for p in runs.iterdir()] == ["posm-seed0"]


def test_reproduce_refuses_a_folder_with_earlier_runs_without_save_runs(tmp_path):
    (tmp_path / "runs" / "baygo-seed0").mkdir(parents=True)
    code, _, err = _cli("reproduce", "--seeds", "1", "--steps", "3", "--grid", "9", "--jobs", "1",
                "--no-video", "--out", str(tmp_path))  # fmt: skip
    assert code == 1 and "earlier reproduction" in err
    assert not (tmp_path / "report.md").exists()


def test_sweep_rows_from_fifos_and_devices_are_never_read(tmp_path):
    import os

    from baygo_graph.experiments.sweep import _read_done

    os.mkfifo(tmp_path / "a.json")  # a reader that opened it would hang
    (tmp_path / "b.json").symlink_to("/dev/zero")  # size 0, endless bytes
    (tmp_path / "c.json").write_text('{"id": "c"}')
    assert _read_done(tmp_path, {"a", "b", "c"}) == {}  # c is not a plain row: redone


def test_figure_and_markdown_text_drop_control_and_bidi_characters():
    evil = "x\x1b]0;t\x07\u202eevil\x01 $a$"
    assert _text.mathtext(evil) == r"x]0;tevil \$a\$"
    code = _text.markdown_code("run `--out` \x1b[31m\nnext")
    assert "\x1b" not in code and "\n" not in code and code.startswith("`` ")
