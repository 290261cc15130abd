"""Sweeps: table contents, seeds, resume after interruption, backends agree."""

from __future__ import annotations

import importlib
import importlib.util
import json

import numpy as np
import pandas as pd
import pytest

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.experiments import PARAMETERS, sweep, task_id
from baygo_graph.models import LinearRegression

# the module, not the function of the same name that experiments re-exports
sweep_mod = importlib.import_module("baygo_graph.experiments.sweep")

DATA = synthetic_bodyfat()
GRID = {"delta": [0.3, 0.7], "agents": [4, 5], "grid": [11]}
KW = {"strategies": ["baygo", "nocol"], "seeds": 2, "steps": 4, "data": DATA, "progress": False}


def _values(table: pd.DataFrame) -> pd.DataFrame:
    """The table without the wall-time column (the only one that may differ)."""
    return table.drop(columns=["seconds"])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    return sweep(GRID, out=out, n_jobs=1, **KW)


def test_table_has_one_row_per_task_with_the_runs_values(reference):
    # 2 deltas x 2 agent counts x (baygo + nocol) x 2 seeds
    assert len(reference) == 16
    assert reference["id"].is_unique
    assert set(reference["strategy"]) == {"baygo", "nocol"}
    assert reference.loc[reference.strategy == "nocol", "physical"].isna().all()
    assert (reference.loc[reference.strategy == "baygo", "physical"] == "complete").all()
    assert (reference["seconds"] > 0).all()
    assert not reference["synthetic"].eq(False).any()
    # each row is the run simulate() gives with the seed's SeedSequence child
    child = np.random.SeedSequence(0).spawn(2)[1]
    row = reference.query("strategy == 'baygo' and delta == 0.7 and agents == 5 and seed == 1")
    run = simulate(
        "baygo", agents=5, steps=4, model=LinearRegression(grid=11), delta=0.7, rng=child, data=DATA
    )
    assert row["final_mse_informative"].item() == run.mse[-1, 0]
    assert row["final_mse_others_mean"].item() == pytest.approx(run.mse[-1, 1:].mean(), abs=0)


def test_seeds_differ_and_parameters_matter(reference):
    baygo = reference[reference.strategy == "baygo"]
    by_seed = baygo.groupby("seed")["final_mse_others_mean"].apply(tuple)
    assert by_seed[0] != by_seed[1]
    by_delta = baygo.groupby("delta")["final_mse_others_mean"].apply(tuple)
    assert by_delta[0.3] != by_delta[0.7]


def test_results_parquet_is_the_returned_table(reference, tmp_path):
    table = sweep(GRID, out=tmp_path, n_jobs=1, **KW)
    assert sorted(p.name for p in tmp_path.glob("results.*")) == ["results.parquet"]
    disk = pd.read_parquet(tmp_path / "results.parquet")
    assert disk.columns.tolist() == table.columns.tolist() and len(disk) == len(table)
    assert disk.attrs["synthetic"] == bool(table["synthetic"].any())  # pandas reads it back
    assert disk.attrs["data_source"] == str(table["data"].iloc[0])
    for col in ("strategy", "physical", "data", "model", "loss"):
        assert str(disk[col].dtype) == "category"
    for col in ("agents", "batch", "grid", "steps", "seed"):
        assert disk[col].dtype == np.int32
    for col in ("final_mse_informative", "final_mse_others_mean", "seconds", "delta"):
        np.testing.assert_array_equal(disk[col], table[col])  # exact
    pd.testing.assert_frame_equal(
        disk.astype(dict.fromkeys(("strategy", "physical", "data", "model", "loss"), object)),
        table.astype({"agents": np.int32, "batch": np.int32, "grid": np.int32,
                      "steps": np.int32, "seed": np.int32}),
        check_dtype=False,
    )  # fmt: skip
    assert disk["synthetic"].all()
    import pyarrow.parquet as pq

    assert pq.read_schema(tmp_path / "results.parquet").metadata[b"synthetic"] == b"true"
    assert len(list((tmp_path / "tasks").glob("*.json"))) == 16


def test_an_old_folder_with_results_csv_resumes(reference, tmp_path, monkeypatch):
    """A folder of the previous version (tasks/ and results.csv) resumes: nothing is
    redone, and its table becomes results.parquet (the stale CSV is not kept)."""
    old = sweep(GRID, out=tmp_path, n_jobs=1, results_format="csv", **KW)
    assert sorted(p.name for p in tmp_path.glob("results.*")) == ["results.csv"]
    before = pd.read_csv(tmp_path / "results.csv")
    calls = []
    monkeypatch.setattr(sweep_mod, "_run_task", lambda task, shared: calls.append(task))
    again = sweep(GRID, out=tmp_path, n_jobs=1, **KW)
    assert calls == []
    pd.testing.assert_frame_equal(again, old)
    assert sorted(p.name for p in tmp_path.glob("results.*")) == ["results.parquet"]
    disk = pd.read_parquet(tmp_path / "results.parquet")
    np.testing.assert_array_equal(disk["final_mse_others_mean"], before["final_mse_others_mean"])
    with pytest.raises(ValueError, match="results_format must be one of .*'tsv'"):
        sweep(GRID, out=tmp_path, n_jobs=1, results_format="tsv", **KW)


def test_resume_runs_only_the_missing_tasks(reference, tmp_path, monkeypatch):
    calls = []
    real = sweep_mod._run_task

    def counting(task, dataset):
        calls.append(task["id"])
        return real(task, dataset)

    monkeypatch.setattr(sweep_mod, "_run_task", counting)
    # an interrupted sweep: only one seed finished
    part = sweep(GRID, out=tmp_path, n_jobs=1, **dict(KW, seeds=1))
    assert len(part) == len(calls) == 8
    # a task whose file was lost, and a half-written temporary file, are redone / ignored
    lost = part["id"].iloc[0]
    (tmp_path / "tasks" / f"{lost}.json").unlink()
    (tmp_path / "tasks" / f".{part['id'].iloc[1]}.json.tmp").write_text('{"id": ')
    calls.clear()
    full = sweep(GRID, out=tmp_path, n_jobs=1, **KW)
    assert len(calls) == 8 + 1 and lost in calls
    assert not set(calls) & set(part["id"].iloc[1:])
    pd.testing.assert_frame_equal(_values(full), _values(reference))
    calls.clear()
    sweep(GRID, out=tmp_path, n_jobs=1, **KW)  # everything done: nothing runs
    assert calls == []


def test_a_corrupt_task_file_is_redone(reference, tmp_path):
    sweep(GRID, out=tmp_path, n_jobs=1, **KW)
    victim = tmp_path / "tasks" / f"{reference['id'].iloc[3]}.json"
    victim.write_text("not json")
    table = sweep(GRID, out=tmp_path, n_jobs=1, **KW)
    pd.testing.assert_frame_equal(_values(table), _values(reference))
    assert json.loads(victim.read_text())["id"] == reference["id"].iloc[3]


def test_two_local_workers_give_the_same_table(reference, tmp_path):
    table = sweep(GRID, out=tmp_path, n_jobs=2, **KW)
    pd.testing.assert_frame_equal(_values(table), _values(reference))


def test_dask_local_cluster_gives_the_same_table(reference, tmp_path, dask_cluster):
    table = sweep(GRID, out=tmp_path, scheduler=dask_cluster.scheduler_address, **KW)
    pd.testing.assert_frame_equal(_values(table), _values(reference))


def test_task_identity_changes_with_root_seed_and_parameters(tmp_path):
    small = {"agents": [4], "grid": [9]}
    kw = dict(KW, seeds=1, strategies=["baygo"])
    a = sweep(small, out=tmp_path / "a", n_jobs=1, rng=0, **kw)
    b = sweep(small, out=tmp_path / "b", n_jobs=1, rng=1, **kw)
    c = sweep(dict(small, delta=[0.4]), out=tmp_path / "c", n_jobs=1, rng=0, **kw)
    assert len({a["id"][0], b["id"][0], c["id"][0]}) == 3
    assert a["final_mse_others_mean"][0] != b["final_mse_others_mean"][0]
    assert task_id({"x": 1, "y": [1, 2]}) == task_id({"y": [1, 2], "x": 1})


def test_sparse_physical_graph_restricts_choices(tmp_path):
    table = sweep(
        {"agents": [8], "grid": [9], "physical": ["regular-2", "complete"]},
        out=tmp_path,
        n_jobs=1,
        **dict(KW, seeds=1, strategies=["baygo"]),
    )
    assert list(table["physical"]) == ["complete", "regular-2"]
    assert table["final_mse_others_mean"].nunique() == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"grid": {"alpha": [1]}}, "unknown parameter 'alpha'"),
        ({"grid": {"delta": []}}, "at least one value"),
        ({"grid": {"agents": [2.5]}}, "must hold int values"),
        ({"grid": {"agents": [300]}}, "has no training sample"),
        ({"grid": {"physical": ["regular-3"], "agents": [5]}}, "physical must be"),
        ({"grid": {"physical": ["regular-0"], "agents": [8]}}, "'regular-0' \\(D = 0"),
        ({"grid": {"physical": ["geometric-nan"]}}, "'geometric-nan' \\(D = 'nan'\\)"),
        ({"grid": {"delta": [0.5, 2]}}, r"grid\['delta'\] must be in \[0, 1\], got 2.0"),
        ({"grid": {"grid": [1]}}, r"grid\['grid'\] must be an integer >= 2, got 1"),
        ({"grid": {"batch": [0]}}, r"grid\['batch'\] must be an integer >= 1, got 0"),
        ({"grid": {"steps": [3, 0]}}, r"grid\['steps'\] must be an integer >= 1, got 0"),
        ({"grid": {"agents": [1]}}, r"grid\['agents'\] must be an integer >= 2, got 1"),
        ({"grid": {}, "strategies": ["magic"]}, "strategies must be"),
        ({"grid": {}, "seeds": 0}, "seeds must be"),
        ({"grid": {}, "n_jobs": 0}, "n_jobs must be"),
        ({"grid": {}, "rng": -1}, "rng must be"),
        ({"grid": {}, "scheduler": "synchronous"}, "scheduler: 'synchronous' is not a sched"),
    ],
)
def test_bad_arguments_are_named(kwargs, message, tmp_path):
    kw = dict(KW, n_jobs=1)
    kw.update({k: v for k, v in kwargs.items() if k != "grid"})
    with pytest.raises(ValueError, match=message):
        sweep(kwargs["grid"], out=tmp_path, **kw)
    assert not (tmp_path / "tasks").exists()


def test_parameters_table_lists_the_sweepable_names():
    assert set(PARAMETERS) == {"delta", "agents", "batch", "grid", "physical", "steps"}


def test_old_module_is_gone():
    """The deprecated shim baygo_graph.sweep is removed: experiments.sweep is the one path."""
    assert importlib.util.find_spec("baygo_graph.sweep") is None


@pytest.mark.parametrize("failure", [RuntimeError("no workers"), KeyboardInterrupt()])
def test_failed_sweep_removes_only_the_folders_it_made(tmp_path, monkeypatch, failure):
    kw = dict(KW, seeds=1, strategies=["nocol"], n_jobs=1)
    small = {"agents": [4], "grid": [9]}
    earlier = sweep(small, out=tmp_path / "old", **kw)  # an earlier sweep's folder
    (tmp_path / "empty" / "tasks").mkdir(parents=True)  # made by someone else, empty

    def broken(*args, **kwargs):
        raise failure

    monkeypatch.setattr(sweep_mod, "run_tasks", broken)
    for out in (tmp_path / "new" / "deep", tmp_path / "old", tmp_path / "empty"):
        with pytest.raises(type(failure)):
            sweep(dict(small, delta=[0.2]), out=out, **kw)  # new tasks: run_tasks is called
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "old"]
    assert (tmp_path / "empty" / "tasks").is_dir()  # not this call's: kept, though empty
    files = sorted(p.name for p in (tmp_path / "old" / "tasks").iterdir())
    assert files == [f"{earlier['id'][0]}.json"]  # the finished task kept, no claim left


def test_the_table_never_wraps_a_count_into_int32(tmp_path):
    from baygo_graph.experiments.sweep import write_table

    table = pd.DataFrame({"id": ["a", "b"], "strategy": ["baygo", "baygo"],
                          "agents": [12, 3_000_000_000], "steps": [5, 5],
                          "data": ["x", "x"], "synthetic": [True, True]})  # fmt: skip
    disk = pd.read_parquet(write_table(table, tmp_path))
    assert disk["agents"].tolist() == [12, 3_000_000_000] and disk["agents"].dtype == np.int64
    assert disk["steps"].dtype == np.int32  # small values stay narrow


def test_the_table_holds_every_finished_task_of_the_folder(reference, tmp_path):
    """Two sweeps of different parameters into one folder: the table held only the last
    one's rows, though both said they wrote it (hostile round 8, L9). The returned frame
    stays this sweep's rows; no lock file is left."""
    one = sweep({"delta": [0.3], "agents": [4], "grid": [11]}, out=tmp_path, n_jobs=1, **KW)
    two = sweep({"delta": [0.7], "agents": [4], "grid": [11]}, out=tmp_path, n_jobs=1, **KW)
    assert len(one) == len(two) == 4 and not set(one["id"]) & set(two["id"])
    disk = pd.read_parquet(tmp_path / "results.parquet")
    want = reference[reference["agents"] == 4]  # the same tasks, in the table's order
    assert disk["id"].tolist() == want["id"].tolist()
    np.testing.assert_array_equal(disk["final_mse_others_mean"], want["final_mse_others_mean"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet", "tasks"]


def test_the_table_leaves_out_tasks_of_other_data_or_code(reference, tmp_path):
    """Since L9 the table held every finished task of the folder, also those of an edited
    plug-in or other data: two rows per seed that no column told apart (hostile round 9,
    M15). Only tasks of this sweep's code, data and model are in it."""
    grid = {"delta": [0.3], "agents": [4], "grid": [11]}
    other = sweep(grid, out=tmp_path, n_jobs=1, **dict(KW, data=synthetic_bodyfat(rng=1)))
    mine = sweep(grid, out=tmp_path, n_jobs=1, **KW)
    wider = sweep({**grid, "delta": [0.7]}, out=tmp_path, n_jobs=1, **KW)  # same code: kept
    disk = pd.read_parquet(tmp_path / "results.parquet")
    assert sorted(disk["id"]) == sorted([*mine["id"], *wider["id"]])
    assert not set(disk["id"]) & set(other["id"])
    assert len(list((tmp_path / "tasks").glob("*.json"))) == 12  # left out, not removed
