"""``baygo analyze`` on saved runs and graph series files (click's CliRunner)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from baygo_graph import Run, simulate, synthetic_bodyfat, write_series
from baygo_graph.analysis import influence_series, listener_fraction, smallest_b
from baygo_graph.cli import cli, main


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    run = simulate("baygo", agents=5, steps=24, grid=11, rng=2, data=synthetic_bodyfat(rng=0))
    folder = tmp_path_factory.mktemp("run")
    run.save(folder)
    return folder, Run.load(folder)


def run_main(argv) -> int:
    """The exit code of the ``baygo`` entry point (returned or raised)."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def invoke(*args):
    result = CliRunner().invoke(cli, ["analyze", *map(str, args)])
    return result


def test_json_report_matches_api(saved_run):
    folder, run = saved_run
    result = invoke(folder, "--json", "--window", 6)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["smallest_b"] == {
        "aligned": smallest_b(run, windows="aligned"),
        "sliding": smallest_b(run, windows="sliding"),
    }
    assert report["steps"] == 24 and report["agents"] == 5 and report["window"] == 6
    assert report["synthetic"] is True and report["strategy"] == "baygo"
    inf = influence_series(run, window=6, method="union", windows="sliding")[:, 0]
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
    assert f"smallest B (B-strong connectivity): aligned {b if b else 'none'}" in result.output
    assert "windows of 10" in result.output  # default window min(10, T)
    assert "reference influence of the informative agent: PosM 0.500" in result.output


@pytest.mark.parametrize("suffix", ["json", "graphml"])
def test_series_files(saved_run, tmp_path, suffix):
    folder, run = saved_run
    path = write_series(run, tmp_path / f"series.{suffix}")
    result = invoke(path, "--json", "--window", 4)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["smallest_b"]["sliding"] == smallest_b(run, windows="sliding")
    assert report["informative"] == 0  # node attribute survives the file
    assert report["synthetic"] is False  # a series file does not record its data
    direct = json.loads(invoke(folder, "--json", "--window", 4).output)
    for method in ("product", "union"):
        assert report["influence"][method]["informative"]["mean"] == pytest.approx(
            direct["influence"][method]["informative"]["mean"]
        )


def test_fixed_run_report(tmp_path):
    run = simulate("posm", agents=4, steps=8, grid=9, rng=0, data=synthetic_bodyfat(rng=0))
    run.save(tmp_path)
    report = json.loads(invoke(tmp_path, "--json").output)
    assert report["smallest_b"] == {"aligned": 1, "sliding": 1}
    assert report["influence"]["product"]["informative"]["mean"] == pytest.approx(0.5)
    assert report["influence"]["union"]["informative_rank"]["mean"] == 1.0
    assert report["listening_to_informative"]["mean"] == 1.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing", "no saved run"),
        (lambda p: (p / "x.json").write_text("{}") and p / "x.json", "not a baygo graph series"),
        (
            lambda p: (p / "bad.npz").write_bytes(b"nope") and p / "bad.npz",
            "not a readable baygo run",
        ),
    ],
)
def test_bad_input_one_line_error(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert run_main(["analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("baygo: error:") and message in err
    assert len(err.strip().splitlines()) == 1


def test_cen_run_and_bad_window(tmp_path, saved_run, capsys):
    run = simulate("cen", agents=3, steps=3, grid=9, rng=0, data=synthetic_bodyfat(rng=0))
    run.save(tmp_path)
    assert run_main(["analyze", str(tmp_path)]) == 1
    assert "no communication graph" in capsys.readouterr().err
    folder, _ = saved_run
    assert run_main(["analyze", str(folder), "--window", "99"]) == 1
    assert "--window must be in [1, 24]" in capsys.readouterr().err
