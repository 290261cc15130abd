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


#: (model, KEY=VALUE as typed, words of the refusal): every option of every built-in model
#: that reached a library call or was checked only in the run (hostile15 T5/T6: `k=` gave
#: "LinearRegression.__init__() got an unexpected keyword argument 'k'", exit 1).
BAD_MODEL_OPTIONS = [
    ("linear", "k=", "the linear model has no option 'k' (its options: bounds, dtype, grid,"),
    ("linear", "bounds=abc", "bounds=abc: bounds must be [lo, hi] with finite lo < hi"),
    ("linear", "bounds=[3,1]", "bounds=[3,1]: bounds must be [lo, hi] with finite lo < hi"),
    ("linear", "grid=abc", "grid=abc: grid must be an integer >= 2"),
    ("linear", "grid=1.5", "grid=1.5: grid must be an integer >= 2"),
    ("linear", "sigma=abc", "sigma=abc: sigma must be a finite number > 0"),
    ("linear", "sigma=-1", "sigma=-1: sigma must be a finite number > 0"),
    ("linear", "sigma_scale=0", "sigma_scale=0: sigma_scale must be a finite number > 0"),
    ("linear", "prior_var=abc", "prior_var=abc: prior_var must be a finite number > 0 or 2"),
    ("linear", "prior_var=[-1,1]", "prior_var=[-1,1]: prior_var must be a finite number > 0"),
    ("linear", "test_fraction=2", "test_fraction=2: test_fraction must be in (0, 1)"),
    ("linear", "informative_range=abc", "informative_range=abc: informative_range must be ["),
    ("linear", "other_range=[5,1]", "other_range=[5,1]: other_range must be [lo, hi] with"),
    ("linear", "dtype=abc", "dtype=abc: dtype must be 'float64' or 'float32'"),
    ("linear", "dtype=int8", "dtype=int8: dtype must be 'float64' or 'float32'"),
    ("mean", "k=1", "the mean model has no option 'k'"),
    ("mean", "dims=3", "dims=3: dims must be an integer in [1, 2]"),
    ("mean", "truth=abc", "truth=abc: truth must be a finite number"),
    ("mean", "sigma=abc", "sigma=abc: sigma must be a finite number > 0"),
    ("mean", "bounds=abc", "bounds=abc: bounds must be [lo, hi] with finite lo < hi"),
    ("mean", "informative_share=2", "informative_share=2: informative_share must be in (0, 1]"),
    ("mean", "extra_noise=-1", "extra_noise=-1: extra_noise must be a finite number >= 0"),
    ("mean", "assignment=abc", "assignment=abc: assignment must be a 1-D integer array"),
    ("logistic", "bounds=abc", "bounds=abc: bounds must be [lo, hi] with finite lo < hi"),
    ("logistic", "prior_var=abc", "prior_var=abc: prior_var must be a finite number > 0"),
    ("logistic", "assignment=[0.5]", "assignment=[0.5]: assignment must be a 1-D integer array"),
    ("logistic", "test_fraction=0", "test_fraction=0: test_fraction must be in (0, 1)"),
    ("exact", "grid=3", "the exact model has no option 'grid'"),
    ("exact", "prior_var=abc", "prior_var=abc: prior_var must be a finite number > 0 or 2"),
    ("exact", "dtype=abc", "dtype=abc: dtype must be 'float64' or 'float32'"),
    ("linear", "nonsense", "must be KEY=VALUE, got 'nonsense'"),
    ("linear", "=1", "must be KEY=VALUE, got '=1'"),
]


@pytest.mark.parametrize(("model", "pair", "words"), BAD_MODEL_OPTIONS)
def test_a_bad_model_option_is_a_usage_error_naming_it(tmp_path, capsys, model, pair, words):
    """A key the model does not take or a value it refuses: exit code 2 before any work,
    naming --model-option, the pair as typed and what the model takes."""
    out = tmp_path / "r"
    code = main(["run", "--model", model, "--steps", "2", "--model-option", pair, "--out",
                 str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("baygo: error: Invalid value for '--model-option': "), err
    assert words in err and err.count("\n") == 1, err
    assert not out.exists()  # before any work


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [  # the siblings: values no input makes valid, in a library's words before (exit 1)
        (["run", "--model", "exact", "--grid", "5"], "--grid", "the exact model has no grid"),
        (["compare", "--model", "exact", "--grid", "5"], "--grid", "the exact model has no grid"),
        (["sweep", "--model", "exact", "--param", "grid=5"], "--param", "exact model has no grid"),
        (["sweep", "--param", "delta=0.3,abc"], "--param", "delta=0.3,abc: delta must hold"),
        (["sweep", "--scheduler", "zz"], "--scheduler", "'zz' is not a scheduler address"),
        (["analyze", "IN", "--bin", "3xs"], "--bin", "must be a positive integer, a duration"),
        (["analyze", "IN", "--bin", "1.5"], "--bin", "got '1.5'"),
        (["analyze", "IN", "--bin", "nan"], "--bin", "got 'nan'"),
        (["view", "IN", "--bin", "W-FOO"], "--bin", "got 'W-FOO'"),
        (["plot", "IN", "--bin", "1day"], "--bin", "got '1day'"),
    ],
)
def test_values_no_input_makes_valid_are_usage_errors(tmp_path, capsys, args, option, words):
    (tmp_path / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    args = [str(tmp_path / "c.csv") if a == "IN" else a for a in args]
    out = tmp_path / ("v.html" if args[0] == "view" else "o")
    code = main([*args, "--out", str(out)] + (["--steps", "2"] if args[0] in ("run",
                "compare", "sweep") else []))  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"baygo: error: Invalid value for '{option}': "), err
    assert words in err and err.count("\n") == 1, err
    assert not out.exists()  # before any work


@pytest.mark.parametrize("text", ["7", "1W", "15min", "W-WED", "MS", "1D"])
def test_a_bin_some_file_takes_is_no_usage_error(text):
    from baygo_graph.io.times import check_bin

    assert check_bin(text) is None


def test_a_model_option_given_twice_is_a_usage_error_naming_both(tmp_path, capsys):
    """`--model-option grid=3 --model-option grid=5` gave Python's "zip() argument 2 is
    longer than argument 1", exit 1 (hostile17 V4): neither value is guessed."""
    out = tmp_path / "r"
    code = main(["run", "--steps", "2", "--model-option", "grid=3", "--model-option", "sigma=1",
                 "--model-option", "grid=5", "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err == (
        "baygo: error: Invalid value for '--model-option': grid given twice (grid=3, grid=5): "
        "give each key once\n"
    )
    assert not out.exists()


def test_a_grid_given_by_both_options_is_a_usage_error(tmp_path, capsys):
    """`--grid 7 --model-option grid=5` ran with grid 5, the other value silently dropped
    (newcomer8): one grid, given once."""
    out = tmp_path / "r"
    code = main(["run", "--steps", "2", "--grid", "7", "--model-option", "grid=5",
                 "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err == (
        "baygo: error: Invalid value for '--model-option': the grid given twice (--grid 7 and "
        "grid=5): give it once\n"
    )
    assert not out.exists()


#: The one sentence of what --bin takes.
BIN_TAKES = ("must be a positive integer, a duration ('15min', '6h', '1D', '7D') or a calendar "
             "period ('1W', 'W-WED', 'MS', 'YS'), got ")  # fmt: skip


@pytest.mark.parametrize("command", ["analyze", "plot", "view"])
@pytest.mark.parametrize("value", ["0", "-1", "1day", "1.5", "nan", "0D", " "])
def test_every_bin_refusal_says_what_bin_takes_in_one_sentence(tmp_path, capsys, command,
                                                                value):  # fmt: skip
    """`--bin 0` said "a positive integer or a duration" where `--bin 1day` listed the
    durations and calendar periods (newcomer5-8): one sentence, every value, every command."""
    (tmp_path / "c.csv").write_text("source,target,time\na,b,0\nb,a,1\n")
    out = tmp_path / ("v.html" if command == "view" else "o")
    code = main([command, str(tmp_path / "c.csv"), "--bin", value, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"Invalid value for '--bin': {BIN_TAKES}{value!r}" in err, err
    assert not out.exists()


@pytest.mark.parametrize(
    ("source", "how"),
    [("import sys\nsys.exit(0)\n", "sys.exit(0), line 2"),
     ("import sys\nsys.exit('needs torch')\n", "sys.exit('needs torch'), line 2"),
     ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--grid')\n"
      "args = p.parse_args()\n", "argparse refused baygo's own arguments, line 4")],
)  # fmt: skip
def test_a_plugin_that_exits_while_imported_is_said(tmp_path, capsys, monkeypatch, source, how):
    # hostile21 Z14: sys.exit(0) in a plug-in ended baygo with exit 0 having done nothing;
    # a script's argparse printed its usage as if baygo had refused its own options
    import sys

    from shared import plugin_sandbox

    from baygo_graph.cli import main

    plugin = tmp_path / "script_like.py"
    plugin.write_text(source)
    args = ["--plugin", str(plugin), "run", "--agents", "3", "--steps", "2", "--grid", "5",
            "--out", str(tmp_path / "ZZ")]  # fmt: skip
    # argparse reads sys.argv: the baygo script's own (under pytest it is pytest's, which a
    # bare `python -m pytest` leaves empty: the plug-in then loaded and stayed registered)
    monkeypatch.setattr(sys, "argv", ["baygo", *args])
    with plugin_sandbox():
        code = main(args)
    err = capsys.readouterr().err
    assert code == 1 and not (tmp_path / "ZZ").exists()
    assert err == (f"baygo: error: plug-in {plugin} exited while it was imported ({how}): a "
                   "plug-in's code runs when it is imported: guard a script's own code with "
                   "if __name__ == '__main__'\n")  # fmt: skip


@pytest.mark.parametrize("address", ["tcp://a..b:8786", "tcp://" + "x" * 64 + ".org:8786",
                                     "tcp://" + "a." * 130 + "org:8786"])  # fmt: skip
def test_a_scheduler_host_that_names_no_host_is_no_scheduler_address(tmp_path, capsys, address):
    # hostile21 Z15 (a): an empty label or one over 63 characters was refused in the IDNA
    # codec's words ("encoding with 'idna' codec failed"), naming neither option nor address
    code = main(["sweep", "--strategies", "baygo", "--seeds", "2", "--param", "steps=3",
                 "--scheduler", address, "--out", str(tmp_path / "sg")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Invalid value for '--scheduler': " in err
    assert "is not a scheduler address (tcp://HOST:PORT)" in err and "idna" not in err


def test_an_output_path_thousands_of_folders_deep_is_made(tmp_path, monkeypatch, capsys):
    # hostile21 Z15 (b): pathlib's mkdir(parents=True) recursed once per folder: "maximum
    # recursion depth exceeded" for --out 2,000 folders deep (a longer path than the system
    # takes now gets its "file name too long", naming --out)
    monkeypatch.chdir(tmp_path)
    deep = "/".join(["d"] * 1500)  # deeper than Python's recursion limit, within PATH_MAX
    code = main(["run", "--agents", "3", "--steps", "2", "--grid", "5", "--out", f"{deep}/r"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / deep / "r" / "run.npz").is_file()
    # removed from the deepest in: shutil.rmtree (pytest's clean-up) recurses per folder
    folder = tmp_path / deep / "r"
    for p in folder.iterdir():
        p.unlink()
    while folder != tmp_path:
        folder.rmdir()
        folder = folder.parent
