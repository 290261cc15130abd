"""One rule for a bad option value: a usage error, exit code 2, before any work, in every
command (`run --strategy bayg` exited 1 where `compare --strategies bayg` exited 2:
newcomer6)."""

from __future__ import annotations

import pytest

from baygo_graph.cli import main


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["run", "--strategy", "bayg"], "--strategy", "unknown strategy 'bayg'"),
        (["compare", "--strategies", "baygo,bayg"], "--strategies", "unknown strategy 'bayg'"),
        (["sweep", "--strategies", "bayg"], "--strategies", "unknown strategy 'bayg'"),
        (["run", "--model", "linar"], "--model", "unknown model 'linar'"),
        (["compare", "--model", "linar"], "--model", "unknown model 'linar'"),
        (["sweep", "--model", "linar"], "--model", "unknown model 'linar'"),
        (["run", "--physical", "xyz"], "--physical", "got 'xyz'"),
        (["run", "--physical", "regular-3", "--agents", "5"], "--physical", "is odd"),
        (["sweep", "--param", "delta=x"], "--param", "must hold float values"),
        (["sweep", "--param", "delta=2"], "--param", "must be in [0, 1]"),
        (["analyze", "IN", "--columns", "foo"], "--columns", "got 'foo'"),
    ],
)
def test_a_bad_option_value_is_a_usage_error_in_every_command(tmp_path, capsys, args, option,
                                                               words):  # fmt: skip
    (tmp_path / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    args = [str(tmp_path / "c.csv") if a == "IN" else a for a in args]
    if args[0] == "sweep":
        args += ["--out", str(tmp_path / "sw")]
    code = main([*args, "--steps", "2"] if args[0] != "analyze" else args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"baygo: error: Invalid value for '{option}'") or err.startswith(
        f"baygo: error: Invalid value for {option}"
    ), err
    assert words in err and err.count("\n") == 1
    assert not (tmp_path / "sw").exists()  # before any work


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["analyze", "IN", "--out", "IN"], "--out: IN: is a file, not a folder"),
        (["analyze", "IN", "--out", "OTHER"], "--out: OTHER: is a file, not a folder"),
        (["plot", "IN", "--out", "OTHER"], "--out: OTHER: is a file, not a folder"),
        (["compare", "--out", "OTHER", "--steps", "2"], "--out: OTHER: is a file, not a folder"),
        (["view", "IN", "--out", "DIR"], "--out: DIR: is a folder, not a file"),
    ],
)
def test_an_out_of_the_wrong_kind_is_said_in_our_words(tmp_path, capsys, args, said):
    """`analyze --out FILE` got click's "Invalid value for '--out': Directory 'FILE' is a
    file." where `run --out` said "--out: FILE: is a file, not a folder" (newcomer6)."""
    names = {"IN": tmp_path / "c.csv", "OTHER": tmp_path / "notes.txt", "DIR": tmp_path}
    names["IN"].write_text("source,target,time\na,b,0\nb,a,1\n")
    names["OTHER"].write_text("mine")
    code = main([str(names.get(a, a)) for a in args])
    err = capsys.readouterr().err
    for key, path in names.items():
        said = said.replace(key, str(path))
    assert code == 1 and err == f"baygo: error: {said}\n"
    assert names["OTHER"].read_text() == "mine"
