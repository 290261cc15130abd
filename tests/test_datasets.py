"""Loading and validating the data sets (datasets.py): the bodyfat CSV, frames, synthetic data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baygo_graph.data.datasets import (
    BODYFAT_ENV,
    load_bodyfat,
    resolve_data,
    synthetic_bodyfat,
)
from baygo_graph.exceptions import DataError


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


def test_data_csv_readers_share_one_gate(tmp_path):
    """load_bodyfat and load_csv read through read_csv_table: the same refusals."""
    from baygo_graph.data.labelled import load_csv

    dup = tmp_path / "dup.csv"
    dup.write_text("Abdomen,BodyFat,Abdomen\n80,10,81\n90,20,91\n")
    with pytest.raises(DataError, match="bodyfat file '.*dup.csv' is not a readable CSV: col"):
        load_bodyfat(dup)
    with pytest.raises(DataError, match="data file '.*dup.csv' is not a readable CSV: column "
                       "name 'Abdomen' appears 2 times"):  # fmt: skip
        load_csv(dup, columns=("Abdomen",))
    wide = tmp_path / "wide.csv"
    n = 20_000
    wide.write_text(",".join(f"c{i}" for i in range(n)) + "\n" + ",".join(["1"] * n) + "\n")
    for read in (load_bodyfat, lambda p: load_csv(p, columns=("Abdomen",))):
        with pytest.raises(DataError) as info:
            read(wide)
        assert len(str(info.value)) < 300
        assert str(info.value).endswith("(columns: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and "
                                        "19990 more)")  # fmt: skip
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    for read in (load_bodyfat, lambda p: load_csv(p, columns=("y1",))):
        with pytest.raises(DataError, match="file '.*folder.csv' does not exist"):
            read(folder)


def test_a_trailing_comma_on_every_row_keeps_the_columns_in_place(tmp_path):
    from baygo_graph.data.datasets import load_bodyfat

    path = tmp_path / "trail.csv"
    path.write_text("BodyFat,Abdomen\n12.3,85.2,\n6.1,83.0,\n25.3,87.9,\n")
    ds = load_bodyfat(path)
    assert ds.frame["Abdomen"].tolist() == [85.2, 83.0, 87.9]
    assert ds.frame["BodyFat"].tolist() == [12.3, 6.1, 25.3]


def test_a_row_longer_than_the_header_is_refused(tmp_path):
    from baygo_graph import DataError
    from baygo_graph.data.datasets import load_bodyfat

    path = tmp_path / "long.csv"
    path.write_text("BodyFat,Abdomen\n1.0708,12.3,85.2\n1.0853,6.1,83.0\n")
    with pytest.raises(DataError, match="a row holds more values than the header names"):
        load_bodyfat(path)


def test_synthetic_data_are_budgeted_before_they_are_drawn(monkeypatch):
    """`baygo run --agents 10000000` drew 10^8 synthetic samples (3.3 GB) before the
    run's budget check (hostile round 6, G13): the data are checked first."""
    from baygo_graph.exceptions import BudgetError

    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "200M")
    with pytest.raises(BudgetError, match=r"synthetic data of 100000000 samples needs about"):
        synthetic_bodyfat(100_000_000)
    assert len(synthetic_bodyfat(1_000, rng=0).frame) == 1_000


def _packed(tmp_path, kind: str, text: bytes, name: str = "bf.csv"):
    """``text`` packed as ``kind`` (a tar, a zip, a compressed file), under its own
    suffix."""
    import bz2
    import gzip
    import io
    import lzma
    import tarfile
    import zipfile

    out = tmp_path / f"{name}.{kind}"
    if kind in ("tar", "tgz-sparse"):
        info = tarfile.TarInfo(name)
        info.size = len(text)
        fmt = tarfile.GNU_FORMAT if kind == "tgz-sparse" else tarfile.PAX_FORMAT
        with tarfile.open(out, "w", format=fmt) as tar:
            tar.addfile(info, io.BytesIO(text))
    elif kind == "zip":
        with zipfile.ZipFile(out, "w") as z:
            z.writestr(name, text)
    else:
        out.write_bytes({"gz": gzip, "bz2": bz2, "xz": lzma}[kind].compress(text))
    return out


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("tar", "is a tar archive, not a CSV: unpack it (tar -xf FILE)"),
        ("tgz-sparse", "is a tar archive, not a CSV"),  # a GNU header, as tar -S writes
        ("zip", "is a zip archive"),
        ("gz", "is gzip-compressed data, not a CSV: unpack it (gzip -d)"),
        ("bz2", "is bzip2-compressed data"),
        ("xz", "is xz-compressed data"),
    ],
)
@pytest.mark.parametrize(
    "text", [b"Abdomen,BodyFat\n90,20\n80,10\n", b"Abdomen,BodyFat,Abdomen\n1,2,3\n"]
)
def test_a_packed_data_file_is_named_as_such_never_read_inside(tmp_path, kind, said, text):
    # hostile21 Z1: pandas read the CSV inside a .tar (compression from the name) while the
    # budget and header checks read the tar's bytes: a 10 KB sparse tar of 1 GB peaked at
    # 2.2 GB under a 300M budget, and a repeated column name inside a tar passed
    from baygo_graph.data.labelled import load_csv

    path = _packed(tmp_path, kind, text)
    for read in (load_bodyfat, lambda p: load_csv(p, columns=("Abdomen",))):
        with pytest.raises(DataError) as info:
            read(path)
        assert said in str(info.value) and "give the CSV file itself" in str(info.value)
        assert len(str(info.value)) <= 300


@pytest.mark.parametrize("suffix", [".tar", ".gz", ".zip", ".csv.bz2"])
def test_a_plain_csv_is_read_whatever_its_name_ends_with(tmp_path, suffix):
    # what the checks read is what pandas reads: the file's own bytes
    path = tmp_path / f"bf{suffix}"
    path.write_text("Abdomen,BodyFat\n90,20\n80,10\n")
    assert load_bodyfat(path).frame["Abdomen"].tolist() == [90.0, 80.0]
