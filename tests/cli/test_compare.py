"""`baygo compare`: files, printed table, JSON, synthetic banner, one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph._format import synthetic_banner
from baygo_graph.analysis import summarize
from baygo_graph.cli import main
from baygo_graph.experiments import compare
from baygo_graph.io.results import load_results
from baygo_graph.models import LinearRegression

SMALL = ["compare", "--seeds", "2", "--steps", "4", "--agents", "3", "--grid", "11"]
SMALL += ["--jobs", "1", "--window", "2", "--no-progress"]


def call(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)


def test_writes_files_and_prints_the_table(tmp_path, capsys, no_env):
    args = [*SMALL, "--strategies", "baygo,nocol,cen", "--seed", "4", "--out", str(tmp_path),
            "--csv"]  # fmt: skip
    code, out, _ = call(args, capsys)
    assert code == 0
    assert not (tmp_path / "results.parquet").exists()
    assert out.startswith("NOTE: SYNTHETIC DATA")
    assert "| baygo " in out and "| nocol " in out and "| cen " in out
    assert "baygo - nocol" in out
    said = [line for line in out.splitlines() if line.startswith("wrote ")]  # as written
    assert said == [f"wrote {tmp_path / n}" for n in ("results.csv", "summary.md", "summary.json")]
    csv = (tmp_path / "results.csv").read_text()
    assert csv.startswith("# NOTE: SYNTHETIC DATA")
    df = pd.read_csv(tmp_path / "results.csv", comment="#")
    assert df.columns.tolist() == [
        "strategy",
        "seed",
        "step",
        "agent",
        "informative",
        "mse",
        "influence",
        "data",
        "synthetic",
    ]
    assert df["synthetic"].all() and df["data"].str.startswith("synthetic").all()
    assert len(df) == 3 * 2 * 4 * 3
    # the CSV holds exactly what the API gives for the same arguments
    api = compare(
        ["baygo", "nocol", "cen"],
        seeds=2,
        steps=4,
        agents=3,
        model=LinearRegression(grid=11),
        rng=4,
        n_jobs=1,
        progress=False,
        influence_window=2,
    )
    np.testing.assert_allclose(df["mse"], api["mse"], rtol=5e-6)  # 6 significant digits
    from baygo_graph.analysis import Comparison

    back = Comparison.read_csv(tmp_path / "results.csv")  # the note line is skipped
    assert back.attrs["synthetic"] is True and back.strategies == ("baygo", "nocol", "cen")
    np.testing.assert_allclose(back.mse.ravel(), api["mse"], rtol=5e-6)
    md = (tmp_path / "summary.md").read_text()
    assert md.startswith("# Strategy comparison\n\n**NOTE: SYNTHETIC DATA")
    assert "| strategy " in md and "Steps to Cen:" in md
    record = json.loads((tmp_path / "summary.json").read_text())
    assert record["synthetic"] is True and record["banner"].startswith("NOTE: SYNTHETIC")
    expected = summarize(api)
    assert record["summary"]["baygo"]["final_mse_others"] == pytest.approx(
        expected.loc["baygo", "final_mse_others"]
    )
    assert record["summary"]["nocol"]["influence_informative"] is None  # NaN -> null
    assert set(record["files"]) == {"results", "markdown", "json"}


def test_json_output_parses(capsys, bodyfat_path):
    args = [*SMALL, "--strategies", "baygo,complete", "--data", str(bodyfat_path), "--json"]
    code, out, _ = call(args, capsys)
    assert code == 0
    record = json.loads(out)
    assert record["synthetic"] is False and record["banner"] is None
    assert record["strategies"] == ["baygo", "complete"]
    assert (record["seeds"], record["steps"], record["agents"]) == (2, 4, 3)
    assert record["data_source"] == str(bodyfat_path)
    assert set(record["summary"]["baygo"]) >= {
        "final_mse_informative",
        "final_mse_informative_lo",
        "final_mse_informative_hi",
        "final_mse_others",
        "steps_to_cen",
        "consensus_step",
        "influence_informative",
    }
    assert record["summary"]["baygo"]["steps_to_cen"] is None  # no cen asked for
    assert record["summary"]["baygo"]["seeds"] == 2
    assert record["paired"]["baygo - complete"]["final_mse_others"]["n"] == 2
    assert set(record["paired"]) == {"baygo - complete"}


def test_real_data_has_no_banner(tmp_path, capsys, bodyfat_path):
    args = [*SMALL, "--strategies", "nocol", "--data", str(bodyfat_path), "--out", str(tmp_path)]
    code, out, _ = call([*args, "--csv"], capsys)
    assert code == 0 and "SYNTHETIC" not in out
    assert (tmp_path / "results.csv").read_text().startswith("strategy,seed,")
    code, out, _ = call(args, capsys)  # again, Parquet: replaces the CSV
    assert code == 0 and "SYNTHETIC" not in out
    assert sorted(p.name for p in tmp_path.glob("results.*")) == ["results.parquet"]
    df = load_results(tmp_path / "results.parquet", columns=["data", "synthetic"])
    assert not df["synthetic"].any() and set(df["data"].astype(str)) == {str(bodyfat_path)}
    assert df.attrs["synthetic"] is False and df.attrs["data_source"] == str(bodyfat_path)


def test_out_writes_parquet_by_default_exactly(tmp_path, capsys, no_env):
    args = [*SMALL, "--strategies", "baygo,nocol", "--seed", "4", "--out", str(tmp_path)]
    code, out, _ = call(args, capsys)
    assert code == 0 and out.count("NOTE: SYNTHETIC DATA") == 1
    assert not (tmp_path / "results.csv").exists()
    path = tmp_path / "results.parquet"
    assert f"wrote {path}\n" in out
    api = compare(["baygo", "nocol"], seeds=2, steps=4, agents=3, model=LinearRegression(grid=11),
                  rng=4, n_jobs=1,
                  progress=False, influence_window=2)  # fmt: skip
    df = pd.read_parquet(path)  # plain pandas
    assert df.columns.tolist() == [*api.columns, "data", "synthetic"]
    assert str(df["strategy"].dtype) == "category"
    assert (df["seed"].dtype, df["agent"].dtype, df["step"].dtype) == (np.int16, np.int16,
                                                                       np.int32)  # fmt: skip
    for col in ("mse", "influence"):  # exact float64, not 6 digits
        np.testing.assert_array_equal(df[col].to_numpy(), api[col].to_numpy())
    np.testing.assert_array_equal(df["informative"], api["informative"])
    assert df["synthetic"].all() and df["data"].astype(str).str.startswith("synthetic").all()
    record = json.loads((tmp_path / "summary.json").read_text())
    assert record["files"]["results"] == str(path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategies", "baygo,ring"], "unknown strategy 'ring'"),
        (["--strategies", "baygo,baygo"], "named twice"),
        (["--strategies", ","], "give at least one"),
        (["--seeds", "0"], "'--seeds': 0 is not in the range"),
        (["--steps", "x"], "'x' is not a valid integer"),
        (["--jobs", "0"], "'--jobs': must be a non-zero integer"),
        (["--data", "/does/not/exist.csv"], "/does/not/exist.csv"),
        (["--agents", "200", "--samples", "20"], "has no training sample"),
    ],
)
def test_bad_arguments_exit_non_zero_with_one_line(args, message, capsys, no_env):
    code, out, err = call(
        ["compare", "--seeds", "1", "--steps", "2", "--grid", "11", *args], capsys
    )
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("baygo: error:") and message in err


def test_unwritable_out_is_a_one_line_error_before_any_run(tmp_path, capsys, no_env, monkeypatch):
    import baygo_graph.experiments as experiments

    def never(*args, **kwargs):
        raise AssertionError("compare ran before --out was checked")

    monkeypatch.setattr(experiments, "compare", never)
    blocker = tmp_path / "file"
    blocker.write_text("")
    for option in ("--out", "--save-runs"):
        code, out, err = call([*SMALL, "--strategies", "nocol", option, str(blocker / "x")], capsys)
        assert code == 1 and out == ""
        why = f"parent {blocker} is a file, not a folder"
        assert err == f"baygo: error: {option}: {blocker / 'x'}: {why}\n"


def test_failed_compare_removes_the_out_folder_it_made(tmp_path, capsys, no_env):
    (tmp_path / "old").mkdir()
    for out in (tmp_path / "new" / "sub", tmp_path / "old"):
        code, _, err = call([*SMALL, "--agents", "200", "--samples", "20", "--out", str(out)],
                            capsys)  # fmt: skip
        assert code == 1 and "has no training sample" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # the earlier folder kept


@pytest.mark.parametrize(("window", "used", "note"), [("9", 4, True), (None, 4, False)])
def test_window_longer_than_the_runs_is_cut_with_a_note(window, used, note, capsys, no_env):
    args = [*SMALL[: SMALL.index("--window")], "--no-progress", "--strategies", "baygo,nocol"]
    code, out, err = call([*args, *(["--window", window] if window else []), "--json"], capsys)
    assert code == 0
    record = json.loads(out)
    assert record["influence_window"] == used
    expected = "baygo: note: --window 9 is longer than the runs (4 steps): using 4\n"
    banner = synthetic_banner(True) + "\n"  # --json of synthetic data: said on screen too
    assert err == (expected if note else "") + banner
    api = compare(["baygo", "nocol"], seeds=2, steps=4, agents=3, model=LinearRegression(grid=11),
                  rng=0, n_jobs=1,
                  progress=False, influence_window=4)  # fmt: skip
    share = summarize(api).loc["baygo", "influence_informative"]
    assert np.isfinite(share)  # a whole-run window: an influence, not an empty column
    assert record["summary"]["baygo"]["influence_informative"] == pytest.approx(share)


def test_save_runs_keeps_every_run(tmp_path, capsys, no_env):
    from baygo_graph import Run

    args = [*SMALL, "--strategies", "baygo,cen", "--seed", "3", "--save-runs", str(tmp_path)]
    code, out, _ = call(args, capsys)
    assert code == 0 and f"runs saved: 4 folders in {tmp_path}" in out
    assert f"wrote {tmp_path / 'cen-seed1' / 'run.npz'}\n" in out
    names = sorted(p.name for p in tmp_path.iterdir())  # and the record of the files written
    assert names == [".baygo-files.json", "baygo-seed0", "baygo-seed1", "cen-seed0", "cen-seed1"]
    df, runs = compare(["baygo", "cen"], seeds=2, steps=4, agents=3, rng=3,
                       model=LinearRegression(grid=11), n_jobs=1, progress=False,
                       return_runs=True)  # fmt: skip
    for (strategy, seed), run in runs.items():
        assert Run.load(tmp_path / f"{strategy}-seed{seed}") == run


def test_json_entropy_is_a_number(capsys, no_env):
    import json

    code, out, _ = call([*SMALL, "--strategies", "nocol", "--json"], capsys)
    assert code == 0
    entropy = json.loads(out)["entropy"]
    assert isinstance(entropy, int) and not isinstance(entropy, bool) and entropy >= 0


def test_the_other_formats_table_is_said_when_removed(tmp_path, capsys, no_env):
    """--csv, then Parquet, into one folder: baygo's earlier results.csv would disagree
    with the new table and is removed; the command says so (it was silent)."""
    args = [*SMALL, "--strategies", "baygo,nocol", "--out", str(tmp_path)]
    assert call([*args, "--csv"], capsys)[0] == 0
    code, out, _ = call(args, capsys)
    assert code == 0 and not (tmp_path / "results.csv").exists()
    said = [line for line in out.splitlines() if line.startswith(("wrote ", "removed "))]
    assert said[:2] == [f"wrote {tmp_path / 'results.parquet'}",
                        f"removed {tmp_path / 'results.csv'}"]  # fmt: skip


def test_save_runs_takes_a_folder_holding_no_run(tmp_path, capsys):
    """A kill -9 left --save-runs D with only baygo's empty lock, and every re-run was
    refused "is not empty" (hostile16 U6); a .gitkeep the same. Hidden names are no runs;
    a folder that holds runs is refused naming them."""
    runs = tmp_path / "D"
    runs.mkdir()
    (runs / ".baygo.lock").write_text("")  # a killed command's stale lock
    (runs / ".gitkeep").write_text("")
    argv = ["compare", "--seeds", "1", "--steps", "3", "--agents", "3", "--grid", "5", "--jobs",
            "1", "--strategies", "baygo,nocol", "--save-runs", str(runs)]  # fmt: skip
    assert main(argv) == 0
    assert (runs / "baygo-seed0" / "run.npz").is_file()
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == (
        f"baygo: error: --save-runs {str(runs)!r} holds 'baygo-seed0', 'nocol-seed0': an "
        "analysis of it would mix earlier runs with these; choose an empty or new folder\n"
    )


def test_every_teller_records_the_grid_as_run(tmp_path, capsys):
    """`compare --grid 21` recorded "grid": null in summary.json and --json and nothing in
    the results table, where the runs said [21, 21] (hostile18 W2)."""
    import pyarrow.parquet as pq

    from baygo_graph.analysis import Comparison

    out, runs = tmp_path / "C", tmp_path / "runs"
    args = ["compare", "--seeds", "1", "--steps", "3", "--agents", "3", "--grid", "21",
            "--strategies", "baygo,nocol", "--jobs", "1"]  # fmt: skip
    assert main([*args, "--out", str(out), "--save-runs", str(runs)]) == 0
    text = capsys.readouterr().out
    assert "model linear (grid 21 x 21)" in text
    record = json.loads((out / "summary.json").read_text())
    assert record["grid"] == record["model_options"]["grid"] == [21, 21]
    assert record["delta"] == 0.5 and record["batch"] == 1
    assert main([*args, "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["grid"] == [21, 21] and said["model_options"] == record["model_options"]
    meta = json.loads(pq.read_schema(out / "results.parquet").metadata[b"baygo.results"])
    assert meta["attrs"]["model_options"] == record["model_options"]
    table = Comparison.read_parquet(out / "results.parquet")
    assert table.attrs["model_options"]["grid"] == [21, 21]
    assert bg.Run.load(runs / "baygo-seed0").config["grid"] == [21, 21]


@pytest.mark.parametrize(("model", "loss"), [("mean", "squared error"), ("logistic", "log-loss")])
def test_compare_runs_the_models_with_data_of_their_own(tmp_path, model, loss):
    # hostile21 Z11: compare handed every model the bodyfat stand-in ("synthetic (n=252)
    # has no column 'y1'"): mean and logistic could not run from the command line
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    args = ["compare", "--model", model, "--strategies", "baygo,nocol", "--seeds", "2",
            "--steps", "3", "--agents", "4", "--jobs", "1"]  # fmt: skip
    done = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "c")])
    assert done.exit_code == 0, done.output
    assert f"model {model}" in done.output and f"final {loss} informative" in done.output
    notes = (tmp_path / "c" / "summary.md").read_text()
    assert f"Final {loss}: mean over seeds" in notes and "Final MSE" not in notes
    refused = CliRunner().invoke(cli, [*args, "--samples", "300"])
    assert refused.exit_code == 2
    assert f"--samples sizes the bodyfat data; --model {model} has data of its own" in (
        refused.output
    )
