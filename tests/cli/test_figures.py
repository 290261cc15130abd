"""`baygo plot`, `baygo animate`, `baygo reproduce`: files written, one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest
from PIL import Image

from baygo_graph import simulate, synthetic_bodyfat
from baygo_graph.cli import main
from baygo_graph.cli.figures import parse_steps
from baygo_graph.figures import video as animation_module
from baygo_graph.models import LinearRegression
from baygo_graph.reproduce import CLAIM_KEYS, FIGURES


def call(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("run")
    simulate(
        "baygo", agents=4, steps=8, model=LinearRegression(grid=21), rng=2, data=synthetic_bodyfat()
    ).save(path)
    return path


def test_plot_writes_the_run_figures(run_dir, tmp_path, capsys):
    code, out, _ = call(
        ["plot", run_dir, "--out", tmp_path, "--format", "png", "--format", "pdf",
         "--window", "3", "--json"], capsys,
    )  # fmt: skip
    assert code == 0
    summary = json.loads(out)
    names = {"mse_every_agent", "graph_last_step", "graph_union", "influence",
             "window_connectivity", "listen_matrix", "listening_fraction"}  # fmt: skip
    expected = {str(tmp_path / f"{n}.{e}") for n in names for e in ("png", "pdf")}
    assert set(summary["files"]) == expected and summary["synthetic"] is True
    assert all((tmp_path / f"{n}.png").stat().st_size > 1000 for n in names)


def test_animate_gif_has_one_frame_per_step(run_dir, capsys):
    code, out, _ = call(["animate", run_dir, "--steps", "1:4", "--dpi", "40"], capsys)
    assert code == 0
    assert out.startswith("NOTE: SYNTHETIC DATA") and "animating 3 frames (steps 1..3)" in out
    assert out.endswith(f"wrote {run_dir / 'animation.gif'}\n")
    with Image.open(run_dir / "animation.gif") as im:
        assert im.n_frames == 3


def test_animate_mp4_or_a_clear_message(run_dir, tmp_path, capsys, monkeypatch):
    if animation_module.ffmpeg_path() is not None:
        out_file = tmp_path / "a.mp4"
        code, _, _ = call(["animate", run_dir, "--format", "mp4", "--steps", ":3",
                           "--dpi", "40", "--out", out_file], capsys)  # fmt: skip
        assert code == 0 and out_file.stat().st_size > 1000
    monkeypatch.setattr(animation_module, "ffmpeg_path", lambda: None)
    code, out, err = call(["animate", run_dir, "--format", "mp4"], capsys)
    assert code != 0 and out == ""
    assert err.startswith("baygo: error: MP4 needs an ffmpeg writer") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["animate", "RUN", "--steps", "5:2"], "selects no step"),
        (["animate", "RUN", "--steps", "x"], "expected a:b"),
        (["animate", "RUN", "--out", "a.mp4"], "--out must end in .gif"),
        (["plot", "/does/not/exist"], "/does/not/exist: no such file or folder"),
    ],
)
def test_bad_arguments_exit_non_zero_with_one_line(run_dir, args, message, capsys):
    args = [run_dir if a == "RUN" else a for a in args]
    code, out, err = call(args, capsys)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("baygo: error:") and message in err


def test_animate_refuses_the_centralised_learner(tmp_path, capsys):
    simulate(
        "cen", agents=3, steps=2, model=LinearRegression(grid=11), rng=0, data=synthetic_bodyfat()
    ).save(tmp_path)
    code, _, err = call(["animate", tmp_path], capsys)
    assert code != 0 and "no graph to animate" in err


def test_parse_steps():
    assert parse_steps("2:5", 10) == range(2, 5)
    assert parse_steps("7", 10) == range(7, 8)
    assert parse_steps(None, 3) == range(3)
    assert parse_steps("-3:", 10) == range(7, 10)


def test_reproduce_small_configuration(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BAYGO_BODYFAT", raising=False)
    out_dir = tmp_path / "results"
    code, out, _ = call(
        ["reproduce", "--seeds", "2", "--steps", "5", "--grid", "11", "--jobs", "1",
         "--no-video", "--out", out_dir], capsys,
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("NOTE: SYNTHETIC DATA") and out.count("NOTE: SYNTHETIC") == 1
    assert "data: synthetic (n=252) (SYNTHETIC: see the note above" in out
    for key in CLAIM_KEYS:
        (line,) = [ln for ln in lines if ln.split()[:1] == [key]]
        assert re.fullmatch(
            r"holds|does not hold|violated where informative|vacuous|cannot tell at \d+ seeds"
            r"|not evaluated: (a|the) run of T = \d+ steps .+",
            line.split(None, 1)[1],
        )
    # 5 steps: the first-20-iterations sentence is not read, and the console says why
    (line,) = [ln for ln in lines if ln.split()[:1] == ["paper_complete_worsens_early"]]
    assert line.endswith(
        "not evaluated: a run of T = 5 steps is shorter than the "
        "sentence's first 20 iterations (needs T >= 20; the paper: 60)"
    )
    for name in set(FIGURES) - {"regimes"}:  # the regime map is opt-in
        assert (out_dir / "figures" / f"{name}.png").is_file()
        assert (out_dir / "figures" / f"{name}.pdf").is_file()
    assert not (out_dir / "regimes.csv").exists()
    assert not (out_dir / "results.csv").exists()
    for name in ("report.md", "results.parquet", "summary.md", "summary.json", "smallest_b.csv",
                 "horizon.csv", "theorem.csv", "animation/baygo_seed0.gif"):  # fmt: skip
        assert (out_dir / name).is_file(), name
    report = (out_dir / "report.md").read_text()
    assert "baygo reproduce --seeds 2 --steps 5" in report
    # a short run is a quick look: the horizon study at T/2, T, 2T, 5T (newcomer7: 20 x
    # 300-step runs whatever --steps), said in the console and the horizon table
    assert "BayGo with the theorem monitor, 2 seeds x 25 steps (the horizon study's T: " \
        "3, 5, 10, 25) ...\n" in out  # fmt: skip
    horizon = pd.read_csv(out_dir / "horizon.csv")
    assert sorted(set(horizon["steps"])) == [3, 5, 10, 25]
    verdicts = {
        c["key"]: c["verdict"] for c in json.loads((out_dir / "summary.json").read_text())["claims"]
    }
    for key, verdict in verdicts.items():
        assert f"| {key} |" in report and f"**{verdict}**" in report


def test_reproduce_regime_options_reach_the_library(tmp_path, capsys, monkeypatch):
    import baygo_graph.reproduce as rp

    seen = {}

    def fake(out, **kwargs):
        seen.update(kwargs)
        return rp.Reproduction(out=tmp_path, files={"report": tmp_path / "report.md"},
                               claims=[rp.Claim("k", "c", "t", True, "e")], summary=None,
                               synthetic=True,
                               timings={"total": 0.0})  # fmt: skip

    monkeypatch.setattr(rp, "reproduce", fake)
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listening:  # the address must answer
        address = f"tcp://127.0.0.1:{listening.getsockname()[1]}"
        code, out, _ = call(["reproduce", "--out", tmp_path, "--regimes", "--design",
                             "factorial", "--regime-seeds", "3", "--scheduler", address],
                            capsys)  # fmt: skip
    assert code == 0, out
    assert (seen["regimes"], seen["regime_seeds"], seen["scheduler"]) == ("factorial", 3, address)
    assert "--regimes --design factorial --regime-seeds 3" in seen["command"]
    code, out, _ = call(["reproduce", "--out", tmp_path], capsys)
    assert code == 0 and seen["regimes"] is None


def test_plot_and_animate_cut_a_long_window_with_a_note(run_dir, tmp_path, capsys):
    code, _, err = call(["plot", run_dir, "--window", "50", "--out", tmp_path / "figs"], capsys)
    assert code == 0
    assert "--window 50 is longer than the run (8 steps): using 8" in err
    (tmp_path / "f").write_text("")
    code, _, err = call(["animate", run_dir, "--out", tmp_path / "f" / "a.gif"], capsys)
    assert code != 0
    assert "--out:" in err and "parent" in err and "is a file, not a folder" in err


def test_a_format_given_twice_is_drawn_once(run_dir, tmp_path, capsys):
    code, out, err = call(["plot", run_dir, "--out", tmp_path, "--format", "png", "--format",
                           "svg", "--format", "png", "--json"], capsys)  # fmt: skip
    assert code == 0
    files = json.loads(out)["files"]
    assert len(files) == len(set(files)) == 14 and files[1].endswith(".svg")
    said = [line for line in err.splitlines() if not line.startswith("NOTE: SYNTHETIC")]
    assert said == [f"wrote {f}" for f in files]  # each said once


def test_a_gif_past_the_memory_budget_is_refused_before_its_frames_pile_up(
    run_dir, tmp_path, capsys, monkeypatch
):
    """hostile7 K8: a GIF keeps every frame until it is written (3,000 frames took 707 MB
    under a 300M budget); its frames are counted against the budget at the first one."""
    from baygo_graph.figures.video import GIF_BYTES_PER_PIXEL

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1MiB")
    out = tmp_path / "a.gif"
    code, _, err = call(["animate", run_dir, "--out", out, "--dpi", "40"], capsys)
    assert code == 1 and not out.exists()
    line = err.strip().splitlines()[-1]
    assert line.startswith("baygo: error: a GIF of 8 frames of ") and "--steps A:B" in line
    w, h = (int(x) for x in line.split(" frames of ")[1].split(" pixels")[0].split("x"))
    assert f"about {8 * w * h * GIF_BYTES_PER_PIXEL / 2**20:.1f} MiB" in line
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1GiB")  # fits: written, as before
    assert call(["animate", run_dir, "--out", out, "--dpi", "40"], capsys)[0] == 0


@pytest.mark.parametrize("spelled", ["R/figures", "R/./figures/", "link"])
def test_a_gallery_in_the_reports_figures_folder_is_refused(tmp_path, capsys, monkeypatch,
                                                             spelled):  # fmt: skip
    """hostile7 K12: --gallery OUT/figures wrote the gallery's small PNGs over the report's
    figures of the same names, without a word: refused before any work."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "R" / "figures")  # dangling until R is made
    args = [
        "reproduce",
        "--seeds",
        "1",
        "--steps",
        "3",
        "--agents",
        "4",
        "--grid",
        "9",
        "--jobs",
        "1",
        "--no-video",
        "--no-progress",
        "--out",
        "R",
        "--gallery",
        spelled,
    ]
    code, out, err = call(args, capsys)  # fmt: skip
    assert code == 1 and out == "" and not (tmp_path / "R").exists()
    assert err == (
        f"baygo: error: --gallery: {spelled}: is the folder of the report's figures "
        "(R/figures), whose names the gallery's PNGs share: choose another folder\n"
    )


def test_one_command_never_writes_one_file_twice(tmp_path):
    """The net under every command: two of its outputs that would have one name (a file
    written, then replaced by another output of the same command) are refused."""
    from baygo_graph.io.atomic import atomic_text, one_write_per_file

    with one_write_per_file():
        atomic_text(tmp_path / "a.md", "report")
        with pytest.raises(OSError, match="written twice by this command"):
            atomic_text(tmp_path / "." / "a.md", "gallery")
    assert (tmp_path / "a.md").read_text() == "report"
    atomic_text(tmp_path / "a.md", "again", overwrite=True)  # outside a command: replaced


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--regimes", "--scheduler", "synchronous"], "'synchronous' is not a scheduler address"),
        (
            ["--regimes", "--scheduler", "tcp://host"],
            "is not a scheduler address (tcp://HOST:PORT)",
        ),
        (["--scheduler", "tcp://127.0.0.1:8786"], "only the regime map (--regimes)"),
        (["--regimes", "--scheduler", "tcp://127.0.0.1:1"], "no Dask scheduler answers at"),
    ],
)
def test_reproduce_checks_its_scheduler_before_any_work(tmp_path, args, words):
    """The address was checked after the whole experiment, in Dask's words, and ignored
    without --regimes (hostile round 8, L7)."""
    from click.testing import CliRunner

    from baygo_graph.cli import cli

    out = tmp_path / "r"
    result = CliRunner().invoke(cli, ["reproduce", "--out", str(out), *args])
    usage = "not a scheduler address" in words  # an address no scheduler has: exit code 2
    assert result.exit_code == (2 if usage else 1) and words in result.output
    assert not out.exists()  # nothing made: refused before the work


@pytest.mark.parametrize("value", ["abc", "1", "", "30,x", "0,60"])
def test_reproduce_refuses_a_horizon_no_run_has_before_any_work(tmp_path, capsys, value):
    code, out, err = call(["reproduce", "--out", tmp_path / "r", f"--horizons={value}"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("baygo: error: Invalid value for '--horizons': expected run lengths")
    assert not (tmp_path / "r").exists()


def test_the_horizon_rule_keeps_the_papers_study_at_its_steps():
    from baygo_graph.reproduce.horizon import HORIZONS, default_horizons

    assert default_horizons(60) == HORIZONS == (30, 60, 120, 300)
    for steps in range(2, 200):
        got = default_horizons(steps)
        assert got == tuple(sorted({max(2, -(-steps // 2)), steps, 2 * steps, 5 * steps}))
        assert max(got) == 5 * steps and steps in got


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="matplotlib's XDG folders")
@pytest.mark.parametrize(
    "command",
    [["plot", "{run}", "--out", "{tmp}/p", "--format", "png"], ["view", "{run}", "--out",
     "{tmp}/v.html"], ["animate", "{run}", "--out", "{tmp}/a.gif", "--dpi", "30"]],
)  # fmt: skip
def test_a_home_that_cannot_be_written_gives_no_matplotlib_log(run_dir, tmp_path, command):
    # hostile21 Z2: HOME read-only (cluster nodes) or '/' (service users): matplotlib's own
    # two-line log of advice came on stderr, never a 'baygo: note:' line
    home = tmp_path / "home"
    home.write_text("a file: no folder can be made in it")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}  # fmt: skip
    env |= {"HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path), "MPLBACKEND": "Agg"}
    args = [a.format(run=run_dir, tmp=tmp_path) for a in command]
    main_ = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", main_, *args], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
