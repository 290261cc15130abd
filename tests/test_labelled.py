"""Agent splits of the mean and logistic models (labelled.py), and the data they re-export."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import baygo_graph.data.labelled as labelled
import baygo_graph.data.labelled_datasets as labelled_datasets
from baygo_graph.data import Dataset
from baygo_graph.data.labelled import (
    assignment_split,
    check_labels,
    gaussian_samples,
    mean_split,
    region_split,
    synthetic_labelled,
)
from baygo_graph.exceptions import DataError


def test_data_sets_are_importable_from_labelled():
    assert set(labelled_datasets.__all__) <= set(labelled.__all__)
    for name in labelled_datasets.__all__:
        assert getattr(labelled, name) is getattr(labelled_datasets, name)


def held_values(split, a):
    return split.x[a, : split.counts[a]], split.y[a, : split.counts[a]]


def test_mean_split_rule():
    data = gaussian_samples(400, mu=(0.0, 0.0), sigma=0.1, rng=2)
    split = mean_split(data, agents=5, informative=2, informative_share=0.5, extra_noise=3.0, rng=0)
    assert len(split.y_test) == 80 and split.counts.tolist() == [40, 40, 160, 40, 40]
    clean = np.stack(held_values(split, 2), axis=1)
    noisy = np.concatenate([np.stack(held_values(split, a), axis=1) for a in (0, 1, 3, 4)])
    assert clean.std() < 0.12 and 2.5 < noisy.std() < 3.5
    # the held-out samples are as drawn: each is one of the data set's rows
    rows = data.frame.to_numpy()
    test = np.column_stack([split.x_test, split.y_test])
    assert all(np.any(np.all(rows == t, axis=1)) for t in test)
    assert split.sigma_ls == pytest.approx(np.sqrt(((clean - clean.mean(0)) ** 2).mean()))
    one = mean_split(gaussian_samples(40, mu=1.0), agents=3, rng=0)
    assert not one.x.any() and one.mean == (0.0, 0.0)


def test_assignment_split_errors():
    ds = gaussian_samples(10, mu=0.0)
    with pytest.raises(ValueError, match="length 10"):
        assignment_split(ds, assignment=np.zeros(9, int), columns=("y1",))
    with pytest.raises(ValueError, match="test sample"):
        assignment_split(ds, assignment=np.arange(10) % 2, columns=("y1",))
    with pytest.raises(ValueError, match=r"agents without one: \[1\]"):
        assignment_split(ds, assignment=np.array([-1, 0, 2] * 3 + [0]), columns=("y1",))
    with pytest.raises(ValueError, match="integer array"):
        assignment_split(ds, assignment=np.zeros(10), columns=("y1",))


def test_region_split_holds_regions_and_keeps_labels():
    ds = synthetic_labelled(500, rng=4)
    split = region_split(
        ds, agents=4, informative=1, informative_range=(0.0, 2.0), other_range=(-2.0, 0.0), rng=0
    )
    raw = [held_values(split, a)[0] * split.std[0] + split.mean[0] for a in range(4)]
    assert raw[1].min() >= 0.0 and raw[1].max() <= 2.0
    assert all(r.max() < 0.0 and r.min() >= -2.0 for a, r in enumerate(raw) if a != 1)
    for a in range(4):
        assert set(held_values(split, a)[1].tolist()) <= {0.0, 1.0}
    assert set(split.y_test.tolist()) <= {0.0, 1.0}
    kept = ds.frame["x"].between(-2.0, 2.0)
    labels = np.concatenate([held_values(split, a)[1] for a in range(4)] + [split.y_test])
    assert sorted(labels.tolist()) == sorted(ds.frame.loc[kept, "y"].astype(float).tolist())
    default = region_split(ds, agents=4, rng=0)
    q = np.quantile(ds.frame["x"], 0.3)
    assert (held_values(default, 0)[0] * default.std[0] + default.mean[0]).min() >= q


def test_region_split_and_check_labels_errors():
    frame = pd.DataFrame({"x": np.arange(20.0), "y": [0, 1] * 9 + [0, 2]})
    with pytest.raises(DataError, match="got 2 at row 19"):
        region_split(frame, agents=3, rng=0)
    with pytest.raises(DataError, match="has no column 'label'"):
        check_labels(Dataset(frame=frame, source="f.csv"), "label")
