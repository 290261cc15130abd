"""Class 1: small hostile files and absurd sizes fail before allocating.

Each bomb is loaded in a child process whose address space is capped at 1 GiB
(``RLIMIT_AS``): an unchecked reader dies there with MemoryError; ours must end
with the documented error (or, for an unknown member, ignore it) and report its
peak resident memory, printed for the record (``pytest -s``). The bound is on what
reading adds to the memory the imports took (pandas imports pyarrow where it is
installed, about 40 MiB more), so it tests the reader, not the environment.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import baygo_graph as bg
from baygo_graph import SettingError  # noqa: E402
from baygo_graph.limits import (
    ADVICE_MARGIN,
    JSON_BYTES_PER_FILE_BYTE,
    check_budget,
    estimate_run_bytes,
    memory_limit,
    parse_bytes,
)
from baygo_graph.models import LinearRegression  # noqa: E402

CAP = 2**30
CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import baygo_graph as bg
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
try:
    out = bg.Run.load(sys.argv[1]) if sys.argv[1].endswith(".npz") else bg.read_series(sys.argv[1])
    result = {{"error": None, "loaded": type(out).__name__}}
except BaseException as e:
    result = {{"error": type(e).__name__, "message": str(e)}}
result["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
result["grown_mib"] = result["maxrss_mib"] - base  # above what the imports took
print(json.dumps(result))
"""


def _in_capped_child(path, **env) -> dict:
    code = CHILD.format(cap=CAP)
    environ = os.environ | {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"} | env
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{path.name}: {result}")
    return result


def _zeros_member(zf, name, shape, dtype="<f8", chunk=64 * 2**20):
    """Write a .npy member of zeros whose header claims ``shape`` (all bytes really there)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    left = int(np.prod(shape)) * np.dtype(dtype).itemsize
    with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
        fh.write(header.getvalue())
        zeros = bytes(chunk)
        while left > 0:
            fh.write(zeros[: min(chunk, left)])
            left -= chunk


def _bomb(saved_runs, tmp_path, name, build):
    _, blob = saved_runs["dynamic"]
    path = tmp_path / name
    with (
        zipfile.ZipFile(io.BytesIO(blob)) as src,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as dst,
    ):
        for item in src.namelist():
            if not build(dst, item):
                dst.writestr(item, src.read(item))
    return path


def test_zero_bomb_member_is_never_inflated(saved_runs, tmp_path):
    # an extra member 'pad' inflating to 1 GiB of zeros (about 4.5 MB on disk)
    path = _bomb(
        saved_runs, tmp_path, "pad.npz",
        lambda zf, item: item == "mse.npy" and _zeros_member(zf, "pad", (2**27,)),
    )  # fmt: skip
    assert path.stat().st_size < 8 * 2**20
    result = _in_capped_child(path)
    assert result["error"] is None and result["loaded"] == "Run"
    assert result["grown_mib"] < 300


def test_inflating_known_member_over_budget(saved_runs, tmp_path):
    # 'mse' inflating to 512 MiB, budget 256 MiB: refused before inflating
    def build(zf, item):
        if item == "mse.npy":
            _zeros_member(zf, "mse", (2**13, 2**13))
            return True
        return False

    path = _bomb(saved_runs, tmp_path, "mse.npz", build)
    result = _in_capped_child(path, BAYGO_MEMORY_LIMIT="256MiB")
    assert result["error"] == "BudgetError" and "member 'mse'" in result["message"]
    assert "BAYGO_MEMORY_LIMIT" in result["message"] and result["grown_mib"] < 300


def test_forged_header_claiming_16_gib(saved_runs, kit, tmp_path):
    _, blob = saved_runs["dynamic"]
    items = kit.members(blob)
    items["mse.npy"] = kit.npy_with_shape(items["mse.npy"], (2**16, 2**15))
    path = tmp_path / "forged.npz"
    path.write_bytes(kit.make_zip(items))
    result = _in_capped_child(path)
    assert (
        result["error"] == "RunFormatError" and "claims shape (65536, 32768)" in result["message"]
    )


def test_graphml_steps_bomb(tmp_path, kit):
    edges = [(i % 2, (i + 1) % 2, i, 1.0) for i in range(500)]
    path = tmp_path / "bomb.graphml"
    path.write_text(kit.graphml(steps=1_000_000, edges=edges))
    assert 40_000 < path.stat().st_size < 80_000
    result = _in_capped_child(path)
    assert result["error"] == "RunFormatError" and "1000000 steps" in result["message"]
    assert result["grown_mib"] < 300


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"agents": 10**11}, "100000000000 agents"),
        ({"grid": 10**6}, "1000000000000 grid points"),
        ({"grid": (10**7, 3)}, "30000000 grid points"),
    ],
)
def test_simulate_checks_the_budget_first(kw, match):
    with pytest.raises(bg.exceptions.BudgetError, match=match):
        model = LinearRegression(**{k: kw.pop(k) for k in ("grid",) if k in kw})
        bg.simulate("baygo", data=bg.synthetic_bodyfat(), model=model, **kw)


def test_budget_env_and_keyword(monkeypatch):
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "3MiB")
    assert memory_limit() == 3 * 2**20
    with pytest.raises(MemoryError, match="over the memory budget of 3.0 MiB"):
        check_budget(4 * 2**20, what="x")
    assert check_budget(4 * 2**20, what="x", limit="1GB") == 4 * 2**20
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "lots")
    with pytest.raises(SettingError, match="BAYGO_MEMORY_LIMIT='lots'"):
        memory_limit()
    for bad in ("", "-1MB", "3 parsecs", 0, "nan GiB", "inf"):
        with pytest.raises(ValueError):
            parse_bytes(bad)


def test_run_estimate_bounds_the_measured_allocations():
    tracemalloc = pytest.importorskip("tracemalloc")
    kw = {"agents": 40, "steps": 30, "model": LinearRegression(grid=41)}
    data = bg.synthetic_bodyfat()
    bg.simulate("baygo", rng=0, data=data, **kw)  # warm caches and imports
    tracemalloc.start()
    bg.simulate("baygo", rng=0, data=data, **kw)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    estimate = estimate_run_bytes(40, 30, 41 * 41)
    print(f"estimate {estimate} bytes, measured numpy/python peak {peak} bytes")
    assert peak / 4 < estimate < 8 * peak


def _advised(message: str) -> str:
    """The size the budget message advises (``... =4MiB or more`` / ``of 4MiB or more``)."""
    import re

    return re.search(r"([^\s=]+) or more to (?:run|read) it$", message).group(1)


@pytest.mark.parametrize("env", [None, "3MiB", "8GiB", "1e9"])
@pytest.mark.parametrize("need", [4 * 2**20, 9 * 2**30 + 1, 10 * 10**9])
def test_budget_advice_names_a_limit_that_lets_it_run(monkeypatch, env, need):
    """Never the limit in force: a value that, set as advised, passes the same check."""
    if env is None:
        monkeypatch.delenv("BAYGO_MEMORY_LIMIT", raising=False)
    else:
        monkeypatch.setenv("BAYGO_MEMORY_LIMIT", env)
    monkeypatch.setattr("baygo_graph.limits.physical_memory", lambda: 64 * 2**30)
    if need <= memory_limit():
        assert check_budget(need, what="x") == need
        return
    with pytest.raises(bg.exceptions.BudgetError) as info:
        check_budget(need, what="x")
    message = str(info.value)
    source = f"BAYGO_MEMORY_LIMIT={env}" if env else "the default"
    assert f"over the memory budget of {bg.limits.format_bytes(memory_limit())} ({source})" in (
        message
    )
    advised = _advised(message)
    assert f"set BAYGO_MEMORY_LIMIT={advised} or more" in message
    assert memory_limit() < parse_bytes(advised) <= 1.1 * ADVICE_MARGIN * need
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", advised)
    assert check_budget(need, what="x") == need


def test_budget_advice_for_the_keyword_and_what_was_read_before(monkeypatch):
    monkeypatch.setattr("baygo_graph.limits.physical_memory", lambda: 64 * 2**30)
    with pytest.raises(bg.exceptions.BudgetError, match=r"\(the limit given\): pass a limit"):
        check_budget(3 * 2**30, what="x", limit="1GiB")
    with pytest.raises(bg.exceptions.BudgetError) as info:
        check_budget(2 * 2**30, what="x", limit="3GiB", used=2 * 2**30)
    assert "needs about 2.0 GiB on top of 2.0 GiB held, over the memory budget" in str(info.value)
    assert _advised(str(info.value)) == "4.3GiB"  # what was read counts (+5%): not 2GiB
    assert check_budget(2 * 2**30, what="x", limit="4GiB", used=2 * 2**30)


def test_budget_beyond_the_machine_says_it_cannot_run(monkeypatch):
    monkeypatch.delenv("BAYGO_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr("baygo_graph.limits.physical_memory", lambda: 16 * 2**30)
    with pytest.raises(bg.exceptions.BudgetError) as info:
        check_budget(2**40, what="a series of 10 steps x 9 nodes")
    message = str(info.value)
    assert message.endswith(
        "more than this machine's memory (16.0 GiB; the budget: 8.0 GiB): it cannot run here"
    )
    assert "BAYGO_MEMORY_LIMIT=" not in message


def test_npz_members_advice_counts_the_members_read_before(saved_runs, tmp_path, monkeypatch):
    """A run file whose members together exceed the budget: the advice covers them all."""
    run, blob = saved_runs["dynamic"]
    path = tmp_path / "r.npz"
    path.write_bytes(blob)
    sizes = {k: v.nbytes for k, v in np.load(path).items()}
    sizes["meta"] += JSON_BYTES_PER_FILE_BYTE * sizes["meta"] // 4  # its JSON parsed
    total = sum(sizes.values())
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", str(total - 1))
    with pytest.raises((bg.exceptions.BudgetError, bg.RunFormatError)) as info:
        bg.Run.load(path)
    advised = _advised(str(info.value))
    assert parse_bytes(advised) >= total - 1 and " held, over the memory budget" in str(info.value)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", advised)
    assert bg.Run.load(path).n_steps == run.n_steps


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".csv"])
def test_a_bad_memory_setting_is_named_not_blamed_on_the_file(tmp_path, monkeypatch, suffix):
    import networkx as nx

    import baygo_graph as bg
    from baygo_graph import SettingError

    graphs = [nx.DiGraph([(0, 1), (1, 0)])] * 2
    path = tmp_path / f"s{suffix}"
    if suffix == ".csv":
        path.write_text("source,target,time\n0,1,0\n1,0,1\n")
    else:
        bg.write_series(graphs, path)
    monkeypatch.setenv("BAYGO_MEMORY_LIMIT", "abc")
    with pytest.raises(SettingError, match=r"^BAYGO_MEMORY_LIMIT='abc' is not a memory size"):
        bg.read_series(path)
