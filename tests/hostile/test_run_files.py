"""Class 2: inconsistent or mutated run files fail with RunFormatError, never load wrong."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baygo_graph as bg
from baygo_graph.io.safenpz import read_npz, validate_run_arrays

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _load_or_documented(path, kit):
    """Load ``path``; only documented errors may come out; what loads must be usable."""
    try:
        run = bg.Run.load(path)
    except kit.DOCUMENTED:
        return None
    s = run.summary()  # every per-step array is consistent with the others
    assert s["steps"] == run.n_steps and len(s["final_mse"]) == run.n_agents
    if run.kind != "cen":
        w = run.weights(run.n_steps - 1)
        np.testing.assert_allclose(w.sum(axis=1), 1.0)
    return run


def _rewrite(kit, blob, **changes):
    items = kit.members(blob)
    for name, value in changes.items():
        if value is None:
            items.pop(f"{name}.npy", None)
        else:
            items[f"{name}.npy"] = value if isinstance(value, bytes) else kit.npy(value)
    return kit.make_zip(items)


def _pickled(array) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array.astype(object), allow_pickle=True)
    return buf.getvalue()


def _meta(kit, blob) -> dict:
    return json.loads(str(np.load(io.BytesIO(kit.members(blob)["meta.npy"]))))


@pytest.mark.parametrize(
    ("kind", "change", "match"),
    [
        ("dynamic", lambda r: {"choices": r.choices[:-1]}, "choices of shape"),
        (
            "dynamic",
            lambda r: {"choices": np.full_like(r.choices, 4)},
            r"choices must be .*\[-1, 4\)",
        ),
        ("dynamic", lambda r: {"choices": r.choices.astype(float)}, "expected kind 'i'"),
        ("dynamic", lambda r: {"mse": r.mse[0]}, "expected 2 dimensions"),
        ("dynamic", lambda r: {"mse": np.full_like(r.mse, np.inf)}, "member 'mse' holds inf"),
        ("dynamic", lambda r: {"mse": r.mse * np.nan}, "'mse' holds nan at step 0, agent 0"),
        ("cen", lambda r: {"entropy": r.entropy * np.nan}, "member 'entropy' holds nan"),
        ("fixed", lambda r: {"mean": r.mean * np.nan}, "member 'mean' holds nan"),
        ("dynamic", lambda r: {"entropy": r.entropy[:, :2]}, "entropy has shape"),
        ("dynamic", lambda r: {"mean": None}, "no 'mean'"),
        ("dynamic", lambda r: {"posterior_steps": np.array([0, 7])}, "posterior_steps"),
        ("dynamic", lambda r: {"mse": _pickled(r.mse)}, "holds Python objects"),
        ("fixed", lambda r: {"w_data": r.fixed_weights.data * 2}, "row-stochastic"),
        ("fixed", lambda r: {"w_data": -r.fixed_weights.data}, "non-negative"),
        ("fixed", lambda r: {"w_indices": r.fixed_weights.indices + 9}, "w_indices"),
        ("fixed", lambda r: {"w_indptr": r.fixed_weights.indptr[:-1]}, "w_indptr"),
        ("fixed", lambda r: {"w_data": None}, "needs w_data"),
        ("cen", lambda r: {"choices": np.zeros((3, 4), dtype=np.int32)}, "no choices"),
    ],
)
def test_inconsistent_arrays_are_rejected(saved_runs, kit, tmp_path, kind, change, match):
    run, blob = saved_runs[kind]
    path = tmp_path / "bad.npz"
    path.write_bytes(_rewrite(kit, blob, **change(run)))
    with pytest.raises(bg.RunFormatError, match=match):
        bg.Run.load(path)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        ({"kind": "weird"}, "kind must be one of"),
        ({"config": [1, 2]}, "config must be a JSON object"),
        ({"informative": 4}, r"informative must be an agent id in \[0, 4\)"),
        ({"informative": True}, "informative"),
        ({"delta": 1.5}, r"delta must be a number in \[0, 1\]"),
        ({"delta": "0.5"}, "delta"),
        ({"strategy": None}, "strategy must be a string"),
        ({"format_version": 99}, "format version 99"),
    ],
)
def test_bad_metadata_is_rejected(saved_runs, kit, tmp_path, edit, match):
    _, blob = saved_runs["dynamic"]
    meta = _meta(kit, blob) | edit
    path = tmp_path / "bad.npz"
    path.write_bytes(_rewrite(kit, blob, meta=np.array(json.dumps(meta))))
    with pytest.raises(bg.RunFormatError, match=match):
        bg.Run.load(path)


def test_deeply_nested_meta_and_plain_npy(saved_runs, kit, tmp_path):
    _, blob = saved_runs["dynamic"]
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.npz"
    path.write_bytes(_rewrite(kit, blob, meta=np.array(deep)))
    with pytest.raises(bg.RunFormatError, match="unreadable metadata"):
        bg.Run.load(path)
    renamed = tmp_path / "run.npz"
    np.save(tmp_path / "x.npy", np.zeros(3))
    (tmp_path / "x.npy").rename(renamed)
    with pytest.raises(bg.RunFormatError, match="not a readable .npz"):
        bg.Run.load(renamed)


def test_read_npz_reads_only_what_is_asked(tmp_path, kit):
    path = tmp_path / "a.npz"
    path.write_bytes(kit.make_zip({"x.npy": kit.npy(np.arange(4)), "y.npy": b"garbage"}))
    np.testing.assert_array_equal(read_npz(path, expected={"x": ("i", 1)})["x"], np.arange(4))
    assert read_npz(path, expected={"z": ("i", 1)}) == {}
    with pytest.raises(bg.RunFormatError, match="member 'y'"):
        read_npz(path, expected={"y": ("i", 1)})


def test_validate_run_arrays_accepts_what_save_writes(saved_runs, tmp_path):
    for run, _ in saved_runs.values():
        path = run.save(tmp_path / f"{run.strategy}.npz")
        arrays = read_npz(path, expected=bg.io.safenpz.RUN_MEMBERS)
        meta = json.loads(str(arrays.pop("meta")))
        validate_run_arrays(meta, arrays)
        assert bg.Run.load(path) == run


KINDS = st.sampled_from(["dynamic", "fixed", "cen"])


@SETTINGS
@given(kind=KINDS, cut=st.floats(0, 1, exclude_max=True))
def test_truncated_files(saved_runs, kit, tmp_path, kind, cut):
    _, blob = saved_runs[kind]
    path = tmp_path / "t.npz"
    path.write_bytes(blob[: int(cut * len(blob))])
    assert _load_or_documented(path, kit) is None


@SETTINGS
@given(
    kind=KINDS,
    flips=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=8
    ),
)
def test_bit_flips(saved_runs, kit, tmp_path, kind, flips):
    _, blob = saved_runs[kind]
    data = bytearray(blob)
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    path = tmp_path / "f.npz"
    path.write_bytes(bytes(data))
    _load_or_documented(path, kit)


@SETTINGS
@given(kind=KINDS, data=st.data())
def test_member_swaps(saved_runs, kit, tmp_path, kind, data):
    _, blob = saved_runs[kind]
    items = kit.members(blob)
    names = sorted(items)
    a, b = data.draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
    items[a], items[b] = items[b], items[a]
    path = tmp_path / "s.npz"
    path.write_bytes(kit.make_zip(items))
    _load_or_documented(path, kit)


@SETTINGS
@given(
    kind=KINDS,
    data=st.data(),
    shape=st.lists(st.integers(0, 2**40), min_size=0, max_size=4),
)
def test_shape_edits(saved_runs, kit, tmp_path, kind, data, shape):
    _, blob = saved_runs[kind]
    items = kit.members(blob)
    name = data.draw(st.sampled_from(sorted(items)))
    items[name] = kit.npy_with_shape(items[name], shape)
    path = tmp_path / "e.npz"
    path.write_bytes(kit.make_zip(items))
    _load_or_documented(path, kit)


def test_a_zip_member_given_twice_is_refused(saved_runs, kit, tmp_path):
    """zipfile reads the last copy of a name: a second 'mse.npy' replaced the run's."""
    import warnings
    import zipfile

    run, blob = saved_runs["dynamic"]
    path = tmp_path / "twice.npz"
    path.write_bytes(blob)
    with warnings.catch_warnings(), zipfile.ZipFile(path, "a") as zf:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
        zf.writestr("mse.npy", kit.npy(run.mse * 0 + 7))
    with pytest.raises(bg.RunFormatError) as e:
        bg.Run.load(path)
    assert str(e.value).endswith("member 'mse.npy' appears 2 times in the zip: which copy is "
                                 "the run's is not said (refused)")  # fmt: skip
    assert "twice.npz" in str(e.value)


def test_a_npy_header_numpy_cannot_tokenize_is_refused_as_corrupt(tmp_path):
    """A flipped byte in a member's .npy header (an unbalanced bracket and a control
    character) sent numpy to its fallback parse, whose tokenize.TokenError escaped as a
    traceback (found by test_bit_flips): refused in one line as corrupt now."""
    import zipfile

    from baygo_graph.exceptions import RunFormatError

    head = b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, \x1c}"
    head += b" " * (63 - len(head) % 64) + b"\n"
    blob = b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + bytes(16)
    path = tmp_path / "tok.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("x.npy", blob)
    with pytest.raises(RunFormatError, match="member 'x' is corrupt"):
        read_npz(path, expected={"x": ("f", 1)})
