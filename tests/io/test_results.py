"""Parquet results: exact round trip, reading by columns and strategies, bytes per row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")

from baygo_graph.analysis import Comparison  # noqa: E402
from baygo_graph.io.results import (  # noqa: E402
    COLUMNS,
    load_results,
    write_results_parquet,
)


def _comparison(rng, s=3, n=2, t=7, m=5):
    mse = rng.lognormal(size=(s, n, t, m))
    influence = rng.dirichlet(np.ones(m), size=(s, n, t))
    influence[s // 2] = np.nan  # a strategy without influence
    influence[0, 0, -1, -1] = 0.0
    informative = rng.integers(0, m, size=(s, n))
    labels = tuple(f"strategy-{i}" for i in range(s - 1)) + ("1",)  # a label like a number
    return Comparison(labels, mse, influence, informative, attrs={"steps": t, "note": "x"})


def test_the_file_holds_to_frame_exactly(rng, tmp_path):
    c = _comparison(rng)
    path = write_results_parquet(c, tmp_path / "sub" / "results.parquet")
    got = load_results(path)
    ref = c.to_frame()
    assert tuple(got.columns) == COLUMNS
    assert isinstance(got["strategy"].dtype, pd.CategoricalDtype)
    assert got["strategy"].astype(str).tolist() == ref["strategy"].tolist()
    assert got["seed"].dtype == np.int16 and got["agent"].dtype == np.int16
    assert got["step"].dtype == np.int32
    for col in ("seed", "step", "agent", "informative"):
        np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy())
    for col in ("mse", "influence"):  # float64, bit for bit (NaN where undefined)
        assert got[col].dtype == np.float64
        np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy())
    # pandas reads it directly too
    direct = pd.read_parquet(path)
    np.testing.assert_array_equal(direct["mse"].to_numpy(), ref["mse"].to_numpy())


def test_load_comparison_rebuilds_the_arrays_bit_for_bit(rng, tmp_path):
    c = _comparison(rng)
    back = Comparison.read_parquet(write_results_parquet(c, tmp_path / "r.parquet"))
    assert back.strategies == c.strategies
    np.testing.assert_array_equal(back.mse, c.mse)
    np.testing.assert_array_equal(back.influence, c.influence)
    np.testing.assert_array_equal(back.informative, c.informative)
    assert back.attrs == c.attrs


def test_columns_and_strategies_are_read_alone(rng, tmp_path):
    c = _comparison(rng)
    path = write_results_parquet(c, tmp_path / "r.parquet")
    part = load_results(path, columns=["step", "mse"], strategies=["1"])
    assert list(part.columns) == ["step", "mse"]
    np.testing.assert_array_equal(part["mse"].to_numpy(), c.mse[2].ravel())
    import pyarrow.parquet as pq

    assert pq.ParquetFile(path).num_row_groups == 3 * 2  # one per run
    with pytest.raises(ValueError, match="columns must be among"):
        load_results(path, columns=["loss"])


def test_wide_ids_use_int32(rng, tmp_path):
    c = _comparison(rng, s=1, n=1, t=2, m=40_000)
    got = load_results(write_results_parquet(c, tmp_path / "r.parquet"), columns=["agent"])
    assert got["agent"].dtype == np.int32
    assert got["agent"].iloc[-1] == 39_999


def test_a_foreign_or_missing_file_is_named(rng, tmp_path):
    with pytest.raises(FileNotFoundError, match="no results file"):
        load_results(tmp_path / "none.parquet")
    other = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(other)
    with pytest.raises(ValueError, match="is not a results file"):
        Comparison.read_parquet(other)


def test_a_real_comparison_takes_under_10_bytes_per_row(tmp_path):
    import warnings

    from baygo_graph import synthetic_bodyfat
    from baygo_graph.experiments import compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(seeds=1, steps=60, agents=30, grid=15, rng=1, n_jobs=1, progress=False,
                    tidy=False, data=synthetic_bodyfat(1500, rng=1))  # fmt: skip
    path = write_results_parquet(c, tmp_path / "r.parquet")
    assert path.stat().st_size / c.mse.size < 10
    np.testing.assert_array_equal(Comparison.read_parquet(path).mse, c.mse)
