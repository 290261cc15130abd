"""Collection rules for the package's doctests (``testpaths`` includes ``baygo_graph``).

A module that needs an optional extra at import time is not collected where the
extra is missing, so that README's test command (``pip install -e ".[test]"``) passes
on a fresh machine; its tests in ``tests/`` skip there with the reason.
"""

from __future__ import annotations

import importlib.util

# module path -> the import it needs (the extra that brings it)
_NEEDS = {"baygo_graph/experiments/_dask.py": "distributed"}  # extra: dask

collect_ignore = [
    path for path, module in _NEEDS.items() if importlib.util.find_spec(module) is None
]
