"""`baygo run`: summary, files, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

import baygo_graph as bg
from baygo_graph.cli import main
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import BayGo, physical_at


def call(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_writes_the_run_and_prints_json(tmp_path, capsys, bodyfat_path):
    args = ["run", "--steps", "5", "--agents", "4", "--grid", "11", "--seed", "3"]
    code, out, _ = call(
        [*args, "--data", str(bodyfat_path), "--out", str(tmp_path), "--json"], capsys
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["synthetic"] is False and summary["steps"] == 5
    run = bg.Run.load(tmp_path)
    assert run.summary()["final_mse"] == summary["final_mse"]
    assert sum(summary["chosen_counts"]) == 5 * 4


def test_text_summary_says_synthetic(capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    code, out, _ = call(["run", "--steps", "3", "--grid", "11", "--strategy", "posm"], capsys)
    assert code == 0
    assert out.startswith("NOTE: SYNTHETIC DATA")
    assert "final MSE informative agent 0" in out
    assert "listened to" not in out  # fixed graph: no choices


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--agents", "1"], "'--agents': 1 is not in the range"),
        (["run", "--strategy", "ring"], "unknown strategy 'ring'; choose from"),
        (
            ["run", "--data", "/does/not/exist.csv"],
            "--data: /does/not/exist.csv: no such file or folder",
        ),
        (["run", "--physical", "ring"], "physical must be"),
        (
            ["run", "--strategy", "nocol", "--physical", "regular-4"],
            "physical applies to strategies that take a physical graph",
        ),
    ],
)
def test_bad_arguments_exit_non_zero_with_one_line(args, message, capsys):
    code, out, err = call(args, capsys)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("baygo: error:") and message in err


def test_physical_graph_restricts_whom_agents_hear(tmp_path, capsys):
    args = ["run", "--agents", "10", "--steps", "8", "--grid", "11", "--seed", "2"]
    code, _, _ = call([*args, "--physical", "regular-3", "--out", str(tmp_path)], capsys)
    assert code == 0
    run = bg.Run.load(tmp_path)
    hears = set(physical_at(run, 0).edges)  # (j, i): i may hear j
    g = nx.Graph(list(hears))
    assert g.number_of_nodes() == 10 and all(d == 3 for _, d in g.degree())
    _, src, dst, _ = run.step_edges()
    assert set(zip(src.tolist(), dst.tolist(), strict=True)) <= hears
    assert run.config["physical"] == 30  # directed listening pairs
    # the same seed and name through the Python API give the same run
    same = bg.simulate(
        BayGo(physical="regular-3"), agents=10, steps=8, model=LinearRegression(grid=11), rng=2
    )
    assert set(physical_at(same, 0).edges) == hears


def test_time_varying_physical_graph_and_model_options(tmp_path, capsys):
    args = ["run", "--agents", "6", "--steps", "5", "--grid", "11", "--physical", "gossip"]
    code, out, _ = call([*args, "--out", str(tmp_path), "--json"], capsys)
    assert code == 0
    run = bg.Run.load(tmp_path)
    assert run.config["physical"] == "gossip" and "physical_ptr" in run.records
    code, out, _ = call(
        ["run", "--steps", "2", "--model-option", "bounds=[-3,3]", "--json"], capsys
    )
    assert code == 0 and json.loads(out)["steps"] == 2
    code, _, err = call(["run", "--steps", "2", "--model-option", "nonsense"], capsys)
    assert code != 0 and "KEY=VALUE" in err


def test_out_holding_a_run_needs_force(tmp_path, capsys):
    args = ["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", str(tmp_path)]
    assert call(args, capsys)[0] == 0
    before = (tmp_path / "run.npz").read_bytes()
    code, _, err = call([*args, "--seed", "1"], capsys)
    assert code != 0 and "--force" in err and err.count("\n") == 1
    assert (tmp_path / "run.npz").read_bytes() == before
    assert call([*args, "--seed", "1", "--force"], capsys)[0] == 0
    assert (tmp_path / "run.npz").read_bytes() != before


def test_out_may_name_a_npz_file_and_the_errors_speak_cli(tmp_path, capsys):
    target = tmp_path / "x.npz"
    args = ["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", str(target)]
    code, out, err = call(args, capsys)
    assert code == 0, err
    assert target.is_file() and out.endswith(f"wrote {target}\n")
    assert bg.Run.load(target).n_steps == 2
    before = target.read_bytes()
    code, _, err = call([*args, "--seed", "1"], capsys)
    assert code == 1 and err.count("\n") == 1
    assert f"--out: {target}: a run is already saved there (pass --force" in err
    assert "overwrite=True" not in err  # a Python keyword means nothing on the command line
    assert target.read_bytes() == before
    assert call([*args, "--seed", "1", "--force"], capsys)[0] == 0
    assert bg.Run.load(target).config["seed"] == 1
    (tmp_path / "d.npz").mkdir()  # a folder named like a file is not a run file
    code, _, err = call([*args[:-1], str(tmp_path / "d.npz")], capsys)
    assert code == 1 and "is a folder, not a file" in err


def test_the_exact_model_runs_from_the_command_line(capsys):
    code, out, err = call(
        ["run", "--model", "exact", "--agents", "4", "--steps", "2", "--json"], capsys
    )
    assert code == 0, err
    assert json.loads(out)["steps"] == 2


def test_many_agents_on_default_synthetic_data(monkeypatch):
    """--agents 200 works on the default synthetic data (sized to the agents), and the
    "listened to" line stays short."""
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    args = ["run", "--agents", "200", "--steps", "2", "--grid", "9"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "data synthetic (n=2000)" in result.output
    line = next(x for x in result.output.splitlines() if x.startswith("listened to"))
    assert "top 10 of 200 agents" in line and "190 others" in line and len(line) < 200
    small = CliRunner().invoke(cli, [*args[:2], "30", *args[3:], "--samples", "400", "--json"])
    assert small.exit_code == 0, small.output
    assert '"synthetic (n=400)"' in small.output
    with CliRunner().isolated_filesystem():
        Path("x.csv").write_text("a data file\n")  # given: --samples has nothing to size
        bad = CliRunner().invoke(cli, [*args, "--samples", "400", "--data", "x.csv"])
    assert bad.exit_code != 0 and "--samples sizes the synthetic data" in bad.output


def test_a_newline_in_the_data_path_stays_on_its_line(tmp_path, capsys):
    path = tmp_path / "a\nFAKE: 1.csv"  # a legal file name on Linux
    bg.synthetic_bodyfat(rng=0).frame.to_csv(path, index=False)
    code, out, _ = call(
        ["run", "--steps", "3", "--agents", "4", "--grid", "11", "--data", str(path)], capsys
    )
    assert code == 0
    assert not [line for line in out.splitlines() if line.startswith("FAKE")]
    assert "data " in out and "a FAKE: 1.csv" in out


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--agents", "3", "--steps", "2", "--grid", "5", "--delta", "1e-400"],
        ["compare", "--seeds", "1", "--steps", "2", "--agents", "3", "--grid", "5",
         "--delta", "1e-400"],
        ["compare", "--seeds", "1", "--steps", "2", "--agents", "3", "--grid", "5",
         "--tolerance", "4e-999"],
        ["sweep", "--param", "delta=0.5,1e-400", "--seeds", "1", "--steps", "2", "--out", "sw"],
    ],
)  # fmt: skip
def test_a_nonzero_number_that_is_0_as_a_float_is_refused(args, capsys, tmp_path, monkeypatch):
    """hostile7 K10: `--delta 1e-400` ran with delta 0 (the user typed a positive value),
    as `--self-weight 1e-400` did before hostile6 G7: one rule for every number option."""
    monkeypatch.chdir(tmp_path)
    code, out, err = call(args, capsys)
    assert code == 2 and out == "" and not (tmp_path / "sw").exists()
    assert "is nonzero but below the smallest float, so it would be 0" in err, err
    assert err.count("\n") == 1


def test_minus_0_is_0(capsys, tmp_path):
    code, out, _ = call(["run", "--agents", "3", "--steps", "2", "--grid", "5", "--delta", "-0",
                         "--out", str(tmp_path / "r")], capsys)  # fmt: skip
    assert code == 0
    run = bg.Run.load(tmp_path / "r")
    assert run.delta == 0 and str(run.delta) == "0.0"  # not -0.0, printed "-0"
    code, out, _ = call(["analyze", str(tmp_path / "r")], capsys)
    assert "delta = -0" not in out and "delta = 0" in out


@pytest.mark.parametrize("command", ["run", "compare"])
def test_a_32_bit_seed_with_out_runs_as_without(tmp_path, command):
    """`--seed 4294967295 --out X` died with a 35-43-line traceback (OverflowError: fd is
    greater than maximum): the output-is-an-input check called os.path.samefile on every
    option value, and samefile takes an int as a file descriptor (hostile round 13, R7)."""
    from baygo_graph.cli import main

    argv = [command, "--steps", "3", "--agents", "3", "--grid", "5", "--seed", "4294967295",
            "--out", str(tmp_path / "x")]  # fmt: skip
    if command == "compare":
        argv[1:1] = ["--seeds", "1", "--strategies", "baygo"]
    assert main(argv) == 0
    assert (tmp_path / "x").exists()
