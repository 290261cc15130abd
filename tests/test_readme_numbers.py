"""README's performance table says no number its page does not: each row names its page
(scaling, paper or viewer), and every measured number of the row is on that page
(newcomer6: two rows were on no page of the scaling section README pointed to, one
quoted an earlier measurement)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A measured number: a count with its unit (1.39x, 78.6 s, 2.27 GiB, 27.6 ms, 9 min).
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:x|s|ms|GiB|MiB|min|kB|MB)\b")


def _rows():
    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Performance") : text.index("## Documentation")]
    for line in table.splitlines():
        if line.startswith("| ") and not line.startswith(("| what", "| ---")):
            yield [c.strip() for c in line.strip().strip("|").split("|")]


def test_every_number_of_the_performance_table_is_on_its_page():
    rows = list(_rows())
    assert len(rows) >= 10
    missing = []
    for what, measured, _target, page in rows:
        link = re.fullmatch(r"\[\w+\]\((docs/\w+\.md)(#[\w-]+)?\)", page)
        assert link, f"{what[:40]}: no page link in {page!r}"
        on_page = (ROOT / link.group(1)).read_text()
        missing += [f"{what[:40]}: {n}" for n in NUMBER.findall(measured) if n not in on_page]
    assert not missing, missing


def test_no_python_block_of_the_docs_ends_its_lines_in_a_bare_expression():
    """A block run as a script prints nothing of ``run.mse[-1]`` or ``smallest_b(...).B``
    (getting_started, newcomer5/6): a value shown is printed. A call's value left unused
    (``run.save(...)``) is an action, not a value to read."""
    import ast
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_runner", ROOT / "tests" / "test_docs.py")
    docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs)
    bare = []
    for path in docs.pages():
        for block in docs.fenced_blocks(path.read_text()):
            if block["lang"] != "python" or block["code"].lstrip().startswith(">>>"):
                continue
            for node in ast.parse(block["code"]).body:
                value = node.value if isinstance(node, ast.Expr) else None
                if value is not None and not isinstance(value, ast.Call | ast.Constant):
                    where = f"{path.relative_to(ROOT)}:{block['line'] + node.lineno}"
                    bare.append(f"{where}: {ast.unparse(value)[:60]}")
    assert not bare, bare
