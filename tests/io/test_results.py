"""Parquet results: exact round trip, reading by columns and strategies, bytes per row."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")

from baygo_graph.analysis import Comparison  # noqa: E402
from baygo_graph.exceptions import BudgetError, DataError  # noqa: E402
from baygo_graph.io.results import (  # noqa: E402
    COLUMNS,
    load_results,
    write_results,
    write_results_parquet,
)
from baygo_graph.models import LinearRegression  # noqa: E402


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
    assert tuple(got.columns) == COLUMNS == (*ref.columns, "data", "synthetic")
    assert isinstance(got["strategy"].dtype, pd.CategoricalDtype)
    assert got["strategy"].astype(str).tolist() == ref["strategy"].tolist()
    assert got["seed"].dtype == np.int16 and got["agent"].dtype == np.int16
    assert got["step"].dtype == np.int32
    for col in ("seed", "step", "agent", "informative"):
        np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy())
    for col in ("mse", "influence"):  # float64, bit for bit (NaN where undefined)
        assert got[col].dtype == np.float64
        np.testing.assert_array_equal(got[col].to_numpy(), ref[col].to_numpy())
    # no data source given: said so on every row and in attrs
    assert set(got["data"].astype(str)) == {"unknown"} and not got["synthetic"].any()
    assert got.attrs["data_source"] == "unknown" and got.attrs["synthetic"] is False
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
    assert back.attrs == c.attrs | {"data_source": "unknown", "synthetic": False}


def test_columns_and_strategies_are_read_alone(rng, tmp_path):
    c = _comparison(rng)
    path = write_results_parquet(c, tmp_path / "r.parquet")
    part = load_results(path, columns=["step", "mse"], strategies=["1"])
    assert list(part.columns) == ["step", "mse"]
    np.testing.assert_array_equal(part["mse"].to_numpy(), c.mse[2].ravel())
    import pyarrow.parquet as pq

    assert pq.ParquetFile(path).num_row_groups == 3  # small runs: all seeds in one group
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
        c = compare(seeds=1, steps=60, agents=30, model=LinearRegression(grid=15),
                    rng=1, n_jobs=1, progress=False,
                    tidy=False, data=synthetic_bodyfat(1500, rng=1))  # fmt: skip
    path = write_results_parquet(c, tmp_path / "r.parquet")
    assert path.stat().st_size / c.mse.size < 10
    np.testing.assert_array_equal(Comparison.read_parquet(path).mse, c.mse)


def _synthetic(rng, **kwargs):
    c = _comparison(rng, **kwargs)
    attrs = {"synthetic": True, "data_source": "synthetic (n=252)", "steps": c.n_steps}
    return Comparison(c.strategies, c.mse, c.influence, c.informative, attrs)


def test_synthetic_is_visible_to_every_reader(rng, tmp_path):
    import pyarrow.parquet as pq

    from baygo_graph._format import synthetic_banner

    c = _synthetic(rng)
    path = write_results_parquet(c, tmp_path / "results.parquet")
    # our reader: attrs, even when the flag's column is not read
    part = load_results(path, columns=["mse"])
    assert part.attrs["synthetic"] is True and part.attrs["data_source"] == "synthetic (n=252)"
    # pandas without our code: a column on every row
    direct = pd.read_parquet(path, columns=["data", "synthetic"])
    assert direct["synthetic"].all() and len(direct) == c.mse.size
    assert set(direct["data"].astype(str)) == {"synthetic (n=252)"}
    # ... and in the frame's attrs, whatever columns are read
    only = pd.read_parquet(path, columns=["mse"]).attrs
    assert only["synthetic"] is True and only["data_source"] == "synthetic (n=252)"
    # the file's key-value metadata (parquet-tools, DuckDB's parquet_kv_metadata)
    meta = pq.ParquetFile(path).schema_arrow.metadata
    assert meta[b"synthetic"] == b"true" and meta[b"data_source"] == b"synthetic (n=252)"
    assert meta[b"note"].decode() == synthetic_banner(True)
    assert Comparison.read_parquet(path).attrs["synthetic"] is True


def test_a_file_without_the_source_columns_is_still_read(rng, tmp_path):
    """Files written before the data and synthetic columns existed."""
    import pyarrow.parquet as pq

    c = _synthetic(rng, s=2, n=2, t=3, m=4)
    new = write_results_parquet(c, tmp_path / "new.parquet")
    table = pq.read_table(new).drop_columns(["data", "synthetic"])
    meta = json.loads(table.schema.metadata[b"baygo.results"])
    del meta["seeds_per_group"]  # the first version's metadata: one run per row group
    del meta["digest"]  # ... and no digest of the footer
    table = table.replace_schema_metadata({b"baygo.results": json.dumps(meta).encode()})
    old = tmp_path / "old.parquet"
    pq.write_table(table, old, row_group_size=3 * 4)
    back = Comparison.read_parquet(old)
    np.testing.assert_array_equal(back.mse, c.mse)
    assert back.attrs["synthetic"] is True
    got = load_results(old)
    assert tuple(got.columns) == COLUMNS and got["synthetic"].all()


def test_an_old_results_csv_is_read_by_load_results(rng, tmp_path):
    c = _synthetic(rng)
    csv = c.write_csv(tmp_path / "results.csv", data="synthetic (n=252)", synthetic=True)
    text = csv.read_text()
    csv.write_text("# NOTE: SYNTHETIC DATA\n" + text)  # baygo compare's banner line
    got = load_results(csv)
    ref = load_results(write_results_parquet(c, tmp_path / "r.parquet"))
    assert tuple(got.columns) == COLUMNS
    assert got["strategy"].astype(str).tolist() == ref["strategy"].astype(str).tolist()
    np.testing.assert_allclose(got["mse"].to_numpy(), ref["mse"].to_numpy(), rtol=5e-6)
    assert got.attrs == {"data_source": "synthetic (n=252)", "synthetic": True}
    one = load_results(csv, columns=["step", "mse"], strategies=["1"])
    assert list(one.columns) == ["step", "mse"]
    np.testing.assert_allclose(one["mse"].to_numpy(), c.mse[2].ravel(), rtol=5e-6)


def test_write_results_keeps_one_table_per_folder(rng, tmp_path):
    c = _comparison(rng, s=1, n=1, t=2, m=2)
    assert write_results(c, tmp_path, results_format="csv").name == "results.csv"
    assert write_results(c, tmp_path, overwrite=True).name == "results.parquet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"]
    with pytest.raises(ValueError, match="results_format must be one of .*'xlsx'"):
        write_results(c, tmp_path, results_format="xlsx")


def test_the_arrays_are_checked_against_the_budget(rng, tmp_path, monkeypatch):
    path = write_results_parquet(_comparison(rng, s=1, n=1, t=200, m=100), tmp_path / "r.pq")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "100KiB")
    with pytest.raises(BudgetError, match="the arrays of"):
        Comparison.read_parquet(path)


def test_a_file_that_is_not_parquet_is_a_data_error(tmp_path):
    from baygo_graph.exceptions import DataError

    bad = tmp_path / "results.parquet"
    bad.write_text("strategy,seed\n")
    with pytest.raises(DataError, match="is not a Parquet file"):
        load_results(bad)


@pytest.mark.parametrize("group_rows", [1, 2 * 7 * 5, 3 * 7 * 5 - 1])
def test_row_groups_hold_one_run_or_several_seeds_of_one_strategy(rng, tmp_path, monkeypatch,
                                                                   group_rows):  # fmt: skip
    import pyarrow.parquet as pq

    from baygo_graph.io import results

    monkeypatch.setattr(results, "GROUP_ROWS", group_rows)
    c = _comparison(rng, s=3, n=5, t=7, m=5)
    path = write_results_parquet(c, tmp_path / "r.parquet")
    per = max(1, group_rows // (7 * 5))
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 3 * -(-5 // per)
    assert max(meta.row_group(g).num_rows for g in range(meta.num_row_groups)) == per * 35
    back = Comparison.read_parquet(path)  # group by group
    np.testing.assert_array_equal(back.mse, c.mse)
    np.testing.assert_array_equal(back.influence, c.influence)
    np.testing.assert_array_equal(back.informative, c.informative)
    ref = c.to_frame()
    got = load_results(path)
    for col in ("strategy", "seed", "step", "agent", "informative"):
        np.testing.assert_array_equal(got[col].astype(ref[col].dtype), ref[col])
    part = load_results(path, columns=["seed", "mse"], strategies=["1"])
    np.testing.assert_array_equal(part["mse"].to_numpy(), c.mse[2].ravel())


def test_comparison_read_takes_either_table(rng, tmp_path):
    c = _synthetic(rng)
    pq_back = Comparison.read(write_results(c, tmp_path / "a"))
    csv_back = Comparison.read(write_results(c, tmp_path / "b", results_format="csv"))
    np.testing.assert_array_equal(pq_back.mse, c.mse)  # exact
    np.testing.assert_allclose(csv_back.mse, c.mse, rtol=5e-6)  # 6 significant digits
    assert pq_back.strategies == csv_back.strategies == c.strategies
    for back in (pq_back, csv_back):
        assert back.attrs["synthetic"] is True
        assert back.attrs["data_source"] == "synthetic (n=252)"


def test_a_truncated_or_corrupt_file_is_a_data_error(rng, tmp_path):
    from baygo_graph.exceptions import DataError

    path = write_results_parquet(_comparison(rng, s=2, n=2, t=50, m=20), tmp_path / "r.parquet")
    blob = path.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(DataError, match="cut.parquet"):
        Comparison.read_parquet(cut)
    bad = bytearray(blob)
    bad[100:4000] = bytes(3900)  # zeroed pages, intact footer
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(bytes(bad))
    with pytest.raises(DataError, match="broken.parquet"):
        load_results(broken)
    with pytest.raises(DataError, match="broken.parquet"):
        Comparison.read_parquet(broken)


@pytest.mark.parametrize("reader", ["duckdb", "polars"])
def test_duckdb_and_polars_see_the_source_and_the_flag(rng, tmp_path, reader):
    module = pytest.importorskip(reader)
    c = _synthetic(rng)
    path = write_results_parquet(c, tmp_path / "results.parquet")
    if reader == "duckdb":
        rows = module.sql(f"SELECT DISTINCT data, synthetic FROM '{path}'").fetchall()
        meta = dict(module.sql(f"SELECT decode(key), decode(value) FROM "
                               f"parquet_kv_metadata('{path}')").fetchall())  # fmt: skip
        assert meta["synthetic"] == "true" and meta["data_source"] == "synthetic (n=252)"
        ((total,),) = module.sql(f"SELECT sum(mse) FROM '{path}'").fetchall()
    else:
        frame = module.read_parquet(path)
        rows = list(frame.select(["data", "synthetic"]).unique().iter_rows())
        total = frame["mse"].sum()
    assert rows == [("synthetic (n=252)", True)]
    assert total == pytest.approx(c.mse.sum(), rel=1e-12)


def test_a_users_own_file_named_like_the_other_table_is_never_removed(rng, tmp_path):
    from baygo_graph.io.results import is_our_table, write_results

    c = _synthetic(rng)
    mine_csv = tmp_path / "results.csv"
    mine_csv.write_text("my,precious,table\n1,2,3\n")
    write_results(c, tmp_path, overwrite=True)  # parquet: the user's results.csv stays
    assert mine_csv.read_text() == "my,precious,table\n1,2,3\n"
    assert not is_our_table(mine_csv) and is_our_table(tmp_path / "results.parquet")
    mine_csv.unlink()
    write_results(c, tmp_path, results_format="csv", overwrite=True)  # ours: replaced
    assert not (tmp_path / "results.parquet").exists() and is_our_table(mine_csv)
    write_results(c, tmp_path, overwrite=True)  # our own csv: replaced
    assert not mine_csv.exists()
    (tmp_path / "results.parquet").unlink()
    pd.DataFrame({"source": ["a"], "target": ["b"]}).to_parquet(tmp_path / "results.parquet")
    write_results(c, tmp_path, results_format="csv", overwrite=True)  # a user's edge list stays
    assert pd.read_parquet(tmp_path / "results.parquet").shape == (1, 2)


def test_a_rewritten_or_damaged_results_file_is_refused_or_read_by_value(rng, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from baygo_graph import DataError

    c = _synthetic(rng)
    path = write_results_parquet(c, tmp_path / "results.parquet")
    # rewritten by pandas (no dictionary types, one row group): refused by the exact reader...
    df = pd.read_parquet(path)
    df.to_parquet(tmp_path / "pandas.parquet", index=False)
    with pytest.raises(DataError, match="no readable shape in its metadata"):
        Comparison.read(tmp_path / "pandas.parquet")
    # ... rows sorted in another order: refused, never scrambled
    table = pq.read_table(path).sort_by([("agent", "ascending"), ("step", "ascending")])
    pq.write_table(table.replace_schema_metadata(pq.read_schema(path).metadata),
                   tmp_path / "sorted.parquet", row_group_size=c.mse[0].size)  # fmt: skip
    with pytest.raises(DataError, match="not in the order baygo writes|several strategies"):
        Comparison.read(tmp_path / "sorted.parquet")
    # load_results filters strategies by value, whatever the row groups hold
    want = load_results(path, strategies=[c.strategies[1]])
    got = load_results(tmp_path / "sorted.parquet", strategies=[c.strategies[1]])
    assert len(got) == len(want) == c.mse[1].size
    assert sorted(got["mse"]) == sorted(want["mse"])
    # metadata that lies about the shape
    meta = dict(pq.read_schema(path).metadata)
    shape = json.loads(meta[b"baygo.results"])
    shape["shape"] = [shape["shape"][0], shape["shape"][1], -3, shape["shape"][3]]
    meta[b"baygo.results"] = json.dumps(shape).encode()
    pq.write_table(pq.read_table(path).replace_schema_metadata(meta), tmp_path / "neg.parquet")
    with pytest.raises(DataError, match="is corrupt: its footer"):  # the digest tells
        Comparison.read(tmp_path / "neg.parquet")
    meta = _without_digest(meta)  # a file of an earlier version that lies
    pq.write_table(pq.read_table(path).replace_schema_metadata(meta), tmp_path / "neg.parquet")
    with pytest.raises(DataError, match="must be positive"):
        Comparison.read(tmp_path / "neg.parquet")
    # a file of another name is read by its content, and columns must be a list
    (tmp_path / "r.txt").write_bytes(path.read_bytes())
    assert Comparison.read(tmp_path / "r.txt").mse.shape == c.mse.shape
    with pytest.raises(TypeError, match="list of column names"):
        load_results(path, columns="mse")
    # a column of the wrong type
    bad = pq.read_table(path)
    bad = bad.set_column(5, "mse", pa.array(bad.column("mse").to_numpy().astype(str)))
    pq.write_table(bad, tmp_path / "strmse.parquet")
    with pytest.raises(DataError, match="column 'mse' holds string, need float64"):
        load_results(tmp_path / "strmse.parquet")


def _without_digest(meta: dict) -> dict:
    """Key-value metadata as files written before the footer's digest carry it."""
    meta = {k: v for k, v in meta.items() if k != b"baygo.digest"}
    meta[b"baygo.results"] = meta[b"baygo.results"].replace(b', "digest": "sha256"', b"")
    return meta


def test_the_synthetic_flag_leans_to_true(rng, tmp_path):
    import pyarrow.parquet as pq

    c = _synthetic(rng)
    path = write_results_parquet(c, tmp_path / "results.parquet")
    meta = dict(pq.read_schema(path).metadata)
    meta[b"synthetic"] = b"false"  # the metadata lies, the column says True
    pq.write_table(pq.read_table(path).replace_schema_metadata(meta), tmp_path / "lie.parquet")
    with pytest.raises(DataError, match="is corrupt: its footer"):  # the digest tells
        load_results(tmp_path / "lie.parquet", columns=["mse"])
    meta = _without_digest(meta)  # a file of an earlier version that lies
    pq.write_table(pq.read_table(path).replace_schema_metadata(meta), tmp_path / "lie.parquet")
    assert load_results(tmp_path / "lie.parquet", columns=["mse"]).attrs["synthetic"] is True


def test_load_results_checks_the_budget_before_decoding(rng, tmp_path, monkeypatch):
    from baygo_graph import BudgetError

    path = write_results_parquet(_synthetic(rng), tmp_path / "results.parquet")
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1KiB")
    with pytest.raises(BudgetError):
        load_results(path, columns=["mse"])


def test_rows_of_one_run_in_another_order_are_refused_not_scrambled(rng, tmp_path):
    import pyarrow.parquet as pq

    from baygo_graph import DataError

    one = Comparison(("a",), rng.random((1, 1, 4, 3)), np.zeros((1, 1, 4, 3)),
                     np.zeros((1, 1), dtype=int))  # fmt: skip
    path = write_results_parquet(one, tmp_path / "one.parquet")
    table = pq.read_table(path).sort_by([("agent", "ascending"), ("step", "ascending")])
    pq.write_table(table.replace_schema_metadata(pq.read_schema(path).metadata),
                   tmp_path / "s.parquet")  # fmt: skip
    with pytest.raises(DataError, match="step column is not in the order baygo writes"):
        Comparison.read(tmp_path / "s.parquet")
    np.testing.assert_array_equal(Comparison.read(path).mse, one.mse)


@pytest.mark.parametrize("column", ["mse", "influence", "seed"])
def test_bytes_flipped_inside_a_column_are_refused_by_its_page_checksum(rng, tmp_path, column):
    """64 bytes flipped inside a column's pages: one-line DataError, never other values."""
    import pyarrow.parquet as pq

    from baygo_graph.exceptions import DataError
    from baygo_graph.io.results import read_result_arrays

    c = _comparison(rng, s=2, n=3, t=20, m=5)
    path = write_results_parquet(c, tmp_path / "results.parquet")
    meta = pq.ParquetFile(path).metadata.row_group(0)
    chunk = meta.column(COLUMNS.index(column))
    assert chunk.total_compressed_size > 80
    raw = bytearray(path.read_bytes())
    end = chunk.data_page_offset + chunk.total_compressed_size
    flip = min(64, chunk.total_compressed_size // 2)
    for k in range(end - flip - 4, end - 4):  # inside the last page's data
        raw[k] ^= 0xFF
    path.write_bytes(bytes(raw))
    for read in (load_results, read_result_arrays, Comparison.read_parquet):
        with pytest.raises(DataError, match="is corrupt: a page's checksum does not match") as e:
            read(path)
        assert "\n" not in str(e.value) and len(str(e.value)) < 300 and str(path) in str(e.value)


def test_a_sweep_table_carries_page_checksums(tmp_path):
    import pyarrow.parquet as pq

    from baygo_graph.experiments.sweep import write_table

    table = pd.DataFrame({"strategy": ["a"] * 200, "mse": np.random.default_rng(0).random(200)})
    path = write_table(table, tmp_path)
    raw = bytearray(path.read_bytes())
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(1)
    middle = (
        chunk.dictionary_page_offset or chunk.data_page_offset
    ) + chunk.total_compressed_size // 2
    for k in range(middle, middle + 32):
        raw[k] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(OSError, match="(?i)checksum"):
        pq.ParquetFile(path, page_checksum_verification=True).read()


def test_table_kind_tells_a_sweeps_table_from_the_per_step_results(tmp_path):
    """A sweep replaces only a sweep's table (hostile round 9, M6), also one written
    before sweep tables carried their metadata key."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from baygo_graph.io.results import table_kind

    old = pa.table({"id": ["a"], "strategy": ["baygo"], "seed": [0],
                    "final_mse_informative": [0.1], "final_mse_others_mean": [0.2]})  # fmt: skip
    pq.write_table(old, tmp_path / "old.parquet")
    pq.write_table(pa.table({"id": ["a"], "x": [1]}), tmp_path / "mine.parquet")
    (tmp_path / "steps.csv").write_text("strategy,seed,step,agent,informative,mse,influence\n")
    (tmp_path / "rows.csv").write_text("id,strategy,delta,seed,final_mse_informative\n")
    (tmp_path / "mine.csv").write_text("id,strategy,value\n")
    kinds = {p.name: table_kind(p) for p in sorted(tmp_path.iterdir())}
    assert kinds == {"mine.csv": None, "mine.parquet": None, "old.parquet": "sweep",
                     "rows.csv": "sweep", "steps.csv": "results"}  # fmt: skip


def _table_text():
    res = Comparison(("a", "b"), np.arange(12.0).reshape(2, 1, 2, 3),
                     np.full((2, 1, 2, 3), np.nan), np.array([[0], [2]]))  # fmt: skip
    return res.to_frame().assign(data="mine", synthetic=False).to_csv(index=False)


@pytest.mark.parametrize("reader", ["load_results", "Comparison.read_csv"])
@pytest.mark.parametrize("case", ["tar", "zip", "bz2 named .csv", "long line .gz", "long line"])
def test_a_results_table_is_read_as_its_own_bytes(tmp_path, reader, case):
    # hostile21 Z13: pandas decompressed by the name (a 10 KB sparse results.tar, a 4 MB
    # .csv.gz of one 10^9-character line: 2.2 GB under a 300 MB budget, a raw Arrow error)
    import bz2
    import gzip
    import io
    import tarfile
    import zipfile

    text = _table_text()
    long = text.replace("\n", "\n" + "7" * (2 << 20) + "\n", 1)
    if case == "tar":
        path = tmp_path / "results.tar"
        with tarfile.open(path, "w") as tar:
            info = tarfile.TarInfo("results.csv")
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text.encode()))
    elif case == "zip":
        path = tmp_path / "results.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("results.csv", text)
    elif case == "bz2 named .csv":
        path = tmp_path / "results.csv"
        path.write_bytes(bz2.compress(text.encode()))
    elif case == "long line .gz":
        path = tmp_path / "results.csv.gz"
        path.write_bytes(gzip.compress(long.encode()))
    else:
        path = tmp_path / "results.csv"
        path.write_text(long)
    read = load_results if reader == "load_results" else Comparison.read_csv
    said = {"tar": "is a tar archive, not a results table: unpack it (tar -xf FILE)",
            "zip": "is a zip archive (or a run saved as .npz), not a results table",
            "bz2 named .csv": "is bzip2-compressed data, not a results table",
            "long line .gz": "line 2 is longer than 1 MiB: not a results table",
            "long line": "line 2 is longer than 1 MiB: not a results table"}[case]  # fmt: skip
    with pytest.raises(DataError, match=re.escape(said)):
        read(path)
    good = tmp_path / "good.csv.gz"  # the supported compressed form still reads
    good.write_bytes(gzip.compress(text.encode()))
    assert len(load_results(good)) == 12 and Comparison.read_csv(good).shape == (2, 1, 2, 3)
