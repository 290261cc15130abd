"""A missing input, whatever the command: one line in our words, ``PATH: no such file or
folder`` (``--data: PATH: ...`` for an option), exit code 1, before any work and before
any output folder is made (newcomer: `baygo plot missing.csv` answered in click's words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baygo_graph.cli import main

SMALL = ["--agents", "4", "--steps", "3", "--grid", "9"]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["plot", "{m}"], ""),
        (["plot", "{m}", "--out", "{o}"], ""),
        (["animate", "{m}"], ""),
        (["analyze", "{m}"], ""),
        (["analyze", "{m}", "{m}"], ""),
        (["view", "{m}", "--out", "{o}/v.html"], ""),
        (["run", "--data", "{m}", *SMALL, "--out", "{o}"], "--data: "),
        (["compare", "--data", "{m}", "--seeds", "1", *SMALL, "--out", "{o}"], "--data: "),
        (["sweep", "--data", "{m}", "--seeds", "1", "--steps", "3", "--out", "{o}"], "--data: "),
        (["reproduce", "--data", "{m}", "--seeds", "1", "--steps", "3", "--out", "{o}"],
         "--data: "),
    ],
)  # fmt: skip
def test_a_missing_input_is_one_line_in_our_words(tmp_path, capsys, args, option):
    missing, out = tmp_path / "missing.csv", tmp_path / "out"
    argv = [a.format(m=missing, o=out) for a in args]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"baygo: error: {option}{missing}: no such file or folder\n"
    assert not out.exists()


def test_a_dangling_link_and_a_folder_as_data_are_named_as_such(tmp_path, capsys):
    link = tmp_path / "data.csv"
    link.symlink_to(tmp_path / "gone.csv")
    assert main(["plot", str(link)]) == 1
    err = capsys.readouterr().err
    assert err == (f"baygo: error: {link}: no such file or folder (a symbolic link to "
                   f"{tmp_path / 'gone.csv'}, which does not exist)\n")  # fmt: skip
    assert main(["run", "--data", str(tmp_path), *SMALL]) == 1
    assert capsys.readouterr().err == f"baygo: error: --data: {tmp_path}: is a folder, not a file\n"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["plot", "{r}", "--out", ""], "--out: "),
        (["analyze", "{r}", "--out", ""], "--out: "),
        (["analyze", ""], ""),
        (["view", "{r}", "--out", ""], "--out: "),
        (["animate", "{r}", "--out", ""], "--out: "),
        (["run", *SMALL, "--out", ""], "--out: "),
        (["run", *SMALL, "--data", ""], "--data: "),
        (["compare", "--seeds", "1", *SMALL, "--out", ""], "--out: "),
        (["compare", "--seeds", "1", *SMALL, "--save-runs", ""], "--save-runs: "),
        (["sweep", "--seeds", "1", "--steps", "3", "--out", ""], "--out: "),
        (["reproduce", "--seeds", "1", "--steps", "3", "--out", ""], "--out: "),
        (["reproduce", "--seeds", "1", "--steps", "3", "--out", "o", "--gallery", ""],
         "--gallery: "),
    ],
)  # fmt: skip
def test_an_empty_path_is_refused_not_taken_as_the_current_folder(
    tmp_path, capsys, monkeypatch, small_run, args, option
):
    """`--out "$OUT"` with OUT unset wrote every file into the current folder, and
    `baygo analyze "$RUN"` analysed it: an empty path is refused, naming the option."""
    small_run.save(tmp_path / "r")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main([a.format(r=tmp_path / "r") for a in args]) == 1
    err = capsys.readouterr().err
    assert err == f"baygo: error: {option}the path is empty (an unset shell variable?)\n"
    assert list(work.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_a_folder_where_no_file_can_be_made_names_the_output(tmp_path, capsys, small_run):
    """hostile7 K15: the error named baygo's temporary file
    ('/proc/.x.html.baygo-25392-yt6icsqg.tmp'), a name the user never gave."""
    from baygo_graph.io.atomic import atomic_text

    with pytest.raises(OSError) as caught:
        atomic_text("/proc/baygo-test.json", "{}")
    assert caught.value.filename == "/proc/baygo-test.json"
    edges = tmp_path / "c.csv"
    edges.write_text("source,target,time\na,b,0\nb,a,1\n")
    assert main(["view", str(edges), "--out", "/proc/x.html"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("baygo: error: --out: /proc/x.html: ") and ".tmp" not in err
    small_run.save(tmp_path / "r")  # an output folder that exists but takes no file
    assert main(["plot", str(tmp_path / "r"), "--out", "/proc/self"]) == 1
    assert capsys.readouterr().err.startswith("baygo: error: --out: /proc/self: ")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero (POSIX)")
@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["analyze", "{z}"], ""),
        (["analyze", "{f}"], ""),
        (["view", "{z}", "--out", "{o}/v.html"], ""),
        (["plot", "{f}", "--out", "{o}"], ""),
        (["run", "--data", "{z}", *SMALL], "--data: "),
        (["compare", "--data", "{f}", "--seeds", "1", *SMALL], "--data: "),
    ],
)  # fmt: skip
def test_a_fifo_or_device_as_an_input_is_named_as_such(tmp_path, capsys, args, option):
    """hostile7 K16: 'no graph series at z.json' (a link to /dev/zero), 'bodyfat file
    ... does not exist' for a FIFO: there is something there, it is not a file."""
    import os

    zero, fifo = tmp_path / "z.json", tmp_path / "f.csv"
    zero.symlink_to("/dev/zero")
    os.mkfifo(fifo)
    argv = [a.format(z=zero, f=fifo, o=tmp_path / "out") for a in args]
    assert main(argv) == 1
    shown = argv[argv.index("--data") + 1] if option else argv[1]
    assert capsys.readouterr().err == (
        f"baygo: error: {option}{shown}: is not a regular file (a FIFO, device or socket): "
        "baygo reads files; save it to a file first\n"
    )
    assert not (tmp_path / "out").exists()


def test_baygo_alone_prints_the_whole_help(capsys):
    """`baygo` with no command printed the help squashed into one error line, cut after
    300 characters ('baygo: error: Usage: ... (1392 more characters)'), exit code 2
    (newcomer6): a newcomer typing `baygo` gets the help itself, exit code 0."""
    from baygo_graph.cli import main

    assert main([]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("Usage: baygo [OPTIONS] COMMAND")
    assert all(f"  {name} " in out for name in ("analyze", "reproduce", "view"))


@pytest.mark.parametrize(
    "args",
    [["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", "rel"],
     ["compare", "--strategies", "baygo,nocol", "--seeds", "2", "--steps", "3", "--agents", "4",
      "--grid", "7", "--jobs", "2", "--out", "{abs}/cg"],
     ["sweep", "--strategies", "baygo", "--seeds", "2", "--param", "steps=3", "--jobs", "2",
      "--out", "{abs}/sg"],
     ["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", "{abs}/r"],
     ["analyze", "{abs}/in/e.csv"]],
)  # fmt: skip
def test_a_current_folder_removed_under_the_shell_is_said(tmp_path, monkeypatch, capsys, args):
    # hostile21 Z7: compare/sweep --jobs 2 ended in a bare '[Errno 2] No such file or
    # directory' (the workers' start asks for the current folder) and `run --out rel`
    # blamed the output's name
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "e.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code = main([a.format(abs=tmp_path) for a in args])
    err = capsys.readouterr().err
    assert code == 1
    assert err == ("baygo: error: the current folder no longer exists (it was removed after "
                   "this shell entered it): cd to a folder that exists and run the command "
                   "again\n")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]  # nothing written
    assert main(["run", "--help"]) == 0  # the help needs no folder


@pytest.mark.parametrize("name", ["download.tsv.k.tar.bz2", "k.tar.gz", "k.tar", "edges.csv.zip"])
@pytest.mark.parametrize("option", [["--bin", "86400"], ["--undirected"]])
def test_an_archive_given_with_edge_list_options_is_said_as_an_archive(tmp_path, capsys, name,
                                                                      option):  # fmt: skip
    # hostile22 Q5: KONECT's download given with its docs command's --bin was "a run"
    import io
    import tarfile
    import zipfile

    path = tmp_path / name
    text = b"% asym positive\n1 2 1 1082040961\n2 3 1 1082040962\n"
    if name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("edges.csv", text)
    else:
        mode = {"bz2": "w:bz2", "gz": "w:gz", "tar": "w"}[name.rsplit(".", 1)[1]]
        with tarfile.open(path, mode) as tar:
            info = tarfile.TarInfo("k/out.k")
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    code = main(["analyze", str(path), *option])
    err = capsys.readouterr().err
    kind = "a zip archive" if name.endswith(".zip") else "a tar archive"
    assert code == 1 and f"is {kind}, which baygo does not open: extract it" in err
    assert "is a run" not in err
