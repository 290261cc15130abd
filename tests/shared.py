"""Helpers shared by the tests (put on the path by ``tests/conftest.py``).

Brute-force references and small builders, written once: ``from shared import ...``.
"""

from __future__ import annotations

import contextlib

import networkx as nx
import numpy as np

__all__ = ["digraph", "eig_reference", "random_choices", "ref_windows", "run_main"]


def run_main(argv) -> int:
    """The exit code of the ``baygo`` entry point on ``argv`` (any items, as text),
    returned or raised."""
    from baygo_graph.cli import main

    try:
        return main([str(a) for a in argv])
    except SystemExit as e:
        return e.code


def digraph(m, edges=()):
    """A DiGraph on nodes ``0..m-1`` with the given edges."""
    g = nx.DiGraph()
    g.add_nodes_from(range(m))
    g.add_edges_from(edges)
    return g


def eig_reference(w: np.ndarray) -> np.ndarray:
    """Left eigenvector of eigenvalue 1, by dense numpy.linalg.eig, summing to 1."""
    vals, vecs = np.linalg.eig(w.T)
    k = np.argmin(np.abs(vals - 1.0))
    v = np.real(vecs[:, k])
    return v / v.sum()


def random_choices(rng, t, m):
    """(t, m) random choices, each agent choosing someone other than itself."""
    ch = rng.integers(0, m - 1, size=(t, m))
    return ch + (ch >= np.arange(m))


def ref_windows(t, b, windows, incomplete):
    """The ``[start, stop)`` windows of length ``b`` over ``t`` steps, by brute force."""
    starts = range(0, t, b) if windows == "aligned" else range(t)
    out = [(s, min(s + b, t)) for s in starts]
    if incomplete == "drop":
        out = [(s, e) for s, e in out if e - s == b]
    return out


@contextlib.contextmanager
def plugin_sandbox():
    """Plug-ins loaded inside are forgotten after: the loaded list, the strategy and
    model names they registered, their modules (so that later tests' workers do not
    import them)."""
    import sys

    from baygo_graph.experiments import plugins
    from baygo_graph.models import registry as models
    from baygo_graph.strategies import registry as strategies

    saved = (
        dict(plugins._LOADED),
        dict(models._REGISTRY),
        dict(strategies._REGISTRY),
        dict(strategies._ALIASES),
    )
    modules = set(sys.modules)
    try:
        yield
    finally:
        for target, copy in zip(
            (plugins._LOADED, models._REGISTRY, strategies._REGISTRY, strategies._ALIASES),
            saved,
            strict=True,
        ):
            target.clear()
            target.update(copy)
        for name in set(sys.modules) - modules:
            if name.startswith(plugins.MODULE_PREFIX):
                del sys.modules[name]
