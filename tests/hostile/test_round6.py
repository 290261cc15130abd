"""Hostile round 6 (reader side): findings G1, G2, G5, G7, G8, G9."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest

from baygo_graph.io.times import time_steps

PARIS = ZoneInfo("Europe/Paris")


def _instants(day: str, rng: np.random.Generator) -> list[datetime]:
    """Random UTC instants over the 24 hours around a Paris clock change (and the
    change's own hours), as aware datetimes."""
    start = datetime.fromisoformat(day).replace(tzinfo=UTC) - timedelta(hours=2)
    minutes = np.concatenate([rng.integers(0, 8 * 60, 25), [0, 59, 60, 61, 119, 120, 121]])
    return [start + timedelta(minutes=int(m)) for m in minutes]


def _reference(stamps: list[datetime], bin: str) -> list[int]:
    """Steps by hand: a whole-day bin on Paris local dates; a shorter bin on the
    instants, from local midnight of the earliest time's day on its own UTC offset."""
    local = [t.astimezone(PARIS) for t in stamps]
    if bin == "1D":
        first = min(t.date() for t in local)
        return [(t.date() - first).days for t in local]
    width = pd.Timedelta(bin).to_pytimedelta()
    earliest = min(local, key=lambda t: t.astimezone(UTC))
    midnight = earliest.replace(hour=0, minute=0, second=0, microsecond=0)
    midnight = midnight.replace(tzinfo=None) - earliest.utcoffset()  # as UTC, naive
    start = midnight + (earliest.astimezone(UTC).replace(tzinfo=None) - midnight) // width * width
    return [(t.astimezone(UTC).replace(tzinfo=None) - start) // width for t in stamps]


@pytest.mark.parametrize("day", ["2024-10-27T01:00", "2024-03-31T01:00"])
@pytest.mark.parametrize("bin", ["15min", "30min", "1h", "1D"])
@pytest.mark.parametrize("form", ["aware", "text"])
def test_g2_clock_change_bins_against_reference(day, bin, form):
    rng = np.random.default_rng(abs(hash((day, bin, form))) % 2**32)
    stamps = _instants(day, rng)
    if form == "aware":
        values = pd.Series(pd.DatetimeIndex(stamps).tz_convert("Europe/Paris"))
    else:
        values = pd.Series([t.astimezone(PARIS).isoformat() for t in stamps])
    steps = time_steps(values, bin=bin).astype(np.int64)
    ref = np.array(_reference(stamps, bin))
    assert (steps == ref - ref.min()).all()
    # a later event is never in an earlier step
    order = np.argsort([t.timestamp() for t in stamps], kind="stable")
    assert (np.diff(steps[order]) >= 0).all()


def test_g2_fall_back_keeps_order():
    values = pd.Series(["2024-10-27T02:45:00+02:00", "2024-10-27T02:15:00+01:00"])
    assert time_steps(values, bin="30min").tolist() == [0, 1]
    assert time_steps(values, bin="15min").tolist() == [0, 2]
    assert time_steps(values, bin="1h").tolist() == [0, 1]  # two real hours
    assert time_steps(values, bin="1D").tolist() == [0, 0]  # one local day


def test_g2_one_offset_is_the_wall_clock():
    # a column on one UTC offset bins as before: from local midnight of its first day
    values = pd.Series(["2024-05-01T05:40:00+05:30", "2024-05-01T06:10:00+05:30"])
    assert time_steps(values, bin="1h").tolist() == [0, 1]


_LABELS_OF = {
    "datetime": pd.to_datetime(["2024-01-01", "2024-01-02"]),
    "aware": pd.to_datetime(["2024-01-01", "2024-01-02"]).tz_localize("Europe/Paris"),
    "timedelta": pd.to_timedelta([1, 2], unit="s"),
    "complex": np.array([1 + 0j, 2 + 0j]),
    "object of timestamps": pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"]), dtype=object),
    "object of floats": pd.Series([1.5, 2.5], dtype=object),
    "categorical of dates": pd.Categorical(pd.to_datetime(["2024-01-01", "2024-01-02"])),
}


@pytest.mark.parametrize("kind", list(_LABELS_OF))
def test_g5_labels_that_are_not_integers_or_text_are_refused(kind, tmp_path):
    from baygo_graph import as_series

    a = _LABELS_OF[kind]
    frame = pd.DataFrame({"source": a, "target": a[::-1], "time": [0, 1]})
    with pytest.raises(ValueError, match=r"column 'source' holds .* labels: .*astype\(str\)"):
        as_series(frame)
    if kind in ("datetime", "timedelta"):  # the same from a Parquet file
        frame.to_parquet(tmp_path / "x.parquet")
        with pytest.raises(ValueError, match=r"column 'source' holds .* labels"):
            as_series(tmp_path / "x.parquet")


def test_g5_uint64_labels_above_int64_are_refused_and_others_read():
    from baygo_graph import as_series

    big = np.array([2**64 - 1, 1], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"column 'source' row 0: the uint64 label .* 2\^63-1"):
        as_series(pd.DataFrame({"source": big, "target": big[::-1], "time": [0, 1]}))
    ok = np.array([2, 1], dtype=np.uint64)
    s = as_series(pd.DataFrame({"source": ok, "target": ok[::-1], "time": [0, 1]}))
    assert s.nodes == (1, 2)
    mixed = pd.Series(["a", 1], dtype=object)  # int and text: text, as a CSV gives
    s = as_series(pd.DataFrame({"source": mixed, "target": mixed[::-1], "time": [0, 1]}))
    assert sorted(s.nodes) == ["1", "a"]


def test_g8_gexf_of_an_unknown_encoding_is_one_line(tmp_path):
    from baygo_graph import read_series
    from baygo_graph.exceptions import RunFormatError

    p = tmp_path / "tiny.gexf"
    p.write_bytes(b'<?xml version="1.0" encoding="ttf-8"?><gexf/>')
    with pytest.raises(RunFormatError) as e:
        read_series(p)
    assert str(e.value) == (
        f"{str(p)!r} is not a readable graph series: its XML declaration names the unknown "
        "encoding 'ttf-8'"
    )


@pytest.mark.parametrize(
    ("encoding", "said"),
    [("utf-16", "UTF-16 text (byte-order mark FF FE)"), ("utf-16-be", "NUL bytes"),
     ("utf-32", "UTF-32 text (byte-order mark FF FE 00 00)")],
)  # fmt: skip
@pytest.mark.parametrize("suffix", [".csv", ".txt", ".csv.gz"])
def test_g1_utf16_text_is_named(encoding, said, suffix, tmp_path):
    import gzip

    from baygo_graph import as_series
    from baygo_graph.exceptions import RunFormatError

    data = "source,target,time\na,b,1\nb,a,2\n".encode(encoding)
    p = tmp_path / f"u16{suffix}"
    p.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    with pytest.raises(RunFormatError, match=f"^'.*u16{suffix}' .*{re.escape(said)}.*UTF-8$"):
        as_series(p)


def test_g7_a_parse_refusal_promises_the_read_not_the_run(monkeypatch, tmp_path):
    from baygo_graph import read_series
    from baygo_graph.exceptions import BudgetError

    p = tmp_path / "s.json"
    p.write_text('{"graphs": []}' + " " * 200_000)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "1MiB")
    with pytest.raises(BudgetError, match=r"^parsing s\.json needs .* or more to read it$"):
        read_series(p)


def test_g7_self_weight_that_rounds_to_zero_is_refused_and_minus_zero_is_zero():
    from baygo_graph.series import check_self_weight

    with pytest.raises(ValueError, match=r"^self_weight '1e-400' is nonzero but below"):
        check_self_weight("1e-400")
    assert check_self_weight("0") == 0 and check_self_weight("0e5") == 0
    for minus in ("-0", "-0.0", -0.0):
        got = check_self_weight(minus)
        assert got == 0 and str(got) == "0.0"


def test_g10_parquet_time_of_day_and_decimal_weights(tmp_path):
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    from baygo_graph import as_series

    ends = {"source": pa.array(["a", "b"]), "target": pa.array(["b", "a"])}
    p = tmp_path / "t.parquet"
    pq.write_table(pa.table({**ends, "time": pa.array([0, 60], pa.time32("s"))}), p)
    with pytest.raises(ValueError, match=r"time column 'time' holds times of day .* no date"):
        as_series(p)
    q = tmp_path / "w.parquet"
    weight = pa.array([Decimal("1"), Decimal("2.5")], pa.decimal128(5, 1))
    pq.write_table(pa.table({**ends, "time": pa.array([0, 1]), "weight": weight}), q)
    s = as_series(q)
    plain = as_series(pd.DataFrame({"source": ["a", "b"], "target": ["b", "a"],
                                    "time": [0, 1], "weight": [1.0, 2.5]}))  # fmt: skip
    assert [sorted(g.edges(data="weight")) for g in s.graphs()] == [
        sorted(g.edges(data="weight")) for g in plain.graphs()
    ]
