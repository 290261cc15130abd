"""Class 4: NaN, infinities and absurd values are refused where numbers enter."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import baygo_graph as bg
from baygo_graph.strategies import FixedGraph

KW = {"agents": 3, "steps": 2, "grid": 9, "rng": 0}


@pytest.fixture(scope="module")
def data():
    return bg.synthetic_bodyfat()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -1.0])
def test_edge_weights_must_be_finite_and_non_negative(bad, data):
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 1, 1.0), (1, 2, bad), (2, 0, 2.0)])
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
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
        ("delta", np.nan, "delta must be in \\[0, 1\\], got nan"),
        ("bounds", (-np.inf, 2.0), "bounds must be .* with finite lo < hi"),
        ("bounds", (np.nan, 2.0), "bounds must be .* with finite lo < hi"),
        ("prior_var", (0.5, np.inf), "prior_var must be finite numbers > 0"),
        ("prior_var", (0.5, np.nan), "prior_var must be finite numbers > 0"),
        ("prior_var", "big", "prior_var must be a number"),
    ],
)
def test_simulate_refuses_non_finite_options(option, value, match, data):
    with pytest.raises((ValueError, TypeError), match=match):
        bg.simulate("baygo", data=data, **KW, **{option: value})


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
    from baygo_graph.series import as_series

    big, ones = nx.DiGraph(), nx.DiGraph()
    for g, w in ((big, 1e308), (ones, 1.0)):
        g.add_edge(0, 1, weight=w)
        g.add_edge(2, 1, weight=w)
        g.add_edge(1, 0, weight=1.0)
        g.add_edge(1, 2, weight=1.0)
    np.testing.assert_allclose(influence(big), [0.25, 0.5, 0.25])
    np.testing.assert_allclose(influence(big), influence(ones))
    np.testing.assert_allclose(as_series([big]).weights(0).toarray()[1], [0.5, 0.0, 0.5])
    w = FixedGraph(big, weights="edge").matrix(3, delta=0.5).toarray()
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(w[1], [0.5, 0.0, 0.5], atol=1e-300)
