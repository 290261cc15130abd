"""The paper's agent split (data.py), and the data sets it re-exports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import baygo_graph.data as data
import baygo_graph.data.datasets as datasets
from baygo_graph.data import load_bodyfat, paper_split, synthetic_bodyfat


def test_data_sets_are_importable_from_data():
    assert set(datasets.__all__) <= set(data.__all__)
    for name in datasets.__all__:
        assert getattr(data, name) is getattr(datasets, name)
    assert data.DataError is datasets.DataError


def test_paper_split_follows_the_ranges(bodyfat_path):
    frame = load_bodyfat(bodyfat_path).frame
    split = paper_split(frame, agents=12, rng=0)
    raw_x = split.x * split.std[0] + split.mean[0]
    info = raw_x[0, : split.counts[0]]
    assert ((info >= 85) & (info <= 120)).all()
    others = np.concatenate([raw_x[i, : split.counts[i]] for i in range(1, 12)])
    assert ((others >= 70) & (others < 85)).all()
    assert split.counts[1:].max() - split.counts[1:].min() <= 1
    n_kept = ((frame.Abdomen >= 70) & (frame.Abdomen <= 120)).sum()
    assert len(split.y_test) == round(0.2 * n_kept)
    assert split.counts.sum() + len(split.y_test) == n_kept
    pooled_x = np.concatenate([split.x[i, : split.counts[i]] for i in range(12)])
    assert pooled_x.mean() == pytest.approx(0, abs=1e-12)
    assert pooled_x.std() == pytest.approx(1, abs=1e-12)
    assert 0.4 < split.sigma_ls < 0.8


def test_split_with_an_empty_agent_names_it():
    frame = pd.DataFrame(
        {"Abdomen": [72.0, 74.0, 90.0, 95.0, 100.0, 110.0], "BodyFat": [5.0, 6, 20, 22, 25, 30]}
    )
    with pytest.raises(ValueError, match="agent 3 has no training sample"):
        paper_split(frame, agents=4, test_fraction=0.2, rng=0)
    frame2 = pd.DataFrame({"Abdomen": [72.0, 74.0, 76.0, 78.0], "BodyFat": [5.0, 6, 7, 8]})
    with pytest.raises(ValueError, match=r"agent 0 \(informative\) has no training sample"):
        paper_split(frame2, agents=2, rng=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"agents": 1}, "agents must be"),
        ({"informative": 5, "agents": 3}, "informative must be"),
        ({"test_fraction": 1.0}, "test_fraction must be"),
        ({"other_range": (85, 70)}, "other_range must be"),
    ],
)
def test_split_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        paper_split(synthetic_bodyfat(), **kwargs)


def test_informative_agent_can_be_any_id():
    split = paper_split(synthetic_bodyfat(), agents=5, informative=3, rng=1)
    assert split.informative == 3
    assert split.counts[3] == split.counts.max()
