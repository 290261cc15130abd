"""Runs stay bit-identical across refactors: digests of reference runs stored here.

The digests were recorded before the strategy/series redesign (issue 8). A change
that alters any of them changes what a seed produces; update them only on purpose,
with a CHANGELOG entry saying why.
"""

from __future__ import annotations

import hashlib
import warnings

import networkx as nx
import numpy as np
import pytest

import baygo_graph as bg

DATA = bg.synthetic_bodyfat(rng=7)

CASES = {
    "baygo": {},
    "complete": {},
    "posm": {},
    "negm": {},
    "nocol": {},
    "cen-stratified": {},
    "baygo-physical": {"physical": nx.cycle_graph(6)},
    "baygo-float32": {"dtype": "float32"},
    "graph-edge": {"weights": "edge"},
}

DIGESTS = {
    "baygo": "c7fc996436d390a1a5569dd130de4b527caecf4bfd9b86441fc1fa6d236bee24",
    "baygo-float32": "4c324a6a77fe6a78b5f2e8bea9dbc687a0bc8372f4947cb409c18c9d235e5c80",
    "baygo-physical": "4484d0f939c4c22746fd5290412659ca3612e76bd6a5aefede4b6f7f97d52b03",
    "cen-stratified": "ec9eb5c67ab684314021cd192242b4c34876bcef40a987280d9c810f114a0dde",
    "complete": "fc6624f6e171cd91d848cc4e467edfbb5c392fe3b4a2db8dbf853680f87fca7a",
    "graph-edge": "588b0964de087961dad12aea7343dfb030a3117d1ddb1d40a9247c1f626a74f1",
    "negm": "c11f783510b6b066d2b296aeacd97aa630c1aaedbc97bf1fb1acbe319042cbf3",
    "nocol": "d64dbfcb363e2b7419f1042a418e5c5167eff6cadfd044f4c04ee97059edc894",
    "posm": "6bdf9d20068530feaedccc72fd9819c21e5416922204a4904a5b5431c9277e75",
}


def _run(case):
    kwargs = dict(CASES[case])
    strategy = case.split("-")[0] if case != "cen-stratified" else case
    if case == "graph-edge":
        g = nx.path_graph(6)
        nx.set_edge_attributes(g, {e: float(sum(e)) for e in g.edges}, "weight")
        strategy = g
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bg.GridResolutionWarning)
        return bg.simulate(
            strategy, agents=6, steps=12, grid=21, batch=2, rng=1234, data=DATA, **kwargs
        )


def digest(run) -> str:
    """SHA-256 of every array a run records (metrics, choices, fixed weights)."""
    h = hashlib.sha256()
    arrays = [run.mse, run.entropy, run.mean]
    if run.choices is not None:
        arrays.append(run.choices)
    if run.fixed_weights is not None:
        w = run.fixed_weights
        arrays += [w.data, w.indices.astype(np.int64), w.indptr.astype(np.int64)]
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_digest_unchanged(case):
    assert digest(_run(case)) == DIGESTS[case]
