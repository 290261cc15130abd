"""Class 4: NaN, infinities and absurd values are refused where numbers enter."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.models import LinearRegression
from baygo_graph.strategies import FixedGraph

KW = {"agents": 3, "steps": 2, "model": LinearRegression(grid=9), "rng": 0}


@pytest.fixture(scope="module")
def data():
    return bg.synthetic_bodyfat()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -1.0])
def test_edge_weights_must_be_finite_and_non_negative(bad, data):
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 1, 1.0), (1, 2, bad), (2, 0, 2.0)])
    with pytest.raises(ValueError, match="negative|not finite"):
        FixedGraph(g, weights="edge").matrix(3, delta=0.5)
    with pytest.raises(ValueError, match="'weight' attribute"):
        bg.simulate(FixedGraph(g, weights="edge"), data=data, **KW)


def test_finite_edge_weights_match_the_dense_rule():
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 3.0), (2, 0, 2.0), (0, 2, 1.0)])
    w = FixedGraph(g, weights="edge").matrix(3, delta=0.5).toarray()
    a = nx.to_numpy_array(g, nodelist=range(3)).T + np.eye(3)  # row i: i's in-edges, self 1
    np.testing.assert_allclose(w, a / a.sum(axis=1, keepdims=True))


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("sigma", np.nan, "sigma must be a finite number > 0, got nan"),
        ("sigma", np.inf, "sigma must be a finite number > 0, got inf"),
        ("sigma", -1.0, "sigma must be a finite number > 0, got -1.0"),
        ("delta", np.nan, "delta must be a finite number in \\[0, 1\\], got nan"),
        ("bounds", (-np.inf, 2.0), "bounds must be .* with finite lo < hi"),
        ("bounds", (np.nan, 2.0), "bounds must be .* with finite lo < hi"),
        ("prior_var", (0.5, np.inf), "prior_var must be a finite number > 0 or 2 such numbers"),
        ("prior_var", (0.5, np.nan), "prior_var must be a finite number > 0 or 2 such numbers"),
        ("prior_var", "big", "prior_var must be a finite number"),
    ],
)
def test_simulate_refuses_non_finite_options(option, value, match, data):
    with pytest.raises((ValueError, TypeError), match=match):
        if option == "delta":
            bg.simulate("baygo", data=data, **KW, delta=value)
        else:  # a model option: the model object carries it
            model = LinearRegression(grid=9, **{option: value})
            bg.simulate("baygo", data=data, **(KW | {"model": model}))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e300, -1e13])
def test_data_values(value, data):
    frame = data.frame[["Abdomen", "BodyFat"]].copy()
    frame.loc[7, "BodyFat"] = value
    with pytest.raises(bg.DataError, match="'BodyFat'.* at row 7"):
        bg.simulate("baygo", data=frame, **KW)


def test_large_but_sane_values_still_run(data):
    frame = pd.DataFrame({"Abdomen": data.frame["Abdomen"], "BodyFat": data.frame["BodyFat"] * 1e9})
    run = bg.simulate("nocol", data=frame, **KW)
    assert np.isfinite(run.mse).all()


def test_huge_finite_weights_give_the_shares_of_their_ratios():
    from baygo_graph.analysis import influence
    from baygo_graph.inputs import as_series

    big, ones = nx.DiGraph(), nx.DiGraph()
    for g, w in ((big, 1e308), (ones, 1.0)):
        g.add_edge(0, 1, weight=w)
        g.add_edge(2, 1, weight=w)
        g.add_edge(1, 0, weight=1.0)
        g.add_edge(1, 2, weight=1.0)
    np.testing.assert_allclose(influence(big), [0.25, 0.5, 0.25])
    np.testing.assert_allclose(influence(big), influence(ones))
    np.testing.assert_allclose(
        as_series([big], self_weight=0).weights(0).toarray()[1], [0.5, 0, 0.5]
    )
    np.testing.assert_allclose(as_series([big]).weights(0).toarray()[1], [1 / 3] * 3)  # equal
    w = FixedGraph(big, weights="edge").matrix(3, delta=0.5).toarray()
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(w[1], [0.5, 0.0, 0.5], atol=1e-300)


@pytest.mark.parametrize("opts", [{"sigma": 1e-150}, {"prior_var": 1e150}])
def test_a_non_finite_run_says_so_without_numpy_warnings(opts, data, recwarn):
    """A model whose numbers overflow stops with NonFiniteError alone: numpy's overflow
    and invalid-value warnings of that step are held back, not printed before it."""
    from baygo_graph.models import ExactGaussian

    with pytest.raises(bg.exceptions.NonFiniteError, match="non-finite at step 0, agent 0"):
        bg.simulate("baygo", agents=4, steps=3, rng=0, data=data, model=ExactGaussian(**opts))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    assert np.geterr()["over"] == "warn"  # numpy's settings restored: nothing global


def test_cli_non_finite_run_is_one_clear_line():
    import subprocess
    import sys

    code = "import sys; from baygo_graph.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = ["run", "--agents", "4", "--steps", "2", "--model", "exact", "--model-option",
            "sigma=1e-150"]  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("baygo: error: the run went non-finite at step 0, agent 0")
    assert proc.stderr.count("\n") == 1 and "RuntimeWarning" not in proc.stderr


def test_finite_steps_give_their_float_warnings_back():
    from baygo_graph._validate import held_float_warnings

    with held_float_warnings() as held, np.errstate(divide="ignore"):
        np.log(np.zeros(1))  # ignored inside: not held
        np.array([1e308]) * 10
        np.array([1e308]) * 10
    assert held.kinds == ["overflow"]
    with pytest.warns(RuntimeWarning, match="overflow encountered .* at step 4 .*finite"):
        held.release(step=4)
    with np.errstate(over="ignore"), held_float_warnings() as quiet:
        np.array([1e308]) * 10
    assert quiet.kinds == []  # a kind the caller ignores stays ignored


@pytest.mark.parametrize(
    ("weight", "read"),
    [
        (Decimal("0.5"), 0.5),
        (Fraction(1, 4), 0.25),
        (Decimal("1e-400"), None),  # positive, below every float: it would drop its edge
        (Fraction(1, 10**400), None),
        (Decimal("NaN"), None),
        (Decimal("sNaN"), None),
        (Decimal("-1"), None),
        (Decimal("-1e-400"), None),  # negative below every float: not 0 (hostile20 Y3)
        (Fraction(-1, 10**400), None),
    ],
)
def test_decimal_and_fraction_weights_are_numbers_and_none_vanishes(weight, read):
    # hostile18 (noted beside V1): a Decimal was refused as "not finite and >= 0", and a
    # positive weight that underflows to 0 dropped its edge without a word
    g = nx.DiGraph([(0, 1), (1, 0)])
    g.add_edge(1, 2, weight=weight)
    g.add_edge(2, 1, weight=1.0)
    if read is None:
        with pytest.raises(ValueError, match=r"graph edge \(1, 2\) has a 'weight' attribute"):
            FixedGraph(g, weights="edge").matrix(3, delta=0.5)
        return
    w = FixedGraph(g, weights="edge").matrix(3, delta=0.5).toarray()
    # row 2 hears 1 with the weight read, beside its own self-weight 1 (no self-loop)
    assert w[2].tolist() == pytest.approx([0.0, read / (1 + read), 1 / (1 + read)])


_JSON_SERIES = (
    '{"format": "baygo-graph-series", "graphs": [{"directed": true, "multigraph": false, '
    '"graph": {}, "nodes": [{"id": "a"}, {"id": "b"}], "links": [{"source": "a", '
    '"target": "b", "weight": WEIGHT}]}]}'
)
_GEXF_SERIES = (
    '<?xml version="1.0" encoding="UTF-8"?><gexf xmlns="http://gexf.net/1.2" version="1.2">'
    '<graph mode="dynamic" defaultedgetype="directed" timeformat="integer"><nodes>'
    '<node id="a"/><node id="b"/></nodes><edges><edge id="0" source="a" target="b" '
    'weight="WEIGHT" start="0" end="1"/></edges></graph></gexf>'
)


@pytest.mark.parametrize(
    ("name", "weight", "words"),
    [
        ("s.json", "null", "None is not a number"),
        ("s.json", "true", "a bool is not a number"),
        ("s.json", '"1"', "a str is not a number"),
        ("s.json", "[0.5]", "a list is not a number"),
        ("s.json", "-1", "it is negative"),
        ("s.json", "-1e-400", "it is negative"),  # -0.0 as a double, negative as written
        ("s.json", "NaN", "it is not finite"),
        ("s.json", "-Infinity", "it is not finite"),
        ("s.json", "1e999", r"it is too large for a float .*scale the weights down"),
        ("s.json", "1" + "0" * 400, "it is too large for a float"),
        ("s.json", "1e-400", r"it is positive but below the smallest float .*scale the weights up"),
        ("s.gexf", "abc", "it is not a number"),
        ("s.gexf", "-5", "it is negative"),
        ("s.gexf", "-1e-400", "it is negative"),
        ("s.gexf", "NaN", "it is not finite"),
        ("s.gexf", "-INF", "it is not finite"),
        ("s.gexf", "1e999", "it is too large for a float"),
        ("s.gexf", "1e-400", "it is positive but below the smallest float"),
    ],
)
def test_series_files_refuse_a_bad_weight_in_the_words_of_its_case(tmp_path, name, weight, words):
    # hostile20 Y4's siblings in the series files: a JSON null, bool, -1 and 1e999 were one
    # text "must be finite and >= 0" (a 401-digit integer: Python's OverflowError); a
    # GEXF -5, NaN and 1e999 one text "is not a finite number >= 0"
    template = _JSON_SERIES if name.endswith(".json") else _GEXF_SERIES
    path = tmp_path / name
    path.write_text(template.replace("WEIGHT", weight))
    with pytest.raises(bg.RunFormatError) as e:
        bg.as_series(path)
    text = str(e.value)
    assert re.search(words, text), text
    assert ("('a', 'b')" in text) if name.endswith(".json") else ("(a -> b)" in text), text
    assert len(text) <= 300 and "\n" not in text, text
