"""Round three, class 1: the reading gate bounds expansion before it happens."""

from __future__ import annotations

import json
import struct
import zipfile

import pytest

import baygo_graph as bg
from baygo_graph.exceptions import BudgetError, RunFormatError
from baygo_graph.io.safexml import read_graphml_series
from baygo_graph.limits import JSON_BYTES_PER_FILE_BYTE


@pytest.mark.parametrize(("method", "label"), [(zipfile.ZIP_BZIP2, "12"), (zipfile.ZIP_LZMA, "14")])
def test_bzip2_and_lzma_members_are_refused_unread(saved_runs, kit, tmp_path, method, label):
    _, blob = saved_runs["dynamic"]
    p = tmp_path / "run.npz"
    p.write_bytes(kit.recompressed(blob, method))
    with pytest.raises(RunFormatError, match=f"compression method {label} .*stored and deflate"):
        bg.Run.load(p)


def test_lzma_bomb_member_is_never_inflated(saved_runs, kit, tmp_path):
    """A 3 GB-inflating LZMA member: refused from its header, in well under a second."""
    _, blob = saved_runs["cen"]
    items = kit.members(blob)
    raw = kit.npy_with_shape(items["mse.npy"], (3 * 10**8 // 8, 1))
    p = tmp_path / "run.npz"
    p.write_bytes(kit.recompressed(kit.make_zip(items | {"mse.npy": raw}), zipfile.ZIP_LZMA))
    with pytest.raises(RunFormatError, match="only stored and deflate"):
        bg.Run.load(p)


def _set_encrypted_flag(blob: bytes) -> bytes:
    """Every member flagged as encrypted (bit 0 of the general-purpose flags)."""
    out = bytearray(blob)
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (i := out.find(sig, start)) >= 0:
            (flags,) = struct.unpack_from("<H", out, i + offset)
            struct.pack_into("<H", out, i + offset, flags | 1)
            start = i + 4
    return bytes(out)


def test_encrypted_member_is_a_run_format_error(saved_runs, tmp_path):
    _, blob = saved_runs["dynamic"]
    p = tmp_path / "run.npz"
    p.write_bytes(_set_encrypted_flag(blob))
    with pytest.raises(RunFormatError, match="is encrypted"):
        bg.Run.load(p)


def test_graphml_inherited_defaults_count_against_the_budget(tmp_path, kit):
    """~100 KB of keys, nodes and edges that would materialise ~1.6e9 attributes."""
    p = tmp_path / "bomb.graphml"
    p.write_text(kit.default_bomb(nodes=2000, keys=400, steps=2000))
    assert p.stat().st_size < 250_000
    with pytest.raises(BudgetError, match="800000 node attributes"):
        read_graphml_series(p, node_type=str)
    with pytest.raises(BudgetError):
        bg.read_series(p)


def test_graphml_defaults_are_still_inherited(tmp_path, kit):
    p = tmp_path / "ok.graphml"
    p.write_text(kit.default_bomb(nodes=3, keys=2, steps=2))
    graphs = read_graphml_series(p)
    assert len(graphs) == 2 and graphs[1].nodes[2] == {"a0": "x", "a1": "x"}


def test_json_series_budget_is_the_measured_bound(tmp_path, monkeypatch):
    """The budget asks for 64 x the file size, above the ~45 x measured worst case."""
    doc = {
        "format": "baygo-graph-series",
        "graphs": [{"nodes": [{"id": i} for i in range(2000)], "edges": []}],
    }
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc, separators=(",", ":")))
    size = p.stat().st_size
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", str(JSON_BYTES_PER_FILE_BYTE * size - 1))
    with pytest.raises(BudgetError, match="parsing s.json"):
        bg.read_series(p)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", str(JSON_BYTES_PER_FILE_BYTE * size))
    assert bg.read_series(p).n_agents == 2000


def test_unknown_xml_encoding_is_a_run_format_error(tmp_path):
    """Found by the fuzz harness: ``encoding='ttf-8'`` raised LookupError."""
    p = tmp_path / "s.graphml"
    p.write_text("<?xml version='1.0' encoding='ttf-8'?>\n<graphml><graph/></graphml>")
    with pytest.raises(RunFormatError, match="not readable GraphML"):
        bg.read_series(p)
