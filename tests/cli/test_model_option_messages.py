"""Every option of every model (grid models, the exact Gaussian, plug-ins through the
registry) against every kind of bad value: one line naming the option and the value as
typed and what it takes, exit code 2 (newcomer8 5b-5d: ``sigma=nan`` said "must be a
number, got str 'nan'", ``prior_var=0`` "must be finite numbers", ``bounds=1,0`` did not
show the form ``[lo, hi]``)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from baygo_graph._validate import check_real
from baygo_graph.cli import main
from baygo_graph.cli._common import option_value, parse_options
from baygo_graph.models import LinearRegression, model_names, model_options, register

#: Bad values of every kind, as a user types them.
BAD_VALUES = ["nan", "inf", "-inf", "0", "-1", "[1,2,3]", "abc", "", "NaN", "[nan,1]", "1,0"]


@dataclasses.dataclass(frozen=True)
class _PlugIn(LinearRegression):
    """A plug-in with one option of its own, checked by the package's check."""

    rate: float = 0.5

    def __post_init__(self):
        super().__post_init__()
        check_real("rate", self.rate, low=0, high=1, low_open=True)


def _loud(**options):
    """A plug-in whose refusal is many long lines (its own words)."""
    if options:
        raise ValueError("bad option:\n" + "this plug-in wants something else\n" * 40)
    return LinearRegression()


@pytest.fixture(scope="module", autouse=True)
def _plugins():
    register("fw-plugin", _PlugIn, replace=True)
    register("fw-loud", _loud, replace=True)


def _cases():
    register("fw-plugin", _PlugIn, replace=True)
    register("fw-loud", _loud, replace=True)
    for model in model_names():
        keys = model_options(model) or ("anything",)
        for key in keys:
            for value in BAD_VALUES:
                yield model, key, value


def _refusal(model, pair, tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["run", "--model", model, "--steps", "2", "--model-option", pair, "--out",
                 str(out)])  # fmt: skip
    err = capsys.readouterr().err
    return code, err, out


#: The options whose value is checked against the data once it is read (column names,
#: an assignment of samples to agents): a value may pass the build and be refused by
#: the run (exit code 1), in one line naming the value.
CHECKED_WITH_THE_DATA = {"assignment", "feature", "label"}


@pytest.mark.parametrize(("model", "key", "value"), list(_cases()))
def test_every_bad_model_option_is_one_line_naming_it(tmp_path, capsys, model, key, value):
    pair = f"{key}={value}"
    code, err, out = _refusal(model, pair, tmp_path, capsys)
    if code == 0:  # taken: only where the value is valid for the option
        assert (key, value) in {("extra_noise", "0"), ("truth", "0"), ("truth", "-1")}, err
        return
    if code == 1 and key in CHECKED_WITH_THE_DATA:  # against the data
        assert err.count("\n") == 1 and len(err) <= 300 and (value in err or key in err), err
        return
    assert code == 2, err
    head = "baygo: error: Invalid value for '--model-option': "
    assert err.startswith(head) and err.count("\n") == 1, err
    line = err.removeprefix("baygo: error: ").rstrip("\n")
    assert len(line) <= 300, line
    said = err.removeprefix(head)
    assert said.startswith(f"{pair}: "), said  # the option and the value as typed
    assert not re.search(r"got (str|list|float|int|bool) ", said), said  # no Python types
    if model != "fw-loud":
        assert f"{key} must be " in said, said  # what it takes
    if value.lower().lstrip("-") in ("nan", "inf") and model != "fw-loud":
        # a number, just not finite (or a value of another kind: an integer, a name)
        assert any(w in said for w in ("finite", "integer", "float64", "column name")), said
    assert not out.exists()  # before any work


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("text", "value"),
    [("nan", NAN), ("-inf", -INF), ("Infinity", INF), ("1,0", [1, 0]), ("-3, 3", [-3, 3]),
     ("[nan,1]", [NAN, 1]), ("float32", "float32"), ('"x,y"', "x,y"), ("a,b", "a,b"),
     ("nano", "nano"), ("info", "info"), ("0.5", 0.5)],
)  # fmt: skip
def test_option_values_read_number_words_and_bare_pairs(text, value):
    assert repr(option_value(text)) == repr(value)  # repr: nan equals nan


def test_a_bare_pair_builds_the_same_model_as_json(tmp_path):
    assert parse_options(["bounds=-3,3"]) == parse_options(["bounds=[-3,3]"])


@pytest.mark.parametrize(
    ("pair", "words"),
    [
        ("sigma=nan", "sigma=nan: sigma must be a finite number > 0\n"),
        ("prior_var=0", "prior_var=0: prior_var must be a finite number > 0 or 2 such numbers\n"),
        ("bounds=1,0", "bounds=1,0: bounds must be [lo, hi] with finite lo < hi, or 2 such pairs"),
        ("test_fraction=inf", "test_fraction must be a finite number in (0, 1)\n"),
    ],
)  # fmt: skip
def test_the_newcomers_three_messages(tmp_path, capsys, pair, words):
    code, err, _ = _refusal("linear", pair, tmp_path, capsys)
    assert code == 2 and words in err, err
