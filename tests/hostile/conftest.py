"""Valid run and series files that the hostile tests mutate, and zip helpers."""

from __future__ import annotations

import io
import sys
import zipfile

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph.models import LinearRegression

#: What readers may raise on a hostile file: documented errors only.
DOCUMENTED = (bg.RunFormatError, bg.exceptions.BudgetError)


@pytest.fixture(scope="session")
def saved_runs(tmp_path_factory) -> dict:
    """One small saved run per kind: name -> (Run, bytes of its .npz)."""
    folder = tmp_path_factory.mktemp("runs")
    data = bg.synthetic_bodyfat()
    kw = {"agents": 4, "steps": 3, "model": LinearRegression(grid=9), "rng": 0, "data": data}
    runs = {
        "dynamic": bg.simulate("baygo", keep_posteriors=[0, 2], **kw),
        "fixed": bg.simulate("complete", **kw),
        "cen": bg.simulate("cen", **kw),
    }
    return {k: (r, r.save(folder / f"{k}.npz").read_bytes()) for k, r in runs.items()}


def members(blob: bytes) -> dict[str, bytes]:
    """The raw (uncompressed) members of a zip."""
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def make_zip(items: dict[str, bytes]) -> bytes:
    """A deflated zip of ``items``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in items.items():
            zf.writestr(name, data)
    return buf.getvalue()


def npy(array) -> bytes:
    """``array`` as .npy bytes."""
    buf = io.BytesIO()
    np.save(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def npy_with_shape(raw: bytes, shape) -> bytes:
    """The .npy bytes ``raw`` with its header's shape replaced (data unchanged)."""
    fh = io.BytesIO(raw)
    version = np.lib.format.read_magic(fh)
    read = {(1, 0): np.lib.format.read_array_header_1_0}.get(
        version, np.lib.format.read_array_header_2_0
    )
    _, fortran, dtype = read(fh)
    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": fortran}
    np.lib.format.write_array_header_1_0(out, header | {"shape": tuple(shape)})
    return out.getvalue() + fh.read()


@pytest.fixture(scope="session")
def series_files(tmp_path_factory, saved_runs) -> dict:
    """A valid GraphML and JSON series of the dynamic run: suffix -> bytes."""
    folder = tmp_path_factory.mktemp("series")
    run = saved_runs["dynamic"][0]
    out = {}
    for suffix in (".graphml", ".json"):
        out[suffix] = bg.write_series(run, folder / f"s{suffix}").read_bytes()
    return out


def graphml(*, steps=None, edges=(), nodes=(0, 1), extra="") -> str:
    """A small GraphML series text: ``edges`` are (source, target, step, weight)."""
    head = (
        '<?xml version="1.0"?>' + extra + '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="w" for="edge" attr.name="weight" attr.type="double"/>'
        '<key id="s" for="edge" attr.name="step" attr.type="long"/>'
        '<key id="n" for="graph" attr.name="steps" attr.type="long"/>'
        '<graph edgedefault="directed">'
    )
    body = "".join(f'<node id="{n}"/>' for n in nodes)
    body += "".join(
        f'<edge source="{u}" target="{v}"><data key="s">{t}</data><data key="w">{w}</data></edge>'
        for u, v, t, w in edges
    )
    if steps is not None:
        body += f'<data key="n">{steps}</data>'
    return head + body + "</graph></graphml>"


def recompressed(blob: bytes, method: int) -> bytes:
    """``blob`` (a zip) with every member re-compressed by ``method``."""
    src = zipfile.ZipFile(io.BytesIO(blob))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name in src.namelist():
            zf.writestr(name, src.read(name))
    return buf.getvalue()


def default_bomb(nodes: int, keys: int, steps: int) -> str:
    """Node keys with ``<default>`` values that every node inherits, and many steps."""
    head = '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    head += '<key id="s" for="edge" attr.name="step" attr.type="long"/>'
    head += "".join(
        f'<key id="k{i}" for="node" attr.name="a{i}" attr.type="string"><default>x</default></key>'
        for i in range(keys)
    )
    body = "".join(f'<node id="{n}"/>' for n in range(nodes))
    body += "".join(
        f'<edge source="0" target="1"><data key="s">{t}</data></edge>' for t in range(steps)
    )
    return head + '<graph edgedefault="directed">' + body + "</graph></graphml>"


@pytest.fixture(scope="session")
def kit():
    """These helpers, for the test modules (conftest cannot be imported by name)."""
    return sys.modules[__name__]
