"""results.parquet attacked byte by byte: every changed byte of the footer (column types,
key-value metadata, row groups) is refused in one line naming the file, or changes
nothing that is read back."""

from __future__ import annotations

import struct

import numpy as np
import pandas as pd
import pytest

from baygo_graph.analysis import Comparison
from baygo_graph.exceptions import DataError
from baygo_graph.io.results import load_results, read_result_arrays


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    c = Comparison(
        ("baygo", "complete"),
        rng.random((2, 3, 4, 3)),
        rng.random((2, 3, 4, 3)),
        np.zeros((2, 3), dtype=int),
        attrs={"synthetic": True, "data_source": "synthetic (n=252)"},
    )
    path = c.write_parquet(tmp_path_factory.mktemp("r") / "results.parquet")
    return path, path.read_bytes()


def _read(path):
    return load_results(path), read_result_arrays(path)


def _same(got, want) -> bool:
    (df, arrays), (ref, ref_arrays) = got, want
    try:
        pd.testing.assert_frame_equal(df, ref)
    except AssertionError:
        return False
    labels, *values, attrs = arrays
    ref_labels, *ref_values, ref_attrs = ref_arrays
    return (
        df.attrs == ref.attrs
        and labels == ref_labels
        and attrs == ref_attrs
        and all(
            np.array_equal(a, b, equal_nan=True) for a, b in zip(values, ref_values, strict=True)
        )
    )


def test_every_flip_in_the_footer_is_refused_or_changes_nothing(table, tmp_path):
    path, blob = table
    want = _read(path)
    length = struct.unpack("<I", blob[-8:-4])[0]
    start = len(blob) - 8 - length  # the footer: thrift metadata, its length, "PAR1"
    positions = np.linspace(start, len(blob) - 1, 400).astype(int)  # deterministic, spread
    refused = 0
    for k, pos in enumerate(positions.tolist()):
        bad = bytearray(blob)
        bad[pos] ^= 1 << (k % 8)  # every bit of a byte in turn
        target = tmp_path / "results.parquet"
        target.write_bytes(bytes(bad))
        try:
            got = _read(target)
        except (DataError, ValueError) as e:
            line = str(e)
            assert "\n" not in line and len(line) <= 300 and "results.parquet" in line, line
            refused += 1
            continue
        assert _same(got, want), f"a flip of byte {pos} (bit {k % 8}) was read back changed"
    assert refused > 200  # most of the footer matters; the rest (statistics) is unused


def test_a_changed_data_source_in_the_metadata_is_refused(table, tmp_path):
    path, blob = table
    # the same length, so the footer still parses: only the digest can tell
    bad = blob.replace(b"synthetic (n=252)", b"bodyfat.csv (n=9)")
    assert bad != blob
    (tmp_path / "results.parquet").write_bytes(bad)
    with pytest.raises(DataError, match=r"results\.parquet' is corrupt: its footer"):
        load_results(tmp_path / "results.parquet")


def test_a_file_of_an_earlier_version_without_a_digest_is_read(table, tmp_path):
    import pyarrow.parquet as pq

    path, _ = table
    arrow = pq.read_table(path)
    meta = dict(arrow.schema.metadata)
    meta.pop(b"baygo.digest")
    meta[b"baygo.results"] = meta[b"baygo.results"].replace(b', "digest": "sha256"', b"")
    old = tmp_path / "results.parquet"
    pq.write_table(arrow.replace_schema_metadata(meta), old)
    assert load_results(old).equals(load_results(path))
    # a digest announced in baygo.results but missing (its key damaged) is refused
    meta = dict(arrow.schema.metadata)
    meta[b"baygo.dig3st"] = meta.pop(b"baygo.digest")
    pq.write_table(arrow.replace_schema_metadata(meta), old)
    with pytest.raises(DataError, match="is corrupt"):
        load_results(old)
