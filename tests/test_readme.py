"""README runs as written: every ```python block, each in a fresh interpreter.

Each block runs alone (``python -c``) in an empty temporary folder, with
``$BAYGO_BODYFAT`` passed through (the blocks use the real data where it is set),
so a block that leans on an earlier one (a ``NameError``) or on a file beside the
README fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
#: Seconds a single block may take before it counts as failed.
TIMEOUT = 180


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, code)`` of every fenced ```python block of ``text``."""
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        blocks.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return blocks


def test_python_blocks_are_found():
    text = "a\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\n\nz = 3\n```\n"
    assert python_blocks(text) == [(2, "x = 1\n"), (8, "y = 2\n\nz = 3\n")]


BLOCKS = python_blocks(README.read_text())


def test_readme_has_blocks():
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"line{n}" for n, _ in BLOCKS])
def test_block_runs_alone(line, code, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    if env.get("BAYGO_BODYFAT"):  # the blocks run in a temporary folder: an absolute path
        env["BAYGO_BODYFAT"] = str(Path(env["BAYGO_BODYFAT"]).resolve())
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, f"README.md block at line {line} failed:\n{result.stderr}"
