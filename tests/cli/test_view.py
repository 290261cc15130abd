"""``baygo view``: the HTML viewer of a saved run, and its one-line errors."""

from __future__ import annotations

import base64
import json
import re
import zlib

import numpy as np
import pytest
from shared import run_main

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.cli import main
from baygo_graph.models import LinearRegression


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    run = simulate(
        "baygo", agents=4, steps=6, model=LinearRegression(grid=11), rng=1, data=synthetic_bodyfat()
    )
    folder = tmp_path_factory.mktemp("run")
    return run, run.save(folder)


def data_of(path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="baygo-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


@pytest.mark.parametrize("use_folder", [True, False])
def test_view_writes_the_page(saved, tmp_path, capsys, use_folder):
    run, npz = saved
    out = tmp_path / "sub" / "run.html"
    assert run_main(["view", npz.parent if use_folder else npz, "--out", out, "--window", 2]) == 0
    assert str(out) in capsys.readouterr().out
    doc = data_of(out)
    assert doc["window"] == 2 and doc["n_steps"] == run.n_steps
    packed = doc["choices"]  # zlib + base64 uint16, choice + 1 (docs/viewer.md)
    choices = np.frombuffer(zlib.decompress(base64.b64decode(packed["zlib"])), "<u2")
    np.testing.assert_array_equal(choices.reshape(run.choices.shape).astype(int) - 1, run.choices)


def test_view_errors_are_one_line(saved, tmp_path, capsys, small_cen_run):
    small_cen_run.save(tmp_path / "cen")
    cases = [
        (["view", tmp_path / "missing", "--out", tmp_path / "a.html"], "no such file or folder"),
        (["view", tmp_path / "cen", "--out", tmp_path / "a.html"], "no communication graph"),
        (["view", saved[1], "--out", tmp_path / "a.html", "--window", 0], "--window"),
        (["view", saved[1]], "--out"),
    ]
    for argv, message in cases:
        assert run_main(argv) != 0
        err = capsys.readouterr().err
        assert err.startswith("baygo: error:") and message in err, err
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.html").exists()


def test_window_longer_than_the_run_is_cut_with_a_note(saved, tmp_path, capsys):
    run, npz = saved
    out = tmp_path / "page.html"
    assert run_main(["view", npz, "--out", out, "--window", 50]) == 0
    assert capsys.readouterr().err == (
        "baygo: note: --window 50 is longer than the run (6 steps): using 6\n"
    )
    assert data_of(out)["window"] == 6
    assert run_main(["view", npz, "--out", out, "--force"]) == 0  # default min(10, T): no note
    assert capsys.readouterr().err == "" and data_of(out)["window"] == 6


def test_out_under_a_file_or_on_a_folder(saved, tmp_path, capsys):
    _, npz = saved
    (tmp_path / "f").write_text("")
    assert run_main(["view", npz, "--out", tmp_path / "f" / "page.html"]) == 1
    why = f"parent {tmp_path}/f is a file, not a folder"
    assert capsys.readouterr().err == f"baygo: error: --out: {tmp_path}/f/page.html: {why}\n"
    assert run_main(["view", npz, "--out", tmp_path]) == 1  # our words, as every --out
    assert capsys.readouterr().err == f"baygo: error: --out: {tmp_path}: is a folder, not a file\n"


def test_out_ending_in_a_slash_is_a_folder_not_a_file(tmp_path, capsys):

    run = simulate(
        "baygo", agents=3, steps=3, model=LinearRegression(grid=9), rng=0, data=synthetic_bodyfat()
    )
    run_dir = str(run.save(tmp_path / "r").parent)
    (tmp_path / "F").write_text("keep")
    for out in (f"{tmp_path}/F/", f"{tmp_path}/newdir/"):
        assert main(["view", run_dir, "--out", out]) == 1
        assert capsys.readouterr().err == f"baygo: error: --out: {out}: is a folder, not a file\n"
    assert (tmp_path / "F").read_text() == "keep" and not (tmp_path / "newdir").exists()


def test_missing_folders_of_out_are_made_and_removed_on_failure(saved, tmp_path, capsys,
                                                                 monkeypatch):  # fmt: skip
    """As every --out folder: made when missing, and none left behind by a failure."""
    from baygo_graph.figures import html

    _, npz = saved
    out = tmp_path / "new" / "deeper" / "page.html"
    assert run_main(["view", npz.parent, "--out", out]) == 0
    assert out.is_file() and capsys.readouterr().out.endswith(f"wrote {out}\n")
    real = html.atomic_text

    def failing(path, text, **options):
        real(path.parent / "partial.tmp", "")  # the folders exist when the write fails
        (path.parent / "partial.tmp").unlink()
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html, "atomic_text", failing)
    failed = tmp_path / "other" / "deeper" / "page.html"
    assert run_main(["view", npz.parent, "--out", failed]) == 1
    err = capsys.readouterr().err
    assert err.startswith("baygo: error: --out: ") and "no space left on device" in err
    assert not (tmp_path / "other").exists()
    assert (tmp_path / "new" / "deeper").is_dir()  # a folder made by a success stays
