"""Fuzz harness: mutated run, series and sweep files may only raise documented errors.

Hypothesis mutates valid files - truncate, flip bytes, inflate, re-compress zip
members (stored, deflate, bzip2, LZMA; encrypted flag), nest (JSON arrays, XML
elements), retype (a JSON value or an .npy member of another type) - and the
readers must either read them or raise one of the documented exceptions
(``RunFormatError``, ``BudgetError``, ``DataError``); never anything else.

Profiles: a short one by default (CI: a few seconds per file kind) and a long one
on demand, ``BAYGO_FUZZ=long python -m pytest tests/hostile/test_fuzz.py``
(``BAYGO_FUZZ_EXAMPLES=N`` sets the number of examples per test directly).

The last test runs every reader on the bombs of issue 21 in a child process under
an address-space limit (``RLIMIT_AS``): a reader that allocated past its stated
bound would die with a plain MemoryError there instead of a documented error.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.exceptions import BayGoError, BudgetError, DataError, RunFormatError

DOCUMENTED = (RunFormatError, BudgetError, DataError)
_LONG = os.environ.get("BAYGO_FUZZ", "") == "long"
EXAMPLES = int(os.environ.get("BAYGO_FUZZ_EXAMPLES", 2000 if _LONG else 25))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not _LONG,  # CI: the same examples every time; long runs explore
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
#: A small budget, so an inflating mutation meets BudgetError quickly.
SMALL_BUDGET = {"BAYGO_MEMORY_LIMIT": "64MiB"}


# -- mutations ----------------------------------------------------------------------


def _truncate(blob: bytes, draw) -> bytes:
    return blob[: draw(st.integers(0, max(len(blob) - 1, 0)))]


def _flip(blob: bytes, draw) -> bytes:
    out = bytearray(blob)
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(out) - 1))
        out[i] ^= draw(st.integers(1, 255))
    return bytes(out)


def _inflate(blob: bytes, draw) -> bytes:
    i = draw(st.integers(0, len(blob)))
    chunk = draw(st.binary(min_size=1, max_size=8)) * draw(st.integers(1, 4096))
    return blob[:i] + chunk + blob[i:]


def _recompress(blob: bytes, draw) -> bytes:
    """Re-zip every member with a drawn method; maybe set the encrypted flag."""
    try:
        src = zipfile.ZipFile(io.BytesIO(blob))
        items = {n: src.read(n) for n in src.namelist()}
    except Exception:  # an earlier mutation broke the zip: nothing to re-pack
        return blob
    methods = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in items.items():
            zf.writestr(name, data, compress_type=draw(st.sampled_from(methods)))
    out = bytearray(buf.getvalue())
    if draw(st.booleans()):
        i = out.find(b"PK\x01\x02")
        if i >= 0:
            out[i + 8] |= 1
    return bytes(out)


def _retype_npz(blob: bytes, draw) -> bytes:
    """One member replaced by an array of another dtype / shape / a nested object."""
    try:
        src = zipfile.ZipFile(io.BytesIO(blob))
        items = {n: src.read(n) for n in src.namelist()}
    except Exception:  # an earlier mutation broke the zip: nothing to re-pack
        return blob
    name = draw(st.sampled_from(sorted(items)))
    value = draw(
        st.sampled_from(
            [
                np.array("text"),
                np.zeros((2, 2, 2, 2)),
                np.array([1 + 2j]),
                np.array([True, False]),
                np.array(json.dumps({"format": "baygo-run", "config": "x"})),
                np.arange(3, dtype=np.uint8),
            ]
        )
    )
    buf = io.BytesIO()
    np.save(buf, value)
    items[name] = buf.getvalue()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, data in items.items():
            zf.writestr(n, data)
    return out.getvalue()


def _nest_json(blob: bytes, draw) -> bytes:
    depth = draw(st.integers(1, 200_000))
    return b"[" * depth + blob + b"]" * draw(st.integers(0, depth))


def _retype_json(blob: bytes, draw) -> bytes:
    try:
        doc = json.loads(blob)
    except (ValueError, RecursionError):  # broken or nested by an earlier mutation
        return blob
    other = draw(st.sampled_from(["0.5", 1e308, -1, None, [], {}, [[[]]], True, "=1+1"]))
    paths = list(_json_paths(doc))
    if not paths:
        return json.dumps(other).encode()
    parent, key = draw(st.sampled_from(paths))
    parent[key] = other
    try:
        return json.dumps(doc).encode()
    except RecursionError:
        return blob


def _json_paths(doc, limit=400):
    out, todo = [], [doc]
    while todo and len(out) < limit:
        node = todo.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for k in keys:
            out.append((node, k))
            if isinstance(node[k], dict | list):
                todo.append(node[k])
    return out


def _nest_xml(blob: bytes, draw) -> bytes:
    depth = draw(st.integers(1, 50_000))
    i = blob.find(b"<graph ")
    i = i if i >= 0 else len(blob) // 2
    return blob[:i] + b"<a>" * depth + b"</a>" * depth + blob[i:]


def _defaults_xml(blob: bytes, draw) -> bytes:
    """Node keys with ``<default>`` values every node inherits."""
    keys = draw(st.integers(1, 300))
    text = b"x" * draw(st.integers(1, 64))
    decl = b"".join(
        b'<key id="z%d" for="node" attr.name="z%d" attr.type="string"><default>%s</default></key>'
        % (i, i, text)
        for i in range(keys)
    )
    i = blob.find(b"<graph ")
    return blob if i < 0 else blob[:i] + decl + blob[i:]


BYTES = [_truncate, _flip, _inflate]


def _mutation(kinds):
    return st.lists(st.sampled_from(BYTES + kinds), min_size=1, max_size=3)


def _apply(blob: bytes, data, kinds) -> bytes:
    for mutate in data.draw(_mutation(kinds), label="mutations"):
        blob = mutate(blob, data.draw) if blob else blob
    return blob


# -- readers ------------------------------------------------------------------------


def _only_documented(read, path):
    with mock.patch.dict(os.environ, SMALL_BUDGET):
        try:
            read(path)
        except DOCUMENTED:
            pass


@given(data=st.data())
@FUZZ
def test_fuzzed_run_files(saved_runs, tmp_path, data):
    kind = data.draw(st.sampled_from(sorted(saved_runs)), label="kind")
    blob = _apply(saved_runs[kind][1], data, [_recompress, _retype_npz])
    path = tmp_path / "run.npz"
    path.write_bytes(blob)
    _only_documented(bg.Run.load, path)


@given(data=st.data())
@FUZZ
def test_fuzzed_json_series(series_files, tmp_path, data):
    blob = _apply(series_files[".json"], data, [_nest_json, _retype_json])
    path = tmp_path / "s.json"
    path.write_bytes(blob)
    _only_documented(bg.read_series, path)


@pytest.fixture(scope="module")
def gexf_file(tmp_path_factory, small_run):
    from baygo_graph.io.gexf import write_gexf

    run = small_run
    return write_gexf(run.series, tmp_path_factory.mktemp("gexf") / "g.gexf", run=run).read_bytes()


@given(data=st.data())
@FUZZ
def test_fuzzed_xml_series(series_files, gexf_file, tmp_path, data):
    """GraphML series, and GEXF exports handed to the GraphML reader."""
    source = data.draw(st.sampled_from([series_files[".graphml"], gexf_file]), label="source")
    blob = _apply(source, data, [_nest_xml, _defaults_xml])
    path = tmp_path / "s.graphml"
    path.write_bytes(blob)
    _only_documented(bg.read_series, path)


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    from baygo_graph.experiments import sweep

    out = tmp_path_factory.mktemp("sweep")
    table = sweep({"agents": [4], "grid": [9]}, strategies=["nocol"], seeds=1, steps=2, out=out,
                  data=bg.synthetic_bodyfat(), n_jobs=1, progress=False)  # fmt: skip
    return out, table


@given(data=st.data())
@settings(FUZZ, max_examples=max(EXAMPLES // 5, 5))  # each example reruns a tiny sweep
def test_fuzzed_sweep_rows(sweep_folder, data):
    """A mutated task file is redone (never trusted, never an exception)."""
    from baygo_graph.experiments import sweep

    out, table = sweep_folder
    task = out / "tasks" / f"{table['id'][0]}.json"
    good = task.read_bytes()
    task.write_bytes(_apply(good, data, [_nest_json, _retype_json]))
    again = sweep({"agents": [4], "grid": [9]}, strategies=["nocol"], seeds=1, steps=2, out=out,
                  data=bg.synthetic_bodyfat(), n_jobs=1, progress=False)  # fmt: skip
    assert again["final_mse_others_mean"][0] == table["final_mse_others_mean"][0]
    task.write_bytes(good)


@given(data=st.data())
@FUZZ
def test_fuzzed_comparison_csv(tmp_path, data):
    shape = (2, 1, 2, 3)
    res = bg.analysis.Comparison(strategies=("baygo", "nocol"), mse=np.ones(shape),
                                 influence=np.full(shape, 1 / 3),
                                 informative=np.zeros((2, 1), dtype=int))  # fmt: skip
    blob = _apply(res.write_csv(tmp_path / "t.csv", overwrite=True).read_bytes(), data, [])
    (tmp_path / "t.csv").write_bytes(blob)
    _only_documented(bg.analysis.Comparison.read_csv, tmp_path / "t.csv")


def test_documented_errors_are_the_packages():
    assert all(issubclass(e, BayGoError) for e in DOCUMENTED)


# -- memory bound under an address-space limit ---------------------------------------

CHILD = textwrap.dedent(
    """
    import json, os, resource, sys
    import numpy as np, networkx, defusedxml, pandas
    import baygo_graph as bg
    from baygo_graph.models import LinearRegression
    from baygo_graph.reproduce import run_figures  # imports done before the limit

    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    headroom = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + headroom, resource.RLIM_INFINITY))
    # the budget bounds the process's peak: what this process holds now, plus the budget
    # the readers may take on top of it
    held = bg.limits.process_memory()
    os.environ["BAYGO_MEMORY_LIMIT"] = str(held + int(os.environ["BAYGO_MEMORY_LIMIT"]))
    out = {}
    for name, reader, path in json.loads(sys.argv[1]):
        try:
            if reader == "run":
                bg.Run.load(path)
            elif reader == "series":
                bg.read_series(path)
            else:
                bg.simulate("nocol", agents=2000, steps=1, model=LinearRegression(grid=5),
                            rng=0, data=bg.load_bodyfat(path))
            out[name] = "read"
        except MemoryError as e:
            kind = type(e).__name__
            out[name] = kind if kind == "BudgetError" else "MemoryError: " + str(e)[:200]
        except Exception as e:
            out[name] = type(e).__name__ + ": " + str(e)[:200]
    print(json.dumps(out))
    """
)


def _zero_bomb(kit, blob: bytes, nbytes: int) -> bytes:
    """The ``mse`` member claiming and holding ``nbytes`` of zeros (deflate: ~1/1000)."""
    items = kit.members(blob)
    header = kit.npy_with_shape(items["mse.npy"], (nbytes // 8 // 4, 4))
    head = header[: header.index(b"\n") + 1]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in items.items():
            if name == "mse.npy":
                with zf.open(name, "w", force_zip64=True) as fh:
                    fh.write(head)
                    zero = bytes(2**20)
                    for _ in range(nbytes // 2**20):
                        fh.write(zero)
            else:
                zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
def test_readers_stay_within_their_bound_under_an_address_space_limit(
    saved_runs, series_files, tmp_path, kit
):
    budget, headroom = 64 * 2**20, 512 * 2**20
    blob = saved_runs["dynamic"][1]
    files = {
        "graphml_defaults": (tmp_path / "d.graphml", kit.default_bomb(2000, 400, 2000).encode()),
        "lzma_run": (tmp_path / "l.npz", kit.recompressed(blob, zipfile.ZIP_LZMA)),
        "zero_bomb_run": (tmp_path / "z.npz", _zero_bomb(kit, blob, 2**28)),
        "valid_run": (tmp_path / "v.npz", blob),
        "valid_graphml": (tmp_path / "v.graphml", series_files[".graphml"]),
    }
    nodes = [{"id": i} for i in range(200_000)]
    big = {"format": "baygo-graph-series", "graphs": [{"nodes": nodes, "edges": []}]}
    files["json_nodes"] = (tmp_path / "n.json", json.dumps(big, separators=(",", ":")).encode())
    small = {"format": "baygo-graph-series", "graphs": [{"nodes": nodes[:20_000], "edges": []}]}
    files["json_within_budget"] = (tmp_path / "w.json", json.dumps(small).encode())
    rng = np.random.default_rng(0)
    rows = np.column_stack([rng.uniform(70, 120, 200_000), rng.uniform(5, 40, 200_000)])
    csv = "Abdomen,BodyFat\n" + "\n".join(f"{a:.3f},{b:.3f}" for a, b in rows)
    files["split_2000_agents"] = (tmp_path / "big.csv", csv.encode())
    cases = []
    for name, (path, data) in files.items():
        path.write_bytes(data)
        reader = "run" if path.suffix == ".npz" else "csv" if path.suffix == ".csv" else "series"
        cases.append((name, reader, str(path)))
    env = os.environ | {"BAYGO_MEMORY_LIMIT": str(budget), "OPENBLAS_NUM_THREADS": "1",
                        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(cases), str(headroom)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    print(got)
    for name in ("valid_run", "valid_graphml", "json_within_budget"):
        assert got[name] == "read", got
    assert got["graphml_defaults"] == "BudgetError"
    assert got["json_nodes"] == "BudgetError"
    assert got["split_2000_agents"] == "BudgetError"
    assert (
        got["lzma_run"].startswith("RunFormatError: ")
        and "only stored and deflate" in (got["lzma_run"])
    )
    assert got["zero_bomb_run"].startswith(("BudgetError", "RunFormatError"))
