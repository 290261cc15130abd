"""Data of the mean and logistic models (labelled_datasets.py): generators and loaders."""

from __future__ import annotations

import numpy as np
import pytest

from baygo_graph.data.labelled_datasets import (
    gaussian_samples,
    load_labelled_csv,
    synthetic_labelled,
)
from baygo_graph.exceptions import DataError


def test_gaussian_samples_moments():
    ds = gaussian_samples(20000, mu=(1.5, -0.5), sigma=2.0, rng=1)
    values = ds.frame.to_numpy()
    np.testing.assert_allclose(values.mean(0), [1.5, -0.5], atol=0.05)
    np.testing.assert_allclose(values.std(0), [2.0, 2.0], rtol=0.02)
    assert ds.synthetic and "synthetic" in ds.source
    assert ds.frame.attrs == {"mu": [1.5, -0.5], "sigma": 2.0}
    with pytest.raises(ValueError, match="mu must be"):
        gaussian_samples(20, mu=(1, 2, 3))
    with pytest.raises(ValueError, match="sigma"):
        gaussian_samples(20, sigma=0.0)


@pytest.fixture
def csv(tmp_path):
    def write(text, name="d.csv"):
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def test_load_labelled_csv(csv):
    ds = load_labelled_csv(csv("a,lab\n0.5,1\n-1,0\n2,1\n"), feature="a", label="lab")
    assert ds.frame["lab"].tolist() == [1, 0, 1] and not ds.synthetic
    assert ds.source.endswith("d.csv")


@pytest.mark.parametrize(
    ("text", "kwargs", "match"),
    [
        ("a,y\n1,0\n", {"feature": "x"}, r"d\.csv has no column 'x' \(columns: a, y\)"),
        ("x,y\n1,0\n2,3\n", {}, r"d\.csv: column 'y' must hold 0/1 labels, got 3 at row 1"),
        ("x,y\n1,0\n2,0.5\n", {}, "got 0.5 at row 1"),
        ("x,y\n1,0\n,1\n", {}, "column 'x' has a missing value at row 1"),
        ("x,y\n1,0\n2,\n", {}, "column 'y' has a missing value at row 1"),
        ("x,y\n1,0\nabc,1\n", {}, "column 'x' has a non-numeric cell 'abc' at row 1"),
        ("", {}, "not a readable CSV"),
    ],
)
def test_load_labelled_csv_errors(csv, text, kwargs, match):
    with pytest.raises(DataError, match=match):
        load_labelled_csv(csv(text), **kwargs)


def test_load_labelled_csv_missing_file(tmp_path):
    with pytest.raises(DataError, match="nope.csv' does not exist"):
        load_labelled_csv(tmp_path / "nope.csv")


def test_synthetic_labelled_follows_its_model():
    ds = synthetic_labelled(40000, w=(0.5, 2.0), rng=3)
    x, y = ds.frame["x"].to_numpy(), ds.frame["y"].to_numpy()
    for lo, hi in [(-1.0, -0.5), (-0.5, 0.0), (0.0, 0.5)]:
        inside = (x >= lo) & (x < hi)
        p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[inside])))
        assert abs(y[inside].mean() - p.mean()) < 4 * np.sqrt(
            p.mean() * (1 - p.mean()) / inside.sum()
        )
    assert ds.synthetic and ds.source.startswith("synthetic") and ds.frame.attrs["w"] == [0.5, 2.0]
