"""Loading, validating and splitting the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baygo_graph.data import (
    BODYFAT_ENV,
    DataError,
    load_bodyfat,
    paper_split,
    resolve_data,
    synthetic_bodyfat,
)


def test_real_file_facts(bodyfat_path):
    ds = load_bodyfat(bodyfat_path)
    assert len(ds) == 252 and not ds.synthetic and ds.source == str(bodyfat_path)
    x = ds.frame["Abdomen"]
    assert ((x >= 85) & (x <= 120)).sum() == 185
    assert ((x >= 70) & (x < 85)).sum() == 63
    assert np.corrcoef(x, ds.frame["BodyFat"])[0, 1] == pytest.approx(0.813, abs=5e-4)


def test_environment_variable_names_the_file(bodyfat_path, monkeypatch):
    monkeypatch.setenv(BODYFAT_ENV, str(bodyfat_path))
    assert load_bodyfat().source == str(bodyfat_path)
    assert resolve_data(None).source == str(bodyfat_path)


def test_no_file_falls_back_to_labelled_synthetic(monkeypatch, tmp_path):
    monkeypatch.delenv(BODYFAT_ENV, raising=False)
    assert resolve_data(None).synthetic


def test_env_naming_a_missing_file_is_an_error(monkeypatch, tmp_path):
    missing = str(tmp_path / "absent.csv")
    monkeypatch.setenv(BODYFAT_ENV, missing)
    with pytest.raises(DataError, match="absent.csv.*does not name an existing file"):
        resolve_data(None)
    with pytest.raises(DataError, match="does not exist"):
        load_bodyfat()


def test_no_path_no_env_is_a_clear_error(monkeypatch):
    monkeypatch.delenv(BODYFAT_ENV, raising=False)
    with pytest.raises(DataError, match=BODYFAT_ENV):
        load_bodyfat()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("Abdomen,Weight\n80,150\n", "no column 'BodyFat'"),
        ("Abdomen,BodyFat\n80,abc\n90,20\n", "non-numeric cell 'abc' at row 0"),
        ("Abdomen,BodyFat\n80,10\n,20\n", "'Abdomen' has a missing value at row 1"),
        ("", "not a readable CSV"),
        ("Abdomen,BodyFat\n80,10\n90,inf\n", "column 'BodyFat' has value inf at row 1"),
        ("Abdomen,BodyFat\n80,10\n1e200,20\n", "'Abdomen' has value 1e\\+200 at row 1"),
    ],
)
def test_malformed_files_name_file_and_problem(tmp_path, text, match):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=match) as info:
        load_bodyfat(path)
    assert "bad.csv" in str(info.value)


def test_dataframe_input_is_checked():
    with pytest.raises(DataError, match="the data frame has no column 'Abdomen'"):
        resolve_data(pd.DataFrame({"x": [1.0]}))
    with pytest.raises(TypeError, match="data must be"):
        resolve_data(3.5)


def test_synthetic_is_reproducible_and_close_to_the_documented_model():
    a, b = synthetic_bodyfat(2000, rng=4), synthetic_bodyfat(2000, rng=4)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    slope, intercept = np.polyfit(a.frame["Abdomen"], a.frame["BodyFat"], 1)
    assert slope == pytest.approx(0.631, abs=0.03)
    assert a.synthetic and "synthetic" in a.source
    with pytest.raises(ValueError, match="n must be"):
        synthetic_bodyfat(3)


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
