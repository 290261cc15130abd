"""save_runs / load_runs / find_runs: folders of runs, .npz files, errors."""

from __future__ import annotations

import pytest

from baygo_graph import Run, simulate, synthetic_bodyfat
from baygo_graph.exceptions import RunFormatError
from baygo_graph.io.runs import find_runs, save_runs
from baygo_graph.run import load_runs


@pytest.fixture(scope="module")
def runs():
    data = synthetic_bodyfat(rng=1)
    return {
        (s, seed): simulate(s, agents=3, steps=4, grid=9, rng=seed, data=data)
        for s in ("baygo", "nocol")
        for seed in (0, 11)
    }


def test_round_trip_mapping(tmp_path, runs):
    written = save_runs(runs, tmp_path / "p")
    assert [p.parent.name for p in written] == [
        "baygo-seed00", "baygo-seed11", "nocol-seed00", "nocol-seed11",
    ]  # fmt: skip
    back = load_runs([tmp_path / "p"])
    assert list(back) == [p.parent.name for p in written]
    assert list(back.values()) == list(runs.values())


def test_sequence_and_mixed_paths(tmp_path, runs):
    seq = list(runs.values())[:2]
    save_runs(seq, tmp_path)
    seq[0].save(tmp_path / "lone.npz")
    found = find_runs([tmp_path / "baygo-run0", tmp_path / "lone.npz", tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "baygo-run0/run.npz", "lone.npz", "baygo-run0/run.npz", "baygo-run1/run.npz",
        "lone.npz",
    ]  # fmt: skip
    back = load_runs([tmp_path / "lone.npz", tmp_path / "baygo-run1"])
    assert list(back) == ["lone", "baygo-run1"] and back["lone"] == seq[0]


def test_overwrite_and_errors(tmp_path, runs):
    one = {("baygo", 0): runs["baygo", 0]}
    save_runs(one, tmp_path)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_runs(one, tmp_path)
    save_runs(one, tmp_path, overwrite=True)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFormatError, match="no saved run in"):
        find_runs([tmp_path / "empty"])
    with pytest.raises(RunFormatError, match="no saved run at"):
        load_runs(tmp_path / "missing")
    assert isinstance(load_runs(str(tmp_path / "baygo-seed0"))["baygo-seed0"], Run)


def test_nested_folders(tmp_path, runs):
    save_runs(runs, tmp_path / "results" / "runs")
    (tmp_path / "results" / "report.md").write_text("not a run")
    found = find_runs([tmp_path / "results"])
    assert [p.parent.name for p in found] == [
        "baygo-seed00", "baygo-seed11", "nocol-seed00", "nocol-seed11",
    ]  # fmt: skip
